"""Dealer rotation, match length, and the last tile's kong (seeds 000/001/004)."""

from gamekit import act, cycle, discard, draw, f_, pays, play, refused, rules, table
from sichuan import claims as C
from sichuan import game as G
from sichuan import presets
from sichuan import ruleset as R
from sichuan.settle import PAY_GANG_AN

H = (
    "5m 123m 789m 234p 456p 9p",
    "46m 111p 789p 234p 55p",
    "5m 234m 456m 777m 888m",
    "234s 456s 11s 88s 789p",
)
HV = (2, 2, 1, 0)


def test_dealer_next_discarder_mode():
    # 004 非血战: "第二局起由点炮者坐庄;如果是自摸胡或流局则连庄"
    rs = rules("xuezhan", dealer_next=1)
    g = table(rs, H, HV, dealer=0)
    act(g, G.DISCARD, 0, "5m")
    act(g, G.HU, 1)
    act(g, G.PASS, 2)
    assert G.next_dealer(rs, g) == 0  # seat 0 discarded into the first win
    g = table(rs, H, HV, dealer=0)
    discard(g, 0, "9p")
    cycle(g, 1, "9s")
    draw(g, 2, "5m")
    act(g, G.HU, 2)
    assert G.next_dealer(rs, g) == 0  # 自摸 keeps the dealer


def test_dealer_rotates_or_stays():
    g = table(rules("xuezhan"), H, HV, dealer=0)
    g.wall = 0
    discard(g, 0, "9p")
    assert G.next_dealer(rules("xuezhan", dealer_next=2), g) == 1
    assert G.next_dealer(rules("xuezhan", dealer_next=3), g) == 0
    assert G.next_dealer(rules("xuezhan"), g) == 0  # 流局: "荒庄流局不下庄" (000)


def test_bloodshed_match_is_four_hands():
    # 000 赤羽之战: "一场要进行四局"
    rs = presets.get("bloodshed")
    m = G.Match(rs)
    n = 0
    while not m.over():
        g = play(rs, 40 + n, dealer=m.dealer, direction=G.DIR_NEXT)
        m.finish(g)
        n += 1
    assert n == 4 and sum(m.totals) == 4 * rs[R.P_START_POINTS]


def test_last_tile_kong_only_where_allowed():
    # 000: "海底牌（牌山的最后一张牌）不能杠牌（少数地区允许海底牌开杠）"
    K = (
        "9p 123m 456m 789m 123s 5s",
        "99p 11p 234p 456m 789m",
        "111s 333s 555s 777s 9s",
        "78p 345p 666p 22m 345m",
    )
    for allowed in (0, 1):
        g = table(rules("xuezhan", haidi_gang=allowed), K, (1, 2, 0, 2))
        act(g, G.DISCARD, 0, "9p")
        act(g, G.PASS, 3)
        act(g, G.PASS, 1)
        cycle(g, 1, "8m")
        g.wall = 1
        draw(g, 2, "7s")
        if not allowed:
            assert refused(g, (G.ANGANG, 2, f_("7s"))) == C.NO_TILES_LEFT
            continue
        ev = act(g, G.ANGANG, 2, "7s")
        assert pays(ev)[:3] == [(0, 2, 2, PAY_GANG_AN), (1, 2, 2, PAY_GANG_AN),
                                (3, 2, 2, PAY_GANG_AN)]
        assert g.phase == G.PH_END and g.end == G.END_WALL  # no replacement: 流局
