"""The watchdog feeder's premise, on the MicroPython unix port: a soft
callback (how the rp2 port runs a machine.Timer's, through the scheduler)
runs between bytecodes of one long step of the game, so table/watchdog.py's
timer feeds the board's watchdog during a 查叫 that takes seconds there.

The unix port has no machine.Timer: a thread stands in for the timer's
interrupt and schedules the callback with micropython.schedule, as the rp2
port's timer interrupt does."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")

_SCRIPT = r"""
import sys
sys.path.insert(0, "firmware")
sys.path.insert(0, "sim")
sys.path.insert(0, "tests/core")
import _thread, time, micropython
from check import lcg
from gamekit import rules, wild_deal
from sichuan import settle
from table.watchdog import Watchdog

class Wdt:
    at = [0] * 1000  # ticks_ms of each feed (no allocation in a callback)
    n = 0
    def feed(self):
        Wdt.at[Wdt.n] = time.ticks_ms()
        Wdt.n += 1

class Timer:
    def init(self, period, callback):
        def irq():
            while not done:
                time.sleep_ms(period)
                micropython.schedule(callback, self)
        _thread.start_new_thread(irq, ())

done = False
g = wild_deal(lcg(3), rules("yibin"), 6)  # seat 3 holds six wilds: one long step
dog = Watchdog(Wdt(), Timer(), time.ticks_ms, 60000, 5)
dog.feed()
t0 = time.ticks_ms()
v = settle.ready_value(g, 3)  # no scan feed until it returns
ms = time.ticks_diff(time.ticks_ms(), t0)
done = True
# Feeds in the first half of the step: callbacks queued until the call
# returned would all be stamped after it.
first = [t for t in Wdt.at[1:Wdt.n] if time.ticks_diff(t, t0) < ms // 2]
print(v[0], ms, len(first))
"""


def test_a_soft_timer_callback_feeds_inside_one_long_chajiao():
    p = subprocess.run([MICROPYTHON, "-c", _SCRIPT], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    value, ms, feeds = map(int, p.stdout.split())
    assert value >= 0 and ms >= 20, (value, ms)  # a ready seat, a step worth timing
    # a tick every 5 ms: in the step's first half, at least one per 20 ms
    assert feeds >= max(1, ms // 40), (ms, feeds)
