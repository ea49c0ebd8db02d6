import fcntl
import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The one place the tests' import path is set (tools/mptest.py does the same
# for MicroPython): the firmware's packages (sichuan, table, drivers, boards)
# import as on the board; the shared test kits; the tools and the benches,
# which the tests run and check. The simulation room (mjsim) and the host
# tool (mjtable) are installed packages.
for p in (os.path.join(ROOT, "firmware"), os.path.join(HERE, "core"),
          os.path.join(HERE, "drivers"), os.path.join(ROOT, "tools"),
          os.path.join(ROOT, "bench")):
    if p not in sys.path:
        sys.path.insert(0, p)

import sichuan  # noqa: E402, F401


@pytest.fixture(scope="session")
def release(tmp_path_factory):
    """A release as a user gets it (tests/host/test_wheel.py, tests/board/
    test_wheel_board.py): the wheel `make dist` builds (tools/dist.py; with
    build/mjtable-pico.uf2 when that is this tree's image, else without one),
    installed with the dependencies it declares, held to requirements.txt's
    pins, into a fresh venv outside the checkout. Built once per run however
    many pytest workers ask (a lock, and a folder beside theirs); the
    dependencies' wheels are kept in build/wheelhouse, filled from the
    package index the first time. {"bin", "env", "cwd", "record",
    "no_image" (why there is none, else None), "seconds"}."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, shared by its workers
    out = base / "release"
    with open(str(base / "release.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "release.json").exists():
            t0 = time.monotonic()
            made = _make_release(str(out))
            made["seconds"] = round(time.monotonic() - t0, 1)
            (out / "release.json").write_text(json.dumps(made))
    made = json.loads((out / "release.json").read_text())
    made["env"] = _release_env(str(out))
    return made


def _make_release(out):
    from mjtable import BadInput
    from mjtable.firmware import release as R
    from mjtable.firmware import uf2 as U

    py = sys.executable  # the dev venv's: its pip and pinned setuptools
    uf2 = os.path.join(ROOT, "build", "mjtable-pico.uf2")
    no_image = None
    try:
        img = U.read(uf2)
        fw = (R.source_version(os.path.join(ROOT, "firmware")), R.commit(ROOT)[0])
        if (img["fw"], img["commit"]) != fw:
            no_image = "%s holds %s commit %s, the tree is at %s commit %s: make uf2" % (
                uf2, img["fw"], img["commit"], fw[0], fw[1])
    except BadInput as e:
        no_image = "%s (make uf2)" % e
    dist = os.path.join(out, "dist")
    cmd = [py, os.path.join(ROOT, "tools", "dist.py"), "--out", dist,
           "--work", os.path.join(out, "work")]
    _run(cmd + (["--no-image"] if no_image else ["--uf2", uf2]))
    wheel = os.path.join(dist, os.listdir(dist)[0])
    venv = os.path.join(out, "venv")
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    pip = [py, "-m", "pip", "--disable-pip-version-check", "-q"]
    house = os.path.join(ROOT, "build", "wheelhouse")
    pins = ["-c", os.path.join(ROOT, "requirements.txt")]
    install = pip + ["--python", os.path.join(venv, "bin", "python"), "install", "--no-index",
                     "--find-links", house] + pins + [wheel]
    if subprocess.run(install, capture_output=True).returncode:
        # a wheel the house lacks: from the index once (pip's cache), then offline
        os.makedirs(house, exist_ok=True)
        _run(pip + ["download", "-d", house] + pins + [wheel])
        os.remove(os.path.join(house, os.path.basename(wheel)))
        _run(install)
    with open(os.path.join(venv, "lib", "python%d.%d" % sys.version_info[:2], "site-packages",
                           "mjtable", "firmware", "packaged", "build.json")) as f:
        record = json.load(f)
    return {"bin": os.path.join(venv, "bin"), "cwd": out, "record": record,
            "no_image": no_image, "wheel": wheel}


def _run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout,
                                                   r.stderr))


def _release_env(out):
    """The environment a user's shell gives the release: nothing of the
    checkout's (no PYTHONPATH, MICROPYPATH, venv), its own key file and cache."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "MICROPYPATH", "VIRTUAL_ENV", "MJTABLE_KEY")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not p.startswith(ROOT))
    env["MJTABLE_KEYFILE"] = os.path.join(out, "key")
    env["MJTABLE_ARCHIVE"] = os.path.join(out, "archive.sqlite")
    env["XDG_CACHE_HOME"] = os.path.join(out, "cache")
    return env
