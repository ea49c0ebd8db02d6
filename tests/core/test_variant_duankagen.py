"""断卡根 (`duankagen`, seed 000 断卡根玩法 and its 番种 column), rule by rule."""

from calckit import calc
from gamekit import Rng, act, discard, f_, faces, located, ok, play, refused, rules, snapshot, wall
from sichuan import claims as C
from sichuan import fan, handlog, meld, presets, settle, tiles
from sichuan import game as G
from sichuan import ruleset as R
from sichuan.settle import EV_PAY, EV_WIN

P = tiles.parse


def _rs(**over):
    return rules("duankagen", **over)


def _table(hands, rs=None, dealer=0):
    g = G.Game(rs or _rs(), dealer, G.DIR_NEXT)
    for s in range(len(hands)):
        ok(g, (G.DEAL, s, P(hands[s]), 0))
    assert g.phase == G.PH_DISCARD and g.turn == dealer  # no 换三张, no 定缺
    return g


def _score(text, flags=0, win=-1, melds=()):
    out = bytearray(fan.NOUT)
    v = fan.score(presets.get("duankagen"), P(text), melds, -1, flags, out, win)
    names = R.PATTERNS + calc.EXTRA_NAMES
    return v, {names[i]: out[i] - 1 for i in range(fan.NOUT) if out[i]}


def _pays(ev):
    return [e[1:] for e in ev if e[0] == EV_PAY]


# ---- the table ---------------------------------------------------------------

def test_72_tiles_10_tile_hands_dealer_11():
    """"只用条子和筒子牌，共72张"; "每家只拿10张牌 ... 头家在所有人拿完牌后再摸一张，补作11张";
    "不定缺，也没有查花猪"."""
    rs = presets.get("duankagen")
    assert rs[R.P_SUITS] == 6 and rs[R.P_HAND_SIZE] == 10 and rs[R.P_DINGQUE] == 0
    assert rs[R.P_HUAZHU] == 0 and rs[R.P_HUANSANZHANG] == 0
    g = G.Game(rs, 0, G.DIR_NEXT)
    assert refused(g, (G.DEAL, 0, faces("123456789p1s"))) == C.BAD_COUNT  # 10 for the dealer
    assert refused(g, (G.DEAL, 1, faces("12345678p1m2s"))) == C.BAD_TILE  # no 万
    ok(g, (G.DEAL, 0, faces("123456789p12s"), 0))
    assert g.total == 72 and g.wall == 61


def test_three_to_five_players():
    """"允许三人或四人，甚至乡坝头人多的时候还允许5人"."""
    for n in (3, 4, 5):
        rs = presets.get("duankagen")
        rs.set(R.P_PLAYERS, n)
        g = G.Game(rs, 0, G.DIR_NEXT)
        w = wall(rs, Rng(n))
        for s in range(n):
            ok(g, (G.DEAL, s, [w.pop() for _ in range(11 if s == 0 else 10)], 0))
        assert g.wall == 72 - 10 * n - 1 and g.phase == G.PH_DISCARD
        okay, why = R.table_can_run(rs)
        assert okay == (n <= 4), why


def test_fan_column_and_tiers():
    """番种 column: 断幺九 1, 对对胡 1, 带幺九 3, 清一色 2, 请胡 2, 将对 4, 天胡/地胡 3, 根 1,
    杠上花/杠上炮/抢杠胡/海底 1, 卡 1, 硬卡 1, 报胡 2; 平胡 "不能胡", 自摸 "多算一底分".
    "1番、2番、3番为极品、4番及以上为超叫": four tiers, reading 2/4/8/16."""
    rs = presets.get("duankagen")
    want = {"duanyaojiu": 1, "duiduihu": 1, "daiyaojiu": 3, "qingyise": 2, "qidui": 2,
            "jiangdui": 4, "tianhu": 3, "dihu": 3, "gen": 1, "gangshanghua": 1,
            "gangshangpao": 1, "qiangganghu": 1, "haidi": 1}
    assert {R.PATTERNS[i]: rs.fan(i) for i in range(R.NPATTERNS) if rs.fan(i) != R.NONE} == want
    assert rs[R.P_KA_FAN] == rs[R.P_YINGKA_FAN] == 1 and rs[R.P_BAOHU_FAN] == 2
    assert rs[R.P_QINGHUPAO_FAN] == 3 and rs[R.P_XIAOHU] == 0
    assert [fan.base(rs, f) for f in range(7)] == [1, 2, 4, 8, 16, 16, 16]
    assert fan.zimo_each(rs, 2) == 5  # 自摸 多算一底分


def test_patterns_on_ten_tile_hands():
    assert _score("123p456p789p11s") == (0, {})  # 小胡
    assert _score("234p567p345s66s") == (1, {"duanyaojiu": 1})
    assert _score("222p555p888p55s") == (4, {"jiangdui": 4})  # "不计断幺九"
    assert _score("123p789p111s99s") == (3, {"daiyaojiu": 3})
    # 清对: "计为清一色与对对胡的复合，3番"
    assert _score("111p333p555p77p") == (3, {"duiduihu": 1, "qingyise": 2})
    # 清带幺: "5番超叫记作4番"
    v = _score("123p789p123p99p")[0]
    assert v == 5 and fan.capped(presets.get("duankagen"), v) == 4
    # 金钩钓 "只记对对胡1番": three melds (10-tile hands) and a pair
    ms = [meld.make(meld.PENG, f_(x)) for x in ("2p", "3s", "7s")]
    assert _score("55p", melds=ms) == (2, {"duiduihu": 1, "duanyaojiu": 1})


def test_ka_each_456_on_a_self_draw():
    """卡: "自摸限定，胡牌时每有一副任意颜色的456面子便加计一番 ... 此副牌记两卡加自摸"."""
    assert _score("456p456s234p88s", fan.ZIMO) == (3, {"duanyaojiu": 1, "ka": 2})
    assert _score("456p456s234p88s") == (1, {"duanyaojiu": 1})  # not on a discard
    # 444555666 read as three 456 runs
    assert _score("444555666p22s", fan.ZIMO) == (4, {"duanyaojiu": 1, "ka": 3})


def test_yingka_discarded_5_in_the_middle():
    """硬卡: "铳和限定，他家点炮时，自家胡坎张5 ... 此牌只记硬卡"."""
    five = f_("5p")
    assert _score("456p123s789s11s", 0, five) == (1, {"yingka": 1})
    assert _score("456p123s789s11s", fan.ZIMO, five) == (1, {"ka": 1})  # self-drawn: 卡
    assert _score("345p123s789s11s", 0, five)[0] == 0  # 5 at the end of a run
    assert _score("345p123s789s11s", 0, f_("3p"))[0] == 0


def test_qinghu_five_pairs():
    """请胡 "自摸限定，2番，加计自摸"; 清七对 "记为请胡和清一色的复合，4番"."""
    q = fan.ZIMO | fan.QINGHU
    assert _score("1122p3344s55s", q) == (2, {"qidui": 2})
    assert _score("1122334455p", q) == (4, {"qidui": 2, "qingyise": 2})
    assert _score("1111223344p", q)[0] == 5  # a four is a 根
    assert _score("1122p3344s56s", q)[0] == -1


def test_baohu_fan_not_with_dihu():
    assert _score("234p567p345s66s", fan.BAOHU) == (3, {"duanyaojiu": 1, "baohu": 2})
    # 地胡 "不计报胡，3番"
    assert _score("234p567p345s66s", fan.BAOHU | fan.DIHU | fan.ZIMO)[1] == {
        "duanyaojiu": 1, "dihu": 3}


# ---- play ---------------------------------------------------------------------
# Seat 1 waits on 2s/3s with no fan (小胡); seat 2 holds five pairs; seat 3 is
# ready on 8p (对对胡) and 9s; the dealer holds odd tiles.
H = ("5599p2356799s", "234p678p1112s", "113355p4488s", "77788p66699s")


def test_xiaohu_cannot_win():
    """"小胡（无番胡）不能胡": no prompt on a discard, and no self-drawn win."""
    g = _table(H)
    ev = act(g, G.DISCARD, 0, "3s")
    assert not [e for e in ev if e[0] == settle.EV_PROMPT and e[1] == 1]
    assert g.phase == G.PH_DRAW and g.turn == 1
    for s, t in ((1, "4p"), (2, "2p"), (3, "4p"), (0, "2p")):  # past 地胡
        act(g, G.DRAW, s, t)
        discard(g, s, t)
    act(g, G.DRAW, 1, "2s")
    assert refused(g, (G.HU, 1, -1)) == C.XIAOHU
    assert (G.HU, 1, -1, 0) not in g.legal_actions(1)


def test_baohu_before_the_first_draw_and_its_lock():
    """"如果听牌，可以在自家摸牌前宣布报胡"; "报胡后自家不能换牌及碰牌，只能摸打"."""
    g = _table(H)
    assert refused(g, (G.BAOHU, 2, -1)) == C.NOT_READY  # five pairs are not 听牌
    act(g, G.BAOHU, 3)
    assert refused(g, (G.BAOHU, 3, -1)) == C.ALREADY_DONE
    act(g, G.DISCARD, 0, "3s")
    act(g, G.DRAW, 1, "1p")
    assert refused(g, (G.BAOHU, 1, -1)) == C.BAD_PHASE  # after its draw
    ev = act(g, G.DISCARD, 1, "8p")  # seat 3 holds 88p and waits on 8p
    assert [e for e in ev if e[0] == settle.EV_PROMPT and e[1] == 3][0][2] == C.C_HU  # no 碰
    ev = act(g, G.HU, 3)
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert win[2] == 3 and win[3] & fan.BAOHU  # 对对胡 1 + 报胡 2
    assert _pays(ev) == [(1, 3, 8, settle.PAY_DIANPAO)]


def test_baohu_seat_discards_only_its_draw_and_passing_a_win_ends_its_wins():
    """"报胡后如果自家自摸或他家点炮没胡，在本局结束前的时间里，报胡家不能再食和"."""
    g = _table(H)
    act(g, G.BAOHU, 3)
    act(g, G.DISCARD, 0, "3s")
    act(g, G.DRAW, 1, "1p")
    act(g, G.DISCARD, 1, "8p")
    act(g, G.PASS, 3)
    assert g.status[3] & C.ST_NOHU
    act(g, G.DRAW, 2, "2p")
    discard(g, 2, "2p")
    act(g, G.DRAW, 3, "6p")
    assert refused(g, (G.DISCARD, 3, f_("7p"))) == C.LOCKED
    act(g, G.DISCARD, 3, "6p")
    # the last 8p comes again: seat 3 waits on it but may not win any more
    act(g, G.DRAW, 0, "8p")
    ev = act(g, G.DISCARD, 0, "8p")
    assert not [e for e in ev if e[0] == settle.EV_PROMPT and e[1] == 3]
    assert C.claim_reason(g, 3, C.C_HU, f_("8p")) == C.NOT_A_WIN


def test_baohu_discard_lets_a_xiaohu_win_and_pays_one_more():
    """小胡 may win "报胡家点炮"; "报胡后在自家胡牌前，如果...自家点炮，赔付番数+1"."""
    g = _table(H)
    act(g, G.BAOHU, 3)
    act(g, G.DISCARD, 0, "9p")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "2p")
    discard(g, 2, "2p")
    act(g, G.DRAW, 3, "3s")
    ev = act(g, G.DISCARD, 3, "3s")
    assert g.prompt_mask(1) == C.C_HU  # seat 1's 小胡 on a 报胡 discard
    ev = act(g, G.HU, 1)
    assert _pays(ev) == [(3, 1, 2, settle.PAY_DIANPAO)]  # 0 fan + 1: 2 points


def test_dealer_baohu_first_discard_keeps_it_ready():
    g = _table(("234p678p1112s9p", "5599p235679s", "113355p4488s", "77788p66699s"))
    act(g, G.BAOHU, 0)
    assert refused(g, (G.DISCARD, 0, f_("2p"))) == C.NOT_READY
    act(g, G.DISCARD, 0, "9p")
    assert g.status[0] & C.ST_LOCKED


def test_baohu_kong_only_if_still_ready():
    """"报胡后自家可以杠牌，但必须保证杠牌后要有叫"."""
    g = _table(("5599p2355799s", "234p678p1112s", "113355p4488s", "77788p66699s"))
    act(g, G.BAOHU, 3)
    discard(g, 0, "5p")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "2p")
    discard(g, 2, "2p")
    act(g, G.DRAW, 3, "6s")  # 6666s: after the kong 777p 88p 99s waits 8p/9s
    act(g, G.ANGANG, 3, "6s")
    g = _table(("5599p2355799s", "235p678p1112s", "113377p4488s", "34445p66s789s"))
    act(g, G.BAOHU, 3)  # 345p 44p 66s: waits 4p/6s
    discard(g, 0, "9p")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "2p")
    discard(g, 2, "2p")
    act(g, G.DRAW, 3, "4p")  # 4444p: 35p 66s 789s waits only on a fifth 4p
    assert refused(g, (G.ANGANG, 3, f_("4p"))) == C.NOT_READY


def test_qinghu_unclaimed_wins_as_a_self_draw():
    """"摸牌后当手上有五个小对子（五对将）时，可以打出单张牌，并宣报请胡。若没有其他家胡打出的牌，
    则请胡达成" (2番, 自摸 多算一底分: 5 from each)."""
    g = _table(H)
    act(g, G.DISCARD, 0, "9p")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    assert refused(g, (G.QINGHU, 2, f_("1p"))) == C.BAD_PHASE  # draw first
    act(g, G.DRAW, 2, "7s")
    assert refused(g, (G.QINGHU, 2, f_("1p"))) == C.NOT_A_WIN
    ev = act(g, G.QINGHU, 2, "7s")
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert win[1] == 2 and win[2] == 2 and win[3] & fan.QINGHU and win[5] == f_("7s")
    assert sorted(_pays(ev)) == [(0, 2, 5, 5), (1, 2, 5, 5), (3, 2, 5, 5)]
    assert g.status[2] & C.ST_LEFT and g.turn == 3
    assert bytes(located(g)) == bytes(g.seen)


def test_qinghu_discard_won_by_another_adds_three():
    """"当有其他家胡打出的请胡牌时，请胡失败，该家的胡牌番数+3"; 小胡 may win it
    ("请胡家请胡时打出牌点炮"); only 胡 is offered on it."""
    g = _table(("5599p2356799s", "234p678p1112s", "113355p4488s", "77788p66699s"))
    act(g, G.DISCARD, 0, "9p")
    act(g, G.DRAW, 1, "1p")
    discard(g, 1, "1p")
    act(g, G.DRAW, 2, "3s")
    ev = act(g, G.QINGHU, 2, "3s")
    assert g.prompt_mask(1) == C.C_HU
    ev = act(g, G.HU, 1)
    win = [e for e in ev if e[0] == EV_WIN][0]
    assert win[2] == 3 and win[3] & fan.QINGHUPAO
    assert _pays(ev) == [(2, 1, 8, settle.PAY_DIANPAO)]
    assert not g.status[2] & C.ST_WON and g.qing == 0 and g.turn == 2


def test_any_kong_pays_every_seat_still_in():
    """"断卡根不分直弯杠，只要一家开杠，还在场的所有家都要赔喜" (reading: 1 each)."""
    g = _table(("5599p2356799s", "234p678p1112s", "113355p4488s", "77788p66699s"))
    act(g, G.DISCARD, 0, "6s")  # seat 3 holds 666s: 直杠
    assert g.prompt_mask(3) & C.C_GANG
    ev = act(g, G.ZHIGANG, 3)
    assert sorted(_pays(ev)) == [(0, 3, 1, settle.PAY_GANG_ZHI), (1, 3, 1, settle.PAY_GANG_MAOMAO),
                                 (2, 3, 1, settle.PAY_GANG_MAOMAO)]


def test_no_claim_on_the_last_tile():
    """"海底牌不能碰杠"."""
    g = _table(H)
    act(g, G.DISCARD, 0, "2s")
    act(g, G.DRAW, 1, "9p")
    g.wall = 0  # as if that was the last tile (conservation is not checked here)
    act(g, G.DISCARD, 1, "9p")
    assert g.prompt_mask(0) == 0
    rs = _rs(haidi_claim=1)
    g = _table(H, rs)
    act(g, G.DISCARD, 0, "2s")
    act(g, G.DRAW, 1, "9p")
    g.wall = 0
    act(g, G.DISCARD, 1, "9p")
    assert g.prompt_mask(0) & C.C_PENG


def test_chajiao_counts_no_xiaohu_qinghu_or_suka_wait():
    """"以下情况即使听牌也不算有叫：小胡听牌, 单纯请胡听牌, 素卡听牌（注意：硬卡听牌算有叫）";
    "没有叫的人需要赔付有叫的人点炮的最大番数"."""
    g = _table(("5599p2356799s", "234p678p1112s", "113377p4488s", "46p234s789s55s"))
    assert settle.ready_value(g, 1) == (-1, -1)  # 小胡
    assert settle.ready_value(g, 2) == (-1, -1)  # five pairs
    assert settle.ready_value(g, 3) == (1, f_("5p"))  # 硬卡
    g = _table(("5599p2356799s", "234p678p1112s", "113377p4488s", "45p234s789s55s"))
    assert settle.ready_value(g, 3) == (-1, -1)  # 素卡: 3p/6p worth only 卡 on a self-draw


def test_bots_conserve_tiles_and_sum_to_zero_3_to_5_players():
    for n in (3, 4, 5):
        rs = presets.get("duankagen")
        rs.set(R.P_PLAYERS, n)
        for seed in range(12):
            log = handlog.Writer(rs.crc(), n, seed % n, G.DIR_NEXT, 0)
            g = play(rs, seed, dealer=seed % n, log=log)
            assert g.phase == G.PH_END and sum(g.delta) == 0, (n, seed)
            assert bytes(located(g)) == bytes(g.seen)
            assert snapshot(handlog.replay(rs, log.buf)) == snapshot(g)
