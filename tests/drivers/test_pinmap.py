"""hardware/pinmap.md, firmware/boards/pico.py and the simulated table's
wiring (mjsim.chipsim.wiring) must describe the same board."""

from boards import pico
from mjsim.chipsim import wiring

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


def md_addresses():
    """{chip: I2C addresses by seat} from pinmap.md's list under the table
    ("- HT16K33 displays: seat 0 → 0x70, ...")."""
    with open(PINMAP_MD) as f:
        text = f.read()
    out = {}
    for bullet in text.split("\n- ")[1:]:
        words = bullet.split()
        out[words[0]] = tuple(int(w.strip(",.()"), 16) for w in words if w.startswith("0x"))
    return out


def pins():
    """{constant: gpio} of pico.PINMAP ("NAME GPIO" pairs)."""
    w = pico.PINMAP.split()
    assert len(w) % 2 == 0
    out = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
    assert len(out) * 2 == len(w), "constant listed twice"
    return out


def board():
    _FakePin.made = []
    return pico.make(_FakeMachine, _FakeNeo)


def test_markdown_table_equals_pico_pins():
    assert md_table() == pins()


def test_the_simulated_tables_wiring_is_the_hardwares():
    assert wiring.pins() == md_table()
    addrs = md_addresses()
    assert addrs["HT16K33"] == wiring.DISPLAY_ADDR == pico.DISPLAY_ADDR
    assert addrs["MCP23017"] == wiring.EXPANDER_ADDR == pico.EXPANDER_ADDR
    assert (pico.NSS, pico.BUSY, pico.RST, pico.ANT) == (wiring.NSS, wiring.BUSY, wiring.RST,
                                                         wiring.ANT)
    for s in range(wiring.SEATS):
        assert pico.key_bits(s) == wiring.key_bits(s)
    assert board().leds.per_seat == wiring.LEDS_PER_SEAT


def test_no_gpio_used_twice_and_all_exist():
    gpios = list(pins().values())
    assert len(set(gpios)) == len(gpios)
    for g in gpios:
        assert g in USABLE, g


def test_pins_are_valid_for_their_peripherals():
    # RP2040 function select: SPI0 and I2C1 pin options, as make() wires them
    b = board()
    spi, i2c = b.spi.kw, b.i2c.kw
    assert b.spi.ident == 0 and spi["sck"].n in (2, 6, 18, 22)
    assert spi["mosi"].n in (3, 7, 19) and spi["miso"].n in (0, 4, 16, 20)
    assert b.i2c.ident == 1
    assert i2c["sda"].n in (2, 6, 10, 14, 18, 26) and i2c["scl"].n in (3, 7, 11, 15, 19, 27)


def test_per_seat_tuples_match_named_pins():
    named = pins()
    for s in range(4):
        for name, table in (("NSS", pico.NSS), ("BUSY", pico.BUSY), ("RST", pico.RST),
                            ("ANT", pico.ANT)):
            assert named[name + str(s)] == table[s]


def test_i2c_addresses_distinct_and_keys_fit():
    addrs = list(pico.DISPLAY_ADDR) + list(pico.EXPANDER_ADDR)
    assert len(set(addrs)) == len(addrs)
    assert pico.DISPLAY_ADDR == (0x70, 0x71, 0x72, 0x73)
    used = set()
    seats = board().buttons
    for s in range(len(seats)):
        ex, first = pico.key_bits(s)
        for k in range(seats[s].n):
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
    b = board()
    named = pins()
    assert len(b.readers) == 4 and len(b.displays) == 4
    assert len(b.buttons) == 4 and len(b.expanders) == 4
    assert b.spi.kw["sck"].n == named["SPI_SCK"] and b.spi.kw["miso"].n == named[
        "SPI_MISO"] and b.spi.kw["mosi"].n == named["SPI_MOSI"]
    assert b.i2c.kw["sda"].n == named["I2C_SDA"] and b.i2c.kw["scl"].n == named["I2C_SCL"]
    for s in range(4):
        r = b.readers[s]
        assert r.nss.n == pico.NSS[s] and r.nss.mode == _FakePin.OUT and r.nss.v == 1
        assert r.busy.n == pico.BUSY[s] and r.busy.mode == _FakePin.IN
        assert r.rst.n == pico.RST[s] and r.ant.n == pico.ANT[s]
        assert b.displays[s].addr == pico.DISPLAY_ADDR[s]
    assert b.leds.np.pin.n == named["LED_DATA"]
    assert b.leds.per_seat == 3 and all(k.n == 7 for k in b.buttons)
    made = sorted(p.n for p in _FakePin.made)
    assert made == sorted(named.values())


def sim_board():
    """(chip simulators, the pico board made on them), every chip up."""
    from mjsim.chipsim.machine_sim import SimMachine, SimTable

    table = SimTable()
    board = pico.make(SimMachine(table), table)
    for r in board.readers:
        r.settle_us = r.switch_us = 0
    table.instant_tags()
    assert board.init() == 0
    return table, board


def test_pico_board_runs_on_the_chip_simulators():
    from drivers.buttons import GANG, SHORT, event

    table, board = sim_board()
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
    from mjsim.chipsim.machine_sim import SimMachine, SimTable

    table = SimTable()
    table.i2c.detach(0x71)  # seat 1's display unplugged
    table.spi.devices.remove(table.readers[3])  # seat 3's reader cable off
    board = pico.make(SimMachine(table), table)
    for r in board.readers:
        r.settle_us = 0
        r.busy_polls = 50
    assert board.init() == 1 << 3 | 1 << 4 + 1  # Board.down: reader3, display1


def test_the_key_button_is_seat_0s_guo_held_at_boot():
    from drivers.buttons import GUO, HU
    from table.hostlink import key_button

    table, board = sim_board()
    assert not key_button(board)
    table.press(1, GUO)  # another seat's 过
    table.press(0, HU)
    assert not key_button(board)
    table.press(0, GUO)
    assert key_button(board)  # one read at boot: no debounce wait
    table.release(0, GUO)
    assert not key_button(board)
