# The image's main.py, frozen into it (image/MJTABLE_PICO/manifest.py).
# MicroPython v1.28 runs a frozen main.py in preference to one on the
# filesystem (shared/runtime/pyexec.c, pyexec_file_if_exists), and this one
# puts the frozen modules first on sys.path (the filesystem's root comes
# first by default), so what an earlier `mjtable deploy` left on flash
# cannot shadow the image's firmware: the boot names it and runs the frozen
# code (INFO shadowed=, docs/image.md).
import os
import sys

import micropython

try:  # a keyed table: Ctrl-C stays off (the board starts main.py so) until app.py
    os.stat("key")  # has seen the key button; an open one has it at once
except OSError:
    micropython.kbd_intr(3)

import mjbuild

sys.path.remove(".frozen")
sys.path.insert(0, ".frozen")


def _on_flash():
    found = []
    for name in ("main.py", "app.py", "app.mpy", "boards", "drivers", "sichuan", "table"):
        try:
            os.stat(name)
            found.append(name)
        except OSError:
            pass
    return ",".join(found)


mjbuild.shadowed = _on_flash()
if mjbuild.shadowed:
    print("boot: flash holds %s from a file deploy; ignored: the image's firmware %s runs"
          % (mjbuild.shadowed, mjbuild.FW))
del _on_flash

import app  # noqa: E402

app.start(sys.argv)
