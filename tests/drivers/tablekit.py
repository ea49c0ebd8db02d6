"""Shared set-up for the table-controller tests (both interpreters): four
simulated PN5180 readers on one SPI bus, an enrollment of all 108 tiles with
made-up ICODE-like UIDs, and helpers to put tiles on racks and trays."""

from boards.chipsim.pn5180_sim import PN5180Sim, uid_bytes
from boards.chipsim.spi import SPIBusSim
from drivers.pn5180 import PN5180
from table.enroll import Enrollment
from table.scan import Scanner


def tile_uid(t, salt=0):
    """A distinct 8-byte UID per tile (LSB first, 0xE0 in byte 7)."""
    n = ((t + 1) * 2654435761 + salt * 40503) & 0xFFFFFFFF
    return uid_bytes(0xE004010000000000 | (n << 4) | (t & 15))


def enrollment():
    e = Enrollment()
    for t in range(108):
        e.set(t, tile_uid(t))
    return e


class Rig:
    """Readers + sims + scanner. sims[s].tags[ant] holds the UIDs on an antenna."""

    def __init__(self, seats=4, arrive=2, gone=4, **faults):
        self.bus = SPIBusSim()
        self.sims = []
        self.readers = []
        for s in range(seats):
            sim = self.bus.attach(PN5180Sim(seed=s + 7, busy_delay=1, boot_delay=1, **faults))
            r = PN5180(self.bus, sim.nss, sim.busy, sim.rst, sim.ant, settle_us=0)
            r.init()
            self.sims.append(sim)
            self.readers.append(r)
        self.enroll = enrollment()
        self.scanner = Scanner(self.readers, self.enroll, arrive, gone)

    def put(self, seat, ant, tiles):
        for t in tiles:
            self.sims[seat].put(ant, tile_uid(t))

    def take(self, seat, ant, tiles):
        for t in tiles:
            self.sims[seat].remove(ant, tile_uid(t))

    def cycle(self, n=1):
        for _ in range(n):
            for s in range(len(self.readers)):
                self.scanner.scan_seat(s)
