"""Tile encoding and notation.

A face is suit*9 + rank-1 (0..26); suits 0 万 m, 1 筒 p, 2 条 s.
A physical tile is face*4 + copy (0..107). A hand is its counts per face,
a bytearray(27).

Notation in: `123m456p789s`, `一二三万`, `5筒`, `索`/`条` for s, `饼` for p.
Notation out: `123m456p789s`.
"""

from micropython import const

from .shape import total  # noqa: F401  (part of this module's API; fan uses shape's)

NFACES = const(27)
NTILES = const(108)
SUITS = "mps"

# Suit words accepted after ranks; index in this string // 1 maps via _SUIT_OF.
_SUIT_CHARS = "mps万筒条索饼萬餅條"
_SUIT_OF = b"\x00\x01\x02\x00\x01\x02\x02\x01\x00\x01\x02"
_RANK_CHARS = "123456789一二三四五六七八九幺"
_RANK_OF = b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09\x01"


def suit_index(text):
    """Suit 0..2 of a suit word (`m`, `万`, `索`...); ValueError otherwise."""
    i = _SUIT_CHARS.find(text) if len(text) == 1 else -1
    if i < 0:
        raise ValueError("unknown suit %r (use m, p, s or 万, 筒, 条)" % text)
    return _SUIT_OF[i]


def parse(text, out=None):
    """Counts (bytearray(27)) of a notation string. Errors name the position.

    Ranks collect until a suit word closes them: `12m3p`, `一二三万`.
    Spaces, commas and `+` separate nothing. More than four copies is an error.
    """
    counts = bytearray(NFACES)  # `out` changes only once the whole text parsed
    pending = []  # (rank, position) waiting for their suit
    for pos, ch in enumerate(text):
        if ch in " ,+\t":
            continue
        r = _RANK_CHARS.find(ch)
        if r >= 0:
            pending.append((_RANK_OF[r], pos))
            continue
        s = _SUIT_CHARS.find(ch)
        if s < 0:
            raise ValueError("bad tile notation at %d: %r" % (pos, ch))
        if not pending:
            raise ValueError("suit %r at %d has no ranks before it" % (ch, pos))
        for rank, rpos in pending:
            f = _SUIT_OF[s] * 9 + rank - 1
            if counts[f] >= 4:
                raise ValueError("more than four of %s at %d" % (name(f), rpos))
            counts[f] += 1
        pending = []
    if pending:
        raise ValueError("ranks at %d have no suit after them" % pending[0][1])
    if out is None:
        return counts
    out[:] = counts
    return out


def parse_tile(text):
    """Face 0..26 of exactly one tile (`5m`, `五万`)."""
    c = parse(text)
    if sum(c) != 1:
        raise ValueError("expected one tile, got %r" % text)
    for f in range(NFACES):
        if c[f]:
            return f


def name(f):
    """`5m` for face 4."""
    return "%d%s" % (f % 9 + 1, SUITS[f // 9])


def to_text(counts):
    """Compact notation of counts: `123m456p`."""
    out = []
    for s in range(3):
        ranks = ""
        for f in range(s * 9, s * 9 + 9):
            ranks += str(f % 9 + 1) * counts[f]
        if ranks:
            out.append(ranks + SUITS[s])
    return "".join(out)
