"""Host-link framing: protocol constants, the byte-stuffing code, frame sealing.

A frame body is
    ver u8 | code u8 | seq u32 LE | payload (0..MAX_PAYLOAD) [| mac 32] | crc32 u32 LE
where crc32 (table.crc: the zlib/binascii CRC-32) covers every byte before it. The body is
stuffed with "COBS-253" (below) and followed by one 0x00 delimiter on the wire.

COBS-253 is COBS generalised to remove three byte values instead of one: 0x00 (the
delimiter), 0x03 and 0x04 (Ctrl-C and Ctrl-D, which MicroPython's REPL and mpremote
treat as interrupt and soft reset). The body is cut into blocks; each block is one
code byte followed by its plain bytes (never 0x00/0x03/0x04). A code byte is one of
the 253 allowed byte values, read as a symbol k = 0..252:
    k <  252: s = k // 84, run = k % 84: `run` plain bytes follow, then the block
              stands for the special byte (0x00, 0x03, 0x04)[s];
    k == 252: 84 plain bytes follow, no special byte.
A virtual 0x00 is appended to the body before stuffing and dropped after unstuffing,
so the last block is always a k < 84 block. Overhead: one byte per 84 plain bytes,
plus one; a special byte costs nothing (its code byte replaces it). Symbol k maps to
byte k + 1 for k < 2 and k + 3 otherwise (skipping 0, 3, 4).
"""

import struct
import sys

from table.crc import crc32

try:
    from micropython import const
except ImportError:  # CPython (tests)

    def const(x):  # type: ignore[misc]
        return x


VERSION = const(1)
HDR = const(6)  # ver, code, seq
CRC_LEN = const(4)
MAC_LEN = const(32)
NONCE_LEN = const(8)
ID_LEN = const(8)
MAX_PAYLOAD = const(1024)  # payload bytes in either direction, MAC not counted
MIN_BODY = const(10)  # HDR + CRC_LEN
MAX_BODY = const(1066)  # HDR + MAX_PAYLOAD + MAC_LEN + CRC_LEN
RUN = const(84)  # plain bytes one code byte can cover
_B0 = b"\x00"
_B3 = b"\x03"
_B4 = b"\x04"
MAX_WIRE = const(1079)  # stuffed MAX_BODY: MAX_BODY + MAX_BODY // RUN + 1 (no delimiter)

# Request codes 0x01..0x3F; reply code = request code | 0x80; unsolicited events
# from the table use 0xC0..0xFE; 0xFF answers a frame that could not be read.
CMD_HELLO = const(0x01)
CMD_INFO = const(0x02)
CMD_ECHO = const(0x03)
CMD_SETKEY = const(0x04)
CMD_GET = const(0x10)
CMD_PUT = const(0x11)
CMD_COMMIT = const(0x12)
CMD_STAT = const(0x13)
# Object kinds for GET/PUT/COMMIT/STAT (table/xfer.py).
OBJ_RULES = const(1)
OBJ_LOG = const(2)  # idx: log number
OBJ_ENROLL = const(3)
REPLY = const(0x80)
EVENT = const(0xC0)
NO_REQUEST = const(0xFF)

# Status byte, first byte of every reply payload.
OK = const(0)
E_FRAME = const(1)  # stuffing broken (forbidden byte, truncated block)
E_CRC = const(2)  # frame CRC mismatch
E_LEN = const(3)  # frame too short or too long
E_VERSION = const(4)  # unknown protocol version
E_UNKNOWN = const(5)  # unknown command
E_AUTH = const(6)  # MAC missing or wrong
E_REPLAY = const(7)  # seq not above the last accepted one
E_BUSY = const(8)  # table cannot do it now; retry later
E_ARG = const(9)  # payload malformed or out of range
E_OFFSET = const(10)  # chunk not at the staged length (detail: staged length)
E_STATE = const(11)  # no such transfer in progress / already done
E_NOKEY = const(12)  # the table has no key yet
E_INTERNAL = const(13)  # a handler failed; nothing was changed
E_DENIED = const(14)  # key button not held at boot
E_CHECK = const(15)  # whole-object CRC or content check failed at commit


class LinkError(Exception):
    """Raised by handlers: `code` becomes the reply status, `detail` (u32, or -1
    for none) is appended to the error reply."""

    def __init__(self, code, detail=-1):
        super().__init__(code)
        self.code = code
        self.detail = detail


def stuffed_max(n):
    """Largest stuffed size of an n-byte body (delimiter not counted)."""
    return n + n // RUN + 1


def _next(buf, b, i, n):
    # index of special byte b in buf[i:n], or n; find() scans at C speed
    j = buf.find(b, i, n)
    return n if j < 0 else j


def encode_py(src, n, dst, o=0):
    """encode() in portable Python (CPython; the reference for the viper one)."""
    smv = memoryview(src)
    dmv = memoryview(dst)
    p0 = _next(src, _B0, 0, n)  # next 0x00, 0x03, 0x04 at or after i
    p3 = _next(src, _B3, 0, n)
    p4 = _next(src, _B4, 0, n)
    i = 0
    while True:
        j = min(p0, p3, p4)
        while j - i >= RUN:  # full blocks first
            dst[o] = 255  # symbol 252
            dmv[o + 1 : o + 1 + RUN] = smv[i : i + RUN]
            o += 1 + RUN
            i += RUN
        run = j - i
        if j == n:  # the virtual trailing 0x00
            k = run
        elif j == p0:
            k = run
            p0 = _next(src, _B0, j + 1, n)
        elif j == p3:
            k = run + RUN
            p3 = _next(src, _B3, j + 1, n)
        else:
            k = run + 2 * RUN
            p4 = _next(src, _B4, j + 1, n)
        dst[o] = k + 1 if k < 2 else k + 3
        if run:
            dmv[o + 1 : o + 1 + run] = smv[i:j]
        o += 1 + run
        if j == n:
            return o
        i = j + 1


def decode_py(buf, n):
    """decode() in portable Python (CPython; the reference for the viper one)."""
    mv = memoryview(buf)
    if buf.find(_B0, 0, n) >= 0 or buf.find(_B3, 0, n) >= 0 or buf.find(_B4, 0, n) >= 0:
        return -1
    r = 0
    w = 0
    while r < n:
        b = buf[r]
        r += 1
        k = b - 1 if b < 3 else b - 3
        if k == 252:
            run = RUN
            s = -1
        else:
            s = k // RUN
            run = k - s * RUN
        if r + run > n:
            return -1
        if run:
            mv[w : w + run] = mv[r : r + run]  # w <= r: a forward copy is safe
            r += run
            w += run
        if s >= 0:
            if r == n:
                return w if s == 0 else -1
            buf[w] = 0 if s == 0 else s + 2
            w += 1
    return -1


if sys.implementation.name == "micropython":
    # One pass per byte in native code: a frame costs a few microseconds on the
    # unix port, where the find()/slice version above spends ~17 us per 1 KB
    # frame on Python steps per block (and the board ~130x that).
    import micropython

    @micropython.viper
    def _encode_v(src, n: int, dst, o: int) -> int:
        s = ptr8(src)  # noqa: F821  (viper builtin)
        d = ptr8(dst)  # noqa: F821
        at = o  # where the open block's code byte goes
        o += 1
        i = 0
        while i < n:  # a new, empty block starts at src[i]
            lim = i + 84
            if lim > n:
                lim = n
            b = 0
            while i < lim:  # copy plain bytes (most bytes: one test each)
                b = s[i]
                if b <= 4 and b != 1 and b != 2:
                    break
                d[o] = b
                o += 1
                i += 1
            if i == lim:  # no special byte in this stretch
                if o - at == 85:  # a full block (symbol 252), no special byte
                    d[at] = 255
                    at = o
                    o += 1
                continue
            k = o - at - 1  # the block ends with the special byte src[i]
            if b == 3:
                k += 84
            elif b == 4:
                k += 168
            d[at] = k + 1 if k < 2 else k + 3
            at = o
            o += 1
            i += 1
        k = o - at - 1  # the last block stands for the virtual trailing 0x00
        d[at] = k + 1 if k < 2 else k + 3
        return o

    @micropython.viper
    def _decode_v(buf, n: int) -> int:
        p = ptr8(buf)  # noqa: F821  (viper builtin)
        r = 0
        w = 0
        while r < n:
            b = p[r]
            r += 1
            if b == 0 or b == 3 or b == 4:
                return -1
            k = b - 1 if b < 3 else b - 3
            s = 0
            if k == 252:
                run = 84
                s = -1
            elif k >= 168:
                run = k - 168
                s = 2
            elif k >= 84:
                run = k - 84
                s = 1
            else:
                run = k
            e = r + run
            if e > n:
                return -1
            while r < e:  # w <= r: a forward copy is safe
                c = p[r]
                if c == 0 or c == 3 or c == 4:
                    return -1
                p[w] = c
                w += 1
                r += 1
            if s >= 0:
                if r == n:
                    return w if s == 0 else -1
                p[w] = 0 if s == 0 else s + 2
                w += 1
        return -1

else:
    _encode_v = encode_py
    _decode_v = decode_py


def encode(src, n, dst, o=0):
    """Stuff src[0:n] (a bytearray) into dst (a bytearray) from index o; return the
    end index. dst must have room for stuffed_max(n) bytes (else ValueError: the
    viper code does not check indexes). No delimiter written."""
    if n < 0 or n > len(src) or o < 0 or o + stuffed_max(n) > len(dst):
        raise ValueError("encode bounds")
    return _encode_v(src, n, dst, o)


def decode(buf, n):
    """Unstuff buf[0:n] (a bytearray) in place; return the body length, or -1 if the
    bytes are not a valid stuffing (forbidden byte, truncated block, bad last block)."""
    if n < 0 or n > len(buf):
        raise ValueError("decode bounds")
    return _decode_v(buf, n)


def put_header(body, code, seq):
    """Write ver, code and seq (u32 LE) at the front of body."""
    body[0] = VERSION
    body[1] = code
    struct.pack_into("<I", body, 2, seq)


def seq_of(body):
    return struct.unpack_from("<I", body, 2)[0]


def seal(body, n):
    """Append the CRC32 of body[0:n] at n; return the sealed length."""
    struct.pack_into("<I", body, n, crc32(memoryview(body)[:n]))
    return n + CRC_LEN


def check(body, n):
    """Status for an unstuffed body of n bytes: OK, E_LEN, E_CRC or E_VERSION."""
    if n < MIN_BODY or n > MAX_BODY:
        return E_LEN
    if struct.unpack_from("<I", body, n - CRC_LEN)[0] != crc32(memoryview(body)[: n - CRC_LEN]):
        return E_CRC
    if body[0] != VERSION:
        return E_VERSION
    return OK
