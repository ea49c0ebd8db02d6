"""A win as a referee reads it, the same in every command: the fan as the
ruleset's rule text counts it (after the cap, plus fan_shown_offset, as
`calc` shows it), the doublings beside it where they differ, and the
patterns that make it, named as `calc` names them.

The engine's win event (sichuan.settle EV_WIN) carries the doublings before
the cap only; the patterns are scored again here from the game just after
the win (the winner's hand, melds, void and the event's flags), and kept only
if that score gives the event's doublings.
"""

from sichuan import fan
from sichuan import ruleset as R

from mjtable.referee.calc import pattern_name
from mjtable.rules.names import PATTERN_ZH


def shown(rs, doublings):
    """The fan a rule text says for a win (or a 查叫 wait) of these doublings."""
    return fan.capped(rs, doublings) + rs[R.P_FAN_SHOWN_OFFSET]


def fan_text(rs, doublings):
    """`2 番`, or `1 番 (0 doublings)`, `4 番 (6 doublings, capped at 4)`."""
    s = shown(rs, doublings)
    cap = rs[R.P_CAP]
    note = []
    if s != doublings:
        note.append("%d doubling%s" % (doublings, "" if doublings == 1 else "s"))
    if 0 <= cap < doublings:
        note.append("capped at %d" % cap)
    return "%d 番%s" % (s, " (%s)" % ", ".join(note) if note else "")


def win_patterns(g, e):
    """{pattern id: doublings} of the win event e = (EV_WIN, seat, doublings,
    flags, from, tile) in game g just after it, or None if it cannot be told."""
    _k, s, v, flags, giver, f = e[:6]
    rs = g.rs
    h = bytearray(g.hand[s])
    melds = g.meld_list(s)
    if flags & fan.QINGHU:
        melds = ()  # 请胡: the five pairs score as they stand
    elif giver >= 0 or rs[R.P_MODE] == R.MODE_XUELIU:
        h[f] += 1  # a discard won, or 血流's winning tile laid face up
    void = g.void[s] if g.void[s] < 3 else -1
    out = bytearray(fan.NOUT)
    if g.w1 >= 0:
        got = g.wild.score(rs, h, melds, void, flags, out, g.w1, g.w2, g.benjin,
                           g.meld_wilds(s))
    else:
        got = fan.score(rs, h, melds, void, flags, out, f)
    if got != v:
        return None
    return {pattern_name(p): out[p] - 1 for p in range(fan.NOUT) if out[p]}


def patterns_text(pats):
    """`清一色 qingyise +2, 根 gen +1` (calc's names and doublings)."""
    if pats is None:
        return "patterns not known"
    out = []
    for name, d in pats.items():
        zh = PATTERN_ZH[R.PATTERNS.index(name)] if name in R.PATTERNS else name
        out.append("%s %s %+d" % (zh, name, d))
    return ", ".join(out)
