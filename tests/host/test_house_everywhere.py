"""Issue 42, item 2: one house pattern scored the same everywhere. A hand the
dealer wins with 一条龙 under examples/rules/house/yitiaolong.toml, logged as
the table logs it, then archived with its ruleset: replay, rescore and export
name it, `settle` of the same hand as a script names it, the live page names
it on the win (in a real headless browser), and `sim` names it on its wins on
both engines with the same bytes."""

from __future__ import annotations

import csv
import json
import os
import struct

from mjcall import call
from mjtable import archive
from mjtable.live import model
from mjtable.logs import logfmt
from mjtable.rules import rulefile
from sichuan import game as G
from sichuan import handlog, tiles

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
YTL = os.path.join(ROOT, "examples", "rules", "house", "yitiaolong.toml")

# The dealer (East) is dealt 123456789m 11p 999s, gives 999s to South in the
# 换三张 (direction next), gets 456p from North and holds 一条龙 on the deal:
# 123 456 789m 456p 11p, won at once (自摸 on the tiles dealt). Worked by hand:
# xuezhan has no 天胡, so 一条龙 +1 is the whole value; 1 doubling, 2 points
# a payer and the 自摸 bonus 1: each of the three pays 3.
DEALS = ("123456789m11p999s", "111m222m333p444s5s", "777p888p222s333s6s",
         "456p999p666m77m11s")
GIVES = ("999s", "444s", "222s", "456p")
VOIDS = (2, 1, 0, 2)
SCRIPT = """rules %s
dealer 甲
direction next
甲 手牌 123456789m 11p 999s
乙 手牌 111m 222m 333p 444s 5s
丙 手牌 777p 888p 222s 333s 6s
丁 手牌 456p 999p 666m 77m 11s
甲 换三张 999s
乙 换三张 444s
丙 换三张 222s
丁 换三张 456p
甲 定缺 条
乙 定缺 筒
丙 定缺 万
丁 定缺 条
甲 自摸 6p
"""


def _faces(text):
    c = tiles.parse(text)
    return [f for f in range(27) for _ in range(c[f])]


def records(rs):
    """The hand's log records as the table writes them, and the game after it."""
    g = G.Game(rs, 0, G.DIR_NEXT)
    w = handlog.Writer(rs.crc(), 4, 0, G.DIR_NEXT, 1000)
    recs = [(model.T_HEAD, bytes(w.buf))]
    t = 1000
    acts = [(G.DEAL, s, _faces(DEALS[s])) for s in range(4)]
    acts += [(G.EXCHANGE, s, _faces(GIVES[s])) for s in range(4)]
    acts += [(G.DINGQUE, s, VOIDS[s]) for s in range(4)]
    acts.append((G.HU, 0, tiles.parse_tile("6p")))
    for kind, s, arg in acts:
        t += 500
        a = (kind, s, arg, t)
        mark = len(w.buf)
        evs = g.apply(a)
        assert evs[0][0] == 0, (a, evs)
        w.record(a, evs)
        recs.append((model.T_ACT, bytes(w.buf[mark:])))
    recs.append((model.T_END, struct.pack("<4h", *g.delta)))
    return recs, g


def archived(tmp_path):
    """An archive holding the hand (its log as the firmware writes it) and the ruleset."""
    from test_hostcmds_e2e import build_log

    rs = rulefile.load(YTL)
    recs, g = records(rs)
    path = str(tmp_path / "event.sqlite")
    ar = archive.open_archive(path)
    data = build_log(3, recs)
    ar.add_log("4c49564554455354", 3, logfmt.parse(data).head, data, "unsealed",
               "%08x" % rs.crc())
    ar.add_ruleset("%08x" % rs.crc(), rs.name, rs.to_blob())
    ar.close()
    return path, g


def test_the_hand_is_worked_out_as_the_comment_says():
    rs = rulefile.load(YTL)
    _recs, g = records(rs)
    assert list(g.delta) == [9, -3, -3, -3]


def test_replay_rescore_and_export_name_the_house_pattern(tmp_path, capsys):
    path, g = archived(tmp_path)
    code, out, err = call(capsys, "replay", "1", "--archive", path, "--brief")
    assert code == 0, err
    assert "一条龙 yitiaolong +1" in out and "1 番" in out, out
    code, out, err = call(capsys, "rescore", "--archive", path)
    assert code == 0 and "same as the table [9, -3, -3, -3]" in out, out
    # the same log under the plain preset: the house pattern's doubling is missing
    code, out, err = call(capsys, "rescore", "--archive", path, "--rules", "xuezhan")
    assert code == 1 and "DIFFERS" in out
    sheet = tmp_path / "sheet.csv"
    code, out, err = call(capsys, "export", "--csv", str(sheet), "--archive", path)
    assert code == 0, err
    row = next(csv.DictReader(sheet.open(encoding="utf-8-sig")))
    assert row["rules"] == "yitiaolong" and "一条龙 yitiaolong +1" in row["wins"], row
    assert row["checked"] == "yes"


def test_settle_names_the_house_pattern(tmp_path, capsys):
    script = tmp_path / "hand.txt"
    script.write_text(SCRIPT % YTL, encoding="utf-8")
    code, out, err = call(capsys, "settle", str(script))
    assert code == 0, err
    assert "一条龙 yitiaolong +1" in out and "East +9" in out, out
    code, out, err = call(capsys, "settle", str(script), "--json")
    wins = json.loads(out)["wins"]
    assert wins[0]["patterns"] == {"yitiaolong": 1}, wins


def test_the_live_model_names_the_pattern_on_the_win():
    rs = rulefile.load(YTL)
    recs, _g = records(rs)
    m = model.HandModel(lambda crc: rs if crc == rs.crc() else None)
    for t, p in recs:
        m.feed(t, p)
    snap = m.snapshot()
    assert snap["seats"][0]["wins"][0]["patterns"] == [
        {"id": "yitiaolong", "name": "一条龙", "fan": 1}]


def test_the_live_page_names_the_pattern_on_the_win(tmp_path):
    import pytest

    pw_api = pytest.importorskip("playwright.sync_api")
    import bench_live as live_bench

    if not os.path.exists(live_bench.CHROMIUM):
        pytest.skip("no /usr/bin/chromium (Debian's chromium package)")
    path, _g = archived(tmp_path)
    live, urls = live_bench.start_live("--table", "/dev/null/a", "--archive", path)
    try:
        with pw_api.sync_playwright() as pw:
            b = pw.chromium.launch(executable_path=live_bench.CHROMIUM,
                                   args=live_bench.BROWSER_ARGS)
            page = b.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(urls["public"] + "/replay/1")
            page.wait_for_function("document.getElementById('table').dataset.step == '0'")
            page.evaluate("show(13)")  # step k: the first k actions; the 13th is East's win
            text = page.inner_text("#table")
            assert "一条龙" in text and "1番" in text, text
            page.evaluate("show(12)")  # before it: no win yet
            assert "一条龙" not in page.inner_text("#table")
            b.close()
    finally:
        live_bench.stop(live)


def test_sim_names_house_patterns_the_same_on_both_engines(capsys):
    rules = os.path.join(ROOT, "examples", "rules", "house", "duanyao-menqing.toml")
    outs = []
    for engine in ("cpython", "micropython"):
        code, out, err = call(capsys, "sim", "--rules", rules, "--hands", "3", "--seed", "3",
                              "--engine", engine, "--json")
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1]
    wins = [w for line in outs[0].splitlines()[:-1] for w in json.loads(line)["wins"]]
    assert wins and all("patterns" in w for w in wins)
    assert any("menqing" in w["patterns"] for w in wins), wins
    code, out, err = call(capsys, "sim", "--rules", rules, "--hands", "3", "--seed", "3")
    assert "[门清 +1]" in out, out
    # a preset's sim output is as it was: no pattern lists
    code, out, err = call(capsys, "sim", "--hands", "1", "--seed", "3", "--json")
    assert "patterns" not in out


def test_the_live_waits_name_the_house_pattern():
    """A seat waiting on a tile that makes its house pattern: the waits in play
    name it as the win would (not only the built-in patterns)."""
    from mjtable.live import waits

    rs = rulefile.load(YTL)
    g = G.Game(rs, 0, G.DIR_NEXT)
    acts = [(G.DEAL, s, _faces(DEALS[s])) for s in range(4)]
    acts += [(G.EXCHANGE, s, _faces(GIVES[s])) for s in range(4)]
    acts += [(G.DINGQUE, s, VOIDS[s]) for s in range(4)]
    acts.append((G.DISCARD, 0, tiles.parse_tile("1p")))  # 123456789m 456p 1p: 1p alone
    for kind, s, arg in acts:
        assert g.apply((kind, s, arg, 0))[0][0] == 0, (kind, s, arg)
    (w,) = waits.seat_waits(g, 0)
    assert w["face"] == tiles.parse_tile("1p") and "一条龙" in w["patterns"], w
