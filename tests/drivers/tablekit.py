"""Shared set-up for the table-controller tests (both interpreters): four
simulated PN5180 readers on one SPI bus, an enrollment of all 108 tiles with
made-up ICODE-like UIDs, and helpers to put tiles on racks and trays."""

from drivers.pn5180 import PN5180
from mjsim.chipsim.pn5180_sim import PN5180Sim, uid_bytes
from mjsim.chipsim.spi import SPIBusSim
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
            sim = self.bus.attach(PN5180Sim(seed=s + 7, busy_delay=1, boot_delay=1,
                                            tag_ready_us=0, **faults))
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


class TableRig:
    """The whole controller on the simulated board, driven by a script:
    tiles put on / taken off antennas, keys pressed, frames run in virtual
    time (frame_ms per frame)."""

    def __init__(self, preset="xuezhan", claim_ms=2000, settle_ms=500, logs=None, seed=1,
                 miss_rate=0.0, phantom_rate=0.0, frame_ms=50):
        from mjsim import board as sim
        from sichuan import presets
        from table.controller import Controller

        self.board, self.table = sim.make(seed, miss_rate, phantom_rate)
        self.rs = presets.get(preset)
        self.ctl = Controller(self.board, self.rs, enrollment(), logs, claim_ms=claim_ms,
                              settle_ms=settle_ms)
        self.now = 0
        self.frame_ms = frame_ms
        self.board.init()

    def put(self, seat, ant, tiles):
        for t in tiles:
            self.table.readers[seat].put(ant, tile_uid(t))

    def take(self, seat, ant, tiles):
        for t in tiles:
            self.table.readers[seat].remove(ant, tile_uid(t))

    def frame(self, n=1):
        ctl = self.ctl
        for _ in range(n):
            self.board.refresh_inputs()
            for s in range(4):
                ev = self.board.buttons[s].poll(self.now)
                while ev:
                    ctl.key(s, ev, self.now)
                    ev = self.board.buttons[s].next()
            ctl.scan_cycle()
            ctl.step(self.now)
            ctl.refresh(self.now)
            self.now += self.frame_ms

    def deal_and_exchange(self, hands, give):
        """Deal hands[s] onto each rack, give give[s] (换三张) to the next seat,
        and let the table settle: the rig at 定缺."""
        self.frame(2)
        for s in range(4):
            self.put(s, 0, hands[s])
            assert self.until(lambda s=s: self.ctl.accepted == s + 1)
        for s in range(4):
            self.take(s, 0, give[s])
            assert self.until(lambda s=s: self.ctl.accepted == 5 + s)
        for s in range(4):
            self.put((s + 1) % 4, 0, give[s])
        assert self.settle()
        return self

    def press(self, seat, key):
        self.table.press(seat, key)
        self.frame(2)
        self.table.release(seat, key)
        self.frame(2)

    def until(self, cond, limit=60):
        for _ in range(limit):
            if cond():
                return True
            self.frame()
        return cond()

    def settle(self, limit=60):
        return self.until(self.ctl.settled, limit)

    def text(self, seat):
        return self.table.displays[seat].text()
