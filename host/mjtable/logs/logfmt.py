"""Host-side reading and checking of a table's hand-log file, written apart from
the firmware's table/recordlog.py from the format in docs/storage.md:

    file header 12: b"MJL2" | log id u32 | CRC-32 of the first 8 bytes
                    (format 2; b"MJL1" logs, format 1, have no link record)
    record 18 + n:  0xA5 | type u8 | n u16 | n ^ 0xFFFF u16 | payload n
                    | CRC-32 of the 6 + n bytes before | chain[8]
    chain = SHA-256(previous chain || record bytes before the chain)[:8],
    the first record's previous chain being SHA-256(file header)[:8].

Seal (firmware table/hostcmds.py): the last record, type T_SEAL, holds
HMAC-SHA256(key, b"MJSEAL1" || table id[8] || log id u32 LE || chain before it).
Record types (firmware table/controller.py): T_HEAD the sichuan.handlog header,
T_ACT one action and its payments, T_ALERT, T_END each seat's points (i16 LE).
Format 2: the first record is T_LINK (firmware table/logstore.py), the id
(u32 LE) and final chain head (8 bytes) of the log the table made before
this one (0 and zeros: the table's first), under the seal with the rest.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import zlib
from dataclasses import dataclass, field

MAGICS = {b"MJL1": 1, b"MJL2": 2}  # the file format each magic names
HEADER = 12
OVERHEAD = 18
MAX_PAYLOAD = 1024
T_HEAD, T_ACT, T_ALERT, T_END, T_LINK = 1, 2, 3, 4, 5
T_SEAL = 0xFE
SEAL_TAG = b"MJSEAL1"


class LogDamaged(ValueError):
    """The log file fails a check; the message says where."""


@dataclass
class HandLogFile:
    log_id: int
    records: list = field(default_factory=list)  # (type, payload)
    heads: list = field(default_factory=list)  # chain after each record
    head0: bytes = b""  # chain before the first record
    version: int = 1  # the file format (MAGICS)

    @property
    def head(self) -> bytes:
        return self.heads[-1] if self.heads else self.head0

    def seal(self):
        """(mac, chain before it) if the log ends with a seal, else None."""
        if self.records and self.records[-1][0] == T_SEAL:
            before = self.heads[-2] if len(self.heads) > 1 else self.head0
            return self.records[-1][1], before
        return None

    def follows(self):
        """(log id, chain head) of the log the table made before this one
        (id 0: none), from the link record; None in a format 1 log."""
        if self.version < 2 or not self.records:
            return None
        p = self.records[0][1]
        return struct.unpack_from("<I", p)[0], bytes(p[4:12])

    def handlog(self) -> bytes:
        """The engine's hand-log bytes: the T_HEAD and T_ACT payloads in order."""
        return b"".join(p for t, p in self.records if t in (T_HEAD, T_ACT))

    def end_points(self):
        """Each seat's points as the table recorded them (T_END), or None."""
        for t, p in self.records:
            if t == T_END:
                return list(struct.unpack("<%dh" % (len(p) // 2), p))
        return None


def parse(data: bytes) -> HandLogFile:
    """Check every byte of a log file; LogDamaged names the first bad record."""
    data = bytes(data)
    if len(data) < HEADER or data[:4] not in MAGICS:
        raise LogDamaged("not a hand log file (bad magic)")
    if zlib.crc32(data[:8]) != struct.unpack_from("<I", data, 8)[0]:
        raise LogDamaged("file header CRC mismatch")
    (log_id,) = struct.unpack_from("<I", data, 4)
    out = HandLogFile(log_id, version=MAGICS[data[:4]])
    chain = hashlib.sha256(data[:HEADER]).digest()[:8]
    out.head0 = chain
    pos = HEADER
    i = 0
    while pos < len(data):
        where = "record %d (byte %d)" % (i, pos)
        if len(data) - pos < 6:
            raise LogDamaged("%s: truncated header" % where)
        sync, rtype, n, nx = struct.unpack_from("<BBHH", data, pos)
        if sync != 0xA5 or n ^ nx != 0xFFFF or rtype == 0 or n > MAX_PAYLOAD:
            raise LogDamaged("%s: bad record header" % where)
        end = pos + OVERHEAD + n
        if end > len(data):
            raise LogDamaged("%s: truncated" % where)
        if zlib.crc32(data[pos : pos + 6 + n]) != struct.unpack_from("<I", data, pos + 6 + n)[0]:
            raise LogDamaged("%s: CRC mismatch" % where)
        d = hashlib.sha256(chain + data[pos : pos + 10 + n]).digest()[:8]
        if d != data[pos + 10 + n : end]:
            raise LogDamaged("%s: hash chain broken (record edited, dropped or moved)" % where)
        chain = d
        out.records.append((rtype, data[pos + 6 : pos + 6 + n]))
        out.heads.append(chain)
        pos = end
        i += 1
    for j, (t, _) in enumerate(out.records[:-1]):
        if t == T_SEAL:
            raise LogDamaged("record %d: a seal before the end of the log" % j)
    # (no record at all: a cut just after the file was made, nothing logged)
    if out.version >= 2 and out.records and (out.records[0][0] != T_LINK
                                             or len(out.records[0][1]) != 12):
        raise LogDamaged("record 0: not the link to the log before (format 2)")
    return out


def table_name(tid_hex: str) -> str:
    """A table's 8-byte id for people: its name when it is printable ASCII
    (b"TBLA0001" -> "TBLA0001", trailing NULs dropped), else its hex."""
    try:
        raw = bytes.fromhex(tid_hex).rstrip(b"\x00")
    except ValueError:
        return tid_hex
    if raw and all(0x21 <= b < 0x7F for b in raw):
        return raw.decode("ascii")
    return tid_hex


def table_hex(name: str):
    """The hex id of a table given by its name or its hex (table_name's
    inverse), or None if it is neither."""
    t = name.strip()
    if len(t) == 16 and all(c in "0123456789abcdefABCDEF" for c in t):
        return t.lower()
    raw = t.encode("ascii", "replace")
    if 0 < len(raw) <= 8 and all(0x21 <= b < 0x7F for b in raw):
        return (raw + b"\x00" * (8 - len(raw))).hex()
    return None


def seal_mac(key: bytes, table_id: bytes, log_id: int, head_before: bytes) -> bytes:
    msg = SEAL_TAG + bytes(table_id) + struct.pack("<I", log_id) + head_before
    return hmac.new(key, msg, hashlib.sha256).digest()


def check_seal(log: HandLogFile, table_id: bytes, key) -> str:
    """'valid', 'unsealed', 'unchecked' (no key here) or 'FORGED'."""
    s = log.seal()
    if s is None:
        return "unsealed"
    if key is None:
        return "unchecked"
    mac, before = s
    good = seal_mac(key, table_id, log.log_id, before)
    return "valid" if hmac.compare_digest(mac, good) else "FORGED"
