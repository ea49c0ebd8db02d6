"""MCP23017 simulator at the I2C register level (IOCON.BANK = 0, SEQOP = 0).

A write sets the register pointer from its first byte and writes the rest
sequentially; a read returns registers from the pointer on. GPIO reads give
the pin levels: for inputs the level the test drives (`levels`, with pulled
up floating pins reading 1), inverted by IPOL; for outputs the latch.
press(bit) / release(bit) model a key to ground.
"""

IODIRA = 0x00
IPOLA = 0x02
GPPUA = 0x0C
GPIOA = 0x12
OLATA = 0x14
IOCON = 0x0A


class MCP23017Sim:
    def __init__(self):
        self.regs = bytearray(0x16)
        self.regs[0x00] = 0xFF  # IODIRA reset: inputs
        self.regs[0x01] = 0xFF
        self.ptr = 0
        self.grounded = 0  # bits pulled to ground by a pressed key
        self.driven_high = 0  # bits driven high externally

    def press(self, bit):
        self.grounded |= 1 << bit

    def release(self, bit):
        self.grounded &= ~(1 << bit)

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

    def _read(self, reg):
        if reg in (GPIOA, GPIOA + 1):
            lv = self.levels() ^ (self._pair(IPOLA) & self._pair(IODIRA))
            return (lv >> (8 * (reg - GPIOA))) & 0xFF
        return self.regs[reg]

    def i2c_write(self, buf):
        if not len(buf):
            return
        p = buf[0] % len(self.regs)
        for i in range(1, len(buf)):
            r = p if p != GPIOA and p != GPIOA + 1 else p + 2  # GPIO write -> OLAT
            self.regs[r] = buf[i]
            p = (p + 1) % len(self.regs)
        self.ptr = p if len(buf) > 1 else buf[0] % len(self.regs)

    def i2c_read_into(self, buf):
        p = self.ptr
        for i in range(len(buf)):
            buf[i] = self._read(p)
            p = (p + 1) % len(self.regs)
        self.ptr = p
