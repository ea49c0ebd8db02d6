"""Benchmark body shared by both interpreters; prints one JSON object.

Under MicroPython (`make bench` runs it as a subprocess):
    micropython tools/bench_mp.py speed [--quick]
    micropython -X heapsize=190K tools/bench_mp.py heap
tools/bench.py also imports it under CPython, so the timing loop and the
hands are the same code on both interpreters.

Clocks: time.ticks_us/ticks_diff on MicroPython, time.perf_counter on
CPython. Rates are calls per second, best of three timed rounds after one
warm pass; each round runs whole passes over the same hand list.

Heap: MicroPython has no high-water API, so a call is measured with the
collector disabled: gc.mem_alloc() growth then counts every byte the call
allocated (nothing is freed meanwhile), an upper bound on its peak.
"""

import gc
import sys
import time

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
for _p in (_HERE, _HERE + "/../firmware"):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import benchhands  # noqa: E402
import plainrec  # noqa: E402
from sichuan import shape, tiles  # noqa: E402

MICRO = sys.implementation.name == "micropython"
N_WAITS = 300  # hands per list; the same lists on every interpreter
N_WINS = 300
BUDGET_S = 1.5  # seconds per figure (split over three rounds)
QUICK_S = 0.03
# 13 tiles of one suit (清一色) waiting on all nine faces: the heaviest waits + fan.
HEAVY = "1112345678999m"


if MICRO:

    def _now():
        return time.ticks_us()

    def _seconds(t0, t1):
        return time.ticks_diff(t1, t0) / 1e6

else:

    def _now():
        return time.perf_counter()

    def _seconds(t0, t1):
        return t1 - t0


def _timed(call, hands, passes):
    t0 = _now()
    for _ in range(passes):
        for c in hands:
            call(c)
    return _seconds(t0, _now())


def rate(call, hands, budget_s):
    """Calls per second of call(hand) over hands: best of three rounds."""
    first = _timed(call, hands, 1)  # also warms caches and interned names
    passes = int(budget_s / 3 / (first if first > 1e-6 else 1e-6))
    if passes < 1:
        passes = 1
    best = 0.0
    for _ in range(3):
        dt = _timed(call, hands, passes)
        r = passes * len(hands) / (dt if dt > 1e-9 else 1e-9)
        if r > best:
            best = r
    return best


def hands():
    """(wait_hands, win_hands) used by every figure."""
    return benchhands.wait_hands(N_WAITS), benchhands.win_hands(N_WINS)


def hands_meta(w, h):
    return {
        "waits": len(w),
        "wins": len(h),
        "digest_waits": benchhands.digest(w),
        "digest_wins": benchhands.digest(h),
        "seed": benchhands.SEED,
    }


def core_rates(budget_s):
    """Rates of sichuan.shape and plainrec on this interpreter."""
    w, h = hands()
    return {
        "ours": {
            "waits_per_s": rate(shape.waits, w, budget_s),
            "wins_per_s": rate(shape.is_win, h, budget_s),
        },
        "plainrec": {
            "waits_per_s": rate(plainrec.waits, w, budget_s),
            "wins_per_s": rate(plainrec.is_win, h, budget_s),
        },
        "hands": hands_meta(w, h),
    }


def _fan_modules():
    """(fan, presets) modules once the lead's fan scoring exists, else (None, None)."""
    try:
        from sichuan import fan, presets
    except ImportError:
        return None, None
    return fan, presets


def waits_fan_call(fan, rs):
    """One 'waits + fan' call: the waits, then the fan of winning on each wait."""
    out = bytearray(24)
    melds = ()

    def call(c):
        best = -1
        for f in shape.waits(c):
            c[f] += 1
            v = fan.score(rs, c, melds, -1, 0, out)
            c[f] -= 1
            if v > best:
                best = v
        return best

    return call


def heap(preset):
    """Bytes allocated by one warm waits (+ fan) call, worst over the bench hands."""
    gc.collect()
    base = gc.mem_alloc()
    fan, presets = _fan_modules()
    if fan is not None:
        rs = presets.get(preset)
        call = waits_fan_call(fan, rs)
    else:
        call = shape.waits
    gc.collect()
    imported = gc.mem_alloc() - base
    w = benchhands.wait_hands(N_WAITS)  # win hands are not needed here
    heavy = tiles.parse(HEAVY)
    worst = 0
    worst_hand = ""
    for c in [heavy] + w:
        call(c)  # warm: first-call allocations (interning, caches) are not per call
        gc.collect()
        gc.disable()
        a = gc.mem_alloc()
        call(c)
        grown = gc.mem_alloc() - a
        gc.enable()
        if grown > worst:
            worst = grown
            worst_hand = tiles.to_text(c)
    # The waits list alone (the public API returns a fresh list) for reference.
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    shape.waits_mask(heavy)
    mask_bytes = gc.mem_alloc() - a
    gc.enable()
    return {
        "with_fan": fan is not None,
        "preset": preset if fan is not None else None,
        "peak_call_bytes": worst,
        "peak_call_hand": worst_hand,
        "waits_mask_bytes": mask_bytes,
        "modules_bytes": imported,
        "heap_total_bytes": gc.mem_alloc() + gc.mem_free(),
    }


def main(argv):
    import json

    quick = "--quick" in argv
    mode = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "speed"
    if mode == "heap":
        if not MICRO:
            raise SystemExit("heap mode needs MicroPython (gc.mem_alloc)")
        print(json.dumps(heap("xuezhan")))
    elif mode == "speed":
        print(json.dumps(core_rates(QUICK_S if quick else BUDGET_S)))
    else:
        raise SystemExit("usage: bench_mp.py speed|heap [--quick]")


if __name__ == "__main__":
    main(sys.argv)
