# The table's host commands (table/hostcmds.py) behind the firmware link, driven
# with frames built by the firmware's own framing, on a scratch folder; under
# CPython and MicroPython.
import struct

from sichuan import presets
from sichuan import ruleset as R
from storage_util import exists, rmtree, scratch
from table import frame as F
from table import hostcmds as HC
from table import store
from table.crc import crc32
from table.link import Link
from table.logstore import LogStore
from table.mac import Mac
from table.recordlog import RecordLog
from table.whiten import MASK, xor

KEY = bytes(range(40, 72))
TID = b"TESTTBL1"


class Rig:
    def __init__(self, key=KEY, busy=False, enroll=None, selftest=None):
        self.dir = scratch("hostcmds")
        self.logs = LogStore(self.dir + "/logs")
        self.inq = bytearray()
        self.out = bytearray()
        self.seq = 0
        self.is_busy = busy
        self.current = -1
        self.rules_seen = []
        self.matches = []
        self.link = Link(self._read, self._write, key=key, table_id=TID)
        self.host = HC.install(
            self.link, self.logs, root=self.dir, busy=lambda: self.is_busy,
            current_log=lambda: self.current, on_rules=self.rules_seen.append,
            on_match=lambda op, a: self.matches.append(op), table_id=TID,
            on_enroll=enroll.load_blob if enroll else None,
            enroll_map=enroll.uids if enroll else None, selftest=selftest)
        self.hello()

    def close(self):
        self.host.log_files.close()
        rmtree(self.dir)

    def _read(self, mv):
        n = min(len(mv), len(self.inq))
        mv[:n] = self.inq[:n]
        self.inq = self.inq[n:]
        return n

    def _write(self, mv):
        self.out += bytes(mv)
        return len(mv)

    def frames(self):
        for _ in range(1000):
            self.link.poll()
            self.host.poll()
            if not self.inq and self.link.idle() and not self.host.pending():
                break
        out = []
        for chunk in bytes(self.out).split(b"\x00"):
            if chunk:
                buf = bytearray(chunk)
                n = F.decode(buf, len(buf))
                assert n > 0
                out.append((buf[1], F.seq_of(buf), bytes(buf[F.HDR : n - 4])))
        self.out = bytearray()
        return out

    def send(self, code, payload=b"", mac=False, key=KEY):
        self.seq += 1
        body = bytearray(F.MAX_BODY + 64)
        F.put_header(body, code, self.seq)
        n = F.HDR + len(payload)
        body[F.HDR : n] = payload
        if mac:
            body[n : n + 32] = Mac(key).digest(self.link.nonce, body[:n])
            n += 32
        n = F.seal(body, n)
        wire = bytearray(F.stuffed_max(n) + 1)
        w = F.encode(body, n, wire, 0)
        self.inq += wire[:w] + b"\x00"
        replies = [f for f in self.frames() if f[0] == code | F.REPLY]
        assert len(replies) == 1
        return replies[0][2]  # status byte + data

    def hello(self):
        self.send(F.CMD_HELLO, b"\x01")

    def put(self, kind, data, mac=True, key=KEY):
        st = self.send(F.CMD_PUT, struct.pack("<BHII", kind, 0, len(data), 0) + data, mac, key)
        if st[0]:
            return st
        return self.send(F.CMD_COMMIT, struct.pack("<BHII", kind, 0, len(data), crc32(data)),
                         mac, key)

    def get(self, kind, idx, off=0, n=1000):
        r = self.send(F.CMD_GET, struct.pack("<BHIH", kind, idx, off, n))
        assert r[0] == 0, r[0]
        total, crc = struct.unpack_from("<II", r, 1)
        return total, crc, r[9:]

    def info(self):
        r = self.send(F.CMD_INFO)
        assert r[0] == 0
        return dict(x.split("=", 1) for x in r[1:].decode().split("\n") if "=" in x)

    def make_log(self, n=5):
        log = self.logs.new_log()
        log.append(HC.T_HEAD, b"HL-header-bytes")
        for i in range(n):
            log.append(HC.T_ACT, bytes([i]) * (i + 3))
        return log


def _status(r):
    return r[0], (struct.unpack_from("<I", r, 1)[0] if len(r) >= 5 else None)


def test_info_reports_rules_logs_clock_key():
    t = Rig()
    try:
        t.make_log().close()
        d = t.info()
        assert d["fw"] == HC.FW_VERSION and d["rules"] == "xuezhan"
        assert d["rules_crc"] == "%08x" % presets.get("xuezhan").crc()
        assert d["logs"] == "1" and d["key"] == "1" and int(d["free"]) > 0
        assert d["clock_set"] == "0"
        assert t.send(HC.CMD_CLOCK, struct.pack("<I", 1800000000), True)[0] == 0
        d = t.info()
        assert d["clock_set"] == "1" and 1800000000 <= int(d["clock"]) < 1800000100
    finally:
        t.close()


class _Build:  # stands for the image's mjbuild module (image/build.py writes it)
    COMMIT = "0123456789ab"
    shadowed = ""


def test_info_names_micropython_and_the_images_commit():
    import sys

    t = Rig()
    try:
        d = t.info()
        assert d["mpy"] == "%d.%d.%d" % tuple(sys.implementation.version[:3])
        assert "commit" not in d and "usb" not in d  # a file deploy: no mjbuild
        sys.modules["mjbuild"] = _Build
        d = t.info()
        assert d["commit"] == "0123456789ab" and "shadowed" not in d
        _Build.shadowed = "app.mpy,table"
        t.host.usb = "maint"
        d = t.info()
        assert d["shadowed"] == "app.mpy,table" and d["usb"] == "maint"
    finally:
        sys.modules.pop("mjbuild", None)
        _Build.shadowed = ""
        t.close()


def test_rules_push_activates_only_a_whole_valid_supported_blob():
    t = Rig()
    try:
        good = presets.get("chengdu")
        assert t.put(F.OBJ_RULES, good.to_blob())[0] == 0
        assert t.host.rules == good and t.rules_seen == [good]
        st, blob = store.load(t.dir + "/ruleset.bin")
        assert st == store.OK and blob == good.to_blob()
        total, crc, data = t.get(F.OBJ_RULES, 0)
        assert data == good.to_blob() and crc == crc32(data) and total == len(data)
        # a blob with its own CRC broken: refused, with the reason in INFO
        bad = bytearray(presets.get("xueliu").to_blob())
        bad[10] ^= 1
        assert _status(t.put(F.OBJ_RULES, bytes(bad))) == (F.E_CHECK, 0)
        assert "CRC" in t.info()["refused"]
        # a deal larger than the tiles in play
        v = presets.get("duankagen")
        v.set(R.P_SUITS, 2)  # 36 tiles of 筒
        v.set(R.P_HAND_SIZE, 13)
        assert _status(t.put(F.OBJ_RULES, v.to_blob())) == (F.E_ARG, R.P_HAND_SIZE)
        assert "the deal needs" in t.info()["refused"]
        five = presets.get("xuezhan")
        five.set(R.P_PLAYERS, 5)
        assert _status(t.put(F.OBJ_RULES, five.to_blob())) == (F.E_ARG, R.P_PLAYERS)
        assert "players = 5 but the table has 4 seats" in t.info()["refused"]
        # fewer players than seats: they play at seats 0..players-1; 宜宾's 听用
        two = presets.get("erren")
        assert t.put(F.OBJ_RULES, two.to_blob())[0] == 0
        assert t.host.rules == two
        yb = presets.get("yibin")
        assert t.put(F.OBJ_RULES, yb.to_blob())[0] == 0
        assert t.put(F.OBJ_RULES, good.to_blob())[0] == 0
        # without the MAC, or with the wrong key
        x = presets.get("xueliu").to_blob()
        assert t.put(F.OBJ_RULES, x, mac=False)[0] == F.E_AUTH
        assert t.put(F.OBJ_RULES, x, key=b"\x01" * 32)[0] == F.E_AUTH
        # while a hand is in play
        t.is_busy = True
        assert t.put(F.OBJ_RULES, x)[0] == F.E_BUSY
        assert t.host.rules == good and store.load(t.dir + "/ruleset.bin")[1] == good.to_blob()
        assert t.rules_seen == [good, two, yb, good]
    finally:
        t.close()


def test_rules_survive_a_restart():
    t = Rig()
    try:
        t.put(F.OBJ_RULES, presets.get("games456").to_blob())
        again = HC.Host(Link(t._read, t._write, key=KEY), t.logs, root=t.dir)
        assert again.rules == presets.get("games456")
    finally:
        t.close()


def test_logs_list_get_and_ack_by_head():
    t = Rig()
    try:
        a = t.make_log(3)
        a.close()
        b = t.make_log(40)
        b.close()
        r = t.send(HC.CMD_LOGS, struct.pack("<I", 0))
        n, more = struct.unpack_from("<HB", r, 1)
        assert (n, more) == (2, 0)
        ids = [struct.unpack_from("<II", r, 4 + 8 * i) for i in range(n)]
        assert [i for i, _ in ids] == [a.log_id, b.log_id]
        with open(t.logs.path(b.log_id), "rb") as f:
            raw = bytearray(f.read())
        xor(raw, len(raw), MASK)  # served whitened
        raw = bytes(raw)
        assert ids[1][1] == len(raw)
        got = b""
        while len(got) < len(raw):
            total, crc, data = t.get(F.OBJ_LOG, b.log_id, len(got), 100)
            assert total == len(raw) and crc == crc32(raw)
            got += data
        assert got == raw
        # no such log; a log cannot be written by the host
        assert t.send(F.CMD_GET, struct.pack("<BHIH", F.OBJ_LOG, 99, 0, 10))[0] == F.E_ARG
        assert t.put(F.OBJ_LOG, b"forged")[0] == F.E_ARG
        # ack: needs the MAC, the right head, and not the hand being written
        ack = struct.pack("<I", b.log_id)
        assert t.send(HC.CMD_ACK, ack + b.head(), False)[0] == F.E_AUTH
        assert t.send(HC.CMD_ACK, ack + b"\x00" * 8, True)[0] == F.E_CHECK
        t.current = b.log_id
        assert t.send(HC.CMD_ACK, ack + b.head(), True)[0] == F.E_BUSY
        assert t.logs.list() == [a.log_id, b.log_id]
        t.current = -1
        assert t.send(HC.CMD_ACK, ack + b.head(), True)[0] == 0
        assert t.logs.list() == [a.log_id] and not exists(t.logs.path(b.log_id))
        assert t.send(HC.CMD_ACK, ack + b.head(), True)[0] == F.E_ARG
    finally:
        t.close()


def test_a_growing_log_reports_its_new_size_and_crc():
    t = Rig()
    try:
        log = t.make_log(2)
        t.current = log.log_id  # the hand in play: the only log that grows
        total1, crc1, _ = t.get(F.OBJ_LOG, log.log_id, 0, 10)
        log.append(HC.T_ACT, b"one more")
        total2, crc2, _ = t.get(F.OBJ_LOG, log.log_id, 0, 10)
        log.close()
        assert total2 == total1 + 18 + 8 and crc2 != crc1
    finally:
        t.close()


def test_a_log_read_in_play_is_served_whole_once_its_hand_ended():
    # issue 21: the handle opened while the hand was in play kept serving its
    # old size and CRC after the hand ended (end record and seal after it)
    t = Rig()
    try:
        log = t.make_log(2)
        t.current = log.log_id
        total1, _, _ = t.get(F.OBJ_LOG, log.log_id, 0, 10)
        assert t.info()["hand"] == str(log.log_id)
        log.append(HC.T_END, b"\x00" * 8)
        t.host.seal(log)
        log.close()
        t.current = -1  # the hand is over; the next has not begun
        assert t.info()["hand"] == "-1"
        with open(t.logs.path(log.log_id), "rb") as f:
            whole = f.read()
        total2, crc2, data = t.get(F.OBJ_LOG, log.log_id, 0, 1000)
        assert total2 == len(whole) > total1
        plain = bytearray(data)
        xor(plain, len(plain), MASK)
        assert bytes(plain) == whole and crc2 == crc32(data)
        assert t.get(F.OBJ_LOG, log.log_id, 0, 1000)[0] == len(whole)  # and stays so
    finally:
        t.close()


def test_enrolment_map_checked_for_duplicates():
    t = Rig()
    try:
        m = bytearray(HC.ENROLL_LEN)
        for tile in range(108):
            m[tile * 8] = tile + 1
            m[tile * 8 + 7] = 0xE0
        assert t.put(F.OBJ_ENROLL, bytes(m))[0] == 0
        assert t.get(F.OBJ_ENROLL, 0)[2] == bytes(m)
        dup = bytearray(m)
        dup[50 * 8 : 51 * 8] = m[7 * 8 : 8 * 8]
        assert _status(t.put(F.OBJ_ENROLL, bytes(dup))) == (F.E_CHECK, 50)
        assert _status(t.put(F.OBJ_ENROLL, bytes(100))) == (F.E_LEN, HC.ENROLL_LEN)
        assert store.load(t.dir + "/enroll.bin")[1] == bytes(m)
    finally:
        t.close()


def test_a_live_enrolment_map_is_served_and_updated_in_place():
    from table.enroll import Enrollment

    m = bytearray(HC.ENROLL_LEN)
    for tile in range(108):
        m[tile * 8] = tile + 1
        m[tile * 8 + 7] = 0xE0
    en = Enrollment()
    en.load_blob(bytes(m))
    t = Rig(enroll=en)
    try:
        assert t.host.enroll_obj.data is en.uids  # held once: the table's own bytes
        total, crc, data = t.get(F.OBJ_ENROLL, 0)
        assert (total, crc, data) == (HC.ENROLL_LEN, crc32(bytes(m)), bytes(m))
        m[3 * 8 + 1] = 0x77  # tile 3 gets a new tag
        assert t.put(F.OBJ_ENROLL, bytes(m))[0] == 0
        assert t.host.enroll_obj.data is en.uids and bytes(en.uids) == bytes(m)
        assert en.lookup(m, 3 * 8) == 3
        assert t.get(F.OBJ_ENROLL, 0)[1:] == (crc32(bytes(m)), bytes(m))
        assert store.load(t.dir + "/enroll.bin")[1] == bytes(m)
    finally:
        t.close()


def test_match_and_watch_and_events():
    t = Rig()
    try:
        assert t.send(HC.CMD_MATCH, b"\x01", True)[0] == 0
        assert t.send(HC.CMD_MATCH, b"\x01", False)[0] == F.E_AUTH
        assert t.send(HC.CMD_MATCH, b"\x09", True)[0] == F.E_ARG
        assert t.matches == [HC.MATCH_START]
        t.host.push_event(b"\x02not watched")
        assert t.frames() == []
        assert t.send(HC.CMD_WATCH, b"\x01")[0] == 0
        for i in range(HC.EVENT_QUEUE + 3):
            t.host.push_event(bytes([2, i]))
        evs = [f for f in t.frames() if f[0] == HC.EV_GAME | F.REPLY]
        assert t.host.dropped == 3
        assert b"dropped=3\n" in t.host.info()  # a watcher learns it lost events
        assert [e[2] for e in evs] == [bytes([2, i]) for i in range(3, HC.EVENT_QUEUE + 3)]
        assert t.send(HC.CMD_WATCH, b"\x00")[0] == 0
        t.host.push_event(b"\x02x")
        assert t.frames() == []
    finally:
        t.close()


def test_seal_is_the_key_mac_of_the_chain():
    t = Rig()
    try:
        log = t.make_log(4)
        head = log.head()
        assert t.host.seal(log)
        log.close()
        again = RecordLog(t.logs.path(log.log_id))
        rtype, mac = again.read(again.count - 1)
        again.close()
        assert rtype == HC.T_SEAL
        assert mac == Mac(KEY).digest(HC.SEAL_TAG, TID, struct.pack("<I", log.log_id), head)
    finally:
        t.close()
    t = Rig(key=None)
    try:
        log = t.make_log(1)
        assert not t.host.seal(log)
        log.close()
    finally:
        t.close()


def test_whitening_is_its_own_inverse_and_clears_the_special_bytes():
    data = bytearray(bytes(range(256)) * 4)
    orig = bytes(data)
    mv = memoryview(data)
    xor(mv[5:900], 895, MASK)  # a slice, as the provider whitens a reply in place
    assert bytes(data[:5]) == orig[:5] and bytes(data[900:]) == orig[900:]
    assert data[5] == orig[5] ^ MASK and data[899] == orig[899] ^ MASK
    xor(mv[5:900], 895, MASK)
    assert bytes(data) == orig
    for b in (0, 3, 4):  # the bytes the stuffing removes stop being special
        assert b ^ MASK not in (0, 3, 4)


class _Full:
    """A log file whose writes fail as on a full flash (ENOSPC)."""

    def write(self, b):
        raise OSError(28, "ENOSPC")

    def flush(self):
        pass

    def close(self):
        pass


def test_a_hand_whose_last_write_failed_closes_unsealed():
    from table.hostlink import LiveLog

    t = Rig()
    try:
        log = t.make_log(2)
        n = log.count
        log._f.close()
        log._f = _Full()
        try:
            log.append(HC.T_ACT, b"\x01\x02")
            raise AssertionError("the append should fail")
        except OSError:
            pass
        assert log.damaged is not None
        LiveLog(log, t.host).close()  # the seal is refused, not raised (LogError)
        again = RecordLog(t.logs.path(log.log_id))
        assert again.count == n and again.read(n - 1)[0] != HC.T_SEAL
        again.close()
    finally:
        t.close()


def test_info_reports_a_torn_tail_the_boot_cut():
    t = Rig()
    try:
        log = t.make_log(2)
        lid = log.log_id
        log.close()
        assert "repaired" not in t.info()
        with open(t.logs.path(lid), "ab") as f:  # half a record: the power cut
            f.write(b"\xa5\x02\x10\x00\xef\xff" + b"\x07" * 9)
        t.logs.__init__(t.logs.folder)  # the next boot
        assert t.logs.repairs and t.info()["repaired"] == "%d:15" % lid
    finally:
        t.close()


def test_a_log_id_past_65535_is_read_by_its_low_16_bits():
    # GET names an object by a u16, log ids are u32: log 65536 is idx 0
    t = Rig()
    try:
        b = bytearray(4)
        b[2] = 1  # the id counter (u32 LE) at 65536, as after 65536 hands
        store.write(t.logs._next_path(), b)
        t.logs.__init__(t.logs.folder)
        log = t.make_log(3)
        log.close()
        lst = t.send(HC.CMD_LOGS, struct.pack("<I", 0))
        lid, size = struct.unpack_from("<II", lst, 4)
        assert lid == 65536 and log.log_id == lid
        total, crc, data = t.get(F.OBJ_LOG, lid & 0xFFFF, 0, 1000)
        assert total == size and len(data) == size
        with open(t.logs.path(lid), "rb") as f:
            raw = bytearray(f.read())
        xor(raw, len(raw), MASK)
        assert bytes(data) == bytes(raw) and crc == crc32(raw)
    finally:
        t.close()


def test_the_table_reads_tags_for_enrolment_on_seat_0s_tray():
    # `mjtable enroll` asks TAG for each tile laid on the enrolment antenna
    import time

    if not hasattr(time, "ticks_ms"):  # HostLink keeps the board's clock
        import pytest

        pytest.skip("HostLink needs time.ticks_ms: run under MicroPython (test_core_dual)")
    from table.hostlink import ENROLL_PLACE, HostLink
    from tablekit import TableRig, tile_uid

    d = scratch("enroltag")
    try:
        rig = TableRig(logs=LogStore(d + "/logs"))
        hl = HostLink(rig.ctl, d, lambda mv: 0, lambda mv: len(mv))
        assert ENROLL_PLACE == 1 and hl.last_tag() is None
        new = b"\x01\x02\x03\x04\x05\x06\x04\xe0"  # a tag not in the map
        rig.table.readers[0].put(1, new)
        rig.frame(12)
        assert hl.last_tag() == (1, new) and hl.last_tag() == (1, new)
        rig.table.readers[0].remove(1, new)
        rig.put(0, 1, [5])  # an enrolled tile: the host refuses it for another
        rig.frame(40)  # idle, the tray is read in turn with the other places
        assert hl.last_tag() == (2, tile_uid(5))
        rig.take(0, 1, [5])
        rig.frame(40)
        assert hl.last_tag() == (2, tile_uid(5))  # emptied: nothing new
        rig.put(0, 1, [5])
        rig.frame(40)
        assert hl.last_tag() == (3, tile_uid(5))  # laid again: a new presentation
    finally:
        rmtree(d)


def test_selftest_answers_keyed_and_open_tables_alike_and_not_mid_hand():
    report = b"seat=0 reader=1"

    def selftest():
        if t.is_busy:
            raise F.LinkError(F.E_BUSY)
        return report

    for key in (KEY, None):  # no MAC needed: a keyed table and an open one
        t = Rig(key=key, selftest=selftest)
        try:
            r = t.send(HC.CMD_SELFTEST)
            assert r[0] == 0 and r[1:] == report
            t.is_busy = True
            assert t.send(HC.CMD_SELFTEST)[0] == F.E_BUSY
        finally:
            t.close()
    t = Rig()  # a table without the hook: not a command it can run
    try:
        assert t.send(HC.CMD_SELFTEST)[0] == F.E_STATE
    finally:
        t.close()
