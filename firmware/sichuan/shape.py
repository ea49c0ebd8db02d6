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


def _groups(c, o):
    """True if suit at offset o (faces o..o+8) splits into groups only."""
    a = c[o]
    b = c[o + 1]
    for i in range(o + 2, o + 9):
        r = a % 3
        x = c[i]
        if b < r or x < r:
            return False
        a = b - r
        b = x - r
    return a % 3 == 0 and b % 3 == 0


def _pair_groups(c, o):
    """True if suit at offset o splits into one pair and groups."""
    s = 0
    for i in range(9):
        s += i * c[o + i]
    return _pair_at(c, o, o + (2 * s) % 3)


def _suit_size(c, o):
    n = 0
    for i in range(o, o + 9):
        n += c[i]
    return n


def is_qidui(counts):
    """Seven pairs: 14 concealed tiles, every count even (a four is two pairs)."""
    n = 0
    for x in counts:
        if x & 1:
            return False
        n += x
    return n == 14


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


def _suit_waits(c, o, with_pair, limit):
    """Bitmask of faces in suit at o that complete it (with pair or groups only).

    Only faces within two ranks of a held tile can complete anything, and a
    face already held four times (counting `limit`) cannot be drawn. Groups
    alone need sum(rank*count) = 0 mod 3, which leaves one rank in three; with
    a pair, the pair's rank class must hold a pair once the tile is in.
    """
    occ = 0
    two = 0  # ranks held twice or more: where a pair can sit
    s = 0
    for i in range(9):
        x = c[o + i]
        if x:
            occ |= 1 << i
            if x >= 2:
                two |= 1 << i
            s += i * x
    near = (occ | occ << 1 | occ << 2 | occ >> 1 | occ >> 2) & 511
    mask = 0
    for i in range(9):
        if not near >> i & 1:
            continue
        f = o + i
        if with_pair:
            q = (2 * (s + i)) % 3
            pairs = two | (1 << i if c[f] == 1 else 0)
            if not pairs & (0x49 << q):  # ranks q, q+3, q+6
                continue
        elif (s + i) % 3:
            continue
        if c[f] + (limit[f] if limit else 0) < 4:
            c[f] += 1
            ok = _pair_at(c, o, o + q) if with_pair else _groups(c, o)
            c[f] -= 1
            if ok:
                mask |= 1 << f
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
    n0 = n1 = n2 = odd = 0
    for i in range(9):
        a = counts[i]
        b = counts[i + 9]
        x = counts[i + 18]
        n0 += a
        n1 += b
        n2 += x
        odd += (a & 1) + (b & 1) + (x & 1)
    if (void == 0 and n0) or (void == 1 and n1) or (void == 2 and n2):
        return 0
    mask = _qidui_wait(counts, limit) if odd == 1 and n0 + n1 + n2 == 13 else 0
    r0 = n0 % 3
    r1 = n1 % 3
    r2 = n2 % 3
    if r0 + r1 + r2 == 1:  # residues (1,0,0): the odd suit takes tile and pair
        one = 0 if r0 else (9 if r1 else 18)
        for o in (0, 9, 18):
            if o != one and not _groups(counts, o):
                return mask
        return mask | _suit_waits(counts, one, True, limit)
    if r0 + r1 + r2 == 4 and (r0 == 0 or r1 == 0 or r2 == 0):  # (2,2,0)
        zero = 0 if r0 == 0 else (9 if r1 == 0 else 18)
        if not _groups(counts, zero):
            return mask
        for o in (0, 9, 18):
            if o != zero and _pair_groups(counts, 27 - zero - o):
                mask |= _suit_waits(counts, o, False, limit)
    return mask


def _qidui_wait(counts, limit):
    """Seven-pairs wait of 13 concealed tiles with one odd count: that face."""
    for f in range(27):
        if counts[f] & 1:
            if limit and counts[f] + limit[f] >= 4:
                return 0
            return 1 << f
    return 0


def waits(counts, void=-1, limit=None):
    """Faces (in order) that complete the concealed tiles (3n+1 of them)."""
    m = waits_mask(counts, void, limit)
    out = []
    f = 0
    while m:
        if m & 1:
            out.append(f)
        m >>= 1
        f += 1
    return out
