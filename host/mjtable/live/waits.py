"""What a broadcast adds to the table: each ready seat's waits in play (下叫),
with the copies of each still unseen and what a win on it would score.

Waits come from the rules core (sichuan.game: the seat's waits as the table
itself knows them, 缺门 and a fifth copy ruled out); "left" is the copies of
that face in none of the four hands and not face up (discards, melds, won
tiles, 马/本金: the engine's `shown`), that is in the wall; the value of a
win on each is the referee's calculator's (mjtable.referee.calc), for a
win on a discard with the seat's own flags (报胡). Fan are shown as the
ruleset counts them on screen (capped, `fan_shown_offset` added: a 平胡 is 0
番 under one seed, 1 under another), the patterns by their Chinese names.
A ruleset with 听用 wilds has no calculator: its waits get the engine's own
value (game.discard_win_fan) and no patterns.
"""

from __future__ import annotations

from sichuan import fan
from sichuan import game as G
from sichuan.claims import ST_LEFT, cannot_win

from mjtable.referee import calc, winfmt

PLAY = (G.PH_DRAW, G.PH_DISCARD, G.PH_CLAIM, G.PH_ROB)  # the phases a wait means anything in


def pattern_names(rs, patterns: dict) -> list:
    """calc's {pattern id: fan it adds} as names in calc's order (the built-in
    patterns, the variant values such as 卡, then the ruleset's house patterns
    as its file names them), a 根 counted (根×2)."""
    return [winfmt.pattern_label(key, fan_added, rs) for key, fan_added in patterns.items()]


def seat_waits(g, s: int):
    """[{"face", "left", "fan", "patterns"}] of seat s's waits, or None when it
    is not ready (or holds its tiles in a way no wait is read from: after a
    碰, before its discard). A seat holding the tile it just drew is read
    without it: its waits as they stood."""
    if g.status[s] & ST_LEFT or g.phase not in PLAY:
        return None
    h = g.hand[s]
    n = sum(h)
    drawn = -1
    if n % 3 == 2:
        if not (s == g.turn and g.phase == G.PH_DISCARD and g.drawn >= 0 and h[g.drawn]):
            return None
        drawn = g.drawn
    elif n % 3 != 1:
        return None
    held = bytearray(27)  # in the four hands: not in the wall
    for t in range(g.np):
        for f in range(27):
            held[f] += g.hand[t][f]
    if drawn >= 0:
        h[drawn] -= 1  # the hand as it stood before the draw, for the engine too
    try:
        return _values(g, s, held)
    finally:
        if drawn >= 0:
            h[drawn] += 1


def _values(g, s: int, held):
    melds = g.meld_list(s)
    if cannot_win(g, s):
        return None
    mask = g.waits_limited(s, fan.meld_counts(melds, bytearray(27)))
    if not mask:
        return None
    rs = g.rs
    counts = bytearray(g.hand[s])
    flags = g.seat_flags(s)
    void = g.void[s] if g.void[s] < 3 else -1
    out = []
    for f in range(27):
        if not mask >> f & 1:
            continue
        left = max(0, 4 - held[f] - g.shown[f])
        if g.w1 >= 0:  # 听用: the engine's value, no calculator
            v = g.discard_win_fan(s, f, 0)
            out.append({"face": f, "left": left,
                        "fan": winfmt.shown(rs, v) if v >= 0 else None,
                        "patterns": []})
            continue
        try:
            res = calc.calc_result(rs, counts, f, melds, void, flags)
        except ValueError:  # a fifth copy counting the melds: no wait
            continue
        if res.get("win"):
            out.append({"face": f, "left": left, "fan": res["fan"],
                        "patterns": pattern_names(rs, res["patterns"])})
    return out or None

