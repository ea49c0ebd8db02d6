"""Presets (sichuan.presets): the names, and each preset's parameters against
the words of the seed it follows.

Issue 2: "`xuezhan`: seed 002, 血战到底, 4 fan cap, base 2^fan, 自摸 +1 each.
`xueliu`: seed 002, 血流成河 (scoring as `xuezhan`). `tfmj-2024`: T/TFMJ 01—2024
per rules-notes.md, 3 fan cap. `chengdu`: seeds 001/003, the 幺二四八 multiplier
table ..., 根 doubles, 满格 cap 8 ..., 自摸加底. `games456`: seed 004
(2^(fan-1), 查花猪 8, its 13 patterns, 天胡/地胡). `bloodshed`: seed 000's
赤羽之战 column (32 fan cap) and rules-notes.md."
"""

from check import raises
from sichuan import fan, presets
from sichuan import ruleset as R

NAMES = ("xuezhan", "xueliu", "tfmj-2024", "chengdu", "chengdu_jiaoma", "games456", "bloodshed",
         "erren", "sanren", "duankagen", "duankagen_erheyi", "duankagen_zimo", "yibin")


def _p(name, key):
    return presets.get(name)[R.param_id(key)]


def _fans(name):
    rs = presets.get(name)
    return {R.PATTERNS[i]: rs.fan(i) for i in range(R.NPATTERNS) if rs.fan(i) != R.NONE}


def test_names_in_order():
    assert tuple(presets.names()) == NAMES


def test_every_preset_is_valid_and_named():
    for n in NAMES:
        rs = presets.get(n)
        assert rs.name == n
        rs.check()
        assert len(rs.values) == R.NPARAMS


def test_unknown_preset_lists_the_names():
    e = raises(KeyError, presets.get, "sichuan")
    msg = str(e.args[0]) if e.args else str(e)
    for n in NAMES:
        assert n in msg, msg
    raises(KeyError, presets.get, "")
    raises(KeyError, presets.get, "Xuezhan")


def test_get_returns_a_fresh_ruleset():
    a = presets.get("xuezhan")
    a.set(R.P_CAP, 1)
    assert presets.get("xuezhan")[R.P_CAP] == 4
    b = presets.get("xueliu")  # built on xuezhan: must not see the change either
    assert b[R.P_CAP] == 4


# ---- seed 002: xuezhan / xueliu ------------------------------------------------

def test_xuezhan_nine_patterns():
    """seed 002: "本站一共 9 个番型": 平胡0 碰碰胡1 七对2 清一色2 金钩钓1 根1 杠上花1
    抢杠胡1 海底1 (and nothing else)."""
    assert _fans("xuezhan") == {
        "pinghu": 0, "duiduihu": 1, "qidui": 2, "qingyise": 2, "jingoudiao": 1,
        "gen": 1, "gangshanghua": 1, "qiangganghu": 1, "haidi": 1,
    }


def test_xuezhan_scoring():
    """seed 002: "本站 4 番封顶"; "基本值就是 2 的这么多次方"; "自摸由每一位还要付钱的人各付
    "基本值 + 1""; "本站一场打 8 手，每人从 100 分起算" """
    rs = presets.get("xuezhan")
    assert rs[R.P_CAP] == 4 and rs[R.P_ZIMO_BONUS] == 1 and rs[R.P_BASE_POINTS] == 1
    assert rs[R.P_FAN_SHOWN_OFFSET] == 0
    assert [fan.base(rs, f) for f in range(7)] == [1, 2, 4, 8, 16, 16, 16]
    assert fan.zimo_each(rs, 2) == 5
    assert rs[R.P_HANDS] == 8 and rs[R.P_START_POINTS] == 100
    assert rs[R.P_PLAYERS] == 4 and rs[R.P_HAND_SIZE] == 13  # "每人 13 张"


def test_xuezhan_table_rules():
    """seed 002: 血战到底 "在第三家胡牌或者牌墙摸完时结束"; 换三张 "有三种" directions;
    定缺; "补杠时别人可以抢杠胡"; "补杠不要求是刚摸到第四张时马上补 ... 照样每家收 1";
    暗杠 "甲、丙、丁各付 2 分"; "不开"呼叫转移""; "本站没有"过手胡"限制" """
    rs = presets.get("xuezhan")
    assert rs[R.P_MODE] == R.MODE_XUEZHAN and rs[R.P_MAX_WINNERS] == 3
    assert rs[R.P_HUANSANZHANG] == 1 and rs[R.P_HSZ_DIRS] == 7 and rs[R.P_DINGQUE] == 1
    assert rs[R.P_QIANGGANG] == 1 and rs[R.P_BUGANG_WHEN] == 0
    assert rs[R.P_GANG_BU] == 1 and rs[R.P_GANG_AN] == 2
    assert rs[R.P_ZHUANYI] == 0 and rs[R.P_GUOSHOU] == 0
    assert rs[R.P_GANG_PAYERS] == 0  # "血战到底里只算还在桌上的人"


def test_xuezhan_end_of_hand():
    """seed 002: 花猪 "向每一位不是花猪的玩家各付 16 分，胡过的人也照收"; 查叫 "付对方能胡的
    最大基本值"; "花猪不再重复付这一笔"; "只看牌形 ... 也算听牌"; 退杠钱 "没听牌的人（包括
    花猪）" """
    rs = presets.get("xuezhan")
    assert rs[R.P_HUAZHU] == 16 and rs[R.P_HUAZHU_PAYEES] == 0
    assert rs[R.P_CHAJIAO] == 1 and rs[R.P_HUAZHU_CHAJIAO] == 0
    assert rs[R.P_SIJIAO] == 1 and rs[R.P_TUIGANG] == 1


def test_xueliu_differs_only_where_seed002_says():
    """seed 002: "胡了留在桌上还能接着胡的叫血流成河"; "两种打法的开局、胡牌条件和番数完全
    一样"; "血流成河里其他三家都付，包括胡过的"; "血流成河一直打到牌墙摸完" """
    a = presets.get("xuezhan")
    b = presets.get("xueliu")
    assert b[R.P_MODE] == R.MODE_XUELIU and b[R.P_XUELIU_LOCK] == 1
    assert b[R.P_GANG_PAYERS] != a[R.P_GANG_PAYERS]
    for pid in range(R.P_FAN0, R.NPARAMS):
        assert a[pid] == b[pid], R.param_name(pid)
    for key in ("cap", "zimo_bonus", "base_points", "huansanzhang", "dingque", "huazhu",
                "hands", "start_points"):
        assert _p("xueliu", key) == _p("xuezhan", key), key


# ---- rules-notes: tfmj-2024 ------------------------------------------------------

def test_tfmj_fans_and_cap():
    """rules-notes: "Fan: 平胡 0, 对对胡 1, 清一色 2, 七对 2, 根 +1 each ..., 金钩钓 +1, 海底 +1,
    杠上花 +1, 杠上炮 +1, 抢杠胡 +1. 将对 and 龙七对 are not separate patterns ... Cap 3" """
    assert _fans("tfmj-2024") == {
        "pinghu": 0, "duiduihu": 1, "qingyise": 2, "qidui": 2, "gen": 1, "jingoudiao": 1,
        "haidi": 1, "gangshanghua": 1, "gangshangpao": 1, "qiangganghu": 1,
    }
    rs = presets.get("tfmj-2024")
    assert rs[R.P_CAP] == 3 and rs[R.P_ZIMO_BONUS] == 1
    assert [fan.base(rs, f) for f in range(6)] == [1, 2, 4, 8, 8, 8]


def test_tfmj_table_rules():
    """rules-notes: "No 换三张"; "The fourth tile of a 补杠 must be the tile drawn that
    same turn"; 呼叫转移 "each receives ceil(income / winners), the discarder making up
    the rounding" with "a chain of consecutive kongs"; "No forced win in the last four
    tiles"; 过胡 "may not win with the same or a lower fan value"; "no fixed 花猪
    penalty"; "refunds all kong income first, then pays"; "Kong money ... 暗杠 2 ...
    直杠 2 ... 补杠 1"; "A match: 8 hands" """
    rs = presets.get("tfmj-2024")
    assert rs[R.P_HUANSANZHANG] == 0 and rs[R.P_DINGQUE] == 1
    assert rs[R.P_BUGANG_WHEN] == 2
    assert rs[R.P_ZHUANYI] == 2 and rs[R.P_ZHUANYI_CHAIN] == 1
    assert rs[R.P_LAST4_FORCED] == 0 and rs[R.P_GUOSHOU] == 2
    assert rs[R.P_HUAZHU] == 0 and rs[R.P_TUIGANG_FIRST] == 1 and rs[R.P_HUAZHU_CHAJIAO] == 1
    assert rs[R.P_GANG_AN] == 2 and rs[R.P_GANG_ZHI] == 2 and rs[R.P_GANG_BU] == 1
    assert rs[R.P_HANDS] == 8 and rs[R.P_MAX_WINNERS] == 3 and rs[R.P_QIANGGANG] == 1
    assert rs[R.P_HAIDI_GANG] == 0  # "A kong needs a replacement tile to exist"


# ---- seeds 001/003: chengdu ----------------------------------------------------

def test_chengdu_yao_er_si_ba():
    """seed 001: 平胡 ×1, 大对子 ×2, 清一色 ×4, 清对 ×8, 暗七对 ×4, 龙七对 ×8, 清七对 ×16,
    清龙七对 ×32; "带根 ... 每一根翻倍"; "实际中基础牌型一般8番封顶（满格）。打1为1,2,4,8
    （幺二四八）" """
    rs = presets.get("chengdu")
    want = {"pinghu": 0, "duiduihu": 1, "qingyise": 2, "qingdui": 3, "qidui": 2,
            "longqidui": 3, "qingqidui": 4, "qinglongqidui": 5, "gen": 1}
    for k, v in want.items():
        assert rs.fan(R.PATTERNS.index(k)) == v, k
    assert rs[R.P_CAP] == 3 and rs[R.P_FAN_SHOWN_OFFSET] == 1
    assert [fan.base(rs, f) for f in range(5)] == [1, 2, 4, 8, 8]
    assert rs[R.P_ZIMO_BONUS] == 1  # 自摸加底
    assert fan.zimo_each(rs, 2) == 5  # "每人给4（基础番数）+1（自摸加底）共5倍底金"


def test_chengdu_table_rules():
    """seed 001 游戏规则: "6、杠上炮时，点炮者将刚杠所得转移给被点炮者"; "7、别人打出的牌引杠，
    再杠上花，算自摸"; "8、最后四张牌打出必须胡牌"; "9、赔叫赔大"; "10、死叫算叫"; "5、...在同一
    圈内不能胡另一人打出的相同的牌直到自己摸牌，但不相同的可以胡"; 弯杠 "插入牌堆后再拿出来杠
    就不结算这个杠"; 暗杠 2, 直杠 2, 弯杠 1; 花猪 "给所有未胡且非花猫的人赔满格" """
    rs = presets.get("chengdu")
    assert rs[R.P_ZHUANYI] >= 1
    assert rs[R.P_DIANGANG_HUA] == 0
    assert rs[R.P_LAST4_FORCED] == 1
    assert rs[R.P_CHAJIAO] == 1 and rs[R.P_SIJIAO] == 1
    assert rs[R.P_GUOSHOU] == 1
    assert rs[R.P_BUGANG_WHEN] == 1
    assert rs[R.P_GANG_AN] == 2 and rs[R.P_GANG_ZHI] == 2 and rs[R.P_GANG_BU] == 1
    assert rs[R.P_HUAZHU] == -1 and rs[R.P_HUAZHU_PAYEES] == 1
    assert rs[R.P_DINGQUE] == 1  # "定张：在一局的开始定下不要哪门牌，以后不能改"


# ---- seed 004: games456 --------------------------------------------------------

def test_games456_scoring():
    """seed 004: "对应所得分的倍数为2的(番数减1)次方"; "花猪赔给非花猪玩家8倍点数";
    "自摸：...所有未胡者扣除被自摸所得番数的分" (no 加底); no cap is stated"""
    rs = presets.get("games456")
    assert rs[R.P_FAN_SHOWN_OFFSET] == 1
    assert rs[R.P_HUAZHU] == 8
    assert rs[R.P_ZIMO_BONUS] == 0
    assert rs[R.P_CAP] == -1
    assert fan.base(rs, 5) == 32 and fan.base(rs, 9) == 512


def test_games456_thirteen_patterns_and_extras():
    """seed 004 (四)和牌的特殊牌型: 平胡 对对胡 清一色 带幺九 七对 清对 将对 龙七对 清七对
    清幺九 天胡 地胡 青龙七对; 另加番: 杠上花 杠上炮 抢杠 杠 根 (1番 each)"""
    f = _fans("games456")
    for k in ("pinghu", "duiduihu", "qingyise", "daiyaojiu", "qidui", "qingdui", "jiangdui",
              "longqidui", "qingqidui", "qingdaiyao", "tianhu", "dihu", "qinglongqidui"):
        assert k in f, k
    for k in ("gangshanghua", "gangshangpao", "qiangganghu", "gen"):
        assert f[k] == 1, k
    assert f["pinghu"] == 0 and f["duiduihu"] == 1 and f["qingyise"] == 2
    assert f["qingdui"] == 3 and f["longqidui"] == 4 and f["tianhu"] == 5
    for k in ("jingoudiao", "haidi", "juezhang", "menqing", "duanyaojiu"):
        assert k not in f, k


def test_games456_table_rules():
    """seed 004: "当手牌只剩最后四张时,能胡则系统强制胡"; 直杠 "立刻收取引杠者1倍点数";
    面下杠 "立刻收取其他未胡者1倍点数"; 下雨 "立刻收取其他未胡者2倍点数"; 杠上花 "如果某个玩家
    放杠给另一个玩家，此时被杠上开花胡牌后，需要包掉另外两家所输的分"; "缺门可胡,即胡牌的时候
    不能有三种花色的牌" """
    rs = presets.get("games456")
    assert rs[R.P_LAST4_FORCED] == 1
    assert rs[R.P_GANG_ZHI] == 1 and rs[R.P_GANG_BU] == 1 and rs[R.P_GANG_AN] == 2
    assert rs[R.P_DIANGANG_HUA] == 1
    assert rs[R.P_DINGQUE] == 2
    assert rs[R.P_HUANSANZHANG] == 0


# ---- seed 000: bloodshed ---------------------------------------------------------

def test_bloodshed_column_and_cap():
    """seed 000: "封顶：...32番封顶（赤羽之战）"; "赤羽之战 规则基本与血流成河玩法相同，但是一场要
    进行四局"; 番种一览 赤羽之战 column (multipliers -> doublings)."""
    rs = presets.get("bloodshed")
    assert rs[R.P_CAP] == 5 and fan.base(rs, 9) == 32
    assert rs[R.P_MODE] == R.MODE_XUELIU and rs[R.P_HANDS] == 4
    f = _fans("bloodshed")
    want = {"pinghu": 0, "duiduihu": 1, "daiyaojiu": 2, "qingyise": 2, "jingoudiao": 2,
            "qidui": 2, "jiangdui": 3, "qingdui": 3, "qingdaiyao": 4, "qingjingoudiao": 4,
            "qingqidui": 4, "tianhu": 5, "dihu": 5, "gen": 1, "gangshanghua": 1,
            "gangshangpao": 1, "qiangganghu": 1, "haidi": 1}
    for k, v in want.items():
        assert f.get(k) == v, (k, f.get(k))
    for k in ("menqing", "duanyaojiu", "juezhang"):  # 不计
        assert k not in f, k
    assert rs[R.P_ZIMO_BONUS] == 1  # 自摸 "+1番": "[（牌型番数×2根数）+1]×底分"


def test_bloodshed_exhaustion():
    """seed 000: "花猪赔给非花猪玩家16倍点数"; "查大叫：...赔给听牌的玩家最大的可能番";
    rules-notes: "换三张 in one suit then 定缺; losers pay the highest possible score" """
    rs = presets.get("bloodshed")
    assert rs[R.P_HUAZHU] == 16 and rs[R.P_CHAJIAO] == 1
    assert rs[R.P_HUANSANZHANG] == 1 and rs[R.P_DINGQUE] == 1
