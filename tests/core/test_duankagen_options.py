"""断卡根 house options (seed 000 断卡根玩法, lines 66-68 and 81), rule by rule:
二合一 (`duankagen_erheyi`, rs baohu 2) and 小胡 self-draws while a seat is 报胡
(`duankagen_zimo`, rs xiaohu 2)."""

import struct
from binascii import crc32

from check import raises
from gamekit import act, discard, f_, located, ok, play, refused, rules, snapshot
from sichuan import claims as C
from sichuan import fan, handlog, presets, settle, tiles
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.settle import EV_PAY, EV_PROMPT, EV_WIN

P = tiles.parse

# Seat 1 waits on 2s/3s with no fan (小胡); seat 2 holds four pairs and the
# singles 6p and 2s (no 3n+1 wait); seat 3 is ready on 8p (对对胡) and 9s.
H = ("5599p2356799s", "234p678p1112s", "11336p24488s", "77788p66699s")


def _table(hands, rs, dealer=0):
    g = G.Game(rs, dealer, G.DIR_NEXT)
    for s in range(len(hands)):
        ok(g, (G.DEAL, s, P(hands[s]), 0))
    assert g.phase == G.PH_DISCARD and g.turn == dealer
    return g


def _pays(ev):
    return [e[1:] for e in ev if e[0] == EV_PAY]


def _win(ev):
    return [e for e in ev if e[0] == EV_WIN][0]


def _prompted(ev, s):
    return [e for e in ev if e[0] == EV_PROMPT and e[1] == s]


# ---- the ruleset -----------------------------------------------------------------

def test_options_widen_two_parameters_and_keep_the_blob():
    """New values of baohu and xiaohu, not new parameters: the blob format, its
    parameter count and the duankagen preset's CRC are as before."""
    assert R.bounds(R.P_BAOHU) == (0, 2) and R.bounds(R.P_XIAOHU) == (0, 2)
    assert R.NPARAMS == 81 and R.FORMAT_VERSION == 2
    assert presets.get("duankagen").crc() == 0xC83F5045
    e = presets.get("duankagen_erheyi")
    z = presets.get("duankagen_zimo")
    assert e[R.P_BAOHU] == 2 and e[R.P_XIAOHU] == 0 and e[R.P_QINGHU] == 1
    assert z[R.P_XIAOHU] == 2 and z[R.P_BAOHU] == 1
    base = presets.get("duankagen")
    for rs, pid in ((e, R.P_BAOHU), (z, R.P_XIAOHU)):
        assert [i for i in range(R.NPARAMS) if rs[i] != base[i]] == [pid]
        assert R.from_blob(rs.to_blob()) == rs
    raises(ValueError, base.set, R.P_BAOHU, 3)
    raises(ValueError, base.set, R.P_XIAOHU, 3)


def test_a_blob_with_baohu_3_is_refused():
    blob = bytearray(presets.get("duankagen").to_blob()[:-4])
    n = blob[3]
    for pid in (R.P_BAOHU, R.P_XIAOHU):
        b = bytearray(blob)
        struct.pack_into("<h", b, 5 + n + 2 * pid, 3)
        b += struct.pack("<I", crc32(bytes(b)) & 0xFFFFFFFF)
        e = raises(ValueError, R.from_blob, bytes(b))
        assert "out of range 0..2" in str(e), str(e)


# ---- 二合一: rs baohu 2 ------------------------------------------------------------

def test_four_pairs_may_baohu_only_with_erheyi():
    """"大部分情况下请胡不能报胡 ... 允许请胡报胡时，在配牌有4对将时可以报胡"."""
    g = _table(H, rules("duankagen"))
    assert refused(g, (G.BAOHU, 2, -1)) == C.NOT_READY
    g = _table(H, rules("duankagen_erheyi"))
    act(g, G.BAOHU, 2)
    assert g.status[2] & C.ST_BAOHU and g.status[2] & C.ST_LOCKED
    act(g, G.BAOHU, 3)  # a 3n+1 wait still may
    # three pairs are not enough
    g = _table(("5599p2356799s", "234p678p1112s", "11336p24478s", "77788p66699s"),
               rules("duankagen_erheyi"))
    assert refused(g, (G.BAOHU, 2, -1)) == C.NOT_READY


def test_dealer_four_pairs_after_its_first_discard():
    """The dealer's 11 tiles: 报胡 if one discard leaves four pairs, and that
    first discard must keep them."""
    hands = ("113355p77s246s", "234p678p1112s", "469p34588s99s", "777p88p666s99s1p")
    g = _table(hands[:3] + ("777p88p666s99s",), rules("duankagen"))
    assert refused(g, (G.BAOHU, 0, -1)) == C.NOT_READY
    g = _table(hands[:3] + ("777p88p666s99s",), rules("duankagen_erheyi"))
    act(g, G.BAOHU, 0)
    assert refused(g, (G.DISCARD, 0, f_("1p"))) == C.NOT_READY  # three pairs left
    act(g, G.DISCARD, 0, "2s")
    assert g.status[0] & C.ST_LOCKED


def test_baohu_seat_may_qinghu_its_single_and_counts_baohu():
    """"在“二合一”规矩下也允许请胡报胡": the 报胡 seat draws a pair's mate and 请胡s the
    other single (not the tile drawn: 请胡 is not a plain discard); unclaimed, it
    wins as a self-draw with 请胡 2 and 报胡 2 (二合一: both)."""
    rs = rules("duankagen_erheyi")
    g = _table(H, rs)
    act(g, G.BAOHU, 2)
    discard(g, 0, "3s")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "6p")  # 11p 33p 66p 44s 88s and 2s
    assert refused(g, (G.DISCARD, 2, f_("2s"))) == C.LOCKED
    assert (G.QINGHU, 2, f_("2s"), 0) in g.legal_actions(2)
    ev = act(g, G.QINGHU, 2, "2s")
    assert _prompted(ev, 1)  # 小胡 on a 请胡 discard ("请胡家请胡时打出牌点炮")
    ev = act(g, G.PASS, 1)
    win = _win(ev)
    assert win[1] == 2 and win[3] & fan.QINGHU and win[3] & fan.BAOHU and win[2] == 4
    each = fan.zimo_each(rs, 4)
    assert sorted(_pays(ev)) == [(0, 2, each, settle.PAY_ZIMO), (1, 2, each, settle.PAY_ZIMO),
                                 (3, 2, each, settle.PAY_ZIMO)]
    assert bytes(located(g)) == bytes(g.seen)


def test_a_baohu_seat_with_a_3n1_wait_may_qinghu_only_with_erheyi():
    """Without 二合一 a 报胡 seat never 请胡s ("大部分情况下请胡不能报胡")."""
    hands = ("5599p2356799s", "234p678p1112s", "112233p4455s", "77788p66699s")
    for name, want in (("duankagen", C.NOT_A_WIN), ("duankagen_erheyi", 0)):
        g = _table(hands, rules(name))
        act(g, G.BAOHU, 2)  # 123p 123p 4455s: waits 4s/5s
        discard(g, 0, "9p")
        act(g, G.DRAW, 1, "1p")
        discard(g, 1, "1p")
        act(g, G.DRAW, 2, "8s")
        assert g.check((G.QINGHU, 2, f_("8s"), 0)) == want, name


def test_baohu_qinghu_won_by_another_pays_one_more():
    """请胡炮 "该家的胡牌番数+3" on a 报胡 seat that has not won: "报胡后在自家胡牌前，
    如果...自家点炮，赔付番数+1" (3 + 1: 16 points)."""
    g = _table(H, rules("duankagen_erheyi"))
    act(g, G.BAOHU, 2)
    discard(g, 0, "3s")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "6p")
    act(g, G.QINGHU, 2, "2s")
    ev = act(g, G.HU, 1)
    assert _win(ev)[2] == 3 and _pays(ev) == [(2, 1, 16, settle.PAY_DIANPAO)]
    # the 请胡 seat plays on, still 报胡, and 请胡s again at its next draw
    assert g.status[2] & C.ST_BAOHU and not g.status[2] & (C.ST_WON | C.ST_NOHU)
    assert g.turn == 2 and g.phase == G.PH_DRAW


def test_passing_a_qinghu_ends_the_baohu_seats_wins():
    """"报胡后如果自家自摸...没胡，在本局结束前的时间里，报胡家不能再食和": a 请胡 it could
    make and did not is a passed self-draw."""
    g = _table(H, rules("duankagen_erheyi"))
    act(g, G.BAOHU, 2)
    discard(g, 0, "3s")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "5s")  # no 请胡 with it
    discard(g, 2, "5s")
    assert not g.status[2] & C.ST_NOHU
    act(g, G.DRAW, 3, "4p")
    discard(g, 3, "4p")
    act(g, G.DRAW, 0, "3p")
    discard(g, 0, "3p")
    act(g, G.DRAW, 1, "4p")
    discard(g, 1, "4p")
    act(g, G.DRAW, 2, "6p")  # five pairs and 2s: 请胡 passed
    discard(g, 2, "6p")
    assert g.status[2] & C.ST_NOHU
    for s, t in ((3, "7s"), (0, "5p"), (1, "5s")):
        act(g, G.DRAW, s, t)
        discard(g, s, t)
    act(g, G.DRAW, 2, "2s")  # five pairs and 6p again
    assert refused(g, (G.QINGHU, 2, f_("6p"))) == C.NOT_A_WIN


def test_a_qinghu_only_wait_is_no_jiao():
    """查叫: "以下情况即使听牌也不算有叫 ... 单纯请胡听牌"."""
    g = _table(H, rules("duankagen_erheyi"))
    act(g, G.BAOHU, 2)
    assert settle.ready_value(g, 2) == (-1, -1)
    assert settle.ready_value(g, 3)[0] == 1  # 对对胡 on 8p
    act(g, G.BAOHU, 3)
    assert settle.ready_value(g, 3)[0] == 3  # and 报胡 2


# ---- 小胡 self-draws while a seat is 报胡: rs xiaohu 2 ------------------------------

# Seat 2 holds five pairs here (nothing to do with these tests).
HZ = ("5599p2356799s", "234p678p1112s", "113355p4488s", "77788p66699s")


def _to_seat1_second_draw(g):
    """Play to seat 1's second draw (past 地胡): every seat draws and throws."""
    discard(g, 0, "3s")
    for s, t in ((1, "4p"), (2, "2p"), (3, "4p"), (0, "2p")):
        act(g, G.DRAW, s, t)
        discard(g, s, t)


def test_xiaohu_self_draw_while_a_seat_is_baohu_only_it_pays():
    """"部分规矩下，小胡在有人报胡的情况下也能自摸，只有报胡家赔一番": seat 3 报胡; seat 1's
    no-fan hand self-draws; seat 3 alone pays 0 fan + its "赔付番数+1" as a self-draw
    (1番 = 2, 自摸 多算一底分: 3 points)."""
    rs = rules("duankagen_zimo")
    g = _table(HZ, rs)
    act(g, G.BAOHU, 3)
    ev = discard(g, 0, "3s", passing=False)
    assert not _prompted(ev, 1)  # a 小胡 on a discard: still no
    for s, t in ((1, "4p"), (2, "2p"), (3, "4p"), (0, "2p")):
        act(g, G.DRAW, s, t)
        discard(g, s, t)
    act(g, G.DRAW, 1, "2s")
    assert (G.HU, 1, -1, 0) in g.legal_actions(1)
    ev = act(g, G.HU, 1)
    assert _win(ev)[2] == 0
    assert _pays(ev) == [(3, 1, fan.zimo_each(rs, 1), settle.PAY_ZIMO)]
    assert fan.zimo_each(rs, 1) == 3 and sum(g.delta) == 0


def test_xiaohu_self_draw_needs_a_baohu_seat_that_has_not_won():
    """Without a 报胡 seat, or the preset without the option, "小胡（无番胡）不能胡"."""
    for name, baohu in (("duankagen", True), ("duankagen_zimo", False)):
        g = _table(HZ, rules(name))
        if baohu:
            act(g, G.BAOHU, 3)
        _to_seat1_second_draw(g)
        act(g, G.DRAW, 1, "2s")
        assert refused(g, (G.HU, 1, -1)) == C.XIAOHU, name
    # the 报胡 seat wins first and leaves: nobody is 报胡 any more
    g = _table(HZ, rules("duankagen_zimo"))
    act(g, G.BAOHU, 3)
    ev = ok(g, (G.DISCARD, 0, f_("9s"), 0))
    assert _prompted(ev, 3)
    act(g, G.HU, 3)
    assert g.status[3] & C.ST_WON and g.turn == 0
    for s, t in ((0, "1p"), (1, "4p"), (2, "2p"), (0, "2p")):
        act(g, G.DRAW, s, t)
        discard(g, s, t)
    act(g, G.DRAW, 1, "2s")
    assert refused(g, (G.HU, 1, -1)) == C.XIAOHU


def test_xiaohu_wait_is_still_no_jiao():
    """"小胡听牌" is no 叫 under the option too."""
    g = _table(HZ, rules("duankagen_zimo"))
    act(g, G.BAOHU, 3)
    assert settle.ready_value(g, 1) == (-1, -1)


# ---- bots ---------------------------------------------------------------------------

def test_bots_play_both_options():
    """Seeded bot hands: zero-sum, tile conservation, the log replays; and the
    options come up (a 报胡 seat's 请胡, a 小胡 self-draw open to a seat)."""
    for name in ("duankagen_erheyi", "duankagen_zimo"):
        rs = presets.get(name)
        seen = [0]

        def probe(g, rng, w, name=name, seen=seen):
            s = g.turn
            if g.phase == G.PH_CLAIM and g.qing and g.status[g.pseat] & C.ST_BAOHU:
                seen[0] += 1  # 二合一: a 报胡 seat's 请胡 discard is out
            elif (g.phase == G.PH_DISCARD and name == "duankagen_zimo"
                  and not g.check((G.HU, s, -1, 0))
                  and g.score(s, g.hand[s], g.self_flags(s), g.drawn) == 0):
                seen[0] += 1  # a 小胡 may self-draw
        # random bots seldom meet these (a 报胡 seat's 请胡 once in some 3,000 hands):
        # the seeds after the first 24 are hands where they do (tests/core/gamekit.py)
        for seed in list(range(24)) + ([256] if name == "duankagen_erheyi" else [478, 535]):
            log = handlog.Writer(rs.crc(), 4, seed % 4, G.DIR_NEXT, 0)
            g = play(rs, seed, dealer=seed % 4, log=log, probe=probe)
            assert g.phase == G.PH_END and sum(g.delta) == 0, (name, seed)
            assert bytes(located(g)) == bytes(g.seen)
            assert snapshot(handlog.replay(rs, log.buf)) == snapshot(g)
        assert seen[0], (name, "gamekit's bots changed? find new seeds")


def test_four_pairs_holding_the_void_suit_may_not_baohu():
    """二合一 on a ruleset with 定缺 (a rule file may set baohu = 2 on xuezhan):
    a 报胡 seat throws each tile it draws, so four pairs beside a void tile
    could never shed it; that seat had no legal action and `mjtable sim`
    crashed. Four pairs without the void suit still may."""
    rs = rules("xuezhan", baohu=2)
    for hand, ready in (("1133m5577p2468p9s", False), ("1133m5577p24689p", True)):
        g = G.Game(rs, 0, G.DIR_NEXT)
        for s, h in enumerate(("123456789s12345s", hand, "123456789m1234m", "123456789p1234s")):
            ok(g, (G.DEAL, s, P(h), 0))
        for s, suit in enumerate((0, 2, 1, 0)):
            ok(g, (G.DINGQUE, s, suit, 0))
        if ready:
            act(g, G.BAOHU, 1)
        else:
            assert refused(g, (G.BAOHU, 1, -1)) == C.NOT_READY
