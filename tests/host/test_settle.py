"""`mjtable settle`: a referee's hand script played through the engine.

Every example in examples/settle/ carries an `# expect:` line with the deltas
its rule text gives; seed002.txt is the seed's worked example (甲 -53 乙 +7
丙 +31 丁 +15). Bad lines fail with the line named and print nothing.
"""

import glob
import json
import os
import re

import pytest
from gamekit import located, snapshot
from mjcall import call
from mjtable.referee import script, simcore
from sichuan import game as G
from sichuan import handlog, presets, tiles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "settle", "*.txt")))
SEED002 = os.path.join(ROOT, "examples", "settle", "seed002.txt")


def expected(path):
    with open(path, encoding="utf-8") as f:
        m = re.search(r"^# expect: (.*)$", f.read(), re.M)
    assert m, path
    return [int(v) for v in re.findall(r"[甲乙丙丁] ([+-]?\d+)", m.group(1))]


def test_seed002_gives_the_seeds_numbers(capsys):
    code, out, err = call(capsys, "settle", SEED002, "--json")
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["deltas"] == [-53, 7, 31, 15]
    pays = [(p["payer"], p["payee"], p["amount"], p["reason"]) for p in d["payments"]]
    assert pays == (
        [(p, 1, 2, "gang_an") for p in (0, 2, 3)]        # 乙 暗杠 9筒: 2 each
        + [(p, 2, 5, "zimo") for p in (0, 1, 3)]         # 丙 自摸 清一色: 4 + 1 each
        + [(0, r, 16, "huazhu") for r in (1, 2, 3)]      # 甲 花猪: 16 to each
        + [(1, 3, 4, "chajiao")]                         # 乙 没听 pays 丁's 七对 (2 番)
        + [(1, r, 2, "tuigang") for r in (0, 2, 3)])     # 乙 refunds the 暗杠
    assert d["wins"] == [{"line": 17, "seat": 2, "fan": 2, "flags": ["zimo"], "from": -1,
                          "tile": "5m", "fan_shown": 2, "patterns": {"qingyise": 2}}]
    assert d["checks"] == [{"seat": 0, "status": "huazhu", "fan": -1, "fan_shown": None},
                           {"seat": 1, "status": "not_ready", "fan": -1, "fan_shown": None},
                           {"seat": 3, "status": "ready", "fan": 2, "fan_shown": 2}]
    assert d["end"] == "wall"


def test_seed002_text_names_every_payment_and_the_deltas(capsys):
    code, out, err = call(capsys, "settle", SEED002)
    assert code == 0
    lines = out.splitlines()
    assert lines[-1] == "deltas: East -53  South +7  West +31  North +15   (sum 0)"
    assert sum(" pays " in line for line in lines) == 13
    assert "    East  pays South  16  查花猪 (huazhu)" in lines
    assert "    South pays North   4  查叫 (chajiao)" in lines
    assert "line 15  乙 暗杠 9p" in lines


@pytest.mark.parametrize("path", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_every_example_gives_its_rule_texts_deltas(capsys, path):
    code, out, err = call(capsys, "settle", path, "--json")
    assert code == 0, err
    assert json.loads(out)["deltas"] == expected(path)


def test_a_win_shows_the_fan_and_patterns_as_calc_does(capsys):
    # chengdu counts 平胡 as 1番 (0 doublings): calc said 1, settle said 0 (issue 21 item 3)
    path = os.path.join(ROOT, "examples", "settle", "001-guoshou.txt")
    code, out, err = call(capsys, "calc", "34666m23455678p", "--win", "5m", "--void", "s",
                          "--rules", "chengdu", "--json")
    ref = json.loads(out)
    code, out, err = call(capsys, "settle", path, "--json")
    (w,) = json.loads(out)["wins"]
    assert (w["fan"], w["fan_shown"], w["patterns"]) == (0, ref["fan"], ref["patterns"]) == (
        0, 1, {"pinghu": 0})
    code, out, err = call(capsys, "settle", path)
    assert "    South 胡 on East's discard 5m: 1 番 (0 doublings): 平胡 pinghu +0" in (
        out.splitlines())


def test_examples_cover_the_worked_rules():
    names = {os.path.basename(p) for p in EXAMPLES}
    for n in ("seed002.txt", "002-yipao-duoxiang.txt", "002-qianggang.txt",
              "002-third-winner.txt", "002-xueliu-lock.txt", "001-guoshou.txt",
              "001-gangshangpao.txt", "004-diangang-bao.txt", "tfmj-zhuanyi-split.txt",
              "tfmj-zimo.txt"):
        assert n in names


# -- the script's conveniences say what they did


def _script(*lines, rules="xuezhan"):
    head = ["rules " + rules,
            "甲 手牌 5m 123m 789m 234p 456p 9p",
            "乙 手牌 46m 111p 789p 234p 55p",
            "丙 手牌 5m 234m 456m 777m 888m",
            "丁 手牌 234s 456s 11s 88s 789p",
            "甲 定缺 条", "乙 定缺 条", "丙 定缺 筒", "丁 定缺 万"]
    return "\n".join(head + list(lines)) + "\n"


def test_seat_words_and_english_verbs_are_the_same():
    a = script.run(_script("甲 打 5m", "乙 胡", "丙 胡"))
    b = script.run(_script("E discard 5m", "S hu", "W win"))
    c = script.run(_script("1 打 5m", "2 胡 5m", "3 和"))
    d = script.run(_script("East 打 5m", "south 胡", "西 胡"))  # the names the output uses
    assert list(a.game.delta) == list(b.game.delta) == list(c.game.delta) == [-5, 1, 4, 0]
    assert list(d.game.delta) == [-5, 1, 4, 0]


def test_colons_commas_and_a_rule_file_next_to_the_script(capsys, tmp_path):
    (tmp_path / "house.toml").write_text('base = "xuezhan"\nname = "house"\n', encoding="utf-8")
    text = _script("甲：打 5m", "乙：胡，", "丙:胡", rules="house.toml")
    (tmp_path / "s.txt").write_text(text, encoding="utf-8")
    code, out, err = call(capsys, "settle", str(tmp_path / "s.txt"), "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["rules"] == "house" and d["deltas"] == [-5, 1, 4, 0]


def test_several_actions_on_one_line():
    a = script.run(_script("甲 打 5m", "乙 胡", "丙 胡"))
    b = script.run(_script("甲 打 5m", "乙 胡 5m", "丙 胡"))
    assert list(a.game.delta) == list(b.game.delta)
    c = script.run(_script("甲 打 9p", "乙 摸 3s 打 3s", "丙 摸 1s 打 1s", "丁 自摸 1s"))
    assert list(c.game.delta) == [-2, -2, -2, 6]  # 平胡 自摸: 1 + 1 each
    assert c.filled == 0


def test_unwritten_claims_are_passes_and_skipped_turns_filled():
    r = script.run(_script("甲 打 9p", "丁 自摸 1s"))
    assert r.filled == 2  # 乙 and 丙 drew and threw
    g = r.game
    for i in range(g.ndisc):  # the filled discards changed no hand and gave no win
        assert g.dseat[i] in (0, 1, 2)
    assert list(g.delta) == [-2, -2, -2, 6]
    assert bytes(located(g)) == bytes(g.seen)


def test_filled_turns_never_hand_anyone_a_win():
    # seed 002: 丁 waits 4条 all along; 52 filled turns, and the only win is 丙's 自摸
    r = script.run(open(SEED002, encoding="utf-8").read())
    assert r.filled == 52 and len(r.wins()) == 1
    g = r.game
    assert g.wall == 0 and sum(g.seen) == 108 and bytes(located(g)) == bytes(g.seen)
    assert tiles.to_text(g.hand[0]) == "11567m34457p578s"  # 甲 still holds its 5 7 8条


def test_a_wall_that_cannot_be_filled_names_the_tiles_and_their_winners(capsys, tmp_path):
    # three seats wait on 5万 / 1条 8条: at the end only winning tiles are left
    path = tmp_path / "s.txt"
    path.write_text(_script("甲 打 9p", "流局"), encoding="utf-8")
    code, out, err = call(capsys, "settle", str(path))
    assert code == 2 and out == ""
    assert "line 11: cannot fill South's turn" in err
    assert ("tiles left: 2m x2 (West 胡), 3m x2 (West 胡), 5m (South 自摸, West 胡, East 胡),"
            in err)
    assert "1s x2 (North 胡), 8s x2 (North 胡); write the draws, or end with `流局 过`" in err


def test_liuju_guo_plays_the_wall_out_with_the_wins_passed(capsys, tmp_path):
    path = tmp_path / "s.txt"
    path.write_text(_script("甲 打 9p", "流局 过"), encoding="utf-8")
    code, out, err = call(capsys, "settle", str(path), "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["end"] == "wall" and d["wins"] == [] and d["filled_turns"] == 55
    assert [c["status"] for c in d["checks"]] == ["ready"] * 4
    # where a win in the last four tiles is forced, the pass is refused by name
    with pytest.raises(script.ScriptError, match=r"may not pass .*must win in the last four"):
        script.run(_script("甲 打 9p", "流局 过", rules="chengdu"))


# issue 21 item 5: 丁 throws the last free 9万 after 38 filled turns; the
# turns before that line must not draw it (it was released before they were filled)
KONG_AFTER_FILL = """rules tfmj-2024
dealer E
E 手牌 1s 14568m 12356789p
S 手牌 234567m 999m 234p 9p
W 手牌 147p 9p 123456789s
N 手牌 2468p 123456789s
E 定缺 s
S 定缺 s
W 定缺 m
N 定缺 m
E 打 1s
""" + "".join("N 打 %s\n" % t for t in "9s 9s 8s 8s 7s 7s 6s 6s 5s 5s 4s 3s 9m".split()) + "S 杠\n"


def test_filled_turns_keep_the_tile_a_later_line_names(capsys, tmp_path):
    path = tmp_path / "kong.txt"
    path.write_text(KONG_AFTER_FILL, encoding="utf-8")
    code, out, err = call(capsys, "settle", str(path), "--json")
    assert code == 0, err
    d = json.loads(out)
    assert [(p["payer"], p["payee"], p["amount"], p["reason"]) for p in d["payments"]] == [
        (3, 1, 2, "gang_zhi")]
    assert d["deltas"] == [0, 2, 0, -2]


def test_end_of_script_passes_open_claims():
    r = script.run(_script("甲 打 5m"))  # 乙 and 丙 could win; nobody wrote it
    assert r.wins() == [] and r.game.phase == G.PH_DRAW


# -- bad lines: an error naming the line, nothing printed


BAD = [
    (["甲 打 5s"], 10, "tile not held"),
    (["甲 打 9p", "乙 碰"], 11, "乙 碰 refused: tile not held (East's 9p)"),
    (["乙 打 5m"], 10, "East is to discard first"),
    (["甲 打 5m", "乙 碰"], 11, "tile not held"),
    (["甲 打 5m", "丁 碰"], 11, "cannot meld the void suit"),
    (["甲 打 9p", "乙 摸 3s", "丙 打 1s"], 12, "South is to discard first"),
    (["甲 打 5m", "乙 胡 6m"], 11, "the tile on the table is 5m, not 6m"),
    (["甲 打 5m", "丁 胡"], 11, "丁 胡 refused: not a win"),
    (["甲 打 5m", "丁 碰 5m"], 11, "cannot meld the void suit"),
    (["甲 打 5m", "丙 碰 6m"], 11, "the tile on the table is 5m, not 6m"),
    (["戊 打 5m"], 10, "not a seat"),
    (["甲 扔 5m"], 10, "not an action"),
    (["甲 打 5x"], 10, "not a tile"),
    (["甲 打"], 10, "needs a tile"),
    (["甲 打 9p", "rules chengdu"], 11, "must come before"),
    (["甲 打 5m", "乙 胡", "丙 胡", "乙 打 1m"], 13, "has won and left"),
    (["甲 打 9p", "乙 自摸"], 11, "South is to draw first"),
]


@pytest.mark.parametrize("lines, line, msg", BAD)
def test_bad_line_names_the_line_and_prints_nothing(capsys, tmp_path, lines, line, msg):
    path = tmp_path / "bad.txt"
    path.write_text(_script(*lines), encoding="utf-8")
    code, out, err = call(capsys, "settle", str(path))
    assert code == 2 and out == ""
    assert ("line %d:" % line) in err and msg in err, err


def test_bad_deal_names_the_seat_count(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("甲 手牌 123m\n", encoding="utf-8")
    code, out, err = call(capsys, "settle", str(path))
    assert code == 2 and out == "" and "line 1:" in err and "14 as the dealer" in err


def test_missing_dingque_is_named(capsys, tmp_path):
    text = "\n".join(_script().splitlines()[:8]) + "\n甲 打 5m\n"
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = call(capsys, "settle", str(path))
    assert code == 2 and "line 9:" in err and "定缺" in err


def test_tfmj_late_bugang_is_refused_with_the_reason():
    with pytest.raises(script.ScriptError, match=r"line 14: .*补杠 only with the tile just drawn"):
        script.run("\n".join([
            "rules tfmj-2024",
            "甲 手牌 9p 123m 456m 789m 123s 5s", "乙 手牌 99p 11p 234p 456m 789m",
            "丙 手牌 6p 123p 111s 333s 777s", "丁 手牌 6p 234m 567m 345p 111m",
            "甲 定缺 筒", "乙 定缺 条", "丙 定缺 万", "丁 定缺 条",
            "甲 打 9p", "乙 碰 9p 打 1p", "乙 摸 9p 打 1p", "乙 摸 8m",
            "乙 补杠 9p"]))


def test_guoshou_refusal_names_the_rule():
    path = os.path.join(ROOT, "examples", "settle", "001-guoshou.txt")
    with open(path, encoding="utf-8") as f:
        text = f.read().replace("丁 打 2m", "丁 打 2m\n乙 胡")
    with pytest.raises(script.ScriptError, match=r"line 19: 乙 胡 refused: .*过手胡"):
        script.run(text)


def test_xueliu_locked_discard_is_refused():
    path = os.path.join(ROOT, "examples", "settle", "002-xueliu-lock.txt")
    with open(path, encoding="utf-8") as f:
        text = f.read().replace("乙 打 2m", "乙 摸 2m 打 9m")
    with pytest.raises(script.ScriptError, match=r"line 16: .*hand locked after a win"):
        script.run(text)


def test_missing_file_is_bad_input(capsys):
    code, out, err = call(capsys, "settle", "/nonexistent/x.txt")
    assert code == 2 and "cannot read" in err


# -- a whole simulated hand, written out as a script, settles the same


def _log_to_script(rs_name, buf, implied=False):
    """A log's actions as a full script; implied: leave out each draw that the
    same seat's next action names (摸切 and 自摸), as a referee would."""
    head, recs = handlog.decode(buf)
    lines = ["rules " + rs_name, "dealer %d" % (head[2] + 1)]
    if head[3] != G.DIR_NEXT:
        lines.append("direction " + {1: "prev", 4: "across"}[head[3]])
    verbs = {G.DEAL: "手牌", G.EXCHANGE: "换三张", G.DRAW: "摸", G.DISCARD: "打", G.PENG: "碰",
             G.ZHIGANG: "直杠", G.BUGANG: "补杠", G.ANGANG: "暗杠", G.PASS: "过"}
    acts = [r[1] for r in recs if r[0] == handlog.REC_ACTION]
    skip = set()
    if implied:
        for i in range(len(acts) - 1):
            a, b = acts[i], acts[i + 1]
            if a[0] == G.DRAW and b[1] == a[1] and (
                    (b[0] == G.DISCARD and b[2] == a[2]) or b[0] == G.HU):
                skip.add(i)
    for i, (kind, seat, arg, _t) in enumerate(acts):
        if i in skip:
            continue
        who = "%d" % (seat + 1)
        if kind in (G.DEAL, G.EXCHANGE):
            lines.append("%s %s %s" % (who, verbs[kind], " ".join(tiles.name(f) for f in arg)))
        elif kind == G.DINGQUE:
            lines.append("%s 定缺 %s" % (who, "mps"[arg]))
        elif kind in (G.DRAW, G.DISCARD, G.BUGANG, G.ANGANG):
            lines.append("%s %s %s" % (who, verbs[kind], tiles.name(arg)))
        elif kind == G.HU:
            drawn = acts[i - 1][2] if i - 1 in skip else -1
            lines.append("%s 自摸 %s" % (who, tiles.name(drawn)) if drawn >= 0 else "%s 胡" % who)
        else:
            lines.append("%s %s" % (who, verbs[kind]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("preset", ["xuezhan", "xueliu", "tfmj-2024", "chengdu"])
def test_simulated_hands_written_as_scripts_settle_the_same(preset):
    rs = presets.get(preset)
    sim = simcore.Sim(rs, 21)
    for _ in range(6):
        h = sim.play_hand(log=True)
        r = script.run(_log_to_script(preset, h["log"]))
        assert list(r.game.delta) == h["deltas"]
        assert r.filled == 0


@pytest.mark.parametrize("preset", ["xuezhan", "xueliu", "games456"])
def test_implied_draws_settle_the_same(preset):
    rs = presets.get(preset)
    sim = simcore.Sim(rs, 5)
    for _ in range(6):
        h = sim.play_hand(log=True)
        full = _log_to_script(preset, h["log"])
        short = _log_to_script(preset, h["log"], implied=True)
        lines = [ln.split() for ln in full.splitlines()]
        implied = 0  # a draw the same seat's next line names: 摸切 or 自摸
        for i in range(len(lines) - 1):
            x, y = lines[i], lines[i + 1]
            if x[1:2] == ["摸"] and y in ([x[0], "打", x[2]], [x[0], "胡"]):
                implied += 1
        assert implied > 5 and len(short.splitlines()) == len(lines) - implied
        r = script.run(short)
        assert list(r.game.delta) == h["deltas"] and r.filled == 0
        assert snapshot(r.game) == snapshot(script.run(full).game)
