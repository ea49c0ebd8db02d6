"""A key press shorter than a scan cycle is not lost: on the board a cycle
blocks for up to a second, so the scanner samples the keys after each read
(app.key_sampler into drivers.buttons' queues), and a tap between two
samples is caught by the expander's INTCAP (drivers.mcp23017). Both
interpreters."""

import app
from drivers import buttons as B
from sichuan import game as G
from tablekit import TableRig

HANDS = (range(0, 14), range(14, 27), range(27, 40), range(40, 53))
GIVE = ((0, 1, 2), (14, 15, 16), (27, 28, 29), (40, 41, 42))


class Tap:
    """A scanner idle hook: 30 ms of clock a read; the key goes down at the
    first read and up at the third, all within one cycle."""

    def __init__(self, rig, seat, key, sample):
        self.rig, self.seat, self.key, self.sample = rig, seat, key, sample
        self.n = 0

    def __call__(self):
        self.n += 1
        self.rig.now += 30
        if self.n == 1:
            self.rig.table.press(self.seat, self.key)
        elif self.n == 3:
            self.rig.table.release(self.seat, self.key)
        if self.sample is not None:
            self.sample()


class Port:
    """An expander's cached levels (drivers.mcp23017 `state`): all released."""

    def __init__(self):
        self.state = 0xFFFF


def keys():
    return B.Buttons(Port(), debounce_ms=20, long_ms=800)


def at_dingque():
    r = TableRig().deal_and_exchange(HANDS, GIVE)
    assert r.ctl.game.phase == G.PH_DINGQUE
    return r


def tap_within_a_cycle(sampled, capture=True):
    r = at_dingque()
    if not capture:  # the expanders' interrupt-on-change off (GPINTEN = 0)
        for k in r.table.keys:
            k.regs[0x04] = k.regs[0x05] = 0
    sample = app.key_sampler(r.board, lambda: r.now) if sampled else None
    tap = Tap(r, 0, B.TONG, sample)
    r.ctl.scanner.idle = tap
    r.ctl.scan_cycle()  # the four racks: four reads, the key down and up in between
    r.ctl.scanner.idle = None
    assert tap.n >= 4
    r.frame(2)  # key_task's polls and the game
    return r.ctl


def test_a_tap_within_one_scan_cycle_is_taken():
    ctl = tap_within_a_cycle(True)
    assert ctl.last_action[:3] == (G.DINGQUE, 0, 1)


def test_sampling_between_reads_takes_the_tap_without_the_capture():
    ctl = tap_within_a_cycle(True, capture=False)
    assert ctl.last_action[:3] == (G.DINGQUE, 0, 1)


def test_unsampled_the_expanders_capture_takes_the_tap():
    ctl = tap_within_a_cycle(False)
    assert ctl.last_action[:3] == (G.DINGQUE, 0, 1)


def test_with_neither_the_tap_is_lost():
    ctl = tap_within_a_cycle(False, capture=False)
    assert ctl.last_action[0] != G.DINGQUE


def test_sample_queues_and_poll_takes():
    b = keys()
    b.port.state = 0xFFFF & ~(1 << B.HU)
    b.sample(0)
    b.sample(25)
    b.port.state = 0xFFFF
    b.sample(50)
    b.sample(75)
    assert b.pending() == 1
    assert b.poll(80) == B.event(B.SHORT, B.HU) and b.poll(90) == 0


def test_a_press_read_up_late_is_short_not_long():
    # samples far apart (a board busy writing its log): down at 0 and 350, up
    # at 820 (released in between), its debounce over at 1170: a SHORT press,
    # though 820 ms passed since it was first read down (was LONG)
    b = keys()
    b.port.state = 0xFFFF & ~(1 << B.WAN)
    b.sample(0)
    b.sample(350)
    b.port.state = 0xFFFF
    b.sample(820)
    b.sample(1170)
    assert b.next() == B.event(B.SHORT, B.WAN) and b.next() == 0


def test_a_key_still_down_after_long_ms_is_long():
    b = keys()
    b.port.state = 0xFFFF & ~(1 << B.HU)
    for t in (0, 350, 700, 1050):
        b.sample(t)
    b.port.state = 0xFFFF
    b.sample(1400)
    b.sample(1750)
    assert b.next() == B.event(B.LONG, B.HU) and b.next() == 0


def test_a_key_that_does_nothing_says_why():
    from table import controller as C

    r = at_dingque()
    ctl = r.ctl
    n = ctl.keys_seen
    ctl.key(0, B.event(B.SHORT, B.GUO), r.now)  # 过 with no claim open
    assert ctl.keys_seen == n + 1 and ctl.key_why == C.K_NOT_NOW
    ctl.key(0, B.event(B.LONG, B.WAN), r.now)
    assert ctl.key_why == C.K_LONG
    assert ctl.key(0, B.event(B.SHORT, B.TONG), r.now) and ctl.key_why == C.K_ACTED
    ctl.key(0, B.event(B.SHORT, B.TIAO), r.now)  # its 定缺 is made
    assert ctl.key_why == C.K_REFUSED


def test_a_press_one_sample_alone_saw_is_short():
    # samples 300 ms apart (a board writing its log): the key read down at
    # 300 only, up at 600; its release debounced at 630: one SHORT (was lost)
    b = keys()
    b.sample(0)
    b.port.state = 0xFFFF & ~(1 << B.TIAO)
    b.sample(300)
    b.port.state = 0xFFFF
    b.sample(600)
    assert b.next() == 0
    b.sample(630)
    assert b.next() == B.event(B.SHORT, B.TIAO) and b.next() == 0


def test_a_glitch_between_close_samples_is_no_press():
    b = keys()
    b.sample(0)
    b.port.state = 0xFFFF & ~(1 << B.TIAO)
    b.sample(5)
    b.port.state = 0xFFFF
    for t in (10, 40, 80):
        b.sample(t)
    assert b.next() == 0
