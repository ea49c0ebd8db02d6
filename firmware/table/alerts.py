"""Alert codes: what the table shows when it will not change the game.

An alert belongs to one seat. It is shown on that seat's display (TEXTS,
blinking) with its LEDs red, and logged with its code. While any alert
stands, the controller applies no action: the game stays as it was until
the table is put right. Table alerts (tiles in the wrong place) clear
themselves once the tiles are back where the game expects them; button
alerts (a refused key press) clear after `hold_ms` or on the seat's next
accepted action. docs/alerts.md has the table for players.
"""

from micropython import const
from sichuan import claims

NONE = const(0)
VOID = const(1)  # a discard that breaks 缺门 (void suit still held)
TURN = const(2)  # an action out of turn
TAG = const(3)  # an unknown tag on a rack or tray
TWO = const(4)  # one tile seen in two places
FIFTH = const(5)  # a fifth copy: a tile already played comes back as new
COUNT = const(6)  # wrong tile count on a rack or tray
REFUSED = const(7)  # a claim (or kong, or win) the rules refuse
FULL = const(8)  # flash full: no new hand until the host takes the logs
READER = const(9)  # a reader does not answer
KEYS = const(10)  # a key expander does not answer
DISPLAY = const(11)  # a display does not answer
FIELD = const(12)  # a reader answers but its RF field does not come on

# 4-character display texts (HT16K33 font: digits, space, - _ = and the
# letters A b C d E F G H I J L n o P q r S t U y), index = code.
TEXTS = ("    ", "quE ", "turn", "tAG ", "2PLC", "5th ", "Cnt ", "rEF ", "FULL", "rdEr", "PAd ",
         "dISP", "FLd ")
NAMES = ("none", "void-suit discard", "out of turn", "unknown tag", "tile in two places",
         "fifth copy", "wrong tile count", "claim refused", "flash full", "reader fault",
         "keys fault", "display fault", "RF field fault")

# Alerts that a key press raised clear by themselves; the rest need the table put right.
_BY_KEY = const(1 << REFUSED | 1 << TURN)
# Chip alerts: a chip of the seat does not answer. They stop nothing (the
# other seats play on) and stand until the controller sees the chip back.
_CHIP = const(1 << READER | 1 << KEYS | 1 << DISPLAY | 1 << FIELD)


def from_reason(reason):
    """The alert code for an engine refusal reason (sichuan.claims)."""
    if reason in (claims.MUST_DISCARD_VOID, claims.VOID_TILE):
        return VOID
    if reason == claims.NOT_YOUR_TURN:
        return TURN
    if reason == claims.FIFTH_COPY:
        return FIFTH
    if reason == claims.BAD_COUNT:
        return COUNT
    return REFUSED


class Alerts:
    """The standing alert of each seat: code, the engine reason behind it (or
    0), when it was raised, and its kind (by_key): 0 the table raised it,
    1 a key press, 2 a chip fault (neither table nor key alerts: they stop
    no action and clear only by clear())."""

    def __init__(self, seats=4, hold_ms=3000):
        self.seats = seats
        self.hold_ms = hold_ms
        self.code = bytearray(seats)
        self.reason = bytearray(seats)
        self.by_key = bytearray(seats)
        self.since = [0] * seats
        self.raised = 0  # alerts raised so far (tests, bench)

    def raise_(self, seat, code, now, reason=0, by_key=False):
        """Set seat's alert; returns True if it is new (the caller logs it)."""
        if not 0 <= seat < self.seats or not 0 < code < len(TEXTS):
            raise ValueError("bad seat or alert code")
        new = self.code[seat] != code or self.reason[seat] != reason
        self.code[seat] = code
        self.reason[seat] = reason
        self.by_key[seat] = 2 if _CHIP >> code & 1 else (1 if by_key else 0)
        self.since[seat] = now
        if new:
            self.raised += 1
        return new

    def clear(self, seat):
        self.code[seat] = NONE
        self.reason[seat] = 0
        self.by_key[seat] = 0

    def clear_table(self, keep=-1):
        """Clear every table-raised alert (the table is right again), except
        code `keep`."""
        for s in range(self.seats):
            c = self.code[s]
            if c and not self.by_key[s] and c != keep:
                self.clear(s)

    def expire(self, now):
        """Drop key-raised alerts older than hold_ms (now and since in ms)."""
        for s in range(self.seats):
            if self.code[s] and self.by_key[s] == 1:
                if ((now - self.since[s]) & 0x3FFFFFFF) >= self.hold_ms:
                    self.clear(s)

    def table_alert(self):
        """True if some seat has an alert that needs the table put right."""
        for s in range(self.seats):
            if self.code[s] and not self.by_key[s]:
                return True
        return False

    def any(self):
        for s in range(self.seats):
            if self.code[s]:
                return True
        return False

    def text(self, seat):
        return TEXTS[self.code[seat]]


def by_key(code):
    return bool(_BY_KEY >> code & 1)
