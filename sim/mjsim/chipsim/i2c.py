"""A machine.I2C stand-in that dispatches transactions to simulated devices.

Like the rp2 port's hardware I2C, a transaction to an address nobody
acknowledges raises OSError(EIO). Devices implement i2c_write(buf) and
i2c_read_into(buf)."""

EIO = 5


class I2CBusSim:
    def __init__(self):
        self.devices = {}
        self.transactions = 0

    def attach(self, addr, device):
        self.devices[addr] = device
        return device

    def detach(self, addr):
        self.devices.pop(addr, None)

    def scan(self):
        return sorted(self.devices)

    def _dev(self, addr):
        self.transactions += 1
        dev = self.devices.get(addr)
        if dev is None:
            raise OSError(EIO)
        return dev

    def writeto(self, addr, buf, stop=True):
        self._dev(addr).i2c_write(buf)
        return len(buf) + 1

    def readfrom_into(self, addr, buf, stop=True):
        self._dev(addr).i2c_read_into(buf)

    def readfrom(self, addr, n, stop=True):
        buf = bytearray(n)
        self.readfrom_into(addr, buf)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        frame = bytearray(1 + len(buf))
        frame[0] = memaddr
        frame[1:] = buf
        self._dev(addr).i2c_write(frame)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        dev = self._dev(addr)
        dev.i2c_write(bytes((memaddr,)))
        dev.i2c_read_into(buf)

    def readfrom_mem(self, addr, memaddr, n, addrsize=8):
        buf = bytearray(n)
        self.readfrom_mem_into(addr, memaddr, buf)
        return bytes(buf)
