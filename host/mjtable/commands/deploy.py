"""`mjtable deploy [--port P] [--dry-run]`: put the firmware on the board.

1. compile the modules firmware/manifest.py names, and main.py, with
   mpy-cross for the RP2040 (armv6m) into build/firmware (mjtable.firmware.build);
2. if the board's MicroPython has a ROMFS partition big enough (`mpremote
   romfs query`), write the compiled packages there as one image (`mpremote
   romfs deploy`): their code then runs in place from flash, as frozen code
   would, and costs no heap (the virtual table measures the heap that way:
   mjsim.mprun). Only main.py (a few lines that start app) goes to the
   filesystem, and code left there by an earlier file deploy is removed,
   since it would shadow the image.
   Without ROMFS (or with --files) every file is copied to the filesystem
   and its code loads into RAM when imported;
3. ask the board for the SHA-256 of each file it holds (mpremote exec) and copy
   with mpremote only the files that are new or differ;
4. reset the board, then check over the link that it answers with the
   firmware version of this tree.
--dry-run does 1-3 and lists what it would write and why, writing nothing
(without a reachable board: every file, "board not checked").
--port is the REPL's serial port (mpremote's); the link is found by USB id
(or --link-port).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time

from mjtable import BadInput
from mjtable.firmware import build as B
from mjtable.firmware import tree


def add_parsers(sub):
    p = sub.add_parser("deploy", help="compile and copy the firmware to the board")
    p.add_argument("--port", metavar="P", help="the board's REPL serial port (for mpremote)")
    p.add_argument("--link-port", metavar="P", help="the link's port for the version check")
    p.add_argument("--dry-run", action="store_true", help="list what would be copied, and why")
    p.add_argument("--files", action="store_true",
                   help="copy every file to the filesystem even if the board has ROMFS")
    p.add_argument("--src", default=tree.source(),
                   help="firmware source tree (default: firmware/ of this checkout)")
    p.add_argument("--build", default=tree.build("firmware"))
    p.add_argument("--no-board", action="store_true",
                   help="do not ask the board (with --dry-run: list every file)")
    p.set_defaults(func=deploy)


def build(src: str, dst: str) -> dict:
    """Compile src into dst; {board path: sha256 hex} of what goes on the board."""
    import shutil

    if os.path.isdir(dst):
        shutil.rmtree(dst)
    try:
        B.build(src, dst)
    except SystemExit as e:
        raise BadInput(str(e)) from None
    return manifest(dst)


def manifest(dst: str) -> dict:
    out = {}
    for root, dirs, files in os.walk(dst):
        dirs.sort()
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


def stage_rom(build_dir: str, rom: dict, stage: str) -> int:
    """Copy the image's files into stage; the image's size in bytes."""
    import shutil

    if os.path.isdir(stage):
        shutil.rmtree(stage)
    for path in rom:
        os.makedirs(os.path.join(stage, os.path.dirname(path)), exist_ok=True)
        shutil.copyfile(os.path.join(build_dir, path), os.path.join(stage, path))
    out = stage + ".romfs"
    r = subprocess.run([mpremote(), "romfs", "-o", out, "build", stage],
                       capture_output=True, text=True, timeout=120)
    if r.returncode or not os.path.exists(out):
        raise BadInput("romfs build failed: %s" % (r.stderr or r.stdout).strip()[-300:])
    return os.path.getsize(out)


def query_rom(port: str) -> int:
    r = subprocess.run([mpremote(), "connect", port, "romfs", "query"],
                       capture_output=True, text=True, timeout=60)
    return rom_size(r.stdout) if r.returncode == 0 else 0


def mpremote() -> str:
    here = os.path.join(os.path.dirname(sys.executable), "mpremote")
    return here if os.path.exists(here) else "mpremote"


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
    r = subprocess.run([mpremote(), "connect", port, "exec", _HASH_SCRIPT % (sorted(paths),)],
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


def copy(port: str, build_dir: str, todo, stage=None, remove=()) -> None:
    """Write the ROMFS image from stage (if given), remove the shadowing files,
    copy the files of todo, reset."""
    dirs = sorted({os.path.dirname(p) for p, _ in todo if os.path.dirname(p)})
    cmd = [mpremote(), "connect", port]
    if stage is not None:
        cmd += ["romfs", "deploy", stage, "+"]
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


def source_version(src: str) -> str:
    with open(os.path.join(src, "table", "hostcmds.py"), encoding="utf-8") as f:
        m = re.search(r'^FW_VERSION = "([^"]+)"', f.read(), re.M)
    return m.group(1) if m else "?"


def link_port(args):
    """The link's port: --link-port; else the table found by USB id; else the
    REPL's --port, which carries the link when the board has no second CDC
    interface (no usb-device-cdc) and is not found by USB id (a pty: the
    emulated board)."""
    from mjtable.link import client as L

    if args.link_port is not None:
        return args.link_port
    return None if L.find_table_ports() else args.port


def check_version(args, want: str) -> None:
    from mjtable.link import port as findport

    class A:
        port = link_port(args)
        timeout = 5.0
        key = None

    deadline = time.monotonic() + 20
    while True:
        try:
            link = findport.connect(A)
            got = link.info().get("fw")
            break
        except BadInput:
            if time.monotonic() > deadline:
                raise BadInput("the board did not answer on the link after the reset") from None
            time.sleep(1)
    if got != want:
        raise BadInput("the board answers firmware %s, expected %s" % (got, want))
    print("the board answers: firmware %s" % got)


def find_port(args):
    """The REPL port: --port, else the last interface of the first table found
    (the REPL's sorts last); None when there is no board and this is a dry run."""
    if args.port is not None or args.no_board:
        return args.port
    from mjtable.link import client as L

    found = L.find_table_ports()
    if found:
        return found[-1]
    if not args.dry_run:
        raise BadInput("no board found (USB VID 0x2E8A); give --port")
    print("no board found: listing every file")
    return None


def deploy(args, query=query_rom):
    if not os.path.isfile(os.path.join(args.src, "app.py")):
        raise BadInput("%s: not a firmware folder (no app.py)" % args.src)
    # this deploy's own build folder: two deploys at once (two tables) must not
    # rebuild the folder the other is copying from
    import tempfile

    parent = os.path.dirname(os.path.abspath(args.build))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=os.path.basename(args.build) + ".", dir=parent)
    try:
        return _deploy(args, query, work)
    finally:
        _publish(work, args.build)


def _publish(work: str, dst: str) -> None:
    """Leave the last build at dst (what `make firmware` makes) and its ROMFS
    stage at dst-rom, best effort: a deploy running meanwhile keeps its own."""
    import shutil

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


def _deploy(args, query, build_dir: str) -> int:
    local = build(args.src, build_dir)
    port = find_port(args)
    size = query(port) if port is not None and not args.files else 0
    files, rom = split_rom(local) if size else (local, {})
    stage = None
    if rom:
        stage = build_dir + "-rom"
        need = stage_rom(build_dir, rom, stage)
        if need > size:
            raise BadInput("the firmware's ROMFS image is %d bytes, the board's partition %d;"
                           " deploy with --files" % (need, size))
        print("%s ROMFS image: %d files, %d of %d bytes (code runs from flash)"
              % ("would write" if args.dry_run else "write", len(rom), need, size))
    remote = remote_hashes(port, local) if port is not None else None
    remove = shadowing(rom, remote)
    for path in remove:
        print("%s %-28s shadows the ROMFS image" % ("would remove" if args.dry_run else "remove",
                                                    path))
    todo = plan(files, remote)
    for path, why in todo:
        print("%s %-28s %s" % ("would copy" if args.dry_run else "copy", path, why))
    print("%d of %d file(s) %s (the modules %s/manifest.py names, and main.py)"
          % (len(todo), len(files), "to copy" if args.dry_run else "copied", args.src))
    if not rom and port is not None:
        print("no ROMFS on the board: the code loads into RAM when imported")
    if args.dry_run:
        return 0
    if remote is None:
        raise BadInput("give --port to deploy")
    if todo or stage or remove:
        copy(port, build_dir, todo, stage, remove)
    check_version(args, source_version(args.src))
    return 0
