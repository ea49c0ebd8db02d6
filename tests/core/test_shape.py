"""Win shapes and waits (sichuan.shape) against the rule words and against a
plain recursive reference written here (lowest tile first), on hands from a
tiny LCG so CPython and MicroPython check the very same hands.

Rule words (issue 2): "Win shapes: four groups + a pair; seven pairs, where a
four-of-a-kind counts as two pairs (and is a 根). 缺门: with a void suit, no
tile of it in hand or melds." "A wait that needs a fifth copy is not a wait."
Seed 002: "七对不能有碰、杠出去的组。四张一样的牌可以拆成两对来用".
"""

import sys

from check import lcg
from sichuan import shape, tiles

P = tiles.parse


# ---- reference: plain recursion, obviously right, slow --------------------

def _ref_groups(c, need_pair):
    i = 0
    while i < 27 and c[i] == 0:
        i += 1
    if i == 27:
        return not need_pair
    if need_pair and c[i] >= 2:
        c[i] -= 2
        ok = _ref_groups(c, False)
        c[i] += 2
        if ok:
            return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _ref_groups(c, need_pair)
        c[i] += 3
        if ok:
            return True
    if i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _ref_groups(c, need_pair)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        if ok:
            return True
    # a lone tile that starts nothing: only the pair could have taken it (tried above)
    return False


def _ref_win(c, void=-1):
    n = sum(c)
    if n % 3 != 2:
        return False
    if void >= 0 and sum(c[void * 9:void * 9 + 9]):
        return False
    if n == 14 and all(x % 2 == 0 for x in c):
        return True
    return _ref_groups(bytearray(c), True)


def _ref_waits(c, void=-1, limit=None):
    out = []
    if sum(c) % 3 != 1:
        return out
    for f in range(27):
        held = c[f] + (limit[f] if limit else 0)
        if held >= 4:
            continue
        c[f] += 1
        if _ref_win(c, void):
            out.append(f)
        c[f] -= 1
    return out


def _faces(text):
    c = P(text)
    return [f for f in range(27) if c[f]]


# ---- is_win -----------------------------------------------------------------

def test_four_groups_and_pair():
    assert shape.is_win(P("123345789m23466p"))
    assert shape.is_win(P("111333444m22266p"))
    assert not shape.is_win(P("123345789m23467p"))


def test_pair_alone_wins_with_four_melds():
    # 金钩钓: four melds shown, the concealed part is one pair
    assert shape.is_win(P("66p"))
    assert not shape.is_win(P("67p"))


def test_seven_pairs():
    assert shape.is_qidui(P("1133446677m5588p"))
    assert shape.is_win(P("1133446677m5588p"))
    assert not shape.is_qidui(P("1133446677m558p9p"))


def test_seven_pairs_with_a_four_counts_as_two_pairs():
    # seed 001 龙七对: "如1133446666万5588筒"; seed 002: "四张一样的牌可以拆成两对来用"
    c = P("1133446666m5588p")
    assert shape.is_qidui(c)
    assert shape.is_win(c)
    assert shape.is_win(P("11112222m333355p"))  # three fours and a pair


def test_seven_pairs_needs_fourteen_concealed():
    # seed 002: "七对不能有碰、杠出去的组" -> with a meld fewer than 14 concealed tiles
    assert not shape.is_qidui(P("11335577m99p"))
    assert not shape.is_qidui(P("11m"))


def test_void_suit_blocks_win():
    # seed 002: "缺门没打完不能胡，哪怕那张缺门牌在牌形上正好能连成顺子"
    c = P("123345789m23466p")
    assert shape.is_win(c, -1)
    assert shape.is_win(c, 2)
    assert not shape.is_win(c, 0)
    assert not shape.is_win(c, 1)
    q = P("1133446677m5588p")
    assert shape.is_win(q, 2) and not shape.is_win(q, 1)


def test_wrong_tile_counts_are_not_wins():
    for text in ("123m", "1112m", "111222333m", "123456789m1122p", "", "1m"):
        assert not shape.is_win(P(text) if text else bytearray(27)), text


def test_is_standard():
    assert shape.is_standard(P("123345789m23466p"))
    assert not shape.is_standard(P("1133446677m5588p"))
    assert shape.is_standard(P("11223344556677m"))  # also 123 123 456 456 77
    assert not shape.is_standard(P("123345789m23466p"), 1)


# ---- waits: hand-made ---------------------------------------------------------

def test_waits_faces_in_order():
    w = shape.waits(P("1112345678999m"))
    assert w == list(range(9))


def test_waits_mask_matches_waits():
    c = P("22234m77m123456p")
    m = shape.waits_mask(c)
    assert [f for f in range(27) if m >> f & 1] == shape.waits(c)


def test_fifth_copy_is_not_a_wait():
    # 1111234m: a fifth 1m would make 11 111 234; holding four, it is no wait
    c = P("1111234m456p789p")
    assert 0 not in shape.waits(c)
    assert 3 in shape.waits(c)  # 111 123 44
    assert shape.waits(c) == _ref_waits(bytearray(c))


def test_limit_counts_meld_copies():
    # a single 2m held with a 碰 of 2m elsewhere: the wait 2m needs a fifth copy
    c = P("2m")
    assert shape.waits(c) == [1]
    lim = bytearray(27)
    lim[1] = 3
    assert shape.waits(c, -1, lim) == []
    lim[1] = 2
    assert shape.waits(c, -1, lim) == [1]
    # the seven-pairs wait also respects it
    q = P("113355m224466p8p")
    assert 16 in shape.waits(q)
    lim = bytearray(27)
    lim[16] = 3
    assert 16 not in shape.waits(q, -1, lim)


def test_seven_pairs_wait_on_a_triplet_makes_a_four():
    # 111m + five pairs: the fourth 1m makes 1111 = two pairs (seed 002)
    c = P("111m2233m4455p66s")
    assert 0 in shape.waits(c)


def test_waits_wrong_tile_counts_are_empty():
    for text in ("11m", "12345m", "1112345678999m1p", "123m456m"):
        c = P(text)
        assert shape.waits(c) == [], text


def test_waits_with_void():
    c = P("12346m12366789s")
    assert shape.waits(c, 1) == shape.waits(c) == [4]
    assert shape.waits(c, 0) == []
    assert shape.waits(c, 2) == []


# ---- against the reference ------------------------------------------------------

def _random_hand(nxt, n, suits=3):
    c = bytearray(27)
    k = 0
    while k < n:
        f = nxt(9 * suits)
        if c[f] < 4:
            c[f] += 1
            k += 1
    return c


def _random_win(nxt, groups, suits):
    """A winning hand of `groups` groups and a pair drawn in `suits` suits."""
    while True:
        c = bytearray(27)
        ok = True
        for _ in range(groups):
            f = nxt(9 * suits)
            if nxt(2) and f % 9 <= 6:
                for d in range(3):
                    c[f + d] += 1
            else:
                c[f] += 3
        c[nxt(9 * suits)] += 2
        for x in c:
            if x > 4:
                ok = False
        if ok:
            return c


def test_is_win_matches_reference():
    nxt = lcg(7)
    for i in range(400):
        if i % 2:
            c = _random_win(nxt, nxt(5), 1 + nxt(3))
        else:
            c = _random_hand(nxt, 14 if nxt(2) else 2 + 3 * nxt(5), 1 + nxt(3))
        for void in (-1, 0, 1, 2):
            assert shape.is_win(c, void) == _ref_win(c, void), (tiles.to_text(c), void)


def test_waits_match_reference():
    nxt = lcg(11)
    for i in range(300):
        if i % 3:
            c = _random_win(nxt, nxt(5), 1 + nxt(3))
            nz = [f for f in range(27) if c[f]]
            c[nz[nxt(len(nz))]] -= 1
        else:
            c = _random_hand(nxt, 13 if nxt(2) else 1 + 3 * nxt(5), 1 + nxt(2))
        for void in (-1, 2):
            assert shape.waits(c, void) == _ref_waits(c, void), (tiles.to_text(c), void)


def test_waits_with_limit_match_reference():
    nxt = lcg(13)
    for _ in range(150):
        c = _random_win(nxt, 1 + nxt(4), 2)
        nz = [f for f in range(27) if c[f]]
        c[nz[nxt(len(nz))]] -= 1
        lim = bytearray(27)
        for f in range(27):
            if c[f] < 4 and nxt(3) == 0:
                lim[f] = nxt(5 - c[f])
        assert shape.waits(c, -1, lim) == _ref_waits(c, -1, lim), tiles.to_text(c)


def test_shape_does_not_change_counts():
    c = P("1112345678999m")
    before = bytes(c)
    shape.waits(c)
    shape.is_win(P("11122345678999m"))
    shape.waits_mask(c, 1)
    assert bytes(c) == before


def _alloc_per_call(fn, *args):
    """Bytes of heap one call allocates once warm; 0 where the interpreter cannot
    tell (CPython has no gc.mem_alloc: the property is MicroPython's)."""
    import gc

    if not hasattr(gc, "mem_alloc"):
        return 0
    fn(*args)
    fn(*args)
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(20):
        fn(*args)
    return (gc.mem_alloc() - before) // 20


def test_hot_paths_allocate_nothing_on_micropython():
    # issue 2: "The core allocates nothing per call on its hot paths once warm"
    lim = bytearray(27)
    for text in ("1112345678999m", "22234m77m123456p", "113355m224466p8p", "2m"):
        c = P(text)
        for void in (-1, 1, 2):
            assert _alloc_per_call(shape.waits_mask, c, void, None) == 0, text
            assert _alloc_per_call(shape.waits_mask, c, void, lim) == 0, text
    for text in ("11122345678999m", "1133446666m5588p", "123345789m23466p", "66p"):
        c = P(text)
        assert _alloc_per_call(shape.is_win, c, -1) == 0, text
        assert _alloc_per_call(shape.is_win, c, 2) == 0, text


def test_groups_step_table_follows_the_greedy_rule():
    # shape._STEP[16 * (3*r1 + r2) + x]: the state after a rank holding x tiles
    # (0..15), r1/r2 the runs started at the two ranks below; 144 = failed, and
    # stays so. CPython's is_groups steps it; MicroPython's is viper code and has
    # no table.
    if not hasattr(shape, "_STEP"):
        assert sys.implementation.name == "micropython"
        return
    assert len(shape._STEP) == 160
    for st in range(10):
        for x in range(16):
            got = shape._STEP[16 * st + x]
            if st == 9:
                assert got == 144, (st, x)
                continue
            r1, r2 = st // 3, st % 3
            left = x - r1 - r2
            assert got == (144 if left < 0 else 16 * (3 * (left % 3) + r1)), (st, x)


def test_groups_with_counts_up_to_fifteen_match_reference():
    # wild.score's choices and the checks inside them give a face up to ten
    # copies: random suits with counts up to 15, against the plain recursion
    nxt = lcg(12345)
    for _ in range(3000):
        c = bytearray(27)
        for r in range(9):
            c[9 + r] = nxt(16) if nxt(4) == 0 else 0
        assert shape.is_groups(c, 9) == _ref_groups(c, False), bytes(c[9:18])


def _suits(c, size, low, out):
    """Call out(c) for every suit at offset 9 of `size` more tiles from rank index low up."""
    if size == 0:
        out(c)
        return
    for i in range(low, 9):
        if c[9 + i] < 5:
            c[9 + i] += 1
            _suits(c, size - 1, i, out)
            c[9 + i] -= 1


def test_groups_matches_reference_on_every_suit_up_to_nine_tiles():
    # every suit of 1 to 9 tiles, counts up to 5 (wild hands try a fifth
    # copy): the greedy (the table on CPython, viper on MicroPython) against
    # the plain recursion; sizes not 3k must fail (a run may not start at 8)
    seen = [0]

    def check(c):
        seen[0] += 1
        assert shape.is_groups(c, 9) == _ref_groups(c, False), tiles.to_text(c)

    for size in range(1, 10):
        _suits(bytearray(27), size, 0, check)
    assert seen[0] > 40000
