"""听用 wild tiles (宜宾): win shapes and waits when some tiles stand for any tile.

Seed 000 宜宾玩法: "本金的前后2张牌即为听用，听用牌为万能牌，共8张 ... 如：翻开的本金是
一万，则二万、九万是听用". `wild_faces(benjin)` gives the two faces (rank +-1 in
the 本金's suit, 1 and 9 wrapping); every copy of them is wild. A wild stands
for any face outside the void suit, a fifth copy included (it is no physical
tile); a wild copy of the void suit is still wild.

How a hand with wild tiles is checked: the wild copies are taken out (W of
them) and each suit's real tiles are asked for the fewest wild tiles that
make them groups only, or groups and a pair holding a real tile (`_costs`).
The hand wins when the cheapest split over the suits (the pair in one suit,
or two wilds as the pair) costs at most W: the wilds left over make whole
groups, since the tile count is 3n+2. Seven pairs need one wild per odd count.

A suit's costs come, on MicroPython, from one pass over its ranks that
keeps the fewest wilds per state (`_dp`, viper code: runs pending and the
pair placed), the same work for any number of wilds. CPython asks the
cheapest question that answers them: the fewest wilds is fixed mod 3 by the
suit's tile count, so mostly one value is asked. With none, shape's greedy
pass; with one, shape's group and pair waits (the rank-sum rule leaves three
ranks for the wild); with two, both join one real tile or each completes a
held partial (`_two`, `_pw2`); with more, a depth-first pass over the ranks
(`_rec`). Each interpreter runs its own fastest; the tests run both.

Waits (`waits_mask`): a face f waits when the hand plus f wins with W wilds,
i.e. the real tiles take W + 1 added tiles (f and the wilds) into a win.
Each suit's tile count mod 3 says how many added tiles it must take (for
groups, or for groups and the pair), so for one or two wilds the counts mod
3 leave a handful of splits, and `_fast` asks only the suit questions those
splits need, cheapest first, and stops when one fails: this is what makes
the board's waits fast (the general costs asked every question of every
suit, 2 to 4 times the work). Counts 2, 2, 2 (one wild) and 2, 2, 1 (two)
need tiles of every suit, so no 缺 suit: they take the general path below.
Take one wild and counts 2, 1, 0: the 3k suit
must be groups; f and the wild both join the 3k+1 suit (its two-tile ranks,
`_two`) when the 3k+2 suit holds the pair, or one each joins the others
(their one-tile waits). A suit's two-tile ranks hold its one-tile pair
waits (f pairs p and p makes a pung), so they are not asked twice, and
`_two` notes the single-tile pair waits it meets on the way. With two wilds
and a 3k+2 suit whose tiles already win alone or with one wild, every face
waits (f joins the wilds). Answers are symmetric: when f fits, each face
one of the wilds stands for fits too (f then being a wild), so `_near`
keeps them and does not ask them again, and `_pw2` hands `_two` the ranks
found so far. Three or more wilds take the general path (`_real_waits`):
the suits' costs found once, and f changes only its own suit, asked within
the wilds the other suits leave; a face more than two ranks from every tile
of its suit can only join wilds, so one answer covers all of them. Without
wild copies the plain shape.waits_mask answers. A drawn wild wins when any
face does.
Nothing allocates; the recursion is at most nine deep.

On MicroPython `_dp`, `_two` and `_pw2`, the loops that ask shape's groups
check most often, and `_occ` are viper code (machine code from the same
source; CPython runs `_two`, `_pw2` and `_occ` as Python with `ptr8` the
bytearray itself), like shape's `is_groups`, `rank_sum`, `group_waits` and
`drawable`: the waits with one or two wilds became 2.2 and 2.7 times
faster, with three and four 2.7 and 3.8 times (docs/decisions.md).
"""

import sys

import micropython
from micropython import const

from . import fan, shape
from . import ruleset as R
from .shape import (
    drawable,
    group_waits,
    is_groups,
    is_pair_groups,
    pair_waits,
    rank_sum,
    suit_size,
)

_INF = const(99)
# Per suit t of the hand asked last: _cst[t] fewest wilds for groups, _cst[t + 3]
# for groups and the pair, _cst[t + 6] its tile count. _cst[9]: see _two.
_cst = bytearray(10)


def wild_faces(benjin):
    """(w1, w2): the faces one rank above and below the 本金 face, wrapping 9->1."""
    o = benjin - benjin % 9
    r = benjin % 9
    return o + (r + 1) % 9, o + (r + 8) % 9


if sys.implementation.name == "micropython":
    _lay = bytearray(48)  # _dp's two layers of states

    @micropython.viper
    def _dp(c, t0: int, t1: int, wn: int) -> int:
        """Fewest wilds making each suit t0..t1-1 groups (g), and groups and a
        pair holding a real tile (q), _INF for none. With wn >= 0 fills _cst
        as _costs does. Returns the last suit's g | q << 8, and the suits'
        tile count << 16.

        One pass over a suit's ranks keeps the fewest per state: the runs
        started one and two ranks back (0..2 each: three alike are three
        pungs) and whether the pair is placed. At each rank the runs it
        continues take its tiles (wilds for the missing), k new runs start
        on real tiles (a wild may start 7-8-9), the rest go into pungs or the
        pair, wilds filling them. Machine code: 0.6 us a suit on this
        machine, where _rec took 10 for b = 3."""
        p = ptr8(c)
        d = ptr8(_lay)
        s = ptr8(_cst)
        tot = 0
        g = 0
        q = 0
        for u in range(t0, t1):
            o = 9 * u
            n = 0
            d[0] = 0
            live = 1  # states held (bits): j = 8 * s1 + 2 * s2 + pair placed
            cur = 0
            for i in range(9):
                x = p[o + i]
                n += x
                nx = 24 - cur
                nl = 0
                j = 0
                while live >> j:
                    if (live >> j) & 1:
                        v = d[cur + j]
                        y = x - (j >> 3) - ((j >> 1) & 3)  # tiles the runs leave
                        if y < 0:
                            v -= y  # wilds in the runs
                            y = 0
                        km = y if i < 6 else (y + 1 if i == 6 else 0)
                        if km > 2:
                            km = 2  # three runs alike are three pungs
                        tb = ((j >> 3) << 1) + (j & 1)
                        for k in range(km + 1):
                            r = y - k
                            w = v
                            if r < 0:  # a wild starts 7-8-9
                                r = 0
                                w += 1
                            for a in range(2 if r and not j & 1 else 1):
                                # the rest into pungs (a 0), or one of them the
                                # pair: (-r) and (2 - r) mod 3 as 2-bit tables
                                e = w + (((24964 if a else 34328) >> 2 * r) & 3)
                                t = tb + 8 * k + a
                                if not (nl >> t) & 1 or e < d[nx + t]:
                                    d[nx + t] = e
                                    nl |= 1 << t
                    j += 1
                live = nl
                cur = nx
            g = d[cur]  # wilds finish any tiles into groups
            q = d[cur + 1] if live & 2 else _INF
            tot += n
            if wn >= 0:
                s[u] = g if g <= wn else _INF
                s[u + 3] = _INF if q > wn else q  # the void suit holds none
                s[u + 6] = n
        return g | q << 8 | tot << 16

    def _costs(c, wn, void):
        """Fill _cst for c (no wild copies) and wn wilds (_INF for more);
        returns the tile count. The void suit (empty) takes no pair. The
        pair costs hold a real tile: callers count two wilds as the pair
        (groups + 2)."""
        return _dp(c, 0, 3, wn) >> 16

    def _fewest(c, o, pair, b):
        """Fewest wilds (any number; callers compare it with b) making the suit
        at o groups, or groups and a pair holding a real tile."""
        t = o // 9
        return _dp(c, t, t + 1, -1) >> 8 * pair & 255

else:
    from .shape import ptr8

    def _costs(c, wn, void):
        """As MicroPython's _costs. CPython's: the fewest wilds is fixed mod 3
        by the tile count, so mostly one value is asked, by the cheapest
        check that answers it (the depth-first _rec last)."""
        tot = 0
        for t in range(3):
            o = 9 * t
            n = suit_size(c, o)
            tot += n
            r = n % 3
            # calls only when wn reaches the next value (most hands hold one
            # or two wilds); groups and two wilds as the pair bound p (g + 2)
            if r == 2:
                g = 1 if wn and _wf(c, o, 0) else (_cost(c, o, n, 0, wn, 4) if wn > 3 else _INF)
                p = 0 if is_pair_groups(c, o) else (
                    3 if g == 1 else (_cost(c, o, n, 1, wn, 3) if wn > 2 else _INF))
            elif r:
                g = _cost(c, o, n, 0, wn, 2) if wn > 1 else _INF
                p = 1 if wn and _wf(c, o, 1) else (
                    4 if g == 2 else (_cost(c, o, n, 1, wn, 4) if wn > 3 else _INF))
            else:
                g = 0 if not n or is_groups(c, o) else (
                    _cost(c, o, n, 0, wn, 3) if wn > 2 else _INF)
                p = 2 if not g else (_cost(c, o, n, 1, wn, 2) if wn > 1 else _INF)
            _cst[t] = g
            _cst[t + 3] = _INF if t == void or p > wn else p
            _cst[t + 6] = n
        return tot

    def _fits(c, o, n, pair, b):
        """Non-zero if the suit at o (n tiles) is groups (and the pair) with at most
        b wilds; only b with the right count mod 3 can work. The pair holds a real
        tile: a pair of two wilds fits anywhere, so callers count it (g + 2).
        With one or two wilds it is ranks (bits) one of them can stand for."""
        b -= (n + b - 2 * pair) % 3
        if b < 0:
            return 0
        if not n:
            return 512
        if b == 0:
            return 512 if (is_pair_groups(c, o) if pair else is_groups(c, o)) else 0
        if b == 1:
            return _wf(c, o, pair) >> o
        if b > 2:
            return 512 if _fewest(c, o, pair, b) <= b else 0
        return _pw2(c, o, 1) if pair else _two(c, o, 1, 0)

    def _cost(c, o, n, pair, wn, b):
        """Fewest wilds b, b + 3, ... (<= wn, else _INF) making the suit at o (n
        tiles) groups, or groups and the pair."""
        while b <= wn:
            if _fits(c, o, n, pair, b):
                return b
            b += 3
        return _INF

    def _fewest(c, o, pair, b):
        """Fewest wilds (at most b, else _INF) making the suit at o groups, or
        groups and a pair holding a real tile: a depth-first pass pruned by
        b, on CPython as fast as _dp would be slow."""
        return _rec(c, o, 0, 0, 0, pair, b)

    def _rec(c, o, i, s1, s2, pair, budget):
        """Fewest wilds (at most budget, else _INF) to finish ranks i..8 of the suit
        at o; s1/s2 runs started at rank i-1/i-2 still need rank i; pair: the pair
        is still to be placed in this suit."""
        while i < 9 and not s1 and not s2 and not c[o + i] and i != 6:
            i += 1  # nothing here and nothing pending
        if i == 9:
            return _INF if pair else 0
        x = c[o + i]
        need = s1 + s2
        cost = need - x if need > x else 0  # wilds standing in for run tiles
        if cost > budget:
            return _INF
        y = x - need if x > need else 0     # real tiles left at this rank
        best = _INF
        kmax = y if i < 6 else (y + 1 if i == 6 else 0)  # a wild may start 7-8-9 only
        for k in range(kmax + 1):
            base = cost + (k - y if k > y else 0)
            r = y - k if y > k else 0
            for q in range(2 if pair and r else 1):
                # q = 1 takes the pair here: a single and a wild, or two of the r
                e = base + (2 * q - r) % 3  # wilds completing the rest into pungs
                b = budget if best == _INF else best - 1
                if e <= b:
                    v = _rec(c, o, i + 1, k, s1, pair - q, b - e)
                    if v != _INF and e + v < best:
                        best = e + v
        return best


@micropython.viper
def _occ(c, o: int) -> int:
    """Ranks held in the suit at o (bits 0..8) and ranks held twice (bits 9..17)."""
    p = ptr8(c)
    x = 0
    for i in range(9):
        if p[o + i]:
            x |= (513 if p[o + i] > 1 else 1) << i
    return x


@micropython.viper
def _two(c, o: int, stop: int, seed: int) -> int:
    """Ranks (bits) of two added tiles that together make the suit at o groups.
    Either both join one real tile z (c - z is groups, z = rank sum mod 3: any
    ranks z-2..z+2 complete it), or each completes a held partial (a pair, or
    two tiles one or two ranks apart); their rank sum is fixed mod 3.
    stop: return at the first pair found. seed: ranks found already (pairs of
    them are not asked; returned with the answer). Viper on MicroPython (see
    the module notes); sums stay non-negative, as viper's % is C's."""
    p = ptr8(c)
    g = is_groups
    s = int(rank_sum(c, o))
    m = 0
    z = s % 3
    while z < 9:
        if p[o + z]:
            p[o + z] -= 1
            if g(c, o):
                m |= (31 << z >> 2) & 511
            p[o + z] += 1
        z += 3
    ptr8(_cst)[9] = 1 if m else 0  # c + z is the pair and groups: pair waits exist
    if m and stop:
        return m
    m |= seed  # ranks found already: pairs of them are not asked
    x = int(_occ(c, o))
    y = x & (x >> 1)
    k = ((x >> 9) | (y << 2) | (y >> 1) | ((x & (x >> 2)) << 1)) & 511  # completions
    if not k & (m ^ 511):
        return m  # both added tiles would be found already
    t = 3 - s % 3
    f = 0
    while k >> f:
        if (k >> f) & 1:
            p[o + f] += 1
            h = f + (t + 18 - 2 * f) % 3  # f + h = -s mod 3, h >= f
            while h < 9:
                if (k >> h) & 1 and not ((m >> f) & (m >> h) & 1):
                    p[o + h] += 1
                    if g(c, o):
                        m |= (1 << f) | (1 << h)
                    p[o + h] -= 1
                h += 3
            p[o + f] -= 1
            if m and stop:
                break
        f += 1
    return m


@micropython.viper
def _pw2(c, o: int, stop: int) -> int:
    """Ranks r such that the suit at o plus rank r and one wild is groups and a
    pair holding a real tile q: with an added one (the other added joins
    groups), or two real ones (both added join groups). Viper, as _two."""
    p = ptr8(c)
    s = int(rank_sum(c, o))
    m = 0
    for q in range(9):
        x = p[o + q]
        if x and not (m and stop):
            if x > 1:  # c - q + r groups means c - 2q + q + r is: _two finds it
                p[o + q] = x - 2
                m |= int(_two(c, o, stop, m))
            else:
                p[o + q] = 0
                k = int(group_waits(c, o, s + 9 - q)) >> o
                if k:
                    m |= k | (1 << q)
            p[o + q] = x
    return m


def is_win(c, w1, w2, void=-1):
    """True if the concealed tiles (3n+2, wild copies of w1/w2 included) win."""
    n1 = c[w1]
    n2 = c[w2]
    c[w1] = 0  # the wild copies out (w1 != w2), put back below
    c[w2] = 0
    wn = n1 + n2
    if not wn:
        ok = shape.is_win(c, void)
    elif void < 0 or not suit_size(c, 9 * void):
        tot = _costs(c, wn, void)
        g = _cst[0] + _cst[1] + _cst[2]
        ok = (g + 2 <= wn or g - _cst[0] + _cst[3] <= wn or g - _cst[1] + _cst[4] <= wn
              or g - _cst[2] + _cst[5] <= wn
              or _qd(c, wn - 1, tot, 1) != 0)  # seven pairs: a wild as the drawn tile
    else:
        ok = False
    c[w1] = n1
    c[w2] = n2
    return ok


def waits_mask(c, w1, w2, void=-1, limit=None):
    """Bitmask of faces that complete the 3n+1 concealed tiles (wilds included).
    limit: copies held outside c (melds); a fifth copy is no wait.

    First the faces that would win as real tiles, a fifth copy included (m):
    without wilds that is the plain waits. A drawn wild wins exactly when m is
    not empty (it stands for one of them). Then the copies filter m."""
    n1 = c[w1]
    n2 = c[w2]
    c[w1] = 0
    c[w2] = 0
    wn = n1 + n2
    m = 0
    full = 0x7FFFFFF & ~(511 << 9 * void) if void >= 0 else 0x7FFFFFF
    if void < 0 or not suit_size(c, 9 * void):
        if wn == 0:
            m = shape.waits_mask(c, void)
        elif wn < 3:
            m = _fast(c, wn, full)
        if wn > 2 or m < 0 or not (m or wn) and b"\x04" in c:  # no wild: one may be a fifth copy
            m = _real_waits(c, wn, void, full)
    c[w1] = n1
    c[w2] = n2
    if m:
        m |= 1 << w1 | 1 << w2
        if limit or b"\x04" in c:
            m = drawable(c, m, limit)
    return m


def _real_waits(c, wn, void, full):
    """Faces f of the suits in play such that c + f wins with wn wilds (c holds
    no wild copies; the count of f is not checked).

    The suits' costs are found once; a candidate changes only its own suit,
    which is asked within the wilds the other suits leave."""
    tot = _costs(c, wn, void)
    m = _qd(c, wn, tot, full)
    for t in range(3):
        if t == void or m == full:  # seven pairs: every face waits
            continue
        u = (t + 1) % 3
        v = (t + 2) % 3
        g = _cst[u] + _cst[v]  # the other suits as groups
        e = g + 2  # ... and the pair: two wilds, or in one of them
        if _cst[u + 3] + _cst[v] < e:
            e = _cst[u + 3] + _cst[v]
        if _cst[u] + _cst[v + 3] < e:
            e = _cst[u] + _cst[v + 3]
        # t takes the drawn tile within wn - e wilds as groups, wn - g with the
        # pair. A face more than two ranks from every tile of the suit can
        # only join wilds (a group of it and two, or the pair of it and one),
        # the same for every rank: if that works, every rank does. Otherwise
        # only near faces can.
        e = wn - e
        g = wn - g
        o = 9 * t
        if _cst[t] <= e - 2 or _cst[t + 3] <= g - 2 or _cst[t] <= g - 1:
            m |= 511 << o
            continue
        # the pair first: mostly one question (b < 2 in _near), and the ranks
        # it finds are not asked again for groups
        n = _cst[t + 6]
        k = _near(c, o, n, 1, g, 0) if g >= 0 else 0
        if e >= 0:
            k = _near(c, o, n, 0, e, k)
        m |= k << o
    return m & full


def _qd(c, wn, tot, full):
    """Seven-pairs waits of c (no wild copies, tot tiles) with wn wilds."""
    m = 0
    if tot + wn == 13:
        k = c.count(b"\x01") + c.count(b"\x03")
        if k < wn:
            return full
        if k <= wn + 1:
            for f in range(27):
                if c[f] & 1:
                    m |= 1 << f
    return m


def _fast(c, wn, full):
    """Waits for one or two wilds by residue pattern (see the module notes)."""
    t0 = c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + c[6] + c[7] + c[8]
    t1 = c[9] + c[10] + c[11] + c[12] + c[13] + c[14] + c[15] + c[16] + c[17]
    t2 = c[18] + c[19] + c[20] + c[21] + c[22] + c[23] + c[24] + c[25] + c[26]
    r0 = t0 % 3
    r1 = t1 % 3
    q = r0 + r1 + t2 % 3
    if q == 6 or q == 5:
        return -1  # 2, 2, 2 and 2, 2, 1: no 缺 suit, rare; the general path
    m = _qd(c, wn, t0 + t1 + t2, full)
    if wn == 1:
        if q == 0:  # the drawn tile and the wild both join one suit
            bad = -1
            for o in (0, 9, 18):
                if not is_groups(c, o):
                    if bad >= 0:
                        return m
                    bad = o
            if bad < 0:
                return full
            return m | _pw2(c, bad, 0) << bad
        if r0 == r1:  # 1, 1, 1: seven pairs only
            return m
        # 2, 1, 0: a holds 3k+2 tiles, b 3k+1, z 3k (groups)
        a = 0 if r0 == 2 else (9 if r1 == 2 else 18)
        b = 0 if r0 == 1 else (9 if r1 == 1 else 18)
        if not is_groups(c, 27 - a - b):
            return m
        ga = _wf(c, a, 0)
        if is_pair_groups(c, a):
            k = _two(c, b, 0, 0)  # holds b's pair waits
            if k:
                m |= k << b
                if ga and (_cst[9] or _wf(c, b, 1)):
                    m |= ga
            return m
        if ga:
            k = _wf(c, b, 1)
            if k:
                m |= ga | k
        return m
    if r0 == 1 or r1 == 1:  # 1, 1, 0: the pair in a or b, the other takes two
        z = 0 if r0 == 0 else (9 if r1 == 0 else 18)
        a = (z + 9) % 27
        b = (z + 18) % 27
        if not is_groups(c, z):
            return m
        # with x1 the pair waits of x and x2 its two-tile ranks (x1 within x2):
        # a takes a1 if b2, a2 if b1; b likewise. _two notes most pair waits.
        ka = _two(c, a, 0, 0)
        pa = ka and (_cst[9] or _wf(c, a, 1))
        kb = _two(c, b, 0, 0)
        pb = kb and (_cst[9] or _wf(c, b, 1))
        if pb:
            m |= ka << a
        elif pa and kb:
            m |= _wf(c, a, 1)
        if pa:
            m |= kb << b
        elif pb and ka:
            m |= _wf(c, b, 1)
        return m
    # 2, 0, 0
    a = 0 if r0 == 2 else (9 if r1 == 2 else 18)
    b = (a + 9) % 27
    z = (a + 18) % 27
    gb = is_groups(c, b)
    gz = is_groups(c, z)
    if not gb and not gz:
        return m
    pa = is_pair_groups(c, a)
    ga = _wf(c, a, 0)
    if gb and gz:
        if pa or ga:
            return full
        return m | _near(c, a, suit_size(c, a), 1, 2, 0) << a  # three added: the pair and groups
    if gb:
        b = z  # b: the suit that is not groups
    # the drawn tile and a wild in b, the other wild in a; or all three in b
    # (they hold b's pair waits with one wild, asked first)
    k = _pw2(c, b, 0) if pa or ga else 0
    if ga and k:
        m |= ga | k << b
    if pa:
        m |= _near(c, b, suit_size(c, b), 0, 2, k) << b
    return m


def _wf(c, o, pair):
    """Faces (bits) that make the suit at o groups (3k+2 tiles, pair 0) or the
    pair and groups (3k+1, pair 1)."""
    return (pair_waits if pair else group_waits)(c, o, rank_sum(c, o))


def _near(c, o, n, pair, b, m):
    """m and the ranks r within two of a held tile such that the suit at o plus
    r is groups (and the pair) with b wilds: a farther rank joins no tile. n:
    the suit's tile count."""
    n += 1
    b -= (n + b - 2 * pair) % 3
    if b < 2:  # one question answers every rank
        return m | (0 if b < 0 else (_wf(c, o, pair) >> o if b == 0 else (
            _pw2(c, o, 0) if pair else _two(c, o, 0, m))))
    x = _occ(c, o) & 511
    k = (x | x << 1 | x << 2 | x >> 1 | x >> 2) & 511 & ~m
    r = 0
    while k:
        if k & 1:
            c[o + r] += 1
            if b == 2:  # ranks the wilds can stand for (bit 9 when none)
                v = _pw2(c, o, 1) if pair else _two(c, o, 1, 0)
            else:
                v = 512 if _fewest(c, o, pair, b) <= b else 0
            if v:  # what r's wilds stand for fits with r as a wild too
                m |= (v | 1 << r) & 511
                k &= ~v >> r
            c[o + r] -= 1
        k >>= 1
        r += 1
    return m


# ---- scoring: the best face for each wild copy -------------------------------

_asg = bytearray(27)   # the hand with its wild copies standing for chosen faces
_wout = bytearray(38)  # fan.NOUT
_wbest = bytearray(38)
_res = [0, 0]          # best fan found, wild copies (list cells: no allocation per update)
_pick = bytearray(9)   # the face each wild copy stands for: 8 copies and one more (查叫)
# by_face[f]: 1 + the fan of the best choice of the last score() in which a
# wild stands for face f, 0 if none: that is the fan of the hand less one wild
# winning on a real f, so one walk with a wild more scores every wait (查叫).
by_face = [0] * 27


def score(rs, counts, melds, void, flags, out, w1, w2, benjin, meld_wilds=0):
    """Fan (doublings) of a win whose concealed tiles hold wild copies of w1/w2:
    each wild stands for the face that makes the win worth most ("听用牌为万能
    牌"), as players claim it; -1 if no choice wins. Adds fan.BENJIN (three of
    the 本金 face, wilds included) and fan.NOWILD (no wild held, nor in a 飞:
    meld_wilds counts those).
    Cost: of the multisets of faces of the suits in play (not the void) for
    the W wild copies, C(18 + W - 1, W) (1140 for three), only the wins are
    walked: each wild takes only the faces that, with the wilds after it,
    still win (the waits of the tiles so far), a few percent of them. Each
    win is scored, and by_face keeps the best win per face a wild stands
    for (settle.ready_value reads every wait's value from it)."""
    wn = counts[w1] + counts[w2]
    n = 0
    for f in range(27):
        _asg[f] = counts[f]
        n += counts[f]
        by_face[f] = 0
    if n != rs[R.P_HAND_SIZE] + 1 - 3 * len(melds):
        return -1
    _asg[w1] = 0
    _asg[w2] = 0
    held = 0
    for m in melds:
        if (m & 31) == benjin:
            held += 3 if (m >> 5) & 3 == 0 else 4
    if wn == 0:
        fl = flags | (fan.NOWILD if not meld_wilds else 0)
        if _asg[benjin] + held >= 3:
            fl |= fan.BENJIN
        return fan.score(rs, _asg, melds, void, fl, out, -1)
    allowed = 0
    for t in range(3):
        if t != void and rs[R.P_SUITS] >> t & 1:
            allowed |= 511 << 9 * t
    _res[0] = -1
    _res[1] = wn
    _assign(rs, melds, void, flags, wn, 0, allowed, benjin, held)
    if _res[0] >= 0 and out is not None:
        for i in range(min(len(out), fan.NOUT)):
            out[i] = _wbest[i]
    return _res[0]


def _assign(rs, melds, void, flags, n, lo, allowed, benjin, held):
    """Give the n wilds left faces from lo up (allowed: bits of the faces of
    the suits in play), each only a face that, with the wilds after it,
    still wins (the waits of the tiles so far); score each win."""
    if n == 0:  # a win: the walk takes only faces that still win (fan.score checks)
        fl = flags | (fan.BENJIN if _asg[benjin] + held >= 3 else 0)
        v = fan.score(rs, _asg, melds, void, fl, _wout, -1)
        for i in range(_res[1]):
            f = _pick[i]
            if v >= by_face[f]:
                by_face[f] = v + 1
        if v > _res[0]:
            _res[0] = v
            for i in range(fan.NOUT):
                _wbest[i] = _wout[i]
        return
    ok = _real_waits(_asg, n - 1, void, allowed) >> lo
    f = lo
    while ok:
        if ok & 1 and _asg[f] < 7:  # an eighth copy is never needed
            _asg[f] += 1
            _pick[n - 1] = f
            _assign(rs, melds, void, flags, n - 1, f, allowed, benjin, held)
            _asg[f] -= 1
        ok >>= 1
        f += 1
