"""听用 wild tiles (宜宾, sichuan.wild): the wild faces, wins and waits, against a
brute force that tries every face for every wild copy."""

from gamekit import Rng
from sichuan import shape, tiles, wild

P = tiles.parse
F = tiles.parse_tile


def test_wild_faces_next_to_the_benjin():
    """"本金的前后2张牌即为听用 ... 如：翻开的本金是一万，则二万、九万是听用"."""
    assert wild.wild_faces(F("1m")) == (F("2m"), F("9m"))
    assert wild.wild_faces(F("9p")) == (F("1p"), F("8p"))
    assert wild.wild_faces(F("5s")) == (F("6s"), F("4s"))


def _brute_win(c, w1, w2, void):
    n = c[w1] + c[w2]
    d = bytearray(c)
    d[w1] = 0
    d[w2] = 0
    for f in range(27):
        if d[f] and f // 9 == void:
            return False
    return _place(d, n, 0, void)


def _place(d, n, lo, void):
    if n == 0:
        return shape.is_standard(d, void) or shape.is_qidui(d)
    for f in range(lo, 27):
        if f // 9 == void:
            continue
        d[f] += 1
        ok = _place(d, n - 1, f, void)
        d[f] -= 1
        if ok:
            return True
    return False


def _hand(rng, n, w1, w2, void, wilds):
    c = bytearray(27)
    k = 0
    while k < wilds:
        f = w1 if rng.below(2) else w2
        if c[f] < 4:
            c[f] += 1
            k += 1
    suits = [s for s in range(3) if s != void]
    while k < n:
        # runs and pairs near each other so that wins are common
        f = suits[rng.below(len(suits))] * 9 + rng.below(7)
        for g in (f, f + 1, f + 2)[:1 + rng.below(3)]:
            if k < n and c[g] < 4:
                c[g] += 1
                k += 1
    return c


def test_is_win_matches_brute_force():
    rng = Rng(11)
    wins = 0
    for i in range(150):
        ben = rng.below(27)
        w1, w2 = wild.wild_faces(ben)
        void = (-1, 0, 1, 2)[i % 4]
        c = _hand(rng, (14, 11, 8)[i % 3], w1, w2, void, i % 3)
        a = wild.is_win(c, w1, w2, void)
        assert a == _brute_win(c, w1, w2, void), (tiles.to_text(c), w1, w2, void)
        wins += a
    assert wins > 20


def test_waits_match_brute_force():
    rng = Rng(12)
    for i in range(30):
        void = i % 3
        ben = ((void + 1) % 3) * 9 + rng.below(9)
        w1, w2 = wild.wild_faces(ben)
        c = _hand(rng, (13, 10, 7)[i % 3], w1, w2, void, i % 3)
        m = wild.waits_mask(c, w1, w2, void)
        want = 0
        for f in range(27):
            if f // 9 == void or c[f] >= 4:
                continue
            c[f] += 1
            if _brute_win(c, w1, w2, void):
                want |= 1 << f
            c[f] -= 1
        assert m == want, (tiles.to_text(c), w1, w2, void, m, want)


def test_examples():
    w1, w2 = wild.wild_faces(F("1m"))  # 2m, 9m wild
    # 123p 456p 789p and 5s: the wild pairs the 5s; a wild of the void suit is no
    # 万 tile (reading: "听用牌为万能牌")
    assert wild.is_win(P("123456789p5s2m"), w1, w2, -1)
    assert wild.is_win(P("123456789p5s2m"), w1, w2, 0)
    assert not wild.is_win(P("123456789p58s2m"), w1, w2, -1)
    # seven pairs: a wild for each single
    assert wild.is_win(P("113355p1133s57s29m"), w1, w2, -1)
    assert not wild.is_win(P("113355p1133s579s2m"), w1, w2, -1)
    # without wild copies the answer is the plain one, and so are the waits
    c = P("11123455678999p")
    assert wild.is_win(c, w1, w2, -1) and shape.is_win(c)
    c = P("1112345678999p")  # 九莲: every 筒
    assert wild.waits_mask(c, w1, w2, -1) == shape.waits_mask(c) | (1 << w1) | (1 << w2)
    assert shape.waits_mask(c) == 511 << 9
    # three wilds and a single: every tile completes it
    c = P("123p456p789p222m5s")
    m = wild.waits_mask(c, w1, w2, -1)
    assert m == (1 << 27) - 1
    c[F("2m")] += 1  # the fourth 2m held: no fifth to draw
    c[F("5s")] -= 1
    assert not wild.waits_mask(c, w1, w2, -1) >> w1 & 1


def test_waits_allocate_nothing():
    import gc

    if not hasattr(gc, "mem_alloc"):
        return
    w1, w2 = wild.wild_faces(F("5p"))
    c = P("234456p789p11s46s")  # 4p and 6p wild
    wild.waits_mask(c, w1, w2, 0)
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    for _ in range(5):
        wild.waits_mask(c, w1, w2, 0)
        wild.is_win(c, w1, w2, 0)
    grown = gc.mem_alloc() - a
    gc.enable()
    assert grown == 0, grown
