"""mjsim.blockdev: the file-backed flash and its power-cut switch."""

try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

import os

import storage_util as su
from mjsim import blockdev
from mjsim.blockdev import FileBlockDev


def _dev(d, blocks=4, bs=64):
    return FileBlockDev(d + "/img", block_size=bs, block_count=blocks)


def test_pico_geometry_by_default():
    assert blockdev.PICO_FS_BYTES == 1408 * 1024
    d = su.scratch("bd")
    try:
        b = FileBlockDev(d + "/img")
        assert b.ioctl(4, 0) == 352
        assert b.ioctl(5, 0) == 4096
        b.close()
        assert os.stat(d + "/img")[6] == 1408 * 1024
    finally:
        su.rmtree(d)


def test_new_image_is_erased_and_extended_io_works_at_offsets():
    d = su.scratch("bd")
    try:
        b = _dev(d)
        buf = bytearray(64)
        b.readblocks(2, buf)
        assert buf == b"\xff" * 64
        assert b.writeblocks(1, b"abc", 10) == 0
        out = bytearray(5)
        b.readblocks(1, out, 9)
        assert out == b"\xffabc\xff"
        assert b.ioctl(6, 1) == 0  # erase
        b.readblocks(1, out, 9)
        assert out == b"\xff" * 5
        assert (b.writes, b.erases) == (2, 1)
        b.close()
    finally:
        su.rmtree(d)


def test_simple_interface_write_erases_first():
    d = su.scratch("bd")
    try:
        b = _dev(d)
        b.writeblocks(0, b"\x00" * 128)
        b.writeblocks(0, b"\x11" * 64 + b"\x22" * 64)
        got = bytearray(128)
        b.readblocks(0, got)
        assert got == b"\x11" * 64 + b"\x22" * 64
        assert b.erases == 4
        b.close()
    finally:
        su.rmtree(d)


def test_out_of_range_io_is_refused():
    d = su.scratch("bd")
    try:
        b = _dev(d)
        raises(ValueError, b.readblocks, 4, bytearray(1))
        raises(ValueError, b.readblocks, 3, bytearray(2), 63)
        raises(ValueError, b.writeblocks, -1, b"x", 0)
        raises(ValueError, b.ioctl, 6, 4)
        raises(ValueError, FileBlockDev, d + "/x", 0, 1)
        raises(ValueError, b.arm_cut, -1)
        assert b.writes == 0
        b.close()
    finally:
        su.rmtree(d)


def test_cut_lets_n_writes_land_tears_the_next_and_freezes():
    d = su.scratch("bd")
    try:
        b = _dev(d)
        b.arm_cut(2, tear=3)
        assert b.writeblocks(0, b"AAAA", 0) == 0
        assert b.ioctl(6, 3) == 0
        assert not b.cut
        assert b.writeblocks(1, b"BBBBBB", 0) == -blockdev.EIO  # torn: 3 bytes land
        assert b.cut
        assert b.writeblocks(2, b"CCCC", 0) == -blockdev.EIO  # dead: nothing lands
        assert b.ioctl(6, 0) == -blockdev.EIO
        assert b.writes == 2
        b.close()
        b = _dev(d)  # reboot over the same image
        got = bytearray(6)
        b.readblocks(0, got)
        assert got == b"AAAA\xff\xff"
        b.readblocks(1, got)
        assert got == b"BBB\xff\xff\xff"
        b.readblocks(2, got)
        assert got == b"\xff" * 6
        assert b.writeblocks(2, b"ok", 0) == 0  # a fresh device is not cut
        b.close()
    finally:
        su.rmtree(d)


def test_cut_at_zero_with_no_tear_writes_nothing():
    d = su.scratch("bd")
    try:
        b = _dev(d)
        b.arm_cut(0)
        assert b.writeblocks(0, b"Z", 0) == -blockdev.EIO
        got = bytearray(1)
        b.readblocks(0, got)
        assert got == b"\xff"
        b.close()
    finally:
        su.rmtree(d)


def test_littlefs_on_the_pico_sized_image():
    if not su.need_lfs():
        return
    d = su.scratch("bd")
    try:
        bd = blockdev.mount(d + "/img", su.MOUNT, fresh=True)
        try:
            st = os.statvfs(su.MOUNT)
            assert st[0] == 4096 and st[2] == 352
            with open(su.MOUNT + "/hello", "w") as f:
                f.write("ni hao")
        finally:
            su.unmount(bd)
        bd = blockdev.mount(d + "/img", su.MOUNT)
        try:
            with open(su.MOUNT + "/hello") as f:
                assert f.read() == "ni hao"
        finally:
            su.unmount(bd)
        # a cut makes the writer fail with EIO instead of carrying on
        bd = blockdev.mount(d + "/img", su.MOUNT)
        bd.arm_cut(0)
        e = None
        try:
            try:
                with open(su.MOUNT + "/big", "wb") as f:
                    f.write(bytes(10000))
            except OSError as x:
                e = x
        finally:
            su.unmount(bd)
        assert e is not None and e.args[0] == blockdev.EIO
    finally:
        su.rmtree(d)
