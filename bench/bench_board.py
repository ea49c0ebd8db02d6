"""Figures of the firmware on the emulated Pico (boardemu, docs/board.md),
merged into build/bench.json as its "board" section:

    .venv/bin/python bench board [--actions N] [--image stock|romfs]

- deploy (wall s), boot to the first scan and to the link answering (emulated ms);
- heap (sim/mjsim/boardemu/probe.py, what app.main_board builds before it runs): free
  with nothing loaded, with the firmware's code imported, after the boot with
  the host link made; target >= 64 KB free at the peak (stock), code < 40 KB (ROMFS);
- the scan: each seat's rack (14 tags) and tray (8), four racks at once
  (inventory_all), the controller's scan cycle, against the air time alone
  (sim/mjsim/scantime.py over the same UIDs);
- the engine (sim/mjsim/boardemu/probe_engine.py over simulated hands): a discard
  adjudicated for three seats (target < 5 ms), the worst single action and
  the watchdog's 8 s;
- the bots playing (N accepted actions; --actions 0: the whole 8-hand match):
  each move to its acceptance seen on the link and to the first display
  write after it that changed a display (emulated ms, BoardPlay.latencies();
  a laid tile to the display showing it: target < 350 ms median; a draw
  changes no display), `logs pull` throughput.
Emulated times are exact for the emulator's cycle model (approximate: no XIP
cache misses, no bus contention; docs/board.md).
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time

from mjsim import scantime as scan_time
from mjsim.boardemu import HEAP_TARGETS, EmuBoard, images, play, skip_reason
from mjsim.boardemu.board import _mpremote
from mjsim.boardemu.play import V

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARDEMU = os.path.dirname(os.path.abspath(play.__file__))
MS = 1e6  # ns per ms


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def _probe(board, path, subst=None):
    with open(path) as f:
        src = f.read()
    for k, v in (subst or {}).items():
        src = src.replace(k, v)
    # The firmware's watchdog keeps running once mpremote has stopped the firmware
    # (docs/board.md); on a loaded machine even mpremote's handshake takes longer.
    board.stop_watchdog()
    r = subprocess.run([_mpremote(), "connect", board.port, "exec", src],
                       capture_output=True, text=True, timeout=1800)
    m = re.search(r"^PROBE (.*)$", r.stdout, re.M)
    if not m:
        raise RuntimeError("probe %s failed: %s%s" % (path, r.stdout[-800:], r.stderr[-800:]))
    return json.loads(m.group(1))


def lay_tags(board, seed):
    """Seat s: 14 tiles on the rack, 8 on the tray (the scan figures' load),
    drawn at random as a deal would: consecutive tiles have consecutive UIDs
    (virtual_table.tile_uid), whose first nibbles never collide, so a rack of
    them reads in one round where a dealt rack takes three or four."""
    uids = []
    tiles = random.Random(seed).sample(range(108), 4 * 22)
    with board.locked():
        for s in range(4):
            rack = [V.tile_uid(seed, t) for t in tiles[22 * s:22 * s + 14]]
            tray = [V.tile_uid(seed, t) for t in tiles[22 * s + 14:22 * s + 22]]
            board.table.readers[s].set_tags(0, rack)
            board.table.readers[s].set_tags(1, tray)
            uids.append((rack, tray))
    return uids


def air_ms(uids):
    n = [int.from_bytes(u, "little") for u in uids]
    return scan_time.scan(n, host=False)[0] / 1000


def scan_figures(board, seed):
    uids = lay_tags(board, seed)
    p = _probe(board, os.path.join(BOARDEMU, "probe.py"))
    seats = []
    for s, (a, na, b, nb) in enumerate(p["seat"]):
        rack, tray = uids[s]
        seats.append({"rack_ms": a / 1000, "rack_tags": na, "rack_air_ms": air_ms(rack),
                      "tray_ms": b / 1000, "tray_tags": nb, "tray_air_ms": air_ms(tray)})
    air_rack = max(air_ms(r) for r, _ in uids)
    heap = {k: p[k] for k in ("free_empty", "free_asyncio", "free_code", "free_booted",
                              "free_after")}
    # the firmware's modules; MicroPython's asyncio (frozen in every image) apart
    heap["code_bytes"] = p["free_asyncio"] - p["free_code"]
    heap["asyncio_bytes"] = p["free_empty"] - p["free_asyncio"]
    heap["target_free_peak"] = HEAP_TARGETS["stock"][1]
    heap["target_code_romfs"] = HEAP_TARGETS["romfs"][0]
    return heap, {
        "seats": seats,
        "seat_ms_median": _median([x["rack_ms"] + x["tray_ms"] for x in seats]),
        "seat_ms_worst": max(x["rack_ms"] + x["tray_ms"] for x in seats),
        "seat_air_ms": _median([x["rack_air_ms"] + x["tray_air_ms"] for x in seats]),
        "four_racks_at_once_ms": [t / 1000 for t in p["table_rack"]],
        "four_racks_air_ms": air_rack,
        "cycle_ms": [t / 1000 for t in p["cycle"]],
        "cycle_ms_median": _median(p["cycle"]) / 1000,
        "cycle_ms_worst": max(p["cycle"]) / 1000,
    }


def engine_figures(board, hands=2, seed=5):
    import bench_engine as engine_bench
    from mjtable.referee import simcore
    from sichuan import presets

    logs, _ = engine_bench._logs(simcore, presets.get("xuezhan"), hands, seed)
    p = _probe(board, os.path.join(BOARDEMU, "probe_engine.py"),
               {"LOGS = []": "LOGS = %r" % [b.hex() for b in logs]})
    p["target_discard_us"] = 5000
    p["watchdog_ms"] = 8000
    return p


def play_figures(board, seed, actions, hands):
    """The bots against the board; each move's emulated ms to its acceptance."""
    vt = V.VirtualTable(seed=seed, hands=hands)
    until = play.first_actions(actions) if actions else None
    bp = play.BoardPlay(board, vt, until=until)
    t0 = time.monotonic()
    bp.start()
    watch_up = board.now_ns()
    ok = bp.wait(6 * 3600)
    w = bp.watch
    bp.stop()
    out = {"done": ok and not vt.mismatch and vt.stuck is None, "accepted": w.accepted,
           "mismatch": [repr(m) for m in vt.mismatch], "stuck": vt.stuck,
           "wall_s": round(time.monotonic() - t0, 1),
           "emulated_s": round((board.now_ns() - watch_up) / 1e9, 2),
           "move_to_accepted_ms": bp.latencies(),
           "target_laid_to_display_ms": 350}
    return out, vt, w


def pull_figures(board, workdir):
    arch = os.path.join(workdir, "archive.sqlite")
    e0, t0 = board.now_ns(), time.monotonic()
    # exit 1 when an unsealed log stays on the table (the probes' boot left one)
    r = board.mjtable("logs", "pull", "--all", "--no-ack", "--archive", arch, "--quiet",
                      "--timeout", "60", check=False)
    wall, emu = time.monotonic() - t0, (board.now_ns() - e0) / 1e9
    import sqlite3

    with sqlite3.connect(arch) as db:
        size = db.execute("select coalesce(sum(size), 0) from logs").fetchone()[0]
    return {"exit": r.returncode, "bytes": size, "wall_s": round(wall, 2),
            "emulated_s": round(emu, 2),
            "bytes_per_emulated_s": round(size / emu) if emu else None}


def run(image="stock", actions=30, seed=1, save=None):
    """The figures; save(res) is called after each step (a long run keeps what it got)."""
    im = images()
    b = EmuBoard(seed=seed, uf2=im[image])
    res = {"image": os.path.basename(b.uf2)}
    save = save or (lambda r: None)
    with b:
        t0 = time.monotonic()
        b.provision_files(key=None)  # the key after the probes: a keyed table locks its REPL
        b.deploy()
        res["deploy_wall_s"] = round(time.monotonic() - t0, 1)
        boot = b.chips.boots[-1][0]
        for _ in range(600):
            if b.chips.first_scan is not None:
                break
            time.sleep(0.5)
        res["boot_to_first_scan_ms"] = (b.chips.first_scan - boot) / MS
        res["engine"] = engine_figures(b)
        save(res)
        res["heap"], res["scan"] = scan_figures(b, seed)
        save(res)
        with b.locked():
            for r in b.table.readers:
                r.set_tags(0, [])
                r.set_tags(1, [])
        b.provision_files(enroll=False)
        b.reset()
        boot = b.chips.boots[-1][0]
        res["play"], _vt, w = play_figures(b, seed, actions, 8)
        res["boot_to_link_ms"] = (w.ready_ns - boot) / MS
        save(res)
        res["logs_pull"] = pull_figures(b, b.workdir)
        save(res)
        res["link_commands"] = link_commands(b)
        save(res)
    return res


def link_commands(board):
    """The host commands that change the table, as an owner runs them: the
    match ended, a ruleset pushed, a new match started (exit code, last line)."""
    out = {}
    for args in (("match", "end"), ("rules", "push", "xuezhan"), ("match", "start"),
                 ("info",)):
        r = board.mjtable(*args, "--timeout", "60", check=False)
        out[" ".join(args)] = [r.returncode, (r.stdout + r.stderr).strip().splitlines()[-1:]]
    return out


def table(r):
    h, s, e, p = r["heap"], r["scan"], r["engine"], r["play"]
    lines = [
        "board (%s, emulated RP2040 at 125 MHz):" % r["image"],
        "  deploy %.0f s wall; boot to first scan %.0f ms, to the link answering %.0f ms"
        % (r["deploy_wall_s"], r["boot_to_first_scan_ms"], r["boot_to_link_ms"]),
        "  heap free: empty %d, code loaded %d (firmware %d B, MicroPython's asyncio %d B),"
        " booted with the link %d B (target >= %d at the peak)"
        % (h["free_empty"], h["free_code"], h["code_bytes"], h.get("asyncio_bytes", 0),
           h["free_booted"], h["target_free_peak"]),
        "  seat scan (rack 14 + tray 8): median %.0f ms, worst %.0f ms; air alone %.0f ms"
        % (s["seat_ms_median"], s["seat_ms_worst"], s["seat_air_ms"]),
        "  four racks at once %s ms (air %.0f); scan cycle median %.0f, worst %.0f ms"
        % (s["four_racks_at_once_ms"], s["four_racks_air_ms"], s["cycle_ms_median"],
           s["cycle_ms_worst"]),
        "  discard adjudicated (3 seats): median %.2f ms, worst %.2f ms (target < 5 ms)"
        % (e["discard_us_median"] / 1000, e["discard_us_max"] / 1000),
        "  worst single action %.1f ms (kind %d, wall %d); watchdog %d ms"
        % (e["worst_us"] / 1000, e["worst_kind"], e["worst_wall"], e["watchdog_ms"]),
        "  bots: %d actions accepted in %.0f emulated s (%.0f wall s)%s"
        % (p["accepted"], p["emulated_s"], p["wall_s"], "" if p["done"] else " NOT DONE"),
    ]
    for k, v in p["move_to_accepted_ms"].items():
        d = v.get("display")
        lines.append("    %-9s move to accepted: median %.0f ms, worst %.0f ms (n %d)%s"
                     % (k, v["median"], v["worst"], v["n"], "" if d is None else
                        "; to a display changed: median %.0f, worst %.0f (n %d)"
                        % (d["median"], d["worst"], d["n"])))
    for k, v in r.get("link_commands", {}).items():
        lines.append("  mjtable %-20s exit %d  %s" % (k, v[0], " ".join(v[1])))
    lp = r["logs_pull"]
    lines.append("  logs pull: %d B in %.1f emulated s (%s B/s), %.1f wall s"
                 % (lp["bytes"], lp["emulated_s"], lp["bytes_per_emulated_s"], lp["wall_s"]))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", default="stock", choices=("stock", "romfs"))
    ap.add_argument("--actions", type=int, default=0,
                    help="stop the bots after N accepted actions (0: the whole match)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench.json"))
    args = ap.parse_args(argv)
    why = skip_reason()
    if why:
        print("bench-board skipped:", why)
        return 0
    def save(res):
        data = {}
        if os.path.exists(args.out):
            with open(args.out) as f:
                data = json.load(f)
        data.setdefault("board", {})[args.image] = res
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)

    res = run(args.image, args.actions, save=save)
    print(table(res))
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
