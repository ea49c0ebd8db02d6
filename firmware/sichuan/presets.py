"""Named rulesets, each following the seed passages it cites.

Seeds are ../shared/seeds/NNN_*.txt (Chinese rule texts); `rules-notes` is
../shared/rules-notes.md. Fan values are doublings (x1 = 0, x2 = 1, x4 = 2,
x8 = 3, x16 = 4, x32 = 5); a seed that counts 1番 = x1 keeps its numbers on
screen with fan_shown_offset = 1. Where a seed is ambiguous the reading taken
is stated next to the value.
"""

from . import ruleset as R

# Each preset: (name, base preset or None, "parameter=value ...", "pattern=value
# ..."): parameter overrides, then fan values by pattern name (`qidui=2` sets
# fan.qidui). The overrides stay text, in flash on the board, until a preset
# is loaded. They name only what differs from the base (or, with no base, from
# the defaults in sichuan.ruleset: seed 002's values); the comment above each
# preset gives its seed's whole column, and tests/core/test_presets.py checks it.
_PRESETS = (
    # Seed 002 (本站 rules): 血战到底, 4 番封顶, 基本值 = 2^番, 自摸 "基本值 + 1".
    #   番型表: 平胡 0, 碰碰胡 1, 七对 2, 清一色 2, 金钩钓 1, 根 1, 杠上花 1,
    #   抢杠胡 1, 海底 1 ("本站一共 9 个番型"). 七对 with a four: "这四张还算一根".
    #   Kongs: 暗杠 2 each (worked example "甲、丙、丁各付 2 分"); 补杠 "每家收 1",
    #   any time ("补杠不要求是刚摸到第四张时马上补"); 直杠: the seed's amount
    #   is not in the text; reading: 2 from the discarder, as seeds 000/001.
    #   "不开呼叫转移"; "本站没有过手胡限制". 流局: 花猪 "向每一位不是花猪的玩家
    #   各付 16 分，胡过的人也照收"; 查叫 "最大基本值 ... 最多 16", "花猪不再重复
    #   付这一笔", "只看牌形" (死叫 counts); 退杠钱 by "没听牌的人（包括花猪）".
    #   "本站一场打 8 手，每人从 100 分起算". 换三张: "交换方向每一手随机定一次"
    #   (three directions). Next dealer: not in seed 002; reading: seed 001's
    #   "由上一局第一个胡牌者当庄，若是一炮双响或一炮三响，由放炮者当庄".
    ("xuezhan", None,
     "",
     ""),
    # Seed 002, 血流成河: "胡了留在桌上还能接着胡"; the lock after the first win
    #   ("不胡就只能打出刚摸到的那张；不能碰，不能补杠，暗杠只有在不改变听哪几张牌
    #   时才允许"); "血流成河里其他三家都付，包括胡过的" for self-draws and kongs;
    #   "一直打到牌墙摸完". Scoring as xuezhan.
    ("xueliu", "xuezhan",
     "mode=1 gang_payers=1 max_winners=4",
     ""),
    # rules-notes.md, T/TFMJ 01-2024: no 换三张, 定缺 at once; cap 3; fan 平胡 0,
    #   对对胡 1, 清一色 2, 七对 2, 根 1 (inside seven pairs too), 金钩钓 1, 海底 1,
    #   杠上花 1, 杠上炮 1, 抢杠胡 1; 龙七对 = 七对 + 根, 将对 = 对对胡. 自摸 P + 1.
    #   Kongs 暗杠 2 each, 直杠 2, 补杠 1 each; "The fourth tile of a 补杠 must be
    #   the tile drawn that same turn" (a late 补杠 is refused). 呼叫转移 with
    #   ceil split, chains of kongs. 过胡: same or lower fan until the next draw.
    #   No forced last-four win. Exhaustion: no fixed 花猪 penalty (a void-holder
    #   is not ready): refund kong income first, then pay each ready player
    #   their best capped value. Starting points: not given; reading: 0.
    ("tfmj-2024", "xuezhan",
     "huansanzhang=0 cap=3 bugang_when=2 zhuanyi=2 zhuanyi_chain=1 guoshou=2 huazhu=0"
     " huazhu_chajiao=1 tuigang_first=1 start_points=0",
     "gangshangpao=1"),
    # Seeds 001/003 (成都): 幺二四八 multipliers, 番 counted from 1 ("平胡 1番；×1倍",
    #   "大对子 2番；×2倍", "清一色 3番；×4倍", "清对 4番；×8倍", "暗七对 3番；×4倍",
    #   "龙七对 4番；×8倍 ... 每多一根翻倍", "清七对 5番；×16倍", "清龙七对 6番；×32倍");
    #   the dragon's own four is its 根. 杠上花/杠上炮/抢杠胡/带根 double. "实际中基础
    #   牌型一般8番封顶（满格）" -> cap x8 (16, 64 or none by override). 自摸加底.
    #   The 特殊算法 (金钩钓, 带幺, 清带幺, 将对) and 海底/绝张 are "部分地区 ... 需商议",
    #   so off here (examples/rules turns them on). 天胡/地胡 "可以按满格处理".
    #   Kongs: 暗杠 2 each unwon, 直杠 2 from the giver, 弯杠 1 each unwon, and "弯杠
    #   摸起来的牌必须马上杠 ... 不结算这个杠". Rules 5-10: 过手胡 same tile; 杠上炮
    #   transfers the kong's money, each winner paid in full; 点杠花 is 自摸; 最后四张
    #   必胡; 赔叫赔大; 死叫算叫. 花猪 "给所有未胡且非花猫的人赔满格". No 换三张 in
    #   these seeds (定张 only).
    ("chengdu", None,
     "huansanzhang=0 fan_shown_offset=1 cap=3 gen_in_longqidui=0 tianhu_alone=1 bugang_when=1"
     " zhuanyi=1 guoshou=1 last4_forced=1 huazhu=-1 huazhu_payees=1",
     "qingdui=3 longqidui=3 qingqidui=4 qinglongqidui=5 jingoudiao=none gangshangpao=1"
     " haidi=none tianhu=cap dihu=cap"),
    # Seeds 001/003 叫马（买马）, on the 成都 rules they belong to: "打牌的人数多于四人 ...
    #   该玩家可以“叫马”"; "打牌玩家拿好牌后，叫马者从牌堆尾部随机抽走一张牌视为叫马牌，
    #   不做公示。然后自己根据牌上的点数从庄家起沿出牌方向数，叫马者将与数到的玩家绑定。
    #   牌局结束后，叫马者与被叫者将是同样的输赢" (the engine's MA action). Reading
    #   (docs/engine.md, 叫马): each payment to or from the bound seat is matched
    #   between the 马 and the same counterpart, so "+ 叫马" in "结算 = (... + 叫马) *
    #   底金" is that side payment; the 马's total is kept beside the four seats'.
    ("chengdu_jiaoma", "chengdu",
     "jiaoma=1",
     ""),
    # Seed 004 (456 游戏中心): 倍数 = 2^(番数-1); "1平胡 ... 1番(×1)", "2对对胡 ... 2番(×2)",
    #   "3清一色 ... 3番(×4)", "6清对 ... 4番(×8)", "8龙七对 ... 5番(×16)", "11天胡 ...
    #   6番(×32)". The 番数 column is merged: a figure stands on the first row of its
    #   group and the rows below it without one share it. Reading: 带幺九, 七对 3番;
    #   将对 4番; 清七对, 清幺九 5番; 地胡, 青龙七对 6番 (青龙七对 "算番时减1根": its own
    #   four is not a 根 again). 杠上花, 杠上炮, 抢杠, 杠, 根 each 1番 (a kong is a 根).
    #   No cap stated. No 加底 ("所有未胡者扣除被自摸所得番数的分"). Kongs: 直杠 1 from
    #   the giver, 面下杠 1 each unwon, 暗杠 2 each unwon. 点杠花: the giver "包掉另外
    #   两家". 杠上炮 transfers the kong's money. 花猪 "赔给非花猪玩家8倍点数" (reading:
    #   players still in the hand). 最后四张 强制胡. 坐庄 "血战：每局随机". 缺一门
    #   without a declared 定缺 ("缺门可胡", 花猪 = 3 门).
    ("games456", None,
     "huansanzhang=0 dingque=2 fan_shown_offset=1 cap=-1 zimo_bonus=0 gen_in_longqidui=0"
     " gang_zhi=1 diangang_hua=1 zhuanyi=1 last4_forced=1 huazhu=8 huazhu_payees=1"
     " dealer_next=4",
     "daiyaojiu=2 qingdui=3 jiangdui=3 longqidui=4 qingqidui=4 qingdaiyao=4 qinglongqidui=5"
     " jingoudiao=none haidi=none tianhu=5 dihu=5 gangshangpao=1"),
    # Seed 000, 赤羽之战 column ("规则基本与血流成河玩法相同，但是一场要进行四局"):
    #   multipliers 平胡 1, 对对胡 2, 带幺九 4, 清一色 4, 金钩钓 4 ("不计对对和"),
    #   七对 4 (two equal pairs: "按七对+1根处理"), 将对 8, 清对 8, 清带幺 16,
    #   清金钩钓 16, 清七对 16, 天胡/地胡 32, 根/杠上花/杠上炮/抢杠胡/海底 +1根,
    #   自摸 "+1番" (the 计番原则 formula: [(番数×2^根数)+1] = 加底), 32番封顶.
    #   门清, 断幺九, 绝张 不计. rules-notes: 换三张 in one suit then 定缺; losers pay
    #   the highest possible score. Seed 000 通用规则: 花猪 16, 最后四张自动和,
    #   禁止弃先和后, 海底牌不能杠; kongs "在场未和的玩家赔付" (read literally:
    #   those who have not won), 补杠 "只有立即补杠才能计分"; 自摸 "在场的其余玩家赔付
    #   自摸者" (血流: every other seat, winners too).
    ("bloodshed", "xueliu",
     "hands=4 cap=5 jgd_absorbs_dd=1 gang_payers=2 bugang_when=1 guoshou=1 last4_forced=1"
     " zhuanyi=1 zimo_payers=1",
     "daiyaojiu=2 jingoudiao=2 jiangdui=3 qingdui=3 qingdaiyao=4 qingjingoudiao=4 qingqidui=4"
     " tianhu=5 dihu=5 gangshangpao=1"),
    # Seed 000 二人玩法: its passage gives the deal ("跳牌：摸牌时闲家摸13张牌，庄家摸14张牌")
    #   and terms (天缺, 搭子, 根, 绝张 ...), no separate scoring. Reading: two seats play
    #   the 成都/seed 002 血战 rules with all 108 tiles; 换三张 goes to the one opponent
    #   (either direction), and the hand ends with the first win (one player left).
    ("erren", "xuezhan",
     "players=2 hsz_dirs=3 max_winners=1",
     ""),
    # Three players (三人两房, a common house rule; no seed passage): reading: the 万 suit
    #   is removed (72 tiles of 筒 and 条, as 断卡根's "只用条子和筒子牌，共72张"), 13-tile
    #   hands, and with two suits there is no 定缺 and so no 花猪 (a void would force
    #   清一色). 换三张 clockwise or counter-clockwise (no seat across); the hand ends at
    #   two winners. Scoring as xuezhan.
    ("sanren", "xuezhan",
     "players=3 suits=6 dingque=0 huazhu=0 hsz_dirs=3 max_winners=2",
     ""),
    # Seed 000 断卡根玩法: "只用条子和筒子牌，共72张"; "允许三人或四人，甚至...5人" (4 here;
    #   players 3 or 5 by override); "每家只拿10张牌...头家不跳牌。头家在所有人拿完牌后再摸一张，
    #   补作11张"; "不定缺，也没有查花猪"; "海底牌不能碰杠"; kongs "不分直弯杠，只要一家开杠，
    #   还在场的所有家都要赔喜" (reading: 1 unit from each seat still in, for any kong);
    #   "不兴及时雨" (reading: no 呼叫转移). 报胡 "在自家摸牌前", then only draw and
    #   discard, a kong only if still ready, a passed win bars all later wins, and
    #   "他家自摸或自家点炮，赔付番数+1". 请胡: five pairs after a draw, the single
    #   discarded; won by another: 请胡炮 "+3". "小胡（无番胡）不能胡", except on a
    #   报胡 seat's or a 请胡 discard. 查叫 pays "点炮的最大番数"; 小胡, 请胡 and 素卡
    #   waits are no 叫 (硬卡 is). Fan column (番 added): 断幺九 1, 对对胡 1, 带幺九 3,
    #   清一色 2, 金钩钓 "只记对对胡1番", 请胡 2 (自摸, 加计自摸 = 自摸加底), 将对 4,
    #   清对/清金钩钓 = 清一色 + 对对 3, 清带幺 "5番超叫记作4番", 清七对 = 请胡 + 清一色 4,
    #   天胡/地胡 3 (地胡 "不计报胡"), 根 each 1, 自摸 "多算一底分", 杠上花/杠上炮/
    #   抢杠胡/海底 1, 和绝张 不计, 卡 each 1 (自摸), 硬卡 1 (点炮), 报胡 2. "赔付会随番数
    #   分为四档：1番、2番、3番为极品、4番及以上为超叫": reading: 番 are doublings
    #   (1番 pays 2, 2番 4, 3番 8, 超叫 16 base points) capped at 4. 通用规则: 最后四张
    #   自动和, 禁止弃先和后 (same tile), 退杠钱 by a seat not ready. The hand ends when
    #   one player is left ("只剩一家没胡牌").
    ("duankagen", "xuezhan",
     "suits=6 hand_size=10 huansanzhang=0 dingque=0 huazhu=0 max_winners=4 haidi_claim=0"
     " gang_zhi=1 gang_zhi_others=1 gang_an=1 guoshou=1 last4_forced=1 xiaohu=0 baohu=1"
     " baohu_fan=2 baohu_pay_fan=1 qinghu=1 qinghupao_fan=3 ka_fan=1 yingka_fan=1",
     "pinghu=none duanyaojiu=1 daiyaojiu=3 jingoudiao=none jiangdui=4 tianhu=3 dihu=3"
     " gangshangpao=1"),
    # Seed 000 断卡根玩法, the "二合一" house option: "大部分情况下请胡（见后文）不能报胡，但是在
    #   “二合一”规矩下也允许请胡报胡。允许请胡报胡时，在配牌有4对将时可以报胡". Reading: a seat
    #   whose dealt 10 tiles hold four pairs (a four is two; the dealer: its 11 less one
    #   discard) is one tile from "五对将" and a single, i.e. ready for 请胡, and may 报胡;
    #   a 报胡 seat may then 请胡 (its single need not be the tile drawn), and the win
    #   counts 报胡 too (二合一: both). Passing a 请胡 it could make is a passed self-draw
    #   ("报胡后如果自家自摸...没胡...不能再食和"). 查叫 still ignores a 请胡-only wait
    #   ("单纯请胡听牌" is no 叫).
    ("duankagen_erheyi", "duankagen",
     "baohu=2",
     ""),
    # Seed 000 断卡根玩法: "部分规矩下，小胡（见后文）在有人报胡的情况下也能自摸，只有报胡家赔一番".
    #   Reading: while another seat has declared 报胡 and not yet won, a 小胡 (0 fan) may
    #   win by self-draw; only such 报胡 seats pay it, each the self-draw of 0 fan plus its
    #   "赔付番数+1" (= 1番, 自摸 "多算一底分": 3 points); the other seats pay nothing. 小胡
    #   still may not win other discards, and a 小胡 wait is still no 叫.
    ("duankagen_zimo", "duankagen",
     "xiaohu=2",
     ""),
    # Seed 000 宜宾玩法 ("规则大体与成都玩法相同"): "本金：牌局开始时，庄家在尾家摸完牌后，
    #   翻开接下来的牌张" (a BENJIN action; the tile leaves the wall face up);
    #   "听用：本金的前后2张牌即为听用，听用牌为万能牌，共8张，听用牌不能打出" (tingyong 2:
    #   rank +-1, 1 and 9 wrapping);
    #   "杠进不杠出：刮风下雨只计根不计番" (no kong money; a kong's four still count as a 根);
    #   "过碰不碰"; "碰后不准立即杠牌或提牌"; "最后四张自动和"; "杠上开花直接算自摸"; "在同一圈
    #   内，不能弃先和后，但是加番可以和" (过手胡 by fan). 换牌 "不一定所有规则都要换牌": off.
    #   Fan column (multipliers -> doublings): 平胡 1, 对对胡 "2番4番" (reading: 2), 清一色 4,
    #   金钩钓 8 ("不计对对和"), 七对 4 (a four inside: "按七对+1根"), 清对 16, 清金钩钓 32,
    #   清七对 16, 天胡/地胡 "封顶+1根" (reading: the cap; the cap cannot be passed), 根, 自摸
    #   (+1根 = a doubling, no 加底), 杠上花, 杠上炮, 抢杠胡, 海底, 和绝张, 本金 each +1根,
    #   无听用 "+1根+2番或+2根" (reading: +2根). 门清, 断幺九, 带幺九, 将对, 清带幺 不计.
    #   Cap: not in the column (清金钩钓 is 32); reading: 64番 ("64番封顶（川麻常用）").
    #   飞: a 碰 with one real copy and one wild (reading: one wild); "碰完牌后，手中只有
    #   听用时，此时只能飞"; 提 "需自己摸牌后": the tile just drawn; no 补杠 on a 飞
    #   ("不能进行杠的操作") until it is 提'd. A wild in a 飞 is held (no 无听用).
    ("yibin", "xuezhan",
     "huansanzhang=0 tingyong=2 gang_no_fan=1 guopeng=1 peng_no_kong=1 last4_forced=1"
     " guoshou=2 cap=6 zimo_bonus=0 jgd_absorbs_dd=1 benjin_fan=1 wu_tingyong_fan=2",
     "jingoudiao=3 qingdui=4 qingjingoudiao=5 qingqidui=4 tianhu=cap dihu=cap zimo=1"
     " gangshangpao=1 juezhang=1"),
)


def names():
    """Names of the presets, in order."""
    return tuple(p[0] for p in _PRESETS)


def _value(text):
    """An override's value: an integer, `none` (the pattern is absent) or `cap` (满格)."""
    if text == "none":
        return R.NONE
    if text == "cap":
        return R.AT_CAP
    return int(text)


def get(name):
    """A fresh Ruleset for a preset name; KeyError lists the names."""
    for pname, base, params, fans in _PRESETS:
        if pname == name:
            rs = get(base).copy(name) if base else R.Ruleset(name)
            for item in params.split():
                key, value = item.split("=")
                rs.set(R.param_id(key), _value(value))
            for item in fans.split():
                key, value = item.split("=")
                rs.set(R.P_FAN0 + R.PATTERNS.index(key), _value(value))
            return rs
    raise KeyError("unknown preset %r (presets: %s)" % (name, ", ".join(names())))
