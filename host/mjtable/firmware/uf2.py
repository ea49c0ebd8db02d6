"""The table's image as a UF2 file, and the Pico's BOOTSEL drive it is
written to (docs/image.md).

A UF2 file is whole 512-byte blocks (Microsoft's UF2 format: magic words,
flags, target address, payload size, block number, block count, family id,
476 payload bytes, end magic); the RP2040's family id is 0xE48BFF56. The
table's image holds a mark, "mjtable-fw VERSION COMMIT" (the frozen mjbuild
module, mjtable.firmware.release.mjbuild), which names the firmware it
carries. A Pico held in BOOTSEL mode shows its boot ROM's RPI-RP2 drive,
whose INFO_UF2.TXT says "Board-ID: RPI-RP2"; a UF2 copied onto it is
flashed block by block, and the Pico reboots after the last.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess

from mjtable import BadInput

UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)  # start 0, start 1, end
UF2_FAMILY = 0x2000  # flags: the family id field is set
RP2040 = 0xE48BFF56
MARK = re.compile(rb"mjtable-fw ([0-9A-Za-z.+-]+) ([0-9a-f]{12}(?:-dirty)?|unknown)")
_MPY = re.compile(rb"MicroPython (v\d+\.\d+\.\d+\S*) on (\d{4}-\d\d-\d\d)")
BOOT_DRIVE = "RPI-RP2"  # the RP2040 boot ROM's drive (its volume label)
MOUNTS = "/proc/mounts"


def read(path: str) -> dict:
    """{"size", "blocks", "fw", "commit", "mpy", "date"} of an RP2040 UF2
    holding the table's image; BadInput naming what is wrong."""
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
    mark = MARK.search(payload)
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


def find_drive(drive: str | None = None) -> str | None:
    """The Pico's boot drive: drive (BadInput unless it is one), else the
    first mounted one; None when there is none."""
    if drive is not None:
        if not is_boot_drive(drive):
            raise BadInput("%s is not a Pico in BOOTSEL mode (no INFO_UF2.TXT naming %s)"
                           % (drive, BOOT_DRIVE))
        return drive
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


def picotool() -> str | None:
    return shutil.which("picotool")


def picotool_load(uf2: str) -> None:
    r = subprocess.run(["picotool", "load", "-x", uf2], capture_output=True, text=True,
                       timeout=300)
    if r.returncode:
        raise BadInput("picotool could not write the image: %s"
                       % (r.stderr or r.stdout).strip()[-300:])
