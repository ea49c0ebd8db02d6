"""The three ways the firmware runs on a Pico, side by side on the emulated
board (boardemu), into build/bench.json as its "image" section:

    .venv/bin/python bench image [--actions N] [--only stock,romfs,image]

- stock: MicroPython's stock RPI_PICO image, the firmware deployed as files
  (`mjtable deploy --files`: its bytecode loads into the heap);
- romfs: the stock build with a ROMFS partition (`mjtable deploy`: the code
  runs in place from flash);
- image: the table's own image (build/mjtable-pico.uf2, `make uf2`), the
  firmware frozen in.

Per image: boot to the first scan (emulated ms, from the chip's start to the
first PN5180 inventory request); the heap after the boot (INFO heap=: free
with the controller and the link made, the firmware running); the live peak
of the bots' first N accepted actions (INFO heap=: the largest live heap the
scan task saw, sampled every 32 cycles) and the heap left free at it; the
firmware's code (sim/mjsim/boardemu/probe.py after a soft reset: free with nothing
imported minus free with the firmware's modules imported). The table has
its tile map and no key for the boot and the probe (which needs the REPL),
then its key for the play (the hands sealed as on a real table).
Targets: the image's code under 24 KB, at least 150 KB free at the live
peak (issue 22); ROMFS's code under 40 KB, stock's 64 KB free at the peak
(issue 20).
With --actions 0 the live peak is the whole match's, from the board match
test's run of the image (build/board-match-NAME.json, `make test-long`).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import bench_board
from mjsim.boardemu import HEAP_TARGETS as TARGETS
from mjsim.boardemu import EmuBoard, images, skip_reason
from mjsim.boardemu import board as B

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGE = os.path.join(ROOT, "build", "mjtable-pico.uf2")
MS = 1e6


def info(b):
    r = b.mjtable("info", "--json", "--timeout", "60", timeout=300)
    return json.loads(r.stdout)


def heap(d):
    free, peak, size = (int(x) for x in d["heap"].split(","))
    return {"free": free, "live_peak": peak, "size": size, "free_at_peak": size - peak}


def put_map(b):
    """The tile map on flash (table.store format), no key: an open table."""
    import sichuan  # noqa: F401  (the const shim)
    from table import store

    local = os.path.join(b.workdir, "put-enroll.bin")
    store.write(local, B.enrollment_blob(b.seed))
    r = subprocess.run([B._mpremote(), "connect", b.port, "fs", "cp", local, ":enroll.bin"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise RuntimeError("map: %s" % r.stderr[-500:])
    b.key = None


def first_scan_ms(b):
    for _ in range(1200):
        if b.chips.first_scan is not None and b.chips.boots:
            return (b.chips.first_scan - b.chips.boots[-1][0]) / MS
        time.sleep(0.5)
    return None


def run(name, actions, seed=1):
    uf2 = {"stock": images()["stock"], "romfs": images()["romfs"], "image": IMAGE}[name]
    b = EmuBoard(seed=seed, uf2=uf2)
    res = {"image": os.path.basename(uf2)}
    with b:
        if name == "image":
            info(b)  # the frozen firmware is up: Ctrl-C works from here
        put_map(b)
        t0 = time.monotonic()
        if name == "image":
            b.reset()
        else:  # deploy's own version check gives a board 20 s: a loaded machine's takes more
            r = b.mjtable("deploy", *(["--files"] if name == "stock" else []), check=False,
                          timeout=900)
            if r.returncode and "did not answer on the link" not in r.stderr:
                raise RuntimeError("deploy: %s%s" % (r.stdout[-500:], r.stderr[-500:]))
        res["deploy_wall_s"] = round(time.monotonic() - t0, 1)
        res["boot_to_first_scan_ms"] = first_scan_ms(b)
        res["after_boot"] = heap(info(b))
        p = bench_board._probe(b, os.path.join(bench_board.BOARDEMU, "probe.py"))
        res["code_bytes"] = p["free_asyncio"] - p["free_code"]  # asyncio apart, as bench_board
        res["probe"] = {k: p[k] for k in ("free_empty", "free_asyncio", "free_code",
                                          "free_booted")}
        if actions:
            b.provision_files()  # the key now: the bots' hands are sealed, as on a real table
            b.reset()  # the probe left the REPL (no firmware running, no key at that boot)
            res["play"], _vt, _w = bench_board.play_figures(b, seed, actions, 8)
            res["play"] = {k: res["play"][k] for k in ("done", "accepted", "wall_s",
                                                       "emulated_s")}
            res["match_peak"] = heap(info(b))  # live_peak 0: not sampled yet (32 cycles)
    if not actions:
        res["match_peak"] = match_figures(name)
    return res


def match_figures(name):
    """The heap at the live peak of a whole match with the link open, from the
    board match test's run of this image (build/board-match-NAME.json, `make
    test-long`), or None: a match takes an hour of wall time, not rerun here."""
    try:
        with open(os.path.join(ROOT, "build", "board-match-%s.json" % name)) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return {"live_peak": d["live_peak"], "free_at_peak": d["free_at_peak"],
            "size": d["heap_total"], "actions": d["actions"]}


def table(rs, actions):
    lines = ["firmware on the emulated Pico, side by side (live peak: %s):"
             % ("over %d actions" % actions if actions else "a whole match's, from its test"),
             "  %-6s %9s %9s %11s %13s %12s" % ("", "boot->scan", "code", "free booted",
                                                  "live peak", "free at peak")]
    for name, r in rs.items():
        a, m = r["after_boot"], r.get("match_peak") or {}
        lines.append("  %-6s %7.0f ms %7d B %9d B %11s B %10s B"
                     % (name, r["boot_to_first_scan_ms"] or -1, r["code_bytes"], a["free"],
                        m.get("live_peak", "-"), m.get("free_at_peak", "-")))
    for name, r in rs.items():
        code, free = TARGETS[name]
        if code:
            lines.append("  %s: code %s the %d B target" % (
                name, "under" if r["code_bytes"] < code else "OVER", code))
        if free and (r.get("match_peak") or {}).get("live_peak"):  # 0: never sampled
            lines.append("  %s: %s %d B free at the live peak" % (
                name, "at least" if r["match_peak"]["free_at_peak"] >= free else "NOT", free))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--actions", type=int, default=0,
                    help="accepted actions of a match to play for the live peak (0: none)")
    ap.add_argument("--only", default="stock,romfs,image")
    a = ap.parse_args(argv)
    why = skip_reason()
    if why:
        sys.exit(why)
    names = a.only.split(",")
    if "image" in names and not os.path.isfile(IMAGE):
        sys.exit("no %s: make uf2" % IMAGE)
    rs = {n: run(n, a.actions) for n in names}
    path = os.path.join(ROOT, "build", "bench.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        doc = {}
    doc["image"] = {"actions": a.actions, "runs": rs,
                    "targets": {n: {"code_bytes": c, "free_at_peak": f}
                                for n, (c, f) in TARGETS.items()}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    print(table(rs, a.actions))


if __name__ == "__main__":
    main()
