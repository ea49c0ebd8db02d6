"""table.store: atomic small files.  Plain-folder tests run on both
interpreters; the power-cut tests need LittleFS (MicroPython unix port)."""

try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

import storage_util as su
from table import store


def _folder():
    return su.scratch("store")


def test_write_then_load_round_trip_and_overwrite():
    d = _folder()
    try:
        p = d + "/rules"
        store.write(p, b"first")
        assert store.load(p) == (store.OK, b"first")
        store.write(p, bytearray(b"second, longer"))
        assert store.load(p) == (store.OK, b"second, longer")
        store.write(p, b"")
        assert store.load(p) == (store.OK, b"")
        assert not su.exists(p + store.TMP)
    finally:
        su.rmtree(d)


def test_file_layout_is_header_then_payload():
    d = _folder()
    try:
        p = d + "/s"
        store.write(p, b"abc")
        raw = su.read_file(p)
        assert raw[:4] == b"MJ\x01\x00"
        assert raw[4:8] == b"\x03\x00\x00\x00"
        assert raw[12:] == b"abc"
        # CRC-32 of b"abc" is 0x352441C2, little-endian
        assert raw[8:12] == b"\xc2\x41\x24\x35"
    finally:
        su.rmtree(d)


def test_missing_file_is_reported_missing():
    d = _folder()
    try:
        assert store.load(d + "/nothing") == (store.MISSING, None)
    finally:
        su.rmtree(d)


def test_every_one_byte_edit_is_corrupt():
    d = _folder()
    try:
        p = d + "/enroll"
        store.write(p, b"tag map 0123")
        good = su.read_file(p)
        for i in range(len(good)):
            bad = bytearray(good)
            bad[i] ^= 0x01
            su.write_file(p, bad)
            assert store.load(p) == (store.CORRUPT, None), i
    finally:
        su.rmtree(d)


def test_short_and_long_files_are_corrupt():
    d = _folder()
    try:
        p = d + "/s"
        store.write(p, b"settings")
        good = su.read_file(p)
        for n in range(len(good)):
            su.write_file(p, good[:n])
            assert store.load(p) == (store.CORRUPT, None), n
        su.write_file(p, good + b"x")
        assert store.load(p) == (store.CORRUPT, None)
    finally:
        su.rmtree(d)


def test_bad_input_is_refused_and_changes_nothing():
    d = _folder()
    try:
        p = d + "/s"
        store.write(p, b"keep")
        raises(ValueError, store.write, p + ".tmp", b"x")
        raises(ValueError, store.write, "", b"x")
        raises(ValueError, store.write, p, "text, not bytes")
        raises(ValueError, store.write, p, bytes(store.MAX_BYTES + 1))
        assert store.load(p) == (store.OK, b"keep")
        assert sorted(su_list(d)) == ["s"]
    finally:
        su.rmtree(d)


def su_list(d):
    import os

    return os.listdir(d)


def test_failed_write_leaves_old_file_and_no_temp():
    d = _folder()
    try:
        p = d + "/sub/s"  # folder does not exist: open fails
        raises(OSError, store.write, p, b"x")
        assert su_list(d) == []
    finally:
        su.rmtree(d)


def test_clean_removes_half_written_temps_only():
    d = _folder()
    try:
        store.write(d + "/rules", b"old rules")
        su.write_file(d + "/rules.tmp", b"MJ\x01\x00\x40")  # a write cut short
        su.write_file(d + "/settings.tmp", b"")
        assert store.load(d + "/rules") == (store.OK, b"old rules")
        gone = store.clean(d)
        assert sorted(gone) == ["rules.tmp", "settings.tmp"]
        assert su_list(d) == ["rules"]
        assert store.clean(d) == []
        assert store.clean(d + "/absent") == []
    finally:
        su.rmtree(d)


# --- power cuts on LittleFS ------------------------------------------------

_BLOCKS = 64  # 256 KB volume: the cut behaviour does not depend on size, the copies do


def _writes_for(image, payload_old, payload_new):
    # Baseline image holding payload_old (or nothing); returns (baseline, writes of one write).
    bd = su.mount(image, fresh=True, blocks=_BLOCKS)
    try:
        if payload_old is not None:
            store.write(su.MOUNT + "/rules", payload_old)
    finally:
        su.unmount(bd)
    base = image + ".base"
    su.copy_file(image, base)
    bd = su.mount(image, blocks=_BLOCKS)
    try:
        w0 = bd.writes
        store.write(su.MOUNT + "/rules", payload_new)
        w = bd.writes - w0
    finally:
        su.unmount(bd)
    return base, w


def _cut_run(image, base, n, tear, payload):
    su.copy_file(base, image)
    bd = su.mount(image, blocks=_BLOCKS)
    bd.arm_cut(n, tear)
    cut = False
    try:
        store.write(su.MOUNT + "/rules", payload)
    except OSError:
        cut = True
    finally:
        su.unmount(bd)
    bd = su.mount(image, blocks=_BLOCKS)  # reboot
    try:
        store.clean(su.MOUNT)
        got = store.load(su.MOUNT + "/rules")
        left = su_list(su.MOUNT)
    finally:
        su.unmount(bd)
    return cut, got, left


def _every_cut(payload_old, payload_new):
    d = _folder()
    try:
        image = d + "/flash.img"
        base, w = _writes_for(image, payload_old, payload_new)
        assert w >= 1
        for tear in (0, 7):
            for n in range(w + 2):
                cut, got, left = _cut_run(image, base, n, tear, payload_new)
                assert cut == (n < w), (n, tear, cut)
                if payload_old is None:
                    assert got in ((store.MISSING, None), (store.OK, payload_new)), (n, tear)
                else:
                    assert got in ((store.OK, payload_old), (store.OK, payload_new)), (n, tear)
                if n >= w:
                    assert got == (store.OK, payload_new)
                assert "rules.tmp" not in left
    finally:
        su.rmtree(d)


def test_cut_at_every_write_small_file_old_or_new():
    if not su.need_lfs():
        return
    _every_cut(b"old ruleset " * 3, b"new ruleset " * 4)


def test_cut_at_every_write_multi_block_file_old_or_new():
    if not su.need_lfs():
        return
    old = bytes(range(256)) * 20  # 5 KB: beyond littlefs inline files, spans blocks
    new = bytes(range(255, -1, -1)) * 40  # 10 KB
    _every_cut(old, new)


def test_cut_at_every_write_first_write_missing_or_new():
    if not su.need_lfs():
        return
    _every_cut(None, b"settings v1")


def test_write_on_a_full_volume_fails_cleanly():
    if not su.need_lfs():
        return
    d = _folder()
    try:
        image = d + "/flash.img"
        bd = su.mount(image, fresh=True, blocks=16)
        try:
            p = su.MOUNT + "/rules"
            store.write(p, b"old rules " * 500)
            full = False
            while not full:
                try:
                    with open(su.MOUNT + "/filler", "ab") as f:
                        f.write(bytes(1024))
                except OSError:
                    full = True
            raises(OSError, store.write, p, b"new rules " * 1000)
            assert store.load(p) == (store.OK, b"old rules " * 500)
            assert "rules.tmp" not in su_list(su.MOUNT)
        finally:
            su.unmount(bd)
    finally:
        su.rmtree(d)
