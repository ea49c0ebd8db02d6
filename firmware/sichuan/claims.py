"""Claim adjudication: who may 胡/碰/杠 a discard or rob a 补杠, and why not.

Functions take the Game (sichuan.game) and read its integer state; nothing
here changes it. Refusal reason codes live here so that game and settle can
share them without a circular import. Their texts for people are the host's
(mjtable.names): the table shows alert codes (table.alerts).

The hot path is `discard_mask` for the three other seats on every discard:
the seat's waits are cached as a bitmask (Game.waits, recomputed only when
the seat's concealed tiles change), so a claim check is a bit test and two
count comparisons; nothing is allocated.
"""

from micropython import const

# Fan flags (_F_) and ruleset parameters, folded in at compile time (an
# imported name costs its string and a lookup per use in the .mpy);
# tests/core/test_consts.py checks them.
_F_GANGSHANGPAO = const(4)
_F_QIANGGANG = const(8)
_F_HAIDI = const(16)
_F_JUEZHANG = const(32)
_P_DINGQUE = const(7)
_P_QIANGGANG = const(24)
_P_HAIDI_GANG = const(25)
_P_GUOSHOU = const(27)
_P_LAST4_FORCED = const(28)
_P_XIAOHU = const(46)
_P_HAIDI_CLAIM = const(51)
_G_PH_ROB = const(6)

# Claim mask bits (PROMPT events carry a mask of these).
C_HU = const(1)
C_PENG = const(2)
C_GANG = const(4)
C_FEI = const(8)   # 宜宾 飞: a 碰 with one real tile and one 听用 wild

# Refusal reasons (REFUSED events). 0 means accepted.
OK = const(0)
NOT_YOUR_TURN = const(1)
MUST_DISCARD_VOID = const(2)
VOID_HELD_NO_CLAIM = const(3)
NOT_A_WIN = const(4)
NOT_HELD = const(5)
BAD_PHASE = const(6)
GUOSHOU = const(7)
LOCKED = const(8)
NO_TILES_LEFT = const(9)
FIFTH_COPY = const(10)
BAD_SEAT = const(11)
BAD_TILE = const(12)
BAD_COUNT = const(13)
NOT_ONE_SUIT = const(14)
ALREADY_DONE = const(15)
NO_CLAIM = const(16)
MUST_WIN = const(17)
BAD_SUIT = const(18)
HAS_LEFT = const(19)
BUGANG_LATE = const(20)
VOID_TILE = const(21)
BAD_ACTION = const(22)
HAND_OVER = const(23)
XIAOHU = const(24)
NOT_READY = const(25)
WILD_TILE = const(26)

# Game.status bits per seat (defined here for the same reason as the reasons).
ST_DEALT = const(1)
ST_GAVE = const(2)      # gave its three (换三张)
ST_QUE = const(4)       # declared 定缺
ST_LEFT = const(8)      # 血战: won and left the hand
ST_LOCKED = const(16)   # 血流: hand locked after a win
ST_WON = const(32)      # has won at least once
ST_BAOHU = const(64)    # declared 报胡 (断卡根): locked to draw and discard
ST_NOHU = const(128)    # 报胡 and passed a win: no more wins this hand


def void_held(g, s):
    """True if seat s still holds a tile of its declared void suit: no claim
    nor kong until it is gone."""
    v = g.void[s]
    h = g.hand[s]
    if v < 3:
        for f in range(v * 9, v * 9 + 9):
            if h[f] and f != g.w1 and f != g.w2:  # a 听用 wild is no suit's tile
                return True
    return False


def cannot_win(g, s):
    """True if seat s may not win as it stands, and is a 花猪 if the wall runs
    out so: it holds its void suit or, without a declared 定缺 but 缺一门
    required (rs dingque 2), all three suits. Seed 004 ("缺门可胡,即胡牌的时候
    不能有三种花色的牌") bars only the win there, not 碰/杠."""
    return void_held(g, s) or g.rs[_P_DINGQUE] == 2 and g.suits_held(s) == 7


def guoshou_ok(g, s, f, rob):
    """False if a passed win (过手胡) forbids seat s to win a discard of f
    (rob: a 补杠 of f). Mode 2 compares the fan of this win with the passed
    one's, both with their 杠上炮/抢杠胡/海底/绝张 ("加番可以和"; T/TFMJ: "the
    same or a lower fan value"), scored only when a pass is on record."""
    mode = g.rs[_P_GUOSHOU]
    if mode == 0:
        return True
    if mode == 1:
        return not (g.gs_mask[s] >> f & 1)
    if mode == 3:
        return not g.gs_mask[s]
    passed = g.gs_fan[s]
    if passed == 255:
        return True
    return g.discard_win_fan(s, f, win_flags_discard(g, s, f, rob)) > passed


def discard_mask(g, s, f):
    """Claims seat s may make on a discard of face f (C_HU | C_PENG | C_GANG).

    No allocation: a bit test on the cached waits and two count compares.
    """
    st = g.status[s]
    if st & ST_LEFT or void_held(g, s):
        return 0
    m = 0
    if (g.waits(s) >> f & 1 and not st & ST_NOHU and guoshou_ok(g, s, f, 0)
            and xiaohu_ok(g, s, f, 0)):
        m = C_HU
    if st & ST_LOCKED or f // 9 == g.void[s] or g.qing:
        return m  # a 请胡 discard is only for 胡
    if g.wall == 0 and not g.rs[_P_HAIDI_CLAIM]:
        return m  # "海底牌不能碰杠"
    if g.gp_mask[s] >> f & 1:
        return m  # 过碰不碰
    c = g.hand[s][f]
    if c >= 2 and g.hand_after_claim(s, f, 2):
        m |= C_PENG
        if c == 3 and (g.wall > 0 or g.rs[_P_HAIDI_GANG]):
            m |= C_GANG
    if c >= 1 and g.w1 >= 0 and g.wild_held(s) and g.hand_after_claim(s, f, 1):
        m |= C_FEI
    return m


def xiaohu_ok(g, s, f, rob):
    """True if seat s may win the pending discard f (rob: 补杠 of f) by its
    value: always with rs xiaohu 1; with 0 or 2 (断卡根 "小胡（无番胡）不能胡") if
    it is worth fan, or comes from a 报胡 seat that has not won ("报胡家点炮"),
    or is a 请胡 discard ("请胡家请胡时打出牌点炮")."""
    if g.rs[_P_XIAOHU] == 1:
        return True
    d = g.pseat
    if g.qing or (d >= 0 and g.status[d] & ST_BAOHU and not g.status[d] & ST_WON):
        return True
    return g.discard_win_fan(s, f, win_flags_discard(g, s, f, rob)) > 0


def rob_mask(g, s, f):
    """C_HU if seat s may rob a 补杠 of face f (抢杠胡), else 0."""
    if not g.rs[_P_QIANGGANG]:
        return 0
    if g.status[s] & (ST_LEFT | ST_NOHU) or void_held(g, s):
        return 0
    if g.waits(s) >> f & 1 and guoshou_ok(g, s, f, 1) and xiaohu_ok(g, s, f, 1):
        return C_HU
    return 0


def claim_reason(g, s, kind_bit, f):
    """Why seat s may not make the claim kind_bit on face f (OK if it may)."""
    st = g.status[s]
    if st & ST_LEFT:
        return HAS_LEFT
    if void_held(g, s):
        return VOID_HELD_NO_CLAIM
    if kind_bit == C_HU:
        if not (g.waits(s) >> f & 1) or st & ST_NOHU:
            return NOT_A_WIN
        rob = g.phase == _G_PH_ROB
        if not guoshou_ok(g, s, f, rob):
            return GUOSHOU
        return OK if xiaohu_ok(g, s, f, rob) else XIAOHU
    if st & ST_LOCKED:
        return LOCKED
    if f // 9 == g.void[s]:
        return VOID_TILE
    if kind_bit == C_FEI:
        if g.w1 < 0 or not g.hand[s][f] or not g.wild_held(s):
            return NOT_HELD
        return OK if g.hand_after_claim(s, f, 1) else WILD_TILE
    need = 2 if kind_bit == C_PENG else 3
    if g.hand[s][f] < need:
        return NOT_HELD
    if kind_bit == C_PENG and not g.hand_after_claim(s, f, 2):
        return WILD_TILE  # "碰完牌后，手中只有听用时，此时只能飞，不能碰"
    if kind_bit == C_GANG and g.wall == 0 and not g.rs[_P_HAIDI_GANG]:
        return NO_TILES_LEFT
    return OK


def forced(g):
    """最后四张必胡 in force: the wall had at most four tiles left at this draw."""
    return g.rs[_P_LAST4_FORCED] and g.wall < 4


def win_flags_discard(g, s, f, rob):
    """fan flags of seat s winning the pending discard of face f (g.pseat's),
    or with rob its 补杠 of f (抢杠胡, no 杠上炮)."""
    fl = _F_QIANGGANG if rob else _F_GANGSHANGPAO if g.after_gang and g.pseat == g.turn else 0
    if g.wall == 0 and not g.after_peng:  # the last tile's discard, not one after a 碰 of it
        fl |= _F_HAIDI
    if g.shown[f] >= 4 and dead_waits(g, f, g.waits(s)):
        fl |= _F_JUEZHANG
    return fl


def dead_waits(g, f, w):
    """True if every wait in mask w but f has all four copies face up: 绝张
    ("所和的牌是所有可和的牌里最后一张并且其他牌均已被打出或被碰"). 听用 wilds, which win
    any hand but are never discarded, are not counted: 宜宾 scores 绝张."""
    for x in range(27):
        if w >> x & 1 and g.shown[x] < 4 and x != f and x != g.w1 and x != g.w2:
            return False
    return True
