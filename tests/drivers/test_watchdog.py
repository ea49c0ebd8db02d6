# The watchdog feeder (table/watchdog.py), under CPython and MicroPython:
# machine.WDT and machine.Timer stand-ins that count feeds and hold the
# callback, and a clock the test moves.
from table.watchdog import Watchdog


class Wdt:
    def __init__(self):
        self.feeds = 0

    def feed(self):
        self.feeds += 1


class Timer:
    def init(self, period, callback):
        self.period = period
        self.callback = callback

    def fire(self):
        self.callback(self)


def _dog(start=0, grace=None):
    """The feeder on stand-ins; grace None: its default, the 60 s the docs give."""
    now = [start]
    wdt = Wdt()
    tim = Timer()
    clock = lambda: now[0]  # noqa: E731
    dog = Watchdog(wdt, tim, clock) if grace is None else Watchdog(wdt, tim, clock, grace)
    return dog, wdt, tim, now


def test_the_timer_ticks_every_second_and_the_scan_feeds():
    dog, wdt, tim, now = _dog()
    assert tim.period == 1000
    dog.feed()
    assert wdt.feeds == 1


def test_a_long_step_is_fed_until_the_grace_runs_out():
    dog, wdt, tim, now = _dog()
    dog.feed()
    for t in range(1000, 60000, 1000):  # one step of 59 s, the scan task not back
        now[0] = t
        tim.fire()
    assert wdt.feeds == 1 + 59
    now[0] = 60000  # a scan task stuck this long: the board's watchdog resets it
    tim.fire()
    now[0] = 61000
    tim.fire()
    assert wdt.feeds == 60


def test_the_scan_feed_renews_the_grace():
    dog, wdt, tim, now = _dog()
    now[0] = 59000
    dog.feed()
    now[0] = 118000
    tim.fire()
    assert wdt.feeds == 2
    now[0] = 119000
    tim.fire()
    assert wdt.feeds == 2


def test_the_clock_wraps_at_two_to_the_thirty():
    dog, wdt, tim, now = _dog(start=(1 << 30) - 500, grace=2000)
    dog.feed()
    now[0] = 1000  # 1.5 s later, past the wrap
    tim.fire()
    assert wdt.feeds == 2
    now[0] = 1600  # 2.1 s
    tim.fire()
    assert wdt.feeds == 2


def test_a_stuck_scan_task_says_why_once_before_the_reset():
    said = []
    now = [0]
    wdt = Wdt()
    tim = Timer()
    dog = Watchdog(wdt, tim, lambda: now[0], 2000, on_stuck=said.append)
    dog.feed()
    for t in (1000, 2000, 3000, 4000):
        now[0] = t
        tim.fire()
    assert wdt.feeds == 2 and said == [2000]  # told once, at the first tick it starves
