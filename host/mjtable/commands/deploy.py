"""`mjtable deploy [--port P] [--dry-run] [--src DIR]`: put the firmware on
a stock MicroPython board (mjtable.firmware.deploy).

1. the firmware: in a checkout (or with --src) the modules firmware/manifest.py
   names, and main.py, compiled with mpy-cross for the RP2040 (armv6m) into
   build/firmware; installed from a release, the compiled firmware it carries;
2. if the board's MicroPython has a ROMFS partition big enough (`mpremote
   romfs query`), the compiled packages go there as one image (`mpremote
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
   firmware version deployed.
--dry-run does 1-3 and lists what it would write and why, writing nothing
(without a reachable board: every file, "board not checked").
--port is the REPL's serial port (mpremote's); the link is found by USB id
(or --link-port).
"""

from __future__ import annotations

import os
import tempfile

from mjtable import BadInput
from mjtable.firmware import check, release, tree
from mjtable.firmware import deploy as D
from mjtable.link import client as L


def add_parsers(sub):
    p = sub.add_parser("deploy", help="compile and copy the firmware to the board")
    p.add_argument("--port", metavar="P", help="the board's REPL serial port (for mpremote)")
    p.add_argument("--link-port", metavar="P", help="the link's port for the version check")
    p.add_argument("--dry-run", action="store_true", help="list what would be copied, and why")
    p.add_argument("--files", action="store_true",
                   help="copy every file to the filesystem even if the board has ROMFS")
    p.add_argument("--src", default=None,
                   help="firmware source folder to compile (default: firmware/ of this "
                        "checkout; installed, the compiled firmware the release carries)")
    p.add_argument("--build", default=tree.build("firmware"),
                   help="where the firmware is compiled (default %(default)s)")
    p.add_argument("--no-board", action="store_true",
                   help="do not ask the board (with --dry-run: list every file)")
    p.set_defaults(func=deploy)


def find_port(args):
    """The REPL port: --port, else the last interface of the first table found
    (the REPL's sorts last); None when there is no board and this is a dry run."""
    if args.port is not None or args.no_board:
        return args.port
    found = L.find_table_ports()
    if found:
        return found[-1]
    if not args.dry_run:
        raise BadInput("no board found (USB VID 0x2E8A); give --port")
    print("no board found: listing every file")
    return None


def link_port(args):
    """The link's port: --link-port; else the table found by USB id; else the
    REPL's --port, which carries the link when the board has no second CDC
    interface (no usb-device-cdc) and is not found by USB id (a pty: the
    emulated board)."""
    if args.link_port is not None:
        return args.link_port
    return None if L.find_table_ports() else args.port


def check_version(args, want: str) -> None:
    class A:
        port = link_port(args)
        timeout = 5.0
        key = None

    info = check.wait_info(A, 20, "after the reset")
    check.expect(info, want, None, "this deploy")
    print("the board answers: firmware %s" % info.get("fw"))


def deploy(args, query=D.query_rom):
    if args.src is None and tree.CHECKOUT is None:  # installed: the release's build
        firmware = release.record()["firmware"]  # BadInput: a wheel not made by make dist
        return _deploy(args, query, tree.packaged(tree.RP2), firmware)
    if args.src is None:
        args.src = tree.source()
    D.check_source(args.src)
    # this deploy's own build folder: two deploys at once (two tables) must not
    # rebuild the folder the other is copying from
    parent = os.path.dirname(os.path.abspath(args.build))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=os.path.basename(args.build) + ".", dir=parent)
    try:
        D.build(args.src, work)
        return _deploy(args, query, work, release.source_version(args.src), work + "-rom")
    finally:
        D.publish(work, args.build)


def _deploy(args, query, folder: str, version: str, stage=None) -> int:
    """Deploy the compiled firmware of folder (version); stage: where to build
    its ROMFS image, None for the release's own."""
    local = D.manifest(folder)
    port = find_port(args)
    size = query(port) if port is not None and not args.files else 0
    files, rom = D.split_rom(local) if size else (local, {})
    image = None
    if rom:
        image = D.romfs_image(folder, rom, stage) if stage else tree.packaged(tree.ROMFS)
        need = os.path.getsize(image)
        if need > size:
            raise BadInput("the firmware's ROMFS image is %d bytes, the board's partition %d;"
                           " deploy with --files" % (need, size))
        print("%s ROMFS image: %d files, %d of %d bytes (code runs from flash)"
              % ("would write" if args.dry_run else "write", len(rom), need, size))
    remote = D.remote_hashes(port, local) if port is not None else None
    remove = D.shadowing(rom, remote)
    for path in remove:
        print("%s %-28s shadows the ROMFS image" % ("would remove" if args.dry_run else "remove",
                                                    path))
    todo = D.plan(files, remote)
    for path, why in todo:
        print("%s %-28s %s" % ("would copy" if args.dry_run else "copy", path, why))
    print("%d of %d file(s) %s: firmware %s (%s)"
          % (len(todo), len(files), "to copy" if args.dry_run else "copied", version,
             "compiled from %s" % args.src if stage else "as this release carries it"))
    if not rom and port is not None:
        print("no ROMFS on the board: the code loads into RAM when imported")
    if args.dry_run:
        return 0
    if remote is None:
        raise BadInput("give --port to deploy")
    if todo or image or remove:
        D.copy(port, folder, todo, image, remove)
    check_version(args, version)
    return 0
