"""Append-only record log with a CRC per record and a hash chain across records.

One file per log (a hand log).  All integers little-endian.

File header, 12 bytes:
  off 0  4 B  magic b"MJL2" (format 2; b"MJL1", format 1, is still read)
  off 4  4 B  log id, u32
  off 8  4 B  CRC-32 of bytes 0..8
Format 2 only says what the caller's first record is (table.logstore: the
link to the log before); the records are as in format 1.

Record, 18 + n bytes (n = payload length, 0..MAX_PAYLOAD):
  off 0    1 B  sync 0xA5
  off 1    1 B  type, 1..255 (the caller's record kinds; 0 is reserved)
  off 2    2 B  n, u16
  off 4    2 B  n ^ 0xFFFF (a torn tail must be told from a damaged length)
  off 6    n B  payload
  off 6+n  4 B  CRC-32 (binascii.crc32) of bytes [0, 6+n) of the record
  off 10+n 8 B  chain = SHA-256(previous chain || bytes [0, 10+n))[:8]

The chain of the first record starts from SHA-256(file header)[:8], so a
record copied in from another log breaks it too.  8 bytes (64 bits) of chain
per record: accidental damage, a dropped or reordered record all break it
with certainty short of a 2**-64 collision, at 8 bytes of flash per record.
The chain has no key: it detects edits by anyone who does not recompute it.
The host records `head()` when it pulls a log; any later rewrite of earlier
records changes the head.

Torn tail vs damage.  A power cut can only shorten the file (appends are
sequential; on LittleFS the size only grows at a sync).  So on open, a last
record that is incomplete but whose bytes so far are consistent is a torn
tail: it is cut off (rewrite the good prefix to a temp file, rename over:
MicroPython files have no truncate) and reported in `repaired`.  A complete
record that fails its checks is damage: nothing is cut, the log is marked
`damaged`, earlier records stay readable and appends are refused.
"""

import hashlib
import os

from micropython import const
from table.crc import crc32
from table.le import put_u32, u16, u32

HEADER_BYTES = const(12)
OVERHEAD = const(18)  # per record: 6 header + 4 CRC + 8 chain
MAX_PAYLOAD = const(1024)
CHAIN_BYTES = const(8)
_SYNC = const(0xA5)
_MAGIC = b"MJL2"  # written; "MJL1" logs (no link record) are read as well

# verify() / damaged reasons
OK = const(0)
TORN = const(1)  # incomplete last record (or file header)
BAD_HEADER = const(2)  # record header: sync byte or length check wrong
BAD_CRC = const(3)
BAD_CHAIN = const(4)  # record dropped, reordered, moved or chain edited
BAD_FILE = const(5)  # file header wrong


class LogError(Exception):
    pass


def _file_header(log_id):
    h = bytearray(HEADER_BYTES)
    h[0:4] = _MAGIC
    put_u32(h, 4, log_id)
    put_u32(h, 8, crc32(memoryview(h)[:8]))
    return h


def _same(mv, d):
    # Compare CHAIN_BYTES of a memoryview with bytes, without slicing copies.
    for i in range(CHAIN_BYTES):
        if mv[i] != d[i]:
            return False
    return True


class RecordLog:
    """An open log file.

    RecordLog(path) opens and checks an existing log (repairing a torn tail);
    RecordLog(path, create_id=n) creates a new, empty log with id n (fails if
    the file exists).  After opening:
      count     records in the log
      end       file size in bytes (offset where the next record goes)
      log_id    u32 from the file header
      repaired  None, or (bytes_cut, index_of_the_cut_record)
      damaged   None, or (reason, record_index, byte_offset): see verify();
                TORN here means a torn tail that could not be cut (no room)
    """

    def __init__(self, path, create_id=None):
        self.path = path
        # a record's header, CRC and chain for append(); a whole record for
        # reading, made on first use (a hand's log is only written to)
        self._hdr = bytearray(OVERHEAD)
        self._hv = memoryview(self._hdr)
        self._mv = None  # type: memoryview | None
        self._f = None
        self.repaired = None
        self.damaged = None
        self.log_id = None
        self.chain = b""
        if create_id is not None:
            self._create(create_id)
        else:
            self._open()

    def _space(self):
        """The one-record buffer (OVERHEAD + MAX_PAYLOAD bytes), made once."""
        if self._mv is None:
            self._mv = memoryview(bytearray(OVERHEAD + MAX_PAYLOAD))
        return self._mv

    # --- opening ---------------------------------------------------------

    def _create(self, log_id):
        if not 0 <= log_id <= 0xFFFFFFFF:
            raise ValueError("log id must be a u32")
        try:
            os.stat(self.path)
            raise LogError("log exists: " + self.path)
        except OSError:
            pass
        h = _file_header(log_id)
        tmp = self.path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(h)
        os.rename(tmp, self.path)  # a log either exists with its header or not at all
        self.log_id = log_id
        self.count = 0
        self.end = HEADER_BYTES
        self.chain = hashlib.sha256(h).digest()[:CHAIN_BYTES]

    def _open(self):
        with open(self.path, "rb") as f:
            reason, idx, pos, size = self._scan(f)
        if reason == TORN:
            try:
                self._cut(pos)
                self.repaired = (size - pos, idx)
            except OSError:  # e.g. no room for the copy: keep the tail, refuse appends
                self.damaged = (TORN, idx, pos)
        elif reason != OK:
            self.damaged = (reason, idx, pos)
        if reason == BAD_FILE:
            self.log_id = None
        self.count = idx
        self.end = pos

    def _cut(self, pos):
        # Keep bytes [0, pos): copy to a temp file and rename it over the log.
        tmp = self.path + ".tmp"
        mv = self._space()
        with open(self.path, "rb") as src, open(tmp, "wb") as dst:
            left = pos
            while left:
                n = src.readinto(mv) if left >= len(mv) else src.readinto(mv[:left])
                if not n:
                    raise LogError("short read while repairing")
                dst.write(mv[:n])
                left -= n
        os.rename(tmp, self.path)

    def _scan(self, f):
        """Walk the file from the start, checking everything.

        Returns (reason, index, offset, size): reason OK with index = record
        count and offset = end of the last good record; otherwise the index
        and offset of the first bad record.  Sets self.log_id and self.chain
        as of the last good record.
        """
        mv = self._space()
        f.seek(0, 2)
        size = f.tell()
        f.seek(0)
        # The header is written whole (temp file + rename), so a short one is damage.
        if f.readinto(mv[:HEADER_BYTES]) != HEADER_BYTES:
            return BAD_FILE, 0, 0, size
        if bytes(mv[:3]) != b"MJL" or mv[3] not in (0x31, 0x32) or crc32(mv[:8]) != u32(mv, 8):
            return BAD_FILE, 0, 0, size
        self.log_id = u32(mv, 4)
        chain = hashlib.sha256(mv[:HEADER_BYTES]).digest()[:CHAIN_BYTES]
        self.chain = chain
        pos = HEADER_BYTES
        idx = 0
        while pos < size:
            r = self._check_record(f, pos, size, chain)
            if r < 0:
                return -r, idx, pos, size
            chain = self.chain
            pos += r
            idx += 1
        return OK, idx, pos, size

    def _check_record(self, f, pos, size, prev):
        """Check the record at pos (file positioned there).  Returns its length,
        or -reason.  On success self.chain is its chain value, the record is in
        the one-record buffer."""
        mv = self._space()
        left = size - pos
        got = f.readinto(mv[:6]) if left >= 6 else f.readinto(mv[:left])
        if got < 6:
            # a torn header: the bytes that made it must still look like one
            if (got >= 1 and mv[0] != _SYNC) or (got >= 2 and mv[1] == 0):
                return -BAD_HEADER
            return -TORN
        n = u16(mv, 2)
        if mv[0] != _SYNC or (n ^ u16(mv, 4)) != 0xFFFF or n > MAX_PAYLOAD or mv[1] == 0:
            return -BAD_HEADER
        total = OVERHEAD + n
        if left < total:
            return -TORN
        if f.readinto(mv[6:total]) != total - 6:
            return -TORN
        if crc32(mv[: 6 + n]) != u32(mv, 6 + n):
            return -BAD_CRC
        h = hashlib.sha256(prev)
        h.update(mv[: 10 + n])
        d = h.digest()
        if not _same(mv[10 + n : total], d):
            return -BAD_CHAIN
        self.chain = d[:CHAIN_BYTES]
        return total

    # --- writing ---------------------------------------------------------

    def append(self, rtype, payload):
        """Append one record; returns its index.  rtype 1..255, payload bytes-like
        of at most MAX_PAYLOAD bytes.  Bad input or a damaged log: ValueError /
        LogError and nothing written.  The record is on flash when this returns
        (flush = lfs sync on LittleFS).  OSError (e.g. ENOSPC) propagates and
        marks the log damaged (TORN) until it is reopened, which repairs it."""
        if self.damaged is not None:
            raise LogError("log damaged, appends refused")
        if not 1 <= rtype <= 255:
            raise ValueError("record type must be 1..255")
        n = len(payload)
        if n > MAX_PAYLOAD:
            raise ValueError("payload too large")
        hv = self._hv
        b = self._hdr
        b[0] = _SYNC
        b[1] = rtype
        b[2] = n & 0xFF
        b[3] = n >> 8
        b[4] = (n & 0xFF) ^ 0xFF
        b[5] = (n >> 8) ^ 0xFF
        # on flash: header, payload, CRC, chain (hdr holds all but the payload)
        put_u32(b, 6, crc32(payload, crc32(hv[:6])))
        h = hashlib.sha256(self.chain)
        h.update(hv[:6])
        h.update(payload)
        h.update(hv[6:10])
        c = h.digest()[:CHAIN_BYTES]
        hv[10:OVERHEAD] = c
        total = OVERHEAD + n
        try:
            if self._f is None:
                self._f = open(self.path, "ab")
            self._f.write(hv[:6])
            self._f.write(payload)
            self._f.write(hv[6:OVERHEAD])
            self._f.flush()
        except OSError:
            # Part of the record may sit in the file (or the handle): refuse
            # further appends until a reopen has checked and cut the tail.
            self._drop_handle()
            self.damaged = (TORN, self.count, self.end)
            raise
        self.chain = c
        self.end += total
        self.count += 1
        return self.count - 1

    def close(self):
        if self._f is not None:
            f = self._f
            self._f = None
            f.close()

    def _drop_handle(self):
        try:
            self.close()
        except OSError:
            pass

    # --- reading ---------------------------------------------------------

    def head(self):
        """Chain value after the last record (8 bytes); the host keeps it as an anchor."""
        return self.chain

    def offset_of(self, index):
        """Byte offset of record `index` (0..count; count gives `end`).  Walks
        the record lengths from the start, checks nothing else."""
        if not 0 <= index <= self.count:
            raise IndexError("record index out of range")
        mv = self._space()
        pos = HEADER_BYTES
        with open(self.path, "rb") as f:
            for _ in range(index):
                f.seek(pos + 2)
                f.readinto(mv[:2])
                pos += OVERHEAD + u16(mv, 0)
        return pos

    def read_at(self, offset):
        """The record at byte `offset`: (type, payload bytes, next_offset).
        Checks its header and CRC (not the chain: that needs the one before);
        ValueError if `offset` is not the start of a good record."""
        if not HEADER_BYTES <= offset < self.end:
            raise ValueError("offset outside the log")
        with open(self.path, "rb") as f:
            f.seek(offset)
            n = self._read_one(f, offset)
        mv = self._space()
        return mv[1], bytes(mv[6 : 6 + n]), offset + OVERHEAD + n

    def _read_one(self, f, offset):
        mv = self._space()
        if f.readinto(mv[:6]) != 6:
            raise ValueError("no record at offset %d" % offset)
        n = u16(mv, 2)
        if mv[0] != _SYNC or (n ^ u16(mv, 4)) != 0xFFFF or n > MAX_PAYLOAD:
            raise ValueError("no record at offset %d" % offset)
        if offset + OVERHEAD + n > self.end or f.readinto(mv[6 : OVERHEAD + n]) != 12 + n:
            raise ValueError("record at offset %d runs past the end" % offset)
        if crc32(mv[: 6 + n]) != u32(mv, 6 + n):
            raise ValueError("bad CRC at offset %d" % offset)
        return n

    def read(self, index):
        """Record `index`: (type, payload bytes)."""
        if not 0 <= index < self.count:
            raise IndexError("record index out of range")
        t, p, _ = self.read_at(self.offset_of(index))
        return t, p

    def records(self, offset=HEADER_BYTES, index=0):
        """Yield (index, offset, type, payload) from record `index` at byte
        `offset` to the end: the host resumes a pull from its last
        (index, next offset).  Each record's CRC is checked."""
        with open(self.path, "rb") as f:
            while offset < self.end:
                f.seek(offset)
                n = self._read_one(f, offset)
                mv = self._space()
                yield index, offset, mv[1], bytes(mv[6 : 6 + n])
                offset += OVERHEAD + n
                index += 1

    def verify(self):
        """Re-read and check the whole file.  Returns (reason, index, offset):
        (OK, count, end) when every record and the chain are good, else the
        first bad record's index and offset with reason TORN, BAD_HEADER,
        BAD_CRC, BAD_CHAIN or BAD_FILE.  Does not change the file."""
        keep = self.chain, self.log_id
        with open(self.path, "rb") as f:
            reason, idx, pos, _ = self._scan(f)
        self.chain, self.log_id = keep
        return reason, idx, pos
