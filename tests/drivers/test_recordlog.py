"""table.recordlog: append-only hand log with CRC and hash chain.

The cut-at-every-byte tests truncate a copy of the file at each offset of its
last records (what any filesystem can leave after a cut) and reopen it; they
run on a plain folder under both interpreters.  The LittleFS test cuts the
block device at every write of an append (MicroPython only)."""

try:
    from check import raises
except ImportError:  # tools/mptest.py puts only firmware/ and this folder on sys.path
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

import storage_util as su
from table import recordlog as rl
from table.crc import crc32, crc32_soft
from table.recordlog import LogError, RecordLog

# Payloads of varied sizes, including empty and the largest allowed.
PAYLOADS = [b"deal", b"", b"\x01\x02\x03", bytes(range(40)), b"x" * rl.MAX_PAYLOAD, b"end!"]


def _make(d, payloads=PAYLOADS, log_id=7):
    p = d + "/h7.log"
    log = RecordLog(p, create_id=log_id)
    for i, pl in enumerate(payloads):
        assert log.append(1 + i, pl) == i
    log.close()
    return p, log


def _bounds(payloads=PAYLOADS):
    # record start offsets, plus the end
    out = [rl.HEADER_BYTES]
    for pl in payloads:
        out.append(out[-1] + rl.OVERHEAD + len(pl))
    return out


def test_crc_soft_matches_binascii():
    for data in (b"", b"a", b"abc", b"123456789", bytes(range(256))):
        assert crc32_soft(data) == crc32(data)
    assert crc32(b"123456789") == 0xCBF43926  # the standard check value
    assert crc32_soft(b"6789", crc32_soft(b"12345")) == 0xCBF43926


def test_append_read_reopen():
    d = su.scratch("log")
    try:
        p, log = _make(d)
        assert log.count == len(PAYLOADS)
        assert log.end == _bounds()[-1]
        head = log.head()
        assert len(head) == rl.CHAIN_BYTES
        again = RecordLog(p)
        assert again.log_id == 7 and again.count == len(PAYLOADS)
        assert again.repaired is None and again.damaged is None
        assert again.head() == head and again.end == log.end
        for i, pl in enumerate(PAYLOADS):
            assert again.read(i) == (1 + i, pl)
            assert again.offset_of(i) == _bounds()[i]
        assert again.offset_of(len(PAYLOADS)) == again.end
        assert again.verify() == (rl.OK, len(PAYLOADS), again.end)
        got = list(again.records())
        assert [(g[0], g[1], g[2], g[3]) for g in got] == [
            (i, _bounds()[i], 1 + i, pl) for i, pl in enumerate(PAYLOADS)
        ]
        # resume a pull from record 3 at its offset
        t, pl, nxt = again.read_at(_bounds()[3])
        assert (t, pl, nxt) == (4, PAYLOADS[3], _bounds()[4])
        rest = list(again.records(_bounds()[3], 3))
        assert [g[0] for g in rest] == [3, 4, 5]
        # appending after a reopen continues the chain
        assert again.append(9, b"more") == len(PAYLOADS)
        again.close()
        third = RecordLog(p)
        assert third.count == len(PAYLOADS) + 1 and third.damaged is None
        assert third.head() != head
        assert third.read(len(PAYLOADS)) == (9, b"more")
    finally:
        su.rmtree(d)


def test_bad_input_is_refused_and_writes_nothing():
    d = su.scratch("log")
    try:
        p, log = _make(d, [b"a"])
        before = su.read_file(p)
        raises(ValueError, log.append, 0, b"x")
        raises(ValueError, log.append, 256, b"x")
        raises(ValueError, log.append, 1, bytes(rl.MAX_PAYLOAD + 1))
        raises(LogError, RecordLog, p, 8)  # exists already
        raises(ValueError, RecordLog, d + "/new.log", -1)
        raises(IndexError, log.read, 1)
        raises(IndexError, log.offset_of, 2)
        raises(ValueError, log.read_at, rl.HEADER_BYTES + 1)
        raises(ValueError, log.read_at, 0)
        log.close()
        assert su.read_file(p) == before
        assert not su.exists(d + "/new.log")
    finally:
        su.rmtree(d)


def test_cut_at_every_byte_of_the_last_records():
    d = su.scratch("log")
    try:
        p, log = _make(d)
        good = su.read_file(p)
        head_at = []  # chain head after k records
        probe = RecordLog(d + "/probe.log", create_id=7)
        head_at.append(probe.head())
        for i, pl in enumerate(PAYLOADS):
            probe.append(1 + i, pl)
            head_at.append(probe.head())
        probe.close()
        b = _bounds()
        cut_path = d + "/cut.log"
        first = b[len(PAYLOADS) - 3]  # every offset inside the last three records
        for off in range(first, len(good) + 1):
            su.write_file(cut_path, good[:off])
            k = 0
            while b[k + 1] <= off:  # complete records before the cut
                k += 1
                if k == len(PAYLOADS):
                    break
            log = RecordLog(cut_path)
            assert log.damaged is None, off
            assert log.count == k, off
            if off == b[k]:
                assert log.repaired is None, off
            else:
                assert log.repaired == (off - b[k], k), (off, log.repaired)
            assert log.end == b[k]
            assert log.head() == head_at[k]
            assert su.read_file(cut_path) == good[: b[k]]
            assert log.verify() == (rl.OK, k, b[k])
            for i in range(k):
                assert log.read(i) == (1 + i, PAYLOADS[i])
            assert log.append(200, b"after the cut") == k
            log.close()
            again = RecordLog(cut_path)
            assert again.count == k + 1 and again.damaged is None and again.repaired is None
            assert again.read(k) == (200, b"after the cut")
            again.close()
        assert not su.exists(cut_path + ".tmp")
    finally:
        su.rmtree(d)


def test_short_file_header_is_damage_not_repair():
    d = su.scratch("log")
    try:
        p, _ = _make(d, [b"a"])
        good = su.read_file(p)
        for off in range(rl.HEADER_BYTES):
            su.write_file(p, good[:off])
            log = RecordLog(p)
            assert log.damaged == (rl.BAD_FILE, 0, 0)
            assert log.log_id is None
            raises(LogError, log.append, 1, b"x")
            assert su.read_file(p) == good[:off]
    finally:
        su.rmtree(d)


def test_every_one_byte_edit_is_detected_and_never_cut():
    d = su.scratch("log")
    try:
        pls = [b"a1", b"", b"payload three"]
        p, _ = _make(d, pls)
        good = su.read_file(p)
        b = _bounds(pls)
        for i in range(len(good)):
            bad = bytearray(good)
            bad[i] ^= 0x40
            su.write_file(p, bad)
            log = RecordLog(p)
            r = log.verify()
            assert r[0] != rl.OK, i
            assert log.repaired is None, i
            assert log.damaged is not None, i
            if i >= rl.HEADER_BYTES:
                k = 0
                while b[k + 1] <= i:
                    k += 1
                assert log.damaged[1] == k and log.damaged[2] == b[k], (i, log.damaged)
                assert r[0] in (rl.BAD_HEADER, rl.BAD_CRC, rl.BAD_CHAIN), (i, r)
                for j in range(k):  # records before the damage stay readable
                    assert log.read(j) == (1 + j, pls[j])
            else:
                assert r[0] == rl.BAD_FILE
            raises(LogError, log.append, 1, b"x")
            assert su.read_file(p) == bad  # nothing cut, nothing written
    finally:
        su.rmtree(d)


def _records(raw, payloads):
    b = _bounds(payloads)
    return raw[: rl.HEADER_BYTES], [raw[b[i] : b[i + 1]] for i in range(len(payloads))]


def test_dropped_reordered_and_foreign_records_break_the_chain():
    d = su.scratch("log")
    try:
        pls = [b"r0", b"r1", b"r2", b"r3"]
        p, _ = _make(d, pls)
        hdr, recs = _records(su.read_file(p), pls)
        cases = (
            ([recs[0], recs[2], recs[3]], 1),  # r1 dropped
            ([recs[1], recs[2], recs[3]], 0),  # r0 dropped
            ([recs[0], recs[2], recs[1], recs[3]], 1),  # r1, r2 swapped
            ([recs[0], recs[1], recs[3], recs[2]], 2),  # last two swapped
            ([recs[0], recs[1], recs[2], recs[2], recs[3]], 3),  # r2 twice
        )
        for order, at in cases:
            su.write_file(p, hdr + b"".join(order))
            log = RecordLog(p)
            assert log.damaged is not None and log.damaged[:2] == (rl.BAD_CHAIN, at), order
            assert log.verify()[:2] == (rl.BAD_CHAIN, at)
        # the same records under another log id do not verify
        other = RecordLog(d + "/h8.log", create_id=8)
        other.close()
        su.write_file(d + "/h8.log", su.read_file(d + "/h8.log") + b"".join(recs))
        assert RecordLog(d + "/h8.log").damaged[:2] == (rl.BAD_CHAIN, 0)
    finally:
        su.rmtree(d)


def test_dropping_the_last_record_changes_the_head():
    # A log cut back by whole records is still a valid log; the host's anchor
    # (the head it saw) is what tells that records went missing.
    d = su.scratch("log")
    try:
        pls = [b"r0", b"r1", b"r2"]
        p, log = _make(d, pls)
        anchor = log.head()
        hdr, recs = _records(su.read_file(p), pls)
        su.write_file(p, hdr + recs[0] + recs[1])
        short = RecordLog(p)
        assert short.verify()[0] == rl.OK and short.count == 2
        assert short.head() != anchor
    finally:
        su.rmtree(d)


# --- power cuts on LittleFS ------------------------------------------------


def test_append_cut_at_every_write_on_littlefs():
    if not su.need_lfs():
        return
    d = su.scratch("loglfs")
    try:
        image = d + "/flash.img"
        bd = su.mount(image, fresh=True, blocks=64)
        try:
            log = RecordLog(su.MOUNT + "/h1.log", create_id=1)
            for i in range(40):  # ~2 KB: past littlefs's inline limit
                log.append(1, b"action %d" % i)
            log.close()
        finally:
            su.unmount(bd)
        base = d + "/base.img"
        su.copy_file(image, base)
        big = bytes(range(200))
        bd = su.mount(image, blocks=64)
        try:
            log = RecordLog(su.MOUNT + "/h1.log")
            w0 = bd.writes
            log.append(2, big)
            log.close()
            w = bd.writes - w0
        finally:
            su.unmount(bd)
        assert w >= 1
        for tear in (0, 5):
            for n in range(w + 1):
                su.copy_file(base, image)
                bd = su.mount(image, blocks=64)
                bd.arm_cut(n, tear)
                try:
                    log = RecordLog(su.MOUNT + "/h1.log")
                    try:
                        log.append(2, big)
                        log.close()
                    except OSError:
                        pass
                finally:
                    su.unmount(bd)
                bd = su.mount(image, blocks=64)
                try:
                    log = RecordLog(su.MOUNT + "/h1.log")
                    assert log.damaged is None, (n, tear)
                    assert log.count in (40, 41), (n, tear, log.count)
                    if n >= w:
                        assert log.count == 41
                    for i in range(40):
                        assert log.read(i) == (1, b"action %d" % i)
                    if log.count == 41:
                        assert log.read(40) == (2, big)
                    assert log.verify()[0] == rl.OK
                    log.close()
                finally:
                    su.unmount(bd)
    finally:
        su.rmtree(d)
