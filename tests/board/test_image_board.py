"""The table's own image (build/mjtable-pico.uf2, `make uf2`) and the locked
table on the emulated Pico (boardemu), with mpremote as a developer or an
intruder would use it. Minutes of emulation: run by `make test-image`
(and CI after `make uf2`), skipped in `make test`.

    MJ_BOARD=1 pytest tests/board/test_image_board.py
"""

import os
import shutil
import subprocess
import sys
import threading
import time

import pytest
from mjsim import boardemu
from mjsim.boardemu import board as B
from mjtable.firmware import uf2 as U

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

IMAGE = os.path.join(ROOT, "build", "mjtable-pico.uf2")
MPREMOTE = os.path.join(os.path.dirname(sys.executable), "mpremote")
KEY = bytes(range(32))
KEY_GUO = 3  # seat 0's 过 key: the key button (table.hostlink.key_button)

pytestmark = [
    pytest.mark.skipif(not os.environ.get("MJ_BOARD"), reason="board tests: MJ_BOARD=1"),
    pytest.mark.skipif(boardemu.skip_reason() is not None, reason=str(boardemu.skip_reason())),
]
needs_image = pytest.mark.skipif(not os.path.isfile(IMAGE), reason="no image: make uf2")


def mpremote(port, *args, timeout=60):
    return subprocess.run([MPREMOTE, "connect", port, *args], capture_output=True,
                          text=True, timeout=timeout)


def info(b, wait=300.0):
    """INFO as a dict, once the board answers (it boots several times slower
    than a real one: each request may take seconds)."""
    import json

    deadline = time.monotonic() + wait
    while True:
        r = b.mjtable("info", "--json", "--timeout", "60", timeout=300, check=False)
        if r.returncode == 0 or time.monotonic() > deadline:
            assert r.returncode == 0, r.stderr
            return json.loads(r.stdout)
        time.sleep(2)


def wait_for(pred, what, timeout=120.0):
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError("no %s in %.0f s" % (what, timeout))
        time.sleep(0.5)


def set_key(b):
    """The table key and tile map on the board's flash, as `mjtable key set`
    and `enroll` leave them, through the REPL of a table that has no key yet."""
    info(b)  # up: Ctrl-C works from here (main.py starts with it off)
    b.provision_files()


def power_cycle_with_the_key_button(b):
    """Power off, then on with seat 0's 过 key held: the same flash, a new board."""
    b.stop()
    nb = B.EmuBoard(seed=b.seed, uf2=b.uf2, workdir=b.workdir + "-2", fs_in=b.fs_file)
    nb.key = b.key
    with open(nb.key_file, "w") as f:
        f.write(b.key.hex() + "\n")
    nb.table.press(0, KEY_GUO)
    return nb.start()


def locked_then_maintenance(b):
    """b: a keyed table just booted. Returns the board then running (in maintenance)."""
    d = info(b)  # the link answers
    assert d["usb"] == "locked" and d["key"] == 1
    r = mpremote(b.port, "exec", "print('in')", timeout=120)
    assert r.returncode != 0 and "in" not in r.stdout.split()
    assert "could not enter raw repl" in (r.stderr + r.stdout)
    seen = len(b.console())
    b.inject(b"\r\x03\x03\r\nprint('open' + 'ed')\r\n")  # a terminal's Ctrl-C
    time.sleep(5)
    tail = b.console()[seen:]
    assert "opened" not in tail and ">>> " not in tail and "KeyboardInterrupt" not in tail
    assert info(b)["usb"] == "locked"  # the stray bytes did not break the link
    b = power_cycle_with_the_key_button(b)
    d = info(b)
    assert d["usb"] == "maint"
    # "OPEn" (O and 0 are the same seven segments: the simulator reads "0PEn")
    wait_for(lambda: b.texts() == ["0PEn"] * 4, "OPEn on the seats", 60)
    r = mpremote(b.port, "exec", "print('in')", timeout=120)
    assert r.returncode == 0 and r.stdout.split() == ["in"]
    return b


@needs_image
def test_image_runs_its_frozen_firmware_and_reports_its_build(tmp_path):
    want = U.read(IMAGE)
    b = B.EmuBoard(uf2=IMAGE, workdir=str(tmp_path / "a")).start()
    try:
        d = info(b)
        assert (d["fw"], d["commit"], d["mpy"]) == (want["fw"], want["commit"], "1.28.0")
        assert d["usb"] == "open" and "shadowed" not in d
    finally:
        b.stop()


@needs_image
def test_image_ignores_an_old_deploys_files(tmp_path):
    """What a file deploy leaves (main.py, app.mpy, a package) would shadow
    the frozen firmware; the boot names it and the frozen firmware runs."""
    b = B.EmuBoard(uf2=IMAGE, workdir=str(tmp_path / "a")).start()
    try:
        info(b)  # up: Ctrl-C works from here (main.py starts with it off)
        bad = tmp_path / "app.py"
        bad.write_text("raise SystemExit('the old app ran')\n")
        for cmd in (("exec", "import os\nos.mkdir('table')"), ("fs", "cp", str(bad), ":app.py"),
                    ("fs", "cp", str(bad), ":main.py"), ("reset",)):
            r = mpremote(b.port, *cmd, timeout=120)
            assert r.returncode == 0, (cmd, r.stderr)
        # the boot's line goes to a terminal if one is attached; INFO keeps it
        d = info(b)
        assert d["shadowed"] == "main.py,app.py,table" and d["fw"] == U.read(IMAGE)["fw"]
        assert "old app ran" not in b.console()
    finally:
        b.stop()


@needs_image
def test_image_locked_table_refuses_mpremote_until_the_key_button(tmp_path):
    b = B.EmuBoard(uf2=IMAGE, workdir=str(tmp_path / "a")).start()
    try:
        set_key(b)
        assert mpremote(b.port, "reset").returncode == 0  # no key at this boot: open
        b = locked_then_maintenance(b)
    finally:
        b.stop()


def test_stock_image_with_files_locked_table_then_an_update(tmp_path):
    b = B.EmuBoard(workdir=str(tmp_path / "a")).start()
    try:
        b.provision_files()
        # its reset boots the firmware with the key; deploy's own check gives
        # the board 20 s, which a loaded machine's emulated one can need more than
        r = b.mjtable("deploy", "--files", check=False, timeout=900)
        assert r.returncode == 0 or "did not answer on the link" in r.stderr, r.stderr
        b = locked_then_maintenance(b)
        # the owner's update: a firmware with one module changed, deployed
        # onto the table running in maintenance (mpremote's Ctrl-C ends the
        # controller; its watchdog must not reset the board mid-copy)
        src = tmp_path / "firmware"
        shutil.copytree(os.path.join(ROOT, "firmware"), src)
        with open(src / "table" / "display.py", "a") as f:
            f.write("\n\ndef _update_marker():\n    return 1\n")
        b.table.release(0, KEY_GUO)  # the key button let go: the update's reset boots locked
        out = b.mjtable("deploy", "--files", "--src", str(src), timeout=900).stdout
        copied = [ln.split()[1] for ln in out.splitlines() if ln.startswith("copy ")]
        assert copied == ["table/display.mpy"], out
        assert "the board answers: firmware" in out, out
        d = info(b)
        assert d["usb"] == "locked" and not d.get("fault"), d
    finally:
        b.stop()


@needs_image
def test_flash_onto_the_boot_drive_then_the_table_answers(tmp_path):
    """`mjtable flash` writes the image onto a folder laid out as the RPI-RP2
    drive and waits; the emulated Pico then boots the file written there, as
    the boot ROM would, and flash checks its version over the link."""
    d = tmp_path / "RPI-RP2"
    d.mkdir()
    (d / "INFO_UF2.TXT").write_text("UF2 Bootloader v3.0\r\nModel: Raspberry Pi RP2\r\n"
                                    "Board-ID: RPI-RP2\r\n")
    work = tmp_path / "board"
    port = str(work / "tty")
    exe = os.path.join(os.path.dirname(sys.executable), "mjtable")
    out = {}

    def run():
        out["r"] = subprocess.run([exe, "flash", IMAGE, "--drive", str(d), "--port", port,
                                   "--wait", "300", "--timeout", "60"],
                                  capture_output=True, text=True, timeout=600)

    t = threading.Thread(target=run)
    t.start()
    written = d / "mjtable-pico.uf2"
    wait_for(lambda: written.exists() and written.stat().st_size == os.path.getsize(IMAGE),
             "image on the drive", 60)
    b = B.EmuBoard(uf2=str(written), workdir=str(work)).start()
    try:
        t.join(600)
        r = out["r"]
        assert r.returncode == 0, r.stderr
        want = U.read(IMAGE)
        assert "the table answers: firmware %s (commit %s)" % (want["fw"], want["commit"]) \
            in r.stdout
    finally:
        b.stop()
