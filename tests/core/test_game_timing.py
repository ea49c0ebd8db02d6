"""Timing patterns and payment variants the seeds describe: 海底, 天胡/地胡,
毛毛雨, the 查叫 cap, 点杠花 as a discard win, even-split 呼叫转移."""

from gamekit import act, cycle, discard, draw, pays, rules, table
from sichuan import fan
from sichuan import game as G
from sichuan.settle import (
    EV_WIN,
    PAY_CHAJIAO,
    PAY_DIANPAO,
    PAY_GANG_AN,
    PAY_GANG_MAOMAO,
    PAY_GANG_ZHI,
    PAY_ZHUANYI,
    PAY_ZIMO,
)

H = (
    "5m 123m 789m 234p 456p 9p",
    "46m 111p 789p 234p 55p",
    "5m 234m 456m 777m 888m",
    "234s 456s 11s 88s 789p",
)
HV = (2, 2, 1, 0)


def _win(ev):
    return [e for e in ev if e[0] == EV_WIN][0]


def test_haidi_zimo_and_discard():
    # 002: "海底是牌墙最后一张摸完以后胡牌，自摸、点炮都算" (海底 1 番)
    g = table(rules("xuezhan"), H, HV)
    discard(g, 0, "9p")
    g.wall = 1
    draw(g, 1, "5m")
    ev = act(g, G.HU, 1)
    w = _win(ev)
    assert w[3] & fan.HAIDI and w[2] == 1 and pays(ev)[0] == (0, 1, 3, PAY_ZIMO)
    g = table(rules("xuezhan"), H, HV)
    discard(g, 0, "9p")
    g.wall = 1
    draw(g, 1, "9s")
    act(g, G.DISCARD, 1, "9s")
    g = table(rules("xuezhan"), H, HV)
    g.wall = 0
    act(g, G.DISCARD, 0, "5m")
    ev = act(g, G.HU, 1)
    ev += act(g, G.PASS, 2)
    assert _win(ev)[3] & fan.HAIDI
    assert pays(ev)[0] == (0, 1, 2, PAY_DIANPAO)  # 平胡 + 海底 = x2


def test_tianhu_dealer_wins_with_the_deal():
    # 001/003: "天胡、地胡 ... 若遇到，可以按满格处理" (chengdu: 天胡 = the cap, alone)
    hands = (
        "123m 456m 789m 234p 55p",
        "46m 111p 789p 234p 55p",
        "5m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("chengdu"), hands, HV)
    ev = act(g, G.HU, 0)
    w = _win(ev)
    assert w[3] & fan.TIANHU and w[2] == 3
    assert pays(ev) == [(1, 0, 9, PAY_ZIMO), (2, 0, 9, PAY_ZIMO), (3, 0, 9, PAY_ZIMO)]


def test_dihu_first_draw_before_any_call():
    hands = (
        "9s 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 55p",
        "5m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("chengdu"), hands, HV)
    discard(g, 0, "9s")
    draw(g, 1, "5m")
    w = _win(act(g, G.HU, 1))
    assert w[3] & fan.DIHU and w[2] == 3


def test_maomaoyu_others_pay_on_a_zhigang():
    # 001/003: "将直杠的收益改为放杠者给2番，不放杠者给1番 ... 此打法又被称为'下毛毛雨'"
    K = (
        "5s 123m 456m 789m 123s 9m",
        "99p 11p 234p 456m 789m",
        "111s 333s 555s 777s 9s",
        "78p 345p 666p 22m 345m",
    )
    g = table(rules("chengdu", gang_zhi_others=1), K, (1, 2, 0, 2))
    act(g, G.DISCARD, 0, "5s")
    ev = act(g, G.ZHIGANG, 2)
    assert pays(ev) == [(0, 2, 2, PAY_GANG_ZHI), (1, 2, 1, PAY_GANG_MAOMAO),
                        (3, 2, 1, PAY_GANG_MAOMAO)]
    # 点杠花 as a discard win on the giver (diangang_hua 2: "有的地区算放炮")
    g = table(rules("chengdu", diangang_hua=2), K, (1, 2, 0, 2))
    act(g, G.DISCARD, 0, "5s")
    act(g, G.ZHIGANG, 2)
    draw(g, 2, "9s")
    ev = act(g, G.HU, 2)
    assert pays(ev) == [(0, 2, 8, PAY_DIANPAO)]


def test_chajiao_value_is_capped():
    # 002 查叫: "这个值按点炮算，不加自摸的 1 分，不算海底，最多 16" — 清七对 + 根 is 5 番
    N = (
        "1p 3p 5p 7p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
        "1111223344556m",
        "1p 2p 3p 4p 5p 6p 8p 1s 2s 3s 4s 6s 8s",
        "1p 3p 5p 7p 9p 1s 2s 3s 4s 6s 7s 8s 9s",
    )
    g = table(rules("xuezhan"), N, (0, 1, 0, 0))
    g.wall = 0
    ev = act(g, G.DISCARD, 0, "9s")
    assert pays(ev) == [(0, 1, 16, PAY_CHAJIAO), (2, 1, 16, PAY_CHAJIAO), (3, 1, 16, PAY_CHAJIAO)]


def test_zhuanyi_even_split_rounds_down():
    Z = (
        "9p 123m 456m 789m 123p 5p",
        "46m 111p 789p 234p 55p",
        "111s 333s 555s 777s 9s",
        "5m 234s 456s 888s 999s",
    )
    rs = rules("chengdu", zhuanyi=3, gang_an=3)
    g = table(rs, Z, (2, 2, 0, 1))
    discard(g, 0, "9p")
    cycle(g, 1, "2s")
    draw(g, 2, "7s")
    ev = act(g, G.ANGANG, 2, "7s")
    assert [p[2] for p in pays(ev) if p[3] == PAY_GANG_AN] == [3, 3, 3]
    draw(g, 2, "5m")
    act(g, G.DISCARD, 2, "5m")
    act(g, G.HU, 1)
    ev = act(g, G.HU, 3)
    assert [p for p in pays(ev) if p[3] == PAY_ZHUANYI] == [(2, 3, 4, PAY_ZHUANYI),
                                                           (2, 1, 4, PAY_ZHUANYI)]
    assert sum(g.delta) == 0
