"""Win shapes and waits (下叫) on concealed tiles.

`counts` is a bytearray(27) of concealed tiles per face (0..26); melds are not
in it. `void` is the 缺 suit 0..2, or -1 for none. A winning shape is four
groups (minus one per meld) and a pair, or seven pairs (a four counts as two).

Why it is fast: a suit's tiles decompose independently of the other suits, so
a hand is a win when one suit holds groups and the pair and the others groups
only. A suit decomposes into groups by one greedy pass: at each rank, the
count mod 3 must start runs (three equal runs are three triplets), the rest
are triplets. The pair's rank p is fixed mod 3 by sum(rank*count) = 2p mod 3.
Nothing here allocates.
"""

import sys

import micropython

if sys.implementation.name == "micropython":

    @micropython.viper
    def is_groups(c, o: int) -> bool:
        """True if suit at offset o (faces o..o+8) splits into groups only.

        The greedy pass as machine code (viper): a rank's tiles left after the
        runs it continues, mod 3, start runs, none at ranks 8 and 9. It made a
        waits call 1.4 times faster than the table below, and wild's loops
        over it twice as fast, for 390 B of armv6m code (docs/decisions.md).
        """
        p = ptr8(c)  # viper: the bytearray's bytes
        r1 = 0
        r2 = 0
        for i in range(o, o + 9):
            x = p[i] - r1 - r2
            if x < 0:
                return False
            while x >= 3:
                x -= 3
            if x and i > o + 6:
                return False
            r2 = r1
            r1 = x
        return True

else:
    # The greedy groups check as a table of steps. At each rank the tiles left
    # after the runs started at the two ranks below, mod 3, start that many runs
    # (three equal runs are three triplets, the rest are triplets), and it fails
    # if fewer tiles are left than those runs need. Its state is the runs started
    # at the previous rank and the one before, r1 and r2, stored as 16 * (3*r1 + r2)
    # (9 states, 144 the failed state that stays failed), so one step from state
    # s at a rank holding x tiles (0..15: wild.score's choices and the checks
    # inside reach ten) is _STEP[s + x]. Ranks 8 and 9 start no run, so groups
    # end in state 0. A tuple, not bytes: CPython indexes a tuple in a
    # specialised step (waits 7% fewer instructions); 160 entries, checked by
    # tests/core/test_shape.py. CPython's only: MicroPython's is_groups is viper
    # code, and the board's build leaves this branch out.
    _STEP = tuple(144 if st > 8 or x < st // 3 + st % 3 else
                  16 * (3 * ((x - st // 3 - st % 3) % 3) + st // 3)
                  for st in range(10) for x in range(16))

    def ptr8(b):
        """CPython runs the viper functions as Python: a bytearray is its bytes."""
        return b

    def is_groups(c, o: int) -> bool:
        """True if suit at offset o (faces o..o+8) splits into groups only.

        Counts 0..15 (wild hands try fifth and further copies). Unrolled, with two
        early exits: a loop's overhead was a third of its time on CPython,
        and a table step costs about half the arithmetic one (x - r1 - r2,
        % 3, a sign test). tests/core/test_shape.py checks both versions
        against a plain recursion, each on its interpreter.
        """
        t = _STEP
        s = t[c[o]]
        s = t[s + c[o + 1]]
        s = t[s + c[o + 2]]
        if s == 144:
            return False
        s = t[s + c[o + 3]]
        s = t[s + c[o + 4]]
        s = t[s + c[o + 5]]
        if s == 144:
            return False
        s = t[s + c[o + 6]]
        s = t[s + c[o + 7]]
        s = t[s + c[o + 8]]
        return s == 0


def is_pair_groups(c, o):
    """True if suit at offset o splits into one pair and groups."""
    return _pair_at(c, o, o + (2 * rank_sum(c, o)) % 3)


def suit_size(c, o):
    n = 0
    for i in range(o, o + 9):
        n += c[i]
    return n


def total(counts):
    """Number of tiles in counts."""
    n = 0
    for c in counts:
        n += c
    return n


def is_qidui(counts, size=14):
    """Seven pairs: 14 concealed tiles, every count even (a four is two pairs).
    size: another number of tiles all in pairs (断卡根 请胡: five pairs, 10)."""
    n = 0
    for x in counts:
        if x & 1:
            return False
        n += x
    return n == size


def is_standard(counts, void=-1):
    """Four groups and a pair (fewer groups with melds), void suit empty."""
    pair_suit = -1
    for s in range(3):
        n = suit_size(counts, s * 9)
        if n and s == void:
            return False
        m = n % 3
        if m == 1 or (m == 2 and pair_suit >= 0):
            return False
        if m == 2:
            pair_suit = s
    if pair_suit < 0:
        return False
    for s in range(3):
        o = s * 9
        if s == pair_suit:
            if not is_pair_groups(counts, o):
                return False
        elif not is_groups(counts, o):
            return False
    return True


def is_all_groups(counts):
    """True if the concealed tiles (3n of them) split into groups only, no pair."""
    for o in (0, 9, 18):
        n = suit_size(counts, o)
        if n % 3 or (n and not is_groups(counts, o)):
            return False
    return True


def is_win(counts, void=-1):
    """True if the concealed tiles (3n+2 of them) form a winning shape."""
    if void >= 0 and suit_size(counts, void * 9):
        return False
    return is_standard(counts, void) or is_qidui(counts)


@micropython.viper
def rank_sum(c, o: int) -> int:
    """A number congruent mod 3 to sum(rank index * count) over the suit at o,
    all the pair and wait ranks need: groups alone make it 0 mod 3. Ranks
    1, 4, 7 count 0 times, 2, 5, 8 once, 3, 6, 9 twice (fewer products)."""
    p = ptr8(c)
    return p[o + 1] + p[o + 4] + p[o + 7] + 2 * (p[o + 2] + p[o + 5] + p[o + 8])


@micropython.viper
def group_waits(c, o: int, s: int) -> int:
    """Bitmask of faces that make the suit at o (3k+2 tiles) groups only.

    s: the suit's rank sum, >= 0 (only s mod 3 counts; see rank_sum). The
    rank sum of groups is 0 mod 3, so the drawn rank is -s mod 3: three
    candidates, each checked by one is_groups. A drawn tile with nothing at its
    face or beside it joins no group (one copy, no run), so it costs no
    is_groups: a third of the candidates on play-like hands. The four-copy
    rule is waits_mask's, on the result. Viper on MicroPython, as is_groups.
    """
    p = ptr8(c)
    g = is_groups
    f = o + 2 - (s + 2) % 3  # o + (-s mod 3), with no negative operand
    end = o + 9
    mask = 0
    while f < end:
        if p[f] or (f > o and p[f - 1]) or (f < end - 1 and p[f + 1]):
            p[f] += 1
            if g(c, o):
                mask |= 1 << f
            p[f] -= 1
        f += 3
    return mask


def pair_waits(c, o, s):
    """Waits of a suit of 3k+1 tiles that must end as one pair and groups.

    Either the drawn tile pairs a held single (单钓: the rest is groups, so its
    rank is s mod 3), or the pair is already held: take it out, and the drawn
    rank is fixed mod 3 as for groups only. Each candidate costs one is_groups,
    but a drawn tile with no neighbour is skipped as in group_waits.
    s: the suit's rank sum, as for group_waits.
    """
    mask = 0
    end = o + 9
    f = o + s % 3
    while f < end:
        if c[f]:
            c[f] -= 1
            if is_groups(c, o):
                mask |= 1 << f
            c[f] += 1
        f += 3
    for p in range(o, end):
        if c[p] < 2:
            continue
        c[p] -= 2
        f = o + (2 * (p - o) - s) % 3
        while f < end:
            if (c[f] or c[f - 1] or (f < 26 and c[f + 1])) and not mask >> f & 1:
                c[f] += 1
                if is_groups(c, o):
                    mask |= 1 << f
                c[f] -= 1
            f += 3
        c[p] += 2
    return mask


def _pair_at(c, o, p):
    """True if suit at o splits into a pair at p, p+3 or p+6 and groups."""
    while p < o + 9:
        if c[p] >= 2:
            c[p] -= 2
            ok = is_groups(c, o)
            c[p] += 2
            if ok:
                return True
        p += 3
    return False


def waits_mask(counts, void=-1, limit=None):
    """Waits as a bitmask over faces (bit f set: face f wins). No allocation.

    `limit`, if given, is a bytearray(27) of copies held outside `counts`
    (melds): a wait that needs a fifth copy is not a wait. That depends on
    the face alone, so it filters the few waits found, not every candidate.
    """
    c = counts
    # Per suit, t = n + 128 * s in one sum: n its tile count (< 128), s = sum
    # over ranks 1..9 of (rank - 1) mod 3 times the count, congruent to its
    # rank sum mod 3, which is all the waits need of it (129 = 128 + 1 etc.).
    t0 = c[0] + c[3] + c[6] + 129 * (c[1] + c[4] + c[7]) + 257 * (c[2] + c[5] + c[8])
    t1 = c[9] + c[12] + c[15] + 129 * (c[10] + c[13] + c[16]) + 257 * (c[11] + c[14] + c[17])
    t2 = c[18] + c[21] + c[24] + 129 * (c[19] + c[22] + c[25]) + 257 * (c[20] + c[23] + c[26])
    n0 = t0 & 127
    n1 = t1 & 127
    n2 = t2 & 127
    if void >= 0 and ((void == 0 and n0) or (void == 1 and n1) or (void == 2 and n2)):
        return 0
    mask = 0
    # seven pairs: 13 tiles with one odd face (counts 0..4: odd is 1 or 3);
    # bytearray.count looks in C, where a loop over 27 faces cost a tenth
    if n0 + n1 + n2 == 13 and c.count(b"\x01") + c.count(b"\x03") == 1:
        mask = _qidui_wait(c)
    r0 = n0 % 3
    r1 = n1 % 3
    r2 = n2 % 3
    rr = r0 + r1 + r2
    if rr == 1:  # residues (1,0,0): the odd suit takes tile and pair
        # the other suits hold groups only (an empty suit, often the void, trivially)
        if (r0 or not n0 or is_groups(c, 0)) and (r1 or not n1 or is_groups(c, 9)) and (
                r2 or not n2 or is_groups(c, 18)):
            if r0:
                mask |= pair_waits(c, 0, t0 >> 7)
            elif r1:
                mask |= pair_waits(c, 9, t1 >> 7)
            else:
                mask |= pair_waits(c, 18, t2 >> 7)
    elif rr == 4 and not (r0 and r1 and r2):  # (2,2,0): the third suit holds groups only
        if not r0:
            if not n0 or is_groups(c, 0):
                mask |= _split_waits(c, 9, t1 >> 7, 18, t2 >> 7)
        elif not r1:
            if not n1 or is_groups(c, 9):
                mask |= _split_waits(c, 0, t0 >> 7, 18, t2 >> 7)
        elif not n2 or is_groups(c, 18):
            mask |= _split_waits(c, 0, t0 >> 7, 9, t1 >> 7)
    if mask and (limit or c.find(b"\x04") >= 0):
        mask = drawable(c, mask, limit)
    return mask


if sys.implementation.name == "micropython":

    @micropython.viper
    def drawable(c, m: int, limit) -> int:
        """Waits m without the faces whose four copies are held (in c or limit).
        Viper, as is_groups: a wild hand's waits are often every face, and this
        loop over them had cost a fifth of a two-wild call with melds."""
        p = ptr8(c)
        q = ptr8(limit if limit else c)
        n = 1 if limit else 0
        t = ptr8(_BIT)
        k = m
        while k:
            b = k & (0 - k)  # the lowest wait's bit
            k -= b
            f = t[b % 37]
            if p[f] + n * q[f] >= 4:
                m -= b
        return m

else:

    def drawable(c, m, limit):
        """Waits m without the faces whose four copies are held (in c or limit)."""
        k = m
        while k:
            b = k & -k
            k -= b
            f = _BIT[b % 37]
            if c[f] + (limit[f] if limit else 0) >= 4:
                m -= b
        return m


def _split_waits(c, a, sa, b, sb):
    """Waits of two suits at a and b of 3k+2 tiles each (rank sums sa, sb):
    one holds the pair and groups, the drawn tile makes the other groups."""
    mask = 0
    if _pair_at(c, b, b + (2 * sb) % 3):
        mask = group_waits(c, a, sa)
    if _pair_at(c, a, a + (2 * sa) % 3):
        mask |= group_waits(c, b, sb)
    return mask


def _qidui_wait(counts):
    """Seven-pairs wait of 13 concealed tiles with one odd face (1 or 3 copies)."""
    odd = counts.find(b"\x01")
    if odd < 0:
        odd = counts.find(b"\x03")
    return 1 << odd


# _BIT[2**f % 37] = f for f < 27: 2 is a primitive root mod 37, so the powers
# of two fall on distinct residues, and a wait's bit finds its face in one step
# (MicroPython ints have no bit_length; 2**26 keeps to a 31-bit small int),
# where shifting through every face below it cost a tenth of a waits call.
_BIT = (b"\x00\x00\x01\x1a\x02\x17\x00\x00\x03\x10\x18\x00\x00\x0b\x00\x0d\x04\x07\x11"
        b"\x00\x19\x16\x00\x0f\x00\x0a\x0c\x06\x00\x15\x0e\x09\x05\x14\x08\x13\x12")


def waits(counts, void=-1, limit=None):
    """Faces (in order) that complete the concealed tiles (3n+1 of them)."""
    m = waits_mask(counts, void, limit)
    out = []
    while m:
        b = m & -m  # the lowest wait's bit
        m -= b
        out.append(_BIT[b % 37])
    return out
