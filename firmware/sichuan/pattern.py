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
    ANY    part & m != 0           NONE  part & m == 0      (m = a | b << 8)
COUNTED is no part: its condition holds when built-in pattern a did not
count (absorbed_by a built-in).

A part is figured when a condition first asks for it, once a score (the
tiles, the melds, the win) or once a reading (how the groups read, the
winning tile's roles, each role looked for only when asked), and the parts
are numbered cheapest first, the order the conditions are kept and tested
in: a pattern that fails on how the win came never looks at the groups. A
part about the groups holds when some way of grouping the concealed tiles
gives it, as 带幺九 is read; each part is asked on its own. Nothing
allocates.
"""

import struct

from micropython import const

from . import fan, shape

# Parts of a win, numbered cheapest first: a pattern's conditions are
# tested in this order and a part is figured only when a test reaches it.
# Ranks are bits 0..8 (1..9); suits count 1..3.
HOW = const(0)        # the fan flags of the win (fan.ZIMO ...)
WIN_RANK = const(1)   # the winning tile's rank (a bit); 0 if not known
PENG = const(2)       # 碰
MINGGANG = const(3)   # 明杠: 直杠 and 补杠
ANGANG = const(4)     # 暗杠
MELDS = const(5)      # every meld
SHOWN = const(6)      # 碰 and 明杠 (what 门清 forbids)
GANGS = const(7)      # every kong
H_SUITS = const(8)    # suits in the whole hand, melds included
H_RANKS = const(9)    # ranks held in the whole hand (bits)
C_SUITS = const(10)   # suits among the concealed tiles
C_RANKS = const(11)   # ranks among the concealed tiles
FOURS = const(12)     # faces held four times (根), melds included
READING = const(13)   # bits: R_PUNGS, R_RUNS, R_PAIRS, R_GROUPS
COUNTED = const(14)   # a condition on a built-in pattern, not a part
TERMINALS = const(15)  # 1: every group and the pair hold a 1 or a 9 (带幺)
PAIR = const(16)      # the pair's rank (bits; any grouping's, every pair of 七对)
STRAIGHT = const(17)  # 1: 123 456 789 of one suit as three runs (一条龙)
ROLE = const(18)      # bits: the winning tile's roles (W_*)
WAITS = const(19)     # faces the hand waited on before the win; 0 if not known
NPARTS = const(20)
_RUNS_KNOWN = const(0x100000)  # _win[7]: READING's R_RUNS bit figured
_PER_READING = const(0x17A000)  # READING (and its R_RUNS), TERMINALS, PAIR, STRAIGHT, ROLE

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
ANY = const(2)   # before NONE: a pattern's conditions are tested in order, and
NONE = const(3)  # win.as's ANY asks fewer roles than win.only's NONE

MAXHOUSE = const(8)  # patterns a ruleset may define
MAXCOND = const(8)   # conditions a pattern may have
_AT_CAP = const(63)
_R_NPATTERNS = const(24)  # built-in patterns: COUNTED's a, absorbs' bits
_F_HOUSE0 = const(30)     # out[] index of the first house pattern
_F_RD_PUNGS = const(0)
_F_RD_QIDUI = const(2)

_feat = [0] * NPARTS
# the win being scored: concealed counts (with the winning tile), every copy
# held, melds, void, flags, winning face, reading; the parts figured (bits);
# the roles asked and those found (W_* bits, this reading)
_win = [None, None, None, -1, 0, -1, 0, 0, 0]  # type: list
_mc = bytearray(27)  # copies in melds (WAITS: a fifth copy is no wait)
_suit = bytearray(9)


def check(prog, n, names):
    """ValueError naming the first pattern (1-based) of a program of n that
    is not one this core can score, or if `names` (per pattern its id and
    name, each a length byte and UTF-8) does not name n patterns."""
    if n > MAXHOUSE:
        raise ValueError("%d house patterns; at most %d" % (n, MAXHOUSE))
    i = 0
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
            if part >= NPARTS or op > NONE or (part == COUNTED and (
                    op or prog[j + 2] >= _R_NPATTERNS)):
                raise ValueError("house pattern %d: condition %d is not one this core knows"
                                 % (d + 1, (j - i - 2) // 4))
        i += 6 + 4 * k
    if i != len(prog):
        raise ValueError("house patterns: %d bytes after the last" % (len(prog) - i))
    i = 0
    for _ in range(2 * n):
        i += 1 + names[i] if i < len(names) else 1
    if i != len(names):
        raise ValueError("house pattern names do not match the patterns")


def section(rs):
    """The house patterns' part of rs's blob (sichuan.ruleset, format 3)."""
    return (bytes((rs.house_n,)) + struct.pack("<H", len(rs.house_prog)) + rs.house_prog
            + struct.pack("<H", len(rs.house_names)) + rs.house_names)


def unpack(body, i):
    """(count, program, names) of a format 3 blob's house patterns at body[i:]."""
    if i + 3 > len(body):
        raise ValueError("ruleset blob: format 3 without house patterns")
    count = body[i]
    j = i + 3 + (body[i + 1] | body[i + 2] << 8)
    if count == 0 or j + 2 > len(body):
        raise ValueError("ruleset blob: house patterns overrun the blob")
    if j + 2 + (body[j] | body[j + 1] << 8) != len(body):
        raise ValueError("ruleset blob length %d is wrong" % (len(body) + 4))
    return count, body[i + 3 : j], body[j + 2 :]


def hand(rs, counts, full, melds, void, flags, win):
    """A win is being scored (fan.score): counts, the concealed tiles with the
    winning tile; full, every copy held. Its parts are figured as asked."""
    w = _win
    w[0] = counts
    w[1] = full
    w[2] = melds
    w[3] = void
    w[4] = flags
    w[5] = win
    w[7] = 0


def score(rs, reading, counts, melds, out, win):
    """Fan the house patterns add to one reading (fan.RD_*; built-ins they
    absorb taken off: the result may be negative); fills out[HOUSE0 + d]."""
    w = _win
    w[6] = reading
    w[7] &= ~_PER_READING
    w[8] = 0
    _feat[ROLE] = 0
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
    for _ in range(k):
        part = p[j]
        op = p[j + 1]
        m = p[j + 2] | p[j + 3] << 8
        j += 4
        if part == COUNTED:
            if out[m]:
                return False
            continue
        if part == ROLE:  # only the roles asked are looked for
            x = _roles(m if op == ANY else 31)
        else:
            x = _part(part)
            if part == READING and m & R_RUNS:
                x = _runs_bit(x)
        if op == RANGE:
            if x < p[j - 2] or x > p[j - 1]:
                return False
        elif op == ALL:
            if x & m != m:
                return False
        elif op == NONE:
            if x & m:
                return False
        elif not x & m:
            return False
    return True


def _part(part):
    """The value of a part of the win being scored, figured once."""
    w = _win
    f = _feat
    if w[7] >> part & 1:
        return f[part]
    w[7] |= 1 << part
    c = w[0]
    if part == HOW:
        x = w[4] & 0xFFFF
    elif part == WIN_RANK:
        x = 1 << w[5] % 9 if w[5] >= 0 else 0
    elif part < H_SUITS:
        for i in range(PENG, H_SUITS):
            f[i] = 0
        for m in w[2]:
            f[PENG + ((m >> 5) + 1) // 2] += 1  # sichuan.meld kind: 0 碰, 1 直杠, 2 补杠, 3 暗杠
        f[MELDS] = f[PENG] + f[MINGGANG] + f[ANGANG]
        f[SHOWN] = f[PENG] + f[MINGGANG]
        f[GANGS] = f[MINGGANG] + f[ANGANG]
        w[7] |= 0xFC  # every meld part at once
        return f[part]
    elif part < FOURS:
        _tiles(w[1] if part < C_SUITS else c, part & ~1)
        w[7] |= 3 << (part & ~1)
        return f[part]
    elif part == FOURS:
        x = 0
        for y in w[1]:
            if y == 4:
                x += 1
    elif part == WAITS:
        x = _waits(c, w[2], w[3], w[5])
    else:
        x = _reading_part(part, w[6], c, w[2], w[5])
    f[part] = x
    return x


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


def _reading_part(part, reading, c, melds, win):
    """READING, TERMINALS, PAIR or STRAIGHT of one reading (fan.RD_*)."""
    qidui = reading == _F_RD_QIDUI
    pungs = reading == _F_RD_PUNGS
    if part == READING:
        if qidui:
            return R_PAIRS
        if pungs:
            return R_PUNGS | R_GROUPS
        return R_GROUPS  # R_RUNS only when asked: _runs_bit
    if part == TERMINALS:
        if qidui or pungs:
            return _only_19(c) and fan.melds_terminal(melds)
        return fan.terminal_groups(c) and fan.melds_terminal(melds)
    if part == STRAIGHT:
        return 0 if qidui or pungs else _straight(c)
    pair = 0  # PAIR
    for x in range(27):
        if c[x] >= 2 and (qidui or (pungs and c[x] == 2)):
            pair |= 1 << x % 9
        elif c[x] >= 2 and not pungs:
            c[x] -= 2
            if shape.is_all_groups(c):
                pair |= 1 << x % 9
            c[x] += 2
    return pair


def _runs_bit(x):
    """READING's value x with R_RUNS, figured once a reading."""
    w = _win
    if not w[7] & _RUNS_KNOWN:
        w[7] |= _RUNS_KNOWN
        if w[6] != _F_RD_QIDUI and w[6] != _F_RD_PUNGS and not w[2] and _runs_only(w[0]):
            x |= R_RUNS
            _feat[READING] = x
    return _feat[READING]


def _roles(asked):
    """The winning tile's roles among `asked` (W_* bits) in this reading,
    each looked for once."""
    w = _win
    new = asked & ~w[8]
    if new and w[5] >= 0:
        w[8] |= new
        c = w[0]
        t = w[5]
        r = t % 9
        got = 0
        if w[6] == _F_RD_QIDUI:
            got = W_SINGLE
        elif w[6] == _F_RD_PUNGS:
            got = W_PUNG if c[t] == 3 else W_SINGLE
        else:
            if new & W_MIDDLE and 0 < r < 8 and fan.run_reads(c, t - 1):
                got = W_MIDDLE
            if new & (W_EDGE | W_OPEN):
                if r < 7 and new & (W_EDGE if r == 6 else W_OPEN) and fan.run_reads(c, t):
                    got |= W_EDGE if r == 6 else W_OPEN
                if r > 1 and new & (W_EDGE if r == 2 else W_OPEN) and fan.run_reads(c, t - 2):
                    got |= W_EDGE if r == 2 else W_OPEN
            if new & W_PUNG and c[t] >= 3:
                c[t] -= 3
                if shape.is_standard(c, -1):
                    got |= W_PUNG
                c[t] += 3
            if new & W_SINGLE and c[t] >= 2:
                c[t] -= 2
                if shape.is_all_groups(c):
                    got |= W_SINGLE
                c[t] += 2
        _feat[ROLE] |= got & new
    return _feat[ROLE] & asked


def _only_19(c):
    for x in range(27):
        if c[x] and 0 < x % 9 < 8:
            return 0
    return 1


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
