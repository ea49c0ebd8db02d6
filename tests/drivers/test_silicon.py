# The drivers against what the chips do that the register maps do not say,
# each from an independent source (hardware/chips.md has the table: point,
# value, source, and these tests). The chip models take the worst case the
# sources allow by default; each test here failed on the drivers as they
# were before issue 39.
try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

from drivers import pn5180
from drivers.mcp23017 import MCP23017
from drivers.pn5180 import PN5180
from mjsim.chipsim.i2c import I2CBusSim
from mjsim.chipsim.mcp23017_sim import MCP23017Sim
from mjsim.chipsim.pn5180_sim import PN5180Sim, uid_bytes
from mjsim.chipsim.spi import SPIBusSim

RACK = [uid_bytes(0xE004010000A10000 | (n * 0x1111)) for n in range(1, 15)]  # 14 tiles


# Each behaviour below is tested alone: the others as the old drivers
# expected them (booted at once, tags ready at once, no noise, a firmware
# that adds the digital delay itself), so each test fails for its own row.
GENTLE = {"boot_us": 0, "tag_ready_us": 0, "noise_rate": 0.0, "firmware": (4, 1),
          "misc_config": 0x03}


def reader(bus=None, init=True, strict=False, **model):
    """A model on its own bus (or `bus`) and the driver with its defaults
    (guard time and all): (bus, model, driver). The model is GENTLE but for
    the behaviours given, or strict (every default) with strict=True."""
    bus = bus or SPIBusSim()
    kw = {} if strict else dict(GENTLE)
    kw.update(model)
    sim = bus.attach(PN5180Sim(**kw))
    d = PN5180(bus, sim.nss, sim.busy, sim.rst, sim.ant, switch_us=0)
    if init:
        d.init()
    return bus, sim, d


# --- row 2: the wait after reset -------------------------------------------

def test_init_waits_out_the_boot_that_busy_does_not_show():
    # BUSY reads low for the first 1 ms after RST rises: a driver that takes
    # that for "booted" reads the EEPROM from a chip that is not listening
    bus, sim, d = reader(init=False, boot_us=3000)
    d.init()
    assert sim.violations == 0
    assert d.product == 0x0400 and d.firmware == 0x0401 and d.eeprom_version == 0x0001
    d.init()  # a retry resets the same way and works the same
    assert sim.violations == 0 and sim.regs[0x02] & 1 << 2 == 0  # IRQs cleared


def test_a_chip_that_never_boots_is_an_error_not_a_hang():
    bus, sim, d = reader(init=False, boot_us=10**9)
    d.busy_polls = 40
    e = raises(OSError, d.init)
    assert e.args[0] == pn5180.ETIMEDOUT


# --- row 1: Timer1 from the firmware version ---------------------------------

def test_old_firmware_leaves_the_digital_delay_to_the_host():
    bus, sim, d = reader(firmware=(3, 5), misc_config=0)
    sim.set_tags(0, RACK)
    assert d.inventory() == 14
    assert sim.late == 0 and d.t1_us == 797


def test_firmware_that_adds_the_delay_itself_gets_the_short_timer():
    # 4.1 with MISC_CONFIG bit 0 and Timer1 (bits 1..2 = 1): NXP's set-up
    bus, sim, d = reader(firmware=(4, 1), misc_config=0x03)
    sim.set_tags(0, RACK)
    assert d.t1_us == 476 and sim.regs[0x0C] == 404
    assert d.inventory() == 14 and sim.late == 0
    # 4.1 as shipped without that set-up: the host pays the delay again
    bus, sim, d = reader(firmware=(4, 1), misc_config=0x00)
    sim.set_tags(0, RACK)
    assert d.t1_us == 797 and d.inventory() == 14


def test_firmware_older_than_nxp_supports_is_refused():
    bus, sim, d = reader(init=False, firmware=(3, 3))
    raises(OSError, d.init)


# --- row 3: the field confirmed, collision avoidance ------------------------

def test_a_neighbours_field_does_not_keep_ours_off():
    bus = SPIBusSim()
    _, a, da = reader(bus)
    _, b, db = reader(bus)
    b.set_tags(0, RACK[:6])
    a.set_tags(0, RACK[6:])
    pn5180.inventory_all([da, db])  # four fields at once on the table
    assert (da.count, db.count) == (8, 6)
    assert a.refused == b.refused == 0


def test_a_field_that_does_not_come_on_is_an_error_and_says_so():
    bus, sim, d = reader()
    sim.set_tags(0, RACK)
    sim.tx_fault = True  # the antenna driver broken
    e = raises(OSError, d.inventory)
    assert e.args[0] == pn5180.EIO and d.field_fault
    assert not d.scanning()
    raises(OSError, d.find, bytearray(RACK[0]), 0, 2)
    sim.tx_fault = False
    assert d.inventory() == 14 and not d.field_fault
    assert d.agc == sim.agc  # read with the field's confirmation


# --- row 4: the guard time ------------------------------------------------------

def test_tags_get_the_guard_time_before_the_first_request():
    bus, sim, d = reader(tag_ready_us=5000)
    sim.set_tags(0, RACK)
    assert d.inventory() == 14  # the first scan after the field came on
    assert d.find(bytearray(RACK[3]), 0, 1) == 0  # and the first ask


# --- row 5: noise in an empty slot -------------------------------------------

def test_noise_in_empty_slots_is_a_timeout():
    # a burst in one empty slot of twenty: no scan of an empty antenna may
    # take more than its one round (a driver that takes noise for a
    # collision asks again, and noise in those rounds asks again...)
    bus, sim, d = reader(noise_rate=0.05)
    for _ in range(10):
        assert d.inventory() == 0
        assert d.rounds == 1 and not d.overflow and d.collisions == 0
    assert d.noise == sim.noises > 0
    sim.set_tags(0, RACK[:3])
    assert d.inventory() == 3 and not d.overflow
    sim.noise_rate = 1.0
    assert d.find(bytearray(RACK[9]), 0, 2) == 2  # absent: noise is no answer


# --- all at once: the strict model's defaults ------------------------------

def test_every_worst_case_at_once():
    bus = SPIBusSim()
    readers = [reader(bus, strict=True) for _ in range(4)]
    for i in range(4):
        readers[i][1].set_tags(i & 1, RACK[3 * i:3 * i + 5])
    ds = [r[2] for r in readers]
    for d in ds:
        d.select_antenna(ds.index(d) & 1)
    pn5180.inventory_all(ds)
    assert [d.count for d in ds] == [5, 5, 5, 5]
    assert sum(r[1].violations + r[1].late + r[1].refused for r in readers) == 0


# --- row 6: MCP23017 re-arm (DS20001952C 3.6.5) ------------------------------

def expander():
    bus = I2CBusSim()
    sim = bus.attach(0x20, MCP23017Sim())
    ex = MCP23017(bus, 0x20)
    ex.init()
    return sim, ex


def tap(sim, bit):
    sim.press(bit)
    sim.release(bit)


def test_a_tap_after_a_tap_is_captured_too():
    sim, ex = expander()
    tap(sim, 2)  # pressed and released between two reads
    ex.read()
    assert ex.changed >> 2 & 1 and not ex.captured >> 2 & 1  # captured pressed
    tap(sim, 2)  # again before the next read
    ex.read()
    assert ex.changed >> 2 & 1 and not ex.captured >> 2 & 1
    ex.read()
    assert ex.changed == 0


# --- row 7: GPA7 / GPB7 -----------------------------------------------------------

def test_gp7_pins_are_outputs():
    sim, ex = expander()
    assert sim.regs[0x00] & 0x80 == 0 and sim.regs[0x01] & 0x80 == 0  # IODIR
    sim.driven_high |= 0x8080  # whatever the seat board does with those pins
    ex.read()
    sim.driven_high &= ~0x8080
    ex.read()
    assert sim.corrupted == 0
    raises(ValueError, ex.init, 0xFFFF)
