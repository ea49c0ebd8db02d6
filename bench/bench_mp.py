"""Benchmark body shared by both interpreters; prints one JSON object.

Under MicroPython (`make bench` runs it as a subprocess):
    micropython bench/bench_mp.py speed [--quick]
    micropython -X heapsize=190K bench/bench_mp.py heap
bench/__main__.py also imports it under CPython, so the timing loop and the
hands are the same code on both interpreters.

Clocks: time.ticks_us/ticks_diff on MicroPython, time.perf_counter on
CPython. Rates are calls per second, best of ROUNDS timed rounds after one
warm pass; each round runs whole passes over the same hand list, and rounds
of the implementations alternate (see rates).

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
BUDGET_S = 1.5  # seconds per figure (split over ROUNDS rounds)
QUICK_S = 0.03
PRESET = "xuezhan"  # ruleset of the fan calls (seed 002, 血战到底)
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


ROUNDS = 5


def rates(specs, budget_s):
    """Best calls/s of each (impl, kind, call, hands) spec, rounds interleaved.

    One warm pass sizes each spec's round to budget_s / ROUNDS; then every
    round times all specs one after another, so a burst of load from other
    processes hits the implementations alike, and the best round counts.
    Returns {impl: {kind + "_per_s": rate}}.
    """
    passes = []
    for _impl, _kind, call, hand_list in specs:
        first = _timed(call, hand_list, 1)  # also warms caches and interned names
        n = int(budget_s / ROUNDS / (first if first > 1e-6 else 1e-6))
        passes.append(n if n > 0 else 1)
    best = [0.0] * len(specs)
    for _ in range(ROUNDS):
        for i, (_impl, _kind, call, hand_list) in enumerate(specs):
            dt = _timed(call, hand_list, passes[i])
            r = passes[i] * len(hand_list) / (dt if dt > 1e-9 else 1e-9)
            if r > best[i]:
                best[i] = r
    out = {}
    for i, (impl, kind, _call, _hands) in enumerate(specs):
        if impl not in out:
            out[impl] = {}
        out[impl][kind + "_per_s"] = best[i]
    return out


def rate(call, hands, budget_s):
    """Best calls/s of call(hand) over hands alone (see rates)."""
    return rates([("x", "x", call, hands)], budget_s)["x"]["x_per_s"]


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


def core_specs(w, h):
    """Specs (see rates) of sichuan.shape and plainrec on wait and win hands."""
    return [
        ("ours", "waits", shape.waits, w),
        ("plainrec", "waits", plainrec.waits, w),
        ("ours", "wins", shape.is_win, h),
        ("plainrec", "wins", plainrec.is_win, h),
    ]


def fan_specs(w):
    """The waits + fan call (see waits_fan_call) once sichuan.fan exists."""
    fan, presets = _fan_modules()
    if fan is None:
        return []
    return [("ours", "waits_fan", waits_fan_call(fan, presets.get(PRESET)), fan_items(w))]


def core_rates(budget_s, extra=None):
    """Rates of sichuan.shape and plainrec (plus `extra` specs) on this interpreter."""
    w, h = hands()
    specs = core_specs(w, h) + fan_specs(w) + (extra(w, h) if extra else [])
    r = rates(specs, budget_s)
    r["hands"] = hands_meta(w, h)
    return r


def _fan_modules():
    """(fan, presets) modules once the lead's fan scoring exists, else (None, None)."""
    try:
        from sichuan import fan, presets
    except ImportError:
        return None, None
    return fan, presets


def fan_items(hand_list):
    """(counts, melds, limit) per hand: its shown 碰 and the copies they hold."""
    from sichuan import meld

    items = []
    for c in hand_list:
        limit = bytearray(27)
        melds = []
        for f in benchhands.meld_faces(c):
            melds.append(meld.make(meld.PENG, f))
            limit[f] = 3
        items.append((c, tuple(melds), limit))
    return items


def waits_fan_call(fan, rs):
    """One 'waits + fan' call on an item: waits, then the fan of winning on each."""
    out = bytearray(24)

    def call(item):
        c, melds, limit = item
        best = -1
        for f in shape.waits(c, -1, limit):
            c[f] += 1
            v = fan.score(rs, c, melds, -1, 0, out)
            c[f] -= 1
            if v > best:
                best = v
        return best

    return call


def _grown(call, x):
    """Bytes one warm call(x) allocates (collector off, so nothing is freed)."""
    call(x)  # warm: first-call allocations (interning, caches) are not per call
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    call(x)
    grown = gc.mem_alloc() - a
    gc.enable()
    return grown


def _worst(call, items):
    """(bytes, hand text) of the item whose call allocates most."""
    worst = 0
    worst_hand = ""
    for x in items:
        grown = _grown(call, x)
        if grown > worst:
            worst = grown
            worst_hand = tiles.to_text(x[0] if isinstance(x, tuple) else x)
    return worst, worst_hand


def heap(preset):
    """Bytes allocated by one warm call, worst over the bench hands (+ HEAVY)."""
    fan, presets = _fan_modules()
    hand_list = [tiles.parse(HEAVY)] + benchhands.wait_hands(N_WAITS)  # no win hands needed
    waits_b, waits_hand = _worst(shape.waits, hand_list)
    res = {
        "with_fan": fan is not None,
        "preset": None,
        "waits_bytes": waits_b,
        "waits_hand": waits_hand,
        "waits_mask_bytes": _worst(shape.waits_mask, hand_list)[0],
    }
    if fan is not None:
        rs = presets.get(preset)
        res["preset"] = preset
        items = fan_items(hand_list)
        peak, hand = _worst(waits_fan_call(fan, rs), items)
        sys.path.append(_HERE + "/../host/mjtable/referee")  # the referee's calc, as calckit
        import calc

        res["best_wait_bytes"] = _worst(lambda x: calc.best_wait(rs, x[0], x[1]), items)[0]
    else:
        peak, hand = waits_b, waits_hand
    res["peak_call_bytes"] = peak  # the target: waits + fan (waits alone before fan existed)
    res["peak_call_hand"] = hand
    gc.collect()
    res["heap_total_bytes"] = gc.mem_alloc() + gc.mem_free()
    return res


def main(argv):
    import json

    quick = "--quick" in argv
    mode = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "speed"
    if mode == "heap":
        if not MICRO:
            raise SystemExit("heap mode needs MicroPython (gc.mem_alloc)")
        print(json.dumps(heap(PRESET)))
    elif mode == "speed":
        print(json.dumps(core_rates(QUICK_S if quick else BUDGET_S)))
    else:
        raise SystemExit("usage: bench_mp.py speed|heap [--quick]")


if __name__ == "__main__":
    main(sys.argv)
