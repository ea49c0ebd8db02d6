"""Payments: kong money (刮风下雨), wins (点炮, 自摸, 抢杠, 点杠花), 呼叫转移,
and the end-of-wall checks (查花猪, 查大叫, 退杠钱).

Every payment goes through `pay`, which moves points in Game.delta and
appends a PAY event (EV_PAY, payer, payee, amount, reason). Amounts are
points (base_points already applied). Kong income is also written to the
game's ledger (4 bytes per payer: gainer, payer, units, flags) so that 退杠钱
and 呼叫转移 can give back or pass on exactly what was paid.
"""

from micropython import const

from . import fan
from .claims import cannot_win

# Status bits of sichuan.claims, meld kinds (_M_) and ruleset parameters,
# folded in at compile time (an imported name costs its string and
# a lookup per use in the .mpy); tests/core/test_consts.py checks them.
_M_ZHIGANG = const(1)
_M_BUGANG = const(2)
_P_CAP = const(9)
_P_BASE_POINTS = const(11)
_P_GANG_ZHI = const(15)
_P_GANG_ZHI_OTHERS = const(16)
_P_GANG_BU = const(17)
_P_GANG_AN = const(18)
_P_BUGANG_WHEN = const(19)
_P_GANG_PAYERS = const(20)
_P_ZHUANYI = const(21)
_P_ZHUANYI_CHAIN = const(22)
_P_DIANGANG_HUA = const(23)
_P_GANG_NO_FAN = const(26)
_P_HUAZHU = const(29)
_P_HUAZHU_PAYEES = const(30)
_P_CHAJIAO = const(31)
_P_SIJIAO = const(32)
_P_TUIGANG = const(33)
_P_TUIGANG_FIRST = const(34)
_P_HUAZHU_CHAJIAO = const(35)
_P_XIAOHU = const(46)
_P_BAOHU_PAY_FAN = const(53)
_P_ZIMO_PAYERS = const(54)
_ST_LEFT = const(8)
_ST_WON = const(32)
_ST_BAOHU = const(64)

# Event kinds (Game.apply returns a list of tuples starting with one of these).
EV_ACCEPTED = const(0)   # (EV_ACCEPTED, seat, action kind)
EV_REFUSED = const(1)    # (EV_REFUSED, seat, reason, action kind)
EV_PAY = const(2)        # (EV_PAY, payer, payee, amount, pay reason)
EV_PROMPT = const(3)     # (EV_PROMPT, seat, claim mask, face)
EV_WIN = const(4)        # (EV_WIN, seat, fan, flags, from seat or -1, face)
EV_HAND_END = const(5)   # (EV_HAND_END, end reason, deltas tuple)
EV_PHASE = const(6)      # (EV_PHASE, phase, seat whose turn it is)
EV_EXCHANGED = const(7)  # (EV_EXCHANGED, receiver, (f, f, f), giver)
EV_VOIDS = const(8)      # (EV_VOIDS, bytes of each seat's void suit)
EV_CHECK = const(9)      # (EV_CHECK, seat, status, fan): 流局 verdict per checked seat
EV_MA = const(10)        # (EV_MA, seat, amount, pay reason): 叫马 side payment, seat -> 马
                         #   (negative: the 马 pays the seat)

# EV_CHECK statuses.
CK_READY = const(0)
CK_NOT_READY = const(1)
CK_HUAZHU = const(2)

# Pay reasons.
PAY_GANG_ZHI = const(0)      # 直杠: the discarder pays
PAY_GANG_MAOMAO = const(1)   # 毛毛雨: the others also pay on a 直杠
PAY_GANG_BU = const(2)       # 补杠 (刮风)
PAY_GANG_AN = const(3)       # 暗杠 (下雨)
PAY_DIANPAO = const(4)       # 点炮: the discarder pays the winner
PAY_ZIMO = const(5)          # 自摸: each payer pays
PAY_QIANGGANG = const(6)     # 抢杠胡: the robbed player pays
PAY_BAO = const(7)           # 点杠花: the kong giver pays for everyone
PAY_ZHUANYI = const(8)       # 呼叫转移: kong income passed to the winner
PAY_HUAZHU = const(9)        # 查花猪
PAY_CHAJIAO = const(10)      # 查大叫
PAY_TUIGANG = const(11)      # 退杠钱

_L_GONE = const(1)  # ledger flag: income passed on (呼叫转移), not refundable
_lim = bytearray(27)


def pay(g, ev, payer, payee, amount, reason):
    """Move amount points from payer to payee; record the PAY event."""
    if amount <= 0 or payer == payee:
        return
    g.delta[payer] -= amount
    g.delta[payee] += amount
    ev.append((EV_PAY, payer, payee, amount, reason))
    m = g.ma_seat
    if m >= 0 and (payee == m or payer == m):
        _ma(g, ev, payer if payee == m else payee, amount if payee == m else -amount, reason)


def _ma(g, ev, s, amount, reason):
    """叫马 ("叫马者与被叫者将是同样的输赢"): a payment to or from the bound seat
    is matched between the 马 and the same counterpart seat s."""
    g.ma_side[s] += amount
    g.ma_delta += amount
    ev.append((EV_MA, s, amount, reason))


def payers(g, s, mode=-1):
    """Seats that pay seat s for a kong (rs gang_payers) or, with mode given,
    a self-draw (0 still in the hand, 1 all others, 2 not won)."""
    if mode < 0 or mode == 3:
        mode = g.rs[_P_GANG_PAYERS]
    out = []
    for i in range(g.np):
        if i == s:
            continue
        st = g.status[i]
        if mode == 0 and st & _ST_LEFT:
            continue
        if mode == 2 and st & _ST_WON:
            continue
        out.append(i)
    return out


def gang(g, ev, s, kind, giver, late):
    """Kong money, paid at once. kind: meld.ZHIGANG/BUGANG/ANGANG; giver: the
    discarder of a 直杠; late: a 补杠 with a tile not drawn this turn."""
    rs = g.rs
    if rs[_P_GANG_NO_FAN]:
        return
    bp = rs[_P_BASE_POINTS]
    if kind == _M_ZHIGANG:
        _gang_one(g, ev, s, giver, rs[_P_GANG_ZHI], bp, PAY_GANG_ZHI)
        other = rs[_P_GANG_ZHI_OTHERS]
        if other:
            for p in payers(g, s):
                if p != giver:
                    _gang_one(g, ev, s, p, other, bp, PAY_GANG_MAOMAO)
        return
    if kind == _M_BUGANG:
        if late and rs[_P_BUGANG_WHEN] == 1:
            return
        units, why = rs[_P_GANG_BU], PAY_GANG_BU
    else:
        units, why = rs[_P_GANG_AN], PAY_GANG_AN
    for p in payers(g, s):
        _gang_one(g, ev, s, p, units, bp, why)


def _gang_one(g, ev, s, p, units, bp, why):
    """p pays seat s units of kong money, written to the ledger first."""
    if units <= 0:
        return
    i = g.nled * 4
    g.ledger[i] = s
    g.ledger[i + 1] = p
    g.ledger[i + 2] = units
    g.ledger[i + 3] = 0
    g.nled += 1
    pay(g, ev, p, s, units * bp, why)


def _extra(g, p):
    """断卡根: "报胡后在自家胡牌前，如果他家自摸或自家点炮，赔付番数+1"."""
    return g.rs[_P_BAOHU_PAY_FAN] if g.status[p] & (_ST_BAOHU | _ST_WON) == _ST_BAOHU else 0


def win_discard(g, ev, w, payer, fanv, robbed):
    """点炮 (or 抢杠胡 when robbed): the discarder alone pays the winner."""
    pay(g, ev, payer, w, fan.base(g.rs, fanv + _extra(g, payer)),
        PAY_QIANGGANG if robbed else PAY_DIANPAO)


def win_zimo(g, ev, s, fanv, giver):
    """自摸: each payer pays zimo_each; 点杠花 per rs diangang_hua when giver >= 0."""
    rs = g.rs
    mode = rs[_P_DIANGANG_HUA] if giver >= 0 else 0
    if mode == 2:  # a discard win on the kong giver
        pay(g, ev, giver, s, fan.base(rs, fanv), PAY_DIANPAO)
        return
    each = fan.zimo_each(rs, fanv)
    ps = payers(g, s, rs[_P_ZIMO_PAYERS])
    if mode == 1:
        pay(g, ev, giver, s, each * len(ps), PAY_BAO)
        return
    for p in ps:
        x = _extra(g, p)
        # a 小胡 (fan 0) self-draw, rs xiaohu 2: "只有报胡家赔一番" (0 + baohu_pay_fan)
        if fanv or rs[_P_XIAOHU] < 2 or g.status[p] & (_ST_BAOHU | _ST_WON) == _ST_BAOHU:
            pay(g, ev, p, s, fan.zimo_each(rs, fanv + x) if x else each, PAY_ZIMO)


def zhuanyi(g, ev, d, winners):
    """呼叫转移: the kong income of discarder d's last kong (or chain) goes to
    the winners of its 杠上炮, per rs zhuanyi (1 each all, 2 ceil split with
    the discarder paying the rounding, 3 even split rounded down)."""
    rs = g.rs
    mode = rs[_P_ZHUANYI]
    if not mode:
        return
    lo = g.chain_lo if rs[_P_ZHUANYI_CHAIN] else g.last_lo
    units = 0
    for i in range(lo, g.nled):
        j = i * 4
        if g.ledger[j] == d and not g.ledger[j + 3] & _L_GONE:
            units += g.ledger[j + 2]
            g.ledger[j + 3] |= _L_GONE
    income = units * rs[_P_BASE_POINTS]
    n = len(winners)
    if income <= 0 or n == 0:
        return
    if mode == 1:
        each = income
    elif mode == 2:
        each = (income + n - 1) // n
    else:
        each = income // n
    for w in winners:
        pay(g, ev, d, w, each, PAY_ZHUANYI)


def ready_value(g, s):
    """(fan, face) a ready seat could win for 查叫 (largest or smallest per rs
    chajiao), or (-1, -1) if not ready. A wait on a fifth copy is no wait; a
    dead wait (all copies visible) counts only with rs sijiao."""
    rs = g.rs
    fan.meld_counts(g.meld_list(s), _lim)
    mask = g.waits_limited(s, _lim)
    largest = rs[_P_CHAJIAO] != 2
    lo = rs[_P_XIAOHU] != 1  # 断卡根: "小胡听牌 ... 不算有叫" (0 fan too low)
    best = at = -1
    by = None
    if mask and g.wild_held(s):
        # A real f scores as one wild more standing for f: one walk of the
        # wilds' choices scores every wait (by_face), where a walk per wait
        # took seconds on the board with four wilds (docs/engine.md). A real
        # wild face is a wild: the walk's own value.
        by = g.wild.by_face
        by[g.w2] = by[g.w1] = g.wait_value(s, g.w1) + 1
    for f in range(27):
        if not mask >> f & 1 or not rs[_P_SIJIAO] and g.shown[f] + g.hand[s][f] >= 4:
            continue  # no wait, or 死叫: every other copy is on the table
        x = by[f] - 1 if by else g.wait_value(s, f)  # seat's flags (报胡)
        if x >= lo and fan.beats(x, best, largest):
            best = x
            at = f
    return best, at


def refund(g, ev, s):
    """退杠钱: seat s gives back every kong payment it received (not passed on)."""
    bp = g.rs[_P_BASE_POINTS]
    for i in range(g.nled):
        j = i * 4
        if g.ledger[j] == s and not g.ledger[j + 3] & _L_GONE:
            g.ledger[j + 3] |= _L_GONE
            pay(g, ev, s, g.ledger[j + 1], g.ledger[j + 2] * bp, PAY_TUIGANG)


def liuju(g, ev):
    """The wall is empty: 查花猪, 查大叫, 退杠钱 among seats that never won,
    in the order the ruleset gives (seed 002: 花猪, 查叫, 退杠; T/TFMJ: refund
    first). Emits EV_CHECK for each checked seat."""
    rs = g.rs
    np = g.np
    hz_on = rs[_P_HUAZHU] != 0
    status = bytearray(np)  # 255 not checked (has won)
    value = [-1] * np
    for s in range(np):
        if g.status[s] & _ST_WON:
            status[s] = 255
            continue
        if cannot_win(g, s):
            status[s] = CK_HUAZHU if hz_on else CK_NOT_READY
            continue
        value[s] = ready_value(g, s)[0]
        status[s] = CK_READY if value[s] >= 0 else CK_NOT_READY
    for s in range(np):
        if status[s] != 255:
            ev.append((EV_CHECK, s, status[s], value[s]))
    if hz_on:
        _huazhu(g, ev, status)
    if rs[_P_TUIGANG] and rs[_P_TUIGANG_FIRST]:
        _refunds(g, ev, status)
    if rs[_P_CHAJIAO]:
        for s in range(np):
            if status[s] == CK_NOT_READY or (status[s] == CK_HUAZHU and rs[_P_HUAZHU_CHAJIAO]):
                for r in range(np):
                    if status[r] == CK_READY:
                        pay(g, ev, s, r, fan.base(rs, value[r]), PAY_CHAJIAO)
    if rs[_P_TUIGANG] and not rs[_P_TUIGANG_FIRST]:
        _refunds(g, ev, status)


def _huazhu(g, ev, status):
    """查花猪: each 花猪 pays rs huazhu units to each payee (-1: the cap's
    value, 满格; with no cap, 6 doublings)."""
    rs = g.rs
    amount = rs[_P_HUAZHU] * rs[_P_BASE_POINTS]
    if amount < 0:
        cap = rs[_P_CAP]
        amount = fan.base(rs, cap if cap >= 0 else 6)
    only_in = rs[_P_HUAZHU_PAYEES] == 1
    for s in range(g.np):
        if status[s] != CK_HUAZHU:
            continue
        for r in range(g.np):
            if r == s or status[r] == CK_HUAZHU or (only_in and status[r] == 255):
                continue
            pay(g, ev, s, r, amount, PAY_HUAZHU)


def _refunds(g, ev, status):
    for s in range(g.np):
        if status[s] == CK_NOT_READY or status[s] == CK_HUAZHU:
            refund(g, ev, s)
