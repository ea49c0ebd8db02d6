"""`mjtable flash [UF2] [--dry-run] [--drive DIR] [--port P] [--timeout S] [--wait S]`:
put the table's own MicroPython image on a Pico (docs/image.md;
mjtable.firmware.uf2).

1. read the UF2 (default: in a checkout build/mjtable-pico.uf2, `make uf2`;
   installed from a release, the image it carries): its blocks must be
   whole RP2040 UF2 blocks, and its payload must hold the image's mark
   ("mjtable-fw VERSION COMMIT"), which names the firmware it carries;
2. find the Pico in BOOTSEL mode (hold BOOTSEL while plugging it in): the
   RPI-RP2 drive, a mounted folder holding INFO_UF2.TXT with
   "Board-ID: RPI-RP2" (--drive, else the mount table), or, with no drive,
   `picotool` where installed;
3. write the image (a copy onto the drive, which the Pico's boot ROM
   flashes and then reboots; or `picotool load -x`);
4. wait (--wait seconds) for the table to answer on the link (--port, else
   found by USB id) and check that it reports the image's firmware version
   and commit (INFO fw, commit).
--dry-run says what it would do and writes nothing.
"""

from __future__ import annotations

import os

from mjtable import BadInput, seconds
from mjtable.firmware import check, tree
from mjtable.firmware import uf2 as U
from mjtable.link import port as findport


def add_parsers(sub):
    p = sub.add_parser("flash", help="write the table's MicroPython image to a Pico in BOOTSEL")
    p.add_argument("uf2", nargs="?", default=None, metavar="UF2",
                   help="the image (default %s)" % tree.image())
    p.add_argument("--dry-run", action="store_true", help="say what would be done, write nothing")
    p.add_argument("--drive", metavar="DIR",
                   help="the Pico's RPI-RP2 drive (default: found among the mounted drives)")
    findport.add_arguments(p, key=False)  # --port, --timeout: the link for the check
    p.add_argument("--wait", type=seconds, default=60.0, metavar="S",
                   help="seconds to wait for the flashed table to answer (0: do not check)")
    p.set_defaults(func=flash)


def image_path(args) -> str:
    """The UF2 given, else the checkout's build or the release's image."""
    if args.uf2 is not None:
        return args.uf2
    path = tree.image()
    if not os.path.isfile(path):
        raise BadInput("%s: no image here (%s); or give the UF2 to write" % (
            path, "make uf2" if tree.CHECKOUT else "this wheel was built without one"))
    return path


def flash(args):
    path = image_path(args)
    img = U.read(path)
    print("image %s: firmware %s (commit %s), MicroPython %s of %s, %d blocks"
          % (path, img["fw"], img["commit"], img["mpy"], img["date"], img["blocks"]))
    drive = U.find_drive(args.drive)
    tool = None if drive else U.picotool()
    if drive is None and tool is None:
        raise BadInput("no Pico in BOOTSEL mode: hold its BOOTSEL button while plugging it in "
                       "(an %s drive appears), or give --drive" % U.BOOT_DRIVE)
    how = ("copy it onto the %s drive at %s" % (U.BOOT_DRIVE, drive) if drive
           else "load it with %s" % tool)
    wait = ("then wait up to %.0f s for the table on the link (%s) and check its version"
            % (args.wait, args.port or "found by USB id")) if args.wait > 0 else "no check"
    if args.dry_run:
        print("would %s; %s" % (how, wait))
        return 0
    if drive:
        print("wrote %s" % U.write_drive(path, drive))
    else:
        U.picotool_load(path)
        print("loaded with picotool")
    if args.wait > 0:
        info = check.wait_info(args, args.wait, "of the flash")
        check.expect(info, img["fw"], img["commit"], "the image")
        print("the table answers: firmware %s (commit %s), MicroPython %s"
              % (info["fw"], info["commit"], info.get("mpy", "?")))
    return 0
