"""HT16K33 4-digit 7-segment display (I2C), one per seat.

Datasheet reading (Holtek HT16K33 v1.20), as used here:
- Display RAM: 16 bytes at addresses 0x00..0x0F. Byte 2*n holds COM n, ROW0..7;
  byte 2*n+1 holds COM n, ROW8..15. A write whose first byte is 0x00..0x0F sets
  the RAM address pointer; the following bytes fill RAM with auto-increment.
- System setup 0x20|S: S=1 starts the oscillator (0x21), S=0 is standby.
- Display setup 0x80|B<<1|D: D=1 display on; B blink 0 off, 1 = 2 Hz,
  2 = 1 Hz, 3 = 0.5 Hz.
- Dimming 0xE0|P: P 0..15 gives a duty of (P+1)/16.
The common 4-digit 7-segment "backpack" wires digit positions 0, 1, 3, 4 to
COM0, COM1, COM3, COM4 (RAM bytes 0, 2, 6, 8) and the colon to COM2 ROW1
(RAM byte 4, bit 0x02). Segment bits: a=0x01 .. g=0x40, decimal point 0x80.

The driver keeps one preallocated frame (pointer byte + 16 RAM bytes) and one
command byte, so updates allocate nothing.
"""

try:
    from micropython import const
except ImportError:  # CPython tests

    def const(x):  # type: ignore[misc]
        return x


_CMD_OSC_ON = const(0x21)
_CMD_STANDBY = const(0x20)
_CMD_DISPLAY = const(0x80)
_CMD_DIM = const(0xE0)
_DP = const(0x80)
_COLON_BYTE = const(5)  # frame index: 1 + RAM byte 4
_COLON_BIT = const(0x02)
_MINUS = const(0x40)

BLINK_OFF = const(0)
BLINK_2HZ = const(1)
BLINK_1HZ = const(2)
BLINK_HALF_HZ = const(3)

# Frame index (1 + RAM address) of each visible digit, left to right.
_DIGIT_AT = b"\x01\x03\x07\x09"

# Segment patterns for ASCII 0x20..0x7F; 0xFF marks a character with no glyph.
_FONT = (
    b"\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x40\xff\xff"  # ' ' .. '/': ' ', '-'
    b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f\xff\xff\xff\x48\xff\xff"  # 0-9, '='
    b"\xff\x77\x7c\x39\x5e\x79\x71\x3d\x76\x06\x1e\xff\x38\xff\x54\x3f"  # @ A-O
    b"\x73\x67\x50\x6d\x78\x3e\xff\xff\xff\x6e\xff\xff\xff\xff\xff\x08"  # P-Z, '_'
    b"\xff\x77\x7c\x58\x5e\x79\x71\x3d\x74\x04\x1e\xff\x38\xff\x54\x5c"  # ` a-o
    b"\x73\x67\x50\x6d\x78\x1c\xff\xff\xff\x6e\xff\xff\xff\xff\xff\xff"  # p-z
)


def glyph(ch):
    """Segment bits for one character (str of length 1) or -1 if it has no glyph."""
    c = ord(ch)
    if c < 0x20 or c > 0x7F:
        return -1
    g = _FONT[c - 0x20]
    return -1 if g == 0xFF else g


class HT16K33:
    """One 4-digit display at I2C address 0x70..0x77 (the table uses 0x70..0x73).

    `i2c` needs machine.I2C's writeto(addr, buf). Nothing is sent until init()
    or write(); the show_* methods fill the buffer and write it.
    """

    def __init__(self, i2c, addr=0x70):
        if not 0x70 <= addr <= 0x77:
            raise ValueError("HT16K33 address must be 0x70..0x77")
        self.i2c = i2c
        self.addr = addr
        self._frame = bytearray(17)  # [RAM pointer 0x00] + 16 RAM bytes
        self._cmd = bytearray(1)
        self._blink = 0
        self._on = True

    def _command(self, c):
        self._cmd[0] = c
        self.i2c.writeto(self.addr, self._cmd)

    def init(self, level=15):
        """Oscillator on, display on without blinking, given brightness, blank."""
        self._command(_CMD_OSC_ON)
        self._blink = 0
        self._on = True
        self._command(_CMD_DISPLAY | 1)
        self.brightness(level)
        self.clear()

    def brightness(self, level):
        """Dimming 0..15 (duty (level+1)/16)."""
        if not 0 <= level <= 15:
            raise ValueError("brightness must be 0..15")
        self._command(_CMD_DIM | level)

    def blink(self, rate):
        """0 off, 1 = 2 Hz, 2 = 1 Hz, 3 = 0.5 Hz (BLINK_* constants)."""
        if not 0 <= rate <= 3:
            raise ValueError("blink rate must be 0..3")
        self._blink = rate
        self._command(_CMD_DISPLAY | (rate << 1) | (1 if self._on else 0))

    def power(self, on):
        """Display on/off (RAM kept); off also stops the oscillator."""
        self._on = bool(on)
        if on:
            self._command(_CMD_OSC_ON)
        self._command(_CMD_DISPLAY | (self._blink << 1) | (1 if on else 0))
        if not on:
            self._command(_CMD_STANDBY)

    def write(self):
        """Send the whole RAM image in one I2C transaction."""
        self.i2c.writeto(self.addr, self._frame)

    def clear(self):
        f = self._frame
        for i in range(1, 17):
            f[i] = 0
        self.write()

    def set_digit(self, pos, bits):
        """Raw segment bits (0..255) for digit 0..3 (left to right); no write."""
        if not 0 <= pos <= 3 or not 0 <= bits <= 255:
            raise ValueError("digit 0..3, bits 0..255")
        self._frame[_DIGIT_AT[pos]] = bits

    def set_colon(self, on):
        """Colon between digits 1 and 2; no write."""
        if on:
            self._frame[_COLON_BYTE] |= _COLON_BIT
        else:
            self._frame[_COLON_BYTE] &= ~_COLON_BIT & 0xFF

    def show_number(self, n, colon=False):
        """Integer -999..9999, right-aligned, leading blanks. Allocates nothing."""
        if not -999 <= n <= 9999:
            raise ValueError("number out of -999..9999")
        f = self._frame
        neg = n < 0
        v = -n if neg else n
        pos = 3
        while True:
            f[_DIGIT_AT[pos]] = _FONT[0x10 + v % 10]
            v //= 10
            pos -= 1
            if v == 0 or pos < 0:
                break
        if neg:
            f[_DIGIT_AT[pos]] = _MINUS
            pos -= 1
        while pos >= 0:
            f[_DIGIT_AT[pos]] = 0
            pos -= 1
        self.set_colon(colon)
        self.write()

    def show_text(self, s, colon=False):
        """Up to 4 glyphs, left-aligned; a '.' lights the previous digit's point.

        Supported: digits, space, '-', '_', '=' and the letters the font has
        (A b C d E F G H I J L n o P q r S t U y and lower-case forms). Any
        other character or more than 4 glyphs raises ValueError and leaves the
        display unchanged.
        """
        pos = 0
        for i in range(len(s)):
            ch = s[i]
            if ch == "." and pos > 0:
                continue
            if glyph(ch) < 0 or pos >= 4:
                raise ValueError("cannot show %r" % s)
            pos += 1
        f = self._frame
        pos = 0
        for i in range(len(s)):
            ch = s[i]
            if ch == "." and pos > 0:
                f[_DIGIT_AT[pos - 1]] |= _DP
                continue
            f[_DIGIT_AT[pos]] = glyph(ch)
            pos += 1
        while pos < 4:
            f[_DIGIT_AT[pos]] = 0
            pos += 1
        self.set_colon(colon)
        self.write()
