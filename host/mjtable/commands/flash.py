"""`mjtable flash [UF2] [--dry-run] [--drive DIR] [--port P] [--timeout S] [--wait S]`:
put the table's own MicroPython image on a Pico (docs/image.md).

1. read the UF2 (default build/mjtable-pico.uf2, `make uf2`): its blocks
   must be whole RP2040 UF2 blocks, and its payload must hold the image's
   mark ("mjtable-fw VERSION COMMIT", the frozen mjbuild module), which
   names the firmware it carries;
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
import re
import shutil
import struct
import subprocess
import time

from mjtable import BadInput
from mjtable.firmware import tree
from mjtable.link import client as L
from mjtable.link import port as findport

DEFAULT_UF2 = tree.build("mjtable-pico.uf2")
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)  # start 0, start 1, end
UF2_FAMILY = 0x2000  # flags: the family id field is set
RP2040 = 0xE48BFF56
_MARK = re.compile(rb"mjtable-fw ([0-9A-Za-z.+-]+) ([0-9a-f]{12}(?:-dirty)?|unknown)")
_MPY = re.compile(rb"MicroPython (v\d+\.\d+\.\d+\S*) on (\d{4}-\d\d-\d\d)")
BOOT_DRIVE = "RPI-RP2"  # the RP2040 boot ROM's drive (its volume label)
MOUNTS = "/proc/mounts"


def add_parsers(sub):
    p = sub.add_parser("flash", help="write the table's MicroPython image to a Pico in BOOTSEL")
    p.add_argument("uf2", nargs="?", default=DEFAULT_UF2, metavar="UF2",
                   help="the image (default build/mjtable-pico.uf2: make uf2)")
    p.add_argument("--dry-run", action="store_true", help="say what would be done, write nothing")
    p.add_argument("--drive", metavar="DIR",
                   help="the Pico's RPI-RP2 drive (default: found among the mounted drives)")
    findport.add_arguments(p, key=False)  # --port, --timeout: the link for the check
    p.add_argument("--wait", type=float, default=60.0, metavar="S",
                   help="seconds to wait for the flashed table to answer (0: do not check)")
    p.set_defaults(func=flash)


def read_uf2(path: str) -> dict:
    """{"size", "blocks", "payload" (bytes by flash address), "fw", "commit",
    "mpy", "date"} of an RP2040 UF2; BadInput naming what is wrong."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror)) from None
    if not data or len(data) % 512:
        raise BadInput("%s: not a UF2 file (%d bytes, not whole 512-byte blocks)"
                       % (path, len(data)))
    parts = []
    n = len(data) // 512
    for i in range(n):
        b = data[i * 512:(i + 1) * 512]
        m0, m1, flags, addr, size, _no, _total, family = struct.unpack_from("<8I", b)
        (m2,) = struct.unpack_from("<I", b, 508)
        if (m0, m1, m2) != UF2_MAGIC:
            raise BadInput("%s: block %d is not a UF2 block" % (path, i))
        if not flags & UF2_FAMILY or family != RP2040:
            raise BadInput("%s: block %d is not for an RP2040 (family %08x)" % (path, i, family))
        if size > 476:
            raise BadInput("%s: block %d claims %d payload bytes" % (path, i, size))
        parts.append((addr, b[32:32 + size]))
    payload = b"".join(p for _a, p in sorted(parts))
    mark = _MARK.search(payload)
    if mark is None:
        raise BadInput("%s: no table firmware in this image (no mjtable-fw mark): "
                       "build it with `make uf2`" % path)
    mpy = _MPY.search(payload)
    return {"size": len(data), "blocks": n, "fw": mark.group(1).decode(),
            "commit": mark.group(2).decode(),
            "mpy": mpy.group(1).decode() if mpy else "?",
            "date": mpy.group(2).decode() if mpy else "?"}


def is_boot_drive(folder: str) -> bool:
    """A folder is the Pico's boot drive if its INFO_UF2.TXT names the RPI-RP2 board."""
    try:
        with open(os.path.join(folder, "INFO_UF2.TXT"), encoding="ascii", errors="replace") as f:
            return "Board-ID: %s" % BOOT_DRIVE in f.read()
    except OSError:
        return False


def mounted_folders() -> list:
    """Mount points from the mount table, and the usual places desktops mount
    a drive labelled RPI-RP2 (macOS /Volumes, udisks /media and /run/media)."""
    out = []
    try:
        with open(MOUNTS) as f:
            for line in f:
                fields = line.split()
                if len(fields) > 1:
                    out.append(fields[1].replace("\\040", " "))
    except OSError:
        pass
    out.append(os.path.join("/Volumes", BOOT_DRIVE))
    for base in ("/media", "/run/media"):
        try:
            for user in sorted(os.listdir(base)):
                out.append(os.path.join(base, user, BOOT_DRIVE))
        except OSError:
            pass
    return out


def find_drive(args) -> str | None:
    if args.drive is not None:
        if not is_boot_drive(args.drive):
            raise BadInput("%s is not a Pico in BOOTSEL mode (no INFO_UF2.TXT naming %s)"
                           % (args.drive, BOOT_DRIVE))
        return args.drive
    for folder in mounted_folders():
        if is_boot_drive(folder):
            return folder
    return None


def write_drive(uf2: str, drive: str) -> str:
    """Copy the image onto the drive, flushed to the device: the boot ROM
    flashes each block as it comes and reboots the Pico after the last."""
    dst = os.path.join(drive, os.path.basename(uf2))
    with open(uf2, "rb") as src, open(dst, "wb") as out:
        shutil.copyfileobj(src, out)
        out.flush()
        os.fsync(out.fileno())
    return dst


def picotool_load(uf2: str) -> None:
    r = subprocess.run(["picotool", "load", "-x", uf2], capture_output=True, text=True,
                       timeout=300)
    if r.returncode:
        raise BadInput("picotool could not write the image: %s"
                       % (r.stderr or r.stdout).strip()[-300:])


def check_table(args, want: dict) -> None:
    """Wait for the flashed table on the link; its INFO must name the image."""
    deadline = time.monotonic() + args.wait
    while True:
        try:
            link = findport.connect(args)
            try:
                got = link.info()
            finally:
                link.stream.close()
            break
        except (BadInput, L.LinkError):  # not up yet (USB re-enumerating, booting)
            if time.monotonic() > deadline:
                raise BadInput("the table did not answer on the link within %.0f s of the flash"
                               % args.wait) from None
            time.sleep(1)
    fw, commit = got.get("fw"), got.get("commit")
    if (fw, commit) != (want["fw"], want["commit"]):
        raise BadInput("the table answers firmware %s commit %s, the image holds %s commit %s"
                       % (fw, commit, want["fw"], want["commit"]))
    print("the table answers: firmware %s (commit %s), MicroPython %s"
          % (fw, commit, got.get("mpy", "?")))


def flash(args):
    img = read_uf2(args.uf2)
    print("image %s: firmware %s (commit %s), MicroPython %s of %s, %d blocks"
          % (args.uf2, img["fw"], img["commit"], img["mpy"], img["date"], img["blocks"]))
    drive = find_drive(args)
    tool = None if drive else shutil.which("picotool")
    if drive is None and tool is None:
        raise BadInput("no Pico in BOOTSEL mode: hold its BOOTSEL button while plugging it in "
                       "(an %s drive appears), or give --drive" % BOOT_DRIVE)
    how = ("copy it onto the %s drive at %s" % (BOOT_DRIVE, drive) if drive
           else "load it with %s" % tool)
    check = ("then wait up to %.0f s for the table on the link (%s) and check its version"
             % (args.wait, args.port or "found by USB id")) if args.wait > 0 else "no check"
    if args.dry_run:
        print("would %s; %s" % (how, check))
        return 0
    if drive:
        print("wrote %s" % write_drive(args.uf2, drive))
    else:
        picotool_load(args.uf2)
        print("loaded with picotool")
    if args.wait > 0:
        check_table(args, img)
    return 0
