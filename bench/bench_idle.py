"""`make bench` section "idle": what an idle virtual table costs the machine.

    .venv/bin/python bench/bench_idle.py [--quick] [--seconds S]

`mjtable virtual-table` without bots waits for `mjtable match start` with no
match under way and nothing on the table. Measured for each --pace (0: as
fast as it goes, 20: the default): the CPU seconds of the command's process
and its children (the firmware on the MicroPython unix port) over S seconds
of that wait, as cores busy (/proc, user + system), and the time `mjtable
info` takes against it meanwhile (the link must still answer at once).
Issue 41 measured a whole core at --pace 0 and 0.44 at --pace 20.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXE = os.path.join(ROOT, ".venv", "bin", "mjtable")
PACES = (0, 20)


def tree_cpu_s(root_pid: int) -> float:
    """CPU seconds (user + system) of root_pid and every process below it."""
    tick = os.sysconf("SC_CLK_TCK")
    parent, cpu = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(pid)] = int(fields[1])
        cpu[int(pid)] = int(fields[11]) + int(fields[12])
    total = 0
    for pid, t in cpu.items():
        p = pid
        while p and p != root_pid:
            p = parent.get(p, 0)
        if p == root_pid:
            total += t
    return total / tick


def info_ms(port: str, env: dict) -> float:
    t0 = time.monotonic()
    subprocess.run([EXE, "info", "--port", port], env=env, check=True, capture_output=True,
                   timeout=60)
    return (time.monotonic() - t0) * 1000


def idle_case(pace: int, seconds: float, tmp: str, settle: float = 2.0) -> dict:
    env = dict(os.environ, MJTABLE_KEYFILE=os.path.join(tmp, "key"))
    p = subprocess.Popen([EXE, "virtual-table", "--pace", str(pace)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = p.stdout.readline()
        if not line.startswith("port: "):
            raise RuntimeError("virtual-table did not start: %r" % line)
        port = line.split(": ", 1)[1].strip()
        time.sleep(settle)  # the boot's frames done
        c0, t0 = tree_cpu_s(p.pid), time.monotonic()
        time.sleep(seconds)
        c1, t1 = tree_cpu_s(p.pid), time.monotonic()
        info = sorted(info_ms(port, env) for _ in range(3))
        return {"pace_ms": pace, "seconds": round(t1 - t0, 1),
                "cores_busy": round((c1 - c0) / (t1 - t0), 4),
                "cpu_s": round(c1 - c0, 2), "info_ms_median": round(info[1])}
    finally:
        p.terminate()
        p.wait(timeout=60)


def section(quick=False, seconds=None):
    """quick (the test of the bench's keys): one pace, one second; no figure."""
    secs = seconds or (1.0 if quick else 30.0)
    with tempfile.TemporaryDirectory(prefix="idlebench") as tmp:
        cases = [idle_case(pace, secs, tmp, 0.5 if quick else 2.0)
                 for pace in (PACES[:1] if quick else PACES)]
    return {"cases": cases, "load_before": round(os.getloadavg()[0], 2),
            "note": "an idle `mjtable virtual-table` (no bots, waiting for match start): cores"
                    " busy of it and its firmware, and `mjtable info`'s wall time against it"}


def table(r):
    lines = ["idle virtual table (waiting for `match start`; %d cores)" % os.cpu_count(),
             "  %-8s %8s %12s %10s" % ("--pace", "seconds", "cores busy", "info ms")]
    for c in r["cases"]:
        lines.append("  %-8d %8.1f %12.4f %10d" % (c["pace_ms"], c["seconds"], c["cores_busy"],
                                                   c["info_ms_median"]))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seconds", type=float, default=None)
    a = ap.parse_args(argv)
    r = section(a.quick, a.seconds)
    print(table(r))
    print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
