"""Melds as small ints: kind << 5 | face (face 0..26).

Kinds: PENG 碰 (three shown), ZHIGANG 直杠 (a discard made the four),
BUGANG 补杠 (the fourth added to a 碰), ANGANG 暗杠 (four concealed).
"""

from micropython import const

PENG = const(0)
ZHIGANG = const(1)
BUGANG = const(2)
ANGANG = const(3)


def make(kind, face):
    return kind << 5 | face


def kind(m):
    return m >> 5


def face(m):
    return m & 31


def size(m):
    """Tiles in the meld: 3 for a 碰, 4 for a kong."""
    return 3 if m >> 5 == PENG else 4


def is_gang(m):
    return m >> 5 != PENG


def is_shown(m):
    """A 碰 or a kong made with another's tile or onto a 碰 (breaks 门清)."""
    return m >> 5 != ANGANG
