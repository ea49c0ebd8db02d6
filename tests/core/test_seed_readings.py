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
