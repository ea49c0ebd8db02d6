"""hardware/pinmap.md and firmware/boards/pico.py must describe the same board."""

from boards import pico

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
PINMAP_MD = _HERE + "/../../hardware/pinmap.md"

USABLE = set(range(0, 23)) | {26, 27, 28}


def md_table():
    """{constant: gpio} from the first markdown table of pinmap.md."""
    rows = {}
    with open(PINMAP_MD) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("|"):
                if rows:
                    break  # the table has ended
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] == "GPIO" or cells[0].startswith("-"):
                continue
            assert cells[0].startswith("GP"), line
            gpio = int(cells[0][2:])
            assert cells[1] not in rows, "constant listed twice: " + cells[1]
            rows[cells[1]] = gpio
    return rows


def test_markdown_table_equals_pico_pins():
    assert md_table() == dict(pico.PINS)


def test_no_gpio_used_twice_and_all_exist():
    gpios = [g for _, g in pico.PINS]
    assert len(set(gpios)) == len(gpios)
    for g in gpios:
        assert g in USABLE, g


def test_pins_are_valid_for_their_peripherals():
    # RP2040 function select: SPI0 and I2C1 pin options
    assert pico.SPI_ID == 0 and pico.SPI_SCK in (2, 6, 18, 22)
    assert pico.SPI_MOSI in (3, 7, 19) and pico.SPI_MISO in (0, 4, 16, 20)
    assert pico.I2C_ID == 1
    assert pico.I2C_SDA in (2, 6, 10, 14, 18, 26) and pico.I2C_SCL in (3, 7, 11, 15, 19, 27)


def test_per_seat_tuples_match_named_pins():
    named = dict(pico.PINS)
    for s in range(pico.SEATS):
        for name, table in (("NSS", pico.NSS), ("BUSY", pico.BUSY), ("RST", pico.RST),
                            ("ANT", pico.ANT)):
            assert named[name + str(s)] == table[s]


def test_i2c_addresses_distinct_and_keys_fit():
    addrs = list(pico.DISPLAY_ADDR) + list(pico.EXPANDER_ADDR)
    assert len(set(addrs)) == len(addrs)
    assert pico.DISPLAY_ADDR == (0x70, 0x71, 0x72, 0x73)
    used = set()
    for s in range(pico.SEATS):
        ex, first = pico.key_bits(s)
        for k in range(pico.KEYS_PER_SEAT):
            bit = first + k
            assert 0 <= bit < 16 and (ex, bit) not in used
            used.add((ex, bit))
    assert len(used) == 28


class _FakePin:
    OUT = 1
    IN = 0
    made = []

    def __init__(self, n, mode=-1, pull=None, value=None):
        self.n = n
        self.mode = mode
        self.v = value
        _FakePin.made.append(self)

    def value(self, v=None):
        if v is None:
            return 0
        self.v = v


class _FakeBus:
    def __init__(self, ident, **kw):
        self.ident = ident
        self.kw = kw


class _FakeMachine:
    Pin = _FakePin
    SPI = _FakeBus
    I2C = _FakeBus


class _FakeNeo:
    class NeoPixel:
        def __init__(self, pin, n):
            self.pin = pin
            self.n = n

        def __len__(self):
            return self.n


def test_make_uses_the_table():
    _FakePin.made = []
    board = pico.make(_FakeMachine, _FakeNeo)
    assert len(board.readers) == 4 and len(board.displays) == 4
    assert len(board.buttons) == 4 and len(board.expanders) == 4
    assert board.spi.ident == pico.SPI_ID
    assert board.spi.kw["sck"].n == pico.SPI_SCK and board.spi.kw["miso"].n == pico.SPI_MISO
    assert board.i2c.kw["sda"].n == pico.I2C_SDA and board.i2c.kw["scl"].n == pico.I2C_SCL
    for s in range(4):
        r = board.readers[s]
        assert r.nss.n == pico.NSS[s] and r.nss.mode == _FakePin.OUT and r.nss.v == 1
        assert r.busy.n == pico.BUSY[s] and r.busy.mode == _FakePin.IN
        assert r.rst.n == pico.RST[s] and r.ant.n == pico.ANT[s]
        assert board.displays[s].addr == pico.DISPLAY_ADDR[s]
    assert board.leds.np.pin.n == pico.LED_DATA
    assert board.leds.per_seat == pico.LEDS_PER_SEAT
    made = sorted(p.n for p in _FakePin.made)
    assert made == sorted(g for _, g in pico.PINS)


def test_pico_board_runs_on_the_chip_simulators():
    from boards.chipsim.machine_sim import SimMachine, SimTable
    from drivers.buttons import GANG, SHORT, event

    table = SimTable(pico)
    board = pico.make(SimMachine(table), table)
    for r in board.readers:
        r.settle_us = r.switch_us = 0
    assert board.init() == []
    # seat 2's rack and tray
    rack = [bytes((i, 2, 0, 0, 0, 1, 4, 0xE0)) for i in range(13)]
    tray = [bytes((0x80 + i, 2, 0, 0, 0, 1, 4, 0xE0)) for i in range(3)]
    table.readers[2].set_tags(0, rack)
    table.readers[2].set_tags(1, tray)
    assert board.readers[2].inventory() == 13
    board.readers[2].select_antenna(1)
    assert board.readers[2].inventory() == 3
    assert board.readers[0].inventory() == 0
    # seat 3's display, seat 1's keys, seat 0's LEDs
    board.displays[3].show_number(-120)
    assert table.displays[3].text() == "-120" and table.displays[0].text() == "    "
    board.refresh_inputs()
    board.buttons[1].poll(0)
    table.press(1, GANG)
    for t in (5, 30):
        board.refresh_inputs()
        board.buttons[1].poll(t)
    table.release(1, GANG)
    evs = []
    for t in (35, 60):
        board.refresh_inputs()
        ev = board.buttons[1].poll(t)
        if ev:
            evs.append(ev)
        assert board.buttons[0].poll(t) == 0
    assert evs == [event(SHORT, GANG)]
    board.leds.set(0, 1)
    board.leds.tick(0)
    assert table.leds.shown[0] != (0, 0, 0) and table.leds.shown[3] == (0, 0, 0)
    assert all(s.violations == 0 for s in table.readers)


def test_dead_seat_reported_not_fatal():
    from boards.chipsim.machine_sim import SimMachine, SimTable

    table = SimTable(pico)
    table.i2c.detach(0x71)  # seat 1's display unplugged
    table.spi.devices.remove(table.readers[3])  # seat 3's reader cable off
    board = pico.make(SimMachine(table), table)
    for r in board.readers:
        r.settle_us = 0
        r.busy_polls = 50
    assert board.init() == ["reader3", "display1"]
