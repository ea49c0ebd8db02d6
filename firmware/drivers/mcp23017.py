"""MCP23017 16-bit I2C GPIO expander, used for the 28 seat-panel keys.

Datasheet reading (Microchip DS20001952), IOCON.BANK = 0 (power-on default):
IODIRA 0x00 / IODIRB 0x01 (1 = input, reset 0xFF), IPOLA 0x02, GPPUA 0x0C /
GPPUB 0x0D (1 = 100 kOhm pull-up), GPIOA 0x12 / GPIOB 0x13, OLATA 0x14.
With IOCON.SEQOP = 0 the register pointer advances after each byte, so one
read from 0x12 returns GPIOA then GPIOB. Addresses 0x20..0x27 (A2..A0).

GPINTENA 0x04 (interrupt-on-change), INTCONA 0x08 (0: against the previous
level), INTFA 0x0E (the pins that changed), INTCAPA 0x10 (the port as it was
at that first change). The chip latches INTCAP at the first change and holds
it until INTCAP or GPIO is read, so a key pressed and released between two
reads is still seen, with no INT line wired.

read() fetches INTF, INTCAP and GPIO of both ports in one I2C transaction
(6 bytes from 0x0E): `state` is the cached 16-bit level (bit 0..7 port A,
8..15 B), `changed` and `captured` the interrupt's flags and capture, `seq`
counts the reads (0..0xFFFF). drivers.buttons reads its keys as bits of
them, so a key poll of a whole seat costs one transaction and no object per
pin.

Re-arm (DS20001952C 3.6.5, INTCON = 0): after an interrupt the reference
is the captured level, so a key pressed and released before the read
latches a second, "released" interrupt as soon as the read clears the
first, and a tap before the next read would find the latch taken. A read
that finds INTF set therefore reads once more at once: that clears the
follow-up and leaves the chip armed (one more transaction, only when a key
moved).

GPA7 and GPB7 are never inputs: Microchip's note on current silicon (in the
Adafruit_CircuitPython_MCP230xx README) is that a GP7 input changing during
a read can corrupt SDA. init() makes them outputs, driven low.
"""

try:
    from micropython import const
except ImportError:  # CPython tests

    def const(x):  # type: ignore[misc]
        return x


_IODIRA = const(0x00)
_IPOLA = const(0x02)
_GPINTENA = const(0x04)
_INTCONA = const(0x08)
_GPPUA = const(0x0C)
_INTFA = const(0x0E)
_OLATA = const(0x14)
_GP7 = const(0x8080)  # GPA7, GPB7: outputs only


class MCP23017:
    def __init__(self, i2c, addr=0x20):
        if not 0x20 <= addr <= 0x27:
            raise ValueError("MCP23017 address must be 0x20..0x27")
        self.i2c = i2c
        self.addr = addr
        self.state = 0xFFFF  # all released (pull-ups) until the first read
        self.changed = 0
        self.captured = 0xFFFF
        self.seq = 0
        self._buf = bytearray(6)
        self._rearm = bytearray(6)
        self._w3 = bytearray(3)

    def _write_pair(self, reg, value):
        w = self._w3
        w[0] = reg
        w[1] = value & 0xFF
        w[2] = (value >> 8) & 0xFF
        self.i2c.writeto(self.addr, w)

    def init(self, inputs=0x7F7F, pullups=0x7F7F):
        """Direction (1 = input) and pull-ups per bit; bit 0..7 port A, 8..15 B.
        GPA7/GPB7 (bits 7, 15) cannot be inputs; they are driven low."""
        if not 0 <= inputs <= 0xFFFF or not 0 <= pullups <= 0xFFFF:
            raise ValueError("16-bit masks")
        if inputs & _GP7:
            raise ValueError("GPA7/GPB7 must be outputs")
        self._write_pair(_OLATA, 0)
        self._write_pair(_IODIRA, inputs)
        self._write_pair(_IPOLA, 0)
        self._write_pair(_GPPUA, pullups)
        self._write_pair(_INTCONA, 0)
        self._write_pair(_GPINTENA, inputs)
        self.read()  # clears what the set-up itself latched
        self.changed = 0

    def read(self):
        """Both ports' flags, capture and levels in one transaction; returns
        and caches the 16-bit level."""
        b = self._buf
        self.i2c.readfrom_mem_into(self.addr, _INTFA, b)
        self.changed = b[0] | (b[1] << 8)
        self.captured = b[2] | (b[3] << 8)
        if b[0] | b[1]:
            b = self._rearm  # clears the interrupt that the first read left
            self.i2c.readfrom_mem_into(self.addr, _INTFA, b)
        self.state = b[4] | (b[5] << 8)
        self.seq = (self.seq + 1) & 0xFFFF
        return self.state

    def write(self, value):
        """Output latches (only bits configured as outputs show on the pins)."""
        if not 0 <= value <= 0xFFFF:
            raise ValueError("16-bit value")
        self._write_pair(_OLATA, value)
