try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

from drivers import ht16k33
from drivers.ht16k33 import HT16K33
from mjsim.chipsim.ht16k33_sim import HT16K33Sim
from mjsim.chipsim.i2c import EIO, I2CBusSim


def setup(addr=0x70):
    bus = I2CBusSim()
    sim = bus.attach(addr, HT16K33Sim())
    d = HT16K33(bus, addr)
    d.init()
    return bus, sim, d


def test_font_table_covers_ascii_range():
    assert len(ht16k33._FONT) == 96
    assert ht16k33.glyph("8") == 0x7F
    assert ht16k33.glyph("E") == 0x79
    assert ht16k33.glyph("-") == 0x40
    assert ht16k33.glyph("M") == -1
    assert ht16k33.glyph("\u80e1") == -1


def test_init_starts_oscillator_display_and_full_brightness():
    bus, sim, d = setup()
    assert sim.osc and sim.on
    assert sim.blink == 0
    assert sim.dim == 15
    assert sim.text() == "    "
    assert sim.bad_commands == 0


def test_dark_before_init():
    bus = I2CBusSim()
    sim = bus.attach(0x71, HT16K33Sim())
    HT16K33(bus, 0x71)
    assert not sim.lit()


def test_number_right_aligned_in_backpack_positions():
    bus, sim, d = setup()
    d.show_number(42)
    assert sim.text() == "  42"
    # digits live in RAM bytes 0, 2, 6, 8; byte 4 is the colon
    assert sim.ram[6] == 0x66 and sim.ram[8] == 0x5B
    assert sim.ram[0] == 0 and sim.ram[2] == 0
    d.show_number(1234, colon=True)
    assert sim.text() == "1234"
    assert sim.colon()
    d.show_number(0)
    assert sim.text() == "   0"
    assert not sim.colon()


def test_negative_numbers():
    bus, sim, d = setup()
    d.show_number(-5)
    assert sim.text() == "  -5"
    d.show_number(-999)
    assert sim.text() == "-999"


def test_out_of_range_number_changes_nothing():
    bus, sim, d = setup()
    d.show_number(77)
    before = bytes(sim.ram)
    raises(ValueError, d.show_number, 10000)
    raises(ValueError, d.show_number, -1000)
    assert bytes(sim.ram) == before


def test_text_alert_codes_and_points():
    bus, sim, d = setup()
    d.show_text("E 3")
    assert sim.text() == "E 3 "
    d.show_text("P-1.")
    assert sim.text() == "P-1. "
    d.show_text("H.2")
    assert sim.text() == "H.2  "
    assert sim.digit_bits(0) == 0x76 | 0x80


def test_bad_text_changes_nothing():
    bus, sim, d = setup()
    d.show_text("E1")
    before = bytes(sim.ram)
    raises(ValueError, d.show_text, "EM")
    raises(ValueError, d.show_text, "12345")
    raises(ValueError, d.show_text, ".1")
    assert bytes(sim.ram) == before


def test_blink_rates_and_brightness():
    bus, sim, d = setup()
    for rate in range(4):
        d.blink(rate)
        assert sim.blink == rate and sim.on
    d.brightness(3)
    assert sim.dim == 3
    raises(ValueError, d.brightness, 16)
    raises(ValueError, d.blink, 4)
    assert sim.dim == 3 and sim.blink == 3


def test_power_off_keeps_ram():
    bus, sim, d = setup()
    d.show_number(88)
    d.power(False)
    assert not sim.lit()
    d.power(True)
    assert sim.text() == "  88"


def test_four_displays_on_one_bus():
    bus = I2CBusSim()
    sims = [bus.attach(0x70 + i, HT16K33Sim()) for i in range(4)]
    ds = [HT16K33(bus, 0x70 + i) for i in range(4)]
    for i in range(4):
        ds[i].init()
        ds[i].show_number(i * 100 - 100)
    assert [s.text() for s in sims] == ["-100", "   0", " 100", " 200"]


def test_absent_display_raises_eio():
    bus = I2CBusSim()
    d = HT16K33(bus, 0x72)
    e = raises(OSError, d.init)
    assert e.args[0] == EIO


def test_bad_address_rejected():
    raises(ValueError, HT16K33, I2CBusSim(), 0x20)


def test_update_is_one_transaction():
    bus, sim, d = setup()
    n = bus.transactions
    d.show_number(1)
    assert bus.transactions == n + 1


class _NullI2C:
    def __init__(self):
        self.n = 0

    def writeto(self, addr, buf):
        self.n += 1


def _heap_lock():
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:  # CPython: nothing to lock, the calls still run
        return None, None
    return heap_lock, heap_unlock


def test_updates_allocate_nothing():
    bus = _NullI2C()
    d = HT16K33(bus, 0x70)
    lock, unlock = _heap_lock()
    if lock:
        lock()
    try:
        for n in (-999, -5, 0, 42, 9999):
            d.show_number(n, True)
        d.set_digit(0, 0x79)
        d.write()
    finally:
        if unlock:
            unlock()
    assert bus.n == 6
    assert d._frame[1] == 0x79
