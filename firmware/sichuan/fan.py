"""Fan (番) of a win under a ruleset.

Fan are doublings: a win's base is base_points * 2**min(fan, cap). A ruleset
gives each pattern a value or NONE. Compound patterns (清对, 清七对, 龙七对,
清龙七对, 清带幺, 清金钩钓, 将对) absorb their parts when the ruleset has them;
when it does not, the parts add up (seed 002: 清一色 2 + 七对 2).

A hand may read several ways (111222333m: three pungs or three runs; 11223344
as pairs or runs); `score` takes the reading worth most, as players do.
Scratch buffers are module-level so a call allocates nothing.
"""

from micropython import const

from . import meld, shape

# Pattern ids (_R_), parameters and values of sichuan.ruleset, folded in at
# compile time (an imported name costs its string and a lookup per use in the
# .mpy); tests/core/test_consts.py checks each equals ruleset's.
_R_PINGHU = const(0)
_R_DUIDUIHU = const(1)
_R_QIDUI = const(2)
_R_LONGQIDUI = const(3)
_R_QINGYISE = const(4)
_R_JINGOUDIAO = const(5)
_R_DAIYAOJIU = const(6)
_R_JIANGDUI = const(7)
_R_QINGDUI = const(8)
_R_QINGQIDUI = const(9)
_R_QINGLONGQIDUI = const(10)
_R_QINGDAIYAO = const(11)
_R_QINGJINGOUDIAO = const(12)
_R_MENQING = const(13)
_R_DUANYAOJIU = const(14)
_R_GEN = const(15)
_R_GANGSHANGHUA = const(16)
_R_GANGSHANGPAO = const(17)
_R_QIANGGANGHU = const(18)
_R_HAIDI = const(19)
_R_JUEZHANG = const(20)
_R_TIANHU = const(21)
_R_DIHU = const(22)
_R_ZIMO = const(23)
_NONE = const(-1)
_NPATTERNS = const(24)
_AT_CAP = const(63)
_P_SUITS = const(1)
_P_HAND_SIZE = const(2)
_P_DINGQUE = const(7)
_P_CAP = const(9)
_P_ZIMO_BONUS = const(10)
_P_BASE_POINTS = const(11)
_P_GEN_IN_LONGQIDUI = const(12)
_P_TIANHU_ALONE = const(13)
_P_MENQING_ZIMO_ONLY = const(14)
_P_BENJIN_FAN = const(41)
_P_WU_TINGYONG_FAN = const(42)
_P_BAOHU_FAN = const(44)
_P_KA_FAN = const(47)
_P_YINGKA_FAN = const(48)
_P_JGD_ABSORBS_DD = const(50)
_P_QINGHUPAO_FAN = const(52)

# Win context flags.
ZIMO = const(1)
GANGSHANGHUA = const(2)
GANGSHANGPAO = const(4)
QIANGGANG = const(8)
HAIDI = const(16)
JUEZHANG = const(32)
TIANHU = const(64)
DIHU = const(128)
BAOHU = const(256)      # the winner declared 报胡 after the deal (断卡根)
QINGHU = const(512)     # 请胡: five pairs, won by discarding the single (断卡根)
QINGHUPAO = const(1024)  # won on another seat's 请胡 discard (断卡根 请胡炮)
BENJIN = const(2048)    # three of the 本金 face, wilds standing in counted (宜宾)
NOWILD = const(4096)    # no 听用 wild tile held (宜宾 无听用)

# Variant values a ruleset gives as parameters, not pattern ids: an `out`
# longer than NPATTERNS gets them at NPATTERNS + X_* (named in mjtable.calc).
X_KA = const(0)
X_YINGKA = const(1)
X_BAOHU = const(2)
X_QINGHUPAO = const(3)
X_BENJIN = const(4)
X_WUTINGYONG = const(5)
_XPARAM = (_P_KA_FAN, _P_YINGKA_FAN, _P_BAOHU_FAN, _P_QINGHUPAO_FAN, _P_BENJIN_FAN,
           _P_WU_TINGYONG_FAN)
HOUSE0 = const(30)  # NPATTERNS + the six X_*: where house patterns start in `out`
NOUT = const(38)  # HOUSE0 + sichuan.pattern's MAXHOUSE: the size of a full `out`

# Readings of a winning hand.
RD_PUNGS = const(0)  # four pungs/kongs and a pair
RD_STD = const(1)    # any four groups and a pair
RD_QIDUI = const(2)  # seven pairs

_NO_CAP_AT_CAP = const(6)  # 满格 with no cap counts as 64x (seed 000: 封顶64番)

_all = bytearray(27)      # concealed + melded copies per face
_best = bytearray(NOUT)
_cur = bytearray(NOUT)
_suit = bytearray(9)      # one suit's counts while counting 456 runs (卡)


def meld_counts(melds, out):
    """Fill out (bytearray(27)) with the copies held in melds."""
    for i in range(27):
        out[i] = 0
    for m in melds:
        out[meld.face(m)] += meld.size(m)
    return out


def held_counts(counts, melds, out):
    """Fill out (bytearray(27)) with every copy a hand holds: concealed and melded."""
    meld_counts(melds, out)
    for i in range(27):
        out[i] += counts[i]
    return out


def suits_used(c):
    """Bitmask of suits with tiles in c (1 m, 2 p, 4 s)."""
    m = 0
    for s in range(3):
        for i in range(s * 9, s * 9 + 9):
            if c[i]:
                m |= 1 << s
                break
    return m


def lacks_a_suit(rs, full, void):
    """缺门: the void suit is absent; with no void named, some suit is (unless
    the ruleset has no 缺门 at all, as 断卡根). full = concealed + melded counts."""
    used = suits_used(full)
    if void >= 0:
        return not used & (1 << void)
    return used != 7 or not rs[_P_DINGQUE]


def terminal_groups(counts):
    """True if the concealed tiles split into groups and one pair, each with a 1 or 9."""
    pairs = 0
    for o in (0, 9, 18):
        if counts[o + 3] or counts[o + 4] or counts[o + 5]:
            return False
        low = _end_left(counts, o, 1)
        high = _end_left(counts, o + 8, -1)
        if low < 0 or high < 0:
            return False
        pairs += (low == 2) + (high == 2)
    return pairs == 1


def _end_left(counts, end, step):
    """Tiles at a terminal (1 or 9) left after the runs 123/789 that 2s/8s force;
    -1 if they cannot be a pair, a pung or nothing."""
    k = counts[end + step]  # 2s and 8s only sit in runs 123 / 789
    if counts[end + 2 * step] != k or counts[end] < k:
        return -1
    left = counts[end] - k
    return left if left in (0, 2, 3) else -1


def _all_pungs(counts):
    """True if the concealed tiles are pungs and exactly one pair."""
    pairs = 0
    for x in counts:
        if x == 2:
            pairs += 1
        elif x and x != 3:
            return False
    return pairs == 1


def melds_terminal(melds):
    for m in melds:
        r = meld.face(m) % 9
        if r != 0 and r != 8:
            return False
    return True


def _only_ranks(c, ranks):
    for f in range(27):
        if c[f] and (f % 9) not in ranks:
            return False
    return True


def at_cap(rs):
    """The doublings a pattern worth AT_CAP (满格) adds under rs."""
    cap = rs[_P_CAP]
    return cap if cap >= 0 else _NO_CAP_AT_CAP


def _add(rs, out, pattern, times=1):
    """Count a pattern in out (as 1 + its fan) if the ruleset has it; returns its fan."""
    v = rs.fan(pattern)
    if v == _NONE or times <= 0:
        return 0
    if v == _AT_CAP:
        v = at_cap(rs)
    out[pattern] = 1 + v * times
    return v * times


def _has(rs, pattern):
    return rs.fan(pattern) != _NONE


def _shape_patterns(rs, reading, counts, melds, out):
    """Fan of the hand-shape patterns of one reading; fills out."""
    qing = suits_used(_all) in (1, 2, 4)
    fan = 0
    if reading == RD_QIDUI:
        long = 0
        for x in counts:
            if x == 4:
                long = 1
        if qing and long and _has(rs, _R_QINGLONGQIDUI):
            fan += _add(rs, out, _R_QINGLONGQIDUI)
        elif long and _has(rs, _R_LONGQIDUI):
            fan += _add(rs, out, _R_LONGQIDUI) + _qing(rs, out, qing)
        elif qing and _has(rs, _R_QINGQIDUI):
            fan += _add(rs, out, _R_QINGQIDUI)
        else:
            fan += _add(rs, out, _R_QIDUI) + _qing(rs, out, qing)
        return fan
    jgd = len(melds) == rs[_P_HAND_SIZE] // 3  # every group melded: 金钩钓
    if reading == RD_PUNGS:
        if _only_ranks(_all, (1, 4, 7)) and _has(rs, _R_JIANGDUI):
            fan += _add(rs, out, _R_JIANGDUI)
            if jgd:
                fan += _add(rs, out, _R_JINGOUDIAO)
            return fan + _qing(rs, out, qing)
        if jgd and qing and _has(rs, _R_QINGJINGOUDIAO):
            return fan + _add(rs, out, _R_QINGJINGOUDIAO)
        if jgd and _has(rs, _R_JINGOUDIAO):
            fan += _add(rs, out, _R_JINGOUDIAO)
            if not rs[_P_JGD_ABSORBS_DD]:
                fan += _add(rs, out, _R_DUIDUIHU)
            return fan + _qing(rs, out, qing)
        if qing and _has(rs, _R_QINGDUI):
            return fan + _add(rs, out, _R_QINGDUI)
        fan += _add(rs, out, _R_DUIDUIHU)
    terminal = _only_ranks(counts, (0, 8)) if reading == RD_PUNGS else terminal_groups(counts)
    if terminal and melds_terminal(melds):
        if qing and _has(rs, _R_QINGDAIYAO):
            return fan + _add(rs, out, _R_QINGDAIYAO)
        fan += _add(rs, out, _R_DAIYAOJIU)
    return fan + _qing(rs, out, qing)


def _qing(rs, out, qing):
    return _add(rs, out, _R_QINGYISE) if qing else 0


def _extra_patterns(rs, reading, melds, flags, out):
    """Fan of 门清, 断幺九, 根 and the timing patterns; fills out."""
    fan = 0
    shown = 0
    for m in melds:
        if meld.is_shown(m):
            shown = 1
    if (not shown and reading != RD_QIDUI
            and (flags & ZIMO or not rs[_P_MENQING_ZIMO_ONLY])):
        fan += _add(rs, out, _R_MENQING)
    if _only_ranks(_all, (1, 2, 3, 4, 5, 6, 7)) and not out[_R_JIANGDUI]:  # no 1 or 9
        fan += _add(rs, out, _R_DUANYAOJIU)
    gen = 0
    for x in _all:
        if x == 4:
            gen += 1
    if (out[_R_LONGQIDUI] or out[_R_QINGLONGQIDUI]) and not rs[_P_GEN_IN_LONGQIDUI]:
        gen -= 1
    fan += _add(rs, out, _R_GEN, gen)
    for flag, pattern in _TIMING:
        if flags & flag:
            fan += _add(rs, out, pattern)
    return fan


_TIMING = (
    (GANGSHANGHUA, _R_GANGSHANGHUA), (GANGSHANGPAO, _R_GANGSHANGPAO),
    (QIANGGANG, _R_QIANGGANGHU), (HAIDI, _R_HAIDI), (JUEZHANG, _R_JUEZHANG),
    (ZIMO, _R_ZIMO),
)


def _reading_fan(rs, reading, counts, melds, flags, out, win):
    for i in range(NOUT):
        out[i] = 0
    fan = _shape_patterns(rs, reading, counts, melds, out)
    fan += _extra_patterns(rs, reading, melds, flags, out)
    if reading != RD_QIDUI and not _any_shape(out):
        fan += _add(rs, out, _R_PINGHU)  # 平胡: no other pattern of the hand's shape
    fan += _variant_patterns(rs, reading, counts, flags, out, win)
    if rs.house:  # the ruleset's own patterns (sichuan.pattern)
        fan += rs.house.score(rs, reading, counts, melds, out, win)
    return fan + _heaven(rs, flags, out, fan)


def _addx(rs, out, x, times=1):
    """Count a variant value (NPATTERNS + x in out) if the ruleset has it."""
    v = rs[_XPARAM[x]]
    if v == _NONE or times <= 0:
        return 0
    out[_NPATTERNS + x] = 1 + v * times
    return v * times


def _variant_patterns(rs, reading, counts, flags, out, win):
    """断卡根: 卡 (each 456 run, self-draw only), 硬卡 (a discarded 5 won in
    the middle of 4_6), 报胡 (not with 地胡: "不计报胡"), 请胡炮."""
    fan = 0
    if reading == RD_STD and flags & ZIMO:
        if rs[_P_KA_FAN] != _NONE:
            fan += _addx(rs, out, X_KA, _runs456(counts))
    elif reading == RD_STD and win >= 0 and win % 9 == 4 and rs[_P_YINGKA_FAN] != _NONE:
        if run_reads(counts, win - 1):
            fan += _addx(rs, out, X_YINGKA)
    if flags & BAOHU and not flags & DIHU:
        fan += _addx(rs, out, X_BAOHU)
    if flags & QINGHUPAO:
        fan += _addx(rs, out, X_QINGHUPAO)
    if flags & BENJIN:
        fan += _addx(rs, out, X_BENJIN)
    if flags & NOWILD:
        fan += _addx(rs, out, X_WUTINGYONG)
    return fan


def run_reads(counts, x):
    """True if the hand reads as groups and a pair with the run x x+1 x+2 in it
    (硬卡: f in the middle is run_reads(counts, f - 1))."""
    if not counts[x] or not counts[x + 1] or not counts[x + 2]:
        return False
    counts[x] -= 1
    counts[x + 1] -= 1
    counts[x + 2] -= 1
    ok = shape.is_standard(counts, -1)
    counts[x] += 1
    counts[x + 1] += 1
    counts[x + 2] += 1
    return ok


def _runs456(counts):
    """Most 456 runs (卡) any reading of the concealed groups and pair holds."""
    n = 0
    for o in (0, 9, 18):
        size = 0
        for i in range(o, o + 9):
            size += counts[i]
        if size % 3 == 0:
            k = _suit_runs456(counts, o, -1)
        else:
            k = -1
            for p in range(o, o + 9):
                if counts[p] >= 2:
                    x = _suit_runs456(counts, o, p)
                    if x > k:
                        k = x
        if k > 0:
            n += k
    return n


def _suit_runs456(counts, o, pair):
    """456 runs in the suit at o read as groups (less a pair at face `pair`),
    -1 if it does not read so. Greedy: each rank's count mod 3 starts runs;
    three triplets 444 555 666 read as three runs instead."""
    for i in range(9):
        _suit[i] = counts[o + i]
    if pair >= 0:
        _suit[pair - o] -= 2
    k = 0
    for i in range(7):
        r = _suit[i] % 3
        if _suit[i + 1] < r or _suit[i + 2] < r:
            return -1
        _suit[i] -= r
        _suit[i + 1] -= r
        _suit[i + 2] -= r
        if i == 3:
            k = r
    if _suit[7] % 3 or _suit[8] % 3:
        return -1
    if _suit[3] >= 3 and _suit[4] >= 3 and _suit[5] >= 3:
        k += 3
    return k


def _any_shape(out):
    for p in range(_R_DUIDUIHU, _R_GEN):
        if out[p]:
            return True
    return False


def _heaven(rs, flags, out, fan):
    """天胡/地胡: added, or alone when the ruleset says they do not combine."""
    p = _R_TIANHU if flags & TIANHU else (_R_DIHU if flags & DIHU else -1)
    if p < 0 or not _has(rs, p):
        return 0
    if rs[_P_TIANHU_ALONE]:
        for i in range(NOUT):
            out[i] = 0
        return _add(rs, out, p) - fan
    return _add(rs, out, p)


def score(rs, counts, melds=(), void=-1, flags=0, out=None, win=-1):
    """Fan (doublings, before the cap) of a win, or -1 if it is not one.

    counts: concealed tiles including the winning tile (bytearray(27)):
    rs hand_size + 1 less 3 per meld (with QINGHU: the five pairs left after
    the 请胡 discard); melds: meld ints; void: 缺 suit 0..2 or -1; flags:
    ZIMO | HAIDI | ...; out: optional bytearray(NPATTERNS) or (NOUT); out[p]
    becomes 1 + the fan pattern p adds, or 0 where p does not count (so 平胡
    at 0 fan still shows); out[NPATTERNS + X_*] the variant values,
    out[HOUSE0 + d] the ruleset's house pattern d.
    win: the winning face if known (硬卡 and house patterns of the winning
    tile need it), else -1.
    """
    want = rs[_P_HAND_SIZE] + 1 - 3 * len(melds)
    if flags & QINGHU:
        want -= 1
    if shape.total(counts) != want:
        return -1
    held_counts(counts, melds, _all)
    if suits_used(_all) & ~rs[_P_SUITS] or not lacks_a_suit(rs, _all, void):
        return -1  # a tile of a suit not in play, or 缺一门 not met
    if rs.house:
        rs.house.hand(rs, counts, _all, melds, void, flags, win)
    best = -1
    if flags & QINGHU:  # 五对将: every concealed count even, nothing melded
        if not melds and shape.is_qidui(counts, want):
            best = _reading_fan(rs, RD_QIDUI, counts, melds, flags, _best, win)
    else:
        if shape.is_standard(counts, void):
            if _all_pungs(counts):
                best = _reading_fan(rs, RD_PUNGS, counts, melds, flags, _best, win)
            f = _reading_fan(rs, RD_STD, counts, melds, flags, _cur, win)
            if f > best:
                best = _keep(f)
        if not melds and shape.is_qidui(counts):
            f = _reading_fan(rs, RD_QIDUI, counts, melds, flags, _cur, win)
            if f > best:
                best = _keep(f)
    if best >= 0 and out is not None:
        n = len(out) if len(out) < NOUT else NOUT
        for i in range(n):
            out[i] = _best[i]
    return best


def _keep(f):
    for i in range(NOUT):
        _best[i] = _cur[i]
    return f


def capped(rs, fan):
    """Fan after the cap (封顶)."""
    cap = rs[_P_CAP]
    return fan if cap < 0 or fan < cap else cap


def base(rs, fan):
    """Points one discarder pays for a win of `fan` (doublings)."""
    return rs[_P_BASE_POINTS] << capped(rs, fan)


def zimo_each(rs, fan):
    """Points each payer pays on a self-drawn win (自摸加底 included)."""
    return base(rs, fan) + rs[_P_ZIMO_BONUS] * rs[_P_BASE_POINTS]


def beats(x, best, largest):
    """查叫's choice: does a wait worth x fan beat best (-1: none yet), on the
    largest-value rule or, if not largest, the smallest?"""
    return best < 0 or (x > best if largest else x < best)


def wait_value(rs, counts, melds, void, face, flags=0):
    """Fan of winning on `face` by discard (点炮: no 自摸, no 海底); -1 if none.
    flags: the seat's own flags (BAOHU), if any."""
    counts[face] += 1
    f = score(rs, counts, melds, void, flags, None, face)
    counts[face] -= 1
    return f
