"""Helpers for tests that run under both CPython (pytest) and MicroPython."""


def raises(exc, fn, *args):
    """Call fn(*args); assert it raises exc. Returns the exception."""
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("%s not raised by %r%r" % (exc.__name__, fn, args))


def lcg(seed):
    """nxt(n) -> 0..n-1: the same pseudo-random sequence on both interpreters
    (x' = 1103515245 x + 12345 mod 2^31, high bits used)."""
    state = [seed & 0x7FFFFFFF]

    def nxt(n):
        state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
        return (state[0] >> 8) % n

    return nxt
