"""One owner of a table's link; every other command goes through it.

A table has one USB port and one link session: one nonce, one rising
sequence number; a second program opening the port takes the session away
(E_REPLAY, E_AUTH, "no reply"). So one process owns the port (`mjtable
serve`, or `mjtable live` when no owner was there before it) and serves a
local socket; `port.connect` and live's feed find it there by the port's
path and speak the link protocol through it, as they would to the table,
with no change to how they are called.

The local socket: a Unix socket named for the port's real path, in a folder
only this user may enter ($MJTABLE_RUN_DIR, else $XDG_RUNTIME_DIR/mjtable,
else /tmp/mjtable-UID), held by a lock file the owner keeps locked while it
lives (a socket left by a dead owner is taken over). A client reads one line
of JSON first, {"state": "ok" | "connecting" | "offline" | "busy" | "wrong table",
"detail": why, for people, "table": hex id, "port", "pid"}, then frames, as
on the cable; a client is served only while the state is "ok".

What the owner does with each client's frames:
- HELLO is answered by the owner, from the session it opened: the table's
  nonce and id, its flags with FLAG_RELAYED set (docs/protocol.md).
- A request the table checks a MAC on (SIGNED_CMDS) keeps its sequence
  number, which the MAC covers; one not above the last number sent is
  answered E_REPLAY with that number, and the client (Link.request, when
  relayed) sends it again above it. Every other request is numbered anew.
  Replies go back to the client that asked, with its own number.
- WATCH on is passed on, and the table's events go to every client that
  asked for them; WATCH off only stops them for that client (the table
  keeps watching while the owner lives: a reader that comes back finds the
  table's flag as it left it, so watch=0 means a restart).
- At most WINDOW requests are at the table at once; the rest wait in order.
- The table stages one object at a time for the whole session (table/xfer.py:
  a PUT at offset 0 starts staging afresh, COMMIT ends it), so one client's
  PUT..COMMIT holds it: another client's PUT or COMMIT waits, with every
  request of that client after it, until the holder's COMMIT is answered, a
  PUT of its is refused, it goes, or it leaves the staging idle STAGE_HOLD s.
  Two pushes at once (`rules push` and `match start`'s) would otherwise
  restart each other's staging and one COMMIT would fail (E_STATE, E_CHECK).

The table's side: the port opened exclusively, HELLO, and the table's id
(and whether it has a key) checked on every reopen against the first
session's: a different table on the same path is refused, clients are
told so and the port is tried again every RETRY s. A table that leaves a
request unanswered for TIMEOUT_X timeouts is offline: the port is opened
again the same way (whatever answers then is asked who it is). A table that forgot a
WATCH it had (INFO watch=0) restarted: the session is opened again (its
nonce changed) and the clients are let go, to come back with it.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import select
import socket
import struct
import threading
import time
from collections import deque

from mjtable.link import client as L
from mjtable.link import protocol as P

WINDOW = 8  # requests at the table at once (get_object keeps 8 in flight)
TIMEOUT_X = 3  # timeouts a request may wait for its reply before the table is offline
RETRY = 1.0  # s between two attempts to open the port
BUSY = "busy"  # the state while a program that does not share the port holds it
CLIENT_BACKLOG = 1 << 20  # bytes a client may fall behind before it is let go
STAGE_HOLD = 30.0  # s a client may leave the table's staging idle before another may take it
STAGING = frozenset({P.CMD_PUT, P.CMD_COMMIT})


def run_dir() -> str:
    base = os.environ.get("MJTABLE_RUN_DIR")
    if not base:
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        base = os.path.join(xdg, "mjtable") if xdg else "/tmp/mjtable-%d" % os.getuid()
    os.makedirs(base, mode=0o700, exist_ok=True)
    return base


def socket_path(port: str) -> str:
    """The owner's socket for `port` (the same for every path naming it)."""
    real = os.path.realpath(port)
    tag = hashlib.sha1(real.encode()).hexdigest()[:16]
    name = "".join(c if c.isalnum() else "-" for c in os.path.basename(real))[:24]
    return os.path.join(run_dir(), "%s-%s.sock" % (name, tag))


class Refused(Exception):
    """The owner is there but cannot serve the table now: `state` is
    "connecting", "offline", BUSY (a program that does not share the port
    holds it) or "wrong table" (the message says which)."""

    def __init__(self, state: str, detail: str):
        super().__init__(detail)
        self.state = state


class OwnerStream:
    """The client's end of an owner's socket, a stream for client.Link (its
    fd is read with select, as a serial port's is); `greeting` is the owner's
    first line, decoded."""

    def __init__(self, sock, greeting: dict):
        self.sock = sock
        self.greeting = greeting
        self.is_open = True

    def link_fd(self) -> int:
        return self.sock.fileno()

    def write(self, data) -> int:
        self.sock.sendall(data)
        return len(data)

    def read(self, n: int = 1) -> bytes:
        r, _, _ = select.select([self.sock], [], [], 0.1)
        return self.sock.recv(n) if r else b""

    def reset_input_buffer(self) -> None:
        pass  # a connection of its own: nothing of an earlier session comes in on it

    def close(self) -> None:
        if self.is_open:
            self.is_open = False
            self.sock.close()


def open_stream(port: str, timeout: float = 2.0):
    """An OwnerStream to the owner of `port`, or None when nothing owns it;
    Refused (its reason) when the owner cannot serve the table now."""
    path = socket_path(port)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:  # no socket, or one left by an owner that is gone
        sock.close()
        return None
    try:
        sock.settimeout(timeout)
        line = b""
        while not line.endswith(b"\n"):
            got = sock.recv(1)
            if not got:
                raise OSError("the owner closed the connection")
            line += got
        greeting = json.loads(line)
    except (OSError, ValueError) as e:
        sock.close()
        raise Refused("offline", "the owner of %s did not answer (%s)" % (port, e)) from None
    if greeting.get("state") != "ok":
        sock.close()
        raise Refused(str(greeting.get("state")), str(greeting.get("detail")))
    sock.settimeout(None)
    sock.setblocking(False)
    return OwnerStream(sock, greeting)


class Framer:
    """Frames out of a byte stream: feed(bytes) -> the raw frames completed."""

    def __init__(self):
        self.buf = bytearray()

    def feed(self, data) -> list:
        self.buf += data
        out = []
        while True:
            i = self.buf.find(0)
            if i < 0:
                return out
            if i:
                out.append(bytes(self.buf[:i]))
            del self.buf[: i + 1]


def read_frame(raw: bytes):
    """(code, seq, payload) of a raw frame, or None if it is not one."""
    try:
        return L.parse(L.unstuff(raw))
    except ValueError:
        return None


def wire(code: int, seq: int, payload) -> bytes:
    return L.stuff(L.body(code, seq, payload)) + b"\x00"


class _Client:
    def __init__(self, sock):
        self.sock = sock
        self.framer = Framer()
        self.out = bytearray()
        self.watching = False
        self.gone = False


class Owner(threading.Thread):
    """Owns `port` and serves its socket until stop(). claim() first (in the
    caller's thread): False if another process owns the port already."""

    def __init__(self, port: str, timeout: float = 2.0, opener=None, say=None):
        super().__init__(daemon=True, name="owner %s" % port)
        self.port = port
        self.timeout = timeout
        self.opener = opener or self._open
        self.say = say or (lambda text: None)
        self.path = socket_path(port)
        self.state = "connecting"
        self.detail = "connecting to %s" % port
        self.tried = threading.Event()  # the first attempt to open the port is over
        self.table_id = b""  # the first session's: a reopen must find the same table
        self.had_key = False
        self.ser = None
        self.fd = -1
        self.seq = 0
        self.hello_data = b""
        self.framer = Framer()
        self.clients: dict = {}  # socket -> _Client
        self.inflight: dict = {}  # table seq -> (client, its seq, code, sent at)
        self.waiting: deque = deque()  # (client, its seq, code, payload) not sent yet
        self.watch_on = False
        self.stager = None  # the client whose PUT..COMMIT holds the table's staging
        self.stage_at = 0.0  # when the stager last sent or got a staging frame
        self.listener = None
        self._lock_fd = -1
        self._halt = threading.Event()
        self._wake_r, self._wake_w = os.pipe()

    # --- the socket and its lock ---

    def claim(self) -> bool:
        fd = os.open(self.path[:-5] + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._lock_fd = fd
        try:
            os.unlink(self.path)  # left by an owner that died
        except FileNotFoundError:
            pass
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        os.chmod(self.path, 0o600)
        self.listener.listen(16)
        self.listener.setblocking(False)
        return True

    def stop(self):
        self._halt.set()
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    # --- the table's side ---

    def _open(self, port):
        import serial

        return serial.Serial(port, 115200, timeout=0.2, write_timeout=self.timeout,
                             exclusive=True)

    def _connect(self) -> bool:
        try:
            ser = self.opener(self.port)
        except Exception as e:  # pyserial's SerialException, OSError: not there, in use
            if L.port_busy(e):
                self._set(BUSY, "%s is in use by another program that does not share it: "
                          "waiting for it to let go" % self.port)
            else:
                self._set("offline", "table offline (%s: %s)" % (self.port, e))
            return False
        self.ser = ser
        self.fd = ser.fileno()
        os.set_blocking(self.fd, False)
        self.framer = Framer()
        try:
            data = self._hello()
        except (L.LinkError, OSError) as e:
            self._close_port("offline", "table offline (%s: %s)" % (self.port, e))
            return False
        tid = bytes(data[12:20])
        key = bool(data[1] & P.FLAG_KEY)
        if self.table_id and (tid != self.table_id or (self.had_key and not key)):
            why = ("another table" if tid != self.table_id else "a table that lost its key")
            self._close_port("wrong table", "%s (id %s) is on %s, not table %s: not trusted;"
                             " waiting for %s" % (why, tid.hex(), self.port,
                                                  self.table_id.hex(), self.table_id.hex()))
            return False
        self.table_id = tid
        self.had_key = self.had_key or key
        self.hello_data = bytes(data)
        self._set("ok", "%s is table %s" % (self.port, tid.hex()))
        return True

    def _hello(self) -> bytes:
        """A session of the owner's own: the data of the table's HELLO reply."""
        for _attempt in range(3):
            self._send_table(b"\x00")  # ends whatever partial frame the table holds
            self.seq += 1
            self._send_table(wire(P.CMD_HELLO, self.seq, bytes([P.VERSION])))
            deadline = time.monotonic() + self.timeout
            while time.monotonic() < deadline:
                for code, seq, data in self._table_frames(deadline - time.monotonic()):
                    if code == P.CMD_HELLO | P.REPLY and seq == self.seq:
                        if not data or data[0]:
                            raise L.LinkError(data[0] if data else 0)
                        return data[1:]
        raise L.LinkError(0, msg="no reply to HELLO")

    def _table_frames(self, wait: float) -> list:
        if not select.select([self.fd], [], [], max(0.0, wait))[0]:
            return []
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return []
        if not data:
            raise OSError("the port closed (the table unplugged?)")
        return [f for f in map(read_frame, self.framer.feed(data)) if f is not None]

    def _send_table(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + self.timeout
        while view:
            try:
                view = view[os.write(self.fd, view):]
            except BlockingIOError:
                pass
            if view and not select.select([], [self.fd], [], max(0.0, deadline -
                                                                 time.monotonic()))[1]:
                raise OSError("the table takes no bytes (write timed out)")

    def _set(self, state: str, detail: str) -> None:
        if (state, detail) != (self.state, self.detail):
            self.say("owner: %s" % detail)
        self.state = state
        self.detail = detail

    def _close_port(self, state: str, detail: str) -> None:
        self._set(state, detail)
        if self.ser is not None:
            try:
                self.ser.close()
            except Exception:
                pass
        self.ser = None
        self.fd = -1
        self.inflight.clear()
        self.waiting.clear()
        self.watch_on = False
        self.stager = None
        for c in list(self.clients.values()):  # they come back and are told why
            self._drop(c)

    # --- the loop ---

    def run(self):
        try:
            next_try = 0.0
            while not self._halt.is_set():
                if self.fd < 0 and time.monotonic() >= next_try:
                    if not self._connect():
                        next_try = time.monotonic() + RETRY
                    self.tried.set()
                self._turn(0.2 if self.fd >= 0 else max(0.0, min(0.2, next_try -
                                                                    time.monotonic())))
        finally:
            self._close_port("offline", "the owner of %s stopped" % self.port)
            self.listener.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass
            os.close(self._lock_fd)
            for fd in (self._wake_r, self._wake_w):
                os.close(fd)

    def _turn(self, wait: float) -> None:
        rd = [self.listener, self._wake_r] + list(self.clients)
        if self.fd >= 0:
            rd.append(self.fd)
        wr = [c.sock for c in self.clients.values() if c.out]
        r, w, _ = select.select(rd, wr, [], wait)
        if self._wake_r in r:
            os.read(self._wake_r, 64)
        if self.listener in r:
            self._accept()
        for s in w:
            c = self.clients.get(s)
            if c is not None:
                self._flush(c)
        for s in r:
            c = self.clients.get(s)
            if c is not None:
                self._from_client(c)
        if self.fd >= 0 and self.fd in r:
            try:
                for f in self._table_frames(0):
                    self._from_table(*f)
            except OSError as e:
                self._close_port("offline", "table offline (%s: %s)" % (self.port, e))
        self._expire()
        self._pump()

    def _accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        greeting = {"state": self.state, "detail": self.detail, "table": self.table_id.hex(),
                    "port": self.port, "pid": os.getpid()}
        try:
            sock.sendall(json.dumps(greeting).encode() + b"\n")
        except OSError:
            sock.close()
            return
        if self.state != "ok":
            sock.close()
            return
        sock.setblocking(False)
        self.clients[sock] = _Client(sock)

    def _drop(self, c) -> None:
        c.gone = True
        if self.stager is c:
            self.stager = None
        self.clients.pop(c.sock, None)
        try:
            c.sock.close()
        except OSError:
            pass

    def _to_client(self, c, data: bytes) -> None:
        if c.gone:
            return
        c.out += data
        if len(c.out) > CLIENT_BACKLOG:
            self._drop(c)  # it stopped reading: it reconnects and is whole again
            return
        self._flush(c)

    def _flush(self, c) -> None:
        try:
            n = c.sock.send(c.out)
        except BlockingIOError:
            return
        except OSError:
            self._drop(c)
            return
        del c.out[:n]

    def _from_client(self, c) -> None:
        try:
            data = c.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(c)
            return
        for raw in c.framer.feed(data):
            f = read_frame(raw)
            if f is None:
                self._to_client(c, wire(P.NO_REQUEST, 0, bytes((P.E_FRAME,))))
            else:
                self._request(c, *f)

    def _request(self, c, code: int, seq: int, payload: bytes) -> None:
        if code == P.CMD_HELLO:
            flags = self.hello_data[1] | P.FLAG_RELAYED
            data = self.hello_data[:1] + bytes((flags,)) + self.hello_data[2:]
            self._to_client(c, wire(code | P.REPLY, seq, b"\x00" + data))
        elif code == P.CMD_WATCH and payload[:1] == b"\x00":
            c.watching = False  # the table keeps watching for the others
            self._to_client(c, wire(code | P.REPLY, seq, b"\x00"))
        else:
            if code == P.CMD_WATCH:
                c.watching = True
            self.waiting.append((c, seq, code, payload))

    def _pump(self) -> None:
        """Send waiting requests while the window has room; a client's PUT or
        COMMIT while another holds the staging waits, and its later requests
        with it (a client's replies come in the order it asked)."""
        held, blocked = deque(), set()
        while self.waiting and len(self.inflight) < WINDOW and self.fd >= 0:
            c, seq, code, payload = item = self.waiting.popleft()
            if c.gone:
                continue
            if c in blocked or (code in STAGING and self.stager not in (None, c)):
                blocked.add(c)
                held.append(item)
                continue
            if code in P.SIGNED_CMDS:  # its MAC covers its number: it keeps it
                if seq <= self.seq:
                    detail = struct.pack("<I", self.seq)
                    self._to_client(c, wire(code | P.REPLY, seq, bytes((P.E_REPLAY,)) + detail))
                    continue
                tseq = seq
            else:
                tseq = self.seq + 1
            self.seq = tseq
            self.inflight[tseq] = (c, seq, code, time.monotonic())
            if code in STAGING:
                self.stager = c
                self.stage_at = time.monotonic()
            try:
                self._send_table(wire(code, tseq, payload))
            except OSError as e:
                self._close_port("offline", "table offline (%s: %s)" % (self.port, e))
                return
        self.waiting.extendleft(reversed(held))

    def _from_table(self, code: int, seq: int, data: bytes) -> None:
        if code >= P.EVENT and code != P.NO_REQUEST:
            frame = wire(code, seq, data)
            for c in list(self.clients.values()):
                if c.watching:
                    self._to_client(c, frame)
            return
        got = self.inflight.pop(seq, None) if code != P.NO_REQUEST else None
        if got is None:
            return  # a reply no client waits for any more, or a frame the table could not read
        c, cseq, rcode, _ = got
        if c is self.stager and rcode in STAGING:
            self._staged(rcode, data)
        if code & 0x7F == P.CMD_WATCH and data[:1] == b"\x00":
            self.watch_on = True
        if code & 0x7F == P.CMD_INFO and self.watch_on and b"\nwatch=0\n" in data:
            self._to_client(c, wire(code, cseq, data))
            self._restarted()
            return
        self._to_client(c, wire(code, cseq, data))

    def _staged(self, rcode: int, data: bytes) -> None:
        """The stager's PUT or COMMIT answered: a COMMIT (taken or refused)
        or a refused PUT ends its hold (E_OFFSET only says where to go on)."""
        self.stage_at = time.monotonic()
        if rcode == P.CMD_COMMIT or data[:1] not in (b"\x00", bytes((P.E_OFFSET,))):
            self.stager = None

    def _restarted(self) -> None:
        """The table forgot the WATCH it had: it restarted, with a new nonce."""
        self._close_port("connecting", "table %s restarted: its session is opened again"
                         % self.table_id.hex())

    def _expire(self) -> None:
        """A table silent for TIMEOUT_X timeouts is offline: the port is opened
        again, and whoever answers then is asked who it is before it is trusted
        (a cable pulled and put back, or another table on the port)."""
        now = time.monotonic()
        if self.stager is not None and now - self.stage_at > STAGE_HOLD and not any(
                v[0] is self.stager and v[2] in STAGING for v in self.inflight.values()):
            self.stager = None  # a staging left idle: another client may start one
        late = now - TIMEOUT_X * self.timeout
        if any(v[3] < late for v in self.inflight.values()):
            self._close_port("offline", "table offline (%s: no reply in %g s)"
                             % (self.port, TIMEOUT_X * self.timeout))


def serve(port: str, timeout: float = 2.0, say=None):
    """An Owner of `port` claimed and started (its first attempt to open the
    port made), or None if another process owns it."""
    o = Owner(port, timeout, say=say)
    if not o.claim():
        return None
    o.start()
    o.tried.wait(3 * timeout)
    return o


def shared_stream(port: str, timeout: float, owned: dict, say=None):
    """An OwnerStream to whichever process owns `port`; this process becomes
    the owner (kept in `owned`, port -> Owner) when none does. Refused when
    the owner cannot serve the table now."""
    stream = open_stream(port, timeout)
    if stream is None:
        o = owned.get(port)
        if o is None or not o.is_alive():
            o = serve(port, timeout, say)
            if o is not None:
                owned[port] = o
        stream = open_stream(port, timeout)
    if stream is None:
        raise Refused("offline", "no process owns %s and it could not be owned here" % port)
    return stream
