"""The core suite really runs on both interpreters, with the same results.

Issue 2: "One core suite, run under CPython and under MicroPython." A test that
silently does not run under MicroPython (a module that fails to import there, a
name the runner skips) would leave the two counts different; this test runs
`.venv/bin/micropython tools/mptest.py tests/core tests/drivers` (what `make
test-mp` runs; `make test` relies on this test for it) and asserts it passes
with exactly as many tests as pytest collects in those folders.

It also checks that the two interpreters produce the same bytes for what
leaves the core: every preset's ruleset blob, and the waits and calculator
results of a few hundred hands.
"""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
PYTEST = [sys.executable, "-m", "pytest"]


def _run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, **kw)


DUAL = ["tests/core", "tests/drivers"]  # the suites that run on both interpreters


def _pytest_core_count(folder):
    p = _run(PYTEST + ["-o", "addopts=", "-p", "no:cacheprovider", "--collect-only", "-q", folder])
    assert p.returncode == 0, p.stdout + p.stderr
    ids = [ln for ln in p.stdout.splitlines() if "::" in ln]
    return len(ids), ids


@pytest.mark.parametrize("folder", DUAL)  # one folder a test: xdist runs them side by side
def test_micropython_runs_every_core_test(folder):
    assert os.path.exists(MICROPYTHON), "run `make setup` first: no " + MICROPYTHON
    n_py, ids = _pytest_core_count(folder)
    assert n_py > 100, n_py
    p = _run([MICROPYTHON, "tools/mptest.py", folder])
    m = re.search(r"micropython: (\d+) passed, (\d+) failed", p.stdout)
    assert m, p.stdout + p.stderr
    passed, failed = int(m.group(1)), int(m.group(2))
    assert failed == 0 and p.returncode == 0, p.stdout[-4000:]
    assert passed == n_py, "pytest collects %d tests in %s, MicroPython ran %d" % (
        n_py, folder, passed)


# The same computation on both interpreters; prints one JSON array a line.
_PROBE = r"""
import sys
sys.path.insert(0, "firmware")
sys.path.insert(0, "sim")
sys.path.insert(0, "host/mjtable/referee")  # calc.py: the host's calculator, on both interpreters
sys.path.insert(0, "tests/core")  # check.lcg
import json
import calc
from check import lcg
from sichuan import presets, shape, tiles, fan

for n in presets.names():
    rs = presets.get(n)
    print(json.dumps(["blob", n, "".join("%02x" % b for b in rs.to_blob())]))
nxt = lcg(99)
for i in range(300):
    c = bytearray(27)
    suits = 1 + nxt(2)
    k = 0
    while k < 13:
        f = nxt(9 * suits)
        if c[f] < 4:
            c[f] += 1
            k += 1
    print(json.dumps(["waits", tiles.to_text(c), shape.waits(c)]))
    names = [n for n in presets.names() if presets.get(n)[2] == 13]  # 13-tile hands
    rs = presets.get(names[i % len(names)])
    for f in shape.waits(c)[:2]:
        for fl in (0, fan.ZIMO | fan.HAIDI):
            print(json.dumps(["calc", rs.name, tiles.to_text(c), f, fl,
                              calc.calc_result(rs, c, f, (), -1, fl)]))
"""


def _probe(interp):
    p = _run([interp, "-c", _PROBE])
    assert p.returncode == 0, p.stdout + p.stderr
    out = {"blob": [], "waits": [], "calc": []}
    for line in p.stdout.splitlines():
        row = json.loads(line)
        out[row[0]].append(row[1:])
    return out


def test_both_interpreters_give_the_same_bytes():
    a = _probe(sys.executable)
    b = _probe(MICROPYTHON)
    assert len(a["blob"]) >= 6 and a["blob"] == b["blob"]  # every preset
    assert len(a["waits"]) == 300 and a["waits"] == b["waits"]
    assert len(a["calc"]) >= 20, len(a["calc"])
    assert len(a["calc"]) == len(b["calc"])
    for x, y in zip(a["calc"], b["calc"], strict=True):
        assert x == y
