"""House patterns: 番 a rule file defines, in the core's integer form.

A ruleset may carry up to MAXHOUSE patterns of its own (docs/patterns.md).
The host compiles each from the rule file into a program the blob carries;
this module checks a program (when a blob is loaded) and scores it (inside
fan.score, once per reading of the hand). It is imported by the first
ruleset that has house patterns: a table that has none holds none of it.

A program is, per pattern: value (doublings 0..15, or AT_CAP 63), the
number of conditions k, the built-in patterns it absorbs (24 bits, LE), the
house patterns it absorbs (8 bits, already transitive), then k conditions
of 4 bytes: part, op, a, b. A pattern counts when every condition holds and
no other pattern that holds absorbs it. A condition reads one part of the
win (a small int, below) and tests it:
    RANGE  a <= part <= b          ALL   part & m == m
    NONE   part & m == 0           ANY   part & m != 0      (m = a | b << 8)
COUNTED is no part: its condition holds when built-in pattern a did not
count (absorbed_by a built-in).

Parts are figured once per score (the whole hand's tiles, the melds, the
win) or once per reading (how the groups read, the winning tile's role),
and only those the ruleset's patterns use (its `need` bits). A part about
the groups holds when some way of grouping the concealed tiles gives it,
as 带幺九 is read; each part is asked on its own. Nothing allocates.
"""

from micropython import const

from . import fan, shape

# Parts of a win. Ranks are bits 0..8 (1..9); suits count 1..3.
H_SUITS = const(0)    # suits in the whole hand, melds included
H_RANKS = const(1)    # ranks held in the whole hand (bits)
C_SUITS = const(2)    # suits among the concealed tiles
C_RANKS = const(3)    # ranks among the concealed tiles
FOURS = const(4)      # faces held four times (根), melds included
PENG = const(5)       # 碰
MINGGANG = const(6)   # 明杠: 直杠 and 补杠
ANGANG = const(7)     # 暗杠
MELDS = const(8)      # every meld
SHOWN = const(9)      # 碰 and 明杠 (what 门清 forbids)
GANGS = const(10)     # every kong
HOW = const(11)       # the fan flags of the win (fan.ZIMO ...)
WIN_RANK = const(12)  # the winning tile's rank (a bit); 0 if not known
WAITS = const(13)     # faces the hand waited on before the win; 0 if not known
READING = const(14)   # bits: R_PUNGS, R_RUNS, R_PAIRS, R_GROUPS
STRAIGHT = const(15)  # 1: 123 456 789 of one suit as three runs (一条龙)
TERMINALS = const(16)  # 1: every group and the pair hold a 1 or a 9 (带幺)
ROLE = const(17)      # bits: the winning tile's roles (W_*)
PAIR = const(18)      # the pair's rank (bits; any grouping's, every pair of 七对)
COUNTED = const(19)   # a condition on a built-in pattern, not a part
NPARTS = const(20)
_HAND_PARTS = const(0x3FFF)  # parts 0..13: one figure per score
_READ_PARTS = const(0x7C000)  # parts 14..18: per reading

R_PUNGS = const(1)   # four pungs (or kongs) and a pair
R_RUNS = const(2)    # four runs and a pair
R_PAIRS = const(4)   # seven pairs
R_GROUPS = const(8)  # four groups and a pair, any

W_MIDDLE = const(1)  # 卡张: the middle of a run
W_EDGE = const(2)    # 边张: the 3 of 12, the 7 of 89
W_OPEN = const(4)    # 两边: either end of an open two
W_SINGLE = const(8)  # 单钓: it pairs a single
W_PUNG = const(16)   # 对出: it makes a pung of a pair

RANGE = const(0)
ALL = const(1)
NONE = const(2)
ANY = const(3)

MAXHOUSE = const(8)  # patterns a ruleset may define
MAXCOND = const(8)   # conditions a pattern may have
_AT_CAP = const(63)
_R_NPATTERNS = const(24)  # built-in patterns: COUNTED's a, absorbs' bits
_F_HOUSE0 = const(30)     # out[] index of the first house pattern
_F_RD_PUNGS = const(0)
_F_RD_QIDUI = const(2)

_feat = [0] * NPARTS
_mc = bytearray(27)  # copies in melds (WAITS: a fifth copy is no wait)
_suit = bytearray(9)


def check(prog, n):
    """The need bits (1 << part) of a program of n patterns; ValueError
    naming the first pattern (1-based) that is not one the core can score."""
    if n > MAXHOUSE:
        raise ValueError("%d house patterns; at most %d" % (n, MAXHOUSE))
    i = 0
    need = 0
    for d in range(n):
        if i + 6 > len(prog):
            raise ValueError("house pattern %d: the program ends early" % (d + 1))
        v = prog[i]
        k = prog[i + 1]
        if v > 15 and v != _AT_CAP:
            raise ValueError("house pattern %d: value %d is out of range 0..15" % (d + 1, v))
        if k > MAXCOND or i + 6 + 4 * k > len(prog):
            raise ValueError("house pattern %d: %d conditions" % (d + 1, k))
        if prog[i + 5] >> n or prog[i + 5] >> d & 1:
            raise ValueError("house pattern %d: absorbs no such pattern" % (d + 1))
        for j in range(i + 6, i + 6 + 4 * k, 4):
            part = prog[j]
            op = prog[j + 1]
            if part > COUNTED or op > ANY or (part == COUNTED and (
                    op or prog[j + 2] >= _R_NPATTERNS)):
                raise ValueError("house pattern %d: condition %d is not one this core knows"
                                 % (d + 1, (j - i - 2) // 4))
            need |= 1 << part
        i += 6 + 4 * k
    if i != len(prog):
        raise ValueError("house patterns: %d bytes after the last" % (len(prog) - i))
    return need


def hand(rs, counts, full, melds, void, flags, win):
    """Figure the parts of the win that no reading changes. counts: the
    concealed tiles with the winning tile; full: every copy held."""
    need = rs.house_need
    f = _feat
    if need & 3:
        _tiles(full, H_SUITS)
    if need & 12:
        _tiles(counts, C_SUITS)
    if need & 1 << FOURS:
        n = 0
        for x in full:
            if x == 4:
                n += 1
        f[FOURS] = n
    if need & 0x7E0:
        for i in range(PENG, GANGS + 1):
            f[i] = 0
        for m in melds:
            k = m >> 5  # sichuan.meld kind: 0 碰, 1 直杠, 2 补杠, 3 暗杠
            f[PENG + (k + 1) // 2] += 1
        f[MELDS] = f[PENG] + f[MINGGANG] + f[ANGANG]
        f[SHOWN] = f[PENG] + f[MINGGANG]
        f[GANGS] = f[MINGGANG] + f[ANGANG]
    f[HOW] = flags & 0xFFFF
    f[WIN_RANK] = 1 << win % 9 if win >= 0 else 0
    if need & 1 << WAITS:
        f[WAITS] = _waits(counts, melds, void, win)


def _tiles(c, i):
    s = 0
    r = 0
    for x in range(27):
        if c[x]:
            s |= 1 << x // 9
            r |= 1 << x % 9
    _feat[i] = (s & 1) + (s >> 1 & 1) + (s >> 2)
    _feat[i + 1] = r


def _waits(counts, melds, void, win):
    if win < 0:
        return 0
    counts[win] -= 1
    m = shape.waits_mask(counts, void, fan.meld_counts(melds, _mc))
    counts[win] += 1
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


def score(rs, reading, counts, melds, out, win):
    """Fan the house patterns add to one reading (built-ins they absorb taken
    off: the result may be negative); fills out[HOUSE0 + d]."""
    if rs.house_need & _READ_PARTS:
        _reading(reading, counts, melds, win, rs.house_need)
    p = rs.house_prog
    n = len(p)
    hit = 0
    gone = 0
    i = 0
    d = 0
    while i < n:
        k = p[i + 1]
        if _holds(p, i + 6, k, out):
            hit |= 1 << d
            gone |= p[i + 5]
        i += 6 + 4 * k
        d += 1
    hit &= ~gone
    add = 0
    i = 0
    d = 0
    while hit >> d:
        if hit >> d & 1:
            v = p[i]
            if v == _AT_CAP:
                v = fan.at_cap(rs)
            out[_F_HOUSE0 + d] = 1 + v
            add += v
            m = p[i + 2] | p[i + 3] << 8 | p[i + 4] << 16
            b = 0
            while m >> b:
                if m >> b & 1 and out[b]:
                    add -= out[b] - 1
                    out[b] = 0
                b += 1
        i += 6 + 4 * p[i + 1]
        d += 1
    return add


def _holds(p, j, k, out):
    f = _feat
    for _ in range(k):
        part = p[j]
        op = p[j + 1]
        a = p[j + 2]
        b = p[j + 3]
        j += 4
        if part == COUNTED:
            if out[a]:
                return False
            continue
        x = f[part]
        if op == RANGE:
            if x < a or x > b:
                return False
        else:
            m = a | b << 8
            if op == ALL:
                if x & m != m:
                    return False
            elif op == NONE:
                if x & m:
                    return False
            elif not x & m:
                return False
    return True


def _reading(reading, counts, melds, win, need):
    """Figure the parts of one reading (fan.RD_*) its patterns use."""
    f = _feat
    role = 0
    pair = 0
    if reading == _F_RD_QIDUI:
        f[READING] = R_PAIRS
        f[STRAIGHT] = 0
        f[TERMINALS] = _only_19(counts)
        for x in range(27):
            if counts[x] >= 2:
                pair |= 1 << x % 9
        if win >= 0:
            role = W_SINGLE
    elif reading == _F_RD_PUNGS:
        f[READING] = R_PUNGS | R_GROUPS
        f[STRAIGHT] = 0
        f[TERMINALS] = _only_19(counts) and fan.melds_terminal(melds)
        for x in range(27):
            if counts[x] == 2:
                pair = 1 << x % 9
        if win >= 0:
            role = W_PUNG if counts[win] == 3 else W_SINGLE
    else:
        f[READING] = R_GROUPS | (R_RUNS if need & 1 << READING and not melds
                                 and _runs_only(counts) else 0)
        if need & 1 << STRAIGHT:
            f[STRAIGHT] = _straight(counts)
        if need & 1 << TERMINALS:
            f[TERMINALS] = fan.terminal_groups(counts) and fan.melds_terminal(melds)
        if need & 1 << ROLE and win >= 0:
            role = _roles(counts, win)
        if need & 1 << PAIR:
            for x in range(27):
                if counts[x] >= 2:
                    counts[x] -= 2
                    if shape.is_all_groups(counts):
                        pair |= 1 << x % 9
                    counts[x] += 2
    f[ROLE] = role
    f[PAIR] = pair


def _only_19(c):
    for x in range(27):
        if c[x] and 0 < x % 9 < 8:
            return 0
    return 1


def _run_out(c, x, take):
    """Take (take 1) or put back (-1) the run x, x+1, x+2; True if taken."""
    if take > 0 and not (c[x] and c[x + 1] and c[x + 2]):
        return False
    c[x] -= take
    c[x + 1] -= take
    c[x + 2] -= take
    return True


def _run_reads(c, x):
    """True if the run x x+1 x+2 out of c leaves groups and a pair."""
    if not _run_out(c, x, 1):
        return False
    ok = shape.is_standard(c, -1)
    _run_out(c, x, -1)
    return ok


def _roles(c, w):
    r = w % 9
    role = 0
    if 0 < r < 8 and _run_reads(c, w - 1):
        role = W_MIDDLE
    if r < 7 and _run_reads(c, w):
        role |= W_EDGE if r == 6 else W_OPEN
    if r > 1 and _run_reads(c, w - 2):
        role |= W_EDGE if r == 2 else W_OPEN
    if c[w] >= 3:
        c[w] -= 3
        if shape.is_standard(c, -1):
            role |= W_PUNG
        c[w] += 3
    if c[w] >= 2:
        c[w] -= 2
        if shape.is_all_groups(c):
            role |= W_SINGLE
        c[w] += 2
    return role


def _straight(c):
    for o in (0, 9, 18):
        if c[o] and c[o + 1] and c[o + 2] and c[o + 3] and c[o + 4] and c[o + 5] and (
                c[o + 6] and c[o + 7] and c[o + 8]):
            _nine(c, o, -1)
            ok = shape.is_standard(c, -1)
            _nine(c, o, 1)
            if ok:
                return 1
    return 0


def _nine(c, o, step):
    for x in range(o, o + 9):
        c[x] += step


def _runs_only(c):
    """True if the concealed tiles read as runs and one pair."""
    paired = 0
    for o in (0, 9, 18):
        n = 0
        for x in range(o, o + 9):
            n += c[x]
        if n % 3 == 0:
            if not _suit_runs(c, o, -1):
                return False
        elif n % 3 == 2 and not paired:
            paired = 1
            ok = False
            for p in range(o, o + 9):
                if c[p] >= 2 and _suit_runs(c, o, p):
                    ok = True
                    break
            if not ok:
                return False
        else:
            return False
    return paired == 1


def _suit_runs(c, o, pair):
    """True if the suit at o, less a pair at face `pair` (-1 none), is runs only."""
    s = _suit
    for i in range(9):
        s[i] = c[o + i]
    if pair >= 0:
        s[pair - o] -= 2
    for i in range(7):
        r = s[i]
        if s[i + 1] < r or s[i + 2] < r:
            return False
        s[i + 1] -= r
        s[i + 2] -= r
    return not s[7] and not s[8]
