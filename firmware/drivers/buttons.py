"""Debounced push buttons with long press, read as bits of a port, polled
with the time passed in.

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
    """Up to 16 keys read as bits of a port: `port.state` is an int whose
    bits first..first+n-1 are keys 0..n-1 (an MCP23017 after its read(), or
    any object keeping the levels of a GPIO port there). State is kept as bit
    masks, one bit per key, so a seat costs a few ints, not an object per key.

    active_low: a pressed key reads 0 (pull-up wiring, the default).
    A level must hold for debounce_ms before it counts.

    A port that latches its first change between two reads (an MCP23017's
    INTF/INTCAP: `changed`, `captured`, and `seq` counting its reads) also
    gives the taps no sample saw: a key captured pressed, up again by the
    next sample, counts as pressed then (its release debounced as usual).
    """

    def __init__(self, port, first=0, n=SEAT_KEYS, active_low=True, debounce_ms=20,
                 long_ms=800, queue=16):
        if not 0 < n <= 16 or first < 0:
            raise ValueError("1..16 keys")
        if debounce_ms < 0 or long_ms <= debounce_ms:
            raise ValueError("need 0 <= debounce_ms < long_ms")
        self.port = port
        self.first = first
        self.n = n
        self._mask = (1 << n) - 1
        self._flip = self._mask if active_low else 0  # levels ^ flip: 1 = pressed
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self._raw = 0  # last sample
        self._stable = 0  # debounced
        self._long = 0  # LONG sent for the press now held
        self._t = [0] * (2 * n)  # ms: [i] key i's raw level last changed, [n + i] it went down
        self._seq = port.seq if hasattr(port, "seq") else -1  # -1: a port without a capture
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
        return bool(self._stable >> i & 1)

    def down(self, i):
        """Key i's level in the port's last read, not debounced (True: pressed)."""
        return bool(((self.port.state >> self.first) ^ self._flip) >> i & 1)

    def poll(self, now_ms):
        """Sample every key once from port.state, queue new events, return the
        oldest (or 0). Call next() until it returns 0 to drain the rest."""
        self.sample(now_ms)
        return self.next()

    def _taps(self, r, now_ms):
        """A press the port caught that is up again now: pressed (debounced)
        and released at now_ms, so the next sample past debounce_ms ends it."""
        p = self.port
        self._seq = p.seq
        tap = ((p.changed >> self.first) & ((p.captured >> self.first) ^ self._flip)
               & self._mask & ~r & ~self._stable)
        if not tap:
            return
        for i in range(self.n):
            if tap >> i & 1:
                self._t[i] = now_ms
                self._down(i, now_ms)
        self._raw |= tap

    def _down(self, i, at):
        """Key i counts as pressed since `at` (ms); its LONG is yet to come."""
        self._stable |= 1 << i
        self._t[self.n + i] = at
        self._long &= ~(1 << i)

    def sample(self, now_ms):
        """Sample every key once from port.state and queue new events (for a
        caller that samples more often than it takes the events)."""
        r = ((self.port.state >> self.first) ^ self._flip) & self._mask
        if self._seq >= 0 and self.port.seq != self._seq:
            self._taps(r, now_ms)
        changed = r ^ self._raw
        if not changed and r == self._stable and not r & ~self._long:
            return  # nothing settling, no press to time: the usual case
        old = self._raw
        self._raw = r
        t = self._t
        n = self.n
        for i in range(n):
            bit = 1 << i
            if changed & bit:
                # read down by one sample alone, up by the next debounce_ms
                # later: a press the samples came too far apart to see twice
                # (a board busy writing its log samples up to ~335 ms apart)
                if (old & bit and not self._stable & bit
                        and ticks_diff(now_ms, t[i]) >= self.debounce_ms):
                    self._down(i, t[i])
                t[i] = now_ms
            elif (r ^ self._stable) & bit and ticks_diff(now_ms, t[i]) >= self.debounce_ms:
                if r & bit:
                    self._down(i, t[i])
                else:
                    self._stable &= ~bit
                    if not self._long & bit:
                        self._put((SHORT << 4) | i)
            # LONG only on a sample that still reads the key down: one that
            # reads it up ends the press, though its debounce is not over (a
            # board sampling 300 ms apart made a 400 ms press a LONG one)
            if self._stable & bit and not self._long & bit and r & bit:
                if ticks_diff(now_ms, t[n + i]) >= self.long_ms:
                    self._long |= bit
                    self._put((LONG << 4) | i)
