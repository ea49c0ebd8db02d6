"""Putting the compiled firmware on a stock MicroPython board with mpremote
(`mjtable deploy`, docs/hostcmds.md).

What goes on the board is a folder of compiled files (mjtable.firmware.build:
the modules firmware/manifest.py names as .mpy for the RP2040, and main.py),
described by a manifest {board path: SHA-256 hex}. On a board whose
MicroPython has a ROMFS partition, the .mpy files go there as one image
(`mpremote romfs deploy`): their code runs in place from flash and costs no
heap; main.py stays a file. The board is asked for the SHA-256 of each file
it holds, and only what is new or differs is copied.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess

from mjtable import BadInput
from mjtable.firmware import build as B
from mjtable.firmware import tree


def check_source(src: str) -> None:
    if not os.path.isfile(os.path.join(src, "app.py")):
        raise BadInput("%s: not a firmware folder (no app.py)" % src)


def build(src: str, dst: str) -> dict:
    """Compile the firmware of folder src into dst (emptied first); its manifest."""
    check_source(src)
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    try:
        B.build(src, dst)
    except SystemExit as e:
        raise BadInput(str(e)) from None
    return manifest(dst)


def manifest(dst: str) -> dict:
    """{board path: sha256 hex} of the files under dst (not __pycache__: pip
    compiles a release's main.py where it installs it)."""
    out = {}
    for root, dirs, files in os.walk(dst):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(root, name), dst).replace(os.sep, "/")
            with open(os.path.join(root, name), "rb") as f:
                out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def plan(local: dict, remote) -> list:
    """[(path, reason)] of the files to copy: remote None = board not checked;
    else a {path: sha256 hex or None (missing)} of what the board holds."""
    todo = []
    for path in sorted(local):
        if remote is None:
            todo.append((path, "board not checked"))
        elif remote.get(path) is None:
            todo.append((path, "new on the board"))
        elif remote[path] != local[path]:
            todo.append((path, "changed (board %s, here %s)" % (remote[path][:8],
                                                               local[path][:8])))
    return todo


_ROM_SIZE = re.compile(r"ROMFS0 partition has size (\d+) bytes")


def rom_size(query: str) -> int:
    """Bytes of the board's first ROMFS partition, from what `mpremote romfs
    query` printed; 0 when it has none ("ROMFS is not enabled", no partition)."""
    m = _ROM_SIZE.search(query)
    return int(m.group(1)) if m else 0


def split_rom(local: dict) -> tuple:
    """(files for the filesystem, files for the ROMFS image) of a manifest:
    the files the board runs as source (main.py) stay files, every .mpy
    (app.mpy and the packages) goes in the image."""
    fs = {p: h for p, h in local.items() if p.endswith(".py")}
    return fs, {p: h for p, h in local.items() if not p.endswith(".py")}


def shadowing(rom: dict, remote) -> list:
    """Package files an earlier file deploy left on the board's filesystem:
    the filesystem comes first on sys.path, so they would run instead of the image."""
    return [] if remote is None else sorted(p for p in rom if remote.get(p) is not None)


def romfs_image(build_dir: str, rom: dict, stage: str) -> str:
    """The ROMFS image of rom's files of build_dir (`mpremote romfs build` of
    a copy staged in folder stage): its path, stage + ".romfs"."""
    if os.path.isdir(stage):
        shutil.rmtree(stage)
    for path in rom:
        os.makedirs(os.path.join(stage, os.path.dirname(path)), exist_ok=True)
        shutil.copyfile(os.path.join(build_dir, path), os.path.join(stage, path))
    out = stage + ".romfs"
    r = subprocess.run([tree.tool("mpremote"), "romfs", "-o", out, "build", stage],
                       capture_output=True, text=True, timeout=120)
    if r.returncode or not os.path.exists(out):
        raise BadInput("romfs build failed: %s" % (r.stderr or r.stdout).strip()[-300:])
    return out


def query_rom(port: str) -> int:
    """Bytes of the ROMFS partition of the board on port (0: none)."""
    r = subprocess.run([tree.tool("mpremote"), "connect", port, "romfs", "query"],
                       capture_output=True, text=True, timeout=60)
    return rom_size(r.stdout) if r.returncode == 0 else 0


_HASH_SCRIPT = """
import hashlib, binascii
for p in %r:
    try:
        h = hashlib.sha256()
        with open(p, 'rb') as f:
            while True:
                b = f.read(512)
                if not b:
                    break
                h.update(b)
        print('H', p, binascii.hexlify(h.digest()).decode())
    except OSError:
        print('H', p, '-')
"""


def remote_hashes(port: str, paths) -> dict:
    """{path: sha256 hex, or None when missing} of the board's files of paths."""
    r = subprocess.run([tree.tool("mpremote"), "connect", port, "exec",
                        _HASH_SCRIPT % (sorted(paths),)],
                       capture_output=True, text=True, timeout=120)
    if r.returncode:
        raise BadInput("mpremote could not read the board on %s: %s"
                       % (port, (r.stderr or r.stdout).strip()[-300:]))
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"H (\S+) (\S+)$", line.strip())
        if m:
            out[m.group(1)] = None if m.group(2) == "-" else m.group(2)
    return out


def copy(port: str, build_dir: str, todo, image=None, remove=()) -> None:
    """Write the ROMFS image file (if given), remove the shadowing files,
    copy the files of todo from build_dir, reset the board."""
    dirs = sorted({os.path.dirname(p) for p, _ in todo if os.path.dirname(p)})
    cmd = [tree.tool("mpremote"), "connect", port]
    if image is not None:
        cmd += ["romfs", "deploy", image, "+"]
    for path in remove:
        cmd += ["fs", "rm", ":" + path, "+"]
    for d in dirs:  # parents first; an existing folder is not an error for mkdir -p style
        cmd += ["exec", "import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass" % d, "+"]
    for path, _why in todo:
        cmd += ["fs", "cp", "-f", os.path.join(build_dir, path), ":" + path, "+"]
    cmd += ["reset"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise BadInput("mpremote failed: %s" % (r.stderr or r.stdout).strip()[-300:])


def publish(work: str, dst: str) -> None:
    """Leave a deploy's build (work) at dst (what `make firmware` makes) and
    its ROMFS stage at dst-rom, best effort: a deploy running meanwhile (two
    tables at once) keeps its own work folder."""
    for a, b in ((work, dst), (work + "-rom", dst + "-rom"),
                 (work + "-rom.romfs", dst + "-rom.romfs")):
        if not os.path.exists(a):
            continue
        old = a + ".old"
        try:
            if os.path.isdir(b):
                os.rename(b, old)
            os.replace(a, b)
        except OSError:
            pass
        for p in (a, old):
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
