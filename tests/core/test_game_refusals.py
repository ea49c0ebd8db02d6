"""Refusals: each has a reason code (named by mjtable.names), and changes nothing."""

from gamekit import act, discard, f_, faces, located, ok, refused, rules, table
from sichuan import claims as C
from sichuan import game as G
from sichuan import presets, tiles
from sichuan.settle import EV_EXCHANGED, EV_PHASE, EV_VOIDS

H = (
    "5m 123m 789m 234p 456p 9p",
    "46m 111p 789p 234p 55p",
    "5m 234m 456m 777m 888m",
    "234s 456s 11s 88s 789p",
)
V = (2, 2, 1, 0)


def test_turn_phase_and_tile_refusals():
    g = table(rules("xuezhan"), H, V)
    assert refused(g, (G.DISCARD, 1, f_("4m"))) == C.NOT_YOUR_TURN
    assert refused(g, (G.DRAW, 0, f_("1m"))) == C.BAD_PHASE
    assert refused(g, (G.DISCARD, 0, f_("1s"))) == C.NOT_HELD
    assert refused(g, (G.DISCARD, 0, 27)) == C.BAD_TILE
    assert refused(g, (G.DISCARD, 7, 1)) == C.BAD_SEAT
    assert refused(g, (G.HU, 0, -1)) == C.NOT_A_WIN
    assert refused(g, (G.PENG, 1, -1)) == C.BAD_PHASE
    assert refused(g, (99, 0, 0)) == C.BAD_ACTION
    assert refused(g, (G.ANGANG, 0, f_("1m"))) == C.NOT_HELD
    assert refused(g, (G.BUGANG, 0, f_("1m"))) == C.NOT_HELD
    discard(g, 0, "9p")
    assert refused(g, (G.DRAW, 1, f_("7m"))) == C.FIFTH_COPY   # 7万 x4 are dealt
    assert refused(g, (G.DRAW, 2, f_("1m"))) == C.NOT_YOUR_TURN


def test_claim_refusals():
    g = table(rules("xuezhan"), H, V)
    act(g, G.DISCARD, 0, "5m")
    assert refused(g, (G.PENG, 3, -1)) == C.VOID_TILE       # 5万 is seat 3's void
    assert refused(g, (G.HU, 3, -1)) == C.NOT_A_WIN
    assert refused(g, (G.HU, 0, -1)) == C.NO_CLAIM          # the discarder
    assert refused(g, (G.ZHIGANG, 2, -1)) == C.NOT_HELD     # holds two, not three
    act(g, G.PASS, 1)
    assert refused(g, (G.HU, 1, -1)) == C.ALREADY_DONE
    act(g, G.HU, 2)
    assert g.status[2] & C.ST_LEFT
    assert C.claim_reason(g, 2, C.C_HU, f_("5m")) == C.HAS_LEFT


def test_deal_exchange_dingque_refusals():
    rs = presets.get("xuezhan")
    g = G.Game(rs, 0, G.DIR_NEXT)
    assert refused(g, (G.DEAL, 1, faces("123m"))) == C.BAD_COUNT
    assert refused(g, (G.DEAL, 1, faces("5m 123m 789m 234p 456p 9p"))) == C.BAD_COUNT
    assert refused(g, (G.DEAL, 0, [4, 4, 4, 4, 4, 0, 1, 2, 3, 5, 6, 7, 8, 9])) == C.FIFTH_COPY
    assert refused(g, (G.DRAW, 0, 1)) == C.BAD_PHASE
    hands = ("5m 123m 789m 234p 456p 1s",) + H[1:]
    for s in range(4):
        ok(g, (G.DEAL, s, tiles.parse(hands[s]), 0))
    assert refused(g, (G.DEAL, 0, faces("1s"))) == C.BAD_PHASE
    assert g.phase == G.PH_EXCHANGE
    assert refused(g, (G.EXCHANGE, 0, faces("5m 2p 3p"))) == C.NOT_ONE_SUIT
    assert refused(g, (G.EXCHANGE, 0, faces("123s"))) == C.NOT_HELD
    assert refused(g, (G.EXCHANGE, 0, faces("12m"))) == C.BAD_COUNT
    ok(g, (G.EXCHANGE, 0, faces("123m"), 0))
    assert refused(g, (G.EXCHANGE, 0, faces("789m"))) == C.ALREADY_DONE
    ok(g, (G.EXCHANGE, 1, faces("111p"), 0))
    ok(g, (G.EXCHANGE, 2, faces("777m"), 0))
    ev = ok(g, (G.EXCHANGE, 3, faces("456s"), 0))
    got = [e[1:] for e in ev if e[0] == EV_EXCHANGED]
    assert got[0] == (1, tuple(faces("123m")), 0) and got[3] == (0, tuple(faces("456s")), 3)
    assert (EV_PHASE, G.PH_DINGQUE, 0) in ev
    assert refused(g, (G.DINGQUE, 0, 3)) == C.BAD_SUIT
    ok(g, (G.DINGQUE, 0, 2, 0))
    assert refused(g, (G.DINGQUE, 0, 1)) == C.ALREADY_DONE
    ok(g, (G.DINGQUE, 1, 2, 0))
    ok(g, (G.DINGQUE, 2, 1, 0))
    ev = ok(g, (G.DINGQUE, 3, 0, 0))
    assert (EV_VOIDS, bytes((2, 2, 1, 0))) in ev  # shown all at once
    assert g.phase == G.PH_DISCARD and g.turn == 0
    assert refused(g, (G.DISCARD, 0, f_("5m"))) == C.MUST_DISCARD_VOID  # holds 4条 5条 6条


def test_exchange_directions():
    rs = presets.get("xuezhan")
    for d, step in ((G.DIR_NEXT, 1), (G.DIR_PREV, 3), (G.DIR_ACROSS, 2)):
        g = G.Game(rs, 0, d)
        for s in range(4):
            ok(g, (G.DEAL, s, tiles.parse(H[s]), 0))
        gives = ("123m", "111p", "777m", "456s")
        for s in range(4):
            ev = ok(g, (G.EXCHANGE, s, faces(gives[s]), 0))
        got = [e[1:] for e in ev if e[0] == EV_EXCHANGED]
        for r, tiles3, giver in got:
            assert r == (giver + step) % 4 and tiles3 == tuple(faces(gives[giver]))
        assert bytes(located(g)) == bytes(g.seen)


def test_exchange_direction_turns_through_the_allowed_ones_hand_by_hand():
    from sichuan import ruleset as R

    def turns(rs, n=5):
        m = G.Match(rs)
        out = []
        for h in range(n):
            m.hand_no = h
            out.append(m.exchange_direction())
        return out

    rs = presets.get("xuezhan")
    rs.set(R.P_HUANSANZHANG, 1)
    rs.set(R.P_HSZ_DIRS, 7)
    assert turns(rs) == [G.DIR_NEXT, G.DIR_PREV, G.DIR_ACROSS, G.DIR_NEXT, G.DIR_PREV]
    rs.set(R.P_HSZ_DIRS, G.DIR_PREV | G.DIR_ACROSS)
    assert turns(rs, 3) == [G.DIR_PREV, G.DIR_ACROSS, G.DIR_PREV]
    rs = presets.get("sanren")  # three players: never across
    rs.set(R.P_HUANSANZHANG, 1)
    rs.set(R.P_HSZ_DIRS, 7)
    assert turns(rs, 3) == [G.DIR_NEXT, G.DIR_PREV, G.DIR_NEXT]
    rs.set(R.P_HUANSANZHANG, 0)  # no 换三张: the deal's default
    assert turns(rs, 2) == [G.DIR_NEXT, G.DIR_NEXT]


def test_bad_game_setup_is_an_error():
    from check import raises

    rs = presets.get("xuezhan")
    raises(ValueError, G.Game, rs, 4, G.DIR_NEXT)
    raises(ValueError, G.Game, rs, 0, 3)
