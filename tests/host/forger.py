"""The cheating player's tools: hand-log files read and written here from
docs/storage.md alone, not with the code under test (mjtable.logs.logfmt,
the firmware's table.recordlog), so the tamper tests do not share the
beliefs of the code they test.

    file header 12: magic (b"MJL1" | b"MJL2") | log id u32 LE | CRC-32 of the 8 bytes before
    record 18 + n:  0xA5 | type | n u16 | n ^ 0xFFFF u16 | payload | CRC-32 of the 6 + n
                    bytes before | chain 8
    chain = SHA-256(chain before || the record's 10 + n bytes)[:8]; before the first
    record, SHA-256(file header)[:8]
    seal: the last record, type 0xFE, HMAC-SHA256(key, b"MJSEAL1" | table id 8 |
    log id u32 LE | chain before the seal)
    T_END (type 4): each seat's points, i16 LE; T_LINK (type 5, format 2's first
    record): the id u32 and final chain (8) of the table's log before
"""

import hashlib
import hmac
import struct
import zlib

SEAL, END, LINK = 0xFE, 4, 5


def split(data: bytes) -> tuple:
    """(magic, log id, [(type, payload)]) of a file, without checking anything
    but the lengths (a cheat reads what is there)."""
    magic, lid = data[:4], struct.unpack_from("<I", data, 4)[0]
    out = []
    pos = 12
    while pos + 6 <= len(data):
        t, n = data[pos + 1], struct.unpack_from("<H", data, pos + 2)[0]
        out.append((t, bytes(data[pos + 6:pos + 6 + n])))
        pos += 18 + n
    return magic, lid, out


def boundaries(data: bytes) -> list:
    """The byte offsets where each record begins, and the file's end."""
    out = [12]
    pos = 12
    while pos + 6 <= len(data):
        pos += 18 + struct.unpack_from("<H", data, pos + 2)[0]
        out.append(min(pos, len(data)))
    return out


def _chain(prev: bytes, rec: bytes) -> bytes:
    return hashlib.sha256(prev + rec).digest()[:8]


def write(log_id: int, records, magic: bytes = b"MJL2") -> bytes:
    """A log file whose CRCs and chain are all right: what anyone can compute."""
    head = magic + struct.pack("<I", log_id)
    head += struct.pack("<I", zlib.crc32(head))
    out = bytearray(head)
    chain = hashlib.sha256(head).digest()[:8]
    for t, p in records:
        rec = struct.pack("<BBHH", 0xA5, t, len(p), len(p) ^ 0xFFFF) + p
        rec += struct.pack("<I", zlib.crc32(rec))
        chain = _chain(chain, rec)
        out += rec + chain
    return bytes(out)


def head(data: bytes) -> bytes:
    """The chain after the file's last record (computed, not read)."""
    chain = hashlib.sha256(data[:12]).digest()[:8]
    for a, b in zip(boundaries(data), boundaries(data)[1:], strict=False):
        chain = _chain(chain, data[a:b - 8])
    return chain


def sealed(log_id: int, records, key: bytes, table_id: bytes, magic=b"MJL2") -> bytes:
    """write() with a seal made with `key` (the right one, or a guess)."""
    body = write(log_id, [r for r in records if r[0] != SEAL], magic)
    mac = hmac.new(key, b"MJSEAL1" + table_id + struct.pack("<I", log_id) + head(body),
                   hashlib.sha256).digest()
    return write(log_id, [r for r in records if r[0] != SEAL] + [(SEAL, mac)], magic)


def points(records) -> list:
    for t, p in records:
        if t == END:
            return list(struct.unpack("<%dh" % (len(p) // 2), p))
    return None


def with_points(records, pts) -> list:
    """The records with the end-of-hand points replaced."""
    return [(t, struct.pack("<%dh" % len(pts), *pts) if t == END else p) for t, p in records]


def unsealed(records) -> list:
    return [r for r in records if r[0] != SEAL]


def relinked(records, prev_id: int, prev_head: bytes) -> list:
    """The records with the link to the log before replaced (format 2)."""
    return [(LINK, struct.pack("<I", prev_id) + prev_head) if t == LINK else (t, p)
            for t, p in records]


def flip_win(pts) -> list:
    """Points where the seat that lost most won most (a table's 2nd becomes 1st)."""
    lo, hi = pts.index(min(pts)), pts.index(max(pts))
    out = list(pts)
    out[lo], out[hi] = pts[hi] + 40, pts[lo] - 40
    return out
