"""What each seat's HT16K33 and LEDs show.

Per seat, by priority:
1. an alert: its 4-letter text (table.alerts.TEXTS), blinking 2 Hz, LEDs red;
2. a claim prompt: the claims open to the seat, "H" 胡, "P" 碰, "G" 杠,
   "F" 飞 (e.g. "HP  "), blinking 1 Hz, LEDs blue;
3. a payment as it happens: "u12" received 12 / "-6" paid 6 (the seat's
   net of the payments of the last pay_ms; 7 segments have no '+'), steady;
4. a setup step the seat still owes: "C3  " give three tiles (换三张),
   "q-  " choose the 缺 suit with a suit key; "qH  " 请胡 announced, the
   single still to discard (断卡根); "----" on a seat nobody plays at (two
   or three players); or a text the controller sets
   for the whole table ("FULL": no room for a new hand's log, "Enr ": no
   enrollment map yet);
5. otherwise the seat's score (match total including this hand), right
   aligned, clamped to -999..9999; the decimal point after digit 1, 2 or 3
   (counting from the left) marks the 缺 suit 万, 筒 or 条; the colon is lit
   on the seat whose turn it is.
LEDs: TURN (green) on the turn seat, HU (gold) once a seat has won, WAIT
(dim) while a setup step is owed, CLAIM and ALERT as above.

A display is written only when what it shows changes; one refresh of an
unchanged table sends nothing on the I2C bus.
"""

from drivers import ht16k33, ws2812
from micropython import const
from table import alerts

_M_SCORE = const(0)
_M_ALERT = const(1)
_M_PROMPT = const(2)
_M_PAY = const(3)
_M_TEXT = const(4)

# seat states the controller passes in
S_PLAY = const(0)
S_EXCHANGE = const(1)  # owes three tiles (换三张)
S_DINGQUE = const(2)  # owes a 缺 suit
S_WON = const(3)  # has won (血战: out of the hand)
S_IDLE = const(4)  # between hands
S_OFF = const(5)  # a seat nobody plays at (two or three players): "----", LEDs off
S_QING = const(6)  # 断卡根: 请胡 announced (long 胡), the single not yet discarded

_SETUP_TEXT = ("", "C3  ", "q-  ", "", "", "----", "qH  ")


def clamp(v):
    return -999 if v < -999 else (9999 if v > 9999 else v)


def score_text(v, void=255):
    """Score as 4 display characters, with a '.' after digit void+1."""
    s = "%4d" % clamp(v)
    if 0 <= void < 3:
        s = s[:void + 1] + "." + s[void + 1:]
    return s


def pay_text(v):
    """A payment: "-6" paid 6, "u12" received 12 (7 segments have no '+')."""
    v = clamp(v)
    s = ("u" if v >= 0 else "-") + str(v if v >= 0 else -v)
    if len(s) > 4:
        s = s[1:]
    return "%4s" % s


def prompt_text(mask):
    """Claim mask (sichuan.claims C_HU 1, C_PENG 2, C_GANG 4, C_FEI 8) as
    'HPGF' letters (F: 宜宾 飞)."""
    return ("H" if mask & 1 else " ") + ("P" if mask & 2 else " ") + \
        ("G" if mask & 4 else " ") + ("F" if mask & 8 else " ")


class TableDisplay:
    """displays: one HT16K33 driver per seat; leds: drivers.ws2812.SeatLeds (or None)."""

    def __init__(self, displays, leds=None, pay_ms=2000):
        self.displays = displays
        self.leds = leds
        self.seats = len(displays)
        self.pay_ms = pay_ms
        self.text = None  # a table-wide text shown instead of scores (or None)
        n = self.seats
        self._key = [None] * n
        self._blink = bytearray(n)
        self._pay = [0] * n
        self._pay_at = [0] * n
        self._paying = bytearray(n)
        self.writes = 0
        self.failed = bytearray(n)  # writes failed in a row (the controller marks it down)
        self.down = 0  # seats whose display is down (bit per seat): not written

    def payment(self, seat, amount, now):
        """Seat gains `amount` (negative: pays) now; shown for pay_ms."""
        if self._paying[seat]:
            self._pay[seat] += amount
        else:
            self._pay[seat] = amount
        self._paying[seat] = 1
        self._pay_at[seat] = now

    def clear_payments(self):
        for s in range(self.seats):
            self._paying[s] = 0

    def _mode(self, s, now, alert, prompt, state):
        if alert:
            return _M_ALERT
        if prompt:
            return _M_PROMPT
        if self._paying[s]:
            if ((now - self._pay_at[s]) & 0x3FFFFFFF) < self.pay_ms:
                return _M_PAY
            self._paying[s] = 0
        if self.text is not None or state >= S_OFF or state in (S_EXCHANGE, S_DINGQUE):
            return _M_TEXT
        return _M_SCORE

    def show(self, s, now, score, turn=False, void=255, prompt=0, alert=0, state=S_PLAY):
        """Bring seat s's display and LEDs up to date (writes only changes)."""
        mode = self._mode(s, now, alert, prompt, state)
        # What the display shows, as one small int (a tuple would be made at
        # every refresh, 4 times 20 a second): the mode in bits 0..2, its
        # value above; a text is its own key.
        if mode == _M_ALERT:
            key = alert << 3 | mode  # type: object
        elif mode == _M_PROMPT:
            key = prompt << 3 | mode
        elif mode == _M_PAY:
            key = (clamp(self._pay[s]) + 1000) << 3 | mode
        elif mode == _M_TEXT:
            key = self.text if self.text is not None else _SETUP_TEXT[state]
        else:  # clamped score, 缺 suit (or 255) and turn: below 2**26
            key = (((clamp(score) + 1000) << 8 | void) << 1 | (1 if turn else 0)) << 3 | mode
        if key != self._key[s] and not self.down >> s & 1:
            self._draw(s, mode, key)
        if self.leds is not None:
            if alert:
                st = ws2812.ALERT
            elif prompt:
                st = ws2812.CLAIM
            elif state == S_WON:
                st = ws2812.HU
            elif turn:
                st = ws2812.TURN
            elif state in (S_EXCHANGE, S_DINGQUE):
                st = ws2812.WAIT
            else:
                st = ws2812.OFF
            self.leds.set(s, st, now)

    def _draw(self, s, mode, key):  # key: as show() made it
        d = self.displays[s]
        v = key >> 3 if isinstance(key, int) else 0
        try:
            if mode == _M_ALERT:
                d.show_text(alerts.TEXTS[v])
            elif mode == _M_PROMPT:
                d.show_text(prompt_text(v))
            elif mode == _M_PAY:
                d.show_text(pay_text(v - 1000))
            elif mode == _M_TEXT:
                d.show_text(key)
            else:
                d.show_text(score_text((v >> 9) - 1000, v >> 1 & 255), v & 1 == 1)
            blink = ht16k33.BLINK_2HZ if mode == _M_ALERT else (
                ht16k33.BLINK_1HZ if mode == _M_PROMPT else ht16k33.BLINK_OFF)
            if blink != self._blink[s]:
                d.blink(blink)
                self._blink[s] = blink
            self._key[s] = key
            self.writes += 1
            self.failed[s] = 0
        except OSError:
            if self.failed[s] < 255:  # a seat board unplugged: the controller marks it down
                self.failed[s] += 1

    def redraw(self, s):
        """Seat s's display was re-initialised (blank, not blinking): the
        next show() writes it whole."""
        self._key[s] = None
        self._blink[s] = 0
        self.failed[s] = 0

    def tick(self, now):
        """LED blinking (call every display cycle)."""
        if self.leds is not None:
            self.leds.tick(now)
