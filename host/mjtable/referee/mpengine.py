"""`--engine micropython`: run calculator requests in the MicroPython unix port.

All requests of one run go through ONE micropython process (mp_calc.py),
one JSON line in and one out per request, so a batch costs one start-up.
"""

import json
import os
import shutil
import subprocess
import sys

from mjtable import BadInput

HERE = os.path.dirname(os.path.abspath(__file__))


def find_micropython():
    """Path of the micropython binary: next to sys.executable, else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("micropython")
    if found:
        return found
    raise BadInput("micropython not found next to %s or on PATH (run `make setup`)"
                   % sys.executable)


def firmware_dir():
    """The directory holding the `sichuan` package (what MicroPython imports)."""
    from sichuan import tiles  # a module's file: the package may be a namespace

    return os.path.dirname(os.path.dirname(os.path.abspath(tiles.__file__)))


def command(driver: str) -> tuple:
    """(argv, environment) running one of this folder's drivers (mp_calc.py,
    mp_sim.py) in the unix port: the driver's folder is its sys.path[0] (the
    modules beside it), and MICROPYPATH holds the rules core."""
    env = dict(os.environ, MICROPYPATH=firmware_dir())
    return [find_micropython(), os.path.join(HERE, driver)], env


def run(requests):
    """Result dicts of request dicts (mp_calc's format), in order."""
    if not requests:
        return []
    text = "".join(json.dumps(r, ensure_ascii=True) + "\n" for r in requests)
    cmd, env = command("mp_calc.py")
    try:
        proc = subprocess.run(cmd, input=text.encode(), capture_output=True, check=False, env=env)
    except OSError as e:
        raise BadInput("cannot run %s: %s" % (cmd[0], e)) from None
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    if proc.returncode != 0 or len(lines) != len(requests):
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BadInput("micropython engine failed (exit %d, %d of %d results)%s"
                       % (proc.returncode, len(lines), len(requests),
                          ": " + err[-1] if err else ""))
    try:
        return [json.loads(line) for line in lines]
    except ValueError as e:
        raise BadInput("micropython engine wrote bad JSON: %s" % e) from None
