"""What a score counts, by name: the `out` of sichuan.fan.score read as
{pattern id: doublings}, the ids of a ruleset's house patterns, and a win
event scored again. MicroPython subset, importing only the rules core: the
calculator, the simulator (on the unix port and on the board) and the
host's outputs share it.
"""

from sichuan import fan
from sichuan import ruleset as R

# Names of fan's variant values (fan.X_*), at NPATTERNS + X in a score's `out`.
EXTRA_NAMES = ("ka", "yingka", "baohu", "qinghupao", "benjin", "wutingyong")
EXTRA_ZH = ("卡", "硬卡", "报胡", "请胡炮", "本金", "无听用")


def house_list(rs):
    """[(id, name)] of the ruleset's house patterns (fan.HOUSE0 + d in `out`)."""
    out = []
    b = rs.house_names
    i = 0
    for _ in range(rs.house_n):
        n = b[i]
        pid = bytes(b[i + 1:i + 1 + n]).decode()
        i += 1 + n
        n = b[i]
        out.append((pid, bytes(b[i + 1:i + 1 + n]).decode()))
        i += 1 + n
    return out


def out_names(rs):
    """The id of each entry of a score's `out`: the built-in patterns, the
    variant values, then the ruleset's house patterns (as their file names them)."""
    return list(R.PATTERNS) + list(EXTRA_NAMES) + [h[0] for h in house_list(rs)]


def patterns_of(rs, out):
    """{id: doublings} of the patterns a score's `out` counts, in out's order."""
    names = out_names(rs)
    return {names[p]: out[p] - 1 for p in range(len(names)) if out[p]}


def win_out(g, e, out):
    """Score again the win event e = (EV_WIN, seat, doublings, flags, from,
    tile) of game g just after it (the winner's hand, melds, void and the
    event's flags) into out (bytearray(fan.NOUT)); returns the fan found,
    which is e's when the state still shows the win."""
    s, flags, giver, f = e[1], e[3], e[4], e[5]
    rs = g.rs
    h = bytearray(g.hand[s])
    melds = g.meld_list(s)
    if flags & fan.QINGHU:
        melds = ()  # 请胡: the five pairs score as they stand
    elif giver >= 0 or rs[R.P_MODE] == R.MODE_XUELIU:
        h[f] += 1  # a discard won, or 血流's winning tile laid face up
    void = g.void[s] if g.void[s] < 3 else -1
    if g.w1 >= 0:
        return g.wild.score(rs, h, melds, void, flags, out, g.w1, g.w2, g.benjin,
                            g.meld_wilds(s))
    return fan.score(rs, h, melds, void, flags, out, f)
