"""Scratch folders, file copies and LittleFS mounts for the storage tests.

Runs under CPython and MicroPython (unix port).  LittleFS (os.VfsLfs2) exists
only on MicroPython; need_lfs() turns that into a visible pytest skip under
CPython (pytest is imported only there) and a plain False elsewhere.
"""

import os
import sys

from mjsim.blockdev import PROG_SIZE, FileBlockDev

TMP = "/tmp"
MOUNT = "/lfs_test"


def scratch(tag):
    """A new empty folder under /tmp (unique name); returns its path."""
    r = os.urandom(4)
    p = "%s/mj_%s_%02x%02x%02x%02x" % (TMP, tag, r[0], r[1], r[2], r[3])
    os.mkdir(p)
    return p


def rmtree(p):
    try:
        names = os.listdir(p)
    except OSError:
        try:
            os.remove(p)
        except OSError:
            pass
        return
    for n in names:
        rmtree(p + "/" + n)
    os.rmdir(p)


def exists(p):
    try:
        os.stat(p)
        return True
    except OSError:
        return False


def read_file(p):
    with open(p, "rb") as f:
        return f.read()


def write_file(p, data):
    with open(p, "wb") as f:
        f.write(data)


def copy_file(src, dst):
    buf = bytearray(4096)
    mv = memoryview(buf)
    with open(src, "rb") as a, open(dst, "wb") as b:
        while True:
            n = a.readinto(buf)
            if not n:
                break
            b.write(mv[:n])


def have_lfs():
    return hasattr(os, "VfsLfs2")


def need_lfs():
    """True if LittleFS tests can run; under CPython report a pytest skip."""
    if have_lfs():
        return True
    if sys.implementation.name == "cpython":
        import pytest  # CPython only: make the skip visible in the report

        pytest.skip("needs os.VfsLfs2: run `micropython tools/mptest.py tests/drivers`")
    return False


def mount(image, fresh=False, blocks=None):
    """Mount a LittleFS2 volume over `image` at MOUNT; returns the FileBlockDev."""
    if blocks is None:
        bdev = FileBlockDev(image)
    else:
        bdev = FileBlockDev(image, block_count=blocks)
    if fresh:
        os.VfsLfs2.mkfs(bdev, progsize=PROG_SIZE)
    os.mount(os.VfsLfs2(bdev, progsize=PROG_SIZE), MOUNT)
    return bdev


def unmount(bdev):
    try:
        os.umount(MOUNT)
    except OSError:
        pass
    bdev.close()
