"""Figures of the table firmware for `make bench` (the `table` section).

One full 8-hand xuezhan match by bots on the virtual table, the firmware on
the MicroPython unix port from build/firmware-unix (the firmware compiled
for this port's viper code; .mpy in a ROMFS image, run in place:
mjsim.mprun), gives:
- heap: the largest live heap (gc.mem_alloc() after a collection, sampled
  every 32 scan cycles and at the end) in the given -X heapsize, and that of
  the same match with the host link's task running (idle, on a pty no host
  talks to), as on the board, which always serves the link; it includes
  what importing the modules builds (dictionaries, function and class
  objects, interned names), and the board (drivers and, on the unix port,
  the bus stand-ins of mjsim/board.py; the chip simulators run in the virtual
  table's process); both are measured apart and taken off for the estimate
  of the firmware's own data;
- the .mpy size of the firmware (what goes on the board: sichuan, table,
  drivers, boards/pico.py, app.py, main.py) and of the simulation-only modules;
- CPU time per scan cycle (scan of the focus places + reading the table
  into the game), mean and largest, in us on the unix port; the mean
  without the time the firmware waited for the table's answers to SPI reads
  (mjsim/board.py counts them; they stand for the bus time of real
  transfers), which is given apart; the largest includes them;
- from a rack change to the display update: scan cycles from a discard
  leaving a rack to the cycle whose display refresh shows its result,
  times the mean CPU per cycle.
"""

import os
import sys

from mjsim import virtual as V
from mjtable.firmware import build as build_firmware

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BOARD_FW = os.path.join(ROOT, "build", "firmware")  # the armv6m build: the board's .mpy sizes


def _bytes(folder):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)


def mpy_sizes(board_build, unix_build):
    """(bytes of the board's build, bytes of the simulation room's modules in
    the unix port's build: mjsim/, native code where the board's is armv6m)."""
    return _bytes(board_build), _bytes(os.path.join(unix_build, "mjsim"))


def parse_stats(stdout):
    """app.py's STATS line and mjsim/board.py's BUS line, as one dict."""
    out = {}
    for ln in (stdout or "").splitlines():
        if ln.startswith(("STATS ", "BUS ")):
            out.update({k: int(v) for k, v in (x.split("=") for x in ln.split()[1:])})
    return out if "cycles" in out else None


_IMPORTS = """
import gc
gc.collect()
a0 = gc.mem_alloc()
import asyncio
from boards import pico
from mjsim import board as sim
from mjsim import blockdev
from sichuan import game, handlog, presets
from table import controller, enroll, logstore, recordlog, store
import app  # its definitions only (main.py would start it)
gc.collect()
a1 = gc.mem_alloc()


class Hello:
    # the virtual table's hello (mjsim/board.py), then nothing: building the
    # board sends no bus transaction
    def __init__(self):
        self.data = bytes(((867 & 255), 867 >> 8)) + b"H" + bytes((50, 0)) + bytes(864)
        self.pos = 0

    def readinto(self, buf, n):
        buf[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


t = sim.SocketTable(0, sock=Hello())
gc.collect()
a2 = gc.mem_alloc()
print("HEAP", a1 - a0, a2 - a1)
import micropython
micropython.qstr_info()
"""


def import_heap(heap="1M"):
    """(bytes the firmware's modules take in the heap once imported, their
    code in place in ROMFS as the demo runs them; bytes of the board the
    firmware process builds: the drivers on mjsim/board.py's bus stand-ins;
    names interned then; bytes of the pools holding them) on the unix port.

    The interned names (qstrs: every identifier, attribute and short string
    of the code) are part of the modules' bytes: loading .mpy files, even in
    place, interns them in pools on the heap, each pool twice the last (the
    seventh, 1280 names, comes at the 1261st name: 14 KB here). Code frozen
    into the board's firmware keeps its names in flash instead."""
    import shutil
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        rom = os.path.join(tmp, "fw")
        shutil.copytree(V.FW, rom)  # the firmware plus the probe, as one image
        with open(os.path.join(rom, "heapprobe.py"), "w") as f:
            f.write(_IMPORTS)
        cmd = [sys.executable, "-m", "mjsim.mprun", "--heap", heap, "--rom", rom, "heapprobe"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    heap = names = None
    for ln in r.stdout.splitlines():
        if ln.startswith("HEAP "):
            heap = [int(x) for x in ln.split()[1:]]
        elif ln.startswith("qstr pool:"):
            names = {k.strip(): int(v) for k, v in (x.split("=") for x in ln[11:].split(","))}
    if heap is None or names is None:
        raise RuntimeError("import heap: " + r.stderr[-300:])
    return heap[0], heap[1], names["n_qstr"], names["n_total_bytes"]


def link_peak(heap, seed, hands):
    """Live peak of the match with app.py's host link task on a pty (as the
    board runs: its link is always open), or raises RuntimeError. Runs the
    build in V.FW (V.build_fw())."""
    import tty

    vt = V.VirtualTable("xuezhan", seed, hands=hands)
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        os.set_blocking(master, False)
        res = V.run(vt, heap=heap, fw_args=["--link=fd:%d" % master], pass_fds=(master,))
    finally:
        os.close(master)
        os.close(slave)
    st = parse_stats(res["stdout"])
    if V.verdict(res, vt.hands) is not None or st is None:
        raise RuntimeError("table match with the link failed: %r" % (res["stdout"] or "")[-300:])
    return st["live_peak"]


def table_figures(heap=V.HEAP, seed=2026, build=True, hands=None, link=True):
    """dict of the figures (see the module docstring); raises RuntimeError if
    the match did not run through. hands: fewer than the match's 8 (--quick)."""
    if build:
        V.build_fw()
        build_firmware.build(os.path.join(ROOT, "firmware"), BOARD_FW)
    vt = V.VirtualTable("xuezhan", seed, hands=hands)
    res = V.run(vt, heap=heap)
    st = parse_stats(res["stdout"])
    v = V.verdict(res, vt.hands)
    if v is not None or st is None:
        raise RuntimeError("table match failed: %s %r %r %r %r" % (
            v, res["mismatch"], res["stuck"], res["error"], (res["stdout"] or "")[-300:]))
    board, sim = mpy_sizes(BOARD_FW, V.FW)
    cyc = max(1, st["cycles"])
    # the scan's time includes waiting for the simulated chips in the table's
    # process (one round trip per SPI read): taken off, as the bus time of a
    # real SPI transfer would be counted apart
    wait = st.get("spi_wait_us", 0)
    scan_us = st["scan_us"] - wait
    per_cycle = (scan_us + st["step_us"]) / cyc
    lat = res["latency"]
    mean_lat = sum(lat) / len(lat) if lat else 0.0
    code, board_heap, qstrs, qstr_bytes = import_heap()
    return {
        "table_heap_size_bytes": st["heap"],
        "table_heap_live_peak_bytes": st["live_peak"],
        "table_heap_live_peak_with_link_bytes": link_peak(heap, seed, hands) if link else None,
        "table_heap_modules_bytes": code,
        "table_heap_board_bytes": board_heap,
        "table_heap_qstrs": qstrs,
        "table_heap_qstr_pool_bytes": qstr_bytes,
        "table_heap_peak_without_modules_and_board_bytes": st["live_peak"] - code - board_heap,
        "table_heap_target_bytes": 65536,
        "table_mpy_board_bytes": board,
        "table_mpy_sim_bytes": sim,
        "table_scan_cycle_us_mean": round(per_cycle, 1),
        "table_scan_cycle_us_max": st["max_cycle_us"],
        "table_scan_us_mean": round(scan_us / cyc, 1),
        "table_bus_wait_us_mean": round(wait / cyc, 1),
        "table_bus_round_trips_per_cycle": round(st.get("spi_calls", 0) / cyc, 1),
        "table_step_us_mean": round(st["step_us"] / cyc, 1),
        "table_change_to_display_cycles_mean": round(mean_lat, 2),
        "table_change_to_display_us_mean": round(mean_lat * per_cycle, 1),
        "table_match_cycles": st["cycles"],
        "table_match_actions": res["accepted"],
        # bytes allocated per call on the hot paths, over the calls no collection cut
        "table_scan_alloc_bytes_mean": round(st["scan_alloc"] / max(1, st["scans"]), 1),
        "table_refresh_alloc_bytes_mean": round(st["refresh_alloc"] / max(1, st["refreshes"]), 1),
        "table_alloc_calls_counted": [st["scans"], st["refreshes"]],
    }


def section(quick=False):
    """The `table` section of build/bench.json (bench/__main__.py): one match, its
    first hand when quick (the test of the bench's keys; no figure)."""
    f = table_figures(hands=1 if quick else None, link=not quick)
    # the whole firmware, as the board runs it: with the link's task
    peak = f["table_heap_live_peak_with_link_bytes"] or f["table_heap_live_peak_bytes"]
    f["targets"] = {
        "heap_fits_96k": {"value": peak, "target": 96 * 1024, "ok": peak <= 96 * 1024},
        "peak_under_64k": {"value": peak, "target": 65536, "ok": peak <= 65536},
    }
    return f


def table(f):
    def ok(name):
        return "PASS" if f["targets"][name]["ok"] else "FAIL"

    return "\n".join((
        "table firmware on the unix port: one 8-hand match by bots (%d actions, %d scan cycles)"
        % (f["table_match_actions"], f["table_match_cycles"]),
        "",
        "heap (-X heapsize=%d): live peak %s B with the host link's task, as the board runs"
        " (%s fits 96 KB, %s peak under 64 KB); %d B without it (make demo)"
        % (f["table_heap_size_bytes"],
           f["table_heap_live_peak_with_link_bytes"] or "not measured (--quick)",
           ok("heap_fits_96k"), ok("peak_under_64k"), f["table_heap_live_peak_bytes"]),
        "  of the latter, modules (dictionaries, functions, names) %d B, the board (drivers on"
        " the bus stand-ins) %d B, the rest %d B"
        % (f["table_heap_modules_bytes"], f["table_heap_board_bytes"],
           f["table_heap_peak_without_modules_and_board_bytes"]),
        "  (the chip simulators run in the virtual table's CPython process)",
        "  the modules' bytes include %d interned names in pools of %d B (in flash when frozen)"
        % (f["table_heap_qstrs"], f["table_heap_qstr_pool_bytes"]),
        "  (64-bit build; a 32-bit board needs less, over half: docs/decisions.md)",
        ".mpy: board %d B, simulation only %d B" % (f["table_mpy_board_bytes"],
                                                   f["table_mpy_sim_bytes"]),
        "CPU per scan cycle %.0f us mean (scan %.0f + game %.0f), %d us max (with bus waits)"
        % (f["table_scan_cycle_us_mean"], f["table_scan_us_mean"], f["table_step_us_mean"],
           f["table_scan_cycle_us_max"]),
        "  not counted: %.0f us per cycle waiting for the simulated chips (%.0f SPI round trips)"
        % (f["table_bus_wait_us_mean"], f["table_bus_round_trips_per_cycle"]),
        "rack change to display: %.1f cycles, %.0f us CPU"
        % (f["table_change_to_display_cycles_mean"], f["table_change_to_display_us_mean"]),
        "allocated per call: scan cycle %.1f B (%d scans), display refresh %.1f B (%d refreshes;"
        " a refresh that changes a display makes its text)"
        % (f["table_scan_alloc_bytes_mean"], f["table_alloc_calls_counted"][0],
           f["table_refresh_alloc_bytes_mean"], f["table_alloc_calls_counted"][1]),
    ))


if __name__ == "__main__":
    import json

    print(json.dumps(table_figures(*sys.argv[1:2]), indent=1))
