"""MCP23017 simulator at the I2C register level (IOCON.BANK = 0, SEQOP = 0).

A write sets the register pointer from its first byte and writes the rest
sequentially; a read returns registers from the pointer on. GPIO reads give
the pin levels: for inputs the level the test drives (`levels`, with pulled
up floating pins reading 1), inverted by IPOL; for outputs the latch.
press(bit) / release(bit) model a key to ground.

Interrupt-on-change (GPINTEN, INTCON = 0), DS20001952C 3.6.4 and 3.6.5: an
enabled input that differs from its reference level latches INTF (the pins
that differ) and INTCAP (the port's GPIO value then) for its port, and the
port's reference becomes that value ("the default state is reset after an
interrupt occurs"); while INTF is set nothing more latches. A read of the
port's INTCAP or GPIO clears INTF, and a pin that differs from the reference
then latches again at once: a key pressed and released before the read
leaves a second, "released" interrupt behind the clearing read, and a tap
in the time until that one is read is not captured. peek_into() reads
without that side effect (the board bridge reads ahead, then commits).

GPA7/GPB7 as inputs (IODIR bit 7 or 15 set): Microchip's note on current
silicon (Adafruit_CircuitPython_MCP230xx README, its knowledge-base article)
is that such an input changing during a read can corrupt SDA. Modelled: a
read transaction after a GP7 input changed level fails (OSError EIO on the
bus, `corrupted` counted).
"""

IODIRA = 0x00
IPOLA = 0x02
GPPUA = 0x0C
GPIOA = 0x12
OLATA = 0x14
IOCON = 0x0A
GPINTENA = 0x04
INTCONA = 0x08
INTFA = 0x0E
INTCAPA = 0x10


class MCP23017Sim:
    def __init__(self):
        self.regs = bytearray(0x16)
        self.regs[0x00] = 0xFF  # IODIRA reset: inputs
        self.regs[0x01] = 0xFF
        self.ptr = 0
        self.grounded = 0  # bits pulled to ground by a pressed key
        self.driven_high = 0  # bits driven high externally
        self.ref = self._gpio()  # interrupt-on-change reference, both ports
        self._gp7 = self._gp7_levels()  # GP7 input levels at the last read
        self.corrupted = 0

    def press(self, bit):
        self._set(self.grounded | 1 << bit)

    def release(self, bit):
        self._set(self.grounded & ~(1 << bit))

    def _set(self, grounded):
        self.grounded = grounded
        self._latch()

    def _latch(self):
        """Latch an interrupt on each port whose enabled inputs differ from
        the reference (INTCON = 1, against DEFVAL, is not modelled: the
        driver uses 0)."""
        now = self._gpio()
        moved = (self.ref ^ now) & self._pair(GPINTENA) & self._pair(IODIRA)
        for port in (0, 1):
            sh = 8 * port
            bits = (moved >> sh) & 0xFF
            if bits and not self.regs[INTFA + port]:
                self.regs[INTFA + port] = bits
                self.regs[INTCAPA + port] = (now >> sh) & 0xFF
                self.ref = (self.ref & ~(0xFF << sh)) | (now & (0xFF << sh))

    def _gp7_levels(self):
        return self.levels() & self._pair(IODIRA) & 0x8080

    def _gpio(self):
        return self.levels() ^ (self._pair(IPOLA) & self._pair(IODIRA))

    def _pair(self, reg):
        return self.regs[reg] | (self.regs[reg + 1] << 8)

    def levels(self):
        """Pin levels as a 16-bit int."""
        iodir = self._pair(IODIRA)
        pullup = self._pair(GPPUA)
        olat = self._pair(OLATA)
        lv = 0
        for b in range(16):
            m = 1 << b
            if iodir & m:
                if self.grounded & m:
                    v = 0
                elif self.driven_high & m or pullup & m:
                    v = 1
                else:
                    v = 0  # floating input: call it low
            else:
                v = 1 if olat & m else 0
            lv |= v << b
        return lv

    def _read(self, reg, clear=True):
        if reg in (GPIOA, GPIOA + 1):
            v = (self._gpio() >> (8 * (reg - GPIOA))) & 0xFF
        else:
            v = self.regs[reg]
        if clear and reg in (GPIOA, GPIOA + 1, INTCAPA, INTCAPA + 1):
            self.regs[INTFA + (reg & 1)] = 0  # the port's interrupt is cleared
            self._cleared = True
        return v

    def i2c_write(self, buf):
        if not len(buf):
            return
        p = buf[0] % len(self.regs)
        for i in range(1, len(buf)):
            r = p if p != GPIOA and p != GPIOA + 1 else p + 2  # GPIO write -> OLAT
            if not INTFA <= r < INTCAPA + 2:  # INTF and INTCAP are read-only
                self.regs[r] = buf[i]
            if r in (GPINTENA, GPINTENA + 1, IODIRA, IODIRA + 1):
                # a pin newly watched starts from its level now
                self.ref = self._gpio() & self._pair(GPINTENA) | self.ref & ~self._pair(GPINTENA)
            p = (p + 1) % len(self.regs)
        self.ptr = p if len(buf) > 1 else buf[0] % len(self.regs)
        self._gp7 = self._gp7_levels()  # set-up is no change on the pin

    def sda_fault(self):
        """This read is corrupted: a GP7 input changed level since the last
        read (counted in `corrupted`)."""
        lv = self._gp7_levels()
        moved = lv != self._gp7
        self._gp7 = lv
        if moved:
            self.corrupted += 1
        return moved

    def i2c_read_into(self, buf, clear=True):
        if clear and self.sda_fault():
            raise OSError(5, "SDA corrupted: a GP7 input changed during the read")
        p = self.ptr
        self._cleared = False
        for i in range(len(buf)):
            buf[i] = self._read(p, clear)
            p = (p + 1) % len(self.regs)
        self.ptr = p
        if self._cleared:
            self._latch()  # a pin away from its reference latches again at once

    def peek_into(self, buf):
        """What a read would return, the register pointer and flags left as they are."""
        p = self.ptr
        self.i2c_read_into(buf, False)
        self.ptr = p
