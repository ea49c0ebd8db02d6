"""`mjtable sim`: seeded self-play, identical on CPython and MicroPython.

Runs the CLI in-process (cli.main) and the MicroPython engine through the
real micropython binary (mp_sim.py driving the same simcore.py file).
"""

import io
import json
import os
import sys

import pytest
from mjcall import call
from mjtable.commands import sim as simcmd
from mjtable.referee import simcore
from sichuan import handlog, presets, ruleset

MICROPYTHON = os.path.join(os.path.dirname(sys.executable), "micropython")
needs_mp = pytest.mark.skipif(not os.access(MICROPYTHON, os.X_OK), reason="no micropython")


def json_lines(out):
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("preset", presets.names())
def test_hands_zero_sum_and_totals_add_up(capsys, preset):
    code, out, err = call(capsys, "sim", "--rules", preset, "--hands", "12", "--seed", "7",
                          "--json")
    assert code == 0 and err == ""
    rows = json_lines(out)
    hands, last = rows[:-1], rows[-1]
    assert [h["hand"] for h in hands] == list(range(1, 13))
    rs = presets.get(preset)
    np = rs[ruleset.P_PLAYERS]
    totals = [rs[ruleset.P_START_POINTS]] * np
    ma_total = 0
    for h in hands:
        assert sum(h["deltas"]) == 0, h
        paid = [0] * np
        if rs[ruleset.P_JIAOMA]:  # the 马 wins what its seat wins, from the same payers
            ma = h["ma"]
            paid = ma["paid"]
            assert ma["delta"] == h["deltas"][ma["seat"]] == sum(paid), h
            ma_total += ma["delta"]
        totals = [t + d - p for t, d, p in zip(totals, h["deltas"], paid, strict=True)]
        assert h["totals"] == totals
        assert h["end"] in ("wall", "winners")
        for w in h["wins"]:
            assert 0 <= w["seat"] < np and w["seat"] != w["from"]
    assert last["totals"] == totals and last["hands"] == 12
    assert ("ma_total" in last) == bool(rs[ruleset.P_JIAOMA])
    assert last.get("ma_total", 0) == ma_total
    assert sorted(last["ranking"]) == list(range(np))
    assert [totals[s] for s in last["ranking"]] == sorted(totals, reverse=True)
    assert sum(last["wins"]) == sum(len(h["wins"]) for h in hands)


def test_same_seed_same_output_other_seed_differs(capsys):
    a = call(capsys, "sim", "--hands", "6", "--seed", "11")
    b = call(capsys, "sim", "--hands", "6", "--seed", "11")
    c = call(capsys, "sim", "--hands", "6", "--seed", "12")
    assert a == b and a[0] == 0
    assert a[1] != c[1]


def test_text_output_has_a_line_per_hand_and_the_table(capsys):
    code, out, err = call(capsys, "sim", "--rules", "xueliu", "--hands", "4", "--seed", "2")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[1] for line in lines[:4]] == ["1", "2", "3", "4"]
    assert lines[4] == ""
    assert lines[5].startswith("match: rules xueliu, 4 hands, seed 2")
    assert len([line for line in lines if line[:4].strip().isdigit()]) == 4  # ranking rows
    assert err == ""  # no progress bar: stderr is not a terminal


@needs_mp
@pytest.mark.parametrize("preset", presets.names())
def test_both_engines_print_the_same(capsys, preset):
    for extra in (["--json"], []):
        argv = ["sim", "--rules", preset, "--hands", "10", "--seed", "5"] + extra
        cp = call(capsys, *argv)
        mp = call(capsys, *argv, "--engine", "micropython")
        assert cp[0] == mp[0] == 0
        assert cp[1].replace("engine cpython", "engine micropython") == mp[1]


@needs_mp
def test_both_engines_write_the_same_logs(capsys, tmp_path):
    a, b = tmp_path / "cp", tmp_path / "mp"
    call(capsys, "sim", "--hands", "3", "--seed", "9", "--log", str(a))
    call(capsys, "sim", "--hands", "3", "--seed", "9", "--log", str(b), "--engine", "micropython")
    names = sorted(os.listdir(a))
    assert names == ["hand-0001.hl", "hand-0002.hl", "hand-0003.hl"]
    assert names == sorted(os.listdir(b))
    for n in names:
        assert (a / n).read_bytes() == (b / n).read_bytes()


def test_logs_replay_to_the_printed_deltas(capsys, tmp_path):
    code, out, err = call(capsys, "sim", "--rules", "tfmj-2024", "--hands", "5", "--seed", "4",
                          "--json", "--log", str(tmp_path))
    assert code == 0
    rs = presets.get("tfmj-2024")
    for h in json_lines(out)[:-1]:
        buf = (tmp_path / ("hand-%04d.hl" % h["hand"])).read_bytes()
        g = handlog.replay(rs, buf)
        assert list(g.delta) == h["deltas"]
        head, recs = handlog.decode(buf)
        assert head[2] == h["dealer"]
        paid = [r for r in recs if r[0] == handlog.REC_PAY]
        net = [0, 0, 0, 0]
        for _, payer, payee, amount, _why in paid:
            net[payer] -= amount
            net[payee] += amount
        assert net == h["deltas"]


def test_hands_default_to_the_match_length(capsys):
    code, out, err = call(capsys, "sim", "--rules", "bloodshed", "--json")
    assert code == 0
    assert json_lines(out)[-1]["hands"] == 4  # seed 000: 赤羽之战 is four hands


@pytest.mark.parametrize("argv, msg", [
    (["--hands", "0"], "--hands 0"),
    (["--rules", "nosuch"], "unknown preset"),
    (["--seed", "-1"], "--seed -1"),
])
def test_bad_arguments_exit_2_with_a_message(capsys, argv, msg):
    code, out, err = call(capsys, "sim", *argv)
    assert code == 2 and out == ""
    assert msg in err


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    s = Tty()
    bar = simcmd.Progress(10, s)
    for i in range(1, 11):
        bar.update(i)
    bar.close()
    assert "10/10 hands" in s.getvalue() and s.getvalue().endswith("\r")
    plain = io.StringIO()
    bar = simcmd.Progress(10, plain)
    bar.update(10)
    bar.close()
    assert plain.getvalue() == ""


def test_rng_is_xorshift32_with_known_values():
    # pinned: the same numbers on both interpreters depend on this exact sequence
    r = simcore.Rng(1)
    assert [r.next() for _ in range(3)] == [173101455, 745838175, 1767508224]
    assert simcore.Rng(0).x == 12345


def test_bot_distance_ready_and_far():
    from sichuan import tiles
    assert simcore.distance(tiles.parse("1112345678999m"), 0) == 0
    assert simcore.distance(tiles.parse("159m159p159s1m2p3s4m"), 0) > 3


def test_logjson_decodes_and_replays_sim_logs(capsys, tmp_path):
    from mjtable.logs import logjson
    code, out, err = call(capsys, "sim", "--rules", "xueliu", "--hands", "2", "--seed", "3",
                          "--json", "--log", str(tmp_path))
    assert code == 0
    rs = presets.get("xueliu")
    for h in json_lines(out)[:-1]:
        path = tmp_path / ("hand-%04d.hl" % h["hand"])
        d = logjson.replay(rs, path.read_bytes())
        assert d["deltas"] == h["deltas"] and d["over"]
        assert d["header"]["dealer"] == h["dealer"] and d["header"]["players"] == 4
        acts = [r for r in d["records"] if "action" in r]
        assert len(acts) == h["actions"]
        assert [r["action"] for r in acts[:4]] == ["deal"] * 4
        ts = [r["t"] for r in acts]
        assert ts == sorted(ts)
        net = [0] * 4
        for r in d["records"]:
            if "pay" in r:
                net[r["payer"]] -= r["amount"]
                net[r["payee"]] += r["amount"]
        assert net == h["deltas"]
        assert logjson.main([str(path)]) == 0
        assert json.loads(capsys.readouterr().out) == logjson.decode(path.read_bytes())
    bad = tmp_path / "bad.hl"
    bad.write_bytes(b"HL\x01" + bytes(11) + b"\xff")
    assert logjson.main([str(bad)]) == 2
    assert "byte 14" in capsys.readouterr().err


def test_sim_counts_the_fan_as_the_rule_text_does(capsys):
    # chengdu: 平胡 is 1番 with 0 doublings; sim printed the doublings (issue 21 item 3)
    code, out, err = call(capsys, "sim", "--rules", "chengdu", "--hands", "2", "--seed", "3",
                          "--json")
    wins = [w for d in json_lines(out)[:-1] for w in d["wins"]]
    assert wins and all(w["fan_shown"] == min(w["fan"], 4) + 1 for w in wins)
    code, out, err = call(capsys, "sim", "--rules", "chengdu", "--hands", "1", "--seed", "3")
    assert "South 胡 (East 点炮) 4s 3 番 (2 doublings)" in out.splitlines()[0]


def test_sim_of_erheyi_with_dingque_does_not_crash(capsys, tmp_path):
    # a 报胡 seat with four pairs and its void suit had no legal action (IndexError)
    f = tmp_path / "house.toml"
    f.write_text('base = "xuezhan"\nbaohu = 2\n', encoding="utf-8")
    code, out, err = call(capsys, "sim", "--rules", str(f), "--hands", "1", "--seed", "3")
    assert code == 0 and "match: rules house" in out
