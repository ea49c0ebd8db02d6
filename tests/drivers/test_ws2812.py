try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises


from drivers import ws2812 as W
from drivers.ws2812 import SeatLeds


class FakeNeoPixel:
    def __init__(self, n):
        self.buf = [(0, 0, 0)] * n
        self.writes = 0
        self.shown = list(self.buf)

    def __len__(self):
        return len(self.buf)

    def __setitem__(self, i, c):
        self.buf[i] = c

    def __getitem__(self, i):
        return self.buf[i]

    def write(self):
        self.writes += 1
        self.shown = list(self.buf)


def test_turn_lights_only_that_seat():
    np = FakeNeoPixel(8)
    leds = SeatLeds(np, seats=4, brightness=255)
    leds.set(2, W.TURN)
    assert leds.tick(0)
    assert np.shown[4] == (0, 255, 0) and np.shown[5] == (0, 255, 0)
    assert np.shown[0] == (0, 0, 0) and np.shown[7] == (0, 0, 0)


def test_no_write_without_change():
    np = FakeNeoPixel(4)
    leds = SeatLeds(np)
    leds.set(0, W.TURN)
    leds.tick(0)
    n = np.writes
    assert not leds.tick(100)
    leds.set(0, W.TURN)
    assert not leds.tick(200)
    assert np.writes == n


def test_alert_blinks_at_2hz():
    np = FakeNeoPixel(4)
    leds = SeatLeds(np, brightness=255)
    leds.set(1, W.ALERT, now_ms=1000)
    leds.tick(1000)
    assert np.shown[1] == (255, 0, 0)
    leds.tick(1250)
    assert np.shown[1] == (0, 0, 0)
    leds.tick(1500)
    assert np.shown[1] == (255, 0, 0)


def test_claim_blinks_slower_than_alert():
    np = FakeNeoPixel(4)
    leds = SeatLeds(np, brightness=255)
    leds.set(3, W.CLAIM, now_ms=0)
    leds.tick(0)
    on = np.shown[3]
    leds.tick(250)
    assert np.shown[3] == on
    leds.tick(500)
    assert np.shown[3] == (0, 0, 0)


def test_brightness_scales_colours():
    np = FakeNeoPixel(4)
    leds = SeatLeds(np, brightness=51)
    leds.set(0, W.ALERT)
    leds.tick(0)
    assert np.shown[0] == (51, 0, 0)


def test_bad_input_changes_nothing():
    np = FakeNeoPixel(4)
    leds = SeatLeds(np)
    leds.set(0, W.HU)
    raises(ValueError, leds.set, 4, W.TURN)
    raises(ValueError, leds.set, 0, 99)
    assert leds.state(0) == W.HU
    raises(ValueError, SeatLeds, FakeNeoPixel(6), 4)
    raises(ValueError, SeatLeds, FakeNeoPixel(4), 4, 300)


def test_all_off():
    np = FakeNeoPixel(4)
    leds = SeatLeds(np, brightness=255)
    for s in range(4):
        leds.set(s, W.WAIT)
    leds.tick(0)
    leds.all_off()
    leds.tick(1)
    assert np.shown == [(0, 0, 0)] * 4


class _QuietNeoPixel:
    def __init__(self, n):
        self.buf = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self):
        return len(self.buf)

    def __setitem__(self, i, c):
        self.buf[i] = c

    def write(self):
        self.writes += 1


def test_tick_allocates_nothing():
    try:
        from micropython import heap_lock, heap_unlock
    except ImportError:  # CPython: nothing to lock, the loop still runs
        heap_lock = heap_unlock = None
    np = _QuietNeoPixel(12)
    leds = SeatLeds(np, brightness=255)
    if heap_lock:
        heap_lock()
    try:
        leds.set(0, W.ALERT, 0)
        leds.set(2, W.CLAIM, 0)
        for t in range(0, 1001, 50):
            leds.tick(t)
    finally:
        if heap_unlock:
            heap_unlock()
    assert np.writes == 1 + 4  # first frame, then the alert flips at 250/500/750/1000
    assert np.buf[0] == (255, 0, 0) and np.buf[6] == (0, 64, 255)
