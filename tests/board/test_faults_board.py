"""Faults on the emulated Pico (the real rp2 MicroPython image, the deployed
firmware booting into main.py): chips that never answer, stop and come back,
garbage on the USB link, a stuck task and the watchdog, power cuts in a
hand's log. `make test` runs the two on the bare board (no chip on any bus:
every seat cable unplugged, the plain runner ../shared/rp2emu/rp2emu.mjs);
the rest, on the board harness (boardemu) with the chip models, only with
MJ_BOARD_LONG=1 (`make test-long`)."""

import json
import os
import random
import struct
import subprocess
import sys
import time
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import faultkit  # noqa: E402
from boardemu.board import NODE_DIR, images, skip_reason  # noqa: E402

_SKIP = skip_reason()
LONG = os.environ.get("MJ_BOARD_LONG") == "1"
pytestmark = [pytest.mark.board, pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")]
long_only = pytest.mark.skipif(not LONG, reason="long board test: MJ_BOARD_LONG=1 (make test-long)")
MJTABLE = os.path.join(os.path.dirname(sys.executable), "mjtable")
ALL_CHIPS = "fff"  # INFO chips: 4 readers, 4 displays, 4 key expanders (boards.pico Board.down)


def info(port, deadline_s=120.0):
    """`mjtable info --json` on port, asked again while the board boots."""
    t = time.monotonic() + deadline_s
    while True:
        r = subprocess.run([MJTABLE, "info", "--json", "--port", port], capture_output=True,
                           text=True, timeout=120)
        if r.returncode == 0:
            return json.loads(r.stdout)
        if time.monotonic() > t:
            raise AssertionError("no INFO: " + r.stderr)
        time.sleep(1)


# --- the bare board: no chip answers --------------------------------------------


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("bare"))
    runner = os.path.join(os.path.dirname(images()["stock"]), "rp2emu.mjs")
    if not os.path.exists(runner):
        pytest.skip("the plain runner rp2emu.mjs is not beside the image")
    port = os.path.join(d, "tty")
    env = dict(os.environ, RP2EMU_NODE_DIR=NODE_DIR, RP2EMU_BOOTROM=images()["bootrom"])
    p = subprocess.Popen(["node", runner, "--fw", images()["stock"], "--pty", "--pty-link", port,
                          "--fs-in", faultkit.fs_image(d)], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(port):
            assert p.poll() is None, "the runner exited"
            time.sleep(0.1)
        yield port
    finally:
        p.terminate()
        p.wait(10)


def test_no_chip_answering_the_link_answers_and_names_every_chip(bare):
    first = info(bare)
    assert first["chips"] == ALL_CHIPS and first["crashes"] == "0" and first["fault"] == ""
    time.sleep(2)  # the table keeps retrying its chips: no task dies, the link still answers
    again = info(bare, 10)
    assert again["chips"] == ALL_CHIPS and again["crashes"] == "0"


def _request(code, seq, payload=b""):
    from mjtable import link as L

    return L.frame(code, seq, payload)


def test_garbage_truncated_and_oversized_frames_change_nothing(bare):
    from mjtable import link as L

    before = info(bare)
    rng = random.Random(5)
    # 0x03/0x04 left out: on the REPL's CDC they are Ctrl-C / Ctrl-D, kept for
    # mpremote (docs/protocol.md); a frame never holds them
    noise = bytes(b for b in rng.randbytes(3000) if b not in (3, 4))
    good = _request(0x22, 7, struct.pack("<I", 1_700_000_000))  # CLOCK without its MAC
    body = struct.pack("<BBI", 1, 0x22, 8) + struct.pack("<I", 1_700_000_000)
    bad_crc = L.stuff(body + struct.pack("<I", zlib.crc32(body) ^ 1)) + b"\x00"
    junk = [noise, b"\x00", good[: len(good) // 2] + b"\x00", bad_crc,
            b"\x01" * 5000 + b"\x00", _request(0x7E, 9, b"x" * 2000), good]
    ser = L.open_port(bare, timeout=1.0)
    try:
        for j in junk:
            ser.write(j)
            time.sleep(0.2)
    finally:
        ser.close()
    after = info(bare, 30)
    for k in ("clock", "free"):
        before.pop(k)
        after.pop(k)
    assert after == before  # clock not set, no refusal noted, no crash, the same chips


# --- the board harness: chips that stop and come back ------------------------------


@pytest.fixture
def emu(tmp_path):
    b = faultkit.emu_board(faultkit.fs_image(str(tmp_path)), workdir=str(tmp_path / "w"))
    b.start()
    try:
        yield b
    finally:
        b.stop()


def _until(cond, what, wall_s=240.0):
    t = time.monotonic() + wall_s
    while not cond():
        if time.monotonic() > t:
            raise AssertionError("not within %.0f s: %s" % (wall_s, what))
        time.sleep(1)


@long_only
def test_chips_that_stop_answer_again_and_are_taken_back(emu):
    b = emu
    d = info(b.port)
    assert d["chips"] == "0"
    ex = [r.exchanges for r in b.chips.readers]
    b.answer("reader1", False)
    b.answer("keys2", False)
    _until(lambda: info(b.port, 30)["chips"] == "402", "reader1 and keys2 seen down")
    _until(lambda: b.texts()[1] == "rdEr" and b.texts()[2] == "PAd ", "their alerts shown")
    now = [r.exchanges for r in b.chips.readers]
    assert all(now[s] > ex[s] for s in (0, 2, 3))  # the other seats are read on
    b.answer("reader1", True)
    b.answer("keys2", True)
    _until(lambda: info(b.port, 30)["chips"] == "0", "both taken back")
    _until(lambda: "rdEr" not in b.texts() and "PAd " not in b.texts(), "alerts cleared")
    assert info(b.port, 30)["crashes"] == "0"


# --- the watchdog: a stuck task, and the next boot says why --------------------------

_STUCK = r"""
import machine, time, app
from boards import pico
from table import watchdog
ctl = app.boot(pico.make(machine), "", app.active_rules("", app.PRESET))
ctl.fault = "scan_task OSError(5,)"
dog = watchdog.Watchdog(machine.WDT(timeout=2000), machine.Timer(-1), time.ticks_ms,
                        grace_ms=1500, on_stuck=app.stuck("", ctl))
dog.feed()
print("STUCK")
while True:  # the scan task stuck: only the timer runs
    pass
"""

_BOOT = r"""
import machine, app
from boards import pico
ctl = app.boot(pico.make(machine), "", app.active_rules("", app.PRESET))
print("FAULT=" + ctl.fault)
"""


def _mpremote(port, code, timeout=300):
    exe = os.path.join(os.path.dirname(sys.executable), "mpremote")
    return subprocess.run([exe, "connect", port, "exec", code], capture_output=True, text=True,
                          timeout=timeout)


@long_only
def test_a_stuck_task_resets_through_the_watchdog_and_the_next_boot_says_why(tmp_path):
    b = faultkit.emu_board(faultkit.fs_image(str(tmp_path), main=False),
                           workdir=str(tmp_path / "w"))
    b.start()
    try:
        time.sleep(3)
        r = _mpremote(b.port, _STUCK)  # ends when the board resets under it
        assert "STUCK" in r.stdout, r.stdout + r.stderr
        time.sleep(3)
        r = _mpremote(b.port, _BOOT)
        line = [x for x in r.stdout.splitlines() if x.startswith("FAULT=")]
        assert line and line[0].startswith("FAULT=reset: scan task silent "), r.stdout + r.stderr
        assert line[0].endswith("ms; last fault: scan_task OSError(5,)")
    finally:
        b.stop()
