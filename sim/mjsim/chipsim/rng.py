"""A tiny seeded PRNG (xorshift32) that gives the same sequence on CPython and
MicroPython, so fault injection in the simulators is reproducible everywhere."""


class XorShift32:
    def __init__(self, seed=1):
        self.state = (seed & 0xFFFFFFFF) or 0x9E3779B9

    def next(self):
        """Next 32-bit value."""
        x = self.state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.state = x
        return x

    def chance(self, rate):
        """True with probability `rate` (0.0..1.0)."""
        if rate <= 0:
            return False
        return (self.next() >> 8) < rate * (1 << 24)

    def below(self, n):
        """Integer in 0..n-1."""
        return self.next() % n
