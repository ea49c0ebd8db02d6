"""Debounced push buttons with long press, polled with the time passed in.

A seat panel has seven keys, in this order (index = event low nibble):
0 胡 hu, 1 碰 peng, 2 杠 gang, 3 过 guo, 4 万 wan (m), 5 筒 tong (p), 6 条 tiao (s).
Events are small ints: (kind << 4) | index, kind SHORT (1) when a key is
released before long_ms, LONG (2) once when a key has been held long_ms
(no SHORT follows it). 0 means no event.

Time is an argument (ms, as from time.ticks_ms(), which wraps at 2**30 on
MicroPython), so the logic is testable and does not read a clock itself.
"""

try:
    from micropython import const
except ImportError:  # CPython tests

    def const(x):  # type: ignore[misc]
        return x


HU = const(0)
PENG = const(1)
GANG = const(2)
GUO = const(3)
WAN = const(4)
TONG = const(5)
TIAO = const(6)
SEAT_KEYS = const(7)
KEY_NAMES = ("hu", "peng", "gang", "guo", "wan", "tong", "tiao")

SHORT = const(1)
LONG = const(2)
NONE = const(0)

_PERIOD = const(1 << 30)
_HALF = const(1 << 29)


def ticks_diff(a, b):
    """a - b for ms counters that wrap at 2**30 (like time.ticks_diff)."""
    return ((a - b + _HALF) & (_PERIOD - 1)) - _HALF


def event(kind, index):
    return (kind << 4) | index


def kind_of(ev):
    return ev >> 4


def index_of(ev):
    return ev & 0x0F


class Buttons:
    """Up to 16 buttons; `pins` have value() (machine.Pin or expander pins).

    active_low: a pressed key reads 0 (pull-up wiring, the default).
    A level must hold for debounce_ms before it counts.
    """

    def __init__(self, pins, active_low=True, debounce_ms=20, long_ms=800, queue=16):
        n = len(pins)
        if not 0 < n <= 16:
            raise ValueError("1..16 buttons")
        if debounce_ms < 0 or long_ms <= debounce_ms:
            raise ValueError("need 0 <= debounce_ms < long_ms")
        self.pins = pins
        self.n = n
        self.active_low = active_low
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self._raw = bytearray(n)
        self._stable = bytearray(n)
        self._long_sent = bytearray(n)
        self._since = [0] * n
        self._down_at = [0] * n
        self._q = bytearray(queue)
        self._head = 0
        self._len = 0
        self.dropped = 0

    def _put(self, ev):
        q = self._q
        if self._len >= len(q):
            self.dropped += 1
            return
        q[(self._head + self._len) % len(q)] = ev
        self._len += 1

    def next(self):
        """Oldest pending event, or 0."""
        if not self._len:
            return NONE
        ev = self._q[self._head]
        self._head = (self._head + 1) % len(self._q)
        self._len -= 1
        return ev

    def pending(self):
        return self._len

    def pressed(self, i):
        """Debounced state of key i."""
        return bool(self._stable[i])

    def poll(self, now_ms):
        """Sample every key once, queue new events, return the oldest (or 0).

        Call next() until it returns 0 to drain the rest.
        """
        act = 0 if self.active_low else 1
        for i in range(self.n):
            r = 1 if self.pins[i].value() == act else 0
            if r != self._raw[i]:
                self._raw[i] = r
                self._since[i] = now_ms
            elif r != self._stable[i]:
                if ticks_diff(now_ms, self._since[i]) >= self.debounce_ms:
                    self._stable[i] = r
                    if r:
                        self._down_at[i] = self._since[i]
                        self._long_sent[i] = 0
                    elif not self._long_sent[i]:
                        self._put((SHORT << 4) | i)
            if self._stable[i] and not self._long_sent[i]:
                if ticks_diff(now_ms, self._down_at[i]) >= self.long_ms:
                    self._long_sent[i] = 1
                    self._put((LONG << 4) | i)
        return self.next()
