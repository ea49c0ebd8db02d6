"""Rule readings a review against the seeds found wrong, one test each.

- 过胡 by fan (rs guoshou 2: tfmj-2024, yibin): rules-notes "may not win with
  the same or a lower fan value until their next draw; a strictly higher fan
  win stays allowed"; seed 000 "不能弃先和后，但是加番可以和". Both sides of the
  comparison count 杠上炮, 抢杠胡, 海底, 绝张.
- 绝张 (yibin): seed 000 "在所和的牌是所有可和的牌里最后一张并且其他牌均已被打出或被碰":
  every other wait must be dead too.
- 海底: rules-notes "海底 applies only to the last tile"; seed 001 "牌墙最后一张牌
  自摸或放炮": a 自摸 of the last tile or a win on its discard, not on the
  discard after a 碰 of it (docs/engine.md).
- 宜宾 提 is refused when only wilds would stay in hand ("听用牌不能打出"), and
  neither 提 nor 断卡根's 请胡 gets round "最后四张自动和".
- 断卡根 报胡: a 暗杠 in place of a 自摸 passes the win ("报胡后如果自家自摸...没胡
  ...不能再食和").
- games456 (rs dingque 2): seed 004 "缺门可胡,即胡牌的时候不能有三种花色的牌" bars
  the win with three suits, not 碰/杠.
"""

from gamekit import act, cycle, discard, draw, f_, ok, pass_all, rules, table
from sichuan import claims as C
from sichuan import fan, tiles
from sichuan import game as G
from sichuan.settle import EV_WIN


def test_tfmj_guohu_gangshangpao_is_a_higher_fan_win():
    hands = ("111s 222s 333s 444s 5s 6s",
             "34m 123p 456p 789p 11p",     # waits 2m/5m, 平胡 0
             "22m 567m 899m 555s 99s",
             "8888s 23m 456m 789m 1s")
    g = table(rules("tfmj-2024"), hands, (0, 2, 1, 1))
    discard(g, 0, "6s")
    cycle(g, 1, "7s")
    draw(g, 2, "3s")
    act(g, G.DISCARD, 2, "2m")
    assert g.prompt_mask(1) == C.C_HU
    act(g, G.PASS, 1)                       # passes a 0-fan win
    draw(g, 3, "7s")
    act(g, G.ANGANG, 3, "8s")
    draw(g, 3, "7s")
    act(g, G.DISCARD, 3, "2m")              # 杠上炮: 0 + 1 = 1 fan > 0
    assert g.prompt_mask(1) & C.C_HU


def test_tfmj_guohu_qianggang_is_a_higher_fan_win():
    hands = ("9p 123m 456m 789m 123s 5s",
             "99p 11p 234p 456m 789m",
             "6p 123p 111s 333s 777s",
             "78p 234m 567m 345p 11m")      # waits 6p/9p, 平胡 0
    g = table(rules("tfmj-2024"), hands, (1, 2, 0, 2))
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PASS, 3)
    act(g, G.PENG, 1)
    discard(g, 1, "1p")
    cycle(g, 2, "9m")
    cycle(g, 3, "4s")
    draw(g, 0, "6p")
    act(g, G.DISCARD, 0, "6p")
    act(g, G.PASS, 2)
    act(g, G.PASS, 3)                       # seat 3 passes a 0-fan win
    draw(g, 1, "9p")
    act(g, G.BUGANG, 1, "9p")               # 抢杠胡 on 9p: 0 + 1 = 1 fan > 0
    assert g.phase == G.PH_ROB and g.prompt_mask(3) == C.C_HU


def test_tfmj_guohu_passed_gangshangpao_keeps_its_fan():
    hands = ("1p 3p 5p 7p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
             "1112345678999m",
             "2222p 2m 456p 789p 66p",
             "234s 456s 11s 88s 789p")
    g = table(rules("tfmj-2024"), hands, (0, 1, 2, 0))
    discard(g, 0, "9s")
    cycle(g, 1, "3p")
    draw(g, 2, "4m")
    act(g, G.ANGANG, 2, "2p")
    draw(g, 2, "4m")
    act(g, G.DISCARD, 2, "2m")              # 清一色 2 + 杠上炮 1 = 3 fan
    act(g, G.PASS, 1)
    draw(g, 3, "1m")
    act(g, G.DISCARD, 3, "1m")              # 清一色 + 根 = 3 fan: not higher
    assert not g.prompt_mask(1) & C.C_HU


P = tiles.parse
# 本金 1m: 2m and 9m are 听用 (nobody holds one). Seat 1 ends waiting 4p/7p (56p).
H = ("7p 33p 44m 66m 88m 3m 123p 5p", "123s 456s 789s 56p 1p 5m",
     "77p 33s 44s 55s 66s 88p 9s", "111m 333m 555m 777m 4m")
V = (2, 0, 0, 2)


def _ready_table():
    g = G.Game(rules("yibin"), 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, P(H[s]), 0))
    ok(g, (G.BENJIN, 0, f_("1m"), 0))
    for s in range(4):
        ok(g, (G.DINGQUE, s, V[s], 0))
    ok(g, (G.DISCARD, 0, f_("7p"), 0))  # seat 1 holds its void 5m: no 胡 prompt
    ok(g, (G.PENG, 2, -1, 0))            # three 7p in sight
    pass_all(g)
    discard(g, 2, "9s")
    draw(g, 3, "8s")
    discard(g, 3, "8s")
    draw(g, 0, "9p")
    discard(g, 0, "9p")
    draw(g, 1, "1p")
    discard(g, 1, "5m")                  # 123s456s789s 56p 11p: waits 4p, 7p
    assert g.shown[f_("7p")] == 3 and g.shown[f_("4p")] == 0
    return g


def _win_flags(ev):
    for e in ev:
        if e[0] == EV_WIN:
            return e[3]
    raise AssertionError("no win in %r" % (ev,))


def test_last_7p_on_a_47p_wait_with_4p_live_is_no_juezhang_discard():
    g = _ready_table()
    draw(g, 2, "7p")
    ok(g, (G.DISCARD, 2, f_("7p"), 0))
    flags = _win_flags(ok(g, (G.HU, 1, -1, 0)))
    assert not flags & fan.JUEZHANG, "4p is still live: not 所有可和的牌里最后一张"


def test_last_7p_on_a_47p_wait_with_4p_live_is_no_juezhang_zimo():
    g = _ready_table()
    for s, t in ((2, "8s"), (3, "8s"), (0, "9p")):
        draw(g, s, t)
        discard(g, s, t)
    draw(g, 1, "7p")
    flags = _win_flags(ok(g, (G.HU, 1, -1, 0)))
    assert not flags & fan.JUEZHANG, "4p is still live: not 所有可和的牌里最后一张"


def test_the_last_7p_is_juezhang_once_4p_is_dead_too():
    g = _ready_table()
    g.shown[f_("4p")] = 4  # as if every 4p were face up (a test shortcut)
    draw(g, 2, "7p")
    ok(g, (G.DISCARD, 2, f_("7p"), 0))
    flags = _win_flags(ok(g, (G.HU, 1, -1, 0)))
    assert flags & fan.JUEZHANG


def test_games456_three_suits_may_peng_but_not_win():
    hands = ("5m 123s 456s 789s 1s 2p 3p 4p",
             "55m 123p 456p 789p 11s",     # three suits: m, p, s
             "1m 2m 3m 4m 6m 7m 8m 5p 6p 7p 8p 9s 9s",
             "222m 333m 444m 666m 7s")
    g = table(rules("games456"), hands)
    assert C.cannot_win(g, 1) and not C.void_held(g, 1)
    act(g, G.DISCARD, 0, "5m")
    assert g.prompt_mask(1) == C.C_PENG
    assert C.claim_reason(g, 1, C.C_HU, f_("5m")) == C.NOT_A_WIN
    act(g, G.PENG, 1)
    assert g.nmeld[1] == 1

def _rest(g):
    out = []
    for f in range(27):
        out.extend([f] * (4 - g.seen[f]))
    return out


def test_tfmj_haidi_only_for_the_last_tile():
    hands = ("2p 55p 123s 456s 789s 1s 9p",
             "78p 123m 456m 789m 33m",      # waits 6p/9p
             "111m 222m 3m 444p 666p",
             "777s 888s 999s 1p 2p 3p 4p")
    g = table(rules("tfmj-2024"), hands, (0, 2, 2, 0))
    discard(g, 0, "2p")
    w = _rest(g)
    w.remove(f_("5p"))
    keep = (f_("6p"), f_("9p"))
    w = [x for x in w if x in keep] + [x for x in w if x not in keep] + [f_("5p")]
    while not (g.wall == 0 and g.phase == G.PH_DISCARD):
        if g.phase == G.PH_DRAW:
            ok(g, (G.DRAW, g.turn, w.pop(0), 0))
        elif g.phase == G.PH_DISCARD:
            s, f = g.turn, g.drawn
            if g.check((G.DISCARD, s, f, 0)):
                f = [x for x in range(27) if g.hand[s][x] and not g.check((G.DISCARD, s, x, 0))][0]
            ok(g, (G.DISCARD, s, f, 0))
        else:
            pass_all(g)
    assert g.turn == 3 and g.drawn == f_("5p")
    ok(g, (G.DISCARD, 3, f_("5p"), 0))      # the last tile
    ok(g, (G.PENG, 0, -1, 0))
    ok(g, (G.DISCARD, 0, f_("9p"), 0))      # not the last tile
    ev = ok(g, (G.HU, 1, -1, 0))
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert not win[3] & fan.HAIDI and win[2] == 0



def _yibin(hands, voids, benjin="1m"):
    g = G.Game(rules("yibin"), 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, P(hands[s]), 0))
    ok(g, (G.BENJIN, 0, f_(benjin), 0))
    for s in range(4):
        ok(g, (G.DINGQUE, s, voids[s], 0))
    return g


def _dkg(hands):
    g = G.Game(rules("duankagen"), 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, P(hands[s]), 0))
    return g


def _void_left(g, s, h, drawn):
    v = g.void[s]
    if v >= 3:
        return False
    for x in range(9 * v, 9 * v + 9):
        if (h[x] + (x == drawn)) and not g.is_wild(x):
            return True
    return False


def _burn(g, s, avoid, keep):
    """Seat s draws a tile still in the wall and discards one nobody may claim
    once the last four are reached (earlier prompts are passed). keep: seat s
    throws back the tile it drew, never a wild, so its hand stays as it is."""
    order = [f for f in range(27)
             if g.rs[1] >> (f // 9) & 1 and g.seen[f] < 4 and f not in avoid]
    order.sort(key=lambda f: (g.is_wild(f) == keep, -f))
    h = g.hand[s]
    for f in order:
        if keep and g.is_wild(f):
            continue
        cands = [f] if keep else [f] + [d for d in range(27) if h[d] and d != f]
        for d in cands:
            if g.is_wild(d):
                continue
            if _void_left(g, s, h, f) and d // 9 != g.void[s]:
                continue
            if g.wall - 1 < 4 and any(C.discard_mask(g, t, d) for t in range(4) if t != s):
                continue
            ok(g, (G.DRAW, s, f, 0))
            ok(g, (G.DISCARD, s, d, 0))
            pass_all(g)
            assert g.phase == G.PH_DRAW
            return
    raise AssertionError("nothing to burn")


def _run_down(g, seat, waits, others_avoid):
    """Cycle the other seats (and seat, drawing off its waits) until seat is
    to draw one of the last four tiles."""
    while not (g.turn == seat and g.wall <= 4):
        me = g.turn == seat
        _burn(g, g.turn, waits if me else others_avoid, me)


# ---- 宜宾 提 -----------------------------------------------------------------

# 本金 1m: 2m and 9m are 听用.
YH = ("5p 3p 7p 1p 4p 9p 6p 8s 6s 4s 2s 5s 3s 9s",
      "2m 2m 9m 9m 5p 33p 77p 1s 3s 5s 7s",
      "1p 4p 8p 9p 2p 3m 4m 5m 6m 7m 8m 1m 1m",
      "3m 4m 5m 6m 7m 8m 2s 8s 9s 1s 4s 6s 6s")
YV = (0, 0, 2, 1)


def test_ti_never_leaves_a_seat_without_a_legal_action():
    """提 ("再讲听用替换到自己的手里") by a seat whose concealed tiles are all 听用
    ("听用牌不能打出") would give it a hand of wilds it may neither discard nor
    win with (drawn is cleared): the hand could not go on. It is refused."""
    g = _yibin(YH, YV)
    KEEP = (f_("5p"), f_("2m"))  # for seat 1 to draw
    # seat 0 throws 5p, 3p, 7p; seat 1 飞s the 5p (with the 2m wild), 碰s the others
    for i, (face, claim, out) in enumerate((("5p", G.FEI, "1s"), ("3p", G.PENG, "3s"),
                                            ("7p", G.PENG, "5s"))):
        if i:
            draw(g, 0, "2s")
        act(g, G.DISCARD, 0, face)
        act(g, claim, 1)
        pass_all(g)
        discard(g, 1, out)
        for s in (2, 3, 0) if i == 2 else (2, 3):
            _burn(g, s, KEEP, False)
    draw(g, 1, "2m")
    discard(g, 1, "7s")  # seat 1 now holds 2m 2m 9m 9m: four wilds
    for s in (2, 3, 0):
        _burn(g, s, KEEP, False)
    draw(g, 1, "5p")  # the real tile of its 飞
    assert g.check((G.TI, 1, f_("5p"), 0)) == C.WILD_TILE  # wilds alone would be left
    assert g.legal_actions(1) and g.check((G.HU, 1, -1, 0)) == 0  # 5p 2m2m 9m9m wins


# Seat 1: 5p 5p and the wild 2m; after 飞 and 1s out: 5p 123p 789p 789s, waiting 5p.
FH = ("5p 3p 7p 1p 4p 9p 6p 8s 6s 4s 2s 5s 3s 9s",
      "5p 5p 2m 123p 789p 789s 1s",
      "1p 4p 8p 9p 2p 3m 4m 5m 6m 7m 8m 1m 1m",
      "3m 4m 5m 6m 7m 8m 2s 8s 9s 1s 4s 6s 6s")


def test_ti_does_not_escape_the_forced_win_of_the_last_four():
    """"最后四张自动和": the seat that draws its winning 5p among the last four
    must win; a 提 of that 5p (then a free discard) is a way out of it."""
    g = _yibin(FH, YV)
    act(g, G.DISCARD, 0, "5p")
    act(g, G.FEI, 1)
    pass_all(g)
    discard(g, 1, "1s")
    waits = tuple(f for f in range(27) if g.waits(1) >> f & 1)
    _run_down(g, 1, waits, (f_("5p"),))
    draw(g, 1, "5p")
    assert g.wall < 4
    assert g.check((G.DISCARD, 1, f_("1p"), 0)) == C.MUST_WIN  # as the engine has it
    assert g.check((G.TI, 1, f_("5p"), 0)) == C.MUST_WIN


# ---- 断卡根 报胡 --------------------------------------------------------------

def test_baohu_kong_in_place_of_a_self_draw_ends_its_wins():
    """"报胡后如果自家自摸...没胡，在本局结束前的时间里，报胡家不能再食和": seat 1
    (报胡, 444p 56p 111s 23s) draws the fourth 4p, a win, and 暗杠s it instead
    (still ready on 7p); it may not win the 7p later."""
    g = _dkg(("5p 1p 9p 2s 4s 6s 8s 3p 7p 9s 5s",
              "444p 56p 11s 123s",
              "2p 3p 6p 8p 7s 3s 5s 7s 9s 2s",
              "8p 6p 8p 2p 7p 4s 6s 8s 3s 5s"))
    act(g, G.BAOHU, 1)
    discard(g, 0, "9s")
    draw(g, 1, "4p")
    assert g.check((G.HU, 1, -1, 0)) == 0  # a 自摸 it passes
    act(g, G.ANGANG, 1, "4p")
    draw(g, 1, "9p")
    discard(g, 1, "9p")
    draw(g, 2, "7p")
    act(g, G.DISCARD, 2, "7p")
    assert not g.prompt_mask(1) & C.C_HU


def test_qinghu_does_not_escape_the_forced_win_of_the_last_four():
    """"最后四张自动和" against 请胡 (lower confidence, see the report): seat 1 holds
    22 33 44 55 66p and draws 6p among the last four: 234 234 55 666p is a win
    (清一色 + 断幺九) it must take; 请胡 on the 6p instead lets it be won by another
    or not, at the seat's choice."""
    g = _dkg(("1p 9p 1s 2s 4s 6s 8s 3s 7s 9s 5s",
              "22p 33p 44p 55p 66p",
              "1p 8p 9p 7p 1s 3s 5s 7s 9s 2s",
              "1p 8p 9p 7p 4s 6s 8s 3s 5s 8s"))
    discard(g, 0, "9s")
    waits = tuple(f for f in range(27) if g.waits(1) >> f & 1)
    _run_down(g, 1, waits, (f_("6p"),))
    draw(g, 1, "6p")
    assert g.check((G.DISCARD, 1, f_("6p"), 0)) == C.MUST_WIN
    assert g.check((G.QINGHU, 1, f_("6p"), 0)) == C.MUST_WIN
