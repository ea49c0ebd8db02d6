"""The release's firmware onto a stock MicroPython Pico (the emulated one,
boardemu; its ROMFS build when ../shared/rp2emu has it): `mjtable deploy
--port P` from the wheel alone (the `release` fixture, tests/conftest.py)
writes the compiled firmware the wheel carries, its ROMFS image as it is,
and then finds the release's firmware version on the board's link. Select
with `-m board`; about a minute of wall time."""

import os
import subprocess

import pytest
from mjsim.boardemu import EmuBoard, images, skip_reason

pytestmark = pytest.mark.board
if skip_reason():
    pytest.skip(skip_reason(), allow_module_level=True)


def test_the_release_deploys_onto_a_stock_board(release, tmp_path):
    uf2 = images()["romfs"] or images()["stock"]
    rec = release["record"]
    b = EmuBoard(seed=5, uf2=uf2, workdir=str(tmp_path / "board"))
    with b:
        r = subprocess.run([os.path.join(release["bin"], "mjtable"), "deploy", "--port", b.port],
                           cwd=release["cwd"], env=release["env"], capture_output=True,
                           text=True, timeout=900)
        assert r.returncode == 0, r.stdout + r.stderr
        if uf2 == images()["romfs"]:  # the packaged image, written as it is
            assert "write ROMFS image:" in r.stdout and " %d of " % rec["romfs_bytes"] in r.stdout
        assert "firmware %s (as this release carries it)" % rec["firmware"] in r.stdout
        assert "the board answers: firmware %s" % rec["firmware"] in r.stdout
        # the firmware's own console since the deploy's reset: it started, no task died
        boot = b.console().split("MPY: soft reboot")[-1]
        assert 'File "main.py"' not in boot and "Task exception" not in boot, boot[-2000:]
