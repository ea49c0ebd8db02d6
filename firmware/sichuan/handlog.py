"""Compact binary hand log: one record per accepted action and per payment.

Header (14 bytes):
    b"HL" | version 1 | ruleset CRC32 (4, LE) | players | dealer | direction
    | t0 (4, LE, milliseconds, unsigned)
Records, each starting with a tag byte = kind << 3 | seat (seat 0..7):
    action kinds 0..15 and 17 (sichuan.game: DEAL .. PASS, MA, BAOHU, QINGHU, BENJIN,
    FEI, TI), then
      DEAL, EXCHANGE:                     count (1) | faces (1 each)
      DINGQUE, DRAW, DISCARD, BUGANG,
      ANGANG, HU, MA, QINGHU, BENJIN, TI: arg (1; 255 = none)
      PENG, ZHIGANG, PASS, BAOHU, FEI:    nothing
      then dt: the action's time minus the previous action's, in ms,
      zigzag varint (1 byte within +-63 ms, 2 within +-8191 ms, 3 beyond).
    PAY (kind 16, seat = payer): payee << 4 | pay reason (1) | amount varint.
A draw or discard is 4 bytes at human pace (tag, face, 2-byte dt), a payment
3. The log is what the hand did: replaying its actions through the engine
must give the same payments (`replay` checks), on either interpreter.
Integrity (CRC per record, hash chain) is the storage layer's job.
"""

from micropython import const

from . import game as G

# Event kinds of sichuan.settle and action kinds of sichuan.game (_G_), folded
# in at compile time (an imported name costs its string and a lookup per use
# in the .mpy); tests/core/test_consts.py checks them.
_EV_ACCEPTED = const(0)
_EV_PAY = const(2)
_G_DEAL = const(0)
_G_EXCHANGE = const(1)
_G_DINGQUE = const(2)
_G_DRAW = const(3)
_G_DISCARD = const(4)
_G_BUGANG = const(7)
_G_ANGANG = const(8)
_G_HU = const(9)
_G_MA = const(11)
_G_QINGHU = const(13)
_G_BENJIN = const(14)
_G_TI = const(17)

VERSION = const(1)
K_PAY = const(16)
REC_ACTION = const(0)
REC_PAY = const(1)
HEADER_LEN = const(14)

_ARG1 = (_G_DINGQUE, _G_DRAW, _G_DISCARD, _G_BUGANG, _G_ANGANG, _G_HU, _G_MA, _G_QINGHU,
         _G_BENJIN, _G_TI)
_LIST = (_G_DEAL, _G_EXCHANGE)


def _u32(buf, v):
    v &= 0xFFFFFFFF
    for _ in range(4):
        buf.append(v & 0xFF)
        v >>= 8


def _varint(buf, v):
    while v >= 0x80:
        buf.append(0x80 | (v & 0x7F))
        v >>= 7
    buf.append(v)


class Writer:
    """Appends records to `buf` (a bytearray) as the hand goes on."""

    def __init__(self, rs_crc, players, dealer, direction, t0=0, buf=None):
        """buf: a bytearray to write into from its start (the last hand's):
        it keeps its room, where a new one grows by small reallocations."""
        if buf is None:
            buf = bytearray()
        buf[:] = b"HL"
        self.buf = buf
        self.buf.append(VERSION)
        _u32(self.buf, rs_crc)
        self.buf.append(players)
        self.buf.append(dealer)
        self.buf.append(direction)
        _u32(self.buf, t0)
        self.t = t0 & 0xFFFFFFFF

    def action(self, a):
        """Append one action record (kind, seat, arg, t)."""
        kind = a[0]
        b = self.buf
        b.append(kind << 3 | a[1])
        arg = a[2]
        if kind in _LIST:
            faces = _as_faces(arg)
            b.append(len(faces))
            for f in faces:
                b.append(f)
        elif kind in _ARG1:
            b.append(arg if isinstance(arg, int) and 0 <= arg < 255 else 255)
        t = a[3] if len(a) > 3 else self.t
        dt = t - self.t
        _varint(b, dt << 1 if dt >= 0 else ((-dt) << 1) - 1)  # zigzag
        self.t = t

    def payment(self, e):
        """Append one PAY event (EV_PAY, payer, payee, amount, reason)."""
        b = self.buf
        b.append(K_PAY << 3 | e[1])
        b.append(e[2] << 4 | e[4])
        _varint(b, e[3])

    def record(self, a, events):
        """Log an applied action and its payments; a refused action is not logged."""
        if not events or events[0][0] != _EV_ACCEPTED:
            return
        self.action(a)
        for e in events:
            if e[0] == _EV_PAY:
                self.payment(e)


def _as_faces(arg):
    """A face list of a DEAL/EXCHANGE arg (faces, or counts[27])."""
    if len(arg) == 27:
        out = []
        for f in range(27):
            for _ in range(arg[f]):
                out.append(f)
        return out
    return list(arg)


def _get_u32(buf, i):
    return buf[i] | buf[i + 1] << 8 | buf[i + 2] << 16 | buf[i + 3] << 24


def _get_varint(buf, i):
    v = 0
    sh = 0
    while True:
        if i >= len(buf):
            raise ValueError("hand log truncated in a number at byte %d" % i)
        x = buf[i]
        i += 1
        v |= (x & 0x7F) << sh
        sh += 7
        if not x & 0x80:
            return v, i
        if sh > 35:
            raise ValueError("hand log number too long at byte %d" % i)


def decode(buf):
    """(header, records) of a log. header: (crc, players, dealer, direction, t0);
    records: (REC_ACTION, (kind, seat, arg, t)) or (REC_PAY, payer, payee,
    amount, reason). ValueError names the byte where the log is bad."""
    buf = bytes(buf)
    if not buf:  # a log file whose first record never came (power cut, crash)
        raise ValueError("empty hand log: the table stopped before the hand began")
    if len(buf) < HEADER_LEN or buf[:2] != b"HL":
        raise ValueError("not a hand log")
    if buf[2] != VERSION:
        raise ValueError("unknown hand log version %d" % buf[2])
    head = (_get_u32(buf, 3), buf[7], buf[8], buf[9], _get_u32(buf, 10))
    recs = []  # type: list
    t = head[4]
    i = HEADER_LEN
    n = len(buf)
    while i < n:
        at = i
        tag = buf[i]
        i += 1
        kind = tag >> 3
        seat = tag & 7
        if kind == K_PAY:
            if i >= n:
                raise ValueError("hand log truncated in a payment at byte %d" % at)
            x = buf[i]
            amount, i = _get_varint(buf, i + 1)
            recs.append((REC_PAY, seat, x >> 4, amount, x & 15))
            continue
        if kind > _G_TI:
            raise ValueError("unknown hand log record %d at byte %d" % (kind, at))
        arg = -1  # type: object
        if kind in _LIST:
            if i >= n or i + 1 + buf[i] > n:
                raise ValueError("hand log truncated in a tile list at byte %d" % at)
            arg = tuple(buf[i + 1:i + 1 + buf[i]])
            i += 1 + buf[i]
        elif kind in _ARG1:
            if i >= n:
                raise ValueError("hand log truncated at byte %d" % at)
            arg = buf[i] if buf[i] != 255 else -1
            i += 1
        z, i = _get_varint(buf, i)
        t += (z >> 1) if not z & 1 else -((z + 1) >> 1)
        recs.append((REC_ACTION, (kind, seat, arg, t)))
    return head, recs


def replay(rs, buf):
    """Replay a log through a fresh Game; returns the game at the log's end.

    ValueError if the ruleset CRC differs, an action is refused, or the
    payments the engine makes differ from the ones recorded.
    """
    head, recs = decode(buf)
    if head[0] != rs.crc():
        raise ValueError("hand log was played under another ruleset (CRC %08x)" % head[0])
    g = G.Game(rs, head[2], head[3])
    expect = []
    for r in recs:
        if r[0] == REC_PAY:
            if not expect or expect[0] != r[1:]:
                raise ValueError("payment %r in the log is not what the engine paid" % (r[1:],))
            expect.pop(0)
            continue
        if expect:
            raise ValueError("engine paid %r, not in the log" % (expect[0],))
        evs = g.apply(r[1])
        if evs[0][0] != _EV_ACCEPTED:
            raise ValueError("logged action %r refused: reason %d" % (r[1], evs[0][2]))
        for e in evs:
            if e[0] == _EV_PAY:
                expect.append((e[1], e[2], e[3], e[4]))
    if expect:
        raise ValueError("engine paid %r, not in the log" % (expect[0],))
    return g
