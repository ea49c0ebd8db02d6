"""House patterns in rule files (issue 42): the five examples compile to the
integer forms tests/core runs on both interpreters; the definitions of 门清 and
断幺九 score a random sample as the built-ins do; a pattern that cannot be
scored is refused naming its line; every key or value error names its line
and column; warnings for the cap; `rules show` reads a compiled blob back;
calc's 天胡/地胡 flags and the Chinese names of 卡/硬卡."""

from __future__ import annotations

import json
import os
import random
import re

import housekit
import pytest
from mjcall import call
from mjtable import BadInput
from mjtable.referee import calc
from mjtable.rules import rulefile
from sichuan import fan, meld, presets, shape, tiles
from sichuan import ruleset as R

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOUSE = os.path.join(ROOT, "examples", "rules", "house")


def load(tmp_path, text, name="house.toml"):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return rulefile.load(str(f))


def bad(tmp_path, text, *words, where=None):
    """The message of the BadInput loading text; it names house.toml:LINE:COL."""
    with pytest.raises(BadInput) as e:
        load(tmp_path, text)
    msg = str(e.value)
    if where is not None:
        assert (":%d:%d: " % where) in msg, msg
    assert re.search(r"house\.toml:\d+:\d+: ", msg), msg
    for w in words:
        assert w in msg, msg
    return msg


# -- the examples


@pytest.mark.parametrize("name, make", housekit.EXAMPLES)
def test_each_example_compiles_to_its_integer_form(name, make):
    rs = rulefile.load(os.path.join(HOUSE, name + ".toml"))
    want = make()
    assert rs == want and rs.crc() == want.crc()
    assert R.from_blob(rs.to_blob()) == rs


def _wins(rng, n):
    """n random winning calls: (counts, tile, melds, flags)."""
    out = []
    while len(out) < n:
        c = bytearray(27)
        melds = []
        for f in rng.sample(range(18), rng.randrange(3)):
            melds.append(meld.make(rng.choice((meld.PENG, meld.ZHIGANG, meld.BUGANG,
                                               meld.ANGANG)), f))
        lim = fan.meld_counts(melds, bytearray(27))
        suits = rng.choice((9, 18))
        while sum(c) < 13 - 3 * len(melds):
            f = rng.randrange(suits)
            if c[f] + lim[f] < 4:
                c[f] += 1
        ws = shape.waits(c, -1, lim)
        if ws:
            flags = rng.choice((0, fan.ZIMO, fan.ZIMO | fan.HAIDI, fan.HAIDI, fan.QIANGGANG))
            out.append((c, rng.choice(ws), melds, flags))
    return out


def test_duanyao_menqing_scores_every_hand_of_a_sample_as_the_builtins():
    """The differential test: examples/rules/house/duanyao-menqing.toml (house
    patterns) against examples/rules/menqing-duanyao.toml (the built-ins), calc's
    whole answer on 3000 random wins with melds and ways of winning, and each
    wait's value of the hands before them."""
    house = rulefile.load(os.path.join(HOUSE, "duanyao-menqing.toml"))
    built = rulefile.load(os.path.join(ROOT, "examples", "rules", "menqing-duanyao.toml"))
    seen = {"menqing": 0, "duanyaojiu": 0, "both": 0}
    for c, f, melds, flags in _wins(random.Random(42), 3000):
        a = calc.calc_result(built, c, f, melds, -1, flags)
        b = calc.calc_result(house, c, f, melds, -1, flags)
        assert a == b, (tiles.to_text(c), f, melds, flags)
        p = a.get("patterns", {})
        seen["menqing"] += "menqing" in p
        seen["duanyaojiu"] += "duanyaojiu" in p
        seen["both"] += "menqing" in p and "duanyaojiu" in p
        assert (calc.waits_result(built, c, melds, -1, True)
                == calc.waits_result(house, c, melds, -1, True))
    assert min(seen.values()) > 50, seen  # the sample reaches both, alone and together


# -- refusals: they name the line


def test_unknown_parts_and_words_name_the_line_and_what_is_valid(tmp_path):
    head = 'base = "xuezhan"\n[pattern.x]\nfan = 1\n'
    msg = bad(tmp_path, head + 'win.ass = "卡张"\n', "unknown part 'win.ass'",
              "did you mean 'win.as'", "win.waits", where=(4, 1))
    bad(tmp_path, head + 'win.as = "middel"\n', "'middel' is not one of the roles",
        "卡张 (middle)", where=(4, 10))
    bad(tmp_path, head + 'win.by = "tsumo"\n', "'tsumo' is not how a win comes", "自摸",
        where=(4, 10))
    bad(tmp_path, head + 'hand.ranks = "2-x"\n', "not a set of ranks", where=(4, 14))
    bad(tmp_path, head + "melds.peng = \"lots\"\n", "not a count", where=(4, 14))
    bad(tmp_path, 'base = "xuezhan"\n[pattern.x]\nstraight = true\n', "has no fan",
        where=(2, 1))
    bad(tmp_path, head + 'absorbs = ["qingyise", "dragon"]\n', "'dragon' is no pattern id",
        "qingyise", where=(4, 11))
    assert "parts:" in msg


def test_never_matchable_patterns_are_refused(tmp_path):
    head = 'base = "xuezhan"\n[pattern.x]\nfan = 1\n'
    cases = (
        ("hand.suits = 3\n", "at most 2 suits"),                   # 缺一门
        ('win.by = ["自摸", "点炮"]\n', "a way of winning and its opposite"),
        ('win.by = ["抢杠", "杠上花"]\n', "exclude each other"),
        ('win.by = "杠上花"\nmelds.gang = 0\n', "杠上花 follows a kong"),
        ('win.rank = 1\nwin.as = "卡张"\n', "cannot take that role"),
        ('win.rank = 5\nwin.as = "边张"\n', "cannot take that role"),
        ('reading = "七对"\nwin.as = "卡张"\n', "cannot take that role"),
        ('reading = "七对"\nmelds.peng = 1\n', "seven pairs and four runs have no melds"),
        ('reading = "对对"\nstraight = true\n', "three runs"),
        ('straight = true\nmelds.all = "2+"\n', "takes 9 of the concealed tiles"),
        ('straight = true\nhand.ranks = "2-8"\n', "holds every rank"),
        ('terminals = true\nhand.ranks = "2-8"\n', "allows neither"),
        ('hand.ranks = "2-8"\nhand.has = "19"\n', "no tile may have those ranks"),
        ('concealed.ranks = "12"\nwin.rank = 9\n', "the winning tile is one of the tiles"),
        ('melds.shown = 2\nmelds.peng = 0\nmelds.minggang = 0\n', "no number of 碰"),
        ('melds.all = "5+"\n', "never matchable"),
        ('hand.suits = "3..2"\n', "3 is more than 2"),
    )
    for body, words in cases:
        bad(tmp_path, head + body, "never matchable", words)
    # the same under a ruleset where it can happen is taken: 杠上花 as a discard
    # win on the kong's giver (diangang_hua 2) is no 自摸
    load(tmp_path, 'base = "xuezhan"\ndiangang_hua = 2\n[pattern.x]\nfan = 1\n'
         'win.by = ["杠上花", "点炮"]\n')
    # three suits where there is no 缺一门 (断卡根 has two suits: still refused)
    load(tmp_path, 'base = "xuezhan"\ndingque = 0\n[pattern.x]\nfan = 1\nhand.suits = 3\n')
    bad(tmp_path, 'base = "duankagen"\n[pattern.x]\nfan = 1\nhand.suits = 3\n', "at most 2")
    # 听用 wild tiles stand for any face: the winning tile's is not known
    bad(tmp_path, 'base = "yibin"\n[pattern.x]\nfan = 1\nwin.rank = 5\n', "听用")


def test_too_costly_and_contradictory_absorbing_are_refused(tmp_path):
    many = 'base = "xuezhan"\n' + "".join(
        "[pattern.p%d]\nfan = 1\nhand.has = \"%d\"\n" % (i, i % 9 + 1) for i in range(9))
    bad(tmp_path, many, "too costly: 9 patterns", "at most 8", where=(26, 1))
    conds = ('base = "xuezhan"\n[pattern.x]\nfan = 1\nhand.suits = 1\nconcealed.suits = 1\n'
             'hand.has = "1"\nconcealed.has = "1"\nhand.fours = 0\nmelds.peng = 0\n'
             'melds.angang = 0\nmelds.minggang = 0\nwin.waits = "1+"\n')
    bad(tmp_path, conds, "too costly: 9 conditions", where=(2, 1))
    loop = ('base = "xuezhan"\n[pattern.a]\nfan = 1\nhand.suits = 1\nabsorbs = "b"\n'
            '[pattern.b]\nfan = 1\nhand.suits = 1\nabsorbs = "c"\n'
            '[pattern.c]\nfan = 1\nhand.suits = 1\nabsorbs = "a"\n')
    bad(tmp_path, loop, "contradictory: a and b and c absorb each other", where=(5, 11))
    bad(tmp_path, 'base = "xuezhan"\n[pattern.a]\nfan = 1\nhand.suits = 1\nabsorbs = "a"\n',
        "a absorbs itself")


def test_a_pattern_named_as_a_builtin_replaces_it_but_not_beside_its_value(tmp_path):
    rs = load(tmp_path, 'base = "xuezhan"\n[pattern.qingyise]\nname = "清"\nfan = 3\n'
              'hand.suits = 1\n')
    assert rs.fan(R.QINGYISE) == R.NONE
    c = tiles.parse("1112345678999m")
    assert calc.calc_result(rs, c, tiles.parse_tile("5m"))["patterns"] == {"qingyise": 3}
    bad(tmp_path, 'base = "xuezhan"\nfan.qingyise = 2\n[pattern.qingyise]\nfan = 3\n'
        'hand.suits = 1\n', "replaces the built-in qingyise, which fan.qingyise also sets")
    bad(tmp_path, 'base = "xuezhan"\n[pattern.ka]\nfan = 1\nhand.suits = 1\n',
        "the core's own ka value")


# -- every key or value error names the line


def test_key_and_value_errors_name_line_and_column(tmp_path):
    bad(tmp_path, 'base = "xuezhan"\ncapp = 3\n', "unknown key 'capp' (did you mean 'cap'?)",
        where=(2, 1))
    bad(tmp_path, 'base = "xuezhan"\n# a comment\ncap = 99\n', "cap: 99 is out of range -1..15",
        where=(3, 7))
    bad(tmp_path, 'base = "xuezhan"\n[fan]\nmenqing = 1\nqingyise = "lots"\n',
        "fan.qingyise: 'lots' is not a valid value", where=(4, 12))
    bad(tmp_path, 'base = "xuezhan"\nzimo_bonus = "yes"\n', "write true or false", where=(2, 14))
    bad(tmp_path, 'name = "x"\nbase = 3\n', "base: expected a preset name", where=(2, 8))
    bad(tmp_path, 'base = "xuezhan"\nname = ""\n', "name: expected a string", where=(2, 8))
    bad(tmp_path, 'base = "xuezhan"\nhuansanzhang = 2\n', "huansanzhang: 2 is out of range",
        where=(2, 16))
    with pytest.raises(BadInput, match=r"house\.toml:2:7: not valid TOML"):
        load(tmp_path, 'base = "xuezhan"\ncap = \n')


def test_an_unknown_fan_key_lists_the_pattern_ids_and_says_where_new_ones_go(tmp_path):
    msg = bad(tmp_path, 'base = "xuezhan"\nfan.yitiaolong = 1\n', "unknown key 'fan.yitiaolong'",
              "[pattern.yitiaolong]", "docs/patterns.md", where=(2, 1))
    for pid in R.PATTERNS:
        assert " %s" % pid in msg, pid


def test_a_long_value_is_cut_in_the_message(tmp_path):
    huge = "x" * 10_000_000
    msg = bad(tmp_path, 'base = "xuezhan"\nname = "%s"\n' % huge, "name: expected a string",
              "(10000000 characters)", where=(2, 8))
    assert len(msg) < 300, len(msg)
    msg = bad(tmp_path, 'base = "xuezhan"\ncap = "%s"\n' % ("y" * 5000), "not a valid value")
    assert len(msg) < 300
    msg = bad(tmp_path, 'base = "xuezhan"\n[pattern.x]\nfan = 1\nwin.as = "%s"\n' % ("z" * 5000),
              "is not one of the roles")
    assert len(msg) < 400


def test_cap_warnings_name_the_cap_and_the_pattern(tmp_path, capsys):
    f = tmp_path / "house.toml"
    f.write_text('base = "xuezhan"\ncap = 2\n[fan]\nqingyise = 3\n'
                 '[pattern.big]\nname = "大"\nfan = 4\nhand.has = "5"\n'
                 '[pattern.qingyao]\nfan = 1\nhand.suits = 1\n', encoding="utf-8")
    code, out, err = call(capsys, "calc", "1112345678999m", "--win", "5m", "--rules", str(f),
                          "--json")
    assert code == 0 and json.loads(out)["fan"] == 2  # warnings change nothing
    lines = err.splitlines()
    assert all(ln.startswith("mjtable: warning: %s:" % f) for ln in lines), err
    assert any(":4:1: fan.qingyise = 3 is above cap = 2" in ln for ln in lines), err
    assert any(":7:1: big (fan = 4) is above cap = 2" in ln for ln in lines), err
    assert any(":10:1: qingyao is worthless under cap = 2: 清一色 alone already reaches it"
               in ln for ln in lines), err
    assert len(lines) == 3, err
    # a cap lowered below a built-in of the base names both; 满格 is never above it
    g = tmp_path / "low.toml"
    g.write_text('base = "chengdu"\ncap = 2\n', encoding="utf-8")
    code, out, err = call(capsys, "rules", "show", str(g))
    assert "low.toml:2:1: cap = 2 is below fan.qingdui = 3" in err and "tianhu" not in err, err
    h = tmp_path / "alone.toml"
    h.write_text('base = "chengdu"\n[pattern.t]\nfan = 1\nwin.by = "天胡"\n', encoding="utf-8")
    code, out, err = call(capsys, "rules", "show", str(h))
    assert "t is never paid: 天胡/地胡 do not combine" in err, err
    code, out, err = call(capsys, "rules", "show", os.path.join(HOUSE, "yitiaolong.toml"))
    assert err == ""


# -- reading a compiled ruleset back


def test_rules_show_reads_the_definitions_back_from_the_blob(tmp_path, capsys):
    src = os.path.join(HOUSE, "jiaxinwu.toml")
    blob = tmp_path / "j.bin"
    code, out, err = call(capsys, "rules", "compile", src, "-o", str(blob))
    assert code == 0 and "format" not in err
    shown = [call(capsys, "rules", "show", p)[1] for p in (src, str(blob))]
    tails = [x.split("house patterns")[1] for x in shown]
    assert tails[0] == tails[1]  # read back from the program, as from the file
    tail = tails[1]
    assert "jiaxinwu" in tail and "夹心五" in tail and "+1" in tail
    assert 'win.rank = 5' in tail and 'win.as = "卡张"' in tail and "win.only = true" in tail
    assert "(blob 221 bytes, format 3)" in shown[1], shown[1]
    # a ruleset with none is format 2 as before: the presets' CRCs are unchanged
    assert presets.get("xuezhan").to_blob()[2] == 2 and presets.get("xuezhan").crc() == 0x0B956EF6


def test_rules_help_shows_the_pattern_syntax(capsys):
    code, out, err = call(capsys, "rules", "--help")
    assert code == 0
    for words in ("[pattern.yitiaolong]", "win.as", "卡张", "win.by", "absorbed_by",
                  "docs/patterns.md"):
        assert words in out, words


# -- calc: 天胡/地胡 and the names of 卡 and 硬卡


def test_calc_heavenly_and_earthly(capsys):
    code, out, err = call(capsys, "calc", "123456789m11p45p", "--win", "6p", "--heavenly",
                          "--rules", "chengdu", "--json")
    assert code == 0 and json.loads(out)["patterns"] == {"tianhu": 3}, out
    code, out, err = call(capsys, "calc", "123456789m11p45p", "--win", "6p", "--earthly",
                          "--rules", "games456")
    assert code == 0 and "地胡" in out and "dihu" in out and "自摸" in out
    code, out, err = call(capsys, "calc", "123456789m11p45p", "--win", "6p", "--heavenly",
                          "--earthly")
    assert code == 2 and "exclude each other" in err
    code, out, err = call(capsys, "calc", "123456m11p45p", "--pung", "9m", "--win", "6p",
                          "--heavenly")
    assert code == 2 and "no melds" in err


def test_ka_and_yingka_have_their_chinese_names(capsys):
    code, out, err = call(capsys, "calc", "456p456s11s23p", "--win", "4p", "--self-drawn",
                          "--rules", "duankagen")
    assert code == 0 and "卡　　　 ka" in out, out
    code, out, err = call(capsys, "calc", "46p456s11s123p", "--win", "5p", "--rules", "duankagen")
    assert code == 0 and "硬卡　　 yingka" in out, out
    code, out, err = call(capsys, "rules", "show", "duankagen")
    assert "for each 4-5-6 run the hand holds when it wins by self-draw" in out


def test_the_largest_ruleset_a_file_can_make_fits_the_table(tmp_path):
    """Eight patterns of eight conditions, ids and names at their longest: the
    blob stays within what the table stores (table.hostcmds RULES_MAX)."""
    from table import hostcmds

    body = 'base = "xuezhan"\nname = "%s"\n' % ("名" * 10 + "xx")  # 32 bytes
    for i in range(8):
        body += ('[pattern.p%s]\nname = "%s"\nfan = 1\nhand.suits = "1..2"\nconcealed.suits = '
                 '"1..2"\nhand.has = "5"\nconcealed.has = "5"\nmelds.peng = "0..1"\n'
                 'melds.angang = "0..1"\nwin.by = ["not 海底"]\nhand.fours = "0..2"\n'
                 % ("x" * 14 + str(i), "龙" * 8))
    rs = load(tmp_path, body)
    assert rs.house_n == 8 and len(rs.house_prog) == 8 * (6 + 4 * 8)
    assert len(rs.name.encode()) == 32
    assert len(rs.to_blob()) <= hostcmds.RULES_MAX, len(rs.to_blob())
