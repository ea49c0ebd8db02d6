"""Helpers for tests that run under both CPython (pytest) and MicroPython."""


def raises(exc, fn, *args):
    """Call fn(*args); assert it raises exc. Returns the exception."""
    try:
        fn(*args)
    except exc as e:
        return e
    raise AssertionError("%s not raised by %r%r" % (exc.__name__, fn, args))
