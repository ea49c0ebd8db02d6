"""Two- and three-player tables and 叫马 (issue 6), rule by rule; five seats' kong ledger.

Seed 000 二人玩法: "跳牌：摸牌时闲家摸13张牌，庄家摸14张牌" (the rest of the passage
is terms). Three players: no seed passage; the preset takes the common house
rule of one suit removed (三人两房: 筒 and 条, 72 tiles, as 断卡根's "只用条子和筒
子牌，共72张"). Seed 001 叫马: "叫马者从牌堆尾部随机抽走一张牌视为叫马牌 ... 然后自己
根据牌上的点数从庄家起沿出牌方向数，叫马者将与数到的玩家绑定。牌局结束后，叫马者与被叫者
将是同样的输赢。"
"""

from check import raises
from gamekit import (
    act,
    discard,
    draw,
    f_,
    faces,
    located,
    ok,
    play,
    refused,
    rules,
    snapshot,
    table,
)
from sichuan import fan, handlog, presets, tiles
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.claims import ALREADY_DONE, BAD_ACTION, BAD_COUNT, BAD_PHASE, BAD_TILE, FIFTH_COPY
from sichuan.settle import EV_MA, EV_PAY


def _deal(rs, hands, voids=None, dealer=0, ma=None):
    g = G.Game(rs, dealer, G.DIR_NEXT)
    for s in range(len(hands)):
        ok(g, (G.DEAL, s, tiles.parse(hands[s]), 0))
    if ma is not None:
        ok(g, (G.MA, dealer, f_(ma), 0))
    if g.phase == G.PH_DINGQUE:
        for s in range(len(hands)):
            ok(g, (G.DINGQUE, s, voids[s], 0))
    assert g.phase == G.PH_DISCARD and g.turn == dealer
    return g


# ---- 二人 ---------------------------------------------------------------------

def test_erren_deal_14_and_13_from_108():
    """二人玩法: "闲家摸13张牌，庄家摸14张牌"; reading: all 108 tiles."""
    rs = rules("erren")
    assert rs[R.P_PLAYERS] == 2 and rs[R.P_SUITS] == 7 and rs[R.P_HAND_SIZE] == 13
    g = G.Game(rs, 1, G.DIR_NEXT)
    assert refused(g, (G.DEAL, 1, faces("123456789m1234p"))) == BAD_COUNT  # dealer 13
    ok(g, (G.DEAL, 1, faces("123456789m12345p"), 0))
    assert refused(g, (G.DEAL, 2, faces("123456789m1234p"))) == 11  # BAD_SEAT: no third seat
    ok(g, (G.DEAL, 0, faces("123456789p1234s"), 0))
    assert g.wall == 108 - 27 and g.phase == G.PH_DINGQUE


def test_erren_exchange_goes_to_the_opponent_either_way():
    rs = presets.get("erren")
    assert rs[R.P_HSZ_DIRS] == 3
    raises(ValueError, G.Game, rs, 0, G.DIR_ACROSS)
    for d in (G.DIR_PREV, G.DIR_NEXT):
        g = G.Game(rs, 0, d)
        ok(g, (G.DEAL, 0, faces("111m234m567p88999s"), 0))
        ok(g, (G.DEAL, 1, faces("222m345m678p1234s"), 0))
        ok(g, (G.EXCHANGE, 0, faces("111m"), 0))
        ev = ok(g, (G.EXCHANGE, 1, faces("222m"), 0))
        got = [e for e in ev if e[0] == 7]
        assert sorted((e[1], e[3]) for e in got) == [(0, 1), (1, 0)]
        assert g.hand[0][f_("2m")] == 4 and g.hand[1][f_("1m")] == 3


def test_erren_first_win_ends_the_hand():
    """血战到底 with two seats: once one wins, one player is left."""
    rs = rules("erren")
    g = _deal(rs, ("5p123p789p234s567s9s", "123m456m789m11p46p"), (0, 2))
    ev = act(g, G.DISCARD, 0, "5p")
    assert g.prompt_mask(1) & 1
    ev = act(g, G.HU, 1)
    assert g.phase == G.PH_END and g.end == G.END_WINNERS
    assert [e[1:] for e in ev if e[0] == EV_PAY] == [(0, 1, 1, 4)]
    assert sum(g.delta) == 0


# ---- 三人 (one suit removed) ---------------------------------------------------

def test_sanren_72_tiles_no_wan():
    rs = rules("sanren")
    assert rs[R.P_PLAYERS] == 3 and rs[R.P_SUITS] == 6 and rs[R.P_DINGQUE] == 0
    g = G.Game(rs, 0, G.DIR_NEXT)
    assert refused(g, (G.DEAL, 0, faces("1m123456789p123s"))) == BAD_TILE
    ok(g, (G.DEAL, 0, faces("123456789p12345s"), 0))
    ok(g, (G.DEAL, 1, faces("123456789p6789s"), 0))
    ok(g, (G.DEAL, 2, faces("1122334455667s"), 0))
    assert g.total == 72 and g.wall == 72 - 40
    assert g.phase == G.PH_DISCARD  # no 定缺 with two suits
    assert refused(g, (G.DISCARD, 0, f_("1m"))) == BAD_TILE


def test_sanren_wins_hold_both_suits_and_no_huazhu():
    """Two suits, no 定缺: a win holding 筒 and 条 stands; 万 cannot be held."""
    rs = presets.get("sanren")
    assert fan.score(rs, tiles.parse("123p456p789s11s234s")) == 0
    assert fan.score(rs, tiles.parse("123m456p789s11s234s")) == -1
    assert rs[R.P_HUAZHU] == 0


def test_sanren_ends_at_two_winners():
    rs = rules("sanren")
    g = _deal(rs, ("123p456p789p1234s9s", "234p567p99p111s46s", "234p678p88p222s46s"))
    act(g, G.DISCARD, 0, "9s")
    assert g.phase == G.PH_DRAW and g.turn == 1
    act(g, G.DRAW, 1, "5s")
    act(g, G.HU, 1)
    assert g.phase == G.PH_DRAW and g.turn == 2 and g.status[1] & 8
    act(g, G.DRAW, 2, "5s")
    act(g, G.HU, 2)
    assert g.phase == G.PH_END and g.end == G.END_WINNERS
    assert sum(g.delta) == 0 and g.delta[0] < 0


def test_two_and_three_seat_hands_conserve_tiles_and_sum_to_zero():
    for name in ("erren", "sanren"):
        rs = presets.get(name)
        for seed in range(20):
            d = seed % rs[R.P_PLAYERS]
            dirs = (G.DIR_PREV, G.DIR_NEXT)
            g = play(rs, seed, dealer=d, direction=dirs[seed % 2])
            assert g.phase == G.PH_END
            assert sum(g.delta) == 0, (name, seed)
            assert bytes(located(g)) == bytes(g.seen)
            assert sum(g.seen) + g.wall == g.total


# ---- 叫马 -----------------------------------------------------------------------

def test_ma_seat_counts_from_the_dealer_by_rank():
    """"根据牌上的点数从庄家起沿出牌方向数": 1 is the dealer, 2 the next player..."""
    four = [G.ma_seat(2, 4, f_("%dp" % r)) for r in range(1, 10)]
    assert four == [2, 3, 0, 1, 2, 3, 0, 1, 2]
    three = [G.ma_seat(0, 3, f_("%ds" % r)) for r in range(1, 10)]
    assert three == [0, 1, 2, 0, 1, 2, 0, 1, 2]


_HANDS = ("5p123p789p234s567s9s", "123m456m789m11p46p", "111s222s333s444s6s",
          "777m888m999m66p88p")


def test_ma_tile_after_the_deal_only():
    rs = rules("xuezhan", jiaoma=1)
    g = G.Game(rs, 0, G.DIR_NEXT)
    ok(g, (G.DEAL, 0, tiles.parse(_HANDS[0]), 0))
    assert refused(g, (G.MA, 0, f_("2p"))) == BAD_PHASE  # players first
    for s in (1, 2, 3):
        ok(g, (G.DEAL, s, tiles.parse(_HANDS[s]), 0))
    assert g.phase == G.PH_DEAL  # waits for the 马 tile
    assert refused(g, (G.DRAW, 0, f_("2p"))) == BAD_PHASE
    assert refused(g, (G.MA, 0, f_("4s"))) == FIFTH_COPY
    assert refused(g, (G.MA, 0, 27)) == BAD_TILE
    wall = g.wall
    ok(g, (G.MA, 3, f_("2p"), 0))
    assert g.ma_seat == 1 and g.wall == wall - 1 and g.phase == G.PH_DINGQUE
    assert bytes(located(g)) == bytes(g.seen)
    assert refused(g, (G.MA, 0, f_("3p"))) == BAD_PHASE
    plain = rules("xuezhan")
    g = G.Game(plain, 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, tiles.parse(_HANDS[s]), 0))
    assert refused(g, (G.MA, 0, f_("2p"))) in (BAD_ACTION, BAD_PHASE)


def test_ma_already_done():
    rs = rules("xuezhan", jiaoma=1, dingque=0)
    g = G.Game(rs, 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, tiles.parse(_HANDS[s]), 0))
    # dingque 0: play starts right after the 马 tile; a second one is out of phase
    ok(g, (G.MA, 0, f_("2p"), 0))
    assert refused(g, (G.MA, 0, f_("3p"))) in (ALREADY_DONE, BAD_PHASE)


def test_ma_shares_the_bound_seats_win():
    """"叫马者与被叫者将是同样的输赢": seat 1 (马 tile 2p) wins 1 from seat 0; the
    马 also gets 1 from seat 0."""
    rs = rules("xuezhan", jiaoma=1)
    g = _deal(rs, _HANDS, (0, 2, 0, 2), ma="2p")
    act(g, G.DISCARD, 0, "5p")
    ev = act(g, G.HU, 1)
    assert [e[1:] for e in ev if e[0] == EV_PAY] == [(0, 1, 1, 4)]
    assert [e[1:] for e in ev if e[0] == EV_MA] == [(0, 1, 4)]
    assert g.ma_delta == g.delta[1] == 1 and g.ma_side == [1, 0, 0, 0]


def test_ma_shares_the_bound_seats_loss():
    rs = rules("xuezhan", jiaoma=1)
    g = _deal(rs, _HANDS, (0, 2, 0, 2), ma="1p")  # rank 1: the dealer, seat 0
    act(g, G.DISCARD, 0, "5p")
    ev = act(g, G.HU, 1)
    assert [e[1:] for e in ev if e[0] == EV_MA] == [(1, -1, 4)]
    assert g.ma_delta == g.delta[0] == -1 and g.ma_side == [0, -1, 0, 0]


def test_ma_on_every_preset_zero_sum_with_the_ma():
    for name in presets.names():
        rs = presets.get(name)
        rs.set(R.P_JIAOMA, 1)
        np = rs[R.P_PLAYERS]
        for seed in range(6):
            dirs = [d for d in (1, 2, 4) if rs[R.P_HSZ_DIRS] & d and (d != 4 or np == 4)]
            g = play(rs, seed, dealer=seed % np, direction=dirs[seed % len(dirs)])
            assert sum(g.delta) == 0
            assert g.ma_seat == G.ma_seat(g.dealer, np, g.ma_face)
            assert g.ma_delta == g.delta[g.ma_seat] == sum(g.ma_side), (name, seed)
            assert bytes(located(g)) == bytes(g.seen)


def test_ma_match_books_the_side_payments_and_logs_replay():
    rs = presets.get("xuezhan")
    rs.set(R.P_JIAOMA, 1)
    m = G.Match(rs, 0)
    seed = 0
    while not m.over():
        log = handlog.Writer(rs.crc(), 4, m.dealer, G.DIR_NEXT, 0)
        g = play(rs, seed, dealer=m.dealer, direction=G.DIR_NEXT, log=log)
        g2 = handlog.replay(rs, log.buf)
        assert snapshot(g2) == snapshot(g)
        m.finish(g)
        seed += 1
    assert sum(m.totals) + m.ma_total == 4 * rs[R.P_START_POINTS]
    assert len(m.ma_history) == rs[R.P_HANDS]
    assert m.ma_total == sum(d for _s, d in m.ma_history)
    assert any(d for _s, d in m.ma_history)


# ---- what a physical table can run ------------------------------------------

def test_table_can_run():
    for name in ("erren", "sanren", "xuezhan"):
        rs = presets.get(name)
        rs.set(R.P_JIAOMA, 1)  # 叫马 needs no seat
        assert R.table_can_run(rs) == (True, "")
    rs = presets.get("xuezhan")
    rs.set(R.P_PLAYERS, 5)
    okay, why = R.table_can_run(rs)
    assert not okay and "5" in why and "seats" in why
    assert R.table_can_run(rs, seats=5)[0]
    rs.set(R.P_SUITS, 1)  # 5 x 13 + 1 tiles from 36
    okay, why = R.table_can_run(rs, seats=5)
    assert not okay and "66" in why
    rs = presets.get("xuezhan")
    rs.set(R.P_TINGYONG, 2)
    okay, why = R.table_can_run(rs)
    assert not okay and "tingyong" in why


def test_playable_is_the_part_of_table_can_run_every_game_needs():
    for name in presets.names():
        assert R.playable(presets.get(name)) == (True, "")
    rs = presets.get("xuezhan")
    rs.set(R.P_SUITS, 1)
    assert R.playable(rs) == (False, "the deal needs 53 tiles but only 36 are in play")
    assert R.table_can_run(rs) == R.playable(rs)
    rs = presets.get("sanren")  # 换三张 across only, with three players
    rs.set(R.P_HUANSANZHANG, 1)
    rs.set(R.P_HSZ_DIRS, 4)
    okay, why = R.playable(rs)
    assert not okay and "across needs 4 players" in why
    rs.set(R.P_HSZ_DIRS, 5)
    assert R.playable(rs)[0]


def test_five_seats_with_four_kongs_each_fit_the_ledger():
    # 4 kongs x 5 seats x 4 payers = 80 entries (the ledger held 64 before)
    rs = rules("xuezhan", players=5, dingque=0)
    name = tiles.name  # faces 0-14 in quads, 15-19 singles, 20-25 spare
    hands = []
    for s in range(5):
        h = " ".join(name(3 * s + k) * 4 for k in range(3)) + " " + name(15 + s)
        hands.append(h + (" " + name(20) if s == 0 else ""))
    g = table(rs, hands)
    for s in range(5):
        single = name(15 + s)
        if s:
            draw(g, s, single)
        todo = [name(3 * s), name(3 * s + 1), name(3 * s + 2), single]
        for k, q in enumerate(todo):
            act(g, G.ANGANG, s, q)
            draw(g, s, single if k < 3 - (s > 0) else name(21 + s))
        discard(g, s, name(21 + s))
    assert list(g.nmeld) == [4] * 5 and g.nled == 80
    assert sum(g.delta) == 0 and g.wall == 108 - 66 - 24
