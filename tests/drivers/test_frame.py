# Link framing (table/frame.py) and HMAC (table/mac.py), under CPython and MicroPython.
import binascii

from table import frame as F
from table.mac import Mac, hmac_sha256, same

FORBIDDEN = (0, 3, 4)


class Rng:
    """Deterministic xorshift32, the same on both interpreters."""

    def __init__(self, seed):
        self.s = seed or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def bytes(self, n, alphabet=None):
        b = bytearray(n)
        for i in range(n):
            r = self.next()
            b[i] = alphabet[r % len(alphabet)] if alphabet else r & 0xFF
        return b


def stuff(data):
    out = bytearray(F.stuffed_max(len(data)))
    n = F.encode(data, len(data), out, 0)
    return out[:n]


def unstuff(wire):
    buf = bytearray(wire)
    n = F.decode(buf, len(buf))
    return None if n < 0 else bytes(buf[:n])


def roundtrip(data):
    wire = stuff(data)
    for b in wire:
        assert b not in FORBIDDEN, (data, wire)
    assert len(wire) <= F.stuffed_max(len(data))
    assert unstuff(wire) == bytes(data), (data, wire)
    return wire


def test_every_byte_value_alone_and_in_runs():
    for v in range(256):
        for n in (1, 2, 83, 84, 85, 168, 169, 300):
            roundtrip(bytes([v]) * n)


def test_all_byte_values_in_one_body():
    data = bytes(range(256)) * 4
    wire = roundtrip(data)
    # every value 0..255 went in; no 0x00, 0x03 or 0x04 came out
    seen = bytearray(256)
    for b in wire:
        seen[b] = 1
    assert seen[0] == 0 and seen[3] == 0 and seen[4] == 0
    assert sum(seen) == 253


def test_empty_and_boundary_bodies():
    assert stuff(b"") == bytes([1])  # one block: no plain bytes, then the virtual zero
    assert unstuff(bytes([1])) == b""
    for n in range(0, 260):
        roundtrip(bytes([0x41]) * n)
        roundtrip(bytes([0x41]) * n + b"\x00")
        roundtrip(b"\x03" + bytes([0x41]) * n + b"\x04")


def test_random_bodies_roundtrip():
    rng = Rng(12345)
    dense = bytes([0, 3, 4, 5, 0xFF, 1, 2, 0x80])
    for i in range(300):
        n = rng.next() % 1100
        roundtrip(rng.bytes(n, dense if i % 2 else None))


def test_native_and_portable_stuffing_agree():
    # MicroPython runs viper encode/decode; encode_py/decode_py are the
    # reference (on CPython they are the same functions)
    rng = Rng(777)
    dense = bytes([0, 3, 4, 0x41, 1, 2, 5, 0xFF])
    for i in range(400):
        n = rng.next() % 1100 if i % 4 else i % 260
        data = rng.bytes(n, dense if i % 3 == 0 else None)
        a = bytearray(F.stuffed_max(n) + 3)
        b = bytearray(F.stuffed_max(n) + 3)
        na = F.encode(data, n, a, 2)
        nb = F.encode_py(data, n, b, 2)
        assert na == nb and a == b, data
        wa = bytearray(a[2:na])
        wb = bytearray(wa)
        assert F.decode(wa, len(wa)) == F.decode_py(wb, len(wb)) == n
        assert wa[:n] == wb[:n] == data
        # broken at a random place: both refuse, or both read the same bytes
        if na > 3:
            k = 2 + rng.next() % (na - 2)
            a[k] = (0, 3, 4, 0x41, 0xFF)[rng.next() % 5]
            wa = bytearray(a[2:na])
            wb = bytearray(wa)
            ra = F.decode(wa, len(wa))
            assert ra == F.decode_py(wb, len(wb))
            if ra >= 0:
                assert wa[:ra] == wb[:ra]


def test_encode_refuses_a_short_buffer():
    from check import raises

    raises(ValueError, F.encode, bytearray(100), 100, bytearray(50), 0)
    raises(ValueError, F.encode, bytearray(10), 11, bytearray(50), 0)


def test_worst_case_size_is_the_buffer_size():
    data = bytes([0x55]) * F.MAX_BODY  # no special byte: the most code bytes
    wire = roundtrip(data)
    assert len(wire) == F.stuffed_max(F.MAX_BODY) == F.MAX_WIRE


def test_specials_cost_nothing():
    assert len(stuff(bytes([0, 3, 4]) * 100)) == 301


def test_decode_rejects_broken_stuffing():
    good = stuff(b"hello\x00\x03world\x04")
    for bad in (b"", b"\x03", b"\x04abc", good[:-1], good + b"\x07", bytes([255]) + b"a" * 84):
        assert unstuff(bad) is None, bad
    # a forbidden byte inside a block
    wire = bytearray(good)
    wire[2] = 3
    assert unstuff(wire) is None
    # the last block must stand for the virtual 0x00, not 0x03/0x04
    assert unstuff(bytes([84 + 3])) is None  # symbol 84: no plain bytes, then 0x03
    assert unstuff(bytes([1])) == b""  # symbol 0: no plain bytes, then the 0x00
    # ending on a full block
    assert unstuff(bytes([255]) + b"a" * 84) is None


def test_decode_random_garbage_never_raises():
    rng = Rng(99)
    for _ in range(500):
        n = rng.next() % 200
        buf = rng.bytes(n)
        r = F.decode(buf, n)
        assert -1 <= r <= n


def test_seal_and_check():
    body = bytearray(F.MAX_BODY)
    F.put_header(body, F.CMD_ECHO, 0x01020304)
    body[6:9] = b"abc"
    n = F.seal(body, 9)
    assert n == 13
    assert F.check(body, n) == F.OK
    assert F.seq_of(body) == 0x01020304
    assert bytes(body[2:6]) == b"\x04\x03\x02\x01"
    assert binascii.crc32(bytes(body[:9])) == int.from_bytes(bytes(body[9:13]), "little")
    body[7] ^= 1
    assert F.check(body, n) == F.E_CRC
    body[7] ^= 1
    body[0] = 2
    F.seal(body, 9)
    assert F.check(body, n) == F.E_VERSION
    assert F.check(body, F.MIN_BODY - 1) == F.E_LEN
    assert F.check(body, F.MAX_BODY + 1) == F.E_LEN


def test_constants_agree():
    assert F.MIN_BODY == F.HDR + F.CRC_LEN
    assert F.MAX_BODY == F.HDR + F.MAX_PAYLOAD + F.MAC_LEN + F.CRC_LEN
    assert F.MAX_WIRE == F.stuffed_max(F.MAX_BODY)


# RFC 4231 test cases 1, 2 and 6 (key longer than a block).
def test_hmac_rfc4231_vectors():
    h = binascii.hexlify
    assert h(hmac_sha256(b"\x0b" * 20, b"Hi There")) == (
        b"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    )
    assert h(hmac_sha256(b"Jefe", b"what do ya want for nothing?")) == (
        b"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )
    assert h(
        hmac_sha256(b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First")
    ) == b"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"


def test_hmac_parts_equal_whole():
    m = Mac(b"k" * 32)
    assert m.digest(b"ab", b"", bytearray(b"cd"), memoryview(b"xef")[1:]) == m.digest(b"abcdef")


def test_same():
    assert same(b"abc", b"abc")
    assert not same(b"abc", b"abd")
    assert not same(b"abc", b"ab")


def test_vectors_of_docs_protocol_md():
    vectors = [
        (b"", "01"),
        (b"\x00", "0101"),
        (b"AB", "054142"),
        (b"\x03", "5701"),
        (b"A\x04B", "ac410242"),
        (b"\x00\x03\x04", "0157ab01"),
        (b"A" * 84, "ff" + "41" * 84 + "01"),
        (b"A" * 85, "ff" + "41" * 84 + "0241"),
    ]
    for body, hexwire in vectors:
        wire = binascii.unhexlify(hexwire)
        assert bytes(stuff(body)) == wire, body
        assert unstuff(wire) == body
