# Runs ON the emulated Pico (mpremote exec, the table's image: the core frozen
# in), or on the unix port for comparison: what house patterns cost the table
# (bench/bench_house.py fills in PLAIN, HOUSE and WINS). The heap: a ruleset
# without house patterns loaded and scored with, then sichuan.pattern imported,
# then the same ruleset with five patterns loaded and scored with; all held to
# the end, so each step's cost is the heap it added. The time: fan.score of
# each win, under the two rulesets by turns (one after the other for each
# win, three times over, the least of each kept), the emulated us. One JSON line.
import gc
import json
import sys
import time
from binascii import unhexlify

if sys.platform == "rp2":  # not the unix port, which has a machine module too
    import machine

    machine.mem32[0x40058000] &= ~(1 << 30)  # the firmware's watchdog (probe.py)
from sichuan import fan
from sichuan import ruleset as R

PLAIN = ""  # hex of the ruleset blob without house patterns
HOUSE = ""  # the same with five
WINS = []  # hex: 27 counts (the winning tile in them), the tile, flags (2, LE), melds


def wins():
    out = []
    for h in WINS:
        b = unhexlify(h)
        out.append((bytearray(b[:27]), b[27], b[28] | b[29] << 8, bytes(b[30:])))
    return out


def scored(blob):
    """The ruleset of a blob, after scoring every win under it once."""
    rs = R.from_blob(unhexlify(blob))
    for c, w, fl, ms in ws:
        fan.score(rs, c, ms, -1, fl, sc, w)
    gc.collect()
    return rs


ws = wins()
sc = bytearray(38)  # fan.NOUT: the board keeps no name for a folded constant
gc.collect()
f0 = gc.mem_free()
plain = scored(PLAIN)
f1 = gc.mem_free()
from sichuan import pattern  # noqa: E402,F401  (what the first house ruleset imports)

gc.collect()
f2 = gc.mem_free()
house = scored(HOUSE)
f3 = gc.mem_free()
res = {"plain_ruleset": f0 - f1, "pattern_module": f1 - f2, "house_ruleset": f2 - f3,
       "house_n": house.house_n}


def once(rs, c, w, fl, ms):
    a = time.ticks_us()
    v = fan.score(rs, c, ms, -1, fl, sc, w)
    return time.ticks_diff(time.ticks_us(), a), v


# each win under one ruleset, then the other, three times; the least of each
# (the unix port shares its machine: a preempted call is not the code's time)
tp = []
th = []
hits = 0
for c, w, fl, ms in ws:
    bp = bh = 1 << 29
    for _ in range(3):
        x, vp = once(plain, c, w, fl, ms)
        y, vh = once(house, c, w, fl, ms)
        bp = min(bp, x)
        bh = min(bh, y)
    tp.append(bp)
    th.append(bh)
    hits += vh != vp
res["wins"] = len(ws)
res["wins_house_differs"] = hits
res["plain_us"] = sum(tp)
res["house_us"] = sum(th)
tp.sort()
th.sort()
res["plain_us_median"] = tp[len(tp) // 2]
res["house_us_median"] = th[len(th) // 2]
res["plain_us_max"] = tp[-1]
res["house_us_max"] = th[-1]
gc.collect()
a = gc.mem_alloc()
for c, w, fl, ms in ws:
    fan.score(house, c, ms, -1, fl, sc, w)
res["alloc_per_score"] = (gc.mem_alloc() - a) // len(ws)
print("PROBE " + json.dumps(res))
