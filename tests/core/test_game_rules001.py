"""Seeds 001/003 (成都, preset `chengdu`): rules 5-10 and the kong payments.

Tests that need an almost empty wall set g.wall directly (white-box): the
rule, not tile conservation, is under test there.
"""

from gamekit import act, cycle, discard, draw, f_, pays, refused, rules, table
from sichuan import claims as C
from sichuan import game as G
from sichuan import settle
from sichuan.settle import (
    CK_NOT_READY,
    CK_READY,
    EV_CHECK,
    PAY_CHAJIAO,
    PAY_DIANPAO,
    PAY_GANG_AN,
    PAY_GANG_BU,
    PAY_GANG_ZHI,
    PAY_HUAZHU,
    PAY_TUIGANG,
    PAY_ZHUANYI,
    PAY_ZIMO,
)


def test_rule5_guoshou_same_tile_until_own_draw():
    # 001/003 rule 5: "别人打出牌时若放弃胡牌，在同一圈内不能胡另一人打出的相同的牌直到自己
    # 摸牌，但不相同的可以胡。如胡25万，下家打2万不胡，对家打2万也不能胡，但打5万可以胡。"
    hands = (
        "5m 789m 123p 456p 789p 9p",
        "34m 666m 234p 55p 678p",      # waits 2万/5万
        "111s 333s 555s 777s 9s",
        "222s 444s 666s 888s 9s",
    )
    g = table(rules("chengdu"), hands, (2, 2, 0, 0))
    discard(g, 0, "9p")
    cycle(g, 1, "1s")
    draw(g, 2, "2m")
    act(g, G.DISCARD, 2, "2m")
    assert g.prompt_mask(1) == C.C_HU
    act(g, G.PASS, 1)                       # 下家 2万: not taken
    draw(g, 3, "2m")
    act(g, G.DISCARD, 3, "2m")              # 对家 2万: may not win it
    assert C.claim_reason(g, 1, C.C_HU, f_("2m")) == C.GUOSHOU
    assert g.phase == G.PH_DRAW and g.turn == 0
    draw(g, 0, "1m")
    act(g, G.DISCARD, 0, "5m")              # 5万 may be won
    ev = act(g, G.HU, 1)
    assert pays(ev) == [(0, 1, 1, PAY_DIANPAO)]


def test_rule5_guoshou_ends_at_own_draw():
    hands = (
        "5m 789m 123p 456p 789p 9p",
        "34m 666m 234p 55p 678p",
        "111s 333s 555s 777s 9s",
        "222s 444s 666s 888s 9s",
    )
    g = table(rules("chengdu"), hands, (2, 2, 0, 0))
    discard(g, 0, "9p")
    cycle(g, 1, "1s")
    draw(g, 2, "2m")
    act(g, G.DISCARD, 2, "2m")
    act(g, G.PASS, 1)
    cycle(g, 3, "9m")
    cycle(g, 0, "1m")
    cycle(g, 1, "3s")                       # seat 1 draws: the bar is lifted
    draw(g, 2, "2m")
    act(g, G.DISCARD, 2, "2m")
    assert g.prompt_mask(1) == C.C_HU


# Kong hands: S2 holds 111s 333s 555s 777s 9s; S1 and S3 wait 5万.
Z = (
    "9p 123m 456m 789m 123p 5p",
    "46m 111p 789p 234p 55p",
    "111s 333s 555s 777s 9s",
    "5m 234s 456s 888s 999s",
)
ZV = (2, 2, 0, 1)


def test_rule6_gangshangpao_transfers_kong_money_to_each_winner():
    # 001/003 rule 6: "杠上炮时，点炮者将刚杠所得转移给被点炮者。若杠后点炮超过一响，
    # 点炮者要另赔出刚杠所得的点数给被点者。" 暗杠: "未胡牌的每家给2番" (2 each).
    g = table(rules("chengdu"), Z, ZV)
    discard(g, 0, "9p")
    cycle(g, 1, "2s")
    draw(g, 2, "7s")
    ev = act(g, G.ANGANG, 2, "7s")
    assert pays(ev) == [(0, 2, 2, PAY_GANG_AN), (1, 2, 2, PAY_GANG_AN), (3, 2, 2, PAY_GANG_AN)]
    draw(g, 2, "5m")
    act(g, G.DISCARD, 2, "5m")
    act(g, G.HU, 1)
    ev = act(g, G.HU, 3)
    # 平胡 x1 + 杠上炮 doubles: 2 each; then the kong's 6 to each winner
    assert pays(ev) == [(2, 3, 2, PAY_DIANPAO), (2, 1, 2, PAY_DIANPAO),
                        (2, 3, 6, PAY_ZHUANYI), (2, 1, 6, PAY_ZHUANYI)]
    assert g.delta == [-2, 6, -10, 6]


def test_rule7_dianganghua_counts_as_zimo():
    # 001/003 rule 7: "别人打出的牌引杠，再杠上花，算自摸。" 直杠: "放杠者给2番".
    hands = ("5s 123m 456m 789m 123s 9m",) + K[1:]
    g = table(rules("chengdu"), hands, KV)
    act(g, G.DISCARD, 0, "5s")
    ev = act(g, G.ZHIGANG, 2)
    assert pays(ev) == [(0, 2, 2, PAY_GANG_ZHI)]
    draw(g, 2, "9s")
    ev = act(g, G.HU, 2)
    # 清对 x8 (3) + 根 + 杠上花 -> capped at x8: each pays 8 + 1 (自摸加底)
    assert pays(ev) == [(0, 2, 9, PAY_ZIMO), (1, 2, 9, PAY_ZIMO), (3, 2, 9, PAY_ZIMO)]


def test_rule8_last_four_tiles_must_win():
    # 001/003 rule 8: "最后四张牌打出必须胡牌。" (000: "最后四张牌如有能和的牌必须和牌")
    g = table(rules("chengdu"), K, KV)
    _peng_9p(g)
    g.wall = 4  # white-box: the next draw is one of the last four
    draw(g, 1, "8m")
    discard(g, 1, "8m")
    draw(g, 2, "9s")
    assert refused(g, (G.DISCARD, 2, f_("9s"))) == C.MUST_WIN
    act(g, G.HU, 2)
    g = table(rules("chengdu"), K, KV)
    g.wall = 3
    act(g, G.DISCARD, 0, "9p")
    assert g.prompt_mask(3) == C.C_HU
    assert refused(g, (G.PASS, 3, -1)) == C.MUST_WIN
    act(g, G.HU, 3)
    # without the rule (seed 002) the pass is allowed
    g = table(rules("xuezhan"), K, KV)
    g.wall = 3
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PASS, 3)


# 流局 hands: S1 九莲 1112345678999m (waits 1-9万: 清一色, 清一色+根); others not ready.
N = (
    "1p 3p 5p 7p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
    "1112345678999m",
    "1p 2p 3p 4p 5p 6p 8p 1s 2s 3s 4s 6s 8s",
    "1p 3p 5p 7p 9p 1s 2s 3s 4s 6s 7s 8s 9s",
)
NV = (0, 2, 0, 0)


def _liuju(rs):
    g = table(rs, N, NV)
    g.wall = 0  # white-box: the dealer's discard is the last of the hand
    return g, act(g, G.DISCARD, 0, "9s")


def test_rule9_chajiao_pays_the_largest():
    # 001/003 rule 9: "赔叫赔大（有的地区赔小）" — 清一色 x4 + 根 x2 = x8 (the cap)
    g, ev = _liuju(rules("chengdu"))
    assert [e[1:3] for e in ev if e[0] == EV_CHECK] == [
        (0, CK_NOT_READY), (1, CK_READY), (2, CK_NOT_READY), (3, CK_NOT_READY)]
    assert pays(ev) == [(0, 1, 8, PAY_CHAJIAO), (2, 1, 8, PAY_CHAJIAO), (3, 1, 8, PAY_CHAJIAO)]
    assert g.phase == G.PH_END and g.end == G.END_WALL


def test_rule9_chajiao_pays_the_smallest_when_set():
    g, ev = _liuju(rules("chengdu", chajiao=2))
    assert pays(ev) == [(0, 1, 4, PAY_CHAJIAO), (2, 1, 4, PAY_CHAJIAO), (3, 1, 4, PAY_CHAJIAO)]


def test_chajiao_largest_with_a_hobbyists_huge_fan_values():
    # Fan values up to 62 a pattern are valid, so a wait may score far past
    # any usual cap; the search must not stop at the first high wait (1m).
    hands = (N[0], "23m 456m 678m 222m 55m", N[2], N[3])
    for chajiao, want in ((1, (187, f_("4m"))), (2, (125, f_("1m")))):
        rs = rules("chengdu", cap=-1, chajiao=chajiao,
                   fan_qingyise=62, fan_menqing=62, fan_duanyaojiu=62)
        g = table(rs, hands, NV)
        assert g.wait_value(1, f_("1m")) == 125  # 4m, 6m, 7m add 断幺九
        assert settle.ready_value(g, 1) == want


# 死叫: S1 waits 5筒 alone; S2 pengs 5筒, so all four are in sight.
D = (
    "5p 123s 456s 789s 11s 2s 9p",
    "5p 123m 456m 789m 234m",
    "55p 678p 777s 888s 99p",
    "147m 258m 369m 147p 2p",
)
DV = (0, 2, 0, 2)


def _sijiao(rs):
    g = table(rs, D, DV)
    act(g, G.DISCARD, 0, "5p")
    act(g, G.PASS, 1)
    act(g, G.PENG, 2)
    g.wall = 0
    return g, act(g, G.DISCARD, 2, "9p")


def test_rule10_sijiao_counts_as_ready():
    # 001/003 rule 10: "死叫算叫，算杠收入。（有的地区不算叫...）"
    g, ev = _sijiao(rules("chengdu"))
    assert [e[1:3] for e in ev if e[0] == EV_CHECK] == [
        (0, CK_NOT_READY), (1, CK_READY), (2, CK_READY), (3, CK_NOT_READY)]
    assert pays(ev) == [(0, 1, 1, PAY_CHAJIAO), (0, 2, 1, PAY_CHAJIAO),
                        (3, 1, 1, PAY_CHAJIAO), (3, 2, 1, PAY_CHAJIAO)]


def test_rule10_sijiao_not_counted_when_set():
    g, ev = _sijiao(rules("chengdu", sijiao=0))
    assert [e[1:3] for e in ev if e[0] == EV_CHECK][1] == (1, CK_NOT_READY)
    assert pays(ev) == [(0, 2, 1, PAY_CHAJIAO), (1, 2, 1, PAY_CHAJIAO), (3, 2, 1, PAY_CHAJIAO)]


K = (
    "9p 123m 456m 789m 123s 5s",
    "99p 11p 234p 456m 789m",
    "111s 333s 555s 777s 9s",
    "78p 345p 666p 22m 345m",
)
KV = (1, 2, 0, 2)


def _peng_9p(g):
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PASS, 3)
    act(g, G.PENG, 1)
    discard(g, 1, "1p")
    cycle(g, 2, "9s")
    cycle(g, 3, "1m")
    cycle(g, 0, "4s")


def test_wangang_must_be_immediate_to_earn():
    # 001/003: "弯杠摸起来的牌必须马上杠，插入牌堆后再拿出来杠就不结算这个杠"; 弯杠 "未胡牌的
    # 每家给1番" when made at once.
    g = table(rules("chengdu"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    act(g, G.BUGANG, 1, "9p")
    ev = act(g, G.PASS, 3)
    assert pays(ev) == [(0, 1, 1, PAY_GANG_BU), (2, 1, 1, PAY_GANG_BU), (3, 1, 1, PAY_GANG_BU)]
    g = table(rules("chengdu"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    discard(g, 1, "1p")
    cycle(g, 2, "8s")
    cycle(g, 3, "2s")
    cycle(g, 0, "6s")
    draw(g, 1, "8m")
    act(g, G.BUGANG, 1, "9p")
    ev = act(g, G.PASS, 3)
    assert pays(ev) == [] and g.nmeld[1] == 1 and g.phase == G.PH_DRAW


def test_huazhu_pays_full_cap_to_unwon_non_huazhu():
    # 001/003: "花猫给所有未胡且非花猫的人赔满格" (满格 = x8 here); then the ready one
    # collects 查叫 and a kong maker who is not ready refunds ("若无叫，杠不计算").
    hands = (
        "1p 3p 5p 7p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
        "1112345678999m",
        "1p 2p 3p 4p 5p 6p 8p 1s 2s 3s 4s 6s 8s",
        "1p 3p 5p 7p 9p 1s 2s 3s 4s 6s 7s 8s 9m",   # void 万 but holds 9万: 花猪
    )
    g = table(rules("chengdu"), hands, NV)
    g.wall = 0
    ev = act(g, G.DISCARD, 0, "9s")
    hz = [p for p in pays(ev) if p[3] == PAY_HUAZHU]
    assert hz == [(3, 0, 8, PAY_HUAZHU), (3, 1, 8, PAY_HUAZHU), (3, 2, 8, PAY_HUAZHU)]
    assert (3, 1, 8, PAY_CHAJIAO) not in pays(ev)  # 花猪 does not pay 查叫 again
    assert not [p for p in pays(ev) if p[3] == PAY_TUIGANG]
