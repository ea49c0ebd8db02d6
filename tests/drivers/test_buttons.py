try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises


from drivers import buttons as B
from drivers.buttons import LONG, SHORT, Buttons, event, index_of, kind_of, ticks_diff
from drivers.mcp23017 import MCP23017
from mjsim.chipsim.i2c import I2CBusSim
from mjsim.chipsim.mcp23017_sim import MCP23017Sim


class Port:
    """A GPIO port's levels in `state`, as drivers.buttons reads them."""

    def __init__(self, state=0xFFFF):  # pull-ups: a released key reads 1
        self.state = state

    def set(self, bit, level):
        self.state = (self.state & ~(1 << bit)) | (level << bit)


def panel(n=7, **kw):
    port = Port()
    return port, Buttons(port, 0, n, **kw)


def drain(b, first):
    out = []
    ev = first
    while ev:
        out.append(ev)
        ev = b.next()
    return out


def run(b, t0, t1, step=5):
    evs = []
    t = t0
    while t <= t1:
        evs += drain(b, b.poll(t))
        t += step
    return evs


def test_event_encoding():
    ev = event(LONG, B.GANG)
    assert kind_of(ev) == LONG and index_of(ev) == B.GANG
    assert ev != 0 and event(SHORT, B.HU) != 0
    assert B.KEY_NAMES[B.TIAO] == "tiao" and B.SEAT_KEYS == 7


def test_short_press_after_release():
    pins, b = panel()
    assert b.poll(0) == 0
    pins.set(B.PENG, 0)
    assert run(b, 5, 100) == []
    assert b.pressed(B.PENG)
    pins.set(B.PENG, 1)
    assert run(b, 105, 200) == [event(SHORT, B.PENG)]
    assert not b.pressed(B.PENG)


def test_down_is_the_level_now_and_pressed_waits_for_debounce():
    pins, b = panel(debounce_ms=20)
    b.poll(0)
    pins.set(B.GUO, 0)
    assert b.down(B.GUO) and not b.down(B.HU)
    b.poll(5)
    assert not b.pressed(B.GUO)
    b.poll(30)
    assert b.pressed(B.GUO)


def test_a_seat_reads_only_its_own_bits():
    port = Port()
    b = Buttons(port, 8, 7)
    b.poll(0)
    port.set(B.HU, 0)  # bit 0: another seat's key
    port.set(15, 0)  # bit 15: above this seat's 8..14
    assert run(b, 5, 100) == [] and not b.down(B.HU)
    port.set(8 + B.HU, 0)
    run(b, 105, 150)
    port.set(8 + B.HU, 1)
    assert run(b, 155, 200) == [event(SHORT, B.HU)]


def test_bounce_shorter_than_debounce_is_ignored():
    pins, b = panel(debounce_ms=20)
    b.poll(0)
    for t in range(5, 60, 5):  # chatter every 5 ms
        pins.set(B.HU, (t // 5) & 1)
        assert b.poll(t) == 0
    pins.set(B.HU, 1)
    assert run(b, 60, 200) == []
    assert not b.pressed(B.HU)


def test_long_press_fires_once_and_no_short():
    pins, b = panel(long_ms=800)
    b.poll(0)
    pins.set(B.GUO, 0)
    evs = run(b, 10, 2000, step=10)
    assert evs == [event(LONG, B.GUO)]
    pins.set(B.GUO, 1)
    assert run(b, 2010, 2100, step=10) == []


def test_two_keys_same_poll_queue_both():
    pins, b = panel()
    b.poll(0)
    pins.set(B.WAN, 0)
    pins.set(B.TIAO, 0)
    run(b, 5, 50)
    pins.set(B.WAN, 1)
    pins.set(B.TIAO, 1)
    evs = run(b, 55, 120)
    assert evs == [event(SHORT, B.WAN), event(SHORT, B.TIAO)]


def test_active_high_option():
    pins = Port(0)
    b = Buttons(pins, 0, 2, active_low=False)
    b.poll(0)
    pins.set(1, 1)
    run(b, 5, 50)
    pins.set(1, 0)
    assert run(b, 55, 100) == [event(SHORT, 1)]


def test_tick_wraparound():
    assert ticks_diff(5, (1 << 30) - 5) == 10
    pins, b = panel()
    t0 = (1 << 30) - 30
    b.poll(t0)
    pins.set(0, 0)
    b.poll(t0 + 5)
    for t in range(t0 + 10, t0 + 60, 5):
        b.poll(t & ((1 << 30) - 1))
    assert b.pressed(0)


def test_queue_overflow_counts_drops():
    pins = Port()
    b = Buttons(pins, 0, 4, queue=2)
    b.poll(0)
    pins.state = 0xFFF0
    b.poll(5)
    b.poll(30)
    pins.state = 0xFFFF
    b.poll(35)
    first = b.poll(60)  # poll hands back the oldest event itself
    assert first == event(SHORT, 0)
    assert b.pending() == 1 and b.dropped == 2
    assert b.next() == event(SHORT, 1) and b.next() == 0


def test_bad_config_rejected():
    raises(ValueError, Buttons, Port(), 0, 0)
    raises(ValueError, Buttons, Port(), 0, 17)
    raises(ValueError, Buttons, Port(), 0, 1, True, 50, 40)


def test_expander_keys_through_i2c():
    bus = I2CBusSim()
    sim = bus.attach(0x20, MCP23017Sim())
    ex = MCP23017(bus, 0x20)
    ex.init()
    assert ex.read() == 0x7F7F  # pull-ups on, nothing pressed; GPA7/GPB7 outputs, low
    seat0 = Buttons(ex, 0)
    seat1 = Buttons(ex, 8)
    ex.read()
    seat0.poll(0)
    seat1.poll(0)
    sim.press(8 + B.GANG)
    for t in (5, 30):
        ex.read()
        assert seat0.poll(t) == 0
        seat1.poll(t)
    sim.release(8 + B.GANG)
    evs = []
    for t in (35, 60):
        ex.read()
        assert seat0.poll(t) == 0
        evs += drain(seat1, seat1.poll(t))
    assert evs == [event(SHORT, B.GANG)]


def test_expander_pullups_required():
    bus = I2CBusSim()
    bus.attach(0x21, MCP23017Sim())
    ex = MCP23017(bus, 0x21)
    ex.init(pullups=0)
    assert ex.read() == 0  # floating inputs without pull-ups read low here
    raises(ValueError, ex.write, 0x10000)
    raises(ValueError, ex.init, -1)
    raises(ValueError, MCP23017, bus, 0x70)


def test_poll_allocates_nothing():
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:  # CPython: nothing to lock, the loop still runs
        heap_lock = heap_unlock = None
    pins, b = panel()
    got = bytearray(8)
    n = 0
    if heap_lock:
        heap_lock()
    try:
        for t in range(0, 2000, 10):
            if t == 100:
                pins.set(B.HU, 0)
            if t == 200:
                pins.set(B.HU, 1)
            if t == 300:
                pins.set(B.GUO, 0)
            ev = b.poll(t)
            while ev and n < 8:
                got[n] = ev
                n += 1
                ev = b.next()
    finally:
        if heap_unlock:
            heap_unlock()
    assert bytes(got[:n]) == bytes((event(SHORT, B.HU), event(LONG, B.GUO)))


def expander_keys():
    bus = I2CBusSim()
    sim = bus.attach(0x20, MCP23017Sim())
    ex = MCP23017(bus, 0x20)
    ex.init()
    b = Buttons(ex, 0)
    ex.read()
    b.poll(0)
    return sim, ex, b


def polled(ex, b, t):
    ex.read()
    return drain(b, b.poll(t))


def test_a_tap_between_two_reads_is_caught_by_the_expander():
    # pressed and released while the board was busy: no read saw it down,
    # the expander's INTCAP did (a 400 ms press between reads 600 ms apart)
    sim, ex, b = expander_keys()
    sim.press(B.TONG)
    sim.release(B.TONG)
    assert polled(ex, b, 600) == []  # the release's debounce starts here
    assert polled(ex, b, 610) == []
    assert polled(ex, b, 625) == [event(SHORT, B.TONG)]
    assert polled(ex, b, 900) == []  # once: the read cleared the capture


def test_a_tap_is_taken_once_however_often_the_keys_are_polled():
    sim, ex, b = expander_keys()
    sim.press(B.HU)
    sim.release(B.HU)
    ex.read()
    evs = []
    for t in range(600, 800, 10):  # polls with no new read of the expander
        evs += drain(b, b.poll(t))
    assert evs == [event(SHORT, B.HU)]


def test_a_read_in_the_press_chatter_makes_one_press():
    # the capture saw the key down, the read caught it bouncing up; it is
    # down at the next read and released later: one SHORT, not two
    sim, ex, b = expander_keys()
    sim.press(B.PENG)
    sim.release(B.PENG)
    assert polled(ex, b, 100) == []
    sim.press(B.PENG)
    evs = []
    for t in range(105, 400, 25):
        evs += polled(ex, b, t)
    sim.release(B.PENG)
    for t in range(400, 600, 25):
        evs += polled(ex, b, t)
    assert evs == [event(SHORT, B.PENG)]


def test_a_release_caught_is_no_press():
    sim, ex, b = expander_keys()
    sim.press(B.GANG)
    assert polled(ex, b, 10) == [] and polled(ex, b, 40) == []
    assert b.pressed(B.GANG)
    sim.release(B.GANG)
    sim.press(B.GANG)  # the capture holds the release: the key is down now
    assert polled(ex, b, 100) == [] and b.pressed(B.GANG)
    sim.release(B.GANG)
    evs = polled(ex, b, 150) + polled(ex, b, 180)
    assert evs == [event(SHORT, B.GANG)]


def test_the_expander_latches_the_first_change_until_read():
    bus = I2CBusSim()
    sim = bus.attach(0x20, MCP23017Sim())
    ex = MCP23017(bus, 0x20)
    ex.init()
    assert ex.changed == 0
    sim.press(3)
    sim.press(9)
    sim.release(3)  # port A: its first change is held; port B its own
    buf = bytearray(6)
    sim.ptr = 0x0E
    sim.peek_into(buf)  # the bridge's read-ahead clears nothing
    assert ex.read() == 0x7F7F & ~(1 << 9)
    assert ex.changed == (1 << 3) | (1 << 9) == buf[0] | buf[1] << 8
    assert ex.captured == 0x7F7F & ~(1 << 3) & ~(1 << 9)
    ex.read()
    assert ex.changed == 0  # the read cleared both ports' interrupts (and re-armed them)
    sim.i2c_write(bytes((0x0E, 0xFF, 0xFF)))  # INTF is read-only
    ex.read()
    assert ex.changed == 0


class Caught(Port):
    """A port with an expander's capture (drivers.mcp23017's fields)."""

    def __init__(self):
        super().__init__()
        self.changed, self.captured, self.seq = 0, 0xFFFF, 0


def test_a_caught_tap_allocates_nothing():
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:
        heap_lock = heap_unlock = None
    port = Caught()
    b = Buttons(port, 0)
    b.poll(0)
    port.changed, port.captured = 1 << B.WAN, 0xFFFF & ~(1 << B.WAN)
    if heap_lock:
        heap_lock()
    try:
        port.seq = 1
        first = b.poll(100)
        port.changed, port.captured, port.seq = 0, 0xFFFF, 2
        second = b.poll(130)
    finally:
        if heap_unlock:
            heap_unlock()
    assert (first, second) == (0, event(SHORT, B.WAN))
