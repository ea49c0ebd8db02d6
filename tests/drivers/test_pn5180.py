try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

from drivers import pn5180
from drivers.pn5180 import ANT_RACK, ANT_TRAY, PN5180
from mjsim.chipsim import pn5180_sim as S
from mjsim.chipsim.pn5180_sim import PN5180Sim, uid_bytes, uid_int
from mjsim.chipsim.rng import XorShift32
from mjsim.chipsim.spi import SPIBusSim


def make(n_readers=1, frames=None, **kw):
    bus = SPIBusSim()
    sims = []
    drivers = []
    for i in range(n_readers):
        sim = bus.attach(PN5180Sim(seed=i + 1, **kw))
        # the driver's own guard time against the model's worst-case tags
        d = PN5180(bus, sim.nss, sim.busy, sim.rst, sim.ant, switch_us=0, frames=frames)
        d.init()
        sims.append(sim)
        drivers.append(d)
    return bus, sims, drivers


def tag(n):
    """An ICODE-like UID: E0 04 01 .. with the low bytes from n."""
    return uid_bytes(0xE004010000000000 | n)


def read_set(d):
    return sorted(bytes(d.uids[8 * k:8 * k + 8]) for k in range(d.count))


def rand_tags(seed, n):
    r = XorShift32(seed)
    out = []
    while len(out) < n:
        t = tag(((r.next() << 16) ^ r.next()) & 0xFFFFFFFFFF)
        if t not in out:
            out.append(t)
    return out


def test_command_codes_match_datasheet():
    assert pn5180._F_RF_ON[0] == 0x16 and pn5180._F_RF_OFF[0] == 0x17
    assert pn5180._F_LOAD_15693 == b"\x11\x0d\x8d"
    assert pn5180._F_READ_DATA[0] == 0x0A and pn5180._F_SEND_EOF[0] == 0x09
    # The driver's register addresses are private consts, folded into its code;
    # the simulator answers by the datasheet's addresses (below), so every
    # exchange in these tests checks them. Those the driver's frames carry:
    assert S.RX_STATUS == 0x13 and S.RF_STATUS == 0x1D
    assert S.IRQ_STATUS == 0x02 and S.IRQ_CLEAR == 0x03 and S.TX_CONFIG == 0x18
    assert pn5180._F_CLEAR_IRQ[1] == S.IRQ_CLEAR and pn5180._F_EOF_ONLY[1] == S.TX_CONFIG
    assert pn5180._F_IDLE[1] == S.SYSTEM_CONFIG == pn5180._F_TRANSCEIVE[1]


def test_init_handshake_clean_and_product_version():
    bus, (sim,), (d,) = make()
    assert d.product_version() == (4, 0)
    assert sim.violations == 0 and sim.bad_commands == 0
    assert sim.protocol == 15693
    # firmware 3.5 (the model's default) leaves the 321 us digital delay to
    # the host: TIMER1_RELOAD = 476 + 321 us at 847.5 kHz
    assert (d.firmware, d.product, d.t1_us) == (0x305, 0x400, 797)
    assert sim.regs[0x0C] == 676


def test_register_write_read_or_and():
    bus, (sim,), (d,) = make()
    d.write_register(0x20, 0x12345678)
    assert d.read_register(0x20) == 0x12345678
    d.or_register(0x20, 0x80000001)
    assert d.read_register(0x20) == 0x92345679
    d.and_register(0x20, 0x0000FFFF)
    assert sim.regs[0x20] == 0x5679
    raises(ValueError, d.write_register, 0x20, -1)
    raises(ValueError, d.or_register, 0x20, 1 << 32)
    raises(ValueError, d.write_register, 0x100, 0)
    assert sim.regs[0x20] == 0x5679


def test_empty_field_reads_nothing():
    bus, (sim,), (d,) = make()
    assert d.inventory() == 0
    assert not d.overflow and d.timeouts == 0
    assert sim.requests == 1 and sim.eofs == 15
    assert not sim.field  # field off after the scan


def test_one_tag():
    bus, (sim,), (d,) = make()
    t = tag(0x1234)
    sim.put(0, t)
    assert d.inventory() == 1
    out = bytearray(8)
    d.uid(0, out)
    assert bytes(out) == t
    assert out[7] == 0xE0
    raises(IndexError, d.uid, 1, out)
    short = bytearray(4)
    raises(ValueError, d.uid, 0, short)
    assert short == bytearray(4)


def test_fourteen_tile_rack():
    bus, (sim,), (d,) = make()
    tags = rand_tags(7, 14)
    sim.set_tags(0, tags)
    assert d.inventory() == 14
    assert read_set(d) == sorted(tags)
    assert sim.violations == 0 and sim.bad_commands == 0


def test_collision_in_same_slot_resolved_by_mask():
    bus, (sim,), (d,) = make()
    a = tag(0x0105)  # same low nibble 5 -> same slot in the first round
    b = tag(0x0205)
    c = tag(0x0305)
    sim.set_tags(0, [a, b, c])
    assert d.inventory() == 3
    assert read_set(d) == sorted([a, b, c])
    assert d.collisions >= 1 and d.rounds >= 2


def test_a_garbled_answer_is_asked_again_not_dropped():
    # RX_STATUS integrity error (bad CRC): the tag is there; a new round with
    # the slot's nibble in the mask reads it
    bus, (sim,), (d,) = make()
    a = tag(0x0105)
    b = tag(0x0207)
    sim.set_tags(0, [a, b])
    sim.garble = 1  # the first answer of the first round (slot 5: a)
    assert d.inventory() == 2
    assert read_set(d) == sorted([a, b])
    assert sim.garble == 0 and d.rounds >= 2 and d.collisions == 0


def test_deep_collision_needs_many_rounds():
    bus, (sim,), (d,) = make()
    a = uid_bytes(0xE004010000000000 | (0x7 << 44))
    b = uid_bytes(0xE004010000000000 | (0x9 << 44))
    sim.set_tags(0, [a, b])  # identical in the low 44 bits
    assert d.inventory() == 2
    assert read_set(d) == sorted([a, b])
    assert d.rounds == 1 + 11


def test_eof_alone_is_configured_once_a_round():
    # TX_CONFIG keeps its value between slots, and LOAD_RF_CONFIG (each
    # round's start) restores it: one AND-mask write a round, not one a slot
    bus, (sim,), (d,) = make()
    d.inventory()
    assert sim.eofs == 15 and sim.tx_config_writes == 1
    for t in rand_tags(7, 14):
        sim.put(0, t)
    assert d.inventory() == 14 and d.rounds >= 2
    assert sim.tx_config_writes == 1 + d.rounds and sim.bad_commands == 0
    d.inventory()  # and again: nothing left over from the last round
    assert d.count == 14 and sim.bad_commands == 0


def test_same_uid_twice_reads_as_one():
    bus, (sim,), (d,) = make()
    t = tag(0x42)
    sim.set_tags(0, [t, t, tag(0x43)])
    assert d.inventory() == 2
    assert d.collisions == 0


def test_antenna_select_switches_the_field():
    bus, (sim,), (d,) = make()
    rack = rand_tags(1, 5)
    tray = rand_tags(2, 3)
    sim.set_tags(0, rack)
    sim.set_tags(1, tray)
    d.select_antenna(ANT_TRAY)
    assert sim.ant.value() == 1
    assert d.inventory() == 3 and read_set(d) == sorted(tray)
    d.select_antenna(ANT_RACK)
    assert d.inventory() == 5 and read_set(d) == sorted(rack)
    raises(ValueError, d.select_antenna, 2)
    assert sim.ant.value() == 0


def test_capacity_overflow_is_flagged():
    bus = SPIBusSim()
    sim = bus.attach(PN5180Sim())
    d = PN5180(bus, sim.nss, sim.busy, sim.rst, sim.ant, max_tags=4, switch_us=0)
    d.init()
    sim.set_tags(0, rand_tags(3, 6))
    assert d.inventory() == 4
    assert d.overflow


def test_four_readers_share_the_bus():
    bus, sims, ds = make(4)
    sets = [rand_tags(10 + i, 3 + i) for i in range(4)]
    for i in range(4):
        sims[i].set_tags(0, sets[i])
    for i in range(4):
        assert ds[i].inventory() == 3 + i
        assert read_set(ds[i]) == sorted(sets[i])
    assert bus.contention == 0
    assert all(s.violations == 0 for s in sims)


def test_without_timer_empty_slots_exhaust_poll_budget():
    bus, (sim,), (d,) = make(noise_rate=0.0)  # a noise burst is an RX IRQ
    d.irq_polls = 5
    d.write_register(S.TIMER1_CONFIG, 0)
    assert d.inventory() == 0
    assert d.timeouts == 16


def test_missed_reads_are_recovered_by_rescans():
    bus, (sim,), (d,) = make(miss_rate=0.2)
    tags = rand_tags(5, 12)
    sim.set_tags(0, tags)
    seen = set()
    short = 0
    for _ in range(6):
        n = d.inventory()
        short += n < 12
        seen.update(read_set(d))
    assert short > 0  # some scans missed a tile
    assert seen == set(tags)


def test_phantoms_fit_mask_and_are_extra():
    bus, (sim,), (d,) = make(phantom_rate=0.3)
    tags = rand_tags(9, 4)
    sim.set_tags(0, tags)
    n = d.inventory()
    got = read_set(d)
    assert sim.phantoms > 0
    assert n == 4 + sim.phantoms
    for t in tags:
        assert t in got


def test_crosstalk_shows_tray_tag_on_rack():
    bus, (sim,), (d,) = make(crosstalk_rate=1.0)
    sim.set_tags(0, [tag(1)])
    sim.set_tags(1, [tag(2)])
    assert d.inventory() == 2


def test_unplugged_reader_raises():
    bus = SPIBusSim()
    sim = PN5180Sim()  # not attached: MISO floats, nothing answers
    sim.in_reset = True  # BUSY stuck high
    d = PN5180(bus, sim.nss, sim.busy, sim.rst, sim.ant, busy_polls=20)
    e = raises(OSError, d.write_register, 0, 0)
    assert e.args[0] == pn5180.ETIMEDOUT


def test_frame_during_busy_is_a_violation_in_sim():
    bus = SPIBusSim()
    sim = bus.attach(PN5180Sim(busy_delay=3))
    while sim.booting() or sim.busy.value():  # boot (BUSY alone does not tell)
        pass
    sim.nss.value(0)
    assert sim.violations == 0
    bus.write(b"\x16\x00")
    sim.nss.value(1)
    sim.nss.value(0)  # BUSY still high
    assert sim.violations == 1


def test_uid_helpers_roundtrip():
    n = 0xE0040150A1B2C3D4
    assert uid_int(uid_bytes(n)) == n
    assert uid_bytes(n)[0] == 0xD4


def test_stepped_readers_overlap_and_agree():
    stepped_readers_overlap_and_agree(None)


def test_readers_sharing_one_set_of_frames_overlap_and_agree():
    # boards/pico.py gives its four readers one set: each frame is filled and
    # sent, or read and parsed, within one call
    stepped_readers_overlap_and_agree(pn5180.make_frames())


def stepped_readers_overlap_and_agree(frames):
    bus, sims, ds = make(4, frames)
    assert (ds[0]._rx is ds[3]._rx) == (frames is not None)
    sets = [rand_tags(20 + i, 10 + i) for i in range(4)]
    for i in range(4):
        sims[i].set_tags(0, sets[i])
    for d in ds:
        d.start()
    most_fields = 0
    busy = True
    while busy:
        busy = False
        for d in ds:
            if not d.step():
                busy = True
        most_fields = max(most_fields, sum(1 for s in sims if s.field))
    assert most_fields == 4
    for i in range(4):
        assert read_set(ds[i]) == sorted(sets[i])
        assert not sims[i].field
        assert ds[i].step()  # finished stays finished
    assert bus.contention == 0 and all(s.violations == 0 for s in sims)


def test_inventory_all_helper():
    bus, sims, ds = make(3)
    for i in range(3):
        sims[i].set_tags(0, rand_tags(40 + i, 5))
    pn5180.inventory_all(ds)
    assert [d.count for d in ds] == [5, 5, 5]


def test_inventory_all_switches_fields_off_on_error():
    bus, sims, ds = make(2)
    sims[0].set_tags(0, rand_tags(50, 8))
    ds[1].busy_polls = 3
    sims[1].in_reset = True  # reader 1 dies mid-scan: BUSY stuck high
    raises(OSError, pn5180.inventory_all, ds)
    assert not sims[0].field


class _ScriptedSPI:
    """No-allocation stand-in for SPI + chip: answers register reads from a
    fixed table, READ_DATA with one inventory answer. Used to check that the
    driver's scan loop allocates nothing (MicroPython heap lock)."""

    REGS = {
        S.RF_STATUS: b"\x00\x00\x02\x01",  # WAIT_TRANSMIT, field on
        S.IRQ_STATUS: b"\x01\x00\x00\x00",  # RX done
        S.RX_STATUS: b"\x0a\x00\x00\x00",  # 10 bytes, no error
    }
    ANSWER = b"\x00\x00\x11\x22\x33\x44\x55\x01\x04\xe0"

    def __init__(self):
        self.op = 0
        self.reg = 0

    def write(self, buf):
        self.op = buf[0]
        self.reg = buf[1] if len(buf) > 1 else 0

    def readinto(self, buf, write_byte=0):
        src = self.ANSWER if self.op == 0x0A else self.REGS.get(self.reg, b"\x00\x00\x00\x00")
        for i in range(len(buf)):
            buf[i] = src[i] if i < len(src) else 0


class _TogglePin:
    """BUSY that is low, then high, then low... so every handshake passes."""

    def __init__(self):
        self.v = 1

    def value(self, v=None):
        if v is None:
            self.v ^= 1
            return self.v
        self.v = v


def test_scan_loop_allocates_nothing():
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:  # CPython: no heap lock; the loop still runs below
        heap_lock = heap_unlock = None
    pins = [_TogglePin() for _ in range(4)]
    d = PN5180(_ScriptedSPI(), pins[0], pins[1], pins[2], pins[3], settle_us=0, switch_us=0)
    d.start()
    steps = 0
    if heap_lock:
        heap_lock()
    try:
        while not d.step():
            steps += 1
    finally:
        if heap_unlock:
            heap_unlock()
    assert steps == 15 and d.count == 1 and d.rounds == 1
    out = bytearray(8)
    d.uid(0, out)
    assert out[7] == 0xE0 and out[0] == 0x11


def test_find_asks_one_tag_by_its_whole_uid():
    bus, (sim,), (d,) = make()
    tags = rand_tags(11, 14)
    sim.set_tags(0, tags)
    buf = bytearray(b"".join(tags) + tag(0x777))
    assert d.find(buf, 8 * 5, 3) == 0  # it answers the first ask
    assert d.find(buf, 8 * 14, 3) == 3  # a UID not on the antenna: never
    assert sim.field is False  # the field is off again
    assert d.inventory() == 14  # and a whole inventory still works after it


def test_find_with_a_short_mask_checks_the_whole_uid():
    bus, (sim,), (d,) = make()
    want = uid_bytes(0xE004010000AB1234)
    stray = uid_bytes(0xE004010000CD1234)  # the same low 16 bits
    sim.set_tags(0, [stray])
    assert d.find(want, 0, 2, 16) == 2  # the stray answers; it is not the tile
    assert d.find(want, 0, 2, 24) == 2  # 24 bits: the stray does not answer at all
    assert d.find(stray, 0, 2, 16) == 0
    sim.set_tags(0, [stray, want])
    assert d.find(want, 0, 2, 16) == 0  # both answer: a collision counts as there
    raises(ValueError, d.find, want, 0, 1, 12)
    raises(ValueError, d.find, want, 0, 1, 72)
    assert sim.bad_commands == 0 and sim.field is False


def test_find_counts_the_asks_a_tag_misses():
    bus, (sim,), (d,) = make(miss_rate=0.5)
    sim.set_tags(0, [tag(1)])
    got = [d.find(tag(1), 0, 6) for _ in range(40)]
    assert 0 in got and any(0 < k < 6 for k in got)  # some asks missed, then it answered


def test_a_kept_field_needs_no_second_rf_on_or_guard():
    from time import sleep

    bus, (sim,), (d,) = make(tag_ready_us=5000)
    d.keep_field = True
    tags = rand_tags(12, 5)
    sim.set_tags(0, tags)
    assert d.inventory() == 5 and sim.field  # left on: the tags stay powered
    n = sim.rf_ons
    assert d.find(bytearray(tags[2]), 0, 1) == 0 and sim.rf_ons == n and sim.field
    late = tag(0x4242)
    sim.put(0, late)  # laid into the field: it needs its own power-up time
    assert d.inventory() == 5 and sim.rf_ons == n
    sleep(0.006)
    assert d.inventory() == 6
    d.select_antenna(ANT_TRAY)  # the relay moves with the field off
    assert not sim.field
    d.select_antenna(ANT_RACK)
    assert d.inventory() == 6 and sim.rf_ons == n + 1
    d.rf_off()
    assert not sim.field
