"""rules-notes.md, T/TFMJ 01—2024 (preset `tfmj-2024`): one test per worked rule."""

from gamekit import act, cycle, discard, draw, f_, pays, refused, rules, table
from sichuan import claims as C
from sichuan import game as G
from sichuan.settle import (
    CK_NOT_READY,
    CK_READY,
    EV_CHECK,
    PAY_CHAJIAO,
    PAY_DIANPAO,
    PAY_GANG_AN,
    PAY_GANG_BU,
    PAY_TUIGANG,
    PAY_ZHUANYI,
    PAY_ZIMO,
)

# S1 九莲 1112345678999m: 2万/5万 are 清一色 (2), 1万/9万 add a 根 (3).
N = (
    "1p 3p 5p 7p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
    "1112345678999m",
    "1p 2p 3p 4p 5p 6p 8p 1s 2s 3s 4s 6s 8s",
    "1p 3p 5p 7p 9p 1s 2s 3s 4s 6s 7s 8s 9s",
)
NV = (0, 1, 0, 0)


def test_guohu_same_or_lower_fan_barred_higher_allowed():
    # "after declining a legal win, the player may not win with the same or a lower fan
    # value until their next draw; a strictly higher fan win stays allowed."
    g = table(rules("tfmj-2024"), N, NV)
    discard(g, 0, "9s")
    cycle(g, 1, "8p")
    draw(g, 2, "2m")
    act(g, G.DISCARD, 2, "2m")
    assert g.prompt_mask(1) == C.C_HU
    act(g, G.PASS, 1)                     # passes a 2-fan win
    draw(g, 3, "5m")
    act(g, G.DISCARD, 3, "5m")            # 5万: 2 fan again: barred
    assert C.claim_reason(g, 1, C.C_HU, f_("5m")) == C.GUOSHOU
    draw(g, 0, "1m")
    act(g, G.DISCARD, 0, "1m")            # 1万: 清一色 + 根 = 3 fan: allowed
    assert g.prompt_mask(1) & C.C_HU
    ev = act(g, G.HU, 1)
    assert pays(ev) == [(0, 1, 8, PAY_DIANPAO)]


def test_peng_instead_of_hu_is_a_pass():
    # "Choosing 碰/杠 when 胡 was possible is a pass."
    hands = (
        "5m 123m 789m 234p 456p 9p",
        "55m 111p 789p 234p 46m",   # could 胡 or 碰 5万
        "9m 234m 456m 777m 888m",
        "234s 456s 11s 88s 789p",
    )
    g = table(rules("tfmj-2024"), hands, (2, 2, 1, 0))
    act(g, G.DISCARD, 0, "5m")
    assert g.prompt_mask(1) == C.C_HU | C.C_PENG
    act(g, G.PENG, 1)
    assert g.gs_fan[1] == 0 and g.nmeld[1] == 1


K = (
    "9p 123m 456m 789m 123s 5s",
    "99p 11p 234p 456m 789m",
    "6p 123p 111s 333s 777s",
    "6p 234m 567m 345p 111m",
)
KV = (1, 2, 0, 2)


def _peng_9p(g):
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PENG, 1)
    discard(g, 1, "1p")
    cycle(g, 2, "9m")
    cycle(g, 3, "4s")
    cycle(g, 0, "6s")


def test_bugang_only_with_the_tile_just_drawn():
    # "The fourth tile of a 补杠 must be the tile drawn that same turn."
    g = table(rules("tfmj-2024"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    discard(g, 1, "2p")
    cycle(g, 2, "8m")
    cycle(g, 3, "5s")
    cycle(g, 0, "8s")
    draw(g, 1, "3p")
    assert refused(g, (G.BUGANG, 1, f_("9p"))) == C.BUGANG_LATE


def test_hujiao_zhuanyi_ceil_split_discarder_pays_rounding():
    # "呼叫转移 ... with several winners each receives ceil(income / winners), the discarder
    # making up the rounding." 补杠 1 from every other active player: income 3.
    g = table(rules("tfmj-2024"), K, KV)
    _peng_9p(g)
    draw(g, 1, "9p")
    ev = act(g, G.BUGANG, 1, "9p")
    assert pays(ev) == [(0, 1, 1, PAY_GANG_BU), (2, 1, 1, PAY_GANG_BU), (3, 1, 1, PAY_GANG_BU)]
    draw(g, 1, "6p")
    act(g, G.DISCARD, 1, "6p")
    act(g, G.HU, 2)
    ev = act(g, G.HU, 3)
    # 平胡 + 杠上炮 1 = 2 each; kong income 3 -> 2 + 2
    assert pays(ev) == [(1, 2, 2, PAY_DIANPAO), (1, 3, 2, PAY_DIANPAO),
                        (1, 2, 2, PAY_ZHUANYI), (1, 3, 2, PAY_ZHUANYI)]
    assert g.delta[1] == 3 - 8 and sum(g.delta) == 0


def test_kong_needs_a_replacement_tile():
    # "A kong needs a replacement tile to exist."
    hands = (
        "9p 123m 456m 789m 123s 5s",
        "99p 11p 234p 456m 789m",
        "111s 333s 555s 777s 9s",
        "78p 345p 666p 22m 345m",
    )
    g = table(rules("tfmj-2024"), hands, KV)
    act(g, G.DISCARD, 0, "9p")
    act(g, G.PASS, 3)
    act(g, G.PASS, 1)
    cycle(g, 1, "8m")
    g.wall = 1
    draw(g, 2, "7s")
    assert refused(g, (G.ANGANG, 2, f_("7s"))) == C.NO_TILES_LEFT


def test_exhaustion_refund_first_then_chajiao_void_holder_not_ready():
    # "A player not ready (including one still holding the void suit: no fixed 花猪 penalty
    # in this profile) refunds all kong income first, then pays every ready player that
    # player's best possible basic value (capped at 8)."
    hands = (
        "3p 5p 7p 9p 9p 2s 4s 6s 8s 1s 3s 5s 7s 9s",
        "1112345678999m",
        "111p 456p 8p 1s 2s 3s 4s 6s 8s",
        "2p 3p 5p 7p 9p 1s 2s 3s 4s 6s 7s 8s 9m",
    )
    g = table(rules("tfmj-2024"), hands, (0, 1, 0, 0))
    g.wall = 3
    discard(g, 0, "9s")
    cycle(g, 1, "5p")
    draw(g, 2, "1p")
    ev = act(g, G.ANGANG, 2, "1p")
    assert pays(ev) == [(0, 2, 2, PAY_GANG_AN), (1, 2, 2, PAY_GANG_AN), (3, 2, 2, PAY_GANG_AN)]
    draw(g, 2, "7s")
    ev = act(g, G.DISCARD, 2, "7s")
    assert [e[1:3] for e in ev if e[0] == EV_CHECK] == [
        (0, CK_NOT_READY), (1, CK_READY), (2, CK_NOT_READY), (3, CK_NOT_READY)]
    assert pays(ev) == [(2, 0, 2, PAY_TUIGANG), (2, 1, 2, PAY_TUIGANG), (2, 3, 2, PAY_TUIGANG),
                        (0, 1, 8, PAY_CHAJIAO), (2, 1, 8, PAY_CHAJIAO), (3, 1, 8, PAY_CHAJIAO)]
    assert g.delta == [-8, 24, -8, -8]


H = (
    "5m 123m 789m 234p 456p 9p",
    "46m 111p 789p 234p 55p",
    "5m 234m 456m 777m 888m",
    "234s 456s 11s 88s 789p",
)
HV = (2, 2, 1, 0)


def test_zimo_each_active_pays_p_plus_1():
    # "自摸: every still-active opponent pays P + 1."
    g = table(rules("tfmj-2024"), H, HV)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.PASS, 2)
    cycle(g, 2, "9s")
    draw(g, 3, "1s")
    ev = act(g, G.HU, 3)
    assert pays(ev) == [(0, 3, 2, PAY_ZIMO), (2, 3, 2, PAY_ZIMO)]


def test_next_dealer_first_winner_or_multiwin_discarder_or_stays():
    # "Next dealer: the first winner; the discarder if the first win was a multi-win;
    # otherwise the dealer stays."
    rs = rules("tfmj-2024")
    g = table(rs, H, HV)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.HU, 2)
    assert G.next_dealer(rs, g) == 0
    g = table(rs, H, HV, dealer=0)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.PASS, 2)
    assert G.next_dealer(rs, g) == 1
    g = table(rs, N, NV)
    g.wall = 0
    act(g, G.DISCARD, 0, "9s")
    assert g.phase == G.PH_END and G.next_dealer(rs, g) == 0
