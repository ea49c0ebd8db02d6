"""Pin map and wiring of the reference board: a Raspberry Pi Pico (RP2040).

The same table is in hardware/pinmap.md (PINMAP below); tests/drivers/test_pinmap.py
checks they agree. GPIO budget (26 usable: GP0..GP22, GP26..GP28):
- SPI0 shared by the four PN5180 readers: SCK, MOSI, MISO (3);
- per reader its own NSS, BUSY, RST and antenna-select line (4 x 4 = 16).
  Own BUSY lines because the BUSY handshake is per chip and a shared line
  would need open-drain buffers; own RST so one wedged reader can be reset
  while the others keep scanning;
- I2C1 for the four HT16K33 displays (0x70..0x73) and four MCP23017 key
  expanders (0x20..0x23) (2);
- one WS2812 data line (1).
That is 22; GP0/GP1 (UART0, debug console), GP21 and GP28 stay free.
The 28 keys (4 seats x 7) do not fit in what is left, so each seat board
carries an MCP23017 next to its display: keys on port A bits 0..6 with the
internal pull-ups, port B spare. One expander per seat keeps the key wiring
short and the four seat boards identical (only the address jumpers differ,
as for the displays), and the seat cable stays at 16 ways. Polling is one
I2C read per seat per cycle; no interrupt lines are needed.

`make(machine)` builds the drivers; `machine` (and `neopixel`) are passed in
so this module imports on CPython for tests.
"""

try:
    from micropython import const
except ImportError:  # CPython tests

    def const(x):  # type: ignore[misc]
        return x


from drivers.buttons import Buttons, ticks_diff
from drivers.ht16k33 import HT16K33
from drivers.mcp23017 import MCP23017
from drivers.pn5180 import PN5180, make_frames
from drivers.ws2812 import SeatLeds

# Private: mpy-cross folds a `_NAME = const(n)` into the code, where a public
# constant would put its name in the module's dictionary and, loaded from
# ROMFS, intern it in RAM. The values are in PINMAP (tests/drivers/test_pinmap.py
# checks that make() wires exactly those pins, and that hardware/pinmap.md agrees).
_SEATS = const(4)
_KEYS_PER_SEAT = const(7)

_SPI_ID = const(0)
_SPI_BAUD = const(2_000_000)  # PN5180 allows 7 MHz; 2 MHz for the cable runs to the seats
_SPI_SCK = const(2)
_SPI_MOSI = const(3)
_SPI_MISO = const(4)
NSS = (5, 6, 7, 8)
BUSY = (9, 10, 11, 12)
RST = (13, 14, 15, 16)
ANT = (17, 18, 19, 20)

_I2C_ID = const(1)
_I2C_FREQ = const(100_000)  # four seats of cable on one bus: stay at standard mode
_I2C_SDA = const(26)
_I2C_SCL = const(27)

_LED_DATA = const(22)
_LEDS_PER_SEAT = const(3)
_RETRY_MS = const(1000)  # one down chip tried again per second

DISPLAY_ADDR = (0x70, 0x71, 0x72, 0x73)
EXPANDER_ADDR = (0x20, 0x21, 0x22, 0x23)

# The one pin table, "CONSTANT GPIO" pairs, mirrored in hardware/pinmap.md.
# One string rather than a tuple of names: it stays in flash, where each
# name of a tuple would be interned in RAM.
PINMAP = ("SPI_SCK 2 SPI_MOSI 3 SPI_MISO 4 NSS0 5 NSS1 6 NSS2 7 NSS3 8 BUSY0 9 BUSY1 10"
          " BUSY2 11 BUSY3 12 RST0 13 RST1 14 RST2 15 RST3 16 ANT0 17 ANT1 18 ANT2 19"
          " ANT3 20 LED_DATA 22 I2C_SDA 26 I2C_SCL 27")


def key_bits(seat):
    """(expander index, first bit) of a seat's 7 keys, in buttons.py key order."""
    return seat, 0


class Board:
    """The drivers of one table. Nothing talks to a chip until init().

    down: the chips not answering, one bit each: bit s reader s, 4 + s
    display s, 8 + s key expander s. A chip that is down is left alone (a
    try of an absent chip costs a bus timeout: 50 ms on I2C, 20 ms of BUSY
    polls on SPI) but for retry(), which re-initialises one of them a
    second and takes it back once it answers."""

    def __init__(self, spi, i2c, readers, displays, expanders, buttons, leds):
        self.spi = spi
        self.i2c = i2c
        self.readers = readers
        self.displays = displays
        self.expanders = expanders
        self.buttons = buttons
        self.leds = leds
        self.down = 0
        self._tried = 0  # ms of the last retry
        self._next = 0  # bit the last retry tried
        self._miss = bytearray(len(expanders))  # failed reads in a row

    def init(self):
        """Bring every chip up. Returns `down`: one dead seat does not stop
        the table from playing the others and reporting it."""
        self.down = 0
        for b in range(3 * _SEATS):
            if not self.init_chip(b):
                self.init_chip(b)  # once more: see refresh_inputs on the next transaction
        return self.down

    def init_chip(self, b):
        """(Re-)initialise chip b (bits as `down`); True if it answered, and
        its bit in `down` says so."""
        chips = self.readers if b < _SEATS else (
            self.displays if b < 2 * _SEATS else self.expanders)
        try:
            chips[b % _SEATS].init()
        except OSError:  # any bus error: ETIMEDOUT, ENODEV, EIO, a BUSY line stuck
            self.down |= 1 << b
            return False
        self.down &= ~(1 << b)
        return True

    def retry(self, now):
        """At most once every _RETRY_MS (now: ms, wrapping at 2**30), try the
        next chip that is down again. Returns its bit if it answered (it is
        re-initialised and up again), else -1."""
        if not self.down or ticks_diff(now, self._tried) < _RETRY_MS:
            return -1
        self._tried = now
        b = self._next
        for _ in range(3 * _SEATS):
            b = (b + 1) % (3 * _SEATS)
            if self.down >> b & 1:
                break
        self._next = b
        return b if self.init_chip(b) else -1

    def refresh_inputs(self):
        """Read the seats' key expanders (one I2C transaction each) before
        polling the seats' Buttons. An expander that fails twice in a row is
        marked down and reads as all keys released until retry() takes it back."""
        ex = self.expanders
        for i in range(len(ex)):
            if self.down >> (2 * _SEATS + i) & 1:
                continue
            try:
                ex[i].read()
                self._miss[i] = 0
            except OSError:
                # Twice in a row: on the rp2 port the transaction after one
                # that timed out on an absent chip can fail too (EIO).
                self._miss[i] += 1
                if self._miss[i] >= 2:
                    ex[i].state = 0xFFFF
                    self.down |= 1 << (2 * _SEATS + i)


def make(machine, neopixel=None):
    """Build the Board from a `machine` module (and `neopixel`, imported here
    when not given)."""
    Pin = machine.Pin
    spi = machine.SPI(_SPI_ID, baudrate=_SPI_BAUD, polarity=0, phase=0, sck=Pin(_SPI_SCK),
                      mosi=Pin(_SPI_MOSI), miso=Pin(_SPI_MISO))
    i2c = machine.I2C(_I2C_ID, scl=Pin(_I2C_SCL), sda=Pin(_I2C_SDA), freq=_I2C_FREQ)
    readers = []
    frames = make_frames()  # one SPI bus, one reader talking at a time: one set
    for s in range(_SEATS):
        readers.append(PN5180(
            spi,
            Pin(NSS[s], Pin.OUT, value=1),
            Pin(BUSY[s], Pin.IN),
            Pin(RST[s], Pin.OUT, value=1),
            Pin(ANT[s], Pin.OUT, value=0),
            frames=frames,
        ))
    displays = [HT16K33(i2c, a) for a in DISPLAY_ADDR]
    expanders = [MCP23017(i2c, a) for a in EXPANDER_ADDR]
    buttons = []
    for s in range(_SEATS):
        ex, first = key_bits(s)
        buttons.append(Buttons(expanders[ex], first, _KEYS_PER_SEAT))
    if neopixel is None:
        import neopixel
    np = neopixel.NeoPixel(Pin(_LED_DATA, Pin.OUT), _SEATS * _LEDS_PER_SEAT)
    leds = SeatLeds(np, _SEATS)
    return Board(spi, i2c, readers, displays, expanders, buttons, leds)
