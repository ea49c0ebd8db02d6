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

from mjtable.referee import patnames
from mjtable.rules.names import PATTERN_ZH


def pattern_zh(pid, rs=None):
    """The Chinese name of a pattern id: a built-in, a variant value (卡, 硬卡,
    ...), or one of rs's house patterns (its `name`); else the id itself."""
    if pid in R.PATTERNS:
        return PATTERN_ZH[R.PATTERNS.index(pid)]
    if pid in patnames.EXTRA_NAMES:
        return patnames.EXTRA_ZH[patnames.EXTRA_NAMES.index(pid)]
    for hid, name in patnames.house_list(rs) if rs is not None else ():
        if hid == pid:
            return name
    return pid


def pattern_label(pid, fan_added, rs):
    """A pattern's name as a win or a wait lists it: pattern_zh, and a 根
    counted (根×2: fan_added is two 根's worth)."""
    zh = pattern_zh(pid, rs)
    each = rs[R.P_FAN0 + R.GEN]
    n = fan_added // each if pid == R.PATTERNS[R.GEN] and each > 0 else 1
    return zh if n <= 1 else "%s×%d" % (zh, n)


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
    out = bytearray(fan.NOUT)
    if patnames.win_out(g, e, out) != e[2]:
        return None
    return patnames.patterns_of(g.rs, out)


def patterns_text(pats, rs=None):
    """`清一色 qingyise +2, 根 gen +1` (calc's names and doublings; rs names
    its house patterns)."""
    if pats is None:
        return "patterns not known"
    return ", ".join("%s %s %+d" % (pattern_zh(name, rs), name, d) for name, d in pats.items())
