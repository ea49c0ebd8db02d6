# The firmware link dispatcher (table/link.py) and chunked transfers (table/xfer.py),
# driven through in-memory streams, under CPython and MicroPython.
import struct

from table import frame as F
from table.crc import crc32
from table.link import Link
from table.mac import Mac
from table.xfer import MemObjects, Transfers

KEY = bytes(range(32))
KIND = 7


class Pipe:
    """The table's side of a cable: reads give at most `rchunk` bytes, writes take
    at most `wchunk` bytes, like a USB CDC with small buffers."""

    def __init__(self, rchunk=4096, wchunk=4096):
        self.inq = bytearray()
        self.out = bytearray()
        self.rchunk = rchunk
        self.wchunk = wchunk

    def read(self, mv):
        n = min(len(mv), len(self.inq), self.rchunk)
        if not n:
            return None
        mv[:n] = self.inq[:n]
        self.inq = self.inq[n:]
        return n

    def write(self, mv):
        n = min(len(mv), self.wchunk)
        self.out += bytes(mv[:n])
        return n


class Counter:
    def __init__(self):
        self.n = 0

    def __call__(self, k):
        self.n += 1
        return bytes([self.n]) * k


def stuff(data):
    out = bytearray(F.stuffed_max(len(data)))
    return bytes(out[: F.encode(data, len(data), out, 0)])


def req(code, seq, payload=b"", key=None, nonce=None, ver=F.VERSION):
    body = bytearray(F.HDR + len(payload) + F.MAC_LEN + F.CRC_LEN)
    F.put_header(body, code, seq)
    body[0] = ver
    n = F.HDR + len(payload)
    body[F.HDR : n] = payload
    if key is not None:
        body[n : n + F.MAC_LEN] = Mac(key).digest(nonce, body[:n])
        n += F.MAC_LEN
    n = F.seal(body, n)
    return stuff(body[:n]) + b"\x00"


def replies(out):
    """(code, seq, status, data) of every frame in out."""
    got = []
    for raw in bytes(out).split(b"\x00")[:-1]:
        if not raw:  # every frame starts with a delimiter too
            continue
        buf = bytearray(raw)
        n = F.decode(buf, len(buf))
        assert n > 0, raw
        assert F.check(buf, n) == F.OK
        got.append((buf[1], F.seq_of(buf), buf[6], bytes(buf[7 : n - 4])))
    return got


class Table:
    def __init__(self, key=KEY, button=False, rchunk=4096, wchunk=4096, check=None):
        self.pipe = Pipe(rchunk, wchunk)
        self.saved = []
        self.button = button
        self.store = MemObjects(check=check)
        self.store.set(0, b"active rules v1")
        self.link = Link(
            self.pipe.read,
            self.pipe.write,
            {0x20: (self.boom, False), 0x21: (self.none, False)},
            key,
            key_button_held=lambda: self.button,
            save_key=self.saved.append,
            table_id=b"TABLE-01",
            info=lambda: b"fw=0.1\nlogs=0\n",
            rand=Counter(),
        )
        Transfers({KIND: self.store}).install(self.link)
        self.seq = 0

    def boom(self, req, resp):
        raise KeyError("handler bug")

    def none(self, req, resp):
        return None

    def run(self, data):
        self.pipe.inq += data
        for _ in range(100000):
            if not self.link.poll() and not self.pipe.inq and self.link.idle():
                break
        out = replies(self.pipe.out)
        self.pipe.out = bytearray()
        return out

    def call(self, code, payload=b"", key=None, seq=None):
        if seq is None:
            self.seq += 1
            seq = self.seq
        got = self.run(req(code, seq, payload, key, self.link.nonce))
        assert len(got) == 1, got
        return got[0]

    def ok(self, code, payload=b"", key=None):
        rcode, seq, st, data = self.call(code, payload, key)
        assert rcode == code | F.REPLY and seq == self.seq, (rcode, seq)
        assert st == F.OK, st
        return data

    def err(self, code, payload=b"", key=None, seq=None):
        rcode, rseq, st, data = self.call(code, payload, key, seq)
        assert rcode in (code | F.REPLY, F.NO_REQUEST)
        assert st != F.OK
        return st

    def state(self):
        return (self.link.last_seq, self.link.nonce, self.link.has_key, dict(self.store.objs))


def test_hello_gives_version_limits_nonce_and_id():
    t = Table()
    data = t.ok(F.CMD_HELLO, b"\x01")
    ver, flags, maxp = struct.unpack("<BBH", data[:4])
    assert (ver, flags, maxp) == (1, 1, F.MAX_PAYLOAD)
    assert data[4:12] == bytes([2]) * 8  # a fresh nonce (the boot one was 1s)
    assert data[12:20] == b"TABLE-01"
    assert t.link.nonce == data[4:12]
    t2 = Table(key=None, button=True)
    assert t2.ok(F.CMD_HELLO)[1] == 2  # no key yet, key button held


def test_hello_restarts_the_session_at_any_seq():
    t = Table()
    t.seq = 1000
    t.ok(F.CMD_ECHO, b"x")
    t.seq = 0
    assert t.err(F.CMD_ECHO, b"x") == F.E_REPLAY
    t.ok(F.CMD_HELLO)  # seq 2: a restarted host
    assert t.link.last_seq == 2
    t.ok(F.CMD_ECHO, b"y")


def test_echo_and_info():
    t = Table()
    assert t.ok(F.CMD_ECHO, b"ping\x00\x03\x04") == b"ping\x00\x03\x04"
    big = bytes(range(256)) * 3 + bytes(255)
    assert t.ok(F.CMD_ECHO, big) == big
    assert t.err(F.CMD_ECHO, bytes(F.MAX_PAYLOAD)) == F.E_ARG  # no room for status
    assert t.ok(F.CMD_INFO) == b"fw=0.1\nlogs=0\n"


def test_byte_at_a_time_both_ways():
    t = Table(rchunk=1, wchunk=1)
    assert t.ok(F.CMD_ECHO, b"slow link") == b"slow link"


def test_poll_without_input_does_nothing():
    t = Table()
    for _ in range(10):
        assert t.link.poll() is False
    assert t.pipe.out == b""


def test_two_frames_in_one_read():
    t = Table()
    got = t.run(req(F.CMD_ECHO, 1, b"a") + req(F.CMD_ECHO, 2, b"b"))
    assert [(g[1], g[3]) for g in got] == [(1, b"a"), (2, b"b")]


def test_replayed_and_duplicate_frames_are_refused():
    t = Table()
    t.ok(F.CMD_HELLO)
    put = struct.pack("<BHII", KIND, 0, 3, 0) + b"new"
    frame = req(F.CMD_PUT, 5, put, KEY, t.link.nonce)
    assert t.run(frame)[0][2] == F.OK
    before = t.state()
    for again in (frame, req(F.CMD_PUT, 4, put, KEY, t.link.nonce)):
        code, seq, st, data = t.run(again)[0]
        assert st == F.E_REPLAY and data == struct.pack("<I", 5)
        assert t.state() == before


def test_empty_frames_are_ignored():
    t = Table()
    assert t.run(b"\x00\x00\x00") == []


def test_garbage_truncated_and_corrupt_frames_get_errors():
    t = Table()
    good = req(F.CMD_ECHO, 1, b"hello")
    cases = [
        (b"\x07garbage\x00", (F.E_FRAME, F.E_LEN, F.E_CRC)),
        (good[:-4] + b"\x00", (F.E_FRAME, F.E_CRC)),  # truncated
        (b"\x03\x04\x00", (F.E_FRAME,)),  # forbidden bytes
        (stuff(b"\x01\x03\x01\x00\x00\x00") + b"\x00", (F.E_LEN,)),  # too short
    ]
    flipped = bytearray(good)
    flipped[5] ^= 0x40
    cases.append((bytes(flipped), (F.E_CRC, F.E_FRAME)))
    before = t.state()
    for data, expect in cases:
        got = t.run(data)
        assert len(got) == 1, (data, got)
        code, seq, st, _ = got[0]
        assert code == F.NO_REQUEST and seq == 0 and st in expect, (data, st)
        assert t.state() == before
    assert t.ok(F.CMD_ECHO, b"still fine") == b"still fine"


def test_oversize_frame_gets_one_error_then_the_link_works():
    t = Table()
    before = t.state()
    got = t.run(b"A" * 5000 + b"\x00")
    assert [(g[0], g[2]) for g in got] == [(F.NO_REQUEST, F.E_LEN)]
    assert t.state() == before
    # a legal frame of the largest size still fits
    body = bytearray(F.MAX_BODY)
    F.put_header(body, F.CMD_ECHO, 7)
    for i in range(F.HDR, F.MAX_BODY):
        body[i] = 0x41
    n = F.seal(body, F.MAX_BODY - F.CRC_LEN)
    code, seq, st, _ = t.run(stuff(body[:n]) + b"\x00")[0]
    assert (code, seq, st) == (F.CMD_ECHO | F.REPLY, 7, F.E_ARG)  # echo has no room
    t.seq = 7
    assert t.ok(F.CMD_ECHO, b"ok") == b"ok"


def test_version_and_unknown_commands():
    t = Table()
    got = t.run(req(F.CMD_ECHO, 1, b"x", ver=2))
    assert (got[0][0], got[0][2]) == (F.CMD_ECHO | F.REPLY, F.E_VERSION)
    assert t.call(0x3E)[2] == F.E_UNKNOWN
    assert t.call(0x50)[0:3] == (F.NO_REQUEST, 0, F.E_UNKNOWN)  # an event code
    assert t.call(0x91)[0] == F.NO_REQUEST  # a reply code


def test_handler_failures_change_nothing_and_answer():
    t = Table()
    assert t.call(0x20)[2] == F.E_INTERNAL
    assert t.call(0x21)[2] == F.E_INTERNAL
    assert t.ok(F.CMD_ECHO, b"x") == b"x"


def test_changes_need_a_valid_mac():
    t = Table()
    t.ok(F.CMD_HELLO)
    put = struct.pack("<BHII", KIND, 0, 3, 0) + b"new"
    before = t.state()
    assert t.err(F.CMD_PUT, put) == F.E_AUTH  # no MAC
    assert t.err(F.CMD_PUT, put, b"k" * 32) == F.E_AUTH  # wrong key
    assert t.err(F.CMD_PUT, b"") == F.E_AUTH  # shorter than a MAC
    old = t.link.nonce
    t.ok(F.CMD_HELLO)
    t.seq += 1
    got = t.run(req(F.CMD_PUT, t.seq, put, KEY, old))[0]  # MAC of the last session
    assert got[2] == F.E_AUTH
    after = t.state()
    assert after[3] == before[3] and after[2] == before[2]
    assert t.ok(F.CMD_PUT, put, KEY) == struct.pack("<I", 3)


def test_no_key_no_changes():
    t = Table(key=None)
    assert t.err(F.CMD_PUT, b"x" * 40, KEY) == F.E_NOKEY
    assert t.ok(F.CMD_ECHO, b"reads work") == b"reads work"


def test_set_key_only_with_the_button_and_once():
    t = Table(key=None)
    assert t.err(F.CMD_SETKEY, KEY) == F.E_DENIED
    assert not t.link.has_key and t.saved == []
    t.button = True
    assert t.err(F.CMD_SETKEY, KEY[:16]) == F.E_ARG
    t.ok(F.CMD_SETKEY, KEY)
    assert t.saved == [KEY] and t.link.has_key
    assert t.err(F.CMD_SETKEY, b"z" * 32) == F.E_STATE
    assert t.saved == [KEY]
    t.ok(F.CMD_HELLO)
    put = struct.pack("<BHII", KIND, 0, 1, 0) + b"k"
    assert t.ok(F.CMD_PUT, put, KEY) == struct.pack("<I", 1)


def put_all(t, data, idx=0, chunk=900):
    for off in range(0, len(data), chunk):
        part = data[off : off + chunk]
        got = t.ok(F.CMD_PUT, struct.pack("<BHII", KIND, idx, len(data), off) + part, KEY)
        assert got == struct.pack("<I", off + len(part))


def get_all(t, idx=0, chunk=1000):
    out = bytearray()
    while True:
        data = t.ok(F.CMD_GET, struct.pack("<BHIH", KIND, idx, len(out), chunk))
        total, crc = struct.unpack("<II", data[:8])
        out += data[8:]
        if len(out) >= total:
            assert crc == crc32(out)
            return bytes(out)


def blob(n):
    return bytes((i * 7 + (i >> 8)) & 0xFF for i in range(n))


def test_chunked_put_commit_get_10k():
    t = Table()
    t.ok(F.CMD_HELLO)
    data = blob(10 * 1024)
    put_all(t, data, idx=3)
    assert t.ok(F.CMD_STAT, struct.pack("<BH", KIND, 3)) == struct.pack("<II", len(data), len(data))
    assert 3 not in t.store.objs  # not active before the commit
    t.ok(F.CMD_COMMIT, struct.pack("<BHII", KIND, 3, len(data), crc32(data)), KEY)
    assert t.store.objs[3] == data
    assert get_all(t, idx=3) == data
    assert t.ok(F.CMD_STAT, struct.pack("<BH", KIND, 3)) == bytes(8)


def test_commit_with_wrong_crc_keeps_the_active_object():
    t = Table()
    t.ok(F.CMD_HELLO)
    data = blob(3000)
    put_all(t, data)
    bad = struct.pack("<BHII", KIND, 0, len(data), crc32(data) ^ 1)
    assert t.err(F.CMD_COMMIT, bad, KEY) == F.E_CHECK
    assert t.store.objs[0] == b"active rules v1"
    good = struct.pack("<BHII", KIND, 0, len(data), crc32(data))
    assert t.err(F.CMD_COMMIT, good, KEY) == F.E_STATE  # the staging was dropped


def test_incomplete_or_gapped_puts_are_refused():
    t = Table()
    t.ok(F.CMD_HELLO)
    data = blob(2000)
    t.ok(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2000, 0) + data[:500], KEY)
    # a chunk past the staged length: E_OFFSET says where the table is
    rcode, seq, st, detail = t.call(
        F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2000, 900) + data[900:1000], KEY
    )
    assert st == F.E_OFFSET and detail == struct.pack("<I", 500)
    # a resend of an earlier chunk (its reply was lost) gets the same answer
    assert t.call(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2000, 100) + data[100:200], KEY)[2:] == (
        F.E_OFFSET,
        struct.pack("<I", 500),
    )
    # commit before everything is there
    commit = struct.pack("<BHII", KIND, 0, 2000, crc32(data))
    assert t.err(F.CMD_COMMIT, commit, KEY) == F.E_OFFSET
    # more than total, another total, another object
    assert t.err(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2000, 500) + bytes(1600), KEY) == F.E_LEN
    assert t.err(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2001, 500) + b"x", KEY) == F.E_STATE
    assert t.err(F.CMD_PUT, struct.pack("<BHII", KIND, 1, 2000, 500) + b"x", KEY) == F.E_STATE
    # resume from the staged length and finish
    t.ok(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2000, 500) + data[500:1300], KEY)
    t.ok(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 2000, 1300) + data[1300:], KEY)
    t.ok(F.CMD_COMMIT, commit, KEY)
    assert t.store.objs[0] == data


def test_content_check_refusal_keeps_the_active_object():
    def check(data):
        if data[:4] != b"RULE":
            raise F.LinkError(F.E_CHECK)

    t = Table(check=check)
    t.ok(F.CMD_HELLO)
    for data, ok in ((b"JUNKJUNK", False), (b"RULEnew", True)):
        put_all(t, data)
        commit = struct.pack("<BHII", KIND, 0, len(data), crc32(data))
        if ok:
            t.ok(F.CMD_COMMIT, commit, KEY)
        else:
            assert t.err(F.CMD_COMMIT, commit, KEY) == F.E_CHECK
            assert t.store.objs[0] == b"active rules v1"
    assert t.store.objs[0] == b"RULEnew"


def test_bad_transfer_requests():
    t = Table()
    t.ok(F.CMD_HELLO)
    assert t.err(F.CMD_GET, struct.pack("<BHIH", 99, 0, 0, 10)) == F.E_ARG  # no such kind
    assert t.err(F.CMD_GET, struct.pack("<BHIH", KIND, 42, 0, 10)) == F.E_ARG  # no such object
    assert t.err(F.CMD_GET, struct.pack("<BHIH", KIND, 0, 999, 10)) == F.E_ARG  # past the end
    assert t.err(F.CMD_GET, struct.pack("<BHIH", KIND, 0, 0, 2000)) == F.E_ARG  # too long
    assert t.err(F.CMD_GET, b"\x07") == F.E_ARG
    assert t.err(F.CMD_PUT, struct.pack("<BHII", KIND, 0, 10**6, 0), KEY) == F.E_LEN  # limit
    assert t.err(F.CMD_STAT, b"") == F.E_ARG
    # the end of an object: a short last chunk, then nothing
    data = t.ok(F.CMD_GET, struct.pack("<BHIH", KIND, 0, 10, 100))
    assert data[8:] == b"es v1"  # "active rules v1" is 15 bytes
    assert t.ok(F.CMD_GET, struct.pack("<BHIH", KIND, 0, 15, 100))[8:] == b""


def test_events_go_out_between_replies():
    t = Table()
    assert t.link.send_event(0x41, b"tile") is True
    got = replies(t.pipe.out)
    assert got == [(0x41 | F.REPLY, 1, ord("t"), b"ile")]  # events have no status byte
    t.pipe.out = bytearray()
    t.pipe.wchunk = 0  # the host is not reading
    assert t.link.send_event(0x41, b"a") is True
    assert t.link.send_event(0x41, b"b") is False  # busy: the caller decides


def test_idle_polls_allocate_nothing_on_micropython():
    import sys

    if sys.implementation.name != "micropython":
        return  # gc.mem_alloc is MicroPython's; the point is the board's heap
    import gc

    t = Table()
    t.link.poll()
    t.run(req(F.CMD_ECHO, 1, b"warm up"))
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for _ in range(2000):
            t.link.poll()
        grown = gc.mem_alloc() - before
    finally:
        gc.enable()
    assert grown < 512, grown  # a memoryview per poll would be 32 KB here


def test_garbage_without_a_delimiter_keeps_a_burst_going():
    # each poll that reads counts as work: the link task's burst (hostlink
    # LINK_BURST polls a wake) drains garbage at its full rate, not one read a wake
    t = Table(rchunk=64)
    t.pipe.inq += b"\x01" * 512
    assert [t.link.poll() for _ in range(8)] == [True] * 8
    assert not t.pipe.inq and t.link.poll() is False
    t.run(b"\x00")  # the host's resync ends the garbage
    assert t.ok(F.CMD_ECHO, b"after") == b"after"
