"""赤羽之战 (`bloodshed`) as a whole match (seed 000: "规则基本与血流成河玩法相同，
但是一场要进行四局，而且计番原则与成都玩法类似")."""

from gamekit import act, cycle, located, play, rules, table
from sichuan import fan, presets
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.claims import ST_LEFT, ST_LOCKED
from sichuan.settle import EV_PAY, EV_WIN, PAY_ZIMO

HANDS = ("5p123p789p234s567s9s", "123m456m789m11p46p", "111s222s333s444s6s",
         "777m888m999m66p88p")
VOIDS = (0, 2, 0, 2)


def test_xueliu_flow_and_self_draw_paid_by_every_other_seat():
    """血流: the winner stays (locked) and play goes on; 自摸 "在场的其余玩家赔付自摸者"
    (winners too), while kongs stay "在场未和的玩家赔付"."""
    rs = rules("bloodshed")
    assert rs[R.P_ZIMO_PAYERS] == 1 and rs[R.P_GANG_PAYERS] == 2
    g = table(rs, HANDS, VOIDS)
    act(g, G.DISCARD, 0, "5p")
    act(g, G.HU, 1)
    assert g.status[1] & ST_LOCKED and not g.status[1] & ST_LEFT
    assert g.phase == G.PH_DRAW and g.turn == 2
    for s in (2, 3, 0, 1):  # a round (past 地胡); the locked winner throws its draw
        cycle(g, s, "8s")
    act(g, G.DRAW, 2, "6s")
    ev = act(g, G.HU, 2)
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert win[2] == 3  # 清对 x8 ("清一色与对对和的复合番种")
    each = fan.zimo_each(rs, 3)
    assert each == 9  # [(番数 x 2^根数) + 1] x 底分
    assert sorted(e[1:] for e in ev if e[0] == EV_PAY) == [
        (0, 2, each, PAY_ZIMO), (1, 2, each, PAY_ZIMO), (3, 2, each, PAY_ZIMO)]
    assert g.phase == G.PH_DRAW and g.turn == 3  # the hand goes on
    assert sum(g.delta) == 0


def test_cap_is_32():
    """"32番封顶（赤羽之战）": 天胡 32 and nothing above."""
    rs = presets.get("bloodshed")
    assert fan.base(rs, 5) == fan.base(rs, 12) == 32
    assert fan.base(rs, rs.fan(R.TIANHU)) == 32


def test_four_hand_match_end_to_end():
    """"一场要进行四局": the Match books four 血流 hands, each to the end of the wall."""
    rs = presets.get("bloodshed")
    m = G.Match(rs, dealer=0)
    again = 0
    seed = 100
    while not m.over():
        d = m.dealer
        g = play(rs, seed, dealer=d, direction=(G.DIR_PREV, G.DIR_NEXT, G.DIR_ACROSS)[seed % 3])
        assert g.phase == G.PH_END and g.end == G.END_WALL  # 血流: "直到流局"
        assert sum(g.delta) == 0
        assert bytes(located(g)) == bytes(g.seen)
        for s in range(4):
            if g.wins[s] >= 2:
                again += 1
        m.finish(g)
        assert m.dealer == G.next_dealer(rs, g)
        seed += 1
    assert m.hand_no == 4 and len(m.history) == 4
    assert sum(m.totals) == 4 * rs[R.P_START_POINTS]
    for s in range(4):
        assert m.totals[s] == rs[R.P_START_POINTS] + sum(h[s] for h in m.history)
    r = m.ranking()
    assert [m.totals[s] for s in r] == sorted(m.totals, reverse=True)
    assert again  # some seat won twice in a hand
