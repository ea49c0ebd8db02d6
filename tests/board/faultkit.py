"""Set-up of the board fault tests (tests/board/test_faults_board.py): the
firmware as deployed, on a LittleFS image made here on the unix port
(mjsim/blockdev.py has the Pico's geometry and progsize), so a test boots
the emulated Pico straight into the table (main.py) without the 90 s of a
`mjtable deploy` over the emulated USB (the board smoke test does that).
The image holds what deploy puts on the board (mjtable.firmware.deploy.manifest) and the
virtual table's enrolment map, as `mjtable enroll` would have stored it."""

import hashlib
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
BUILD = os.path.join(ROOT, "build", "firmware")

_SCRIPT = r"""
import os, sys
sys.path.insert(0, "firmware")
sys.path.insert(0, "sim")
from table import store
from mjsim import blockdev
blockdev.mount(IMG, "/flash", fresh=True)
for d in DIRS:
    os.mkdir("/flash/" + d)
for rel in FILES:
    with open(BUILD + "/" + rel, "rb") as f:
        data = f.read()
    with open("/flash/" + rel, "wb") as f:
        f.write(data)
store.write("/flash/enroll.bin", ENROLL)
if MAIN is not None:
    with open("/flash/main.py", "wb") as f:
        f.write(MAIN)
"""


def fs_image(workdir, seed=1, main=True):
    """Path of the deployed image (built once per firmware build and seed);
    main False: without main.py (the board boots to its REPL), or bytes: the
    main.py to boot into instead of the table's."""

    from mjsim.virtual import enrollment_blob
    from mjtable.firmware import deploy as D

    files = sorted(r for r in D.manifest(BUILD) if main is True or r != "main.py")
    h = hashlib.sha256(repr((seed, main)).encode())
    for rel in files:
        with open(os.path.join(BUILD, rel), "rb") as f:
            h.update(rel.encode() + f.read())
    img = os.path.join(workdir, "fs-%s.img" % h.hexdigest()[:12])
    if os.path.exists(img):
        return img
    dirs = sorted({os.path.dirname(r) for r in files if "/" in r})
    src = "IMG=%r\nDIRS=%r\nFILES=%r\nBUILD=%r\nENROLL=%r\nMAIN=%r\n" % (
        img + ".tmp", dirs, files, BUILD, enrollment_blob(seed),
        main if isinstance(main, bytes) else None) + _SCRIPT
    subprocess.run([MICROPYTHON, "-c", src], cwd=ROOT, check=True, timeout=120)
    os.replace(img + ".tmp", img)
    return img


def emu_board(fs_in, **kw):
    """An EmuBoard (not started) that boots from the LittleFS image fs_in."""
    import inspect

    from mjsim.boardemu import EmuBoard
    from mjsim.boardemu import board as B

    if "fs_in" in inspect.signature(EmuBoard).parameters:
        return EmuBoard(fs_in=fs_in, **kw)
    b = EmuBoard(**kw)  # a harness without fs_in: give the runner --fs-in at start

    def start(timeout=60.0):
        real = B.subprocess.Popen
        B.subprocess.Popen = lambda cmd, **k: real(cmd + ["--fs-in", fs_in], **k)
        try:
            return EmuBoard.start(b, timeout)
        finally:
            B.subprocess.Popen = real

    b.start = start
    return b
