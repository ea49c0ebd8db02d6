"""`mjtable event`: the event file, its players and the draw of rounds."""

import os

import pytest
from mjcall import call
from mjtable import BadInput
from mjtable.event import eventfile, seating

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "event.toml")
KEY = bytes(range(3, 35))


def _file(tmp_path, players=8, **over):
    ev = {"id": '"t1"', "name": '"测试赛"', "ruleset": '"tfmj-2024"', "hands_per_match": "8",
          "rounds": "3", "placement_points": "[4, 2, 1, 0]"}
    ev.update(over)
    text = "[event]\n" + "".join("%s = %s\n" % kv for kv in ev.items() if kv[1] is not None)
    for i in range(players):
        text += '[[players]]\nid = "P%d"\nname = "选手%d"\nlatin = "Player %d"\n' % (i, i, i)
    p = tmp_path / "ev.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_the_example_event_file_loads():
    ev = eventfile.load(EXAMPLE)
    assert ev.eid == "demo2026" and ev.tables == 4 and ev.hands == 8 and ev.minutes == 50
    assert ev.player("P001").name == "张伟" and ev.player("P001").latin == "Zhang Wei"
    assert ev.tiebreaks == ["raw_points", "head_to_head", "firsts"]


@pytest.mark.parametrize("over, players, words", [
    ({"placement_points": "[4, 2, 1]"}, 8, "placement_points"),
    ({"hands_per_match": None}, 8, "hands_per_match"),
    ({"tiebreaks": '["coin"]'}, 8, "unknown 'coin'"),
    ({"match_ties": '"never"'}, 8, "match_ties"),
    ({"colour": '"red"'}, 8, "unknown key"),
    ({"ruleset": '"nosuch"'}, 8, "unknown preset"),
    ({"dates": '["2026-13-01"]'}, 8, "YYYY-MM-DD"),
    ({}, 5, "a table may be short one player"),
    ({"hands_per_match": "9"}, 8, "plays 8-hand matches"),
])
def test_a_bad_event_file_is_refused_with_its_key(tmp_path, over, players, words):
    with pytest.raises(BadInput) as e:
        eventfile.load(_file(tmp_path, players, **over))
    assert words in str(e.value)


def test_a_player_given_twice_is_refused(tmp_path):
    path = _file(tmp_path, 4)
    with open(path, "a", encoding="utf-8") as f:
        f.write('[[players]]\nid = "P0"\nname = "又"\nlatin = "Again"\n')
    with pytest.raises(BadInput, match="given twice"):
        eventfile.load(path)


def test_the_first_draw_is_the_seeds_and_seats_everyone_once():
    pids = ["P%02d" % i for i in range(16)]
    a = seating.first_round(pids, 4, 5)
    assert a == seating.first_round(list(reversed(pids)), 4, 5)  # the seed decides, not the order
    assert a != seating.first_round(pids, 4, 6)
    seated = [p for t in a.values() for p in t]
    assert sorted(seated) == pids and sorted(a) == [1, 2, 3, 4]


def test_later_rounds_sit_the_leaders_together():
    pids = ["P%03d" % i for i in range(32)]
    hist = {1: seating.first_round(pids, 4, 3)}
    ranked = sorted(pids, key=lambda p: p[::-1])
    tables = seating.next_round(ranked, hist, 4)
    assert ranked[0] in tables[1]
    met = seating.met_pairs(hist)
    for t in tables.values():  # nobody at a table met another there in round 1
        assert not any(met.get((a, b)) for a in t for b in t if a < b)


def test_create_draw_and_seating_sheet_on_the_command_line(env, capsys):
    code, out, err = call(capsys, "event", "create", EXAMPLE)
    assert code == 0 and "16 players at 4 tables" in out, err
    code, out, err = call(capsys, "event", "create", EXAMPLE)
    assert code == 0 and "already there" in out
    code, out, err = call(capsys, "event", "draw", "--round", "2")
    assert code == 2 and "draw round 1 first" in err
    code, out, err = call(capsys, "event", "draw", "--round", "1")
    assert code == 0 and "4 tables" in out
    html = env / "seat.html"
    code, out, err = call(capsys, "event", "seating", "--round", "1", "--html", str(html))
    assert code == 0 and out.count("table ") == 4 and "张伟     (Zhang Wei)" in out
    assert "张伟" in html.read_text(encoding="utf-8")
    # round 1 has no results yet: round 2 is not drawn from standings that are not final
    code, out, err = call(capsys, "event", "draw", "--round", "2")
    assert code == 2 and "not final" in err
    code, out, err = call(capsys, "event", "draw", "--round", "9")
    assert code == 2 and "rounds 1..4" in err


def test_the_same_event_id_with_another_file_changes_nothing(env, capsys, tmp_path):
    assert call(capsys, "event", "create", _file(tmp_path, 8))[0] == 0
    other = _file(tmp_path, 12)
    code, out, err = call(capsys, "event", "create", other)
    assert code == 2 and "another event file" in err
    code, out, err = call(capsys, "event", "show", "--event", "t1")
    assert "8 players" in out
