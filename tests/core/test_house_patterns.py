"""House patterns (issue 42): the five example files of examples/rules/house/
on hands worked out by hand, those that must score and those that must not,
the same on CPython and MicroPython (the rulesets are housekit's integer
forms; tests/host/test_housepat.py holds each file to its form).

Base xuezhan throughout (seed 002: 平胡 0, 清一色 2, 七对 2, 根 1, 海底 1; no
门清, no 自摸 fan): what a hand scores without the house pattern is stated
beside each case.
"""

from calckit import calc
from check import lcg, raises
from housekit import (
    duanyao_menqing,
    haidilaoyue,
    jiaxinwu,
    menqing_duanyao,
    pattern,
    ruleset,
    sanyuan_free,
    yitiaolong,
)
from sichuan import fan, meld, presets, shape, tiles
from sichuan import pattern as P
from sichuan import ruleset as R

T = tiles.parse_tile


def win(rs, hand, tile, melds=(), flags=0):
    """calc's dict for `hand` (13 less 3 a meld) winning on `tile`."""
    ms = [meld.make(k, T(t)) for k, t in melds]
    return calc.calc_result(rs, tiles.parse(hand), T(tile), ms, -1, flags)


def pats(rs, hand, tile, melds=(), flags=0):
    r = win(rs, hand, tile, melds, flags)
    assert r["win"], r
    return r["patterns"]


# ---- 一条龙: 123 456 789 of one suit as three runs, +1


def test_yitiaolong_scores_the_three_runs_of_one_suit():
    rs = yitiaolong()
    # 123 456 789m + 11p 567p: 平胡 0, one more for 一条龙
    assert pats(rs, "123456789m11p57p", "6p") == {"yitiaolong": 1}
    # 11 123 456 789 + 9999m? no: 111 2345678 999 + 9: 11 / 123 456 789 / 999,
    # 清一色 2 + 根 (four 9s) 1 + 一条龙 1
    r = win(rs, "1112345678999m", "9m", flags=fan.ZIMO)
    assert r["patterns"] == {"qingyise": 2, "gen": 1, "yitiaolong": 1}
    assert r["fan"] == 4 and r["base"] == 16  # 4 doublings, at xuezhan's cap of 4
    # with a 碰 beside the nine: 11 tiles in hand are still the runs and the pair
    assert pats(rs, "123456789m5p", "5p", [(meld.PENG, "7p")]) == {"yitiaolong": 1}


def test_yitiaolong_needs_the_three_runs_not_the_nine_ranks():
    rs = yitiaolong()
    # every rank of 万, but as 123 345 567 789: taking 123 456 789 leaves 3 5 7
    assert pats(rs, "123345567789m9p", "9p") == {"pinghu": 0}
    # 1 to 9 over two suits: 123 456m and 789p are no 一条龙
    assert pats(rs, "123456m789p11p45p", "6p") == {"pinghu": 0}
    # 对对胡 and 七对 hold no run at all
    assert "yitiaolong" not in pats(rs, "111999m222p555p8p", "8p")


def test_a_house_pattern_changes_nothing_when_it_does_not_hold():
    base = presets.get("xuezhan")
    rs = yitiaolong()
    for hand, tile in (("123345567789m9p", "9p"), ("1122334455667m", "7m")):
        c = tiles.parse(hand)
        assert calc.calc_result(rs, c, T(tile)) == calc.calc_result(base, c, T(tile))


# ---- 夹心五: won on a 5 in the middle of 4-5-6, and only so, +1


def test_jiaxinwu_is_the_5_between_4_and_6():
    rs = jiaxinwu()
    # 4_6 waits on 5 alone: 456m 11m 123p 456p 789p
    assert pats(rs, "4611m123456789p", "5m") == {"jiaxinwu": 1}
    assert pats(rs, "4611m123456789p", "5m", flags=fan.ZIMO) == {"jiaxinwu": 1}
    # 4666m + 5: 456 66, and the 5 can be nothing else (no 3, no 7, one 5)
    assert pats(rs, "4666m123456789p", "5m")["jiaxinwu"] == 1
    # 44566m + 5: 456 456, again only the middle
    assert pats(rs, "44566m12345699p", "5m")["jiaxinwu"] == 1


def test_jiaxinwu_must_not_score_another_reading_of_the_5():
    rs = jiaxinwu()
    # 4556m + 5: 456 + 55, the 5 may be the pair's (a 单钓 on 5): not only the middle
    assert pats(rs, "4556m123456789p", "5m") == {"pinghu": 0}
    # 34m + 5: the end of 345, never the middle
    assert pats(rs, "3411m123456789p", "5m") == {"pinghu": 0}
    # 35m + 4: the middle of 345, but a 4
    assert pats(rs, "3511m123456789p", "4m") == {"pinghu": 0}
    # 44566m 112233p 99p + 5m: 七对 (2) reads better than 456 456 (0 + 1), and in
    # seven pairs the 5 pairs a single: no 夹心五
    assert pats(rs, "44566m11223399p", "5m") == {"qidui": 2}


# ---- 海底捞月: 自摸 of the last tile, +1; 海底炮 stays 海底


def test_haidilaoyue_is_the_self_drawn_last_tile():
    rs = haidilaoyue()
    hand = "123456m11p234p67p"
    assert pats(rs, hand, "5p", flags=fan.ZIMO | fan.HAIDI) == {
        "pinghu": 0, "haidi": 1, "haidilaoyue": 1}
    assert win(rs, hand, "5p", flags=fan.ZIMO | fan.HAIDI)["fan"] == 2


def test_haidipao_and_an_early_self_draw_are_not_haidilaoyue():
    rs = haidilaoyue()
    hand = "123456m11p234p67p"
    assert pats(rs, hand, "5p", flags=fan.HAIDI) == {"pinghu": 0, "haidi": 1}  # 海底炮
    assert pats(rs, hand, "5p", flags=fan.ZIMO) == {"pinghu": 0}
    assert pats(rs, hand, "5p") == {"pinghu": 0}


# ---- 门清 and 断幺九 as house patterns: what the built-ins give


def test_menqing_and_duanyaojiu_by_hand():
    house = duanyao_menqing()
    built = menqing_duanyao()
    cases = (
        # no 1 or 9, no meld: 门清 1 + 断幺九 1
        ("234567m345678p2p", "2p", (), {"menqing": 1, "duanyaojiu": 1}),
        # a 碰: no 门清
        ("234567m345p2p", "2p", ((meld.PENG, "6p"),), {"duanyaojiu": 1}),
        # an 暗杠 keeps 门清
        ("234567m345p2p", "2p", ((meld.ANGANG, "6p"),),
         {"menqing": 1, "duanyaojiu": 1, "gen": 1}),
        # a 9: no 断幺九
        ("234567m345p789p2p", "2p", (), {"menqing": 1}),
        # 七对: no 门清 (the rule text: 不计门前清)
        ("223344m5566778p", "8p", (), {"qidui": 2, "duanyaojiu": 1}),
    )
    for hand, tile, melds, want in cases:
        got = pats(house, hand, tile, melds)
        got.pop("pinghu", None)
        assert got == want, (hand, got)
        assert win(house, hand, tile, melds) == win(built, hand, tile, melds), hand


def _random_win(nxt):
    """A random winning hand: (counts without the tile, tile, melds, flags), or None."""
    c = bytearray(27)
    melds = []
    for _ in range(nxt(3)):
        f = nxt(18)
        if c[f] == 0:
            melds.append(meld.make((meld.PENG, meld.ZHIGANG, meld.ANGANG)[nxt(3)], f))
            c[f] = 9  # marks the face taken by a meld
    for i in range(27):
        if c[i] == 9:
            c[i] = 0
    suits = 1 + nxt(2)
    k = 0
    while k < 13 - 3 * len(melds):
        f = nxt(9 * suits)
        if c[f] < 4 and not any(meld.face(m) == f for m in melds):
            c[f] += 1
            k += 1
    waits = shape.waits(c, -1, fan.meld_counts(melds, bytearray(27)))
    if not waits:
        return None
    flags = (0, fan.ZIMO, fan.ZIMO | fan.HAIDI, fan.HAIDI)[nxt(4)]
    return c, waits[nxt(len(waits))], melds, flags


def test_duanyao_menqing_definitions_give_the_builtins_results():
    """The differential test of issue 42 on the integer forms, both interpreters:
    every win of a random sample scores the same under the built-ins and under
    the house patterns that replace them (calc's whole dict: fan, base, each
    pattern by its id)."""
    house = duanyao_menqing()
    built = menqing_duanyao()
    nxt = lcg(42)
    seen = {"menqing": 0, "duanyaojiu": 0}
    n = 0
    while n < 250:
        w = _random_win(nxt)
        if w is None:
            continue
        c, f, melds, flags = w
        a = calc.calc_result(built, c, f, melds, -1, flags)
        b = calc.calc_result(house, c, f, melds, -1, flags)
        assert a == b, (tiles.to_text(c), f, melds, flags, a, b)
        for k in seen:
            seen[k] += k in a.get("patterns", {})
        n += 1
    assert seen["menqing"] > 20 and seen["duanyaojiu"] > 5, seen  # both were tried


# ---- 边张 (sanyuan-free.toml): the 3 of 1-2 or the 7 of 8-9, the only wait


def test_bianzhang_is_the_edge_wait():
    rs = sanyuan_free()
    assert pats(rs, "12m456789m234p11p", "3m") == {"bianzhang": 1}
    assert pats(rs, "89m123456m234p11p", "7m", flags=fan.ZIMO) == {"bianzhang": 1}


def test_bianzhang_must_not_score_a_wider_wait_or_another_role():
    rs = sanyuan_free()
    # 1112m: waits 2m (111 22) and 3m (11 123): the 3 is an edge, but not the only wait
    assert pats(rs, "1112m456789m234p", "3m") == {"pinghu": 0}
    # 1233m + 3: 123 33 or 12 333? the 3 may be the pair's (单钓) too
    assert pats(rs, "1233m456789m111p", "3m") == {"pinghu": 0}
    # 23m + 4: an open wait (1 or 4), not an edge
    assert pats(rs, "23m456789m234p11p", "4m") == {"pinghu": 0}


# ---- the engine itself: parts, absorbing, the cap, allocation


def test_absorbing_takes_the_builtin_off_and_order_among_house_patterns():
    # a pattern worth 3 for 清一色 in one suit of 1-9 runs that absorbs 清一色, and a
    # second that the first absorbs
    qing = [(P.H_SUITS, P.RANGE, 1, 1)]
    rs = ruleset("t", [pattern(3, qing + [(P.STRAIGHT, P.RANGE, 1, 1)],
                               absorbs=1 << R.QINGYISE, house=2),
                       pattern(1, qing)], [("qinglong", "清龙"), ("qing", "清")])
    assert pats(rs, "11123456789m99m", "9m") == {"gen": 1, "qinglong": 3}
    # without the runs the first does not hold: 清一色 and the second count
    assert pats(rs, "11123455789m99m", "9m") == {"qingyise": 2, "gen": 1, "qing": 1}


def test_absorbed_by_a_builtin_and_at_cap():
    rs = ruleset("t", [pattern(R.AT_CAP, [(P.FOURS, P.RANGE, 1, 4),
                                          (P.COUNTED, 0, R.QIDUI, 0)])], [("si", "四归一")])
    hand = "1111m23m567p88p99p"  # four 1m held, not konged: 111 123m 567p 999p 88p
    assert pats(rs, hand, "9p") == {"gen": 1, "si": 4}  # 满格: the cap itself, 4 doublings
    # seven pairs only (1111 33 55 77 99m 22p): 七对 counts, so 四归一 does not
    assert pats(rs, "1111m335577m9m22p", "9m") == {"qidui": 2, "gen": 1}


def test_parts_of_the_win_tile_and_of_the_melds():
    ids = [("x", "x")]

    def one(*conds):
        return ruleset("t", [pattern(1, list(conds))], ids)
    # 两边: 23 waiting 1 or 4
    rs = one((P.ROLE, P.ANY, P.W_OPEN, 0))
    assert "x" in pats(rs, "23m456789m234p11p", "4m")
    assert "x" not in pats(rs, "4611m123456789p", "5m")
    # 对出: 33 and 55 waiting, the 5 makes a pung
    rs = one((P.ROLE, P.ANY, P.W_PUNG, 0))
    assert "x" in pats(rs, "33m55m123456789p", "5m")
    # the pair is a 2, 5 or 8 (将)
    rs = one((P.PAIR, P.ANY, 0b010010010, 0))
    assert "x" in pats(rs, "123456789m22p45p", "6p")
    assert "x" not in pats(rs, "123456789m11p45p", "6p")
    # every group a run (and a pair): 平 in other games
    rs = one((P.READING, P.ANY, P.R_RUNS, 0))
    assert "x" in pats(rs, "123456789m11p45p", "6p")
    assert "x" not in pats(rs, "123456789m11p55p", "5p")
    # two 暗杠 exactly
    rs = one((P.ANGANG, P.RANGE, 2, 2))
    got = pats(rs, "123m11p45p", "6p", [(meld.ANGANG, "7m"), (meld.ANGANG, "8m")])
    assert got["x"] == 1 and got["gen"] == 2
    assert "x" not in pats(rs, "123m11p45p", "6p", [(meld.ANGANG, "7m"), (meld.PENG, "8m")])
    # a tile of the concealed part only: a 9 in hand, the melds aside
    rs = one((P.C_RANKS, P.ANY, 0, 1))  # rank 9: bit 8
    assert "x" not in pats(rs, "123m11p45p", "6p", [(meld.PENG, "9m"), (meld.PENG, "8m")])
    assert "x" in pats(rs, "789m11p45p", "6p", [(meld.PENG, "1m"), (meld.PENG, "8m")])


def test_tianhu_alone_leaves_house_patterns_out():
    rs = ruleset("t", [pattern(1, [(P.H_SUITS, P.RANGE, 1, 3)])], [("x", "x")], base="chengdu")
    r = win(rs, "123456789m11p45p", "6p", flags=fan.ZIMO | fan.TIANHU)
    assert r["patterns"] == {"tianhu": 3}


def test_house_blobs_round_trip_and_old_blobs_keep_their_crc():
    for make in (yitiaolong, jiaxinwu, haidilaoyue, duanyao_menqing, sanyuan_free):
        rs = make()
        blob = rs.to_blob()
        assert blob[2] == R.HOUSE_VERSION
        back = R.from_blob(blob)
        assert back == rs and back.house_n == rs.house_n and back.crc() == rs.crc()
    plain = presets.get("xuezhan")
    assert plain.to_blob()[2] == R.FORMAT_VERSION == 2  # no house patterns: format 2
    assert yitiaolong().crc() != plain.copy("yitiaolong").crc()  # the patterns are in the CRC


def _reseal(body):
    import struct
    from binascii import crc32

    return bytes(body) + struct.pack("<I", crc32(bytes(body)) & 0xFFFFFFFF)


def test_a_bad_house_section_is_refused_with_the_reason():
    blob = bytearray(jiaxinwu().to_blob())
    for i in range(len(blob)):  # every single-byte change is caught
        b = bytearray(blob)
        b[i] ^= 0x5A
        raises(ValueError, R.from_blob, bytes(b))
    body = blob[:-4]
    end = 5 + body[3] + 2 * R.NPARAMS
    prog = end + 3  # the first pattern's program

    def refused(change, words):
        b = bytearray(body)
        change(b)
        e = raises(ValueError, R.from_blob, _reseal(b))
        msg = str(e.args[0]) if e.args else str(e)
        assert words in msg, msg

    def part(b):
        b[prog + 6] = 40  # a part this core does not know
    refused(part, "condition 1 is not one this core knows")

    def value(b):
        b[prog] = 16
    refused(value, "value 16 is out of range")

    def count(b):
        b[end] = 9
    refused(count, "at most 8")

    def absorbs_itself(b):
        b[prog + 5] = 1
    refused(absorbs_itself, "absorbs no such pattern")

    def none(b):
        b[end] = 0
    refused(none, "overrun")

    def cut(b):
        b[end:] = b""
    refused(cut, "without house patterns")

    def old(b):  # a format 2 blob with bytes after its values
        b[2] = 2
    refused(old, "length")


def test_house_scoring_allocates_nothing_on_micropython():
    import gc

    if not hasattr(gc, "mem_alloc"):
        return
    rs = ruleset("t", [
        pattern(1, [(P.STRAIGHT, P.RANGE, 1, 1)]),
        pattern(1, [(P.WIN_RANK, P.ANY, 16, 0), (P.ROLE, P.ANY, 1, 0), (P.ROLE, P.NONE, 30, 0)]),
        pattern(1, [(P.HOW, P.ALL, fan.ZIMO | fan.HAIDI, 0), (P.WAITS, P.RANGE, 1, 3)]),
        pattern(1, [(P.SHOWN, P.RANGE, 0, 0), (P.READING, P.ANY, P.R_GROUPS | P.R_RUNS, 0),
                    (P.PAIR, P.ANY, 0x92, 0), (P.TERMINALS, P.RANGE, 0, 0)]),
        pattern(1, [(P.H_RANKS, P.NONE, 1, 1), (P.C_SUITS, P.RANGE, 1, 2),
                    (P.FOURS, P.RANGE, 0, 1), (P.COUNTED, 0, R.QIDUI, 0)]),
    ], [("a", "a"), ("b", "b"), ("c", "c"), ("d", "d"), ("e", "e")])
    out = bytearray(fan.NOUT)
    c = tiles.parse("123456789m11p456p")
    ms = (meld.make(meld.ANGANG, T("7p")),)
    c2 = tiles.parse("123456m22p456p")
    for args in ((rs, c, (), -1, fan.ZIMO | fan.HAIDI, out, T("5p")),
                 (rs, c2, ms, -1, 0, out, T("5m"))):
        fan.score(*args)
        fan.score(*args)
        gc.collect()
        before = gc.mem_alloc()
        for _ in range(20):
            fan.score(*args)
        assert gc.mem_alloc() - before == 0, args
    assert out[fan.HOUSE0 + 3]  # the last case held the fourth pattern
