"""Chunked, resumable object transfer over the link (rules, logs, enrollment map).

An object is named by (kind u8, idx u16); a provider per kind holds the objects:
    size(idx) -> int, crc(idx) -> crc32 of the whole object,
    read(idx, offset, mv)           fill mv from the object at offset,
    begin(idx, total)               start staging a new version (may refuse),
    write(idx, offset, data)        store staged bytes,
    commit(idx)                     make the staged version active (may refuse),
    abort(idx)                      forget the staged version.
Any of them raises LinkError for a bad name or a refusal.

GET  (read)  kind u8, idx u16, offset u32, length u16
             -> total u32, crc u32, data (at most `length`, fewer at the end)
PUT  (auth)  kind u8, idx u16, total u32, offset u32, data
             -> staged u32. Offset 0 starts (or restarts) staging; any other offset
             must equal the staged length, else E_OFFSET with the staged length
             as detail, so a host that lost a reply resumes where the table is.
COMMIT (auth) kind u8, idx u16, total u32, crc u32 -> (nothing). Only when all
             `total` bytes are staged and their CRC matches is the provider asked to
             activate; a mismatch (E_CHECK) drops the staging, the active one stays.
STAT (read)  kind u8, idx u16 -> staged u32, total u32 (0, 0 if not staging it)
One object is staged at a time, across all kinds.
"""

import struct

from table import frame as F
from table.crc import crc32


class Transfers:
    def __init__(self, providers):
        self._p = providers  # kind -> provider
        self._reset()

    def _reset(self):
        self._kind = -1
        self._idx = -1
        self._total = 0
        self._staged = 0
        self._crc = 0

    def install(self, link):
        link.register(F.CMD_GET, self.get)
        link.register(F.CMD_PUT, self.put, True)
        link.register(F.CMD_COMMIT, self.commit, True)
        link.register(F.CMD_STAT, self.stat)

    def _provider(self, kind):
        p = self._p.get(kind)
        if p is None:
            raise F.LinkError(F.E_ARG)
        return p

    def _staging(self, kind, idx):
        return kind == self._kind and idx == self._idx

    def get(self, req, resp):
        if len(req) != 9:
            raise F.LinkError(F.E_ARG)
        kind, idx, off, ln = struct.unpack_from("<BHIH", req)
        p = self._provider(kind)
        total = p.size(idx)
        if off > total or ln > len(resp) - 8:
            raise F.LinkError(F.E_ARG)
        ln = min(ln, total - off)
        struct.pack_into("<II", resp, 0, total, p.crc(idx))
        p.read(idx, off, resp[8 : 8 + ln])
        return 8 + ln

    def put(self, req, resp):
        if len(req) < 11:
            raise F.LinkError(F.E_ARG)
        kind, idx, total, off = struct.unpack_from("<BHII", req)
        data = req[11:]
        p = self._provider(kind)
        if off + len(data) > total:
            raise F.LinkError(F.E_LEN)
        if off == 0:
            p.begin(idx, total)
            self._kind = kind
            self._idx = idx
            self._total = total
            self._staged = 0
            self._crc = 0
        elif not self._staging(kind, idx) or total != self._total:
            raise F.LinkError(F.E_STATE)
        elif off != self._staged:
            raise F.LinkError(F.E_OFFSET, self._staged)
        p.write(idx, off, data)
        self._staged += len(data)
        self._crc = crc32(data, self._crc)
        struct.pack_into("<I", resp, 0, self._staged)
        return 4

    def commit(self, req, resp):
        if len(req) != 11:
            raise F.LinkError(F.E_ARG)
        kind, idx, total, crc = struct.unpack_from("<BHII", req)
        p = self._provider(kind)
        if not self._staging(kind, idx) or total != self._total:
            raise F.LinkError(F.E_STATE)
        if self._staged != total:
            raise F.LinkError(F.E_OFFSET, self._staged)
        if crc != self._crc:
            p.abort(idx)
            self._reset()
            raise F.LinkError(F.E_CHECK)
        try:
            p.commit(idx)
        finally:  # activated or refused: either way this staging is over
            self._reset()
        return 0

    def stat(self, req, resp):
        if len(req) != 3:
            raise F.LinkError(F.E_ARG)
        kind, idx = struct.unpack_from("<BH", req)
        self._provider(kind)
        if self._staging(kind, idx):
            struct.pack_into("<II", resp, 0, self._staged, self._total)
        else:
            struct.pack_into("<II", resp, 0, 0, 0)
        return 8


class MemObjects:
    """In-memory provider: objects by idx, one staging buffer. `check(data)` may
    raise LinkError to refuse a staged version (the active one then stays)."""

    def __init__(self, limit=65536, check=None):
        self.objs = {}
        self._crcs = {}
        self._stage = None
        self._limit = limit
        self._check = check

    def set(self, idx, data):
        self.objs[idx] = bytes(data)
        self._crcs[idx] = crc32(data)

    def _obj(self, idx):
        o = self.objs.get(idx)
        if o is None:
            raise F.LinkError(F.E_ARG)
        return o

    def size(self, idx):
        return len(self._obj(idx))

    def crc(self, idx):
        self._obj(idx)
        return self._crcs[idx]

    def read(self, idx, off, mv):
        mv[:] = memoryview(self._obj(idx))[off : off + len(mv)]

    def begin(self, idx, total):
        if total > self._limit:
            raise F.LinkError(F.E_LEN)
        self._stage = bytearray(total)

    def write(self, idx, off, data):
        stage = self._stage
        if stage is None:
            raise F.LinkError(F.E_STATE)
        stage[off : off + len(data)] = data

    def commit(self, idx):
        data = self._stage
        self._stage = None
        if data is None:
            raise F.LinkError(F.E_STATE)
        if self._check is not None:
            self._check(data)
        self.set(idx, data)

    def abort(self, idx):
        self._stage = None
