"""The firmware on the emulated Pico (boardemu, docs/board.md): boot the
stock MicroPython image with the table's chips on its buses, deploy as a user
does, play the start of a hand with the virtual table's bots, then `mjtable
info` and `mjtable logs pull` over the board's USB. Select with `-m board`.

Wall time: about 100 s on two idle cores (the deploy is 40 of it)."""

import os

import pytest
from mjsim.boardemu import EmuBoard, play, skip_reason

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.board
if skip_reason():
    pytest.skip(skip_reason(), allow_module_level=True)

# the deal: each seat's 13 tiles (the dealer's 14) laid on its rack and read
FIRST = 4
T = "--timeout"
SLOW = "60"  # s: the emulated board runs several times slower than a real one


def test_board_boots_deploys_plays_and_answers(tmp_path):
    b = EmuBoard(seed=3, workdir=str(tmp_path / "board"))
    with b:
        b.provision_files()  # the key and the tile map, as `key set` and `enroll` leave them
        out = b.deploy()
        assert "no ROMFS on the board" in out  # the stock image: code as files
        assert "the board answers: firmware" in out
        vt = play.V.VirtualTable(seed=3)
        bp = play.BoardPlay(b, vt, until=play.first_actions(FIRST)).start()
        try:
            assert bp.wait(1200), "stuck: %r %r" % (vt.stuck, bp.watch.actions)
        finally:
            bp.stop()
        assert not vt.mismatch and vt.stuck is None
        assert not bp.watch.errors
        # every action the board accepted is the bot's move, in order
        moves = [(k, s, a) for k, s, a in vt.applied]
        assert bp.watch.actions == moves[:len(bp.watch.actions)]
        assert len(bp.watch.actions) >= FIRST
        assert sum(r.violations for r in b.chips.readers) == 0  # BUSY handshake kept
        info = b.mjtable("info", T, SLOW).stdout
        assert "key           set" in info and "logs waiting  1" in info
        # a monitor started mid-hand catches up from the hand's log, then follows
        def caught_up(lines):  # "East deal 1m2m..": each seat's, then "=== live"
            return sum(" deal " in ln for ln in lines) >= FIRST and "=== live" in lines

        mon = b.mjtable_lines("monitor", "--brief", T, SLOW, seconds=90, until=caught_up)
        assert "=== hand in play (log 1): caught up from its log" in mon, mon[-20:]
        assert caught_up(mon) and not any("Traceback" in ln for ln in mon), mon[-20:]
        # a push mid-hand: the table itself refuses it, says why, keeps its rules
        r = b.mjtable("rules", "push", "chengdu", "--wait", "0", T, SLOW, check=False)
        assert r.returncode == 2 and "the table is busy (a hand is in play" in r.stderr, r
        info = b.mjtable("info", T, SLOW).stdout
        assert "xuezhan" in info and "chengdu" not in info, info
        arch = str(tmp_path / "archive.sqlite")
        b.mjtable("logs", "pull", "--all", "--no-ack", "--archive", arch, "--quiet", T, SLOW)
        pulled = play.pulled_hands(arch)
        assert len(pulled) == 1  # the hand in play, as far as it went
        assert pulled[0]["actions"][:len(bp.watch.actions)] == bp.watch.actions
        # the firmware's own console since the deploy's reset: no task died
        boot = b.console().split("MPY: soft reboot")[-1]
        assert 'File "main.py"' not in boot and "Task exception" not in boot, boot[-2000:]
