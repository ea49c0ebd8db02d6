"""听用 waits with exactly one and exactly two wild copies (wild.py's fast
paths by the suits' tile counts mod 3) against test_wild_waits_brute's brute
force, on hands like a real table's: a win (four groups and a pair, fewer
groups with melds) less one tile, with one or two of its tiles turned into
wild copies, so every residue pattern and branch comes up (the pair suit
whole or not, a suit that is not groups, several suits left to complete).
"""

from gamekit import Rng
from sichuan import wild
from test_wild_waits_brute import _brute_waits, _limit


def _win_less_one(rng, groups, void):
    """A 3 * groups + 2 tile win in the suits in play, less one tile."""
    suits = [s for s in range(3) if s != void]
    if rng.below(3) == 0:
        suits = suits[:1 + rng.below(len(suits))]
    c = bytearray(27)
    n = 0
    while n < groups + 1:
        s = suits[rng.below(len(suits))] * 9
        r = rng.below(9)
        if n == groups:  # the pair
            if c[s + r] <= 2:
                c[s + r] += 2
                n += 1
        elif rng.below(3) == 0:
            if c[s + r] <= 1:
                c[s + r] += 3
                n += 1
        elif r <= 6 and c[s + r] < 4 and c[s + r + 1] < 4 and c[s + r + 2] < 4:
            c[s + r] += 1
            c[s + r + 1] += 1
            c[s + r + 2] += 1
            n += 1
    _drop(rng, c)
    return c


def _drop(rng, c):
    """Take one held tile out (chosen uniformly among the tiles)."""
    k = rng.below(sum(c))
    for f in range(27):
        if k < c[f]:
            c[f] -= 1
            return f
        k -= c[f]
    return -1


def _with_wilds(rng, c, wn):
    """Turn wn held tiles into copies of the wild faces of a 本金 whose faces
    the hand does not hold otherwise; (counts, w1, w2), or None."""
    for _ in range(20):
        b = rng.below(27)
        w1, w2 = wild.wild_faces(b)
        if c[w1] or c[w2]:
            continue
        d = bytearray(c)
        for _ in range(wn):
            f = _drop(rng, d)
            if f < 0:
                return None
        d[w1] = wn if rng.below(2) else 0
        d[w2] = wn - d[w1]
        return d, w1, w2
    return None


def _hand(rng, wn):
    """(counts, w1, w2, void) of a random win less one tile with wn wild
    copies, or None."""
    void = (-1, 0, 1, 2)[rng.below(4)]
    groups = (4, 4, 4, 3, 2)[rng.below(5)]
    item = _with_wilds(rng, _win_less_one(rng, groups, void), wn)
    return None if item is None else item + (void,)


def _agrees(rng, c, w1, w2, void):
    """wild.waits_mask of the hand (with copies held outside it), asserted
    equal to the brute force and leaving the counts as they were."""
    lim = _limit(rng, c)
    before = bytes(c)
    got = wild.waits_mask(c, w1, w2, void, lim)
    assert bytes(c) == before
    want = _brute_waits(c, w1, w2, void, lim)
    assert got == want, (bytes(c), w1, w2, void, lim and bytes(lim), got, want)
    return got


def _check(seed, n, wn):
    rng = Rng(seed)
    seen = 0
    nonempty = 0
    for _ in range(n):
        h = _hand(rng, wn)
        if h is not None:
            seen += 1
            nonempty += _agrees(rng, *h) != 0
    return seen, nonempty


def test_one_wild_waits_of_a_win_less_one_match_brute_force():
    seen, nonempty = _check(61, 1500, 1)
    assert seen > 1400 and nonempty > 1400


def test_two_wild_waits_of_a_win_less_one_match_brute_force():
    seen, nonempty = _check(62, 300, 2)
    assert seen > 280 and nonempty > 280


def _residues(c, w1, w2):
    """The suits' real tile counts mod 3, largest first."""
    r = []
    for o in (0, 9, 18):
        n = 0
        for f in range(o, o + 9):
            if f != w1 and f != w2:
                n += c[f]
        r.append(n % 3)
    r.sort()
    return tuple(r[::-1])


def _check_split(seed, wn, split, want_n):
    """As _check, on want_n hands whose counts mod 3 are `split` only."""
    rng = Rng(seed)
    seen = 0
    while seen < want_n:
        h = _hand(rng, wn)
        if h is not None and _residues(*h[:3]) == split:
            _agrees(rng, *h)
            seen += 1


def test_one_wild_with_every_suit_two_over_groups_matches_brute_force():
    # counts 2, 2, 2: a suit keeps the pair, the drawn tile and the wild
    # complete the other two
    _check_split(63, 1, (2, 2, 2), 120)


def test_two_wilds_with_counts_two_two_one_match_brute_force():
    # counts 2, 2, 1: the 3k+1 suit takes its pair tile or two tiles
    _check_split(64, 2, (2, 2, 1), 120)
