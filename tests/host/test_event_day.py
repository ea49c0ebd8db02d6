"""What a real event day needs of the room (issue 41, items 7-11): seating
(club-mates apart and saying when it cannot, random, swiss and manual for
any round, a table short a player), people changing (a late registration,
drops and substitutes between rounds, a name corrected), a broken table's
result entered by hand, the sheets as PDF with every 汉字 drawn, the
tables by name, and the round's clock for the hall."""

import json
import os
import re
import time
import zlib

import pytest
from mjcall import call
from mjtable import archive
from mjtable.event import store

KEY = bytes(range(3, 35))
CLUBS = ["成都一队", "重庆二队", "绵阳", "乐山"]


def event_file(tmp_path, players=16, clubs=None, rounds=4, name="day.toml", **over):
    ev = {"id": '"day"', "name": '"2026 成都秋季赛"', "ruleset": '"tfmj-2024"',
          "hands_per_match": "8", "minutes_per_match": "50", "rounds": str(rounds),
          "seed": "11", "placement_points": "[4, 2, 1, 0]"}
    ev.update(over)
    text = "[event]\n" + "".join("%s = %s\n" % kv for kv in ev.items() if kv[1] is not None)
    for i in range(players):
        club = (clubs or CLUBS)[i % len(clubs or CLUBS)]
        text += ('[[players]]\nid = "P%02d"\nname = "选手%s"\nlatin = "Player %d"\n'
                 'club = "%s"\n' % (i + 1, "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未"[i], i + 1, club))
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def _seats(rnd):
    return store.seats(archive.open_archive(None), "day", rnd)


def _clubs(env_file_text):
    return dict(re.findall(r'id = "(P\d+)"\nname = "[^"]*"\nlatin = "[^"]*"\nclub = "([^"]*)"',
                           env_file_text))


def test_club_mates_sit_apart_where_it_can_be_done_and_the_draw_says_when_not(env, capsys):
    path = event_file(env)
    club = _clubs(open(path, encoding="utf-8").read())
    assert call(capsys, "event", "create", path)[0] == 0
    code, out, err = call(capsys, "event", "draw", "--round", "1")
    assert code == 0 and "club-mates apart" in out, out + err
    for pids in _seats(1).values():
        assert len({club[p] for p in pids}) == 4, pids
    # five of one club at four tables: one pair cannot be kept apart, and it says so
    path = event_file(env, clubs=["成都一队"] * 5 + [""] * 11, name="five.toml",
                      id='"five"')
    assert call(capsys, "event", "create", path)[0] == 0
    code, out, err = call(capsys, "event", "draw", "--round", "1", "--event", "five")
    assert code == 0, err
    assert "1 club pair(s) at one table, the fewest there can be (成都一队: 5 players for 4 " \
        "tables)" in out


def test_random_swiss_and_manual_draws_for_any_round(env, capsys, tmp_path):
    path = event_file(env)
    assert call(capsys, "event", "create", path)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0
    # swiss needs final standings; random does not
    code, out, err = call(capsys, "event", "draw", "--round", "2")
    assert code == 2 and "not final" in err and "event result" in err
    code, out, err = call(capsys, "event", "draw", "--round", "2", "--method", "random")
    assert code == 0 and "4 tables" in out, err
    manual = tmp_path / "r3.txt"
    manual.write_text("# round 3 as the head referee wants it\n"
                      "1: P01 P02 P03 P04\n2: P05 P06 P07 P08\n3: P09 P10 P11 P12\n"
                      "4: P13 P14 P15\n", encoding="utf-8")
    code, out, err = call(capsys, "event", "draw", "--round", "3", "--manual", str(manual))
    assert code == 2 and "line 5: 3 seats given, a table has 4" in err
    manual.write_text("1: P01 P02 P03 P04\n2: P05 P06 P07 P08\n3: P09 P10 P11 P12\n"
                      "4: P13 P14 P15 P15\n", encoding="utf-8")
    code, out, err = call(capsys, "event", "draw", "--round", "3", "--manual", str(manual))
    assert code == 2 and "P15 is seated on line 4 already" in err
    manual.write_text("1: P01 P05 P09 P13\n2: P02 P06 P10 P14\n3: P03 P07 P11 P15\n"
                      "4: P04 P08 P12 P16\n", encoding="utf-8")  # a club a table
    code, out, err = call(capsys, "event", "draw", "--round", "3", "--manual", str(manual))
    assert code == 0, err
    assert _seats(3) == {1: ["P01", "P05", "P09", "P13"], 2: ["P02", "P06", "P10", "P14"],
                         3: ["P03", "P07", "P11", "P15"], 4: ["P04", "P08", "P12", "P16"]}
    assert "24 club pair(s) at one table (the fewest there can be: 0): as given" in out


def test_a_table_short_a_player_gets_a_stand_in(env, capsys):
    path = event_file(env, players=15)
    code, out, err = call(capsys, "event", "create", path)
    assert code == 0 and "15 players at 4 tables" in out, err
    code, out, err = call(capsys, "event", "draw", "--round", "1")
    assert code == 0 and "short a player (a stand-in plays the seat): table" in out, out
    seats = _seats(1)
    assert sum(p.startswith("~") for ps in seats.values() for p in ps) == 1
    code, out, err = call(capsys, "event", "seating", "--round", "1")
    assert "替补" in out and "(stand-in)" in out
    code, out, err = call(capsys, "event", "seating", "--round", "1", "--html", "-")
    assert code == 0 and "<html" in out and "替补" in out and not os.path.exists("-"), err
    code, out, err = call(capsys, "event", "standings", "--json", "-")
    assert len(json.loads(out)["standings"]) == 15
    one = event_file(env, players=5, name="5.toml", id='"t5"')  # 2 tables short 3
    code, out, err = call(capsys, "event", "create", one)
    assert code == 2 and "a table may be short one player" in err


def test_people_change_between_rounds_and_the_audit_shows_it(env, capsys):
    path = event_file(env)
    assert call(capsys, "event", "create", path)[0] == 0
    by = ["--reason", "报名晚了", "--by", "王裁判"]
    code, out, err = call(capsys, "event", "player", "add", "--id", "P17", "--name", "新人",
                          "--latin", "Xin Ren", *by)
    assert code == 0 and "registered late" in out, err
    code, out, err = call(capsys, "event", "player", "drop", "--id", "P17", "--round", "1", *by)
    assert code == 0, err
    code, out, err = call(capsys, "event", "player", "name", "--id", "P03", "--name", "选手丙丙",
                          "--reason", "typo in the entry form", "--by", "王裁判")
    assert code == 0 and "is now 选手丙丙" in out, err
    code, out, err = call(capsys, "event", "draw", "--round", "1")
    assert code == 0 and "4 tables" in out and "stand-in" not in out  # P17 plays no round
    code, out, err = call(capsys, "event", "player", "add", "--id", "P18", "--name", "迟到",
                          "--latin", "Chi Dao", *by)
    assert code == 2 and "late registration is before the draw" in err
    assert call(capsys, "event", "seating", "--round", "1")[1].count("选手丙丙") == 1
    # round 2 drawn, no match started: a substitute takes the seat, a drop leaves a stand-in
    store.start_match(archive.open_archive(None), "day", 1, 1, "aa" * 8, 0, 8, 3000, "x")
    code, out, err = call(capsys, "event", "draw", "--round", "2", "--method", "random")
    assert code == 0, err
    r2 = _seats(2)
    who = r2[1][0]
    code, out, err = call(capsys, "event", "player", "sub", "--id", "S01", "--for", who,
                          "--name", "替身", "--latin", "Ti Shen", "--round", "2", *by)
    assert code == 0 and "plays instead of %s from round 2" % who in out, err
    assert _seats(2)[1][0] == "S01"  # the same seat: no draw again, no --force
    gone = r2[2][1]
    code, out, err = call(capsys, "event", "player", "drop", "--id", gone, "--round", "2", *by)
    assert code == 0, err
    assert _seats(2)[2][1].startswith("~")
    # a match that has started is not changed under way
    r1 = _seats(1)[1][2]
    code, out, err = call(capsys, "event", "player", "drop", "--id", r1, "--round", "1", *by)
    assert code == 2 and "has started (or has a result): the change applies from round 2" in err
    code, out, err = call(capsys, "event", "audit")
    assert "5 change(s) of people" in out and "name of P03: name 选手丙 -> 选手丙丙" in out
    assert "S01 替身 (Ti Shen) plays instead of %s from round 2" % who in out
    ar = archive.open_archive(None)
    assert ar.db.execute("SELECT source FROM ev_events").fetchone()[0] == \
        open(path, encoding="utf-8").read()  # the event file as created, unchanged
    code, out, err = call(capsys, "event", "show")
    assert "%s" % who in out and "substitute for %s from round 2" % who in out


def test_a_result_entered_by_hand_counts_is_marked_and_lets_the_next_round_draw(env, capsys):
    path = event_file(env, rounds=2)
    assert call(capsys, "event", "create", path)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0
    a = ["--reason", "table 3's reader failed: kept on paper", "--by", "李裁判"]
    for t in range(1, 5):
        code, out, err = call(capsys, "event", "result", "--round", "1", "--table", str(t),
                              "--points", "30,-10,-15,-5", *a)
        assert code == 0 and "entered by hand" in out, err
    code, out, err = call(capsys, "event", "result", "--round", "1", "--table", "1",
                          "--points", "30,-10,-15,-4", *a)
    assert code == 2 and "add up to 1" in err
    # a correction before round 2's match has started applies to round 2
    east2 = None
    code, out, err = call(capsys, "event", "correct", "--round", "2", "--player", "P01",
                          "--points", "-5", "--reason", "late", "--by", "李裁判")
    assert code == 0 and "it applies once played" in out, err
    code, out, err = call(capsys, "event", "draw", "--round", "2")  # no --force needed
    assert code == 0, err
    d = json.loads(call(capsys, "event", "standings", "--json", "-", "--round", "1")[1])
    east = [p for p in d["standings"] if p["rounds"]["1"]["seat"] == "East"]
    assert len(east) == 4 and all(p["rounds"]["1"]["raw_points"] == 30 for p in east)
    assert all(p["marks"][0].startswith("entered by hand: round 1 table") for p in d["standings"])
    assert east2 is None and d["standings"][0]["placement_points"] == 4
    code, out, err = call(capsys, "event", "sheet", "--round", "1", "--html", str(env / "s.html"))
    assert "entered by hand" in (env / "s.html").read_text(encoding="utf-8")
    code, out, err = call(capsys, "event", "audit")
    assert "5 result(s) entered by hand" not in out and "4 result(s) entered by hand" in out


def cmap_chars(pdf: bytes) -> set:
    """The characters a PDF's embedded fonts map (their ToUnicode CMaps)."""
    out = set()
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            data = zlib.decompress(m.group(1))
        except zlib.error:
            data = m.group(1)
        out |= {int(x, 16) for x in re.findall(rb"<[0-9A-F]{4}> <([0-9A-F]{4})>", data)}
        out |= {int(x, 16) for x in re.findall(rb"<[0-9A-F]{2,4}>\s+<([0-9A-F]{4})>", data)}
    return {chr(c) for c in out}


def test_standings_and_seating_as_pdf_with_every_hanzi_drawn(env, capsys):
    path = event_file(env, players=15)
    assert call(capsys, "event", "create", path)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0
    code, out, err = call(capsys, "event", "result", "--round", "1", "--table", "2",
                          "--points", "8,0,-8,0", "--reason", "断电", "--by", "李裁判")
    assert code == 0, err
    for what in ("seating", "standings"):
        pdf = env / (what + ".pdf")
        code, out, err = call(capsys, "event", what, "--round", "1", "--pdf", str(pdf))
        assert code == 0, err
        raw = pdf.read_bytes()
        assert raw.startswith(b"%PDF-") and re.search(rb"/BaseFont /[A-Z]{6}\+NotoSansCJK", raw)
        drawn = cmap_chars(raw)
        text = open(path, encoding="utf-8").read()
        names = set("".join(re.findall(r'name = "([^"]*)"', text)))
        assert names <= drawn, names - drawn
        if what == "standings":
            assert set("\u2020断电") <= drawn  # the mark and the reason of the paper result


def test_tables_by_name_plurals_and_every_archive_help(env, capsys):
    from mjtable import cli

    path = event_file(env, players=4, rounds=1)
    code, out, err = call(capsys, "event", "create", path)
    assert code == 0 and "4 players at 1 table, 1 round" in out
    code, out, err = call(capsys, "event", "create", event_file(env, rounds=1, name="x.toml",
                                                                hands_per_match='"8"'))
    assert code == 2 and "hands_per_match: '8' is not a whole number" in err
    parser = cli.build_parser()
    helps = []

    def walk(p, where):
        for a in p._actions:
            if "--archive" in a.option_strings:
                helps.append((where, a.help))
            if a.choices and hasattr(a.choices, "items"):
                for k, sub in a.choices.items():
                    walk(sub, where + " " + k)
    walk(parser, "mjtable")
    assert len(helps) >= 20
    for where, text in helps:
        assert "SQLite" in text and "postgresql://" in text, where


def test_the_rounds_clock_for_the_hall_is_in_step_with_the_tables(env, capsys):
    path = event_file(env)
    assert call(capsys, "event", "create", path)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0
    code, out, err = call(capsys, "event", "clock", "--round", "1")
    assert code == 0 and "no match started yet (50 minutes a match)" in out
    ar = archive.open_archive(None)
    now = int(time.time())
    # tables 1-3 started 10, 12 and 13 minutes ago (each told 3000 s); table 4 not yet
    for t, ago in ((1, 600), (2, 720), (3, 780)):
        store.start_match(ar, "day", 1, t, "%016x" % t, 0, 8, 3000, "x")
        ar.db.execute("UPDATE ev_matches SET started_at=? WHERE table_no=?", (now - ago, t))
    ar.db.commit()
    code, out, err = call(capsys, "event", "clock", "--round", "1", "--html",
                          str(env / "clock.html"))
    assert code == 0, err
    m = re.search(r"round 1: (\d+):(\d\d) left", out)
    left = int(m.group(1)) * 60 + int(m.group(2))
    assert 3000 - 600 - 5 <= left <= 3000 - 600  # the last table's clock: started last
    assert re.search(r"table 1 (40:00|39:5\d), table 2 (38:00|37:5\d), table 3 (37:00|36:5\d)",
                     out) and "not started: table 4" in out
    page = (env / "clock.html").read_text(encoding="utf-8")
    assert '"ends": %d' % (now - 600 + 3000) in page and "setInterval" in page
    with pytest.raises(AssertionError):
        assert "time up" in out
