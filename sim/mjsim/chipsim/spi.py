"""A machine.SPI stand-in shared by several chips, each selected by its own
NSS pin (a PinSim the chip watches). Bytes go to the one chip whose NSS is
low; with none selected MISO floats high (0xFF); two selected at once is bus
contention and counted in `contention`."""


class SPIBusSim:
    def __init__(self):
        self.devices = []
        self.contention = 0
        self.transfers = 0

    def attach(self, device):
        """A chip on the bus. PN5180s on one bus are one table's readers:
        each senses the others' fields (its `air`)."""
        self.devices.append(device)
        if hasattr(device, "air"):
            device.air = self.devices
        return device

    def init(self, *args, **kwargs):
        pass

    def deinit(self):
        pass

    def _selected(self):
        found = None
        for d in self.devices:
            if d.nss._v == 0:  # the PinSim's level (no write counted, no callback)
                if found is not None:
                    self.contention += 1
                    return None
                found = d
        return found

    def write_readinto(self, wbuf, rbuf):
        self.transfers += 1
        d = self._selected()
        if d is None:
            if rbuf is not None:
                for i in range(len(rbuf)):
                    rbuf[i] = 0xFF
            return
        d.spi_transfer(wbuf, rbuf)

    def write(self, buf):
        self.write_readinto(buf, None)

    def readinto(self, buf, write_byte=0):
        self.write_readinto(bytes((write_byte,)) * len(buf), buf)

    def read(self, n, write_byte=0):
        buf = bytearray(n)
        self.readinto(buf, write_byte)
        return bytes(buf)
