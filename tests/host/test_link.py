"""The host link: host framing against the firmware's, HMAC against CPython's, fuzzed
frames against the firmware dispatcher, and end to end over a real pseudo-terminal
with the firmware end on the MicroPython unix port and the host on pyserial.
No timing is asserted anywhere."""

import hashlib
import hmac
import json
import os
import random
import select
import struct
import subprocess
import time
import tty
import zlib

import pytest
import serial
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mjtable.link import client as H
from table import frame as F
from table import mac as M
from table.link import Link as FwLink
from table.xfer import MemObjects, Transfers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
PEER = os.path.join(ROOT, "tools", "link_peer.py")
KEY = bytes(range(100, 132))
KIND = 2


# --- the firmware's framing, as a host would build it ---


def fw_stuff(data: bytes) -> bytes:
    out = bytearray(F.stuffed_max(len(data)))
    return bytes(out[: F.encode(data, len(data), out, 0)])


def fw_unstuff(wire: bytes):
    buf = bytearray(wire)
    n = F.decode(buf, len(buf))
    return None if n < 0 else bytes(buf[:n])


def fw_frame(code, seq, payload, key=None, nonce=b""):
    body = bytearray(F.MAX_BODY + 64)
    F.put_header(body, code, seq)
    n = F.HDR + len(payload)
    body[F.HDR : n] = payload
    if key is not None:
        body[n : n + 32] = M.Mac(key).digest(nonce, body[:n])
        n += 32
    n = F.seal(body, n)
    return fw_stuff(bytes(body[:n])) + b"\x00"


# --- host and firmware framing agree byte for byte ---


def test_frame_constants_agree():
    # the protocol's codes: tests/host/test_protocol_numbers.py
    assert (H.HDR, H.MAC_LEN, H.MAX_PAYLOAD, H.MAX_BODY, H.RUN) == (
        F.HDR,
        F.MAC_LEN,
        F.MAX_PAYLOAD,
        F.MAX_BODY,
        F.RUN,
    )


@settings(max_examples=1500)
@given(st.binary(max_size=1200))
def test_stuffing_identical_and_inverse(data):
    wire = H.stuff(data)
    assert wire == fw_stuff(data)
    assert not set(wire) & {0, 3, 4}
    assert H.unstuff(wire) == data == fw_unstuff(wire)


@settings(max_examples=800)
@given(st.lists(st.sampled_from([0, 3, 4, 1, 2, 5, 0x41, 0xFF]), max_size=600))
def test_stuffing_identical_on_special_heavy_bodies(values):
    data = bytes(values)
    assert H.stuff(data) == fw_stuff(data)
    assert H.unstuff(H.stuff(data)) == data


@settings(max_examples=1000)
@given(st.binary(max_size=300))
def test_unstuffing_agrees_on_garbage(wire):
    try:
        host = H.unstuff(wire)
    except ValueError:
        host = None
    assert host == fw_unstuff(wire)


@settings(max_examples=800)
@given(
    st.integers(1, 0x3F),
    st.integers(0, 2**32 - 1),
    st.binary(max_size=F.MAX_PAYLOAD),
    st.one_of(st.none(), st.binary(min_size=32, max_size=32)),
    st.binary(min_size=8, max_size=8),
)
def test_request_frames_identical(code, seq, payload, key, nonce):
    assert H.frame(code, seq, payload, key, nonce) == fw_frame(code, seq, payload, key, nonce)


def test_every_byte_value_crosses_both_implementations():
    data = bytes(range(256)) * 4
    wire = H.frame(H.CMD_ECHO, 1, data)
    assert wire == fw_frame(F.CMD_ECHO, 1, data)
    assert set(wire[:-1]).isdisjoint({0, 3, 4}) and wire[-1] == 0


# --- HMAC ---


@settings(max_examples=1500)
@given(st.binary(max_size=200), st.binary(max_size=600))
def test_hmac_matches_cpython(key, msg):
    assert M.hmac_sha256(key, msg) == hmac.new(key, msg, hashlib.sha256).digest()


def test_hmac_under_micropython_matches_cpython(tmp_path):
    rng = random.Random(7)
    cases = [
        (
            rng.randbytes(rng.choice([0, 1, 31, 32, 63, 64, 65, 130])),
            rng.randbytes(rng.randrange(400)),
        )
        for _ in range(300)
    ]
    script = tmp_path / "mac_cases.py"
    script.write_text(
        "import sys, binascii\n"
        "sys.path.insert(0, %r)\n"
        "from table.mac import hmac_sha256\n"
        "for line in open(%r):\n"
        "    k, m = line.split()\n"
        "    k = binascii.unhexlify(k[1:]); m = binascii.unhexlify(m[1:])\n"
        "    print(binascii.hexlify(hmac_sha256(k, m)).decode())\n"
        % (os.path.join(ROOT, "firmware"), str(tmp_path / "cases.txt"))
    )
    (tmp_path / "cases.txt").write_text("".join("x%s x%s\n" % (k.hex(), m.hex()) for k, m in cases))
    out = subprocess.run([MICROPYTHON, str(script)], capture_output=True, text=True, check=True)
    got = out.stdout.split()
    assert got == [hmac.new(k, m, hashlib.sha256).hexdigest() for k, m in cases]


# --- the firmware dispatcher under fuzzing (CPython) ---


class FwTable:
    """The firmware end in-process, fed from a byte queue."""

    def __init__(self, key=KEY):
        self.inq = bytearray()
        self.out = bytearray()
        self.store = MemObjects()
        self.store.set(0, b"the active object")
        self.link = FwLink(self._read, self._write, key=key, table_id=b"FUZZTBL1")
        Transfers({KIND: self.store}).install(self.link)

    def _read(self, mv):
        n = min(len(mv), len(self.inq))
        mv[:n] = self.inq[:n]
        del self.inq[:n]
        return n

    def _write(self, mv):
        self.out += mv
        return len(mv)

    def feed(self, data: bytes):
        self.inq += data
        for _ in range(10000):
            if not self.link.poll() and not self.inq and self.link.idle():
                break
        out = bytes(self.out)
        self.out.clear()
        return out

    def state(self):
        return (self.link.last_seq, self.link.nonce, dict(self.store.objs))


def host_replies(out: bytes):
    """Every frame the table sent must be well-formed for the host."""
    frames = out.split(b"\x00")
    assert frames[-1] == b""
    return [H.parse(H.unstuff(f)) for f in frames[:-1] if f]


@settings(max_examples=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000))
def test_fuzz_garbage_never_crashes_or_changes_state(data):
    t = FwTable()
    before = t.state()
    replies = host_replies(t.feed(data))
    assert t.state() == before
    # exactly one error reply per delimited non-empty chunk
    chunks = [c for c in data.split(b"\x00")[:-1] if c]
    assert len(replies) == len(chunks)
    for code, _seq, payload in replies:
        assert code == H.NO_REQUEST or payload[0] != 0


def _valid_frames(t):
    nonce = t.link.nonce
    put = struct.pack("<BHII", KIND, 0, 5, 0) + b"EVIL!"
    return [
        H.frame(H.CMD_PUT, 10, put, KEY, nonce),
        H.frame(
            H.CMD_COMMIT, 11, struct.pack("<BHII", KIND, 0, 5, zlib.crc32(b"EVIL!")), KEY, nonce
        ),
        H.frame(H.CMD_ECHO, 12, b"echo me"),
        H.frame(H.CMD_GET, 13, struct.pack("<BHIH", KIND, 0, 0, 100)),
    ]


@settings(max_examples=2000, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_mutated_authentic_frames_change_nothing(data):
    t = FwTable()
    frames = _valid_frames(t)
    wire = bytearray(data.draw(st.sampled_from(frames)))
    op = data.draw(st.sampled_from(["flip", "truncate", "insert", "delete", "splice"]))
    i = data.draw(st.integers(0, len(wire) - 2))
    if op == "flip":
        wire[i] ^= data.draw(st.integers(1, 255))
    elif op == "truncate":
        wire = wire[:i] + b"\x00"
    elif op == "insert":
        wire[i:i] = data.draw(st.binary(min_size=1, max_size=8))
    elif op == "delete":
        del wire[i]
    else:
        wire = wire[:i] + data.draw(st.sampled_from(frames))
    before = t.state()
    replies = host_replies(t.feed(bytes(wire)))
    after = t.state()
    # whatever got through, the stored object was not replaced by a forged one
    assert after[2] == before[2]
    if after[0] == before[0]:
        assert all(code == H.NO_REQUEST or p[0] != 0 for code, _, p in replies)


def test_replayed_frames_over_the_host_framing_change_nothing():
    t = FwTable()
    frames = _valid_frames(t)
    assert [p[0] for _, _, p in host_replies(t.feed(frames[0] + frames[1]))] == [0, 0]
    assert t.store.objs[0] == b"EVIL!"  # both were authentic (the test's own key)
    t.store.set(0, b"restored")
    before = t.state()
    for f in frames[:2]:
        ((code, seq, payload),) = host_replies(t.feed(f))
        assert payload[0] == F.E_REPLAY
    assert t.state() == before


class Bytes:
    """A host stream that hands out fixed bytes, then nothing."""

    def __init__(self, data):
        self.data = data

    def write(self, data):
        pass

    def read(self, n):
        out, self.data = self.data[:n], self.data[n:]
        return out


@settings(max_examples=1500)
@given(st.binary(max_size=2000))
def test_fuzz_host_reader_skips_garbage(data):
    h = H.Link(Bytes(b""), timeout=0)
    h._buf += data + H.frame(0x83, 9, b"\x00ok")
    done = time.monotonic() - 1  # only what is buffered
    frames = []
    while (got := h.read_frame(done)) is not None:
        frames.append(got)
    # garbage never raises; the frame after it comes through unless the garbage
    # left an unterminated prefix stuck to it
    if not data or data.endswith(b"\x00"):
        assert frames[-1] == (0x83, 9, b"\x00ok")


def test_printed_text_between_frames_does_not_cost_a_reply():
    t = FwTable()
    reply = t.feed(H.frame(H.CMD_ECHO, 1, b"hi"))
    assert reply[0] == 0  # the table opens every frame with a delimiter
    h = H.Link(Bytes(b"print output from the game\r\n" + reply), timeout=0)
    assert h.read_frame(time.monotonic() + 5) == (H.CMD_ECHO | H.REPLY, 1, b"\x00hi")


# --- host Link against the firmware in-process (resume logic) ---


class Loop:
    """A stream for the host Link whose other end is an in-process firmware Link;
    `drop` replies are lost on the way back (a cut cable)."""

    def __init__(self, table):
        self.t = table
        self.pending = b""
        self.drop = 0
        self.writes = 0

    def write(self, data):
        self.writes += 1
        out = self.t.feed(data)
        if self.drop and out:
            self.drop -= 1
            return
        self.pending += out

    def read(self, n):
        data, self.pending = self.pending[:n], self.pending[n:]
        return data


def test_host_link_put_resumes_after_a_lost_reply():
    t = FwTable()
    loop = Loop(t)
    h = H.Link(loop, key=KEY, timeout=0.05)
    h.hello()
    data = random.Random(1).randbytes(5000)
    # send two chunks, then lose the reply to the third: the put fails mid-way
    orig_write = loop.write
    count = {"n": 0}

    def cutting_write(b):
        count["n"] += 1
        if count["n"] == 3:
            loop.drop = 1
        orig_write(b)

    loop.write = cutting_write
    with pytest.raises(H.LinkError):
        h.put_object(KIND, 0, data)
    loop.write = orig_write
    staged, total = h.stat(KIND, 0)
    assert total == len(data) and 0 < staged < total
    assert t.store.objs[0] == b"the active object"
    h.put_object(KIND, 0, data, resume=True)
    assert t.store.objs[0] == data
    assert h.get_object(KIND, 0) == data
    # a get resumed from a partial copy
    assert h.get_object(KIND, 0, start=data[:1234]) == data


def test_pipelined_get_survives_a_lost_reply():
    t = FwTable()
    loop = Loop(t)
    h = H.Link(loop, key=KEY, timeout=0.05)
    h.hello()
    data = random.Random(3).randbytes(20000)
    h.put_object(KIND, 1, data)
    sent = {"n": 0}
    orig = loop.write

    def lossy(b):
        sent["n"] += 1
        if sent["n"] == 4:  # the reply to the 4th GET is lost on the way back
            loop.drop = 1
        orig(b)

    loop.write = lossy
    with pytest.raises(H.LinkError):
        h.get_object(KIND, 1)
    loop.write = orig
    assert h.echo(b"in step") == b"in step"  # the replies still owed were drained
    assert h.get_object(KIND, 1, window=3) == data
    assert h.get_object(KIND, 1, start=data[:5000], window=1) == data


def test_host_link_refuses_changes_without_key():
    t = FwTable()
    h = H.Link(Loop(t), key=None, timeout=0.05)
    h.hello()
    with pytest.raises(H.LinkError):
        h.put_object(KIND, 0, b"x")
    h.key = b"\x01" * 32  # the wrong key
    with pytest.raises(H.LinkError) as e:
        h.put_object(KIND, 0, b"x")
    assert e.value.status == F.E_AUTH
    assert t.store.objs[0] == b"the active object"


def test_find_table_ports_prefers_the_link_interface(monkeypatch):
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo

    def port(dev, vid, loc):
        p = ListPortInfo(dev, skip_link_detection=True)
        p.vid, p.pid, p.location = vid, 5, loc
        return p

    ports = [
        port("/dev/ttyUSB0", 0x0403, "1-2:1.0"),
        port("/dev/ttyACM0", H.RP2040_VID, "1-1:1.0"),
        port("/dev/ttyACM1", H.RP2040_VID, "1-1:1.2"),
    ]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    assert H.find_table_ports() == ["/dev/ttyACM1", "/dev/ttyACM0"]
    monkeypatch.setattr(list_ports, "comports", lambda: ports[:1])
    with pytest.raises(H.LinkError):
        H.open_port(None)


# --- end to end over a real pseudo-terminal ---


@pytest.fixture
def pty_table():
    """The firmware end (tools/link_peer.py on the MicroPython unix port) holds the
    pty master; the host opens the slave path with pyserial, as it would open
    /dev/ttyACM0 (and as `mjtable virtual-table` will offer it)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.set_blocking(master, False)
    proc = subprocess.Popen(
        [MICROPYTHON, PEER, "--fd", str(master), "--key", KEY.hex(), "--id", "PTYTABLE"],
        pass_fds=(master,),
        stdout=subprocess.PIPE,
    )
    os.close(master)
    assert proc.stdout.readline() == b"link_peer: ready\n"
    ser = serial.Serial(path, 115200, timeout=5, write_timeout=5)
    os.close(slave)
    try:
        yield ser
    finally:
        ser.close()
        proc.kill()
        proc.wait()


def test_pty_end_to_end(pty_table):
    h = H.Link(pty_table, key=KEY, timeout=10)
    hello = h.hello()
    assert hello["version"] == 1 and hello["key_set"] and not hello["key_button"]
    assert hello["max_payload"] == 1024 and h.table_id == b"PTYTABLE"
    assert h.info()["fw"] == "link_peer"
    every = bytes(range(256)) * 3
    assert h.echo(every) == every
    data = random.Random(5).randbytes(10 * 1024)
    seen = []
    h.put_object(KIND, 4, data, progress=lambda done, total: seen.append(done))
    assert seen[-1] == len(data) and len(seen) == -(-len(data) // 1013)
    assert h.get_object(KIND, 4) == data
    assert h.stat(KIND, 4) == (0, 0)


def test_pty_errors_and_refusals(pty_table):
    h = H.Link(pty_table, key=None, timeout=10)
    h.hello()
    with pytest.raises(H.LinkError):
        h.put_object(KIND, 0, b"unauthenticated")  # no key: the host will not even try
    h.key = b"\x07" * 32
    with pytest.raises(H.LinkError) as e:
        h.put_object(KIND, 0, b"wrong key")
    assert e.value.status == F.E_AUTH
    with pytest.raises(H.LinkError) as e:
        h.get_object(KIND, 0)
    assert e.value.status == F.E_ARG  # nothing was stored
    # garbage, then a replayed frame, straight onto the wire
    pty_table.write(b"\x01\x02garbage\x7f\x00")
    h.key = KEY
    h.seq += 1
    wire = H.frame(H.CMD_ECHO, h.seq, b"once")
    pty_table.write(wire + wire)
    got = [h.read_frame(time.monotonic() + 10) for _ in range(3)]
    assert got[0][0] == H.NO_REQUEST and got[0][2][0] in (F.E_FRAME, F.E_CRC, F.E_LEN)
    assert got[1] == (H.CMD_ECHO | H.REPLY, h.seq, b"\x00once")
    assert got[2][0] == H.CMD_ECHO | H.REPLY and got[2][2][0] == F.E_REPLAY
    # an oversize frame, then the link still answers
    pty_table.write(b"\x41" * 4000 + b"\x00")
    assert h.read_frame(time.monotonic() + 10)[2][0] == F.E_LEN
    assert h.echo(b"alive") == b"alive"


def test_pty_fuzzed_garbage_never_crashes_the_micropython_end(pty_table):
    rng = random.Random(11)
    for _ in range(300):
        chunk = rng.randbytes(rng.randrange(1, 300))
        if rng.random() < 0.5:  # mutate a real frame instead
            wire = bytearray(H.frame(H.CMD_PUT, rng.randrange(2**32), chunk, KEY, b"x" * 8))
            wire[rng.randrange(len(wire) - 1)] ^= rng.randrange(1, 256)
            chunk = bytes(wire)
        pty_table.write(chunk)
    pty_table.write(b"\x00")
    h = H.Link(pty_table, key=KEY, timeout=10)
    h.hello()
    assert h.echo(b"still here") == b"still here"
    with pytest.raises(H.LinkError):
        h.get_object(KIND, 0)  # nothing was stored by any of it


class FdStream:
    """A host stream on a raw fd (the pty master), for the peer's tty-path mode."""

    def __init__(self, fd):
        self.fd = fd

    def write(self, data):
        view = memoryview(data)
        while view:
            select.select([], [self.fd], [], 5)
            view = view[os.write(self.fd, view) :]

    def read(self, n):
        r, _, _ = select.select([self.fd], [], [], 0.5)
        return os.read(self.fd, n) if r else b""


def test_peer_on_a_tty_path():
    """link_peer.py opening a tty by path (raw, VMIN=0) answers like on an fd."""
    master, slave = os.openpty()
    tty.setraw(slave)
    proc = subprocess.Popen(
        [MICROPYTHON, PEER, os.ttyname(slave), "--button"], stdout=subprocess.PIPE
    )
    try:
        assert proc.stdout.readline() == b"link_peer: ready\n"
        h = H.Link(FdStream(master), timeout=10)
        hello = h.hello()
        assert not hello["key_set"] and hello["key_button"]
        h.set_key(KEY)
        h.hello()
        assert h.flags & 1
        blob = bytes(range(256)) * 20
        h.put_object(1, 0, blob)
        assert h.get_object(1, 0) == blob
        assert json.dumps(h.info())  # key=value lines parse
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
        os.close(slave)
