"""Event standings from archived hands the firmware's log code wrote
(tools/event_gen.py): per match, per round, over the event; tie-breaks;
referees' corrections beside the signed record; a player's record."""

import hashlib
import json
import os
import struct

import event_gen
import pytest
from mjcall import call
from mjtable import BadInput, archive
from mjtable.event import eventfile, standings, store
from mjtable.logs import logfmt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KEY = event_gen.KEY
TABLES, ROUNDS, HANDS = 2, 2, 8


def generate(out):
    """The event the event tests share (conftest's `generated`, once a session)."""
    return event_gen.generate(out, TABLES, ROUNDS, HANDS), os.path.join(out, "logs")


def start_round(arch, eid, rnd):
    """What `match start` records, for generated tables (table n of every
    round is physical table n; round r's hands follow round r-1's)."""
    ar = archive.open_archive(arch)
    for t in range(1, TABLES + 1):
        store.start_match(ar, eid, rnd, t, event_gen.table_id(t).hex(), (rnd - 1) * HANDS,
                          HANDS, 3000, "x")
    ar.close()


@pytest.fixture
def played(env, capsys, generated):
    """The generated event with both rounds drawn, started and imported."""
    path, logs = generated
    arch = str(env / "archive.sqlite")
    assert call(capsys, "event", "create", path)[0] == 0
    for r in range(1, ROUNDS + 1):
        assert call(capsys, "event", "draw", "--round", str(r))[0] == 0
        start_round(arch, "gen2", r)
        if r == 1:
            code, out, err = call(capsys, "event", "import", logs, "--key", KEY.hex())
            assert code == 0 and "32 new" in out, out + err
    return arch, logs


def _table_points(logs, t, rnd):
    """Each seat's sum over round rnd's hands at table t, read from the files."""
    folder = os.path.join(logs, event_gen.table_id(t).hex())
    tot = [0, 0, 0, 0]
    for lid in range((rnd - 1) * HANDS + 1, rnd * HANDS + 1):
        with open(os.path.join(folder, "h%d.log" % lid), "rb") as f:
            pts = logfmt.parse(f.read()).end_points()
        tot = [a + b for a, b in zip(tot, pts, strict=True)]
    return tot


def _standings(capsys, *more):
    code, out, err = call(capsys, "event", "standings", "--json", "-", *more)
    assert code == 0, err
    return json.loads(out)


def test_match_results_are_the_tables_end_records(played, capsys):
    arch, logs = played
    d = _standings(capsys)
    assert d["after_round"] == 2 and d["rounds_played"] == [1, 2]
    ar = archive.open_archive(arch)
    seats = store.all_seats(ar, "gen2")
    by_id = {p["id"]: p for p in d["standings"]}
    for rnd in (1, 2):
        for t, pids in seats[rnd].items():
            want = _table_points(logs, t, rnd)
            got = [by_id[p]["rounds"][str(rnd)]["raw_points"] for p in pids]
            assert got == want
            places = [by_id[p]["rounds"][str(rnd)]["place"] for p in pids]
            pp = [by_id[p]["rounds"][str(rnd)]["placement_points"] for p in pids]
            assert sum(pp) == 7  # 4-2-1-0, shared when tied
            best = max(want)
            assert all((pl == 1) == (v == best) for pl, v in zip(places, want, strict=True))
    total = sorted(((-p["placement_points"], -p["raw_points"]) for p in d["standings"]))
    assert total == [(-p["placement_points"], -p["raw_points"]) for p in d["standings"]] or \
        any(p["decided_by"] in ("head_to_head", "firsts", "player id") for p in d["standings"])
    # the standings after round 1 count round 1 only
    d1 = _standings(capsys, "--round", "1")
    assert all(list(p["rounds"]) == ["1"] for p in d1["standings"])


def test_a_correction_is_kept_beside_the_signed_record_and_shown(played, capsys):
    arch, _ = played
    db = archive.open_archive(arch).db
    signed = hashlib.sha256(b"".join(r[0] for r in db.execute(
        "SELECT data FROM logs ORDER BY id"))).hexdigest()
    before = {p["id"]: p for p in _standings(capsys)["standings"]}
    last = min(before.values(), key=lambda p: p["rounds"]["1"]["raw_points"])["id"]
    code, out, err = call(capsys, "event", "correct", "--round", "1", "--player", last,
                          "--points", "100", "--reason", "计分错误: 杠 not paid", "--by", "李裁判")
    assert code == 0, err
    code, out, err = call(capsys, "event", "correct", "--round", "2", "--player", last,
                          "--points", "-0.5", "--placement", "--reason", "late", "--by", "王")
    assert code == 0, err
    after = _standings(capsys)
    p = next(x for x in after["standings"] if x["id"] == last)
    r1 = p["rounds"]["1"]
    assert r1["raw_points"] == r1["table_points"] + 100 and r1["place"] == 1
    assert r1["placement_points"] >= 3  # first now (perhaps shared)
    assert p["corrections"] == [1, 2]
    assert [c["reason"] for c in after["corrections"]] == ["计分错误: 杠 not paid", "late"]
    assert after["corrections"][0]["referee"] == "李裁判"
    # the table's record is untouched
    assert hashlib.sha256(b"".join(r[0] for r in db.execute(
        "SELECT data FROM logs ORDER BY id"))).hexdigest() == signed
    code, out, err = call(capsys, "event", "audit")
    assert "2 correction(s)" in out and "李裁判" in out
    code, out, err = call(capsys, "event", "standings")
    assert "* corrected: #1 round 1 %s +100 raw" % last in out


@pytest.mark.parametrize("argv, words", [
    (["--player", "P0001", "--points", "0"], "changes nothing"),
    (["--player", "P9999", "--points", "3"], "no player"),
    (["--player", "P0001", "--points", "1.5"], "whole numbers"),
    (["--player", "P0001", "--points", "3", "--reason", " "], "needs --reason"),
])
def test_a_bad_correction_is_refused_and_nothing_kept(played, capsys, argv, words):
    base = ["event", "correct", "--round", "1", "--reason", "r", "--by", "me"]
    code, out, err = call(capsys, *(base + argv))
    assert code == 2 and words in err
    assert call(capsys, "event", "audit")[1].startswith("event gen2: 0 correction(s)")


def test_a_players_record_hand_by_hand(played, capsys):
    code, out, err = call(capsys, "event", "player", "--id", "P0003", "--json")
    rec = json.loads(out)
    assert [r["round"] for r in rec["rounds"]] == [1, 2]
    for r in rec["rounds"]:
        assert len(r["hands"]) == HANDS and sum(h["points"] for h in r["hands"]) == \
            r["table_points"]
        ids = [int(h["log"].split(":")[1]) for h in r["hands"]]
        assert ids == list(range((r["round"] - 1) * HANDS + 1, r["round"] * HANDS + 1))
    code, out, err = call(capsys, "event", "player", "--id", "P0003")
    assert out.count("    hand ") == 2 * HANDS


def test_the_second_round_is_drawn_from_the_standings(env, capsys, generated):
    path, logs = generated
    arch = str(env / "archive.sqlite")
    call(capsys, "event", "create", path)
    call(capsys, "event", "draw", "--round", "1")
    start_round(arch, "gen2", 1)
    call(capsys, "event", "import", logs, "--key", KEY.hex())
    lead = _standings(capsys)["standings"][0]["id"]
    assert call(capsys, "event", "draw", "--round", "2")[0] == 0
    ar = archive.open_archive(arch)
    assert lead in store.seats(ar, "gen2", 2)[1]


def test_a_hand_pulled_twice_and_one_past_the_match_length_count_once(env, capsys, generated):
    path, logs = generated
    arch = str(env / "archive.sqlite")
    call(capsys, "event", "create", path)
    call(capsys, "event", "draw", "--round", "1")
    ar = archive.open_archive(arch)
    store.ensure(ar)
    tid = event_gen.table_id(1).hex()
    # a match of 6 hands started after log 1: logs 2..7 count, 8 is past its length
    store.start_match(ar, "gen2", 1, 1, tid, 1, 6, 0, "x")
    folder = os.path.join(logs, tid)
    for lid in range(1, 9):
        data = open(os.path.join(folder, "h%d.log" % lid), "rb").read()
        log = logfmt.parse(data)
        ar.add_log(tid, lid, log.head, data, "valid", None)
        cut = data[:logfmt.HEADER + sum(logfmt.OVERHEAD + len(p) for _, p in log.records[:5])]
        short = logfmt.parse(cut)  # the same hand pulled in play: no result yet
        ar.add_log(tid, lid, short.head, cut, "unsealed", None)
    store.index(ar)
    mt = standings.build(ar, eventfile.load(path))[(1, 1)]
    assert [h.log_id for h in mt.hands] == list(range(2, 9))
    assert [h.counted for h in mt.hands] == [True] * 6 + [False]
    want = [0, 0, 0, 0]
    for lid in range(2, 8):
        pts = logfmt.parse(open(os.path.join(folder, "h%d.log" % lid), "rb").read()).end_points()
        want = [a + b for a, b in zip(want, pts, strict=True)]
    assert mt.raw_table == want


def _match(pids, raw, ev):
    mt = standings.Match(1, 1, "t", pids, hands=[standings.HandRow(1, "t", 1, raw, 0, 0, "v")])
    standings._result(mt, ev, [])
    return mt


def test_tied_seats_share_their_placements_points_or_the_seat_decides():
    ev = eventfile.parse(open(os.path.join(ROOT, "examples", "event.toml"),
                              encoding="utf-8").read())
    mt = _match(["a", "b", "c", "d"], [10, 10, -5, -15], ev)
    assert mt.place == [1, 1, 3, 4] and mt.pp == [3, 3, 1, 0]
    mt = _match(["a", "b", "c", "d"], [0, 0, 0, 0], ev)
    assert mt.pp == [1.75] * 4
    ev.match_ties = "seat"
    mt = _match(["a", "b", "c", "d"], [10, 10, -5, -15], ev)
    assert mt.place == [1, 2, 3, 4] and mt.pp == [4, 2, 1, 0]


def test_tie_breaks_in_the_event_files_order(tmp_path):
    ev = eventfile.parse(open(os.path.join(ROOT, "examples", "event.toml"),
                              encoding="utf-8").read())
    ps = [p.pid for p in ev.players]
    a, b, c, d = ps[:4]
    # round 1: a and b tie on placement points, a with more raw points
    ms = {(1, 1): _match([a, b, c, d], [20, -5, -5, -10], ev)}
    ms[(1, 2)] = _match(ps[4:8], [30, 0, -10, -20], ev)
    rows = standings.table(ev, ms)
    assert [r.pid for r in rows[:2]] == [ps[4], a] and rows[0].decided_by == "raw_points"
    # equal placement and raw points: head to head (a placed above c where they met)
    ev.players = ev.players[:4]
    m1 = _match([a, b, c, d], [10, 5, -5, -10], ev)  # a 1st, c 3rd
    m2 = _match([c, d, a, b], [10, 5, -5, -10], ev)  # c 1st, a 3rd
    m3 = _match([a, c, b, d], [1, 0, 0, -1], ev)  # a above c
    m4 = _match([c, a, b, d], [1, 0, 0, -1], ev)  # c above a
    m5 = _match([a, c, b, d], [3, 2, 0, -5], ev)  # a above c
    m6 = _match([c, a, d, b], [3, 2, 0, -5], ev)  # c above a ... and so level
    rows = standings.table(ev, {(i, 1): m for i, m in enumerate([m1, m2, m3, m4, m5, m6])})
    top = [r for r in rows if r.pid in (a, c)]
    assert top[0].pp == top[1].pp and top[0].raw == top[1].raw
    assert top[0].decided_by in ("firsts", "player id")
    ev.tiebreaks = ["head_to_head"]
    m6 = _match([c, a, d, b], [3, 2, 0, -5], ev)
    m7 = _match([a, c, b, d], [2, 1, 0, -3], ev)  # a above c once more
    rows = standings.table(ev, {(i, 1): m for i, m in
                                enumerate([m1, m2, m3, m4, m5, m6, m7])})
    ac = [r.pid for r in rows if r.pid in (a, c)]
    assert ac == [a, c]


def test_bad_input_on_event_commands_changes_nothing(env, capsys, generated):
    path, _ = generated
    code, out, err = call(capsys, "event", "standings")
    assert code == 2 and "no archive" in err
    call(capsys, "event", "create", path)
    code, out, err = call(capsys, "event", "standings", "--event", "nosuch")
    assert code == 2 and "no event 'nosuch'" in err and "gen2" in err
    code, out, err = call(capsys, "event", "sheet", "--round", "1", "--html",
                          str(env / "archive.sqlite"))
    assert code == 2 and "refusing to overwrite" in err
    with pytest.raises(BadInput):
        eventfile.parse("[event]\nid = 'x'\n")
    assert struct  # (imported for the file helpers)


def test_the_live_event_page_shows_the_events_standings(played, capsys):
    # mjtable live's event page (live.standings) takes the newest event's
    # standings; an archive without events keeps the table seats' totals
    from mjtable.live import standings as live

    arch, _ = played
    d = _standings(capsys)
    got = live.standings(arch)
    assert got["title"].startswith(d["name"] + ": standings after round %d" % d["after_round"])
    assert [r[0] for r in got["rows"]] == [r["rank"] for r in d["standings"]]
    assert [r[1].split()[0] for r in got["rows"]] == [r["name"] for r in d["standings"]]
    assert got["columns"][3] == "placement points"
