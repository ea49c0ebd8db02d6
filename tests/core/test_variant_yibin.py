"""宜宾 (`yibin`, seed 000 宜宾玩法 and its 番种 column), rule by rule."""

from calckit import calc
from check import lcg
from gamekit import (
    act,
    discard,
    f_,
    located,
    ok,
    play,
    refused,
    rules,
    snapshot,
    wild_deal,
)
from sichuan import claims as C
from sichuan import fan, handlog, meld, presets, settle, tiles, wild
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.settle import EV_PAY, EV_WIN

P = tiles.parse
# 本金 1m: 2m and 9m are 听用. Seat 0 (万 void) holds the wild 2m.
H = ("2m 123p 456p 789p 11s 7s 5s", "345p 678p 345p 66p 9p 7s",
     "113m 4444m 5566m 77s", "1s 444s 666s 3s 5s 77m 88m")
V = (0, 2, 1, 1)


def _table(rs=None, hands=H, voids=V, benjin="1m"):
    g = G.Game(rs or rules("yibin"), 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, P(hands[s]), 0))
    assert g.phase == G.PH_DEAL
    ok(g, (G.BENJIN, 0, f_(benjin), 0))
    for s in range(4):
        ok(g, (G.DINGQUE, s, voids[s], 0))
    assert g.phase == G.PH_DISCARD
    return g


def _score(text, benjin="1m", void=-1):
    rs = presets.get("yibin")
    b = f_(benjin)
    w1, w2 = wild.wild_faces(b)
    out = bytearray(fan.NOUT)
    v = wild.score(rs, P(text), (), void, 0, out, w1, w2, b)
    names = R.PATTERNS + calc.EXTRA_NAMES
    return v, {names[i]: out[i] - 1 for i in range(fan.NOUT) if out[i]}


def test_benjin_turned_after_the_deal():
    """"本金：牌局开始时，庄家在尾家摸完牌后，翻开接下来的牌张"."""
    rs = rules("yibin")
    g = G.Game(rs, 0, G.DIR_NEXT)
    ok(g, (G.DEAL, 0, P(H[0]), 0))
    assert refused(g, (G.BENJIN, 0, f_("1m"))) == C.BAD_PHASE
    for s in (1, 2, 3):
        ok(g, (G.DEAL, s, P(H[s]), 0))
    assert refused(g, (G.BENJIN, 0, f_("4m"))) == C.FIFTH_COPY  # seat 2 holds four
    wall = g.wall
    ok(g, (G.BENJIN, 0, f_("1m"), 0))
    assert (g.w1, g.w2) == (f_("2m"), f_("9m")) and g.wall == wall - 1
    assert g.shown[f_("1m")] == 1 and g.phase == G.PH_DINGQUE
    assert bytes(located(g)) == bytes(g.seen)
    assert refused(g, (G.BENJIN, 0, f_("5m"))) == C.BAD_PHASE
    g = G.Game(rules("xuezhan"), 0, G.DIR_NEXT)
    for s in range(4):
        ok(g, (G.DEAL, s, P(H[s]), 0))
    assert refused(g, (G.BENJIN, 0, f_("1m"))) == C.BAD_ACTION


def test_wild_cannot_be_discarded_or_konged_and_is_no_void_tile():
    """"听用牌不能打出"; "听用牌可代替其他牌进行飞（碰）的操作，但不能进行杠的操作"."""
    g = _table()
    assert refused(g, (G.DISCARD, 0, f_("2m"))) == C.WILD_TILE
    assert refused(g, (G.ANGANG, 0, f_("2m"))) == C.WILD_TILE
    # seat 0's void is 万 and it holds the 2m wild: it is no 花猪 and may discard
    assert not C.void_held(g, 0)
    assert g.check((G.DISCARD, 0, f_("5s"), 0)) == 0


def test_tianhu_with_a_wild_standing_in():
    """The dealer's 14: 123p 456p 789p 11s and 5s 7s with the wild as 6s."""
    g = _table()
    ev = act(g, G.HU, 0)
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert win[3] & fan.TIANHU and win[2] >= 6
    assert sorted(e[1:4] for e in ev if e[0] == EV_PAY) == [(1, 0, 64), (2, 0, 64), (3, 0, 64)]


def test_guopeng():
    """"过碰不碰：别人打出的牌，本家若未碰或飞，其他家跟打同一张，在本家未过手前，不能进行碰或飞"."""
    g = _table()
    act(g, G.DISCARD, 0, "7s")
    assert g.prompt_mask(2) & C.C_PENG
    act(g, G.PASS, 2)
    act(g, G.DRAW, 1, "2p")
    act(g, G.DISCARD, 1, "7s")  # the same tile again
    assert not g.prompt_mask(2) & C.C_PENG
    assert C.discard_mask(g, 2, f_("7s")) == 0
    if g.prompt_mask(0):  # seat 0 (5s and a wild) may 胡 it
        act(g, G.PASS, 0)
    assert g.phase == G.PH_DRAW and g.turn == 2
    act(g, G.DRAW, 2, "3s")
    assert g.gp_mask[2] == 0  # after its own draw it may 碰 again
    g = _table(rules("yibin", guopeng=0))
    act(g, G.DISCARD, 0, "7s")
    act(g, G.PASS, 2)
    act(g, G.DRAW, 1, "2p")
    act(g, G.DISCARD, 1, "7s")
    assert g.prompt_mask(2) & C.C_PENG


def test_no_kong_right_after_peng():
    """"碰后不准立即杠牌或提牌"."""
    g = _table()
    act(g, G.DISCARD, 0, "7s")
    act(g, G.PENG, 2)
    assert refused(g, (G.ANGANG, 2, f_("4m"))) == C.BAD_PHASE
    discard(g, 2, "3m")
    g = _table(rules("yibin", peng_no_kong=0))
    act(g, G.DISCARD, 0, "7s")
    act(g, G.PENG, 2)
    assert g.check((G.ANGANG, 2, f_("4m"), 0)) == 0


def test_kongs_earn_nothing():
    """"杠进不杠出：刮风下雨只计根不计番"."""
    g = _table()
    act(g, G.DISCARD, 0, "5s")
    act(g, G.DRAW, 1, "2p")
    discard(g, 1, "7s")
    act(g, G.DRAW, 2, "2s")
    ev = act(g, G.ANGANG, 2, "4m")
    assert not [e for e in ev if e[0] == EV_PAY] and g.delta == [0, 0, 0, 0]


def test_fan_column():
    """宜宾 column: 平胡 1, 对对胡 2, 清一色 4, 金钩钓 8, 七对 4, 清对 16, 清金钩钓 32, 清七对 16,
    根/自摸/杠上花/杠上炮/抢杠胡/海底/和绝张/本金 +1根, 无听用 +2根 (reading), 64番 cap."""
    rs = presets.get("yibin")
    f = {R.PATTERNS[i]: rs.fan(i) for i in range(R.NPATTERNS) if rs.fan(i) != R.NONE}
    assert f == {"pinghu": 0, "duiduihu": 1, "qingyise": 2, "jingoudiao": 3, "qidui": 2,
                 "qingdui": 4, "qingjingoudiao": 5, "qingqidui": 4, "tianhu": R.AT_CAP,
                 "dihu": R.AT_CAP, "gen": 1, "zimo": 1, "gangshanghua": 1,
                 "gangshangpao": 1, "qiangganghu": 1, "haidi": 1, "juezhang": 1}
    assert rs[R.P_BENJIN_FAN] == 1 and rs[R.P_WU_TINGYONG_FAN] == 2
    assert rs[R.P_CAP] == 6 and rs[R.P_ZIMO_BONUS] == 0 and rs[R.P_GANG_NO_FAN] == 1


def test_wild_takes_the_best_face():
    # 9m as 4p: 111 222 333 444p 55p, 清对 16
    assert _score("111p222p333p44p55p9m") == (4, {"qingdui": 4})
    # 无听用: "和牌时，手中没有听用牌"
    assert _score("123p456p789p11s555s") == (2, {"pinghu": 0, "wutingyong": 2})
    # 本金: "手中有3张本金或与听用组成的3张本金的组合"
    assert _score("111m345m456p789p55p") == (3, {"pinghu": 0, "benjin": 1, "wutingyong": 2})
    v, pats = _score("11m2m345m456p789p55p")  # the wild makes the third 1m
    assert pats.get("benjin") == 1 and "wutingyong" not in pats and v == 1


def test_waits_with_a_wild_on_the_table():
    g = _table()
    # seat 3 (筒 void) holds no wild: plain waits; a drawn wild would complete nothing
    # here since the hand is far from ready
    assert g.waits(3) == wild.waits_mask(g.hand[3], g.w1, g.w2, 1)


def test_table_needs_a_way_to_show_the_wilds():
    rs = presets.get("yibin")
    okay, why = R.table_can_run(rs)
    assert not okay and "听用" in why
    assert R.table_can_run(rs, shows_wild=True) == (True, "")


# 本金 1m again; seat 1 holds the wild 9m and one 5p.
H2 = ("123p456p789p11s578s", "9m345678m5p789p22p", "1133m5566m7788s2s",
      "1s 444s 666s 3s 5s 77m 88m")
V2 = (0, 2, 1, 1)


def test_fei_a_peng_with_a_wild_then_ti():
    """"飞：听用牌可代替其他牌进行飞（碰）的操作"; "提：若摸到的牌与飞中的牌相同，则可用摸到的牌
    进行“提”的操作，再讲听用替换到自己的手里（需自己摸牌后才能提）"."""
    g = _table(hands=H2, voids=V2)
    act(g, G.DISCARD, 0, "5p")
    assert g.prompt_mask(1) & C.C_FEI and not g.prompt_mask(1) & C.C_PENG
    act(g, G.FEI, 1)
    assert g.meld_list(1) == bytes((meld.make(meld.PENG, f_("5p")),))
    assert g.fei[4] == 1 + f_("9m") and g.hand[1][f_("9m")] == 0 and g.hand[1][f_("5p")] == 0
    assert g.fei_wild(1, f_("5p")) == f_("9m")  # what the table shows in the 飞
    assert g.fei_wild(1, f_("2p")) == -1 and g.fei_wild(0, f_("5p")) == -1
    assert bytes(located(g)) == bytes(g.seen)
    discard(g, 1, "2p")
    for s, t in ((2, "3s"), (3, "9s"), (0, "9s")):
        act(g, G.DRAW, s, t)
        discard(g, s, t)
    act(g, G.DRAW, 1, "5p")
    assert refused(g, (G.BUGANG, 1, f_("5p"))) == C.WILD_TILE  # a 飞 is no kong
    act(g, G.TI, 1, "5p")
    assert g.fei[4] == 0 and g.hand[1][f_("9m")] == 1 and g.hand[1][f_("5p")] == 0
    assert g.fei_wild(1, f_("5p")) == -1  # a 碰 again, no wild in it
    assert bytes(located(g)) == bytes(g.seen)
    assert refused(g, (G.DISCARD, 1, f_("9m"))) == C.WILD_TILE
    discard(g, 1, "2p")


def test_ti_only_with_the_tile_just_drawn():
    g = _table(hands=H2, voids=V2)
    act(g, G.DISCARD, 0, "5p")
    act(g, G.FEI, 1)
    assert refused(g, (G.TI, 1, f_("5p"))) == C.NOT_HELD  # nothing drawn
    discard(g, 1, "2p")
    for s, t in ((2, "3s"), (3, "9s"), (0, "9s")):
        act(g, G.DRAW, s, t)
        discard(g, s, t)
    act(g, G.DRAW, 1, "4p")
    assert refused(g, (G.TI, 1, f_("5p"))) == C.NOT_HELD


def test_only_fei_when_a_peng_leaves_wilds_alone():
    """"如果碰完牌后，手中只有听用时，此时只能飞，不能碰"."""
    g = _table()
    h = g.hand[2]
    for f in range(27):
        h[f] = 0
    h[f_("8s")] = 2
    h[f_("9m")] = 1  # 8s 8s and a wild: a 碰 would leave the wild alone
    g._w[2] = -1
    m = C.discard_mask(g, 2, f_("8s"))
    assert m & C.C_FEI and not m & C.C_PENG
    assert C.claim_reason(g, 2, C.C_PENG, f_("8s")) == C.WILD_TILE


def test_bots_conserve_tiles_and_sum_to_zero():
    rs = presets.get("yibin")
    for seed in range(8):
        log = handlog.Writer(rs.crc(), 4, seed % 4, G.DIR_NEXT, 0)
        g = play(rs, seed, dealer=seed % 4, log=log)
        assert g.phase == G.PH_END and sum(g.delta) == 0
        assert bytes(located(g)) == bytes(g.seen)
        assert snapshot(handlog.replay(rs, log.buf)) == snapshot(g)


def _ready_every_wait(g, s):
    """settle.ready_value without its bound: every wait scored, the first
    face of the best (or smallest) value kept."""
    rs = g.rs
    mask = g.waits_limited(s, fan.meld_counts(g.meld_list(s), bytearray(27)))
    largest = rs[R.P_CHAJIAO] != 2
    lo = rs[R.P_XIAOHU] != 1
    best = at = -1
    for f in range(27):
        if mask >> f & 1 and (rs[R.P_SIJIAO] or g.shown[f] + g.hand[s][f] < 4):
            x = g.wait_value(s, f)
            if x >= lo and (best < 0 or (x > best if largest else x < best)):
                best, at = x, f
    return best, at


def test_chajiao_with_wilds_scores_every_wait_in_one_walk():
    """A ready seat's 查叫 value and face, from one walk with a wild more
    (wild.by_face), are those of scoring every wait; and so is by_face's
    value of each wait, not only the chosen one."""
    nxt = lcg(7)
    ready = 0
    for rs in (rules("yibin"), rules("yibin", chajiao=2)):
        for i in range(12):
            g = wild_deal(nxt, rs, 1 + i % 4)
            for s in (1, 2, 3):
                want = _ready_every_wait(g, s)
                assert settle.ready_value(g, s) == want, (i, s, want)
                ready += want[0] >= 0
            mask = g.waits(3)
            if mask and g.wait_value(3, g.w1) >= 0:
                by = list(wild.by_face)
                for f in range(27):
                    if mask >> f & 1 and f != g.w1 and f != g.w2:
                        assert by[f] - 1 == g.wait_value(3, f), (i, f)
    assert ready >= 12  # ready seats (the walk), not only (-1, -1)
