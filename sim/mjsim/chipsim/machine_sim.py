"""A whole simulated table behind a `machine`-like object, its chips wired
as the hardware is (chipsim.wiring, hardware/pinmap.md), so that
`pico.make(SimMachine(table), table)` builds the real drivers of the real
board, by the firmware's own pin map, on top of the chip simulators.

SimTable holds the chips: one SPI bus with a PN5180Sim per seat, one I2C bus
with an HT16K33Sim (0x70 + seat) and an MCP23017Sim (0x20 + seat) per seat,
and a NeoPixelSim chain. SimMachine hands out the simulated pins by GPIO
number: Pin(NSS[s]) is reader s's NSS pin, and so on; other GPIOs get a
plain PinSim.
"""

from mjsim.chipsim import wiring as W
from mjsim.chipsim.ht16k33_sim import HT16K33Sim
from mjsim.chipsim.i2c import I2CBusSim
from mjsim.chipsim.mcp23017_sim import MCP23017Sim
from mjsim.chipsim.pins import PinSim
from mjsim.chipsim.pn5180_sim import PN5180Sim
from mjsim.chipsim.spi import SPIBusSim


class NeoPixelSim:
    """neopixel.NeoPixel stand-in: `shown` is what the LEDs display after
    the last write()."""

    def __init__(self, pin, n):
        self.pin = pin
        self.buf = [(0, 0, 0)] * n
        self.shown = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self):
        return len(self.buf)

    def __setitem__(self, i, c):
        self.buf[i] = c

    def __getitem__(self, i):
        return self.buf[i]

    def write(self):
        self.writes += 1
        for i in range(len(self.buf)):
            self.shown[i] = self.buf[i]


class SimTable:
    """wiring: where the chips sit (chipsim.wiring: the hardware's; a test may
    pass another module with the same names)."""

    def __init__(self, wiring=W, seed=1, miss_rate=0.0, phantom_rate=0.0, crosstalk_rate=0.0):
        board = self.board = wiring
        seats = len(board.NSS)  # one reader per seat
        self.spi = SPIBusSim()
        self.i2c = I2CBusSim()
        self.readers = [
            self.spi.attach(PN5180Sim(seed=seed * 16 + s, miss_rate=miss_rate,
                                      phantom_rate=phantom_rate, crosstalk_rate=crosstalk_rate))
            for s in range(seats)
        ]
        self.displays = [self.i2c.attach(board.DISPLAY_ADDR[s], HT16K33Sim()) for s in range(seats)]
        self.keys = [self.i2c.attach(board.EXPANDER_ADDR[s], MCP23017Sim()) for s in range(seats)]
        self.leds = None
        self.pins = {}
        for s in range(seats):
            r = self.readers[s]
            self.pins[board.NSS[s]] = r.nss
            self.pins[board.BUSY[s]] = r.busy
            self.pins[board.RST[s]] = r.rst
            self.pins[board.ANT[s]] = r.ant

    def instant_tags(self):
        """Tags that answer as soon as the field is on, for drivers run
        without the guard time (settle_us = 0: no real sleeps). The air
        timing itself is held to the sources in tests/drivers/test_pn5180.py
        and on the emulated board."""
        for r in self.readers:
            r.tag_ready_us = 0

    def press(self, seat, key):
        ex, first = self.board.key_bits(seat)
        self.keys[ex].press(first + key)

    def release(self, seat, key):
        ex, first = self.board.key_bits(seat)
        self.keys[ex].release(first + key)

    # neopixel module stand-in: pico.make(machine, neopixel=table)
    def NeoPixel(self, pin, n):
        self.leds = NeoPixelSim(pin, n)
        return self.leds


class SimMachine:
    """The parts of `machine` that boards/pico.py uses."""

    def __init__(self, table):
        self.table = table
        machine = self

        class Pin:
            IN = 0
            OUT = 1
            PULL_UP = 1

            def __new__(cls, n, mode=-1, pull=None, value=None):
                p = machine.table.pins.get(n)
                if p is None:
                    p = PinSim(0, None, "GP%d" % n)
                    machine.table.pins[n] = p
                if value is not None and mode == 1:
                    p.value(value)
                return p

        self.Pin = Pin

    def SPI(self, ident, **kwargs):
        return self.table.spi

    def I2C(self, ident, **kwargs):
        return self.table.i2c


def make(seed=1, miss_rate=0.0, phantom_rate=0.0):
    """(Board, SimTable): the real drivers, as boards/pico.py wires them, on
    the simulated chips of the hardware's wiring, all in this process
    (mjsim.board.make)."""
    from boards import pico

    table = SimTable(seed=seed, miss_rate=miss_rate, phantom_rate=phantom_rate)
    board = pico.make(SimMachine(table), neopixel=table)
    for r in board.readers:
        r.settle_us = 0  # simulated tags answer at once: no real sleeps
        r.switch_us = 0
    table.instant_tags()
    for sim in table.readers:
        sim.busy_delay = 1
    return board, table
