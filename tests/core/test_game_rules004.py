"""Seed 004 (456 游戏中心, preset `games456`): the rules it works through."""

from gamekit import act, discard, draw, pays, rules, table
from sichuan import fan
from sichuan import game as G
from sichuan.settle import (
    CK_HUAZHU,
    EV_CHECK,
    EV_WIN,
    PAY_BAO,
    PAY_CHAJIAO,
    PAY_GANG_ZHI,
    PAY_HUAZHU,
)

K = (
    "5s 123m 456m 789m 123s 9m",
    "99p 11p 234p 456m 789m",
    "111s 333s 555s 777s 9s",
    "78p 345p 666p 22m 345m",
)


def test_diangang_hua_giver_pays_for_all():
    # 004: "如果某个玩家放杠给另一个玩家，此时被杠上开花胡牌后，需要包掉另外两家所输的分。"
    # 直杠 "立刻收取引杠者1倍点数".
    rs = rules("games456")
    g = table(rs, K)  # 缺一门 without 定缺: no declaration phase
    ev = act(g, G.DISCARD, 0, "5s")
    ev = act(g, G.ZHIGANG, 2)
    assert pays(ev) == [(0, 2, 1, PAY_GANG_ZHI)]
    draw(g, 2, "9s")
    ev = act(g, G.HU, 2)
    win = [e for e in ev if e[0] == EV_WIN][0]
    each = fan.zimo_each(rs, win[2])
    assert pays(ev) == [(0, 2, 3 * each, PAY_BAO)]


def test_huazhu_three_suits_pays_8_to_players_still_in():
    # 004: "手上拿着3门牌的玩家为花猪，花猪赔给非花猪玩家8倍点数" (缺门 undeclared here);
    # "没听牌的玩家(花猪不用)赔给听牌的玩家最大的可能番(大叫)".
    hands = (
        "1p 3p 5p 7p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
        "1112345678999m",
        "1p 2p 3p 4p 5p 6p 8p 1s 2s 3s 4s 6s 8s",
        "1p 3p 5p 7p 9p 1s 2s 3s 4s 6s 7s 8s 9m",
    )
    g = table(rules("games456"), hands)
    g.wall = 0
    ev = act(g, G.DISCARD, 0, "9s")
    assert (3, CK_HUAZHU) in [e[1:3] for e in ev if e[0] == EV_CHECK]
    p = pays(ev)
    assert [x for x in p if x[3] == PAY_HUAZHU] == [(3, 0, 8, PAY_HUAZHU), (3, 1, 8, PAY_HUAZHU),
                                                    (3, 2, 8, PAY_HUAZHU)]
    assert [x for x in p if x[3] == PAY_CHAJIAO] == [(0, 1, 8, PAY_CHAJIAO), (2, 1, 8, PAY_CHAJIAO)]


def test_dealer_each_hand_drawn_by_the_table():
    # 004 坐庄: "血战：每局随机" — the table draws; the match takes its choice.
    rs = rules("games456")
    m = G.Match(rs, dealer=1)
    assert m.new_game().dealer == 1
    g = table(rs, K, dealer=0)
    g.wall = 0
    discard(g, 0, "5s")
    assert g.phase == G.PH_END
    m.finish(g, drawn_dealer=3)
    assert m.dealer == 3 and m.hand_no == 1
    assert m.totals == [rs[38] + d for d in g.delta]


def test_three_suits_cannot_win():
    # 004: "缺门可胡,即胡牌的时候不能有三种花色的牌"
    hands = (
        "5m 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 55s",     # the shape waits 5万, but it holds three suits
        "5m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("games456"), hands)
    act(g, G.DISCARD, 0, "5m")
    assert g.prompt_mask(1) == 0 and g.prompt_mask(2) & 1
