"""听用 waits cost against the plain waits call (issue 6, 宜宾), both interpreters.

    micropython bench/bench_wild.py      (or python3)

Uses bench/bench_mp.py's hands, clock and rounds: the 300 waiting hands of
benchhands, each timed with shape.waits_mask (no wild tiles) and with
wild.waits_mask, with the 本金 chosen so that the hand holds 0 to 4 wild
copies (a 本金 whose neighbours the hand holds k times: fewer hands hold 3
or 4). No void is passed, so every suit is in play (a seated hand has a 缺
suit, which makes the calls cheaper). Prints one JSON object of calls per
second and the heap bytes one wild call allocates (the most of 2 and 4
wilds).

And 查叫 at a 流局 with wilds (`settle.ready_value`, the slowest single step
of the table's game): seat 3 of CHAJIAO_DEALS random 宜宾 deals holding k
wilds (tests/core/gamekit.wild_deal), mean and worst ms per seat, against
the board's watchdog (8 s, and a timer feeding it through one step of up to
60 s) at 130 times the unix port.
"""

import json
import sys

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
for _p in (_HERE, _HERE + "/../firmware", _HERE + "/../tests/core"):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import bench_mp  # noqa: E402
from sichuan import settle, shape, wild  # noqa: E402
from table import watchdog  # noqa: E402

WILDS = (0, 1, 2, 3, 4)  # wild copies held
BOARD_MS = 130e3  # ms per call on the board = BOARD_MS / unix-port calls per s (bench.py)
CHAJIAO_DEALS = 30  # per count of wilds; quick: 3


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


def figures(quick=False):
    """Calls per second on this interpreter, and the bytes one wild call allocates."""
    w, _h = bench_mp.hands()
    res = {"hands": len(w)}
    specs = [("plain", "waits_mask", shape.waits_mask, w)]
    for k in WILDS:
        items = _with_wilds(w, k)
        res["hands_w%d" % k] = len(items)
        specs.append(("wild%d" % k, "waits_mask",
                      lambda it: wild.waits_mask(it[0], it[1], it[2]), items))
    budget = bench_mp.QUICK_S if quick else bench_mp.BUDGET_S
    r = bench_mp.rates(specs, budget)
    for name in r:
        res[name] = r[name]
    res["chajiao"] = chajiao(3 if quick else CHAJIAO_DEALS)
    res["wild_bytes"] = 0
    for k in (2, 4):  # the fast path and the general one
        items = _with_wilds(w, k)
        if items and bench_mp.MICRO:
            b = bench_mp._worst(lambda it: wild.waits_mask(it[0], it[1], it[2]), items)[0]
            res["wild_bytes"] = max(res["wild_bytes"], b)
    return res


def chajiao(n):
    """{k: [mean ms, worst ms]} of settle.ready_value for seat 3 holding k
    wilds, over n deals (the same deals on both interpreters)."""
    from check import lcg
    from gamekit import rules, wild_deal

    rs = rules("yibin")
    nxt = lcg(11)
    out = {}
    for k in (1, 2, 3, 4):
        tot = worst = 0.0
        for _ in range(n):
            g = wild_deal(nxt, rs, k)
            t0 = bench_mp._now()
            settle.ready_value(g, 3)
            ms = bench_mp._seconds(t0, bench_mp._now()) * 1e3
            tot += ms
            worst = ms if ms > worst else worst
        out[str(k)] = [tot / n, worst]
    return out


def section(quick=False):
    """The `wild` section of build/bench.json: both interpreters, side by side."""
    import os
    import subprocess

    mp = os.path.join(os.path.dirname(sys.executable), "micropython")
    cmd = [mp, __file__] + (["--quick"] if quick else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return {"cpython": figures(quick), "micropython": json.loads(out.splitlines()[-1])}


def table(res):
    cols = ["plain"] + ["wild%d" % k for k in WILDS]
    lines = ["宜宾 听用 waits (wild.waits_mask) against the plain waits call, calls per second", "",
             "%-12s" % "" + "".join("%10s" % h for h in
                                    ["plain"] + ["%d wild%s" % (k, "s" if k > 1 else "")
                                                 for k in WILDS])]
    for interp in ("cpython", "micropython"):
        r = res[interp]
        lines.append("%-12s" % interp + "".join("%10.0f" % r[c]["waits_mask_per_s"]
                                                 for c in cols))
    mp = res["micropython"]
    ms = {k: BOARD_MS / mp["wild%d" % k]["waits_mask_per_s"] for k in WILDS}
    lines.append("board projection (unix port x 130), ms per call: " + ", ".join(
        "%d wild%s %.2f" % (k, "s" if k > 1 else "", ms[k]) for k in WILDS[1:])
        + "; allocates %d B" % mp["wild_bytes"])
    ch = mp["chajiao"]
    lines.append("查叫 (settle.ready_value), one seat holding k wilds, unix-port ms mean/worst: "
                 + ", ".join("%s: %.1f/%.1f" % (k, ch[k][0], ch[k][1]) for k in sorted(ch)))
    top = max(ch[k][1] for k in ch) * BOARD_MS / 1e6
    lines.append("board projection of the worst seat: %.1f s, one step (the watchdog: %.0f s,"
                 " fed by a timer for %.0f s of one step, table/watchdog.py)" % (
                     top, watchdog.TIMEOUT_MS / 1e3, watchdog.GRACE_MS / 1e3))
    slow = [k for k in WILDS if ms[k] >= 1.0]
    lines.append("target, under 1 ms per waits call on the board (DESIGN.md): %s" % (
        "FAIL with %s wilds" % ", ".join(map(str, slow)) if slow else "PASS for 0 to 4 wilds"))
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(figures("--quick" in sys.argv)))
