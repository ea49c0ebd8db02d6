"""House patterns on the emulated Pico (issue 42), into build/bench.json as
its "house" section:

    .venv/bin/python bench house [--only probe,sim] [--wins 60] [--seed 42]

- probe: sim/mjsim/boardemu/probe_house.py on the table's own image (build/mjtable-pico.uf2,
  `make uf2`: the core frozen in flash) and, for comparison, on the unix
  port: the heap sichuan.pattern and a ruleset of five house patterns add
  beside a plain one (target < 4 KB), and fan.score of each of --wins
  random wins under the plain ruleset and under the five patterns, by turns
  in one run (target: at most 1.5 times), in emulated us;
- sim: the bots of `mjtable sim` (mjtable.referee.simcore, its constants
  folded as the board's build folds the firmware's) play hand 1 of a seeded
  match of examples/rules/house/yitiaolong.toml ON the board; its result,
  each win with its patterns, must equal CPython's (`mjtable sim --rules
  examples/rules/house/yitiaolong.toml --hands 1 --seed 30 --json`).

The five patterns are the examples' 一条龙, 夹心五, 海底捞月, 边张 and 门清 (as
a definition) on xuezhan; the plain ruleset is xuezhan. Emulated times are
exact for the emulator's cycle model (docs/board.md). CPU-heavy: run it
niced, alone.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import bench_board
from mjsim.boardemu import EmuBoard, skip_reason
from mjsim.boardemu import board as B
from mjtable.firmware import build as build_firmware

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")
IMAGE = os.path.join(ROOT, "build", "mjtable-pico.uf2")
MP = os.path.join(ROOT, ".venv", "bin", "micropython")
PROBE = os.path.join(bench_board.BOARDEMU, "probe_house.py")
YITIAOLONG = os.path.join(ROOT, "examples", "rules", "house", "yitiaolong.toml")
SIM_SEED = 30  # hand 1 of this match has a 一条龙 win (found by searching CPython's sim)

FIVE = """base = "xuezhan"
name = "five-house"
[pattern.yitiaolong]
fan = 1
straight = true
[pattern.jiaxinwu]
fan = 1
win.rank = 5
win.as = "卡张"
win.only = true
[pattern.haidilaoyue]
fan = 1
win.by = ["自摸", "海底"]
[pattern.bianzhang]
fan = 1
win.as = "边张"
win.only = true
win.waits = 1
[pattern.menqing]
fan = 1
melds.shown = 0
reading = "groups"
"""


def rulesets():
    from mjtable.rules import rulefile
    from sichuan import presets

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "five.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(FIVE)
        return presets.get("xuezhan"), rulefile.load(path)


def random_wins(n, seed):
    """n random wins, as probe_house.py reads them (hex)."""
    from sichuan import fan, meld, shape

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        c = bytearray(27)
        melds = [meld.make(rng.choice((meld.PENG, meld.ZHIGANG, meld.ANGANG)), f)
                 for f in rng.sample(range(18), rng.randrange(3))]
        lim = fan.meld_counts(melds, bytearray(27))
        while sum(c) < 13 - 3 * len(melds):
            f = rng.randrange(18)
            if c[f] + lim[f] < 4:
                c[f] += 1
        ws = shape.waits(c, -1, lim)
        if not ws:
            continue
        w = rng.choice(ws)
        c[w] += 1
        flags = rng.choice((0, fan.ZIMO, fan.ZIMO | fan.HAIDI, fan.HAIDI))
        out.append((bytes(c) + bytes((w, flags & 255, flags >> 8)) + bytes(melds)).hex())
    return out


def probe_source(plain, house, wins):
    with open(PROBE) as f:
        src = f.read()
    return (src.replace('PLAIN = ""', 'PLAIN = "%s"' % plain.to_blob().hex())
            .replace('HOUSE = ""', 'HOUSE = "%s"' % house.to_blob().hex())
            .replace("WINS = []", "WINS = %r" % wins))


def unix_probe(src):
    """The probe on the unix port, the firmware's source (unfolded) on its path."""
    code = "import sys\nsys.path.insert(0, %r)\n" % FIRMWARE + src
    r = subprocess.run([MP, "-X", "heapsize=256K", "-c", code], capture_output=True, text=True,
                       timeout=600)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("PROBE ")]
    if not line:
        raise RuntimeError("unix probe: %s%s" % (r.stdout[-500:], r.stderr[-500:]))
    return json.loads(line[0][6:])


def _board(seed=1):
    b = EmuBoard(seed=seed, uf2=IMAGE)
    b.start()
    b.mjtable("info", "--json", "--timeout", "120", timeout=600)  # the frozen firmware is up
    return b


def board_probe(src):
    b = _board()
    try:
        path = os.path.join(b.workdir, "probe_house_filled.py")
        with open(path, "w") as f:
            f.write(src)
        return bench_board._probe(b, path)
    finally:
        b.stop()


def sim_modules(outdir):
    """simcore and patnames as the board runs them: folded with the firmware
    (the board has no name for the core's constants), compiled for armv6m."""
    from mjtable.referee import simcore

    here = os.path.dirname(os.path.abspath(simcore.__file__))
    extra = {}
    for name in ("simcore.py", "patnames.py"):
        with open(os.path.join(here, name)) as f:
            extra[name] = f.read()
    # their uses of the core's constants become values, as the firmware's do
    folded = build_firmware.board_sources(FIRMWARE, extra)
    out = []
    for name in ("simcore.py", "patnames.py"):
        src = os.path.join(outdir, name)
        with open(src, "w") as f:
            f.write(folded[name])
        mpy = src[:-3] + ".mpy"
        subprocess.run([build_firmware.mpy_cross(), "-march=armv6m", "-o", mpy, src], check=True)
        out.append(mpy)
    return out


SIM_PROBE = """import gc, json, time
from binascii import unhexlify
import machine
machine.mem32[0x40058000] &= ~(1 << 30)
from sichuan import ruleset as R
import simcore
rs = R.from_blob(unhexlify("%s"))
sim = simcore.Sim(rs, %d)
gc.collect()
t = time.ticks_ms()
r = sim.play_hand(False)
ms = time.ticks_diff(time.ticks_ms(), t)
print("PROBE " + json.dumps({"hand": r, "ms": ms, "free": gc.mem_free()}))
"""


def board_sim(seed=SIM_SEED):
    from mjtable.referee import simcore
    from mjtable.rules import rulefile

    rs = rulefile.load(YITIAOLONG)
    want = json.loads(json.dumps(simcore.Sim(rs, seed).play_hand(False)))
    b = _board()
    try:
        b.stop_watchdog()
        for mpy in sim_modules(b.workdir):
            r = subprocess.run([B._mpremote(), "connect", b.port, "fs", "cp", mpy,
                                ":" + os.path.basename(mpy)],
                               capture_output=True, text=True, timeout=600)
            if r.returncode:
                raise RuntimeError("cp %s: %s" % (mpy, r.stderr[-500:]))
        path = os.path.join(b.workdir, "probe_sim.py")
        with open(path, "w") as f:
            f.write(SIM_PROBE % (rs.to_blob().hex(), seed))
        t0 = time.monotonic()
        p = bench_board._probe(b, path)
        wall = time.monotonic() - t0
    finally:
        b.stop()
    house = [[w[0], p2] for w in p["hand"]["wins"] for p2 in w[5] if p2[0] == "yitiaolong"]
    return {"seed": seed, "equal_to_cpython": p["hand"] == want, "board": p["hand"],
            "cpython": want, "emulated_ms": p["ms"], "wall_s": round(wall, 1),
            "free_after": p["free"], "yitiaolong_wins": house}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="probe,sim")
    ap.add_argument("--wins", type=int, default=60)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args(argv)
    why = skip_reason()
    if why or not os.path.isfile(IMAGE):
        sys.exit("bench_house: %s" % (why or "no image: make uf2"))
    plain, house = rulesets()
    out = {"date": time.strftime("%Y-%m-%d %H:%M"), "wins": a.wins, "seed": a.seed,
           "blob_bytes": {"plain": len(plain.to_blob()), "five": len(house.to_blob())}}
    only = a.only.split(",")
    if "probe" in only:
        src = probe_source(plain, house, random_wins(a.wins, a.seed))
        out["unix"] = unix_probe(src)
        out["board"] = board_probe(src)
        bd = out["board"]
        out["board"]["ratio"] = round(bd["house_us"] / bd["plain_us"], 3)
        out["unix"]["ratio"] = round(out["unix"]["house_us"] / out["unix"]["plain_us"], 3)
        print("heap on the board: sichuan.pattern %d B, five patterns' ruleset %d B beyond a"
              " plain one (%d B): %d B in all (target < 4096)"
              % (bd["pattern_module"], bd["house_ruleset"] - bd["plain_ruleset"],
                 bd["plain_ruleset"], bd["pattern_module"] + bd["house_ruleset"]
                 - bd["plain_ruleset"]))
        print("fan.score of %d wins (the least of three), on the board: plain %d us, five %d us:"
              " %.3fx (target <= 1.5); median %d / %d us, worst %d / %d us; %d B allocated a"
              " score" % (bd["wins"], bd["plain_us"], bd["house_us"], bd["ratio"],
                          bd["plain_us_median"], bd["house_us_median"], bd["plain_us_max"],
                          bd["house_us_max"], bd["alloc_per_score"]))
        print("the same on the unix port: %.3fx" % out["unix"]["ratio"])
    if "sim" in only:
        s = board_sim()
        out["sim"] = s
        print("sim hand 1 of yitiaolong.toml, seed %d, on the board: %s CPython's (%d emulated"
              " ms, %.0f s wall); 一条龙 wins: %s" % (s["seed"], "equal to" if s["equal_to_cpython"]
                                                   else "DIFFERS from", s["emulated_ms"],
                                                   s["wall_s"], s["yitiaolong_wins"]))
    path = os.path.join(ROOT, "build", "bench.json")
    try:
        with open(path) as f:
            bench = json.load(f)
    except (OSError, ValueError):
        bench = {}
    bench["house"] = out
    with open(path, "w") as f:
        json.dump(bench, f, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
