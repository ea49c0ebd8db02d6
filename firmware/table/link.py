"""Firmware end of the host link: a non-blocking request/response dispatcher.

Link(stream_read, stream_write, handlers, key) speaks the framing of table/frame.py
(see docs/protocol.md). The game loop calls poll() often; each call does at most one
read and handles at most one frame, so the link never blocks the game.

stream_read(mv) fills a memoryview with whatever bytes are available and returns
the count, or 0/None when there are none (USB CDC with timeout=0, a pty fd in
non-blocking mode). stream_write(mv) writes what it can and returns the count (or
None for none); the rest is retried on the next poll, and no new request is read
while a reply is still going out.

A handler is fn(req, resp) -> n: req is a memoryview of the request payload (MAC
removed), resp a memoryview to write at most MAX_PAYLOAD - 1 reply bytes into; it
returns how many it wrote, or raises LinkError(status[, detail]). Handlers marked
auth run only for requests carrying a valid MAC:
    HMAC-SHA256(key, nonce || ver || code || seq || payload)
with the nonce the table gave in its last HELLO reply.

Key setting: SETKEY is accepted once per boot, and only when key_button_held()
returns True. The board passes a callable that reports whether the key button was
held down at boot; save_key(key) stores the new key (flash) before it is used.
"""

import os
import struct

from table import frame as F
from table.crc import crc32
from table.mac import Mac, same

try:
    from micropython import const
except ImportError:  # CPython (tests)

    def const(x):  # type: ignore[misc]
        return x


_STATUS = const(6)  # offset of the status byte in a reply body
_DATA = const(7)  # offset of reply data
KEY_LEN = const(32)
FLAG_KEY = const(1)  # hello flags: the table has a key
FLAG_KEY_BUTTON = const(2)  # the key button was held at boot (SETKEY open)


class Link:
    def __init__(
        self,
        stream_read,
        stream_write,
        handlers=None,
        key=None,
        key_button_held=None,
        save_key=None,
        table_id=b"\x00" * F.ID_LEN,
        info=None,
        rand=None,
    ):
        self._read = stream_read
        self._write = stream_write
        # +1: a full buffer without a delimiter means the frame is too long
        self._rx = bytearray(F.MAX_WIRE + 1)
        self._rxmv = memoryview(self._rx)
        self._rxn = 0  # bytes held in _rx
        self._scan = 0  # bytes of _rx already searched for a delimiter
        self._drop = False  # discarding an oversize frame up to its delimiter
        self._win = self._rxmv  # the free part of _rx, starting at _winat
        self._winat = 0
        self._body = bytearray(F.MAX_BODY)
        self._bmv = memoryview(self._body)
        self._resp = self._bmv[_DATA : _DATA + F.MAX_PAYLOAD - 1]
        # a delimiter on both sides: text printed on a shared REPL CDC before a
        # frame ends up as its own (ignored) garbage, never inside the frame
        self._tx = bytearray(F.MAX_WIRE + 2)
        self._txmv = memoryview(self._tx)
        self._txn = 0
        self._txo = 0
        self._fns = {}
        self._auth = bytearray(64)  # per request code: 1 if it needs a MAC
        self._rand = rand or os.urandom
        self.nonce = bytes(self._rand(F.NONCE_LEN))
        self.last_seq = 0
        self._evseq = 0
        self._mac = Mac(key) if key else None
        self._key_button = key_button_held
        self._save_key = save_key
        self._key_set = False
        self._id = bytes(table_id)
        self._info = info
        self.register(F.CMD_INFO, self._cmd_info)
        self.register(F.CMD_ECHO, self._cmd_echo)
        self.register(F.CMD_SETKEY, self._cmd_setkey)
        if handlers:
            for code in handlers:
                fn, auth = handlers[code]
                self.register(code, fn, auth)

    def register(self, code, fn, auth=False):
        """Route request `code` (0x02..0x3F) to fn; auth: it needs a valid MAC."""
        if code <= F.CMD_HELLO or code >= 0x40:
            raise ValueError("request code")
        self._fns[code] = fn
        self._auth[code] = 1 if auth else 0

    @property
    def has_key(self):
        return self._mac is not None

    # --- stream side ---

    def poll(self):
        """Do a bounded slice of link work; True if there was some (bytes
        read or a frame handled), so a caller's burst goes on: garbage with
        no delimiter is drained a burst at a time, not one read per wake."""
        if self._txo < self._txn:
            self._flush()
            if self._txo < self._txn:
                return False
        rx = self._rx
        if self._scan == self._rxn:
            if self._rxn == len(rx):  # no delimiter in a whole buffer: oversize
                self._drop = True
                self._rxn = 0
                self._scan = 0
            if self._winat != self._rxn:  # idle polls reuse the view: no allocation
                self._win = self._rxmv[self._rxn :]
                self._winat = self._rxn
            got = self._read(self._win)
            if not got:
                return False
            self._rxn += got
        n = self._rxn
        i = rx.find(b"\x00", self._scan, n)
        if i < 0:
            self._scan = n
            return True
        if self._drop:
            self._drop = False
            self._send_error(F.NO_REQUEST, 0, F.E_LEN, -1)
        elif i:  # an empty frame (0x00 0x00) is a resync, not an error
            self._frame(i)
        rest = n - i - 1
        if rest:
            self._rxmv[0:rest] = self._rxmv[i + 1 : n]
        self._rxn = rest
        self._scan = 0
        return True

    def idle(self):
        """True when no reply is waiting to go out."""
        return self._txo >= self._txn

    def send_event(self, kind, payload):
        """Queue an unsolicited event frame (kind 0x40..0x7E); False if the link
        is busy sending, so the caller can keep or drop it."""
        if self._txo < self._txn:
            return False
        n = len(payload)
        if n > F.MAX_PAYLOAD or kind < 0x40 or kind > 0x7E:
            raise ValueError("event")
        self._evseq = (self._evseq + 1) & 0xFFFFFFFF
        self._bmv[F.HDR : F.HDR + n] = payload
        self._queue(kind | F.REPLY, self._evseq, F.HDR + n)
        return True

    def _flush(self):
        w = self._write(self._txmv[self._txo : self._txn])
        if w:
            self._txo += w

    def _queue(self, code, seq, n):
        # body[HDR:n] is already filled in; header and CRC written here rather
        # than through frame.put_header/seal: two calls fewer per reply
        b = self._body
        b[0] = F.VERSION
        b[1] = code
        struct.pack_into("<I", b, 2, seq)
        struct.pack_into("<I", b, n, crc32(self._bmv[:n]))
        tx = self._tx
        tx[0] = 0
        t = F.encode(b, n + F.CRC_LEN, tx, 1)
        tx[t] = 0
        self._txn = t + 1
        self._txo = 0
        w = self._write(self._txmv[: t + 1])
        if w:
            self._txo = w

    def _send_error(self, code, seq, status, detail):
        self._body[_STATUS] = status
        n = _DATA
        if detail >= 0:
            struct.pack_into("<I", self._body, n, detail)
            n += 4
        self._queue(code, seq, n)

    # --- request side ---

    def _frame(self, n):
        rx = self._rx
        m = F.decode(rx, n)
        if m < 0:
            return self._send_error(F.NO_REQUEST, 0, F.E_FRAME, -1)
        st = F.check(rx, m)
        if st == F.E_LEN or st == F.E_CRC:
            return self._send_error(F.NO_REQUEST, 0, st, -1)
        code = rx[1]
        seq = F.seq_of(rx)
        if code == 0 or code >= 0x40:  # not a request: nothing to answer to
            return self._send_error(F.NO_REQUEST, 0, F.E_UNKNOWN, -1)
        rcode = code | F.REPLY
        if st:
            return self._send_error(rcode, seq, st, -1)
        if code == F.CMD_HELLO:
            return self._hello(seq)
        fn = self._fns.get(code)
        if fn is None:
            return self._send_error(rcode, seq, F.E_UNKNOWN, -1)
        if seq <= self.last_seq:
            return self._send_error(rcode, seq, F.E_REPLAY, self.last_seq)
        end = m - F.CRC_LEN
        if self._auth[code]:
            if self._mac is None:
                return self._send_error(rcode, seq, F.E_NOKEY, -1)
            end -= F.MAC_LEN
            if end < F.HDR or not same(
                self._mac.digest(self.nonce, self._rxmv[:end]), self._rxmv[end : end + F.MAC_LEN]
            ):
                return self._send_error(rcode, seq, F.E_AUTH, -1)
        self.last_seq = seq
        try:
            n = _DATA + fn(self._rxmv[F.HDR : end], self._resp)
        except F.LinkError as e:
            return self._send_error(rcode, seq, e.code, e.detail)
        except Exception:  # a handler bug must not take the game down
            return self._send_error(rcode, seq, F.E_INTERNAL, -1)
        self._body[_STATUS] = F.OK
        self._queue(rcode, seq, n)

    def _hello(self, seq):
        # HELLO opens a session at any seq: a restarted host starts again from 1.
        # A fresh nonce makes every MAC of an earlier session useless.
        self.nonce = bytes(self._rand(F.NONCE_LEN))
        self.last_seq = seq
        flags = FLAG_KEY if self._mac is not None else 0
        if self._key_button is not None and self._key_button():
            flags |= FLAG_KEY_BUTTON
        b = self._body
        b[_STATUS] = F.OK
        struct.pack_into("<BBH", b, _DATA, F.VERSION, flags, F.MAX_PAYLOAD)
        o = _DATA + 4
        b[o : o + F.NONCE_LEN] = self.nonce
        o += F.NONCE_LEN
        b[o : o + F.ID_LEN] = self._id
        self._queue(F.CMD_HELLO | F.REPLY, seq, o + F.ID_LEN)

    def _cmd_echo(self, req, resp):
        n = len(req)
        if n > len(resp):
            raise F.LinkError(F.E_ARG)
        resp[:n] = req
        return n

    def _cmd_info(self, req, resp):
        text = self._info() if self._info else b"proto=1\n"
        n = min(len(text), len(resp))
        resp[:n] = text[:n]
        return n

    def _cmd_setkey(self, req, resp):
        if self._key_button is None or not self._key_button():
            raise F.LinkError(F.E_DENIED)
        if self._key_set:
            raise F.LinkError(F.E_STATE)
        if len(req) != KEY_LEN:
            raise F.LinkError(F.E_ARG)
        key = bytes(req)
        if self._save_key is not None:
            self._save_key(key)
        self._mac = Mac(key)
        self._key_set = True
        return 0
