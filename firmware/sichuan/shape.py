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


# The greedy groups check as a table of steps. At each rank the tiles left
# after the runs started at the two ranks below, mod 3, start that many runs
# (three equal runs are three triplets, the rest are triplets), and it fails
# if fewer tiles are left than those runs need. Its state is the runs started
# at the previous rank and the one before, r1 and r2, stored as 8 * (3*r1 + r2)
# (9 states, 72 the failed state that stays failed), so one step from state s
# at a rank holding x tiles (0..7) is _STEP[s + x]. Ranks 8 and 9 start no
# run, so groups end in state 0. Built (and checked) by tests/core/test_shape.py.
_STEP = (
    b"\x00\x18\x30\x00\x18\x30\x00\x18\x48\x00\x18\x30\x00\x18\x30\x00"
    b"\x48\x48\x00\x18\x30\x00\x18\x30\x48\x08\x20\x38\x08\x20\x38\x08"
    b"\x48\x48\x08\x20\x38\x08\x20\x38\x48\x48\x48\x08\x20\x38\x08\x20"
    b"\x48\x48\x10\x28\x40\x10\x28\x40\x48\x48\x48\x10\x28\x40\x10\x28"
    b"\x48\x48\x48\x48\x10\x28\x40\x10\x48\x48\x48\x48\x48\x48\x48\x48")


def _groups(c, o):
    """True if suit at offset o (faces o..o+8) splits into groups only.

    Unrolled, with two checks for an early failure: a loop's overhead was a
    third of its time on both interpreters, and the table step costs half the
    arithmetic one (max - r1 - r2, % 3, sign test).
    """
    t = _STEP
    s = t[c[o]]
    s = t[s + c[o + 1]]
    s = t[s + c[o + 2]]
    if s == 72:
        return False
    s = t[s + c[o + 3]]
    s = t[s + c[o + 4]]
    s = t[s + c[o + 5]]
    if s == 72:
        return False
    s = t[s + c[o + 6]]
    s = t[s + c[o + 7]]
    s = t[s + c[o + 8]]
    return s == 0


def _pair_groups(c, o):
    """True if suit at offset o splits into one pair and groups."""
    return _pair_at(c, o, o + (2 * _rank_sum(c, o)) % 3)


def _suit_size(c, o):
    n = 0
    for i in range(o, o + 9):
        n += c[i]
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
        n = _suit_size(counts, s * 9)
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
            if not _pair_groups(counts, o):
                return False
        elif not _groups(counts, o):
            return False
    return True


def is_win(counts, void=-1):
    """True if the concealed tiles (3n+2 of them) form a winning shape."""
    if void >= 0 and _suit_size(counts, void * 9):
        return False
    return is_standard(counts, void) or is_qidui(counts)


def _rank_sum(c, o):
    """sum(rank index * count) over the suit at o; groups alone make it 0 mod 3."""
    return (c[o + 1] + 2 * c[o + 2] + 3 * c[o + 3] + 4 * c[o + 4] + 5 * c[o + 5]
            + 6 * c[o + 6] + 7 * c[o + 7] + 8 * c[o + 8])


def _group_waits(c, o, s, limit):
    """Bitmask of faces that make the suit at o (3k+2 tiles) groups only.

    s: the suit's rank sum (only s mod 3 counts; see _rank_sum). The rank
    sum of groups is 0 mod 3, so the drawn rank is -s mod 3: three
    candidates, each checked by one _groups. A face already held four times
    (counting `limit`) cannot be drawn. A drawn tile with nothing at its face
    or beside it joins no group (one copy, no run), so it costs no _groups: a
    third of the candidates on play-like hands. (f - 1 or f + 1 across a suit
    edge reads another suit: that only lets a hopeless candidate through.)
    """
    f = o + (-s) % 3
    mask = 0
    while f < o + 9:
        if (c[f] or c[f - 1] or (f < 26 and c[f + 1])) and c[f] + (
                limit[f] if limit else 0) < 4:
            c[f] += 1
            if _groups(c, o):
                mask |= 1 << f
            c[f] -= 1
        f += 3
    return mask


def _pair_waits(c, o, s, limit):
    """Waits of a suit of 3k+1 tiles that must end as one pair and groups.

    Either the drawn tile pairs a held single (单钓: the rest is groups, so its
    rank is s mod 3), or the pair is already held: take it out, and the drawn
    rank is fixed mod 3 as for groups only. Each candidate costs one _groups,
    but a drawn tile with no neighbour is skipped as in _group_waits.
    s: the suit's rank sum, as for _group_waits.
    """
    mask = 0
    f = o + s % 3
    while f < o + 9:
        if c[f] and c[f] + (limit[f] if limit else 0) < 4:
            c[f] -= 1
            if _groups(c, o):
                mask |= 1 << f
            c[f] += 1
        f += 3
    for p in range(o, o + 9):
        if c[p] < 2:
            continue
        c[p] -= 2
        f = o + (2 * (p - o) - s) % 3
        while f < o + 9:
            if (c[f] or c[f - 1] or (f < 26 and c[f + 1])) and not mask >> f & 1 and c[f] + (
                    2 if f == p else 0) + (limit[f] if limit else 0) < 4:
                c[f] += 1
                if _groups(c, o):
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
            ok = _groups(c, o)
            c[p] += 2
            if ok:
                return True
        p += 3
    return False


def waits_mask(counts, void=-1, limit=None):
    """Waits as a bitmask over faces (bit f set: face f wins). No allocation.

    `limit`, if given, is a bytearray(27) of copies held outside `counts`
    (melds): a wait that needs a fifth copy is not a wait.
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
    if (void == 0 and n0) or (void == 1 and n1) or (void == 2 and n2):
        return 0
    mask = 0
    # seven pairs: 13 tiles with one odd face (counts 0..4: odd is 1 or 3);
    # bytearray.count looks in C, where a loop over 27 faces cost a tenth
    if n0 + n1 + n2 == 13 and c.count(b"\x01") + c.count(b"\x03") == 1:
        mask = _qidui_wait(c, limit)
    r0 = n0 % 3
    r1 = n1 % 3
    r2 = n2 % 3
    if r0 + r1 + r2 == 1:  # residues (1,0,0): the odd suit takes tile and pair
        # the other suits hold groups only (an empty suit, often the void, trivially)
        if (not r0 and n0 and not _groups(c, 0)) or (not r1 and n1 and not _groups(c, 9)) or (
                not r2 and n2 and not _groups(c, 18)):
            return mask
        if r0:
            return mask | _pair_waits(c, 0, t0 >> 7, limit)
        if r1:
            return mask | _pair_waits(c, 9, t1 >> 7, limit)
        return mask | _pair_waits(c, 18, t2 >> 7, limit)
    if r0 + r1 + r2 != 4 or (r0 and r1 and r2):
        return mask
    # residues (2,2,0): the third suit holds groups only
    if not r0:
        if n0 and not _groups(c, 0):
            return mask
        return mask | _split_waits(c, 9, t1 >> 7, 18, t2 >> 7, limit)
    if not r1:
        if n1 and not _groups(c, 9):
            return mask
        return mask | _split_waits(c, 0, t0 >> 7, 18, t2 >> 7, limit)
    if n2 and not _groups(c, 18):
        return mask
    return mask | _split_waits(c, 0, t0 >> 7, 9, t1 >> 7, limit)


def _split_waits(c, a, sa, b, sb, limit):
    """Waits of two suits at a and b of 3k+2 tiles each (rank sums sa, sb):
    one holds the pair and groups, the drawn tile makes the other groups."""
    mask = 0
    if _pair_at(c, b, b + (2 * sb) % 3):
        mask = _group_waits(c, a, sa, limit)
    if _pair_at(c, a, a + (2 * sa) % 3):
        mask |= _group_waits(c, b, sb, limit)
    return mask


def _qidui_wait(counts, limit):
    """Seven-pairs wait of 13 concealed tiles with one odd face (1 or 3 copies)."""
    odd = counts.find(b"\x01")
    if odd < 0:
        odd = counts.find(b"\x03")
    if limit and counts[odd] + limit[odd] >= 4:
        return 0
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
