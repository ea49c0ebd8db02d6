"""One policy for every way into an archive (issue 41, items 1-4): a log
that is unsealed or cannot be verified is refused unless a referee accepts
it by name, and what was accepted so is marked wherever it counts; the
first copy of a log id stands; a table that is in no event is named; a gap
says what is known (not in *this* archive) and how to look in the others.
The forged logs are written with tests/host/forger.py, not with the code
under test."""

import json
import os
import shutil
import sqlite3

import event_gen
import forger
from mjcall import call
from mjtable import archive
from test_event_standings import KEY, start_round  # noqa: F401

TID1 = event_gen.table_id(1).hex()
KEY_PEER = bytes(range(7, 39))


def _copy(logs, dst):
    shutil.copytree(logs, dst, ignore=shutil.ignore_patterns("done", "next"))
    return dst


def _forge_points(path):
    """The cheat of issue 41: the end-of-hand points edited, the CRCs and the
    chain computed again, the seal dropped."""
    _, lid, recs = forger.split(path.read_bytes())
    pts = forger.points(recs)
    path.write_bytes(forger.write(lid, forger.with_points(forger.unsealed(recs),
                                                          forger.flip_win(pts))))
    return pts


def _event(capsys, path):
    assert call(capsys, "event", "create", path)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0


def _standings(capsys, *more):
    code, out, err = call(capsys, "event", "standings", "--json", "-", *more)
    assert code == 0, err
    return json.loads(out)


def _archived(arch):
    ar = archive.open_archive(arch, create=False)
    try:
        return [(r[1], r[2], r[5]) for r in ar.logs()]
    finally:
        ar.close()


def test_a_forged_unsealed_log_is_refused_by_import_and_counts_only_by_name(env, capsys,
                                                                          generated):
    path, logs = generated
    arch = str(env / "archive.sqlite")
    _event(capsys, path)
    start_round(arch, "gen2", 1)
    start_round(arch, "gen2", 2)  # round 1's hands are logs 1-8
    d = _copy(logs, env / "copied")
    _forge_points(d / TID1 / "h8.log")
    code, out, err = call(capsys, "event", "import", str(d), "--key", KEY.hex())
    assert code == 1 and "1 refused" in out, out + err
    assert "EV000001:8" in err and "unsealed" in err and "--accept EV000001:8 --by" in err
    assert (TID1, 8, "unsealed") not in _archived(arch)
    t1 = [p for p in _standings(capsys)["standings"] if p["rounds"]["1"]["table"] == 1]
    assert all(p["rounds"]["1"]["hands"] == 7 for p in t1)
    # the referee looked at it and takes it, by name: archived, counted, marked
    code, out, err = call(capsys, "event", "import", str(d), "--key", KEY.hex(), "--accept",
                          "EV000001:8", "--by", "李裁判", "--reason", "checked with the players")
    assert code == 0 and "1 new" in out and "1 hand(s) indexed" in out, out + err
    s = _standings(capsys)
    assert [(a["log"], a["by"]) for a in s["accepted"]] == [("EV000001:8", "李裁判")]
    marked = [p for p in s["standings"] if p["marks"]]
    assert sorted(p["id"] for p in marked) == sorted(p["id"] for p in t1)
    code, out, err = call(capsys, "event", "standings")
    assert "accepted by name: EV000001:8 by 李裁判" in out
    code, out, err = call(capsys, "event", "sheet", "--round", "1", "--html",
                          str(env / "s.html"))
    assert code == 0 and "accepted by 李裁判" in (env / "s.html").read_text(encoding="utf-8")
    code, out, err = call(capsys, "export", "--csv", str(env / "e.csv"))
    assert "accepted by 李裁判" in (env / "e.csv").read_text(encoding="utf-8")


def test_a_forged_row_in_an_offline_laptops_archive_is_refused_by_sync(env, capsys,
                                                                     generated):
    path, logs = generated
    lite = str(env / "offline.sqlite")
    a = ["--archive", lite]
    assert call(capsys, "event", "create", path, *a)[0] == 0
    assert call(capsys, "event", "import", logs, "--key", KEY.hex(), *a)[0] == 0
    # the cheat edits the laptop's SQLite file: other points, and 'valid'
    db = sqlite3.connect(lite)
    (data,) = db.execute("SELECT data FROM logs WHERE table_id=? AND log_id=3",
                         (TID1,)).fetchone()
    _, lid, recs = forger.split(data)
    forged = forger.write(lid, forger.with_points(forger.unsealed(recs),
                                                  forger.flip_win(forger.points(recs))))
    db.execute("UPDATE logs SET data=?, head=?, seal='valid' WHERE table_id=? AND log_id=3",
               (forged, forger.head(forged).hex(), TID1))
    db.commit()
    db.close()
    target = str(env / "event.sqlite")
    code, out, err = call(capsys, "event", "sync", lite, "--archive", target)  # the key file's key
    assert code == 1 and "31 log(s) new" in out and "1 refused" in out, out + err
    assert "EV000001:3" in out + err and "unsealed" in out + err
    assert (TID1, 3, "valid") not in _archived(target)


def test_the_same_log_id_with_other_bytes_is_refused_the_first_copy_stands(env, capsys,
                                                                         generated):
    path, logs = generated
    arch = str(env / "archive.sqlite")
    _event(capsys, path)
    assert call(capsys, "event", "import", logs, "--key", KEY.hex())[0] == 0
    # the same table's ids again with other hands, sealed with the table's key
    # (a table re-formatted)
    other = env / "other" / TID1
    os.makedirs(other)
    event_gen.play_table(str(other), event_gen.table_id(1), 1, 2, 99)
    for n in ("done", "next"):
        if (other / n).exists():
            os.remove(other / n)
    code, out, err = call(capsys, "event", "import", str(other), "--key", KEY.hex())
    assert code == 1 and "0 new" in out and "2 refused" in out, out + err
    assert "another log 2 of table EV000001 is archived" in err
    # nor does an unsealed copy accepted by name take the place of a sealed one
    _forge_points(other / "h2.log")
    code, out, err = call(capsys, "event", "import", str(other), "--key", KEY.hex(),
                          "--accept", "all", "--by", "王")
    assert code == 1 and "0 new" in out and "2 refused" in out, out + err
    rows = [r for r in _archived(arch) if r[0] == TID1]
    assert len(rows) == len({r[1] for r in rows}) == 16
    code, out, err = call(capsys, "logs", "list", "--archived")
    assert out.count("\n") == 1 + 32


def test_a_table_in_no_event_is_named_and_kept_out_of_the_standings(env, capsys, generated):
    path, logs = generated
    arch = str(env / "archive.sqlite")
    _event(capsys, path)
    start_round(arch, "gen2", 1)
    d = _copy(logs, env / "copied")
    stray = event_gen.table_id(9)
    event_gen.play_table(str(d / stray.hex()), stray, 1, 2, 5)
    before = None
    code, out, err = call(capsys, "event", "import", str(d), "--key", KEY.hex())
    assert code == 0, out + err
    assert "table EV000009: 2 log(s) of a table no event's match was started on" in out
    s = _standings(capsys)
    assert all(r["table"] in (1, 2) for p in s["standings"] for r in p["rounds"].values())
    assert before is None


def test_a_gap_says_not_in_this_archive_and_how_to_look_in_the_others(env, capsys):
    from test_hostcmds_e2e import Table

    one, two = str(env / "laptop1.sqlite"), str(env / "laptop2.sqlite")
    t = Table(env, hands=2, key=KEY_PEER)
    try:
        code, out, err = call(capsys, "logs", "pull", "--port", t.path, "--archive", one,
                              "--key", KEY_PEER.hex())
        assert code == 0 and "2 acknowledged" in out, out + err
    finally:
        t.close()
    t = Table(env, hands=1, key=KEY_PEER, fresh=False)  # log 3 follows log 2
    try:
        code, out, err = call(capsys, "logs", "pull", "--port", t.path, "--archive", two,
                              "--key", KEY_PEER.hex())
    finally:
        t.close()
    assert code == 1, out + err
    assert "GAP: log 2, which log 3 follows, is neither on the table nor in this archive (%s)" \
        % two in out
    assert "mjtable event sync" in out and "--archive" in out
