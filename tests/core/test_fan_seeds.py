"""Every fan (番) example of seeds 001-004 and rules-notes.md, under the preset
that seed backs: 002 -> xuezhan (and xueliu: "两种打法的开局、胡牌条件和番数完全一样"),
001/003 -> chengdu, 004 -> games456, rules-notes -> tfmj-2024, seed 000's
赤羽之战 column -> bloodshed.

Seeds: /work/shared/seeds/000_81407d49d4b9c142.txt, 001_fd02efa51184eb0d.txt,
002_b061169293cd5d94.txt, 003_83aef70c3fe47f1e.txt, 004_89894a4509a57e9b.txt.

Fan in the core are doublings (x1 = 0, x2 = 1, x4 = 2, x8 = 3, x16 = 4,
x32 = 5). Seeds that count 1番 = x1 (001, 003, 004) or speak in multipliers
(000: "这里说到的“番”，是指和牌时中的倍数") are converted: the test states the
seed's figure and the doublings it means. `fan.score` is the uncapped total;
`calc_result` (the host's calculator, mjtable.calc) gives the capped fan (plus the
preset's shown offset) and base.
"""

from calckit import calc
from check import raises
from sichuan import fan, meld, presets, tiles
from sichuan import ruleset as R

P = tiles.parse
F = tiles.parse_tile


def _rs(name, **over):
    rs = presets.get(name)
    for k, v in over.items():
        rs.set(R.param_id(k.replace("__", ".")), v)
    return rs


def _m(kind, t):
    return meld.make(kind, F(t))


def _peng(t):
    return _m(meld.PENG, t)


def _score(rs, hand14, melds=(), void=-1, flags=0):
    """Uncapped doublings of a complete hand; checks the breakdown adds up."""
    rs = presets.get(rs) if isinstance(rs, str) else rs
    c = P(hand14)
    out = bytearray(R.NPATTERNS)
    s = fan.score(rs, c, melds, void, flags, out)
    if s >= 0 and not rs[R.P_TIANHU_ALONE]:
        parts = 0
        for p in range(R.NPATTERNS):
            if out[p]:
                parts += out[p] - 1
        assert parts == s, (hand14, s, list(out))
    assert c == P(hand14)  # score leaves the hand alone
    return s


def _calc(rs, hand13, win, melds=(), void=-1, flags=0):
    rs = presets.get(rs) if isinstance(rs, str) else rs
    return calc.calc_result(rs, P(hand13), F(win), melds, void, flags)


def _nonzero(pats):
    return {k: v for k, v in pats.items() if v}


# =============================================================================
# seed 002 -> xuezhan: "本站一共 9 个番型 ... 平胡0 番 碰碰胡1 番 七对2 番 清一色2 番
# 金钩钓1 番 根1 番 杠上花1 番 抢杠胡1 番 海底1 番"; "基本值就是 2 的这么多次方";
# "本站 4 番封顶，加起来超过 4 番也按 16 算"; "自摸由每一位还要付钱的人各付"基本值 + 1""
# =============================================================================

def test_002_pinghu_zero_and_zimo_each_two():
    """seed 002: "平胡0 番 四组加一对，没有其他加番项也能胡"; "你自摸平胡，剩下的两家各付 2 分" """
    r = _calc("xuezhan", "123345789m2346p", "6p")
    assert r["win"] and r["fan"] == 0 and r["base"] == 1
    assert _nonzero(r["patterns"]) == {}
    assert "self_drawn_each" not in r
    r = _calc("xuezhan", "123345789m2346p", "6p", flags=fan.ZIMO)
    assert r["fan"] == 0 and r["self_drawn_each"] == 2


def test_002_pengpenghu_one():
    """seed 002: "碰碰胡1 番 四组都是刻子或杠，加一对。" """
    r = _calc("xuezhan", "111333444m2226p", "6p")
    assert r["fan"] == 1 and r["base"] == 2
    assert _nonzero(r["patterns"]) == {"duiduihu": 1}


def test_002_qidui_two_and_chajiao_four():
    """seed 002: "七对2 番 七个对子"; worked example: "丁是七对，听 4 条" ...
    "查叫，乙付丁 4 分（七对 2 番）" """
    r = _calc("xuezhan", "1133557799m224s", "4s")
    assert r["fan"] == 2 and r["base"] == 4
    assert _nonzero(r["patterns"]) == {"qidui": 2}
    rs = presets.get("xuezhan")
    best = calc.best_wait(rs, P("1133557799m224s"), (), 1)
    assert best == (2, F("4s"))
    assert fan.base(rs, best[0]) == 4


def test_002_qingyise_worked_example():
    """seed 002 算例: "丙自摸 5 万胡清一色，2 番，基本值 4。甲、乙、丁各付 4 + 1 = 5 分" """
    r = _calc("xuezhan", "123456789m2345m", "5m", void=2, flags=fan.ZIMO)
    assert r["win"] and r["fan"] == 2 and r["base"] == 4 and r["self_drawn_each"] == 5
    assert _nonzero(r["patterns"]) == {"qingyise": 2}


def test_002_qing_qidui_is_sixteen_at_the_cap():
    """seed 002: "4 番已经封顶。做到清一色七对就是 16" (清一色 2 + 七对 2)"""
    r = _calc("xuezhan", "1122334455779m", "9m")
    assert r["fan"] == 4 and r["base"] == 16
    assert _nonzero(r["patterns"]) == {"qingyise": 2, "qidui": 2}


def test_002_more_than_four_is_still_sixteen():
    """seed 002: "再去等一根、等一个杠上花，分数不会更高"; "加起来超过 4 番也按 16 算" """
    assert _score("xuezhan", "11112233445577m") == 5  # 清一色 2 + 七对 2 + 根 1
    r = _calc("xuezhan", "1111223344557m", "7m")
    assert r["fan"] == 4 and r["base"] == 16
    rs = presets.get("xuezhan")
    assert fan.capped(rs, 9) == 4 and fan.base(rs, 9) == 16


def test_002_qidui_four_is_a_gen():
    """seed 002: "四张一样的牌可以拆成两对来用，这四张还算一"根"，多一番" and
    "替别人的自摸龙七对付 9 分（基本值 8 加 1）甚至 17 分" """
    r = _calc("xuezhan", "1111m3355m22446p", "6p", flags=fan.ZIMO)
    assert r["fan"] == 3 and r["base"] == 8 and r["self_drawn_each"] == 9
    assert _nonzero(r["patterns"]) == {"qidui": 2, "gen": 1}
    r = _calc("xuezhan", "1111223344557m", "7m", flags=fan.ZIMO)
    assert r["self_drawn_each"] == 17


def test_002_jingoudiao_adds_to_pengpenghu():
    """seed 002: "金钩钓1 番 已经碰杠出四组，手中最后凑一对" -- the hand is also 碰碰胡
    ("四组都是刻子或杠"), and "把胡牌时符合的番型加起来" """
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("2p"))
    r = _calc("xuezhan", "6p", "6p", melds)
    assert r["fan"] == 2 and r["base"] == 4
    assert _nonzero(r["patterns"]) == {"duiduihu": 1, "jingoudiao": 1}


def test_002_gen_from_peng_and_run():
    """seed 002: "碰了三张 5 筒、手里另有一张 5 筒用在四五六筒的顺子里，也算一根" """
    r = _calc("xuezhan", "456p123m789m9m", "9m", (_peng("5p"),))
    assert r["fan"] == 1 and r["base"] == 2
    assert _nonzero(r["patterns"]) == {"gen": 1}


def test_002_gangshanghua_with_its_gen_is_two():
    """seed 002: "任何一个杠本身就是一根，杠上开花至少是杠上花 1 番加根 1 番，一共 2 番"
    (caption "杠 7 万以后补到 9 万自摸"); "杠上开花算自摸，哪怕这个杠是 ... 点杠花" """
    for kind in (meld.ANGANG, meld.ZHIGANG, meld.BUGANG):
        r = _calc("xuezhan", "123m456p678p9m", "9m", (_m(kind, "7m"),),
                  flags=fan.ZIMO | fan.GANGSHANGHUA)
        assert r["fan"] == 2 and r["base"] == 4 and r["self_drawn_each"] == 5, kind
        assert _nonzero(r["patterns"]) == {"gangshanghua": 1, "gen": 1}


def test_002_qiangganghu_and_haidi_one_each():
    """seed 002: "抢杠胡1 番 用对手补杠的那一张牌胡牌"; "海底1 番 本站在牌墙已空时胡牌，加一番";
    "海底是牌墙最后一张摸完以后胡牌，自摸、点炮都算" """
    r = _calc("xuezhan", "123345789m2346p", "6p", flags=fan.QIANGGANG)
    assert r["fan"] == 1 and _nonzero(r["patterns"]) == {"qiangganghu": 1}
    for fl in (fan.HAIDI, fan.HAIDI | fan.ZIMO):
        r = _calc("xuezhan", "123345789m2346p", "6p", flags=fl)
        assert r["fan"] == 1 and _nonzero(r["patterns"]) == {"haidi": 1}


def test_002_zimo_and_gangshangpao_add_no_fan():
    """seed 002: "自摸本身不加番，它多收的是底分"; "不开"呼叫转移"。杠完打出的牌点了炮，
    杠钱不转给胡家，胡家也不因此加番" """
    base = _score("xuezhan", "123345789m23466p")
    assert _score("xuezhan", "123345789m23466p", flags=fan.ZIMO) == base == 0
    assert _score("xuezhan", "123345789m23466p", flags=fan.GANGSHANGPAO) == 0
    assert _score("xuezhan", "123345789m23466p", flags=fan.JUEZHANG) == 0


def test_002_void_suit_blocks_the_win():
    """seed 002: "缺门没打完不能胡，哪怕那张缺门牌在牌形上正好能连成顺子"; "胡牌时手牌和碰杠
    出去的牌里都不能有这一门" """
    r = _calc("xuezhan", "123345789m2346p", "6p", void=1)
    assert r["win"] is False and "reason" in r
    assert _calc("xuezhan", "123345789m2346p", "6p", void=2)["win"]
    # the void suit in a meld only
    r = _calc("xuezhan", "123345789m6s", "6s", (_peng("2p"),), void=1)
    assert r["win"] is False
    assert _score("xuezhan", "123345789m66s", (_peng("2p"),), 1) == -1


def test_three_suits_never_win_even_with_no_void_named():
    """seed 002: "胡牌时手里只能剩两门"; seed 001: "下叫：听牌。缺一门，四个搭子加一对将即可
    胡牌"; seed 004: "胡牌的时候不能有三种花色的牌"; rules-notes: "A win needs the void
    suit absent from concealed tiles and melds." """
    for name in presets.names():
        rs = presets.get(name)
        if rs[R.P_SUITS] != 7 or rs[R.P_HAND_SIZE] != 13:
            continue  # two-suit and short-hand variants: tests/core/test_variant_*.py
        assert _score(name, "123m456p789s11222s") == -1, name
        r = _calc(name, "123m456p789s1122s", "2s")
        assert r["win"] is False and "reason" in r, (name, r)
        assert _score(name, "123m456m789s11222s") >= 0, name


def test_002_qidui_has_no_melds():
    """seed 002: "七对不能有碰、杠出去的组" """
    assert _score("xuezhan", "11335577m", (_peng("2p"), _peng("4p"))) == -1
    r = _calc("xuezhan", "1133557m", "7m", (_peng("2p"), _peng("4p")))
    assert r["win"] is False


def test_002_xueliu_scores_as_xuezhan():
    """seed 002: "两种打法的开局、胡牌条件和番数完全一样" """
    hands = ("123345789m23466p", "111333444m22266p", "1133557799m2244s",
             "12345678923455m", "11112233445577m", "1111m3355m224466p")
    for h in hands:
        for fl in (0, fan.ZIMO, fan.HAIDI, fan.QIANGGANG):
            assert _score("xueliu", h, flags=fl) == _score("xuezhan", h, flags=fl), h
    a = presets.get("xuezhan")
    b = presets.get("xueliu")
    for f in range(8):
        assert fan.base(a, f) == fan.base(b, f) and fan.zimo_each(a, f) == fan.zimo_each(b, f)


def test_002_chajiao_is_a_discard_value_capped_at_sixteen():
    """seed 002: "没听牌的人要向每一位听牌的人付对方能胡的最大基本值。这个值按点炮算，
    不加自摸的 1 分，不算海底，最多 16" """
    rs = presets.get("xuezhan")
    best = calc.best_wait(rs, P("1111223344557m"), (), -1)
    assert best == (5, F("7m"))
    assert fan.base(rs, best[0]) == 16
    assert fan.wait_value(rs, P("123345789m2346p"), (), -1, F("6p")) == 0
    assert fan.wait_value(rs, P("123345789m2346p"), (), -1, F("5p")) == -1


# =============================================================================
# seeds 001/003 -> chengdu: "基础牌型（格）与基本番数" (001 counts 番 from 1 with ×倍;
# 003 gives the multiplier as 番). "实际中基础牌型一般8番封顶（满格）".
# =============================================================================

def test_001_pinghu_x1():
    """seed 001: "平胡：普通的四个搭子一对将。如：123 345 789万 234 66筒（1番；×1倍）" """
    assert _score("chengdu", "123 345 789万 234 66筒") == 0
    r = _calc("chengdu", "123 345 789万 234 6筒", "6p")
    assert r["fan"] == 1 and r["base"] == 1  # shown as 1番, x1


def test_001_daduizi_x2():
    """seed 001: "大对子（对子胡、碰碰胡）：四个搭子均为三张一样的牌。如：111 333 444万222 66筒
    （2番；×2倍）" """
    assert _score("chengdu", "111 333 444万222 66筒") == 1
    r = _calc("chengdu", "111 333 444万222 6筒", "6p")
    assert r["fan"] == 2 and r["base"] == 2


def test_001_qingyise_x4():
    """seed 001: "清一色：胡牌时只有一色牌。如：111 234 345 666 88万（3番；×4倍）" """
    assert _score("chengdu", "111 234 345 666 88万") == 2
    r = _calc("chengdu", "111 234 345 666 8万", "8m")
    assert r["fan"] == 3 and r["base"] == 4


def test_001_qingdui_x8():
    """seed 001: "清大对（清对）：清一色大对子（4番；×8倍）" """
    assert _score("chengdu", "111 333 555 777 99万") == 3
    r = _calc("chengdu", "111 333 555 777 9万", "9m")
    assert r["fan"] == 4 and r["base"] == 8


def test_001_anqidui_x4():
    """seed 001: "暗七对：...胡牌时为7个对子。如1133446677万5588筒（3番；×4倍）" """
    assert _score("chengdu", "1133446677万5588筒") == 2
    r = _calc("chengdu", "1133446677万558筒", "8p")
    assert r["fan"] == 3 and r["base"] == 4


def test_001_longqidui_x8_and_each_more_gen_doubles():
    """seed 001: "龙七对：...七对中有两对（或更多）相同，可视作带根的暗七对。注意：四张相同的
    牌不能杠出。如1133446666万5588筒（4番；×8倍，四川麻将，每多一根翻倍）" """
    assert _score("chengdu", "1133446666万5588筒") == 3
    assert _score("chengdu", "1111336666万5588筒") == 4
    r = _calc("chengdu", "1133446666万558筒", "8p")
    assert r["fan"] == 4 and r["base"] == 8


def test_001_qingqidui_x16_capped_at_manige():
    """seed 001: "清七对：清一色暗七对（5番；×16倍）"; "实际中基础牌型一般8番封顶（满格）...
    也有16番封顶或者不封顶的" """
    assert _score("chengdu", "11223355668899m") == 4
    r = _calc("chengdu", "1122335566889m", "9m")
    assert r["base"] == 8 and r["fan"] == 4  # 满格 x8, shown 4番
    r = _calc(_rs("chengdu", cap=4), "1122335566889m", "9m")
    assert r["base"] == 16
    r = _calc(_rs("chengdu", cap=-1), "1122335566889m", "9m")
    assert r["base"] == 16


def test_001_qinglongqidui_x32_each_more_gen_doubles():
    """seed 001: "清龙七对：清一色龙七对（6番；×32倍，每多一根翻倍）" """
    assert _score("chengdu", "11113355778899m") == 5
    assert _score("chengdu", "11113333557799m") == 6
    r = _calc(_rs("chengdu", cap=-1), "1111335577889m", "9m")
    assert r["base"] == 32


def test_001_gen_doubles():
    """seed 001: "带根：杠或四张未杠出的相同的牌，每一根翻倍。" """
    assert _score("chengdu", "111123m456p789p55p") == 1
    assert _score("chengdu", "123m456p789p55p", (_m(meld.ANGANG, "9m"),)) == 1
    assert _score("chengdu", "111123m789p55p", (_m(meld.ANGANG, "4p"),)) == 2


def test_001_extra_multipliers_double():
    """seed 001 额外倍数: "杠上花：开杠后补的牌胡牌。杠上炮：开杠后补的牌放炮。抢杠胡"
    (an extra multiplier, one doubling each)"""
    k = (_m(meld.ZHIGANG, "9m"),)
    assert _score("chengdu", "123m456p789p55p", k, flags=fan.GANGSHANGHUA | fan.ZIMO) == 2
    assert _score("chengdu", "123m456p789p55p", k, flags=fan.GANGSHANGPAO) == 2
    assert _score("chengdu", "123345789m23466p", flags=fan.QIANGGANG) == 1


def test_001_zimo_jiadi():
    """seed 001 自摸加底: "当玩家自摸...可在计算时在原有基础上加一倍的底金，如打五元的四川麻将，
    自摸胡了一个两番，那么赢的钱数是每人给4（基础番数）+1（自摸加底）共5倍底金" """
    r = _calc("chengdu", "111 234 345 666 8万", "8m", flags=fan.ZIMO)
    assert r["base"] == 4 and r["self_drawn_each"] == 5
    assert _score("chengdu", "111 234 345 666 88万", flags=fan.ZIMO) == 2  # no 加番


def test_001_tianhu_dihu_at_manige():
    """seed 001: "由于四川麻将需要缺门，所以天胡、地胡的几率极小，若遇到，可以按满格处理。" """
    for fl in (fan.TIANHU | fan.ZIMO, fan.DIHU | fan.ZIMO):
        r = _calc("chengdu", "123 345 789万 234 6筒", "6p", flags=fl)
        assert r["base"] == 8, r  # 满格 = x8
    r = _calc(_rs("chengdu", cap=4), "123 345 789万 234 6筒", "6p", flags=fan.TIANHU)
    assert r["base"] == 16


def test_001_duichujiao_is_not_always_daduizi():
    """seed 001 对出叫: "注意：对子胡叫不一定胡牌时是大对子。" (123 567 万 123 55 99条 胡5条)"""
    assert _score("chengdu", "123 567 万 123 555 99条") == 0
    assert _score("xuezhan", "123 567 万 123 555 99条") == 0


def test_001_jiulian_only_qingyise_or_with_gen():
    """seed 001 坎倒板赶场叫: "1112345678999万 ... 胡123456789万 ... 但在四川麻将中只算清一色
    或清一色带根" """
    for name in ("chengdu", "xuezhan"):
        rs = presets.get(name)
        for f in range(9):
            c = P("1112345678999m")
            c[f] += 1
            s = fan.score(rs, c, (), -1, 0)
            want = 3 if f in (0, 8) else 2  # the fourth 1m or 9m is a 根
            assert s == want, (name, f, s)


def test_001_optional_patterns_are_off_by_default():
    """seed 001 特殊算法: "以下基础牌型在部分地区计算，游戏前需商议好是否计算" -- the
    chengdu preset leaves 金钩钓/带幺/清带幺/将对 off; the hands score as their base shape."""
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("2p"))
    assert _score("chengdu", "66p", melds) == 1               # 大对子
    assert _score("chengdu", "123 123 99万 123 789条") == 0    # 平胡
    assert _score("chengdu", "222 555 88万 222 888筒") == 1    # 大对子


def test_001_jingoudiao_x4_when_played():
    """seed 001: "金钩钓（大单钓）：指所有其余牌均已碰（或杠），只留有一张手牌的大对子单钓。
    如111 333 444万 222 6筒。（3番；×4倍）"; seed 003: "（4番）" (x4 too)"""
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("2p"))
    rs = _rs("chengdu", fan__jingoudiao=2, jgd_absorbs_dd=1)
    assert _score(rs, "66p", melds) == 2
    rs = _rs("chengdu", fan__jingoudiao=1, jgd_absorbs_dd=0)
    assert _score(rs, "66p", melds) == 2


def test_001_daiyao_x2_when_played():
    """seed 001: "带幺：所有牌都带1或9。如123 123 99万 123 789条。（2番；×2倍）"
    (seed 003 says "（4番）", i.e. x4: the seeds disagree; this follows 001)"""
    rs = _rs("chengdu", fan__daiyaojiu=1, fan__qingdaiyao=3)
    assert _score(rs, "123 123 99万 123 789条") == 1
    # 清带幺: "清一色带幺。（4番；×8倍）" (003: 16番)
    assert _score(rs, "123 123 123 789 99万") == 3


def test_001_jiangdui_x16_when_played():
    """seed 001: "将对：全由258组成的大对子。如222 555 88万 222 888筒。（有些地区无此胡法）
    （5番；×16倍）"; seed 003: "（16番）" """
    rs = _rs("chengdu", fan__jiangdui=4)
    assert _score(rs, "222 555 88万 222 888筒") == 4


# =============================================================================
# seed 004 -> games456: "倍数 ... 1番对应1倍、2番对应2倍、3番对应4倍、4番对应8倍、5番对应
# 16倍、六番对应32倍。对应所得分的倍数为2的(番数减1)次方。"
# =============================================================================

def test_004_multiplier_is_two_to_fan_minus_one():
    """seed 004 计分规则 2: "对应所得分的倍数为2的(番数减1)次方" (no cap is stated)"""
    rs = presets.get("games456")
    for fan1 in range(1, 10):
        assert fan.base(rs, fan1 - 1) == rs[R.P_BASE_POINTS] << (fan1 - 1)
    r = _calc("games456", "2344567p345789s", "7p")
    assert r["fan"] == 1 and r["base"] == 1  # 平胡 shown 1番


def test_004_pinghu_1():
    """seed 004: "1平胡四坎牌加一对将。如23445677筒345789条。1番(×1)" """
    assert _score("games456", "23445677筒345789条") == 0


def test_004_duiduihu_2():
    """seed 004: "2对对胡...如111222444万33399筒。2番(×2)" """
    assert _score("games456", "111222444万33399筒") == 1


def test_004_qingyise_3():
    """seed 004: "3清一色玩家胡牌的手牌全部都是一门花色。如11333222456999条。3番(×4)" """
    assert _score("games456", "11333222456999条") == 2
    r = _calc("games456", "1133322245699条", "9s")
    assert r["fan"] == 3 and r["base"] == 4


def test_004_qingdui_4():
    """seed 004: "6清对玩家手上的牌是清一色的大对子。4番(×8)" """
    assert _score("games456", "111333555777m99m") == 3


def test_004_longqidui_5():
    """seed 004: "8龙七对在七对的基础上，有两对牌是四张一样的;5番(×16)". The seed's own
    七对 example "2244552299万1199筒" holds four 2万, so it is a 龙七对 by this row."""
    assert _score("games456", "1133446666m5588p") == 4
    assert _score("games456", "2244552299万1199筒") == 4


def test_004_tianhu_6():
    """seed 004: "11天胡打牌的过程中，庄家在第一次模完牌后，就胡牌，叫天胡。6番(×32)" """
    s = _score("games456", "23445677筒345789条", flags=fan.TIANHU | fan.ZIMO)
    assert s >= 5
    r = _calc("games456", "2344567p345789s", "7p", flags=fan.TIANHU | fan.ZIMO)
    assert r["base"] >= 32


def test_004_extras_one_fan_each():
    """seed 004: "1.) 杠上花：1番 ... 2.)杠上炮：1番 ... 3.)抢杠：加1番。4.)杠：加1番。
    5.) 根：1番，四张同样的牌不作杠算1根，胡牌时1根加1番。" """
    assert _score("games456", "23445677筒345789条", flags=fan.QIANGGANG) == 1
    k = (_m(meld.ZHIGANG, "9s"),)  # two suits: games456 needs 缺一门
    assert _score("games456", "23445677p345s", k) == 1  # 杠: 加1番
    assert _score("games456", "23445677p345s", (_m(meld.ZHIGANG, "9m"),)) == -1  # 3 suits
    assert _score("games456", "23445677p345s", k, flags=fan.GANGSHANGHUA | fan.ZIMO) == 2
    assert _score("games456", "23445677p345s", k, flags=fan.GANGSHANGPAO) == 2
    assert _score("games456", "234456p77p333345s") == 1  # 3333 not as a kong: 1根


def test_004_zimo_no_jiadi():
    """seed 004 计分规则 6: "自摸：包括杠上开花，所有未胡者扣除被自摸所得番数的分" (no 加底)"""
    r = _calc("games456", "1133322245699条", "9s", flags=fan.ZIMO)
    assert r["self_drawn_each"] == r["base"] == 4


def test_004_three_suits_is_no_win():
    """seed 004: "缺门可胡,即胡牌的时候不能有三种花色的牌" -- games456 declares no 定缺,
    so the calculator without --void must still refuse a three-suit hand."""
    r = _calc("games456", "123m456p789s1122s", "2s")
    assert r["win"] is False, r


def test_004_merged_rows_follow_the_first_row():
    """seed 004's 番数 column is a merged column: a figure stands on the first row of
    its group ("3清一色 ... 3番(×4)" then 带幺九 and 七对 without a figure; "6清对 ...
    4番(×8)" then 将对; "8龙七对 ... 5番(×16)" then 清七对 and 清幺九; "11天胡 ... 6番(×32)"
    then 地胡 and 青龙七对). Reading: 带幺九 3番, 七对 3番, 将对 4番, 清七对 5番,
    清幺九 5番, 地胡 6番, 青龙七对 6番 (清七对 5番 + its four, "算番时减 1根")."""
    assert _score("games456", "123条 123万 789条 789万 99万") == 2          # 带幺九 3番
    assert _score("games456", "2244557799万1199筒") == 2                  # 七对 3番
    assert _score("games456", "222万 555万 888万 222条 55条") == 3          # 将对 4番
    assert _score("games456", "11334466778899条") == 4                    # 清七对 5番
    assert _score("games456", "123条 123条 123条 789条 99条") == 4          # 清幺九 5番
    assert _score("games456", "23445677p345789s", flags=fan.DIHU | fan.ZIMO) >= 5  # 地胡 6番
    assert _score("games456", "11113355778899条") == 5                    # 青龙七对 6番


# =============================================================================
# rules-notes.md -> tfmj-2024: "Fan: 平胡 0, 对对胡 1, 清一色 2, 七对 2, 根 +1 each (a
# four-of-a-kind, also inside seven pairs), 金钩钓 +1, 海底 +1, 杠上花 +1, 杠上炮 +1,
# 抢杠胡 +1. 将对 and 龙七对 are not separate patterns (将对 is 对对胡; 龙七对 is 七对 +
# 根). Cap 3 fan. Basic value P = 2^min(fan, 3)."
# =============================================================================

def test_tfmj_base_patterns():
    assert _score("tfmj-2024", "123345789m23466p") == 0
    assert _score("tfmj-2024", "111333444m22266p") == 1
    assert _score("tfmj-2024", "12345678923455m") == 2
    assert _score("tfmj-2024", "1133557799m2244s") == 2


def test_tfmj_jiangdui_is_duiduihu_and_longqidui_is_qidui_plus_gen():
    """rules-notes: "将对 is 对对胡; 龙七对 is 七对 + 根" """
    assert _score("tfmj-2024", "222555888m22255p") == 1
    assert _score("tfmj-2024", "1111m3355m224466p") == 3
    assert _score("tfmj-2024", "1111m3333m224466p") == 4


def test_tfmj_plus_one_patterns():
    """rules-notes: "金钩钓 +1, 海底 +1, 杠上花 +1, 杠上炮 +1, 抢杠胡 +1" """
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("2p"))
    assert _score("tfmj-2024", "66p", melds) == 2  # 对对胡 1 + 金钩钓 1
    h = "123345789m23466p"
    for fl in (fan.HAIDI, fan.QIANGGANG, fan.HAIDI | fan.ZIMO):
        assert _score("tfmj-2024", h, flags=fl) == 1
    k = (_m(meld.ZHIGANG, "9m"),)
    assert _score("tfmj-2024", "123m456p789p55p", k, flags=fan.GANGSHANGHUA | fan.ZIMO) == 2
    assert _score("tfmj-2024", "123m456p789p55p", k, flags=fan.GANGSHANGPAO) == 2


def test_tfmj_cap_three_and_zimo_plus_one():
    """rules-notes: "Cap 3 fan. Basic value P = 2^min(fan, 3)." "自摸: every still-active
    opponent pays P + 1." "pays every ready player that player's best possible basic value
    (capped at 8)" """
    rs = presets.get("tfmj-2024")
    r = _calc(rs, "1122334455779m", "9m", flags=fan.ZIMO)
    assert r["fan"] == 3 and r["base"] == 8 and r["self_drawn_each"] == 9
    assert fan.base(rs, 7) == 8
    best = calc.best_wait(rs, P("1111223344557m"), (), -1)
    assert fan.base(rs, best[0]) == 8


# =============================================================================
# seed 000's 赤羽之战 column -> bloodshed. "注意：这里说到的“番”，是指和牌时中的倍数";
# "封顶：...32番封顶（赤羽之战）"; 龙七对 "按七对+1根处理".
# =============================================================================

def test_000_bloodshed_column():
    b = "bloodshed"
    assert _score(b, "123345789m23466p") == 0          # 基本和 1番 (x1)
    assert _score(b, "111333444m22266p") == 1          # 对对和 2番
    assert _score(b, "123 123 99万 123 789条") == 2     # 带幺九 4番
    assert _score(b, "12345678923455m") == 2           # 清一色 4番
    assert _score(b, "1133557799m2244s") == 2          # 七对 4番
    assert _score(b, "1111m3355m224466p") == 3         # 龙七对 = 七对 + 1根
    assert _score(b, "222555888m22255p") == 3          # 将对 8番 (not also 对对和: a bug)
    assert _score(b, "111333555777m99m") == 3          # 清对 8番
    assert _score(b, "123 123 123 789 99万") == 4       # 清幺九 16番 (not also 带幺: a bug)
    assert _score(b, "11223355668899m") == 4           # 清七对 16番


def test_000_bloodshed_jingoudiao_replaces_duiduihu():
    """seed 000 金钩钓: "累计碰牌或杠牌4次后单钓，不计对对和" (4番 = x4); 清金钩钓 16番"""
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("2p"))
    assert _score("bloodshed", "66p", melds) == 2
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("7m"))
    assert _score("bloodshed", "66m", melds) == 4


def test_000_bloodshed_extras_cap_and_zimo():
    """seed 000: 根/杠上花/杠上炮/抢杠胡/海底 "+1根"; 和绝张 不计; 自摸 "+1番" with the
    formula "[（牌型番数×2根数）+1]×底分"; 天和/地和 32番; 32番封顶."""
    h = "123345789m23466p"
    for fl in (fan.HAIDI, fan.QIANGGANG):
        assert _score("bloodshed", h, flags=fl) == 1
    assert _score("bloodshed", h, flags=fan.JUEZHANG) == 0
    assert _score("bloodshed", h, flags=fan.ZIMO) == 0
    assert _score("bloodshed", h, flags=fan.TIANHU | fan.ZIMO) >= 5
    r = _calc("bloodshed", "123345789m2346p", "6p", flags=fan.ZIMO)
    assert r["base"] == 1 and r["self_drawn_each"] == 2
    r = _calc("bloodshed", "1111335577889m", "9m", flags=fan.HAIDI)
    assert r["base"] == 32  # 清七对 16 x 根 x 海底 = 64, capped at 32


def test_000_bloodshed_jiangdui_jingoudiao_is_32():
    """seed 000 金钩钓: "可以与将对复合成32番的番型" (将对 8 x 金钩钓 4)"""
    melds = (_peng("2m"), _peng("5m"), _peng("8m"), _peng("2p"))
    assert _score("bloodshed", "55p", melds) == 5
    r = _calc("bloodshed", "5p", "5p", melds)
    assert r["base"] == 32


def test_002_every_four_is_a_gen():
    """seed 002: "整手牌里每有四张一模一样的牌就是一根，加一番，有几种就加几番。这四张不一定要
    杠出来" """
    k = (_m(meld.ANGANG, "9m"),)
    assert _score("xuezhan", "111123m456p55p", k) == 2   # 暗杠 9m + four 1m
    assert _score("xuezhan", "111123m456p55p", (_peng("9m"),)) == 1
    kongs = (_m(meld.ANGANG, "1m"), _m(meld.ZHIGANG, "3m"), _m(meld.BUGANG, "4m"),
             _m(meld.ANGANG, "2p"))
    # 金钩钓 on four kongs: 碰碰胡 1 + 金钩钓 1 + 4 根 = 6, paid at the cap
    assert _score("xuezhan", "66p", kongs) == 6
    r = _calc("xuezhan", "6p", "6p", kongs)
    assert r["fan"] == 4 and r["base"] == 16


def test_a_hand_that_reads_two_ways_takes_the_larger():
    """Issue 2: "For each wait, the largest value it can score"; 111 222 333 is three
    pungs or three runs: as pungs the hand is 碰碰胡 (seed 002 "四组都是刻子或杠")."""
    assert _score("xuezhan", "111222333m44499p") == 1
    assert _score("chengdu", "111222333m44499p") == 1
    # 11223344556677 (one suit): 123 123 456 456 77 or seven pairs -> 清一色 + 七对
    assert _score("xuezhan", "11223344556677m") == 4


def test_001_longqidui_four_cannot_be_a_kong():
    """seed 001 龙七对: "注意：四张相同的牌不能杠出。" -- with the four shown as a kong the
    rest is five pairs: no 七对."""
    assert _score("chengdu", "1133557799m", (_m(meld.ANGANG, "6m"),)) == -1
    assert _score("xuezhan", "1133557799m", (_m(meld.ANGANG, "6m"),)) == -1


def test_waits_result_void_in_melds_has_no_wait():
    """seed 002: "胡牌时手牌和碰杠出去的牌里都不能有这一门"; "胡牌时手里只能剩两门" """
    rs = presets.get("xuezhan")
    assert calc.waits_result(rs, P("123345789m6p"), (_peng("2p"),), 1) == {"waits": []}
    assert calc.waits_result(rs, P("123345789m6p"), (_peng("2p"),), 2) == {"waits": ["6p"]}
    assert calc.waits_result(rs, P("123345789m6p"), (_peng("2p"),), -1) == {"waits": ["6p"]}
    # three suits counting the meld: no void named, still no wait (两门 only)
    for void in (-1, 0, 1, 2):
        assert calc.waits_result(rs, P("123345789m6s"), (_peng("2p"),), void) == {"waits": []}


# =============================================================================
# bad input at the fan/calculator level
# =============================================================================

def test_not_a_win_is_minus_one():
    rs = presets.get("xuezhan")
    assert fan.score(rs, P("123345789m23467p")) == -1
    assert fan.score(rs, P("123345789m2346p")) == -1  # 13 tiles
    assert fan.score(rs, P("123345789m234666p")) == -1  # 15 tiles


def test_calc_wrong_tile_counts_raise():
    rs = presets.get("xuezhan")
    raises(ValueError, calc.calc_result, rs, P("123345789m234p"), F("6p"))       # 12
    raises(ValueError, calc.calc_result, rs, P("123345789m23466p"), F("6p"))     # 14
    raises(ValueError, calc.calc_result, rs, P("123345789m2346p"), F("6p"), (_peng("1s"),))
    raises(ValueError, calc.waits_result, rs, P("2223678789m123456p"))          # 16 (seed 001)
    raises(ValueError, calc.waits_result, rs, P("22m"), (_peng("1s"),) * 5)


def test_calc_more_than_four_copies_raise():
    rs = presets.get("xuezhan")
    # a fifth 6p as the winning tile
    raises(ValueError, calc.calc_result, rs, P("123345789m6666p"), F("6p"))
    # four concealed plus a 碰 of the same face
    raises(ValueError, calc.calc_result, rs, P("1111m23m456p9p"), F("9p"), (_peng("1m"),))
    raises(ValueError, calc.waits_result, rs, P("1111m23m456p9p"), (_peng("1m"),))


def test_calc_leaves_the_hand_alone():
    rs = presets.get("xuezhan")
    c = P("123345789m2346p")
    before = bytes(c)
    calc.calc_result(rs, c, F("6p"))
    calc.waits_result(rs, c)
    calc.best_wait(rs, c)
    assert bytes(c) == before


def test_best_wait_counts_meld_copies():
    """Issue 2: "A wait that needs a fifth copy is not a wait." A 单钓 on 9万 with a 碰
    of 9万 shown waits on a fifth copy: no wait, so nothing for 查大叫."""
    rs = presets.get("xuezhan")
    hand = P("123m456p789p9m")
    assert calc.best_wait(rs, hand, (_peng("1s"),), 2) == (-1, -1)  # three suits
    assert calc.best_wait(rs, hand, (_peng("1p"),), 2) == (0, F("9m"))
    assert calc.best_wait(rs, P("123m456p789p9m"), (_peng("9m"),), 2) == (-1, -1)
    assert calc.waits_result(rs, hand, (_peng("9m"),), 2) == {"waits": []}


def test_waits_result_names_in_face_order():
    """seed 001 坎倒板赶场叫: "11123456万 123 55筒，胡147万带5筒" """
    rs = presets.get("chengdu")
    assert calc.waits_result(rs, P("11123456万 123 55筒")) == {"waits": ["1m", "4m", "7m", "5p"]}
    best = calc.best_wait(rs, P("11123456万 123 55筒"), (), 2)
    assert best == (1, F("1m"))  # 1111m: a 根
    assert calc.best_wait(rs, P("11123456万 123 55筒"), (), 2, False)[0] == 0
    assert calc.best_wait(rs, P("11123456万 123 59筒"), (), 2) == (-1, -1)


def _alloc_per_call(fn, *args):
    """Bytes of heap one call allocates once warm; 0 where the interpreter cannot
    tell (CPython has no gc.mem_alloc: the property is MicroPython's)."""
    import gc

    if not hasattr(gc, "mem_alloc"):
        return 0
    fn(*args)
    fn(*args)
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(20):
        fn(*args)
    return (gc.mem_alloc() - before) // 20


def test_score_allocates_nothing_on_micropython():
    """issue 2: "The core allocates nothing per call on its hot paths once warm" --
    scoring runs once per wait in 查大叫 (best_wait) and on every win."""
    out = bytearray(R.NPATTERNS)
    melds = (_peng("1m"), _peng("3m"), _peng("4m"), _peng("2p"))
    cases = (
        ("xuezhan", "123345789m23466p", ()),
        ("xuezhan", "11112233445577m", ()),
        ("xuezhan", "66p", melds),
        ("chengdu", "123 123 99万 123 789条", ()),
        ("bloodshed", "123 123 123 789 99万", ()),
        ("games456", "123条 123万 789条 789万 99万", ()),
        ("xuezhan", "123m99m456p678p", (_m(meld.ANGANG, "7m"),)),
    )
    for name, hand, ms in cases:
        rs = presets.get(name)
        c = P(hand)
        n = _alloc_per_call(fan.score, rs, c, ms, -1, fan.ZIMO, out)
        assert n == 0, (name, hand, n)
