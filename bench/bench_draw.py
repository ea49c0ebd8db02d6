"""The event draw's figures (docs/event.md "The draw"): for events of
players x rounds, drawn round by round with results at random between rounds
(tests/host/test_event_draw.py's event, seeds 1-3), the repeat meetings over
the event, the fewest possible, the winds sat twice in a block, and the
slowest draw in seconds. Not in `make bench` (15 s of CPU):
`.venv/bin/python bench/bench_draw.py [PLAYERSxROUNDS ...]`.
"""

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "host"))  # the draw test's cases

from mjtable.event import seating  # noqa: E402

SIZES = ("8x3", "12x3", "16x4", "16x5", "16x6", "20x4", "20x5", "24x6", "28x8", "32x8", "36x8",
         "40x8", "44x8", "48x8", "52x8", "56x8", "60x8", "64x8", "256x8")


def _timed_draw(times):
    draw = seating.next_round

    def timed(*a):
        t0 = time.perf_counter()
        out = draw(*a)
        times.append(time.perf_counter() - t0)
        return out
    return timed


def main(argv):
    import test_event_draw as T
    print("players x rounds  seed  repeats  fewest  winds twice  slowest draw s")
    for size in argv or SIZES:
        n, rounds = map(int, size.split("x"))
        for seed in (1, 2, 3):
            times = []
            seating.next_round, keep = _timed_draw(times), seating.next_round
            try:
                _, hist = T._event(n, rounds, seed)
            finally:
                seating.next_round = keep
            print("%16s  %4d  %7d  %6d  %11d  %14.2f" % (
                size, seed, seating.extra_meetings(hist), seating.fewest_possible(n, 4, rounds),
                seating.wind_repeats(hist, 4), max(times, default=0)))


if __name__ == "__main__":
    main(sys.argv[1:])
