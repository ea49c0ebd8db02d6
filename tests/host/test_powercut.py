"""Run the storage tests under the MicroPython unix port from pytest.

Under CPython the LittleFS power-cut tests in tests/drivers skip (os.VfsLfs2
exists only in MicroPython).  This harness runs those same modules in
.venv/bin/micropython, where they mount a real LittleFS2 volume over the
file-backed block device and cut it at every write, so `pytest` alone also
proves the power-cut behaviour on the filesystem the board uses.
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MP = os.path.join(ROOT, ".venv", "bin", "micropython")
MODULES = ["test_blockdev", "test_store", "test_recordlog", "test_logstore"]

# Imports one test module, runs each test_* function, prints one line per result.
RUNNER = """
import sys
sys.path.insert(0, "firmware")
sys.path.insert(0, "sim")
sys.path.insert(0, "tests/drivers")
sys.path.insert(0, "tests/core")
mod = __import__(sys.argv[1])
bad = 0
for name in sorted(dir(mod)):
    if name.startswith("test_"):
        try:
            getattr(mod, name)()
            print("PASS", name)
        except Exception as e:
            bad += 1
            print("FAIL", name, repr(e))
sys.exit(1 if bad else 0)
"""


@pytest.mark.parametrize("module", MODULES)
def test_storage_module_under_micropython(module, tmp_path):
    if not os.access(MP, os.X_OK):
        pytest.skip("no .venv/bin/micropython (run `make setup`)")
    script = tmp_path / "run.py"
    script.write_text(RUNNER)
    r = subprocess.run(
        [MP, str(script), module], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    passed = [line for line in out.splitlines() if line.startswith("PASS ")]
    assert passed, out
    assert not any(line.startswith("FAIL") for line in out.splitlines()), out
    sys.stdout.write(out)
