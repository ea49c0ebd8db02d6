"""The referee's calculator: waits and the value of a win, as plain dicts.

Both functions are pure; the host prints their result as JSON, so the
CPython and MicroPython engines print the same bytes. This module runs the
rules core (sichuan) on either interpreter but is not part of it: the board
never calculates for a referee, so it stays off the board's flash. Under
MicroPython, mp_calc imports it as a top-level module (it sits beside
mp_calc.py); it keeps to the MicroPython subset and imports only sichuan.
"""

from sichuan import fan, shape, tiles
from sichuan import ruleset as R

try:
    from mjtable.referee.patnames import EXTRA_NAMES, EXTRA_ZH, patterns_of  # noqa: F401
except ImportError:  # MicroPython: patnames.py sits beside this file
    from patnames import EXTRA_NAMES, EXTRA_ZH, patterns_of  # noqa: F401

_lim = bytearray(27)

def check_hand(counts, melds, extra=0, size=13):
    """ValueError if concealed tiles plus melds do not make `size` (the ruleset's
    hand size, +extra) or exceed four copies."""
    n = tiles.total(counts)
    want = size + extra - 3 * len(melds)
    if len(melds) > 4:
        raise ValueError("at most four melds")
    if n != want:
        raise ValueError("%d concealed tiles with %d melds; expected %d" % (n, len(melds), want))
    fan.meld_counts(melds, _lim)
    for f in range(27):
        if counts[f] + _lim[f] > 4:
            raise ValueError("more than four of %s counting the melds" % tiles.name(f))


def waits_result(rs, counts, melds=(), void=-1, values=False):
    """{"waits": ["1m", ...]} of a ready hand (13 tiles counting melds, or the
    ruleset's hand size); values: also {"values": {"1m": value}}, each wait's
    value won on a discard ({"fan", "base", "patterns"} as calc gives them)."""
    check_hand(counts, melds, 0, rs[R.P_HAND_SIZE])
    full = fan.held_counts(counts, melds, bytearray(27))
    ready = fan.lacks_a_suit(rs, full, void)  # a tile more cannot drop a suit
    faces = shape.waits(counts, void, _lim) if ready else []
    res = {"waits": [tiles.name(f) for f in faces]}
    if values:
        res["values"] = {}
        c = bytearray(counts)
        for f in faces:
            c[f] += 1
            res["values"][tiles.name(f)] = _value(rs, c, melds, void, 0, f)
            c[f] -= 1
    return res


def _value(rs, c, melds, void, flags, f):
    """calc's dict of the win of concealed tiles c (the tile f in them)."""
    out = bytearray(fan.NOUT)
    v = fan.score(rs, c, melds, void, flags, out, f)
    if v < 0:
        return {"win": False, "reason": _why_not(rs, c, melds, void)}
    res = {"win": True, "fan": fan.capped(rs, v) + rs[R.P_FAN_SHOWN_OFFSET],
           "base": fan.base(rs, v)}
    if flags & fan.ZIMO:
        res["self_drawn_each"] = fan.zimo_each(rs, v)
    res["patterns"] = patterns_of(rs, out)
    return res


def best_wait(rs, counts, melds=(), void=-1, largest=True):
    """(fan, face) of the largest (or smallest) wait of a hand alone, for
    查大叫; (-1, -1) if not ready. The table's own 查叫 is sichuan.settle's
    ready_value, which also knows the game (wilds, 死叫, 小胡)."""
    mask = shape.waits_mask(counts, void, fan.meld_counts(melds, _lim))
    best = -1
    at = -1
    for f in range(27):
        if mask >> f & 1:
            v = fan.wait_value(rs, counts, melds, void, f)
            if v >= 0 and fan.beats(v, best, largest):
                best = v
                at = f
    return best, at


def calc_result(rs, counts, win_face, melds=(), void=-1, flags=0):
    """The value of winning on win_face: the calculator's JSON dict.

    counts: concealed tiles without the winning tile. flags: fan.ZIMO etc.
    """
    check_hand(counts, melds, 0, rs[R.P_HAND_SIZE])
    if counts[win_face] + fan.meld_counts(melds, _lim)[win_face] >= 4:
        raise ValueError("a fifth %s cannot be won" % tiles.name(win_face))
    c = bytearray(counts)
    c[win_face] += 1
    return _value(rs, c, melds, void, flags, win_face)


def _why_not(rs, c, melds, void):
    full = fan.held_counts(c, melds, bytearray(27))
    if not fan.lacks_a_suit(rs, full, void):
        if void >= 0:
            return "holds the void suit %s (缺门)" % tiles.SUITS[void]
        return "holds all three suits (缺门)"
    return "not a winning shape"
