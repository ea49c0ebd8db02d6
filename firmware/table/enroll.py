"""Enrollment map: tag UID -> physical tile 0..107 (face = tile // 4, copy = tile % 4).

UIDs are 8 bytes in the PN5180 driver's order (as received, least significant
byte first; byte 7 is 0xE0 for ISO15693 tags). The map is kept as one
bytearray of 108 * 8 bytes, tile t's UID at t * 8 (eight zero bytes = tile
not enrolled), plus a 256-bucket open-addressing index so that a lookup
straight out of the driver's UID buffer allocates nothing.

The same 864 bytes are the stored form (table.store, atomic, CRC-checked).
"""

from micropython import const
from table import store

TILES = const(108)
_UID_LEN = const(8)
_BLOB_LEN = const(864)  # TILES * _UID_LEN
_BUCKETS = const(256)
_EMPTY = const(0)  # index entries hold tile + 1


def _hash(buf, off):
    # The low UID bytes are the serial number: the part that differs between tags.
    return (buf[off] + 31 * buf[off + 1] + 7 * buf[off + 2] + buf[off + 3]) & 0xFF


class Enrollment:
    def __init__(self):
        self.uids = bytearray(_BLOB_LEN)
        self._index = bytearray(_BUCKETS)
        self.count = 0
        self._ask_bits = 0  # 0: to be worked out (ask_bits)

    def _same(self, tile, buf, off):
        u = self.uids
        b = tile * _UID_LEN
        for i in range(_UID_LEN):
            if u[b + i] != buf[off + i]:
                return False
        return True

    def _enrolled(self, tile):
        u = self.uids
        b = tile * _UID_LEN
        for i in range(_UID_LEN):
            if u[b + i]:
                return True
        return False

    def lookup(self, buf, off=0):
        """Tile 0..107 of the UID at buf[off:off+8], or -1 if not enrolled."""
        h = _hash(buf, off)
        idx = self._index
        for _ in range(_BUCKETS):
            e = idx[h]
            if e == _EMPTY:
                return -1
            if self._same(e - 1, buf, off):
                return e - 1
            h = (h + 1) & 0xFF
        return -1

    def uid(self, tile):
        """The UID enrolled for `tile` (bytes), or None."""
        if not 0 <= tile < TILES:
            raise ValueError("tile 0..107")
        if not self._enrolled(tile):
            return None
        return bytes(self.uids[tile * _UID_LEN:(tile + 1) * _UID_LEN])

    def _rebuild(self):
        idx = self._index
        for i in range(_BUCKETS):
            idx[i] = _EMPTY
        n = 0
        for t in range(TILES):
            if not self._enrolled(t):
                continue
            h = _hash(self.uids, t * _UID_LEN)
            while idx[h] != _EMPTY:
                h = (h + 1) & 0xFF
            idx[h] = t + 1
            n += 1
        self.count = n
        self._ask_bits = 0

    def ask_bits(self):
        """How many low UID bits (16..64, whole bytes) tell every enrolled tile
        from every other: the mask a one-tile ask (PN5180.find) sends. Each
        byte fewer is 0.3 ms less air an ask; the answer's whole UID is
        checked, so a stray tag that shares those bits is no false answer."""
        if not self._ask_bits:
            self._ask_bits = 64
            u = self.uids
            for nb in range(2, _UID_LEN):
                seen = set()
                for t in range(TILES):
                    if self._enrolled(t):
                        seen.add(bytes(u[t * _UID_LEN:t * _UID_LEN + nb]))
                if len(seen) == self.count:
                    self._ask_bits = 8 * nb
                    break
        return self._ask_bits

    def set(self, tile, uid):
        """Enroll `uid` (8 bytes, not all zero) as `tile`, replacing the tile's
        old UID. ValueError (and no change) if the UID already belongs to
        another tile."""
        if not 0 <= tile < TILES:
            raise ValueError("tile 0..107")
        if len(uid) != _UID_LEN or not any(uid):
            raise ValueError("a UID is 8 bytes, not all zero")
        other = self.lookup(uid, 0)
        if other >= 0 and other != tile:
            raise ValueError("UID already enrolled as tile %d" % other)
        b = tile * _UID_LEN
        for i in range(_UID_LEN):
            self.uids[b + i] = uid[i]
        self._rebuild()

    def remove(self, tile):
        if not 0 <= tile < TILES:
            raise ValueError("tile 0..107")
        b = tile * _UID_LEN
        for i in range(_UID_LEN):
            self.uids[b + i] = 0
        self._rebuild()

    def complete(self):
        """True when all 108 tiles have a UID."""
        return self.count == TILES

    def load_blob(self, blob):
        """Replace the map by a stored blob. ValueError (no change) if the
        length is wrong or one UID is given to two tiles."""
        if len(blob) != _BLOB_LEN:
            raise ValueError("enrollment blob must be %d bytes" % _BLOB_LEN)
        old = bytes(self.uids)
        self.uids[:] = blob
        self._rebuild()
        for t in range(TILES):
            if self._enrolled(t) and self.lookup(self.uids, t * _UID_LEN) != t:
                self.uids[:] = old
                self._rebuild()
                raise ValueError("tile %d has a UID enrolled twice" % t)

    def save(self, path):
        """Atomic write (table.store)."""
        store.write(path, self.uids)

    def load(self, path):
        """Load from `path`: store.OK, store.MISSING or store.CORRUPT (map
        unchanged unless OK)."""
        status, data = store.load(path)
        if status != store.OK:
            return status
        try:
            self.load_blob(data)
        except ValueError:
            return store.CORRUPT
        return store.OK
