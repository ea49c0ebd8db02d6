"""Host end of the table link: framing, request/response, chunked transfers.

Speaks the protocol of docs/protocol.md over any byte stream with write(bytes) and
read(n) honouring a timeout (a pyserial Serial on the table's USB CDC port, or on a
pseudo-terminal path). The framing here is written independently of the firmware's
(firmware/table/frame.py); tests check both produce identical bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import select
import struct
import time
import zlib
from collections import deque
from typing import Callable, Optional

from mjtable.link.protocol import (
    AUTH_CMDS,
    CMD_COMMIT,
    CMD_ECHO,
    CMD_GET,
    CMD_HELLO,
    CMD_INFO,
    CMD_PUT,
    CMD_SETKEY,
    CMD_STAT,
    E_OFFSET,
    E_REPLAY,
    ERRORS,
    EVENT,
    FLAG_RELAYED,
    NO_REQUEST,
    REPLY,
    RP2040_VID,
    VERSION,
)

HDR = 6
MAC_LEN = 32
MAX_PAYLOAD = 1024
MAX_BODY = HDR + MAX_PAYLOAD + MAC_LEN + 4
RELAYED_TRIES = 8  # sends of a signed request the owner of a shared link refused (E_REPLAY)
RUN = 84
FULL = 252  # code symbol: RUN plain bytes, no special byte after them
SPECIALS = (0x00, 0x03, 0x04)  # never on the wire: delimiter, Ctrl-C, Ctrl-D


class LinkError(Exception):
    """The table answered with an error status (or not at all)."""

    def __init__(self, status: int, detail: Optional[int] = None, msg: str = ""):
        self.status = status
        self.detail = detail
        name = ERRORS.get(status, "status %d" % status)
        super().__init__(msg or (name if detail is None else "%s (%d)" % (name, detail)))


_WHY = {
    "E_AUTH": "the table refused the request's MAC (the key here is not the table's, or "
              "another program opened a session with the table meanwhile)",
    "E_REPLAY": "the table took the request for a replay (another program opened a session "
                "with the table meanwhile: one program at a time on a table's port)",
    "E_BUSY": "the table is busy (a hand is in play, or a transfer under way)",
    "E_NOKEY": "the table has no key yet (`mjtable key set`)",
    "E_CHECK": "the bytes failed their check on the way",
}


def describe(e: LinkError) -> str:
    """A link error for people: what the table said (or that it said
    nothing) and its likely cause."""
    text = str(e)
    if text.startswith("no reply"):
        return ("%s: the table did not answer (the cable, its power, or another program "
                "talking to it on the port)" % text)
    if text.startswith("the port failed"):
        return "%s: the table did not answer (the cable pulled, or its power lost)" % text
    why = _WHY.get(ERRORS.get(e.status, ""))
    return "%s: %s" % (text, why) if why else text


# --- stuffing (COBS-253) ---


def get_request(kind: int, idx: int, off: int, n: int) -> bytes:
    """GET's payload: object kind u8, idx u16 (a log id's low 16 bits: the
    table finds the log on its flash with them), offset u32, length u16."""
    return struct.pack("<BHIH", kind, idx & 0xFFFF, off, n)


def _sym(k: int) -> int:
    return k + 1 if k < 2 else k + 3


_SPECIAL = re.compile(b"[\\x00\\x03\\x04]")


# the code byte of each symbol, as 1-byte strings to join; the symbol base of
# each special byte (the block stands for 0x00, 0x03 or 0x04)
_CODES = tuple(bytes((_sym(k),)) for k in range(FULL + 1))
_BASE = {0x00: 0, 0x03: RUN, 0x04: 2 * RUN}


def stuff(body: bytes) -> bytes:
    """Stuff a frame body; the result holds no 0x00, 0x03 or 0x04."""
    data = bytes(body) + b"\x00"  # the virtual trailing zero
    parts: list = []
    add = parts.append
    full = _CODES[FULL]
    start = 0
    for m in _SPECIAL.finditer(data):
        j = m.start()
        while j - start >= RUN:  # full blocks before the special byte
            add(full)
            add(data[start : start + RUN])
            start += RUN
        add(_CODES[_BASE[data[j]] + j - start])
        add(data[start:j])
        start = j + 1
    return b"".join(parts)


def _runs_and_specials():
    # per code byte: how many plain bytes follow, and the special byte the
    # block ends with (None for a full block, and for the bytes never a code)
    runs = [0] * 256
    ends = [None] * 256
    for b in range(256):
        if b in SPECIALS:
            continue
        k = b - 1 if b < 3 else b - 3
        runs[b] = RUN if k == FULL else k % RUN
        ends[b] = None if k == FULL else bytes((SPECIALS[k // RUN],))
    return tuple(runs), tuple(ends)


_RUNS, _ENDS = _runs_and_specials()


def unstuff(wire: bytes) -> bytes:
    """Inverse of stuff(); ValueError if the bytes are not a valid stuffing."""
    n = len(wire)
    if not n:
        raise ValueError("empty frame")
    bad = _SPECIAL.search(wire)
    if bad:
        raise ValueError("forbidden byte at %d" % bad.start())
    # one slice per block, joined once; table lookups instead of arithmetic:
    # a log chunk is ~20 blocks and this runs once per frame
    parts: list = []
    add = parts.append
    runs = _RUNS
    ends = _ENDS
    i = 0
    end = None
    while i < n:
        b = wire[i]
        j = i + 1 + runs[b]
        add(wire[i + 1 : j])
        end = ends[b]
        if end is not None:
            add(end)
        i = j
    if i != n:
        raise ValueError("the last block runs past the end")
    if end != b"\x00":  # the last block carries the virtual zero
        raise ValueError("bad last block")
    parts.pop()
    return b"".join(parts)


# --- frame bodies ---


def body(code: int, seq: int, payload: bytes, mac: bytes = b"") -> bytes:
    """ver | code | seq u32 LE | payload | mac | crc32 u32 LE."""
    b = struct.pack("<BBI", VERSION, code, seq) + bytes(payload) + mac
    return b + struct.pack("<I", zlib.crc32(b))


def mac_of(key: bytes, nonce: bytes, code: int, seq: int, payload: bytes) -> bytes:
    msg = nonce + struct.pack("<BBI", VERSION, code, seq) + bytes(payload)
    return hmac.new(key, msg, hashlib.sha256).digest()


def frame(code: int, seq: int, payload: bytes = b"", key=None, nonce=None) -> bytes:
    """The wire bytes of one request (delimiter included), with a MAC if keyed."""
    mac = mac_of(key, nonce, code, seq, payload) if key is not None else b""
    return stuff(body(code, seq, payload, mac)) + b"\x00"


def parse(body_bytes: bytes):
    """(code, seq, payload) of an unstuffed body; ValueError if it is not valid."""
    n = len(body_bytes)
    if n < HDR + 4:
        raise ValueError("short frame")
    mv = memoryview(body_bytes)
    (crc,) = struct.unpack_from("<I", body_bytes, n - 4)
    if crc != zlib.crc32(mv[: n - 4]):
        raise ValueError("bad CRC")
    ver, code, seq = struct.unpack_from("<BBI", body_bytes)
    if ver != VERSION:
        raise ValueError("protocol version %d" % ver)
    return code, seq, body_bytes[HDR:-4]


# --- finding and opening the table ---


def find_table_ports() -> list:
    """Device paths of RP2040 boards (USB VID 0x2E8A). When a board shows two CDC
    interfaces (REPL and link), the link is the one that is not interface 0."""
    from serial.tools import list_ports

    ports = [p for p in list_ports.comports() if p.vid == RP2040_VID]

    def iface(p):
        loc = p.location or ""
        return int(loc.rsplit(".", 1)[1]) if ":" in loc and "." in loc else 0

    ports.sort(key=lambda p: (-iface(p), p.device))
    return [p.device for p in ports]


def open_port(port: Optional[str] = None, timeout: float = 2.0):
    """A pyserial Serial on `port` (a device or a pty path), or on the table found
    by its USB ids. The baud rate is irrelevant for USB CDC and ptys. The port
    is locked for this process (flock, pyserial's exclusive=True, as mpremote
    opens it): a second program that locks it too fails at once (port_busy
    tells that failure) instead of mixing its frames into this session's."""
    import serial

    if port is None:
        found = find_table_ports()
        if not found:
            raise LinkError(0, msg="no table found (USB VID 0x2E8A); give --port")
        port = found[0]
    return serial.Serial(port, 115200, timeout=timeout, write_timeout=timeout, exclusive=True)


def port_busy(e: Exception) -> bool:
    """True if open_port failed because another program holds the port's lock."""
    import errno

    return "exclusively lock" in str(e) or getattr(e, "errno", None) in (errno.EAGAIN,
                                                                          errno.EBUSY)


# --- the session ---


class Link:
    """Request/response over a stream. `stream.read(n)` returns up to n bytes, b""
    after its timeout; `stream.write(b)` writes them all."""

    def __init__(self, stream, key: Optional[bytes] = None, timeout: float = 2.0):
        self.stream = stream
        self.key = key
        self.timeout = timeout
        self.seq = 0
        self.nonce = b""
        self.table_id = b""
        self.max_payload = MAX_PAYLOAD
        self.flags = 0
        self.relayed = False  # the session is an owner's, shared (HELLO's FLAG_RELAYED)
        self.events: deque = deque()  # (kind, seq, payload) seen while waiting
        self._buf = bytearray()
        self._pos = 0  # bytes of _buf already taken as frames
        self._fd: Optional[int] = None
        self._fd_of = None  # the stream _fd was found for (callers may swap streams)

    # raw frames

    def send(self, wire: bytes) -> None:
        """Write all of wire (pyserial's write, or straight to its fd)."""
        fd = self._stream_fd()
        if fd is None:
            self.stream.write(wire)  # waits until all is written
            return
        view = memoryview(wire)
        deadline = time.monotonic() + self.timeout
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                n = 0
            except OSError as e:  # EIO: the other end is gone (cable, power)
                raise LinkError(0, msg="the port failed (%s)" % (e.strerror or e)) from None
            view = view[n:]
            if view and not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                raise LinkError(0, msg="write timed out")

    def _stream_fd(self) -> Optional[int]:
        if self._fd_of is not self.stream:  # callers may swap streams
            self._fd_of = self.stream
            self._fd = _posix_fd(self.stream)
        return self._fd

    def read_frame(self, deadline: float):
        """Next well-formed frame (code, seq, payload), or None at the deadline.
        Unreadable frames from the table are skipped."""
        buf = self._buf
        while True:
            i = buf.find(0, self._pos)
            if i >= 0:
                raw = bytes(buf[self._pos : i])
                self._pos = i + 1
                if self._pos == len(buf):
                    buf.clear()
                    self._pos = 0
                if not raw:
                    continue
                try:
                    return parse(unstuff(raw))
                except ValueError:
                    continue
            if self._pos:  # keep only the partial frame
                del buf[: self._pos]
                self._pos = 0
            left = deadline - time.monotonic()
            if left < 0:
                return None
            chunk = self._read_some(left)
            if chunk:
                buf += chunk

    def _read_some(self, left: float) -> bytes:
        """Whatever bytes are there, waiting up to `left` s for the first."""
        fd = self._stream_fd()
        if fd is not None:
            # pyserial on POSIX keeps its fd non-blocking (and VMIN 0: an empty
            # read returns b""); one select and one read of everything there,
            # instead of pyserial's ioctl (in_waiting), select and read per call
            if not select.select([fd], [], [], left)[0]:
                return b""
            try:
                got = os.read(fd, 65536)
            except BlockingIOError:
                return b""
            except OSError as e:  # EIO: the other end is gone (cable, power)
                raise LinkError(0, msg="the port failed (%s)" % (e.strerror or e)) from None
            if not got:  # readable and nothing there: the other end is gone
                raise LinkError(0, msg="the link closed (the table unplugged, or its owner "
                                       "stopped)")
            return got
        # pyserial's read(n) waits for n bytes: ask for what is there
        waiting = getattr(self.stream, "in_waiting", None)
        if waiting is None:
            return self.stream.read(4096)
        return self.stream.read(waiting or 1)

    def resync(self) -> None:
        """End whatever partial frame the table holds (a lone delimiter)."""
        self.send(b"\x00")

    def request(self, code: int, payload: bytes = b"", auth: Optional[bool] = None, opening=False):
        """Send one request, return the reply data; raises LinkError on an error
        status or no reply within the timeout. opening: errors for unreadable
        frames are left-overs from before the session (the table answers in
        order, so none can follow the reply to this request): skip them."""
        for _ in range(RELAYED_TRIES):
            try:
                return self.wait(code, self.submit(code, payload, auth), opening)
            except LinkError as e:
                # through an owner (link/owner.py), other clients' requests may
                # have gone first: a signed one is sent again above their numbers
                if not (self.relayed and e.status == E_REPLAY and e.detail is not None):
                    raise
                self.seq = max(self.seq, e.detail)
        raise LinkError(E_REPLAY, msg="the owner of the link kept refusing the request's number")

    def submit(self, code: int, payload: bytes = b"", auth: Optional[bool] = None) -> int:
        """Send a request without waiting; returns its seq for wait()."""
        if auth is None:
            auth = code in AUTH_CMDS
        if auth and self.key is None:
            raise LinkError(12, msg="this command needs the table key")
        self.seq += 1
        self.send(frame(code, self.seq, payload, self.key if auth else None, self.nonce))
        return self.seq

    def wait(self, code: int, seq: int, opening=False) -> bytes:
        """The reply data to request (code, seq). Replies come in request order,
        so requests may be submitted ahead and waited for in turn."""
        deadline = time.monotonic() + self.timeout
        while True:
            got = self.read_frame(deadline)
            if got is None:
                raise LinkError(0, msg="no reply to command 0x%02x" % code)
            rcode, rseq, data = got
            if rcode >= EVENT and rcode != NO_REQUEST:
                self.events.append((rcode & 0x7F, rseq, data))
                continue
            if rcode == NO_REQUEST:  # the table could not read our frame
                if opening:
                    continue
                raise LinkError(data[0] if data else 0, _detail(data))
            if rcode != code | REPLY or rseq != seq:
                continue  # a stale reply to an earlier request
            if not data:
                raise LinkError(0, msg="empty reply")
            if data[0]:
                raise LinkError(data[0], _detail(data))
            return data[1:]

    # commands

    def hello(self, attempts: int = 3) -> dict:
        """Open a session: learn the protocol version, limits, nonce and table id.
        Tries `attempts` times (a board still booting, a frame lost in garbage)."""
        reset = getattr(self.stream, "reset_input_buffer", None)
        for attempt in range(attempts):
            if reset is not None:
                reset()  # replies to anything before this session
            self._buf.clear()
            self._pos = 0
            self.resync()
            try:
                data = self.request(CMD_HELLO, bytes([VERSION]), opening=True)
                break
            except LinkError:
                if attempt == attempts - 1:
                    raise
        ver, flags, maxp = struct.unpack_from("<BBH", data)
        self.nonce = data[4:12]
        self.table_id = data[12:20]
        self.max_payload = maxp
        self.flags = flags
        self.relayed = bool(flags & FLAG_RELAYED)
        return {
            "version": ver,
            "key_set": bool(flags & 1),
            "key_button": bool(flags & 2),
            "max_payload": maxp,
            "table_id": self.table_id.hex(),
        }

    def info(self) -> dict:
        text = self.request(CMD_INFO).decode("utf-8", "replace")
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def echo(self, data: bytes) -> bytes:
        return self.request(CMD_ECHO, data)

    def set_key(self, key: bytes) -> None:
        """Give the table its key (only accepted while its key button was held at
        boot). The key travels in clear over the cable."""
        self.request(CMD_SETKEY, key, auth=False)
        self.key = key

    def stat(self, kind: int, idx: int = 0):
        data = self.request(CMD_STAT, struct.pack("<BH", kind, idx))
        return struct.unpack_from("<II", data)

    def get_object(
        self,
        kind: int,
        idx: int = 0,
        progress: Optional[Callable[[int, int], None]] = None,
        start: bytes = b"",
        window: int = 8,
    ) -> bytes:
        """Read a whole object in chunks; `start` resumes after a cut. Keeps up to
        `window` GETs in flight (the table answers in order), so a pull is not one
        round trip per chunk. Verifies the object's CRC and that it did not change
        while being read."""
        chunk = self.max_payload - 9
        out = bytearray(start)

        def get(off):
            return self.submit(CMD_GET, get_request(kind, idx, off, chunk))

        data = self.wait(CMD_GET, get(len(out)))  # the first reply gives the size
        total, crc = struct.unpack_from("<II", data)
        out += data[8:]
        inflight: deque = deque()
        ahead = len(out)
        try:
            while len(out) < total:
                while len(inflight) < window and ahead < total:
                    inflight.append(get(ahead))
                    ahead += chunk
                data = self.wait(CMD_GET, inflight.popleft())
                if struct.unpack_from("<II", data) != (total, crc):
                    raise LinkError(0, msg="object changed during the transfer")
                if len(data) == 8:
                    raise LinkError(0, msg="table sent no data before the end")
                out += data[8:]
                if progress:
                    progress(len(out), total)
        finally:
            self.drain(inflight)
        if progress and not start and total <= chunk:
            progress(len(out), total)
        if zlib.crc32(out) != crc or len(out) != total:
            raise LinkError(15, msg="object CRC mismatch after transfer")
        return bytes(out)

    def drain(self, inflight) -> None:
        # after a failure, take the replies still owed so the next request starts clean
        for seq in inflight:
            try:
                self.wait(CMD_GET, seq)
            except LinkError:
                pass

    def put_object(
        self,
        kind: int,
        idx: int,
        data: bytes,
        progress: Optional[Callable[[int, int], None]] = None,
        resume: bool = False,
    ) -> None:
        """Write an object in chunks, then commit it (the table activates it only
        when all bytes are there and their CRC matches). resume: continue a staging
        the table still holds instead of starting again."""
        chunk = self.max_payload - 11
        total = len(data)
        off = 0
        if resume:
            staged, stotal = self.stat(kind, idx)
            off = staged if stotal == total else 0
        while off < total or (off == 0 and total == 0):
            part = data[off : off + chunk]
            head = struct.pack("<BHII", kind, idx, total, off)
            try:
                (staged,) = struct.unpack_from("<I", self.request(CMD_PUT, head + part))
            except LinkError as e:
                if e.status != E_OFFSET or e.detail is None:
                    raise
                staged = e.detail  # the table already holds more (a lost reply)
            if staged <= off and total:
                raise LinkError(0, msg="table did not take the chunk at %d" % off)
            off = staged
            if progress:
                progress(off, total)
            if total == 0:
                break
        self.request(CMD_COMMIT, struct.pack("<BHII", kind, idx, total, zlib.crc32(data)))


def _posix_fd(stream) -> Optional[int]:
    """The fd of a pyserial Serial on POSIX (opened O_NONBLOCK), or of a stream
    that offers its own (link_fd(): an owner's local socket, link/owner.py),
    else None."""
    own = getattr(stream, "link_fd", None)
    if own is not None:
        return own()
    try:
        from serial.serialposix import Serial
    except ImportError:  # pyserial missing, or not POSIX
        return None
    if type(stream) is not Serial or not stream.is_open:
        return None
    fd = stream.fileno()
    return fd if not os.get_blocking(fd) else None


def _detail(data: bytes) -> Optional[int]:
    return struct.unpack_from("<I", data, 1)[0] if len(data) >= 5 else None
