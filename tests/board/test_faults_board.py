"""Faults on the emulated Pico (the real rp2 MicroPython image, the deployed
firmware booting into main.py): chips that never answer, stop and come back,
garbage on the USB link, a stuck task and the watchdog, power cuts in a
hand's log. `make test` runs the two on the bare board (no chip on any bus:
every seat cable unplugged: the harness's runner without its chip models);
the rest, on the board harness (boardemu) with the chip models, only with
MJ_BOARD_LONG=1 (`make test-long`)."""

import contextlib
import json
import os
import random
import struct
import subprocess
import sys
import time
import zlib

import faultkit
import pytest
from mjsim.boardemu.board import HERE as EMU_DIR
from mjsim.boardemu.board import NODE_DIR, images, skip_reason

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

RUNNER = os.path.join(EMU_DIR, "runner.mjs")

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


@contextlib.contextmanager
def plain_board(d, main=True):
    """The emulated Pico with nothing on its buses, booting the image: the
    harness's runner (sim/mjsim/boardemu/runner.mjs) without its bridge, so no chip
    model answers. Yields its pty; the runner's log is d/runner.log."""
    port = os.path.join(d, "tty")
    env = dict(os.environ, RP2EMU_NODE_DIR=NODE_DIR, RP2EMU_BOOTROM=images()["bootrom"])
    log = open(os.path.join(d, "runner.log"), "wb")  # the runner says "hard-reset" there
    p = subprocess.Popen(["node", RUNNER, "--fw", images()["stock"], "--pty", "--pty-link", port,
                          "--fs-in", faultkit.fs_image(d, main=main)], env=env,
                         stdout=log, stderr=log)
    try:
        while not os.path.exists(port):
            assert p.poll() is None, "the runner exited"
            time.sleep(0.1)
        yield port
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log.close()


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    with plain_board(str(tmp_path_factory.mktemp("bare"))) as port:
        yield port


def test_no_chip_answering_the_link_answers_and_names_every_chip(bare):
    first = info(bare)
    assert first["chips"] == ALL_CHIPS and first["crashes"] == 0 and first["fault"] == ""
    time.sleep(2)  # the table keeps retrying its chips: no task dies, the link still answers
    again = info(bare, 10)
    assert again["chips"] == ALL_CHIPS and again["crashes"] == 0


def _request(code, seq, payload=b""):
    from mjtable.link import client as L

    return L.frame(code, seq, payload)


def test_garbage_truncated_and_oversized_frames_change_nothing(bare):
    from mjtable.link import client as L

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
    for k in ("clock", "free", "heap"):  # they change as the board runs
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
    assert info(b.port, 30)["crashes"] == 0


# --- the watchdog: a stuck task, and the next boot says why --------------------------

# At the REPL of a board booted without main.py: put the table's main.py back
# (the next boot runs the firmware), then a scan task that stops feeding.
_STUCK = b"""
import machine, time, app
from table import watchdog
with open("main.py", "wb") as f:  # closed: the reset comes while the loop runs
    f.write(MAIN)
class Ctl:
    fault = "scan_task OSError(5,)"
dog = watchdog.Watchdog(machine.WDT(timeout=2000), machine.Timer(-1), time.ticks_ms,
                        grace_ms=1500, on_stuck=app.stuck("", Ctl))
dog.feed()
print("STUCK")
while True:  # the scan task stuck: only the watchdog's timer runs
    pass
"""


def _paste(ser, code):
    """Run code at the board's friendly REPL (paste mode: Ctrl-E .. Ctrl-D)."""
    ser.write(b"\x05")
    time.sleep(0.3)
    for i in range(0, len(code), 128):
        ser.write(code[i : i + 128])
        time.sleep(0.05)
    ser.write(b"\x04")


def _read_until(ser, what, wall_s):
    out = b""
    t = time.monotonic() + wall_s
    while what not in out and time.monotonic() < t:
        out += ser.read(4096)
    return out


@long_only
def test_a_stuck_task_resets_the_board_through_the_watchdog_and_the_next_boot_says_why(
        tmp_path):
    # The whole chain on the board: the timer callback stores why on the
    # board's LittleFS once the grace has run out, the feeds stop, the RP2040's
    # watchdog resets the chip 2 s later, and the firmware's next boot reports
    # the reason (INFO fault) and removes it.
    from mjtable.link import client as L

    with open(os.path.join(faultkit.BUILD, "main.py"), "rb") as f:
        code = b"MAIN = %r\n" % f.read() + _STUCK
    with plain_board(str(tmp_path), main=False) as port:
        ser = L.open_port(port, timeout=0.2)
        try:
            for _ in range(60):  # the friendly REPL once it has booted
                ser.write(b"\r\n")
                if b">>> " in _read_until(ser, b">>> ", 1):
                    break
            _paste(ser, code)
            assert b"\nSTUCK\r\n" in _read_until(ser, b"\nSTUCK\r\n", 120)
        finally:
            ser.close()
        runner_log = os.path.join(str(tmp_path), "runner.log")
        _until(lambda: b"hard-reset" in open(runner_log, "rb").read(), "the watchdog's reset")
        fault = info(port)["fault"]
        assert fault.startswith("reset: scan task silent ") and fault.endswith(
            " ms; last fault: scan_task OSError(5,)"), fault
        assert 1500 <= int(fault.split()[4]) < 3000  # silent for the grace, then one tick


# --- power cuts in a hand's log, on the board's LittleFS ------------------------------

RECORDS = 12  # one short hand: the head, 10 actions, the end
# a whole log on flash: new_log() writes the link to the log before first (format 2)
WHOLE = RECORDS + 1


def _runs(text):
    """{log id: (records, verify())} of the LOG lines, {log id: last OK index},
    the BOOT line and the NEW log's id, of a console slice."""
    logs, oks, boot, new = {}, {}, None, None
    for line in text.splitlines():
        w = line.split()
        if line.startswith("LOG "):
            logs[int(w[1])] = (int(w[2]), line.split(" ", 3)[3])
        elif line.startswith("OK "):
            oks[int(w[1])] = int(w[2])
        elif line.startswith("BOOT "):
            boot = line
        elif line.startswith("NEW "):
            new = int(w[1])
    return logs, oks, boot, new


def _reset(port):
    exe = os.path.join(os.path.dirname(sys.executable), "mpremote")
    subprocess.run([exe, "connect", port, "reset"], capture_output=True, timeout=120)


def _wait_console(b, mark, what, wall_s=120.0):
    _until(lambda: what in b.console()[mark:], what, wall_s)
    return b.console()[mark:]


def _cut_at(b, k):
    """Arm a cut after the kth flash operation of the next boot and reboot;
    (console of the cut run, console of the boot after) or None if the run
    ended (DONE) first."""
    mark = len(b.console())
    b.power_cut(after=k)
    _reset(b.port)
    t = time.monotonic() + 120
    while True:
        try:
            b.wait_cut(0.2)
            break
        except TimeoutError:
            pass
        out = b.console()[mark:]
        if "DONE" in out:
            with b.locked():
                b.chips.out.append("C0")  # cancel: the run wrote less than k times
            return None
        assert time.monotonic() < t, "neither a cut nor DONE: " + out[-300:]
    cut_run = b.console()[mark:]
    mark = len(b.console())
    b.power_on()
    return cut_run, _wait_console(b, mark, "DONE")


def _check_cut(cut_run, after, before_logs):
    logs, _, boot, new = _runs(after)
    oks = _runs(cut_run)[1]
    assert boot is not None and "damaged=[]" in boot, boot
    for i, (n, verdict) in logs.items():
        assert verdict.startswith("(0, %d," % n), (i, verdict)  # every record good, chain whole
        if i in before_logs:
            assert n == before_logs[i], (i, n)  # a log written before the cut: untouched
        if i in oks:
            assert n >= oks[i] + 2, (i, n, oks[i])  # no record whose append returned is lost
    known = {i: n for i, (n, _) in logs.items()}
    known[new] = WHOLE  # the boot after the cut wrote one whole hand
    return known


def _cut_board(tmp_path):
    main = b"RECORDS = %d\n" % RECORDS + open(os.path.join(HERE, "cutlog.py"), "rb").read()
    b = faultkit.emu_board(faultkit.fs_image(str(tmp_path), main=main),
                           workdir=str(tmp_path / "w"))
    b.start()
    return b


def test_a_power_cut_in_a_hands_log_loses_no_record_on_the_boards_littlefs(tmp_path):
    b = _cut_board(tmp_path)
    try:
        first = _wait_console(b, 0, "DONE")
        assert "OK 1 %d" % (RECORDS - 1) in first
        got = _cut_at(b, 8)  # in the appends of the next hand's log
        assert got is not None
        known = _check_cut(got[0], got[1], {1: WHOLE})
        assert known[1] == WHOLE and 2 in known  # hand 1 whole, hand 2 cut (and the next)
    finally:
        b.stop()


@long_only
def test_a_power_cut_at_every_flash_write_of_a_hand_loses_no_record(tmp_path):
    b = _cut_board(tmp_path)
    try:
        _wait_console(b, 0, "DONE")
        known = {1: WHOLE}
        cuts = 0
        for k in range(1, 400):
            got = _cut_at(b, k)
            if got is None:
                break  # the whole hand (and the boot before it) written with fewer writes
            known = _check_cut(got[0], got[1], known)
            cuts += 1
        print("power cuts: %d, at flash writes 1..%d of a boot and a hand of %d records"
              % (cuts, cuts, RECORDS))
        assert cuts >= RECORDS  # at least a write per record was cut
    finally:
        b.stop()
