"""听用 waits and wins (sichuan.wild) on thousands of random hands against a
brute force that knows nothing of wild.py's method: every multiset of faces
of the suits in play is tried for the wild copies (and the drawn tile) with
shape.is_win.

Definition checked: with W wild copies in hand, a real face f is a wait when
some faces for the W wilds make hand + f a win, and a wild face is a wait
when hand + (W + 1) wilds wins; either way the copy drawn must exist (held in
hand plus `limit` below four). A wild stands for any face outside the void
suit, a fifth copy included (it is not a physical tile); a wild copy of the
void suit is still wild.
"""

from gamekit import Rng
from sichuan import fan, presets, shape, tiles, wild


def _faces(void):
    return [f for f in range(27) if f // 9 != void]


def _wins_with(d, k, faces, lo, void, hit):
    """Every multiset of k faces (index >= lo) added to d that wins: returns the
    union of the faces used (bits), or-ed into hit."""
    if k == 0:
        return hit | 1 if shape.is_win(d, void) else hit
    for i in range(lo, len(faces)):
        f = faces[i]
        if d[f] >= 7:  # shape.is_groups reads counts 0..7; an eighth is never needed:
            continue   # a group or pair of wilds alone may stand for a face not held
        d[f] += 1
        got = _wins_with(d, k - 1, faces, i, void, 0)
        d[f] -= 1
        if got:
            hit |= 1 | (1 << (f + 1)) | (got & ~1)
    return hit


def _real_tiles(c, w1, w2, void):
    """(the hand without its wild copies, their number), or None if a real
    tile is of the void suit."""
    d = bytearray(c)
    wn = d[w1] + d[w2]
    d[w1] = 0
    d[w2] = 0
    for f in range(27):
        if d[f] and f // 9 == void:
            return None
    return d, wn


def _brute_waits(c, w1, w2, void, limit):
    real = _real_tiles(c, w1, w2, void)
    if real is None:
        return 0
    d, wn = real
    # faces that occur in some winning completion by W + 1 free tiles: one of
    # them is the drawn tile, the other W are the wilds (interchangeable)
    hit = _wins_with(d, wn + 1, _faces(void), 0, void, 0)
    mask = 0
    for f in range(27):
        if c[f] + (limit[f] if limit else 0) >= 4:
            continue
        if f == w1 or f == w2:  # wild even when of the void suit
            if hit:  # the drawn wild completes as one more free tile
                mask |= 1 << f
        elif hit >> (f + 1) & 1:
            mask |= 1 << f
    return mask


def _brute_win(c, w1, w2, void):
    real = _real_tiles(c, w1, w2, void)
    return real is not None and _wins_with(real[0], real[1], _faces(void), 0, void, 0) != 0


def _hand(rng, size, wn, void, w1, w2):
    """size tiles, wn of them wild copies, the rest near a win (groups, pairs,
    a four now and then), none in the void suit."""
    c = bytearray(27)
    for _ in range(wn):
        f = w1 if rng.below(2) else w2
        if c[f] >= 4:
            f = w1 + w2 - f
        c[f] += 1
    suits = [s for s in range(3) if s != void]
    if rng.below(3) == 0:
        suits = suits[:1]  # one suit only: dense hands, many waits
    k = wn
    while k < size:
        f = suits[rng.below(len(suits))] * 9 + rng.below(9)
        if f == w1 or f == w2:
            continue
        kind = rng.below(6)
        if kind < 3 and f % 9 <= 6:
            run = (f, f + 1, f + 2)
        elif kind == 3:
            run = (f, f)
        elif kind == 4:
            run = (f, f, f, f)
        else:
            run = (f,)
        for g in run:
            if k < size and c[g] < 4 and g != w1 and g != w2:
                c[g] += 1
                k += 1
    return c


def _limit(rng, c):
    """Copies in melds for a few faces (None half the time)."""
    if rng.below(2):
        return None
    lim = bytearray(27)
    for _ in range(rng.below(4)):
        f = rng.below(27)
        lim[f] = 4 - c[f] if c[f] < 4 and rng.below(2) else 1
    return lim


def _check_waits(seed, n, wn_choices, sizes):
    rng = Rng(seed)
    nonempty = 0
    for i in range(n):
        void = (-1, 0, 1, 2)[rng.below(4)]
        w1, w2 = wild.wild_faces(rng.below(27))
        wn = wn_choices[i % len(wn_choices)]
        size = sizes[rng.below(len(sizes))]
        c = _hand(rng, size, wn, void, w1, w2)
        if rng.below(8) == 0 and void >= 0:
            c[void * 9 + rng.below(9)] += 1  # a void tile still held: no waits
            c[c.index(max(c))] -= 1
        lim = _limit(rng, c)
        before = bytes(c)
        got = wild.waits_mask(c, w1, w2, void, lim)
        assert bytes(c) == before
        want = _brute_waits(c, w1, w2, void, lim)
        assert got == want, (tiles.to_text(c), w1, w2, void, lim and bytes(lim), got, want)
        nonempty += got != 0
    return nonempty


def test_waits_without_wilds_match_brute_force():
    assert _check_waits(21, 800, (0,), (13, 10, 7, 4)) > 200


def test_waits_with_one_wild_match_brute_force():
    assert _check_waits(22, 500, (1,), (13, 10, 7, 4)) > 200


def test_waits_with_two_wilds_match_brute_force():
    assert _check_waits(23, 150, (2,), (13, 10, 7)) > 75


def test_waits_with_three_or_four_wilds_match_brute_force():
    assert _check_waits(24, 48, (3, 4), (10, 7, 4)) > 24


def _fewest_ref(c, pair):
    """Fewest wilds making the suit c[0..8] groups (and a pair holding a real
    tile), by trying every group for its lowest real tile: a pung, a run
    through it (wilds for the missing ranks below or above), or the pair."""
    best = [99]

    def go(cost, pair):
        if cost >= best[0]:
            return
        i = 0
        while i < 9 and not c[i]:
            i += 1
        if i == 9:
            if not pair:
                best[0] = cost
            return
        for n in (2, 1) if pair else ():
            if c[i] >= n:
                c[i] -= n
                go(cost + 2 - n, 0)
                c[i] += n
        n = min(c[i], 3)
        c[i] -= n
        go(cost + 3 - n, pair)
        c[i] += n
        for a in range(max(i - 2, 0), min(i, 6) + 1):
            used = [r for r in (a, a + 1, a + 2) if r >= i and c[r]]
            for r in used:
                c[r] -= 1
            go(cost + 3 - len(used), pair)
            for r in used:
                c[r] += 1

    go(0, pair)
    return best[0]


def test_fewest_wilds_of_a_suit_match_a_plain_search():
    """wild._fewest (MicroPython: the viper pass over states, _dp; CPython:
    the pruned depth-first _rec) on random suits of 0 to 13 tiles, in every
    position of the hand. The pair of two wilds is counted either way
    (callers count it as groups + 2)."""
    rng = Rng(26)
    for _ in range(1500):
        c = bytearray(27)
        t = rng.below(3)
        for _ in range(rng.below(14)):
            r = rng.below(9)
            if c[9 * t + r] < 4:
                c[9 * t + r] += 1
        suit = c[9 * t:9 * t + 9]
        g = _fewest_ref(suit, 0)
        p = min(_fewest_ref(suit, 1), g + 2)
        got_g = wild._fewest(c, 9 * t, 0, 12)
        got_p = min(wild._fewest(c, 9 * t, 1, 12), got_g + 2)
        assert (got_g, got_p) == (g if g <= 12 else 99, p if p <= 12 else 99), (bytes(suit), g, p)


def test_wins_match_brute_force():
    rng = Rng(25)
    wins = 0
    for i in range(600):
        void = (-1, 0, 1, 2)[rng.below(4)]
        w1, w2 = wild.wild_faces(rng.below(27))
        c = _hand(rng, (14, 11, 8, 5)[rng.below(4)], (0, 1, 2, 3)[i % 4], void, w1, w2)
        got = wild.is_win(c, w1, w2, void)
        assert got == _brute_win(c, w1, w2, void), (tiles.to_text(c), w1, w2, void)
        wins += got
    assert wins > 80


def test_fifth_copy_through_a_wild():
    """1111m and three groups: only a fifth 1m would win; no tile is left to draw
    it, but a drawn wild can stand for it."""
    w1, w2 = wild.wild_faces(tiles.parse_tile("5s"))  # 6s, 4s wild
    c = tiles.parse("1111m456p789p123p")
    assert shape.waits_mask(c) == 0
    assert wild.waits_mask(c, w1, w2) == (1 << w1) | (1 << w2)


def _score_ref(rs, c, void, w1, w2, benjin):
    """(fan, breakdown) of the best faces for the wild copies in c, by trying
    every multiset of faces of the suits in play, as wild.score did before
    it walked only the wins; (-1, None) if none wins."""
    d = bytearray(c)
    wn = d[w1] + d[w2]
    d[w1] = 0
    d[w2] = 0
    faces = [f for f in range(27) if f // 9 != void]
    best = [-1, None]
    out = bytearray(fan.NOUT)

    def walk(k, lo):
        if k == 0:
            if shape.is_standard(d, void) or shape.is_qidui(d):
                fl = fan.BENJIN if d[benjin] >= 3 else 0
                v = fan.score(rs, d, (), void, fl, out, -1)
                if v > best[0]:
                    best[0] = v
                    best[1] = bytes(out)
            return
        for i in range(lo, len(faces)):
            f = faces[i]
            if d[f] < 7:
                d[f] += 1
                walk(k - 1, i)
                d[f] -= 1

    walk(wn, 0)
    return best[0], best[1]


def test_score_takes_the_best_faces_as_trying_every_choice_does():
    """wild.score walks only the choices of faces that can still win; it finds
    the same best fan and breakdown as trying every choice, for one to four
    wilds, winning hands and not."""
    rs = presets.get("yibin")
    rng = Rng(27)
    wins = 0
    for i in range(60):
        wn = 1 + i % 4
        void = (-1, 0, 1, 2)[rng.below(4)]
        b = rng.below(27)
        w1, w2 = wild.wild_faces(b)
        c = _hand(rng, 14, wn, void, w1, w2)
        out = bytearray(fan.NOUT)
        got = wild.score(rs, c, (), void, 0, out, w1, w2, b)
        want, want_out = _score_ref(rs, c, void, w1, w2, b)
        assert got == want, (tiles.to_text(c), w1, w2, void, got, want)
        if got >= 0:
            assert bytes(out) == want_out
            wins += 1
    assert wins > 15


def test_score_with_two_fours_and_four_wilds():
    """6p and 9p held four times each, and four wilds: the choices give faces
    seven copies, and the checks inside add three more (CPython's groups
    table once read past its end at eight)."""
    rs = presets.get("yibin")
    b = tiles.parse_tile("9p")
    w1, w2 = wild.wild_faces(b)  # 1p and 8p
    c = tiles.parse("166668889999p11s")
    out = bytearray(fan.NOUT)
    got = wild.score(rs, c, (), 0, 0, out, w1, w2, b)
    want, want_out = _score_ref(rs, c, 0, w1, w2, b)
    assert got == want and got >= 0
    assert bytes(out) == want_out
