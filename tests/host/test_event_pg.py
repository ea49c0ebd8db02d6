"""One archive for the event on a real PostgreSQL server (initdb in a
temporary folder, a unix socket, tools/pgtemp.py): the same standings as on
SQLite, two laptops pulling at once losing and duplicating nothing, and an
offline laptop's SQLite archive synced in (`mjtable event sync`)."""

import json
import multiprocessing
import os

import pgtemp
import pytest
from mjcall import call
from mjtable import archive
from mjtable.logs import logfmt
from test_event_standings import KEY, start_round  # noqa: F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_n = [0]
KEY_PEER = bytes(range(7, 39))


@pytest.fixture
def url(pg):
    _n[0] += 1
    return pg.create_db("t%d_%d" % (os.getpid(), _n[0]))


def _files(logs):
    """[(table id hex, log id, bytes)] of the generated logs."""
    out = []
    for tid in sorted(os.listdir(logs)):
        d = os.path.join(logs, tid)
        for n in sorted(os.listdir(d)):
            if n.endswith(".log"):
                out.append((tid, int(n[1:-4]), open(os.path.join(d, n), "rb").read()))
    return out


def _puller(url, files, barrier, q):
    """One laptop's `logs pull`: Archive.add_log, one transaction per hand."""
    ar = archive.open_archive(url)
    barrier.wait()
    new = 0
    for tid, lid, data in files:
        new += ar.add_log(tid, lid, logfmt.parse(data).head, data, "valid", None)[1] == "new"
    ar.close()
    q.put(new)


def test_two_laptops_pulling_at_once_lose_and_duplicate_no_hand(url, generated):
    files = _files(generated[1])
    archive.open_archive(url).close()  # the tables exist before the race (else: the advisory lock)
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(2)
    q = ctx.Queue()
    # the same hands, one laptop front to back, the other back to front: they meet halfway
    procs = [ctx.Process(target=_puller, args=(url, f, barrier, q))
             for f in (files, list(reversed(files)))]
    for p in procs:
        p.start()
    news = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert sum(news) == len(files)  # each hand archived by exactly one of them
    rows = archive.open_archive(url).db.execute(
        "SELECT table_id, log_id, data FROM logs ORDER BY table_id, log_id").fetchall()
    assert [(t, lid, bytes(d)) for t, lid, d in rows] == sorted(files)


def _event(capsys, where, path, logs):
    a = ["--archive", where]
    assert call(capsys, "event", "create", path, *a)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1", *a)[0] == 0
    start_round(where, "gen2", 1)
    code, out, err = call(capsys, "event", "import", logs, "--key", KEY.hex(), *a)
    assert code == 0, err
    assert call(capsys, "event", "draw", "--round", "2", *a)[0] == 0
    start_round(where, "gen2", 2)


def _standings(capsys, where):
    code, out, err = call(capsys, "event", "standings", "--json", "-", "--archive", where)
    assert code == 0, err
    d = json.loads(out)
    for c in d["corrections"]:
        del c["id"]
    return d


def test_the_standings_on_postgresql_are_the_standings_on_sqlite(url, env, capsys,
                                                                 generated):
    path, logs = generated
    lite = str(env / "laptop.sqlite")
    _event(capsys, lite, path, logs)
    _event(capsys, url, path, logs)
    for where in (lite, url):
        code, out, err = call(capsys, "event", "correct", "--round", "2", "--player", "P0004",
                              "--points", "12", "--reason", "recount", "--by", "陈", "--archive",
                              where)
        assert code == 0, err
    a, b = _standings(capsys, lite), _standings(capsys, url)
    for c in a["corrections"] + b["corrections"]:
        del c["at"]
    assert a == b and len(a["standings"]) == 8
    code, out, err = call(capsys, "event", "sheet", "--round", "2", "--html",
                          str(env / "s.html"), "--archive", url)
    assert code == 0, err


def test_an_offline_laptop_syncs_its_archive_into_the_event_database(url, env, capsys,
                                                                     generated):
    path, logs = generated
    lite = str(env / "offline.sqlite")
    _event(capsys, lite, path, logs)
    assert call(capsys, "event", "correct", "--round", "1", "--player", "P0001", "--points",
                "-4", "--reason", "penalty: 拖延", "--by", "赵", "--archive", lite)[0] == 0
    code, out, err = call(capsys, "event", "sync", lite, "--archive", url)
    assert code == 0, out + err
    assert "32 log(s) new, 0 already there" in out and "1 correction(s) new" in out
    assert _standings(capsys, lite) == _standings(capsys, url)
    code, out, err = call(capsys, "event", "sync", lite, "--archive", url)  # again: nothing new
    assert code == 0 and "0 log(s) new, 32 already there" in out
    assert "0 event(s), 0 draw(s), 0 match(es), 0 correction(s) new" in out
    n = archive.open_archive(url).db.execute("SELECT COUNT(*) FROM ev_corrections").fetchone()[0]
    assert n == 1


def test_a_bad_database_address_is_one_clear_line(env, capsys, pg):
    code, out, err = call(capsys, "event", "standings", "--archive",
                          "postgresql://mj:secret@/nosuchdb?host=%s&port=%d" % (pg.dir,
                                                                                 pgtemp.PORT))
    assert code == 2 and "cannot connect" in err and "secret" not in err
    assert err.count("\n") == 1


def test_logs_pull_into_postgresql(url, env, capsys):
    from test_hostcmds_e2e import Table

    t = Table(env, hands=2, key=KEY_PEER)
    try:
        code, out, err = call(capsys, "logs", "pull", "--port", t.path, "--archive", url,
                              "--key", KEY_PEER.hex())
        assert code == 0 and "2 new, 2 acknowledged" in out, out + err
        code, out, err = call(capsys, "rescore", "--archive", url)
        assert code == 0 and "2 hand(s) rescored, 0 differ" in out, out + err
    finally:
        t.close()
