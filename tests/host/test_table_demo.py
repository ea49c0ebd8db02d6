"""`make demo`'s verdict: a firmware that stops before the match's end (here
a heap too small to boot in) is reported as such, with its traceback and a
non-zero exit, not as a match whose scores agree (they do, up to the stop)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")


@pytest.mark.skipif(not os.path.exists(MICROPYTHON), reason="needs the MicroPython unix port")
def test_demo_reports_a_firmware_that_stopped():
    r = subprocess.run([sys.executable, "tools/table_demo.py", "--quiet", "--heap", "100K"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    assert "THE FIRMWARE STOPPED before the match's end" in r.stdout
    assert "MemoryError" in r.stdout  # the firmware's own traceback
    assert "every score agrees" not in r.stdout
