"""Atomic small files: ruleset blob, enrollment map, settings.

A write goes to `<path>.tmp`, is closed, and is renamed over `<path>`.  On
LittleFS (the Pico's filesystem) closing a file commits it (copy-on-write: the
old contents stay valid until the new metadata commit lands) and a rename is
one metadata commit, so a power cut leaves either the old file or the new one,
never a mix.  MicroPython has no fsync; close is the commit point.  Under
CPython (host tests) os.fsync is called before the rename where it exists.

Every file also carries its own check, so a read never trusts a file that a
different filesystem, a bad flash cell or a person copying files has mangled:

  off 0  2 B  magic b"MJ"
  off 2  1 B  format version (1)
  off 3  1 B  reserved, 0
  off 4  4 B  payload length, u32 little-endian
  off 8  4 B  CRC-32 (IEEE, as binascii.crc32) of the payload, u32 LE
  off 12      payload

load() answers (status, payload): OK, MISSING or CORRUPT, so the caller falls
back to its built-in default and, for CORRUPT, says so.  clean() runs at boot
and removes `.tmp` leftovers of writes that a cut interrupted (those writes
never returned, so nothing was promised about them).
"""

import os

from micropython import const
from table.crc import crc32
from table.le import put_u32, u32

OK = const(0)
MISSING = const(1)
CORRUPT = const(2)

TMP = ".tmp"
MAX_BYTES = const(65536)  # small files only; logs use recordlog
_HDR = const(12)
_VERSION = const(1)


def header(data):
    """The 12-byte header for payload `data` (bytes-like)."""
    h = bytearray(_HDR)
    h[0] = 0x4D  # 'M'
    h[1] = 0x4A  # 'J'
    h[2] = _VERSION
    put_u32(h, 4, len(data))
    put_u32(h, 8, crc32(data))
    return h


def write(path, data):
    """Replace the file at `path` with payload `data` (bytes-like), atomically.

    Raises ValueError (nothing written) for a bad path or size; on OSError
    (e.g. ENOSPC) the temp file is removed and the old file is untouched.
    """
    if not isinstance(path, str) or not path or path.endswith(TMP):
        raise ValueError("bad store path")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError("payload must be bytes")
    if len(data) > MAX_BYTES:
        raise ValueError("payload too large")
    tmp = path + TMP
    try:
        with open(tmp, "wb") as f:
            f.write(header(data))
            f.write(data)
            f.flush()
            if hasattr(os, "fsync"):  # CPython; LittleFS commits on close
                os.fsync(f.fileno())
        os.rename(tmp, path)
    except OSError:
        remove(tmp)
        raise


def load(path):
    """Read a store file.  Returns (OK, payload bytes), (MISSING, None) or (CORRUPT, None)."""
    try:
        f = open(path, "rb")
    except OSError:
        return MISSING, None
    try:
        h = f.read(_HDR)
        if len(h) < _HDR or h[0] != 0x4D or h[1] != 0x4A or h[2] != _VERSION or h[3]:
            return CORRUPT, None
        n = u32(h, 4)
        if n > MAX_BYTES:
            return CORRUPT, None
        data = f.read(n)
        if len(data) != n or f.read(1):
            return CORRUPT, None
    except OSError:  # unreadable although present
        return CORRUPT, None
    finally:
        f.close()
    if crc32(data) != u32(h, 8):
        return CORRUPT, None
    return OK, data


def clean(folder):
    """Remove leftover `*.tmp` files in `folder` (boot).  Returns the names removed."""
    gone = []
    try:
        names = os.listdir(folder)
    except OSError:
        return gone
    for name in names:
        if name.endswith(TMP):
            remove(folder + "/" + name)
            gone.append(name)
    return gone


def remove(path):
    """Remove path if it is there."""
    try:
        os.remove(path)
    except OSError:
        pass
