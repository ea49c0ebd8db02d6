"""Figures of the game engine and the simulator (issue 3), for `make bench`.

    from bench_engine import section, table    # bench/__main__.py
    res["engine"] = section(quick)              # a dict of figures
    print(table(res["engine"]))

Measured, the same seed and hands on both interpreters:
- simulator hands per second (mjtable.simcore: bots + engine) on CPython and on
  the MicroPython unix port, side by side;
- the engine's heap for one 4-seat hand under `micropython -X heapsize=HEAPSIZE`:
  the Game's state (live bytes after gc.collect at the start and the end of the
  hand), what replaying the hand's actions allocates with gc disabled (total
  and the worst single action), and their sum as the peak;
- hand-log bytes per action over the simulated hands (all records: deals,
  payments and header included; and per draw/discard/claim action alone);
- the CPU time of adjudicating one discard on MicroPython: `Game.apply` of a
  DISCARD (the three claim masks, the prompts and the events), and the three
  `claims.discard_mask` calls alone; median and worst over the hands' discards.

Run under MicroPython this file is its own probe (one JSON request on stdin,
one JSON line out):  micropython bench/bench_engine.py FIRMWARE SIMDIR
"""

import sys

MICRO = sys.implementation.name == "micropython"
PRESET = "xuezhan"
SEED = 2024
HANDS = 200          # simulator hands timed per interpreter
QUICK_HANDS = 8
PROBE_HANDS = 12     # hands replayed for heap and discard timing
HEAPSIZE = "190K"    # as bench/__main__.py: about what the board leaves
TARGETS = {
    "state_bytes": (8 * 1024, "max"),
    "log_bytes_per_action": (8.0, "max"),
}

if MICRO:
    import time

    def _now():
        return time.ticks_us()

    def _us(t0, t1):
        return time.ticks_diff(t1, t0)

else:
    import time

    def _now():
        return time.perf_counter()

    def _us(t0, t1):
        return (t1 - t0) * 1e6


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else 0


# --- probes that run on either interpreter -------------------------------------


def sim_rate(simcore, rs, hands, seed):
    """(hands per second, total actions) of the simulator playing `hands` hands."""
    sim = simcore.Sim(rs, seed)
    t0 = _now()
    for _ in range(hands):
        sim.play_hand(False)
    us = _us(t0, _now())
    return hands * 1e6 / us, sim.actions


def heap_probe(rs, logs):
    """Heap of the engine replaying logged hands (meaningful on MicroPython)."""
    import gc

    from sichuan import game as G
    from sichuan import handlog

    worst = {"state_start": 0, "state_end": 0, "alloc_hand": 0, "alloc_action": 0}
    for buf in logs:
        head, recs = handlog.decode(buf)
        acts = [r[1] for r in recs if r[0] == handlog.REC_ACTION]
        gc.collect()
        base = gc.mem_alloc()
        g = G.Game(rs, head[2], head[3])
        gc.collect()
        start = gc.mem_alloc() - base
        gc.disable()
        a0 = gc.mem_alloc()
        one = 0
        for a in acts:
            b = gc.mem_alloc()
            ev = g.apply(a)
            x = gc.mem_alloc() - b
            if x > one:
                one = x
            ev = None  # noqa: F841  (dropped before the next action, as the table does)
        total = gc.mem_alloc() - a0
        gc.enable()
        gc.collect()
        end = gc.mem_alloc() - base
        for k, v in (("state_start", start), ("state_end", end), ("alloc_hand", total),
                     ("alloc_action", one)):
            if v > worst[k]:
                worst[k] = v
        g = None
    return worst


def discard_probe(rs, logs):
    """Microseconds of adjudicating a discard: apply() and the claim masks alone."""
    import gc

    from sichuan import claims, handlog
    from sichuan import game as G

    apply_us = []
    mask_us = []
    for buf in logs:
        head, recs = handlog.decode(buf)
        g = G.Game(rs, head[2], head[3])
        for r in recs:
            if r[0] != handlog.REC_ACTION:
                continue
            a = r[1]
            if a[0] == G.DISCARD:
                s = a[1]
                f = a[2]
                gc.collect()
                t0 = _now()
                for k in range(1, g.np):
                    claims.discard_mask(g, (s + k) % g.np, f)
                mask_us.append(_us(t0, _now()))
                gc.collect()
                t0 = _now()
                g.apply(a)
                apply_us.append(_us(t0, _now()))
            else:
                g.apply(a)
    return {"discards": len(apply_us), "apply_us_median": _median(apply_us),
            "apply_us_max": max(apply_us) if apply_us else 0,
            "masks_us_median": _median(mask_us), "masks_us_max": max(mask_us) if mask_us else 0}


def mp_main():
    """MicroPython side: one JSON request on stdin, one JSON answer on stdout."""
    import json
    from binascii import unhexlify

    req = json.loads(sys.stdin.readline())
    from sichuan import ruleset

    rs = ruleset.from_blob(unhexlify(req["rules"]))
    out = {}
    if req.get("hands"):
        import simcore

        rate, actions = sim_rate(simcore, rs, req["hands"], req["seed"])
        out["hands_per_s"] = rate
        out["actions"] = actions
    hexes = req.pop("logs", ())
    req = None
    logs = []
    while hexes:  # free each hex string as it is converted: the heap is board-sized
        logs.append(unhexlify(hexes.pop()))
    hexes = None
    import gc

    gc.collect()
    if logs:
        out["heap"] = heap_probe(rs, logs)
        out["discard"] = discard_probe(rs, logs)
    print(json.dumps(out))


# --- CPython side ----------------------------------------------------------------


def _paths():
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (root, os.path.join(root, "firmware"), os.path.join(root, "host", "mjtable", "referee"),
            os.path.join(root, ".venv", "bin", "micropython"))


class _mpy_core:
    """A temporary directory holding sichuan/ compiled by mpy-cross: the board
    imports bytecode, and compiling the sources would not fit HEAPSIZE."""

    def __enter__(self):
        import glob
        import os
        import subprocess
        import tempfile

        root, fw, _simdir, mp = _paths()
        self.tmp = tempfile.TemporaryDirectory()
        out = os.path.join(self.tmp.name, "sichuan")
        os.makedirs(out)
        from mjtable.firmware import build as build_firmware

        arch = "-march=" + build_firmware.native_arch(mp)  # viper code is native code
        for src in glob.glob(os.path.join(fw, "sichuan", "*.py")):
            name = os.path.basename(src)[:-3]
            subprocess.run([build_firmware.mpy_cross(), arch, "-o",
                            os.path.join(out, name + ".mpy"), src], check=True, cwd=fw)
        return self.tmp.name

    def __exit__(self, *exc):
        self.tmp.cleanup()


def _micropython(req, heapsize=None, fw=None):
    import json
    import os
    import subprocess

    root, fw_src, simdir, mp = _paths()
    if not os.access(mp, os.X_OK):
        raise RuntimeError("no micropython at %s" % mp)
    cmd = [mp] + (["-X", "heapsize=" + heapsize] if heapsize else []) + [
        os.path.abspath(__file__), fw or fw_src, simdir]
    p = subprocess.run(cmd, input=json.dumps(req).encode(), capture_output=True, check=False)
    if p.returncode != 0:
        raise RuntimeError("micropython probe failed: %s" % (p.stdout + p.stderr).decode()[-400:])
    return json.loads(p.stdout.decode().splitlines()[-1])


def _logs(simcore, rs, hands, seed):
    """Hand logs of `hands` simulated hands, and their byte figures."""
    from sichuan import game as G
    from sichuan import handlog

    sim = simcore.Sim(rs, seed)
    logs = []
    total = 0
    acts = 0
    small_bytes = 0
    small = 0
    for _ in range(hands):
        buf = sim.play_hand(True)["log"]
        logs.append(buf)
        total += len(buf) - handlog.HEADER_LEN
        head, recs = handlog.decode(buf)
        for r, n in zip(recs, _record_sizes(buf), strict=True):
            if r[0] == handlog.REC_ACTION:
                acts += 1
                if r[1][0] not in (G.DEAL, G.EXCHANGE):
                    small += 1
                    small_bytes += n
    return logs, {"hands": hands, "actions": acts, "bytes": total + hands * handlog.HEADER_LEN,
                  "bytes_per_action": round(total / acts, 2),
                  "bytes_per_play_action": round(small_bytes / small, 2)}


def _record_sizes(buf):
    """Byte length of each record of a log, walked by the format in sichuan.handlog
    (decode gives no offsets)."""
    from sichuan import game as G
    from sichuan import handlog

    def skip_varint(i):
        while buf[i] & 0x80:
            i += 1
        return i + 1

    sizes = []
    i = handlog.HEADER_LEN
    while i < len(buf):
        st = i
        kind = buf[i] >> 3
        i += 1
        if kind == handlog.K_PAY:
            i = skip_varint(i + 1)
        else:
            if kind in (G.DEAL, G.EXCHANGE):
                i += 1 + buf[i]
            elif kind in (G.DINGQUE, G.DRAW, G.DISCARD, G.BUGANG, G.ANGANG, G.HU):
                i += 1
            i = skip_varint(i)
        sizes.append(i - st)
    return sizes


def section(quick=False):
    """The `engine` section of build/bench.json."""
    from mjtable.referee import simcore
    from sichuan import presets


    rs = presets.get(PRESET)
    hands = QUICK_HANDS if quick else HANDS
    cp_rate, cp_actions = sim_rate(simcore, rs, hands, SEED)
    logs, logfig = _logs(simcore, rs, 3 if quick else PROBE_HANDS, SEED)
    # the simulator (bots compiled from source) in the default heap; the engine's
    # heap and discard probes in the board-sized heap
    blob = rs.to_blob().hex()
    mp = _micropython({"rules": blob, "hands": hands, "seed": SEED})
    with _mpy_core() as mpydir:
        mp.update(_micropython({"rules": blob, "logs": [b.hex() for b in logs]}, HEAPSIZE,
                               mpydir))
    if mp.get("actions") != cp_actions:
        raise RuntimeError("the simulator differs between interpreters (%r vs %r actions)"
                           % (cp_actions, mp.get("actions")))
    heap = mp["heap"]
    heap["peak"] = max(heap["state_start"], heap["state_end"]) + heap["alloc_action"]
    heap["heapsize"] = HEAPSIZE
    state = max(heap["state_start"], heap["state_end"])
    values = {"state_bytes": state, "log_bytes_per_action": logfig["bytes_per_action"]}
    targets = {}
    for name, (limit, kind) in TARGETS.items():
        v = values[name]
        targets[name] = {"value": v, "limit": limit, "kind": kind,
                         "pass": v <= limit if kind == "max" else v >= limit}
    return {
        "preset": PRESET, "seed": SEED,
        "simulator": {"hands": hands, "actions": cp_actions,
                      "hands_per_s": {"cpython": round(cp_rate, 1),
                                      "micropython": round(mp["hands_per_s"], 1)}},
        "heap": heap,
        "log": logfig,
        "discard_us_micropython": mp["discard"],
        "targets": targets,
    }


def table(e):
    """The section as text lines for bench/__main__.py."""
    s, h, lg, d = e["simulator"], e["heap"], e["log"], e["discard_us_micropython"]
    lines = [
        "game engine and simulator (preset %s, seed %d)" % (e["preset"], e["seed"]),
        "",
        "simulator, %d hands (%d actions): %.1f hands/s CPython, %.1f hands/s MicroPython"
        % (s["hands"], s["actions"], s["hands_per_s"]["cpython"], s["hands_per_s"]["micropython"]),
        "engine heap, one 4-seat hand (micropython -X heapsize=%s), worst of the hands:"
        % h["heapsize"],
        "  state %d B at the start, %d B at the end; a hand allocates %d B (gc off), "
        "worst action %d B; peak %d B"
        % (h["state_start"], h["state_end"], h["alloc_hand"], h["alloc_action"], h["peak"]),
        "hand log: %.2f B per action (all records), %.2f B per draw/discard/claim"
        % (lg["bytes_per_action"], lg["bytes_per_play_action"]),
        "one discard adjudicated on MicroPython (unix port), %d discards:" % d["discards"],
        "  Game.apply %d us median, %d us worst; three claim masks %d us median, %d us worst"
        % (d["apply_us_median"], d["apply_us_max"], d["masks_us_median"], d["masks_us_max"]),
        "targets (reported, never fail the build):",
    ]
    for name, t in e["targets"].items():
        lines.append("  %-4s %-32s %10s <= %s" % ("PASS" if t["pass"] else "FAIL", name,
                                                  t["value"], t["limit"]))
    return "\n".join(lines)


if __name__ == "__main__":
    if MICRO:
        sys.path.insert(0, sys.argv[2])  # simcore
        sys.path.insert(0, sys.argv[1])  # sichuan
        mp_main()
    else:
        import json

        quick = "--quick" in sys.argv
        res = section(quick)
        print(table(res))
        print(json.dumps(res, indent=1, sort_keys=True))
