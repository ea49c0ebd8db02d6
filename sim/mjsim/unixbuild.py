"""The firmware as the MicroPython unix port runs it in the simulation: the
board's modules (firmware/manifest.py) and this room's firmware-side modules
(the simulated board, the pty link, the file-backed flash, the entry point),
constants folded together, compiled for this machine's port (viper code is
native code: the board's armv6m build does not load here)."""

import os

from mjtable.firmware import build as B
from mjtable.firmware import release, tree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOM = os.path.dirname(HERE)  # the folder holding this package
# the modules of this package the firmware process imports
UNIX_MODULES = ("__init__.py", "board.py", "blockdev.py", "ptyport.py", "unixmain.py")


def sources() -> dict:
    """{"mjsim/NAME.py": text} of UNIX_MODULES."""
    out = {}
    for name in UNIX_MODULES:
        with open(os.path.join(HERE, name), encoding="utf-8") as f:
            out[os.path.join("mjsim", name)] = f.read()
    return out


def build(dst: str, src: str | None = None) -> dict:
    """Compile the firmware (src, else the tree's) and UNIX_MODULES into dst
    for this machine's unix port; {package: bytes}. A release's firmware
    gets its build facts too (the mjbuild module the table's image has), so
    the virtual table answers INFO with the release's commit. SystemExit
    naming the file mpy-cross refused, or the unknown port."""
    arch = B.native_arch(tree.tool("micropython"))
    extra = sources()
    rec = release.record() if src is None else None  # None in a checkout
    if rec is not None:
        extra["mjbuild.py"] = release.mjbuild(rec["firmware"], rec["firmware_commit"])
    return B.build(src or tree.source(), dst, arch=arch, extra=extra)


def micropython_env(src: str | None = None) -> dict:
    """os.environ with MICROPYPATH holding the firmware's sources (src, else the
    tree's) and this room, for a MicroPython script that imports both."""
    path = ":".join((src or tree.source(), ROOM, ".frozen"))
    return dict(os.environ, MICROPYPATH=path)
