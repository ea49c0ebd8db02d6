"""Seat status LEDs on one WS2812 chain, through a neopixel.NeoPixel-like
object (np[i] = (r, g, b); np.write(); len(np)).

Seat s owns LEDs s*per_seat .. s*per_seat+per_seat-1. Each seat shows one
state: OFF, TURN (green), CLAIM (blue, blinks 1 Hz: this seat may claim),
ALERT (red, blinks 2 Hz), HU (gold: the seat has won, 血战 goes on without
it), WAIT (dim white). Colours are scaled once at construction; tick() only
writes the chain when something visible changed, and allocates nothing.
"""

try:
    from micropython import const
except ImportError:  # CPython tests

    def const(x):  # type: ignore[misc]
        return x


OFF = const(0)
TURN = const(1)
CLAIM = const(2)
ALERT = const(3)
HU = const(4)
WAIT = const(5)
_N_STATES = const(6)

_RGB = ((0, 0, 0), (0, 255, 0), (0, 64, 255), (255, 0, 0), (255, 170, 0), (60, 60, 60))
_BLINK_HALF_MS = (0, 0, 500, 250, 0, 0)  # half period per state, 0 = steady


class SeatLeds:
    def __init__(self, np, seats=4, brightness=64):
        n = len(np)
        if seats < 1 or n < seats or n % seats:
            raise ValueError("LED count must be a multiple of the seat count")
        if not 0 <= brightness <= 255:
            raise ValueError("brightness 0..255")
        self.np = np
        self.seats = seats
        self.per_seat = n // seats
        self._colours = tuple(
            (r * brightness // 255, g * brightness // 255, b * brightness // 255)
            for (r, g, b) in _RGB
        )
        self._state = bytearray(seats)
        self._shown = bytearray(seats)  # colour index currently on the LEDs
        self._since = [0] * seats
        self._dirty = True

    def set(self, seat, state, now_ms=0):
        """Give `seat` a state (OFF, TURN, CLAIM, ALERT, HU, WAIT)."""
        if not 0 <= seat < self.seats or not 0 <= state < _N_STATES:
            raise ValueError("bad seat or LED state")
        if self._state[seat] != state:
            self._state[seat] = state
            self._since[seat] = now_ms
            self._dirty = True

    def state(self, seat):
        return self._state[seat]

    def tick(self, now_ms):
        """Apply states and blinking; writes the chain only when it changes.
        Returns True when it wrote."""
        changed = self._dirty
        self._dirty = False
        for s in range(self.seats):
            st = self._state[s]
            half = _BLINK_HALF_MS[st]
            show = st
            if half and (((now_ms - self._since[s]) & 0x3FFFFFFF) // half) & 1:
                show = OFF
            if show != self._shown[s] or changed:
                self._shown[s] = show
                c = self._colours[show]
                base = s * self.per_seat
                for i in range(base, base + self.per_seat):
                    self.np[i] = c
                changed = True
        if changed:
            self.np.write()
        return changed

    def refresh(self):
        """Write the seats' states again at the next tick (the chain was
        written by someone else: a self-test's pattern)."""
        self._dirty = True

    def all_off(self):
        for s in range(self.seats):
            self._state[s] = OFF
        self._dirty = True
