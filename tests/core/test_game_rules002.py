"""Seed 002 (本站 rules, presets `xuezhan` / `xueliu`): one test per worked rule.

Seats 0..3 play in that order; seat 0 deals (14 tiles). Hands are full and
legal (no face over four copies); 换三张 is skipped (rules() turns it off).
"""

from gamekit import act, cycle, discard, draw, f_, located, pays, refused, rules, table
from sichuan import claims as C
from sichuan import game as G
from sichuan.settle import (
    EV_HAND_END,
    EV_PROMPT,
    EV_WIN,
    PAY_DIANPAO,
    PAY_GANG_AN,
    PAY_GANG_BU,
    PAY_GANG_ZHI,
    PAY_QIANGGANG,
    PAY_ZIMO,
)

# S1 waits 5万 (平胡), S2 waits 5万 (清一色), S3 waits 1条/8条 (平胡).
H = (
    "5m 123m 789m 234p 456p 9p",
    "46m 111p 789p 234p 55p",
    "5m 234m 456m 777m 888m",
    "234s 456s 11s 88s 789p",
)
V = (2, 2, 1, 0)


def test_yipao_duoxiang_each_winner_paid_by_discarder():
    # 002: "同一张牌可以被几家同时胡，叫一炮多响，每一家都由打出这张牌的人付"
    g = table(rules("xuezhan"), H, V)
    ev = act(g, G.DISCARD, 0, "5m")
    assert [e[1:3] for e in ev if e[0] == EV_PROMPT] == [(1, C.C_HU), (2, C.C_HU | C.C_PENG)]
    act(g, G.HU, 1)
    ev = act(g, G.HU, 2)
    assert pays(ev) == [(0, 1, 1, PAY_DIANPAO), (0, 2, 4, PAY_DIANPAO)]
    assert [e[1] for e in ev if e[0] == EV_WIN] == [1, 2]
    assert g.status[1] & C.ST_LEFT and g.status[2] & C.ST_LEFT  # 血战: winners leave
    assert g.phase == G.PH_DRAW and g.turn == 3


def test_hu_beats_peng():
    # 002/000: 胡 over 碰 — seat 2 asks 碰, seat 1 胡: the 胡 stands, no 碰.
    g = table(rules("xuezhan"), H, V)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.PENG, 2)
    assert g.phase == G.PH_CLAIM  # seat 1 may still 胡
    ev = act(g, G.HU, 1)
    assert pays(ev) == [(0, 1, 1, PAY_DIANPAO)]
    assert g.nmeld[2] == 0 and g.turn == 2 and g.phase == G.PH_DRAW


def test_xuezhan_zimo_paid_by_players_still_in():
    # 002: "已经有一家胡走了，你自摸平胡，剩下的两家各付 2 分"
    g = table(rules("xuezhan"), H, V)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.PASS, 2)
    cycle(g, 2, "9s")
    draw(g, 3, "1s")
    ev = act(g, G.HU, 3)
    assert pays(ev) == [(0, 3, 2, PAY_ZIMO), (2, 3, 2, PAY_ZIMO)]


def test_xueliu_zimo_paid_by_all_three_including_winners():
    # 002: "血流成河里其他三家都付，包括胡过的"
    g = table(rules("xueliu"), H, V)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.PASS, 2)
    assert not g.status[1] & C.ST_LEFT and g.status[1] & C.ST_LOCKED
    cycle(g, 2, "9s")
    draw(g, 3, "1s")
    ev = act(g, G.HU, 3)
    assert pays(ev) == [(0, 3, 2, PAY_ZIMO), (1, 3, 2, PAY_ZIMO), (2, 3, 2, PAY_ZIMO)]


def test_no_guoshou_in_seed002():
    # 002: "本站没有过手胡限制 ... 在你下次摸牌之前又有人打出同样的牌，照样可以胡"
    hands = (
        "5m 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 55p",
        "5m 234m 666m 777s 999s",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("xuezhan"), hands, (2, 2, 1, 1))
    act(g, G.DISCARD, 0, "5m")
    act(g, G.PASS, 1)
    act(g, G.PASS, 2)
    cycle(g, 1, "9m")
    draw(g, 2, "1m")
    act(g, G.DISCARD, 2, "5m")
    ev = act(g, G.HU, 1)  # passed 5万 before; wins 5万 now
    assert pays(ev) == [(2, 1, 1, PAY_DIANPAO)]


def test_void_suit_rules():
    # 002 定缺: "手里只要还有一张缺门的牌，出牌时只能从缺门里挑" / "缺门没打完，别人打出的
    # 牌只能过，不能碰，也不能杠" / "缺门没打完不能胡" / "缺门没打完不能开杠"
    hands = (
        "5m 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 5p 1s",   # seat 1: void 条, still holds 1条
        "5m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("xuezhan"), hands, V)
    act(g, G.DISCARD, 0, "9p")  # seat 1 holds 1p x3 but may not claim anything
    assert g.phase == G.PH_DRAW and g.turn == 1
    draw(g, 1, "1p")
    assert refused(g, (G.DISCARD, 1, f_("4m"))) == C.MUST_DISCARD_VOID
    assert refused(g, (G.ANGANG, 1, f_("1p"))) == C.VOID_HELD_NO_CLAIM
    assert C.claim_reason(g, 1, C.C_PENG, f_("5p")) == C.VOID_HELD_NO_CLAIM
    discard(g, 1, "1s")
    draw(g, 2, "5p")
    ev = act(g, G.DISCARD, 2, "5p")
    assert [e[1:3] for e in ev if e[0] == EV_PROMPT] == []  # seat 1 holds one 5p only


def test_void_held_cannot_win():
    hands = (
        "5m 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 55s",     # shape waits 5万 but holds 条, its void
        "5m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("xuezhan"), hands, V)
    act(g, G.DISCARD, 0, "5m")
    assert C.claim_reason(g, 1, C.C_HU, f_("5m")) == C.VOID_HELD_NO_CLAIM
    assert g.prompt_mask(1) == 0


# Kongs: S1 pengs 9p from S0, S3 waits 6p/9p (rob), S2 holds 555s for a 直杠.
K = (
    "9p 123m 456m 789m 123s 5s",
    "99p 11p 234p 456m 789m",
    "111s 333s 555s 777s 9s",
    "78p 345p 666p 22m 345m",
)
KV = (1, 2, 0, 2)


def _peng_9p(g):
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PASS, 3)          # seat 3 could 胡 9p; passes (no 过手胡 here)
    act(g, G.PENG, 1)
    discard(g, 1, "1p")
    cycle(g, 2, "9s")
    cycle(g, 3, "1m")
    cycle(g, 0, "4s")


def test_angang_each_pays_2():
    # 002 算例: "乙摸到第四张 9 筒，暗杠。甲、丙、丁各付 2 分"
    g = table(rules("xuezhan"), K, KV)
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PASS, 3)
    act(g, G.PASS, 1)
    cycle(g, 1, "8s")
    draw(g, 2, "7s")
    ev = act(g, G.ANGANG, 2, "7s")
    assert pays(ev) == [(0, 2, 2, PAY_GANG_AN), (1, 2, 2, PAY_GANG_AN), (3, 2, 2, PAY_GANG_AN)]
    assert g.phase == G.PH_DRAW and g.turn == 2 and g.repl


def test_bugang_immediate_pays_1_each():
    # 002: 补杠 "每家收 1"
    g = table(rules("xuezhan"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    ev = act(g, G.BUGANG, 1, "9p")
    assert g.phase == G.PH_ROB and g.prompt_mask(3) == C.C_HU
    ev = act(g, G.PASS, 3)
    assert pays(ev) == [(0, 1, 1, PAY_GANG_BU), (2, 1, 1, PAY_GANG_BU), (3, 1, 1, PAY_GANG_BU)]


def test_claim_windows_are_a_discard_and_a_bugang():
    # the one test of "a claim window is open" the controller and host use
    opened = [ph for ph in range(G.PH_END + 1) if G.claim_open(ph)]
    assert opened == [G.PH_CLAIM, G.PH_ROB]
    g = table(rules("xuezhan"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    assert not G.claim_open(g.phase)
    act(g, G.BUGANG, 1, "9p")
    assert G.claim_open(g.phase)  # 抢杠胡 may follow


def test_bugang_late_still_pays():
    # 002: "补杠不要求是刚摸到第四张时马上补。第四张早就在手里，过几轮再补，照样每家收 1"
    g = table(rules("xuezhan"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    discard(g, 1, "1p")
    cycle(g, 2, "8s")
    cycle(g, 3, "2s")
    cycle(g, 0, "6s")
    draw(g, 1, "8m")
    act(g, G.BUGANG, 1, "9p")
    ev = act(g, G.PASS, 3)
    assert pays(ev) == [(0, 1, 1, PAY_GANG_BU), (2, 1, 1, PAY_GANG_BU), (3, 1, 1, PAY_GANG_BU)]


def test_qiangganghu_robbed_player_pays_kong_void():
    # 002: "抢杠胡由补杠的那一家一个人付，和点炮一样" / "被抢了，这个杠不算，也就不收杠钱";
    # 抢杠胡 1 番 (平胡 0 + 1 = base 2)
    g = table(rules("xuezhan"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    act(g, G.BUGANG, 1, "9p")
    ev = act(g, G.HU, 3)
    assert pays(ev) == [(1, 3, 2, PAY_QIANGGANG)]
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert win[2] == 1 and win[4] == 1
    assert g.meld_list(1) == bytes([f_("9p")])  # still a 碰 (kind 0)
    assert sum(g.delta) == 0 and bytes(located(g)) == bytes(g.seen)


def test_dianganghua_is_zimo_all_three_pay():
    # 002: "杠上开花算自摸，哪怕这个杠是吃了别人打的牌杠出来的（点杠花），也是三家各付";
    # "任何一个杠本身就是一根，杠上开花至少是杠上花 1 番加根 1 番"
    hands = ("5s 123m 456m 789m 123s 9m",) + K[1:]
    g = table(rules("xuezhan"), hands, KV)
    ev = act(g, G.DISCARD, 0, "5s")
    assert g.prompt_mask(2) == C.C_PENG | C.C_GANG
    ev = act(g, G.ZHIGANG, 2)
    assert pays(ev) == [(0, 2, 2, PAY_GANG_ZHI)]
    draw(g, 2, "9s")
    ev = act(g, G.HU, 2)
    win = [e for e in ev if e[0] == EV_WIN][0]
    # 对对胡 1 + 清一色 2 + 根 1 + 杠上花 1 = 5, capped at 4: 16 + 1 each
    assert win[2] == 5
    assert pays(ev) == [(0, 2, 17, PAY_ZIMO), (1, 2, 17, PAY_ZIMO), (3, 2, 17, PAY_ZIMO)]


def test_no_hujiao_zhuanyi_in_seed002():
    # 002: "不开呼叫转移。杠完打出的牌点了炮，杠钱不转给胡家"
    hands = ("5s 123m 456m 789m 123s 9m",) + K[1:]
    g = table(rules("xuezhan"), hands, KV)
    act(g, G.DISCARD, 0, "5s")
    act(g, G.ZHIGANG, 2)
    draw(g, 2, "6p")
    act(g, G.DISCARD, 2, "6p")
    ev = act(g, G.HU, 3)
    assert pays(ev) == [(2, 3, 2, PAY_DIANPAO)]  # 根 1 (four 6p): base 2; no transfer
    assert g.delta == [-2, 0, 0, 2]


def test_third_winner_ends_xuezhan_without_checks():
    # 002: "血战到底里第三家胡牌时这一手立刻结束，剩下的最后一家不用过流局检查"
    hands = (
        "5m 123m 789m 234p 456p 9p",
        "46m 111p 789p 234p 55p",
        "5m 234m 456m 777m 888m",
        "46m 123s 456s 789s 22s",
    )
    g = table(rules("xuezhan"), hands, (2, 2, 1, 1))
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.HU, 2)
    ev = act(g, G.HU, 3)
    assert [e for e in ev if e[0] == EV_HAND_END] == [(EV_HAND_END, G.END_WINNERS, tuple(g.delta))]
    assert g.phase == G.PH_END
    assert refused(g, (G.DRAW, 0, 1)) == C.HAND_OVER


# 血流 lock: S1 waits 1m/3m/4m with 2223m; after winning, 暗杠 2m would leave 3m only.
L = (
    "3m 456m 789m 234p 567p 9p",
    "2223m 789m 234p 567p",
    "111s 333s 555s 777s 9s",
    "222s 444s 666s 888s 9s",
)
LV = (2, 2, 0, 0)


def test_xueliu_lock_after_first_win():
    # 002: "第一次胡牌以后，手里那 13 张就固定下来，以后每次摸牌，不胡就只能打出刚摸到的那张；
    # 不能碰，不能补杠，暗杠只有在不改变听哪几张牌时才允许 ... 这几张牌每来一次都能再胡一次"
    g = table(rules("xueliu"), L, LV)
    act(g, G.DISCARD, 0, "3m")
    act(g, G.HU, 1)
    assert g.status[1] & C.ST_LOCKED and g.turn == 2
    cycle(g, 2, "1p")
    cycle(g, 3, "2p")
    cycle(g, 0, "1p")
    draw(g, 1, "2m")
    assert refused(g, (G.ANGANG, 1, f_("2m"))) == C.LOCKED   # waits 1/3/4m -> 3m only
    assert refused(g, (G.DISCARD, 1, f_("9m"))) == C.LOCKED  # must throw the drawn tile
    assert C.claim_reason(g, 1, C.C_PENG, f_("7p")) == C.LOCKED
    discard(g, 1, "2m")
    cycle(g, 2, "3p")
    cycle(g, 3, "8p")
    cycle(g, 0, "3p")
    draw(g, 1, "4m")
    ev = act(g, G.HU, 1)  # wins again on a wait of the locked hand
    assert pays(ev) == [(0, 1, 2, PAY_ZIMO), (2, 1, 2, PAY_ZIMO), (3, 1, 2, PAY_ZIMO)]
    assert g.wins[1] == 2 and g.phase == G.PH_DRAW and g.turn == 2
    assert bytes(located(g)) == bytes(g.seen)


def test_xueliu_locked_angang_allowed_when_waits_stay():
    hands = (
        "3m 456m 789m 234p 567p 9p",
        "1113m 789m 234p 567p",      # waits 2m/3m; 暗杠 1m leaves 3m: waits change
        "111s 333s 555s 777s 9s",
        "222s 444s 666s 888s 9s",
    )
    g = table(rules("xueliu"), hands, LV)
    act(g, G.DISCARD, 0, "3m")
    act(g, G.HU, 1)
    cycle(g, 2, "1p")
    cycle(g, 3, "2p")
    cycle(g, 0, "1p")
    draw(g, 1, "1m")
    assert refused(g, (G.ANGANG, 1, f_("1m"))) == C.LOCKED
    hands = (
        "3m 456m 789m 234p 567p 9p",
        "3m 789m 234m 567p 111p",    # waits 3m; 暗杠 1p leaves 3m: same waits
        "222s 333s 555s 777s 9s",
        "22m 444s 666s 888s 99s",
    )
    g = table(rules("xueliu"), hands, (2, 2, 0, 1))
    act(g, G.DISCARD, 0, "3m")
    act(g, G.HU, 1)
    cycle(g, 2, "6m")
    cycle(g, 3, "2p")
    cycle(g, 0, "1m")
    draw(g, 1, "1p")
    ev = act(g, G.ANGANG, 1, "1p")
    assert pays(ev) == [(0, 1, 2, PAY_GANG_AN), (2, 1, 2, PAY_GANG_AN), (3, 1, 2, PAY_GANG_AN)]
