"""The `mjtable` calculator CLI: exit codes, JSON shape, batch, both engines.

Runs the CLI in-process through mjtable.cli.main(argv) and as the installed
`.venv/bin/mjtable` script in a subprocess.
"""

import json
import os
import random
import subprocess
import sys

import pytest
from mjcall import call
from mjtable.commands import calc as calccmd
from mjtable.rules import names

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MJTABLE = os.path.join(os.path.dirname(sys.executable), "mjtable")
MICROPYTHON = os.path.join(os.path.dirname(sys.executable), "micropython")
needs_mp = pytest.mark.skipif(not os.access(MICROPYTHON, os.X_OK), reason="no micropython")


def script(*argv, stdin=None):
    return subprocess.run([MJTABLE, *argv], capture_output=True, text=True, input=stdin,
                          cwd=ROOT, check=False)


# -- waits


def test_waits_json_nine_gates(capsys):
    # seed 001/003: 1112345678999 waits on every rank of its suit
    code, out, err = call(capsys, "waits", "1112345678999m", "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {"waits": ["%dm" % r for r in range(1, 10)]}
    assert out == '{"waits": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"]}\n'


def test_waits_chinese_notation_and_void_word(capsys):
    a = call(capsys, "waits", "一二三四五六七八九万1122p", "--void", "条", "--json")
    b = call(capsys, "waits", "123456789m1122p", "--void", "s", "--json")
    assert a == b
    assert json.loads(a[1]) == {"waits": ["1p", "2p"]}


def test_waits_void_suit_in_hand_has_none(capsys):
    code, out, _ = call(capsys, "waits", "123456789m1122p", "--void", "p", "--json")
    assert code == 0 and json.loads(out) == {"waits": []}


def test_waits_fifth_copy_is_not_a_wait(capsys):
    # 2223m waits on 1m 3m 4m; with a 碰 of 4m... use a kong of 1m: 1m needs a fifth copy
    code, out, _ = call(capsys, "waits", "2223m", "--kong", "1m", "--pung", "9p", "--pung", "8p",
                        "--json")
    assert code == 0
    assert json.loads(out)["waits"] == ["3m", "4m"]
    code, out, _ = call(capsys, "waits", "2223m", "--pung", "7p", "--pung", "9p", "--pung", "8p",
                        "--json")
    assert json.loads(out)["waits"] == ["1m", "3m", "4m"]


def test_waits_human(capsys):
    code, out, _ = call(capsys, "waits", "1112345678999m")
    assert code == 0
    assert "1m 2m 3m 4m 5m 6m 7m 8m 9m" in out
    code, out, _ = call(capsys, "waits", "1357m2468p13579s")
    assert code == 0 and "not ready" in out


# -- calc


def test_calc_json_qingyise(capsys):
    code, out, err = call(capsys, "calc", "1112345678999m", "--win", "5m", "--json")
    assert code == 0 and err == ""
    res = json.loads(out)
    assert list(res) == ["win", "fan", "base", "patterns"]
    assert res["win"] is True and res["patterns"]["qingyise"] == 2
    assert res["fan"] == 2 and res["base"] == 4  # xuezhan: base = 2^fan


def test_calc_self_drawn_each_only_when_self_drawn(capsys):
    _, out, _ = call(capsys, "calc", "1112345678999m", "--win", "5m", "--self-drawn", "--json")
    res = json.loads(out)
    assert list(res) == ["win", "fan", "base", "self_drawn_each", "patterns"]
    assert res["self_drawn_each"] == res["base"] + 1  # seed 002: 自摸加底


def test_calc_kong_replacement_implies_self_drawn(capsys):
    # seed 002: 杠 7万 then 9万 on the replacement: 杠上花 1 + 根 1 at least
    code, out, _ = call(capsys, "calc", "123m456p9m", "--kong", "7m", "--pung", "2p", "--win",
                        "9m", "--kong-replacement", "--json")
    assert code == 0
    res = json.loads(out)
    assert "self_drawn_each" in res
    assert res["patterns"]["gangshanghua"] == 1 and res["patterns"]["gen"] == 1
    assert res["fan"] >= 2


def test_calc_cap_applies(capsys):
    # 清七对 with two 根 is over xuezhan's 4-fan cap; chengdu-16 file caps at 4 doublings too
    code, out, _ = call(capsys, "calc", "1111222233445m", "--win", "5m", "--json")
    res = json.loads(out)
    assert code == 0 and sum(res["patterns"].values()) > 4
    assert res["fan"] == 4 and res["base"] == 16


def test_calc_not_a_win_exit_1(capsys):
    code, out, _ = call(capsys, "calc", "1112345678999m", "--win", "1p", "--json")
    assert code == 1
    res = json.loads(out)
    assert res["win"] is False and isinstance(res["reason"], str) and res["reason"]
    code, out, _ = call(capsys, "calc", "1112345678999m", "--win", "1p")
    assert code == 1 and "not a win" in out


def test_calc_human_lists_chinese_names(capsys):
    code, out, _ = call(capsys, "calc", "1112345678999m", "--win", "5m", "--self-drawn")
    assert code == 0
    assert "清一色" in out and "qingyise" in out
    assert "fan: 2" in out and "base (a discarder pays): 4" in out
    assert "each payer pays: 5" in out


def test_pattern_names_cover_every_pattern():
    from sichuan import ruleset

    assert len(names.PATTERN_ZH) == len(ruleset.PATTERNS) == ruleset.NPATTERNS


# -- bad input: message on stderr, exit 2, nothing on stdout


@pytest.mark.parametrize("argv, words", [
    (["waits", "123x456m"], ["HAND", "at 3"]),
    (["waits", "123m"], ["3 tiles", "needs 13"]),
    (["calc", "1112345678999m5m", "--win", "5m"], ["14 tiles", "--win"]),
    (["waits", "1112345678999m", "--rules", "nosuch"], ["nosuch", "xuezhan"]),
    (["waits", "1112345678999m", "--rules", "missing.toml"], ["missing.toml"]),
    (["waits", "55m12345678p", "--pung", "5m"], ["5 copies of 5m"]),
    (["calc", "1112345678999m", "--win", "1m", "--pung", "2p"], ["HAND has 13"]),
    (["calc", "123m456p9m", "--kong", "9m", "--pung", "2p", "--win", "9m"], ["copies of 9m"]),
    (["waits", "1112345678999m", "--void", "z"], ["--void", "z"]),
    (["waits", "1112345678999m", "--pung", "55m"], ["--pung", "one tile"]),
    (["calc", "1112345678999m"], ["--win"]),
    (["waits"], ["HAND"]),
    (["calc", "1112345678999m", "--win", "5m", "--kong-replacement"], ["kong"]),
    (["calc", "1112345678999m", "--win", "5m", "--self-drawn", "--robbed-kong"], ["self-drawn"]),
])
def test_bad_input_exit_2(capsys, argv, words):
    code, out, err = call(capsys, *argv, "--json")
    assert code == 2 and out == ""
    assert err.startswith("mjtable: error: ")
    for w in words:
        assert w in err


def test_usage_errors_exit_2(capsys):
    assert call(capsys, "waits", "1m", "--nope")[0] == 2
    assert call(capsys, "frobnicate")[0] == 2
    assert call(capsys)[0] == 2
    assert call(capsys, "calc", "--help")[0] == 0


def test_script_exit_codes_and_streams():
    r = script("calc", "1112345678999m", "--win", "5m", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["win"] is True
    r = script("calc", "1112345678999m", "--win", "1p", "--json")
    assert r.returncode == 1 and json.loads(r.stdout)["win"] is False
    r = script("waits", "11m", "--json")
    assert r.returncode == 2 and r.stdout == "" and "needs 13" in r.stderr


# -- batch


def test_batch_in_order_with_bad_lines(tmp_path, capsys):
    f = tmp_path / "calls.txt"
    f.write_text("# a comment\n"
                 "1112345678999m --win 5m\n"
                 "\n"
                 "1112345678999m --win 2p\n"
                 "12x --win 5m\n"
                 "'unclosed --win 5m\n"
                 "1112345678999m --win 9m --self-drawn --rules xuezhan\n", encoding="utf-8")
    code, out, err = call(capsys, "calc", "--batch", str(f))
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 2
    assert len(lines) == 5
    assert lines[0]["win"] is True and "self_drawn_each" not in lines[0]
    assert lines[1]["win"] is False
    assert lines[2]["error"].startswith("line 5: ")
    assert lines[3]["error"].startswith("line 6: ")
    assert lines[4]["win"] is True and "self_drawn_each" in lines[4]


def test_batch_all_good_exit_0_and_command_line_defaults(tmp_path, capsys):
    f = tmp_path / "w.txt"
    f.write_text("1112345678999m\n123456789m1122p\n", encoding="utf-8")
    code, out, _ = call(capsys, "waits", "--batch", str(f), "--void", "s")
    assert code == 0
    assert [json.loads(x) for x in out.splitlines()] == [
        {"waits": ["%dm" % r for r in range(1, 10)]}, {"waits": ["1p", "2p"]}]
    # --void p on the command line applies to every line: the second hand holds 筒
    code, out, _ = call(capsys, "waits", "--batch", str(f), "--void", "p")
    assert json.loads(out.splitlines()[1]) == {"waits": []}


def test_batch_and_hand_exclude_each_other(tmp_path, capsys):
    f = tmp_path / "w.txt"
    f.write_text("1112345678999m\n", encoding="utf-8")
    code, out, err = call(capsys, "waits", "1112345678999m", "--batch", str(f))
    assert code == 2 and "exclude" in err


def test_batch_from_stdin():
    r = script("waits", "--batch", "-", stdin="1112345678999m\nbad\n")
    assert r.returncode == 2
    out = r.stdout.splitlines()
    assert json.loads(out[0])["waits"][0] == "1m" and "error" in json.loads(out[1])


# -- both engines give the same bytes


def _random_win(rng):
    """(hand text without the win, win tile, melds args) of a random two-suit win."""
    suits = rng.sample("mps", 2)
    counts = {}

    def add(t, n=1):
        counts[t] = counts.get(t, 0) + n

    def room(t, n):
        return counts.get(t, 0) + n <= 4

    melds = []
    groups = 0
    while groups < 4:
        s = rng.choice(suits)
        r = rng.randint(1, 9)
        kind = rng.random()
        if kind < 0.5 and r <= 7 and all(room((r + i, s), 1) for i in range(3)):
            for i in range(3):
                add((r + i, s))
        elif kind < 0.8 and room((r, s), 3):
            add((r, s), 3)
        elif room((r, s), 4) and not counts.get((r, s)):
            melds += [rng.choice(["--pung", "--kong", "--concealed-kong"]), "%d%s" % (r, s)]
            add((r, s), 4 if melds[-2] != "--pung" else 3)  # taken out of the hand below
        else:
            continue
        groups += 1
    while True:
        r, s = rng.randint(1, 9), rng.choice(suits)
        if room((r, s), 2):
            add((r, s), 2)
            break
    in_melds = {}
    for i in range(0, len(melds), 2):
        t = (int(melds[i + 1][0]), melds[i + 1][1])
        in_melds[t] = 4 if melds[i] != "--pung" else 3
    hand = []
    for t, n in counts.items():
        hand += [t] * (n - in_melds.get(t, 0))
    rng.shuffle(hand)
    win = hand.pop()
    text = "".join("%d%s" % t for t in sorted(hand, key=lambda t: (t[1], t[0])))
    void = "mps".replace(suits[0], "").replace(suits[1], "")
    return text, "%d%s" % win, melds, void


def _calc_lines():
    rng = random.Random(2026)
    presets = ["xuezhan", "xueliu", "tfmj-2024", "chengdu", "games456", "bloodshed"]
    lines = []
    flag_sets = [[], ["--self-drawn"], ["--last-tile"], ["--self-drawn", "--last-tile"],
                 ["--after-kong-discard"], ["--robbed-kong"]]
    for i in range(40):
        hand, win, melds, void = _random_win(rng)
        args = [hand, "--win", win, *melds, "--rules", presets[i % len(presets)]]
        args += rng.choice(flag_sets)
        if rng.random() < 0.5:
            args += ["--void", void]
        if any(m in ("--kong", "--concealed-kong") for m in melds) and rng.random() < 0.5:
            args = [a for a in args if a not in ("--after-kong-discard", "--robbed-kong")]
            args.append("--kong-replacement")
        lines.append(" ".join(args))
    lines += [
        "1112345678999m --win 5m",
        "1112345678999m --win 1p",                      # not a win
        "1111222233445m --win 5m --rules chengdu",       # 清七对 with 根
        "1122334455667m --win 7m --self-drawn",         # 清七对
        "1122334455667m --win 7p",                      # not a win
        "一二三万四五六筒七八九筒九万 --win 九万 --pung 2p",
        "11223344556677p --win 1p",                     # bad: 14 tiles
        "1112345678999m --win 5m --rules examples/rules/chengdu-16.toml",
        "1112345678999m --win 5m --rules examples/rules/menqing-duanyao.toml",
        "234567m23445p66p --win 6p --rules examples/rules/menqing-duanyao.toml --self-drawn",
        "1m --win 1m --pung 2p --pung 3p --pung 4p --kong 5p",  # 金钩钓
        "123m456p9m --kong 7m --pung 2p --win 9m --kong-replacement",
    ]
    return lines


def _waits_lines():
    rng = random.Random(7)
    lines = ["1112345678999m", "1122334455667m", "2223m --kong 1m --pung 9p --pung 8p",
             "1357m2468p13579s", "123456789m1122p --void s", "123456789m1122p --void p",
             "11m --pung 2p --pung 3p --pung 4p --kong 5p", "bad tiles",
             "5556m --pung 7m --pung 8m --pung 9m --rules chengdu"]
    for _ in range(20):
        hand, win, melds, void = _random_win(rng)
        lines.append(" ".join([hand, *melds, "--void", void]))
    return lines


def _both_engines(command, lines, tmp_path):
    f = tmp_path / ("%s.txt" % command)
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    a = script(command, "--batch", str(f))
    b = script(command, "--batch", str(f), "--engine", "micropython")
    return a, b


@needs_mp
def test_engines_identical_on_calc_batch(tmp_path):
    lines = _calc_lines()
    a, b = _both_engines("calc", lines, tmp_path)
    assert b.stderr == "" and a.stderr == ""
    assert a.stdout == b.stdout and a.returncode == b.returncode == 2
    results = [json.loads(x) for x in a.stdout.splitlines()]
    assert len(results) == len(lines)
    wins = [r for r in results if r.get("win")]
    assert len(wins) >= 40  # the random hands are wins by construction
    assert any("gen" in r["patterns"] for r in wins)
    assert any(r["patterns"].get("qingyise") for r in wins)
    assert sum(1 for r in results if "error" in r) == 1


@needs_mp
def test_engines_identical_on_waits_batch(tmp_path):
    lines = _waits_lines()
    a, b = _both_engines("waits", lines, tmp_path)
    assert a.stdout == b.stdout and a.returncode == b.returncode == 2
    results = [json.loads(x) for x in a.stdout.splitlines()]
    assert len(results) == len(lines)
    assert sum(1 for r in results if r.get("waits")) >= 20


@needs_mp
@pytest.mark.parametrize("argv", [
    ["calc", "1112345678999m", "--win", "5m", "--self-drawn"],
    ["calc", "1112345678999m", "--win", "5m", "--self-drawn", "--json"],
    ["calc", "1112345678999m", "--win", "1p", "--json"],
    ["waits", "1112345678999m"],
    ["waits", "1112345678999m", "--json", "--rules", "examples/rules/xueliu-jiafan.toml"],
])
def test_engines_identical_single_calls(argv):
    a = script(*argv)
    b = script(*argv, "--engine", "micropython")
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    assert a.stdout


def test_core_refusal_is_bad_input_on_both_engines(tmp_path):
    # a 13-tile hand under a 10-tile hand_size passes the host's count check; the
    # core's calculator refuses it, and both engines say so in the same words
    f = tmp_path / "ten.toml"
    f.write_text('base = "xuezhan"\nhand_size = 10\n', encoding="utf-8")
    argv = ["waits", "1112345678999m", "--rules", str(f)]
    a = script(*argv)
    b = script(*argv, "--engine", "micropython") if os.access(MICROPYTHON, os.X_OK) else a
    assert a.returncode == 2 and a.stdout == "" and "10" in a.stderr
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    # and a 10-tile hand is one it reads (断卡根's hand size)
    argv = ["waits", "1112345678m", "--rules", str(f)]
    a = script(*argv)
    b = script(*argv, "--engine", "micropython") if os.access(MICROPYTHON, os.X_OK) else a
    assert a.returncode == 0 and "2m" in a.stdout
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)


def test_missing_micropython_is_bad_input(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = call(capsys, "waits", "1112345678999m", "--engine", "micropython")
    assert code == 2 and out == "" and "micropython not found" in err


def test_waits_agree_with_calc(capsys):
    # every listed wait wins under calc; every other tile (not a fifth copy) does not
    rng = random.Random(11)
    checked = 0
    for _ in range(25):
        hand, win, melds, void = _random_win(rng)
        code, out, _ = call(capsys, "waits", hand, *melds, "--void", void, "--json")
        assert code == 0
        waits = json.loads(out)["waits"]
        assert win in waits
        for s in "mps":
            for r in range(1, 10):
                t = "%d%s" % (r, s)
                code, out, err = call(capsys, "calc", hand, *melds, "--void", void, "--win", t,
                                      "--json")
                if code == 2:  # a fifth copy: never a wait
                    assert t not in waits and "copies" in err + out
                    continue
                assert json.loads(out)["win"] is (t in waits), (hand, melds, t)
                assert code == (0 if t in waits else 1)
                checked += 1
    assert checked > 500


def test_canonical_orders_keys_and_patterns():
    d = {"patterns": {"gen": 1, "qingyise": 2}, "base": 8, "win": True, "fan": 3}
    assert calccmd.dumps(d) == ('{"win": true, "fan": 3, "base": 8, '
                                '"patterns": {"qingyise": 2, "gen": 1}}')


def test_python_dash_m_mjtable_is_the_command():
    r = subprocess.run([sys.executable, "-m", "mjtable", "waits", "1112345678999m"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0 and "1m" in r.stdout and "9m" in r.stdout
