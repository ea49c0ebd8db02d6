"""HT16K33 simulator at the I2C command level (Holtek datasheet v1.20).

Command decoding of the first byte of a write:
- 0x00..0x0F display RAM address pointer; further bytes fill RAM, the pointer
  wrapping from 0x0F to 0x00;
- 0x20|S system setup (S=1 oscillator on);
- 0x80|B<<1|D display setup (D on, B blink 0..3);
- 0xE0|P dimming 0..15;
- 0x40..0x45 key data pointer (reads return the key RAM, all zero here);
- 0xA0.. ROW/INT set (accepted, stored).
Anything else is counted in `bad_commands`. The display is dark unless the
oscillator and the display are both on.
"""

_SEGS = (
    (0x3F, "0"), (0x06, "1"), (0x5B, "2"), (0x4F, "3"), (0x66, "4"), (0x6D, "5"),
    (0x7D, "6"), (0x07, "7"), (0x7F, "8"), (0x6F, "9"), (0x00, " "), (0x40, "-"),
    (0x77, "A"), (0x7C, "b"), (0x39, "C"), (0x5E, "d"), (0x79, "E"), (0x71, "F"),
    (0x3D, "G"), (0x76, "H"), (0x74, "h"), (0x1E, "J"), (0x38, "L"), (0x54, "n"),
    (0x5C, "o"), (0x73, "P"), (0x67, "q"), (0x50, "r"), (0x78, "t"), (0x3E, "U"),
    (0x1C, "u"), (0x6E, "y"), (0x08, "_"), (0x58, "c"), (0x04, "i"), (0x48, "="),
)
_DIGIT_RAM = (0, 2, 6, 8)


class HT16K33Sim:
    def __init__(self):
        self.ram = bytearray(16)
        self.key_ram = bytearray(6)
        self.ptr = 0
        self.key_ptr = -1
        self.osc = False
        self.on = False
        self.blink = 0
        self.dim = 15
        self.row_int = 0
        self.bad_commands = 0
        self.writes = 0

    def i2c_write(self, buf):
        if len(buf) == 0:
            return
        self.writes += 1
        c = buf[0]
        self.key_ptr = -1
        if c <= 0x0F:
            p = c
            for i in range(1, len(buf)):
                self.ram[p] = buf[i]
                p = (p + 1) & 0x0F
            self.ptr = c
        elif c & 0xF0 == 0x20:
            self.osc = bool(c & 1)
        elif c & 0xF0 == 0x80:
            self.on = bool(c & 1)
            self.blink = (c >> 1) & 3
        elif c & 0xF0 == 0xE0:
            self.dim = c & 0x0F
        elif 0x40 <= c <= 0x45:
            self.key_ptr = c - 0x40
        elif c & 0xF0 == 0xA0:
            self.row_int = c & 0x0F
        else:
            self.bad_commands += 1

    def i2c_read_into(self, buf):
        if self.key_ptr >= 0:
            for i in range(len(buf)):
                buf[i] = self.key_ram[(self.key_ptr + i) % 6]
            return
        p = self.ptr
        for i in range(len(buf)):
            buf[i] = self.ram[p]
            p = (p + 1) & 0x0F

    def lit(self):
        """True when the digits are visible (oscillator and display on)."""
        return self.osc and self.on

    def digit_bits(self, pos):
        return self.ram[_DIGIT_RAM[pos]]

    def colon(self):
        return bool(self.ram[4] & 0x02)

    def text(self):
        """The 4 digits as text ('?' for a pattern with no letter, '.' after a
        digit whose point is lit); blank when the display is dark."""
        if not self.lit():
            return "    "
        out = ""
        for pos in range(4):
            bits = self.ram[_DIGIT_RAM[pos]]
            ch = "?"
            for seg, c in _SEGS:
                if seg == bits & 0x7F:
                    ch = c
                    break
            out += ch
            if bits & 0x80:
                out += "."
        return out
