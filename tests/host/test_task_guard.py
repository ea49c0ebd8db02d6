"""app.guard on the MicroPython unix port (asyncio as on the board): a task
that raises is printed with its traceback, counted and reported in the
controller's `crashes` and `fault` (INFO), and started again, while the
other tasks run on; a cancelled task is not restarted."""

import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")

_SCRIPT = r"""
import sys
sys.path.insert(0, "firmware")
sys.path.insert(0, "sim")
import asyncio
import app

class Ctl:
    crashes = 0
    fault = ""

runs = []
ticks = [0]

async def flaky(n):
    runs.append(n)
    if len(runs) < 3:
        raise OSError(110)
    return "done"

async def other():
    while True:
        ticks[0] += 1
        await asyncio.sleep_ms(10)

async def main(ctl):
    o = asyncio.create_task(app.guard(ctl, other))
    r = await app.guard(ctl, flaky, 7)
    n = ticks[0]
    o.cancel()
    await asyncio.sleep_ms(0)
    print("RESULT", r, runs, ctl.crashes, repr(ctl.fault), n > 100)

asyncio.run(main(Ctl()))
"""


def test_a_task_that_raises_is_printed_reported_and_restarted():
    p = subprocess.run([MICROPYTHON, "-c", _SCRIPT], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout
    assert out.count("Traceback (most recent call last)") == 2  # each failure, printed
    assert "OSError: [Errno 110] ETIMEDOUT" in out and "in flaky" in out
    last = [line for line in out.splitlines() if line.startswith("RESULT")][0]
    # two failures, restarted a second later each time; the other task ran all along
    assert last == "RESULT done [7, 7, 7] 2 'flaky OSError(110,)' True"
