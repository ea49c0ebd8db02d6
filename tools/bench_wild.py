"""听用 waits cost against the plain waits call (issue 6, 宜宾), both interpreters.

    micropython tools/bench_wild.py      (or python3)

Uses tools/bench_mp.py's hands, clock and rounds: the 300 waiting hands of
benchhands, each timed with shape.waits_mask (no wild tiles) and with
wild.waits_mask, with the 本金 chosen so that the hand holds 0, 1 or 2
wild copies (a 本金 whose neighbours the hand holds k times). Prints one
JSON object of calls per second and the heap bytes one wild call allocates.
"""

import json
import sys

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
for _p in (_HERE, _HERE + "/../firmware"):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import bench_mp  # noqa: E402
from sichuan import shape, wild  # noqa: E402


def _with_wilds(hands, k):
    """(counts, w1, w2) per hand: a 本金 whose two wild faces the hand holds k
    copies of in all (the nearest k available), or None if no 本金 fits."""
    out = []
    for c in hands:
        pick = None
        for b in range(27):
            w1, w2 = wild.wild_faces(b)
            if c[w1] + c[w2] == k:
                pick = (c, w1, w2)
                break
        if pick is not None:
            out.append(pick)
    return out


def main():
    w, _h = bench_mp.hands()
    res = {"hands": len(w)}
    specs = [("plain", "waits_mask", shape.waits_mask, w)]
    for k in (0, 1, 2):
        items = _with_wilds(w, k)
        res["hands_w%d" % k] = len(items)
        specs.append(("wild%d" % k, "waits_mask",
                      lambda it: wild.waits_mask(it[0], it[1], it[2]), items))
    budget = bench_mp.QUICK_S if "--quick" in sys.argv else bench_mp.BUDGET_S
    r = bench_mp.rates(specs, budget)
    for name in r:
        res[name] = r[name]
    items = _with_wilds(w, 2)
    res["wild_bytes"] = bench_mp._worst(lambda it: wild.waits_mask(it[0], it[1], it[2]),
                                        items)[0] if items and bench_mp.MICRO else 0
    print(json.dumps(res))


main()
