"""Tile notation (sichuan.tiles): every accepted form, errors that name the
position, the four-copies limit and the to_text round trip.

Runs under CPython (pytest) and MicroPython (tools/mptest.py): plain asserts.
Issue 2: "Notation in: `123m456p789s`, also `一二三万`, `5筒`, `索` for 条;
errors name the offending position. Notation out: `123m456p`."
"""

from check import lcg, raises
from sichuan import tiles


def _counts(pairs):
    """bytearray(27) from (face, count) pairs: the expected value, built by hand."""
    c = bytearray(27)
    for f, n in pairs:
        c[f] = n
    return c


def test_ascii_notation_faces():
    # face = suit*9 + rank-1; m 0, p 1, s 2
    c = tiles.parse("123m456p789s")
    assert c == _counts([(0, 1), (1, 1), (2, 1), (12, 1), (13, 1), (14, 1),
                         (24, 1), (25, 1), (26, 1)])
    assert isinstance(c, bytearray) and len(c) == 27


def test_repeated_ranks_count():
    c = tiles.parse("1112345678999m")
    assert c[0] == 3 and c[8] == 3 and c[4] == 1 and tiles.total(c) == 13


def test_chinese_numerals_and_suits():
    # issue 2: `一二三万`
    assert tiles.parse("一二三万") == tiles.parse("123m")
    assert tiles.parse("九万") == tiles.parse("9m")
    assert tiles.parse("四五六七八九万") == tiles.parse("456789m")


def test_single_tile_words():
    # issue 2: `5筒`, `索` for 条; seed 001: "也有的地方称为饼，从一饼到九饼"
    assert tiles.parse("5筒") == tiles.parse("5p")
    assert tiles.parse("5饼") == tiles.parse("5p")
    assert tiles.parse("5条") == tiles.parse("5s")
    assert tiles.parse("5索") == tiles.parse("5s")
    assert tiles.parse("5万") == tiles.parse("5m")


def test_traditional_suit_words():
    # seed 003 is written in traditional characters: 萬, 條 (筒 is the same)
    assert tiles.parse("123萬") == tiles.parse("123m")
    assert tiles.parse("66條") == tiles.parse("66s")
    assert tiles.parse("5餅") == tiles.parse("5p")


def test_seed_spacing_groups_ranks_until_suit():
    # seed 001 writes hands as "123 46 万 123 66 789条": ranks gather until a suit
    a = tiles.parse("123 46 万 123 66 789条")
    assert a == tiles.parse("12346m12366789s")
    assert tiles.total(a) == 13


def test_mixed_forms_in_one_string():
    assert tiles.parse("一二三万5筒99s") == tiles.parse("123m5p99s")


def test_parse_tile():
    assert tiles.parse_tile("5m") == 4
    assert tiles.parse_tile("五万") == 4
    assert tiles.parse_tile("1p") == 9
    assert tiles.parse_tile("9索") == 26
    raises(ValueError, tiles.parse_tile, "55m")
    raises(ValueError, tiles.parse_tile, "")
    raises(ValueError, tiles.parse_tile, "5")


def test_name_every_face():
    names = [tiles.name(f) for f in range(27)]
    assert names[0] == "1m" and names[8] == "9m" and names[9] == "1p"
    assert names[17] == "9p" and names[18] == "1s" and names[26] == "9s"
    for f in range(27):
        assert tiles.parse_tile(names[f]) == f


def test_suit_index_words():
    for w in ("m", "万", "萬"):
        assert tiles.suit_index(w) == 0
    for w in ("p", "筒", "饼", "餅"):
        assert tiles.suit_index(w) == 1
    for w in ("s", "条", "索", "條"):
        assert tiles.suit_index(w) == 2
    for bad in ("x", "", "mm", "5", "z"):
        raises(ValueError, tiles.suit_index, bad)


def test_to_text_forms():
    assert tiles.to_text(tiles.parse("一二三万5筒")) == "123m5p"
    assert tiles.to_text(tiles.parse("9s1m")) == "1m9s"
    assert tiles.to_text(bytearray(27)) == ""


def test_to_text_round_trip_random():
    nxt = lcg(2024)
    for _ in range(300):
        c = bytearray(27)
        for _ in range(nxt(15)):
            f = nxt(27)
            if c[f] < 4:
                c[f] += 1
        text = tiles.to_text(c)
        assert tiles.parse(text) == c, text


def test_total():
    assert tiles.total(bytearray(27)) == 0
    assert tiles.total(tiles.parse("1112345678999m")) == 13
    assert tiles.total(tiles.parse("1111m2222p3333s")) == 12


def _msg(e):
    return str(e.args[0]) if e.args else str(e)


def test_error_bad_char_names_position():
    e = raises(ValueError, tiles.parse, "12x3m")
    assert "2" in _msg(e), _msg(e)
    e = raises(ValueError, tiles.parse, "123m45q")
    assert "6" in _msg(e), _msg(e)


def test_error_position_counts_characters_not_bytes():
    # position 2 is the third character even though 一 and 二 are 3 bytes each in UTF-8
    e = raises(ValueError, tiles.parse, "一二z万")
    assert "2" in _msg(e) and "6" not in _msg(e), _msg(e)


def test_error_zero_rank():
    e = raises(ValueError, tiles.parse, "0m")
    assert "0" in _msg(e)
    raises(ValueError, tiles.parse, "10m")


def test_error_ranks_without_suit():
    e = raises(ValueError, tiles.parse, "123m45")
    assert "4" in _msg(e), _msg(e)
    raises(ValueError, tiles.parse, "123")


def test_error_suit_without_ranks():
    e = raises(ValueError, tiles.parse, "123mp")
    assert "4" in _msg(e), _msg(e)
    raises(ValueError, tiles.parse, "m")
    raises(ValueError, tiles.parse, "万")


def test_error_more_than_four_copies():
    e = raises(ValueError, tiles.parse, "11111m")
    m = _msg(e)
    assert "1m" in m and "4" in m, m
    # the fifth copy may come from a later group of the same suit
    e = raises(ValueError, tiles.parse, "1111m23p1m")
    assert "8" in _msg(e), _msg(e)
    raises(ValueError, tiles.parse, "五五五五五万")
    # four is fine
    assert tiles.parse("1111m")[0] == 4


def test_error_changes_nothing_in_out_buffer():
    # common brief: "Bad input gets a clear error and changes nothing."
    out = bytearray(27)
    out[26] = 2
    before = bytes(out)
    raises(ValueError, tiles.parse, "1m2x", out)
    assert bytes(out) == before, "parse(text, out) changed out before failing"
    raises(ValueError, tiles.parse, "11m111m", out)
    assert bytes(out) == before


def test_parse_into_out_buffer():
    out = bytearray(27)
    r = tiles.parse("55p", out)
    assert r is out and out[13] == 2
