"""A second program on a table's port, a session taken over, a table that
stops answering, the archive's PostgreSQL lost mid-way (issue 41, item 5):
each is one line on stderr saying what happened, that nothing was lost and
what to run next, with its exit code (mjtable.EXIT_*), never a traceback;
and running the command again finishes the job with every hand once.
The table is the firmware on the MicroPython unix port behind a real
pseudo-terminal (tools/hostlink_peer.py), the database a real PostgreSQL."""

import os
import subprocess
import sys

import pytest
import serial
from mjcall import call
from mjtable import archive
from mjtable.event import importer
from mjtable.link import client as L
from mjtable.tableops import logs as tlogs
from test_event_standings import KEY as EVENT_KEY
from test_hostcmds_e2e import Table

KEY = bytes(range(7, 39))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MJTABLE = os.path.join(ROOT, ".venv", "bin", "mjtable")


def one_line(code, out, err, want_code, *words):
    assert code == want_code, (code, out, err)
    assert err.startswith("mjtable: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err
    for w in words:
        assert w in err, (w, err)


@pytest.fixture
def table(env):
    t = Table(env, hands=2, key=KEY)
    yield t
    t.close()


def _intrude(path, seq=1000):
    """Another program (not mjtable: no lock) opens a session at seq 1000."""
    ser = serial.Serial(path, 115200, timeout=1, write_timeout=5)
    link = L.Link(ser, key=None, timeout=5)
    link.seq = seq - 1
    link.hello()
    return ser


def test_a_second_program_on_a_port_in_use_is_told_so_at_once(table, env, capsys):
    mon = subprocess.Popen([MJTABLE, "monitor", "--port", table.path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert mon.stdout.readline().startswith("watching table"), mon.stderr.read()
        one_line(*call(capsys, "info", "--port", table.path), 5, "in use by another program",
                 "nothing was sent")
        one_line(*call(capsys, "logs", "pull", "--port", table.path, "--archive",
                       str(env / "a.sqlite")), 5, "in use")
        assert not (env / "a.sqlite").exists()
    finally:
        mon.terminate()
        mon.wait(10)
    code, out, err = call(capsys, "info", "--port", table.path)  # free again
    assert code == 0, err


def test_two_pulls_at_once_one_waits_its_turn_and_no_hand_is_lost(table, env):
    arch = str(env / "a.sqlite")
    cmd = [MJTABLE, "logs", "pull", "--port", table.path, "--archive", arch, "--key", KEY.hex(),
           "--quiet"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    res = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    for out, err, code in res:
        assert code in (0, 5) and "Traceback" not in out + err, (code, out, err)
        if code == 5:
            assert err.count("\n") == 1 and "in use by another program" in err
    rows = archive.open_archive(arch, create=False).logs()
    assert sorted(r[2] for r in rows) == [1, 2]


def test_a_session_taken_over_mid_pull_is_one_line_and_the_next_pull_finishes(table, env,
                                                                              capsys,
                                                                              monkeypatch):
    arch = str(env / "a.sqlite")
    real = tlogs.table_logs
    held = []

    def taken_over(link):
        held.append(_intrude(table.path))  # E_REPLAY from now on: its seq is past ours
        return real(link)

    with monkeypatch.context() as m:  # (undo() would undo env's key file too)
        m.setattr(tlogs, "table_logs", taken_over)
        one_line(*call(capsys, "logs", "pull", "--port", table.path, "--archive", arch),
                 3, "E_REPLAY", "another program", "Nothing was lost", "run the command again")
    held[0].close()
    code, out, err = call(capsys, "logs", "pull", "--port", table.path, "--archive", arch)
    assert code == 0 and "2 new, 2 acknowledged" in out, out + err


def test_an_ack_the_table_refuses_is_said_and_the_log_stays_on_the_table(table, env, capsys,
                                                                         monkeypatch):
    arch = str(env / "a.sqlite")
    real = tlogs.take
    held = []

    def then_intrude(*a, **k):
        if not held:
            held.append(_intrude(table.path, seq=1))  # a new nonce: our MACs are wrong now
        real(*a, **k)
    with monkeypatch.context() as m:
        m.setattr(tlogs, "take", then_intrude)
        code, out, err = call(capsys, "logs", "pull", "--port", table.path, "--archive", arch)
    held[0].close()
    assert code == 3 and "Traceback" not in out + err, (code, out, err)
    assert "log 1: archived, but the table did not take its acknowledgement: E_AUTH" in out
    assert "stays on the table (nothing is lost)" in out and "2 new, 0 acknowledged" in out
    code, out, err = call(capsys, "logs", "pull", "--port", table.path, "--archive", arch)
    assert code == 0 and "0 new, 2 acknowledged" in out, out + err
    assert "already archived" in out


def test_a_table_that_stops_answering_mid_pull_is_one_line(table, env, capsys, monkeypatch):
    arch = str(env / "a.sqlite")
    real = tlogs.table_logs

    def dies(link):
        out = real(link)
        table.proc.kill()  # the cable pulled, the power gone
        table.proc.wait()
        return out

    monkeypatch.setattr(tlogs, "table_logs", dies)
    one_line(*call(capsys, "logs", "pull", "--port", table.path, "--archive", arch,
                   "--timeout", "1"), 3, "did not answer", "Nothing was lost")


# --- PostgreSQL lost mid-way

def _kill_backends(url):
    """Every other session of the database ended by the server, as a restart would."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
                  " current_database() AND pid <> pg_backend_pid()")


def test_postgresql_lost_mid_pull_is_one_line_and_the_next_pull_finishes(table, env, capsys,
                                                                         monkeypatch, pg):
    url = pg.create_db("lost_pull_%d" % os.getpid())
    real = tlogs.take
    n = []

    def then_lose(*a, **k):
        real(*a, **k)
        n.append(1)
        if len(n) == 1:
            _kill_backends(url)
    with monkeypatch.context() as m:
        m.setattr(tlogs, "take", then_lose)
        one_line(*call(capsys, "logs", "pull", "--port", table.path, "--archive", url), 4,
                 "PostgreSQL database", "was lost mid-way", "Nothing was lost",
                 "run the command again")
    code, out, err = call(capsys, "logs", "pull", "--port", table.path, "--archive", url)
    assert code == 0, out + err
    rows = archive.open_archive(url).logs()
    assert sorted(r[2] for r in rows) == [1, 2]  # each hand once
    code, out, err = call(capsys, "logs", "list", "--port", table.path)
    assert "0 log(s) waiting" in out


def test_postgresql_lost_mid_import_is_one_line_and_the_next_import_finishes(env, capsys,
                                                                           monkeypatch, pg,
                                                                           generated):
    url = pg.create_db("lost_import_%d" % os.getpid())
    _path, logs = generated
    real = importer.read_table
    n = []

    def then_lose(*a, **k):
        n.append(1)
        if len(n) == 2:  # the first table's folder is in
            _kill_backends(url)
        return real(*a, **k)
    with monkeypatch.context() as m:
        m.setattr(importer, "read_table", then_lose)
        one_line(*call(capsys, "event", "import", logs, "--key", EVENT_KEY.hex(), "--archive",
                       url), 4, "was lost mid-way", "Nothing was lost")
    n_before = len(archive.open_archive(url).logs())
    assert n_before == 16  # the first table's folder, whole
    code, out, err = call(capsys, "event", "import", logs, "--key", EVENT_KEY.hex(),
                          "--archive", url)
    assert code == 0 and "16 new, 16 already archived" in out, out + err
    assert len(archive.open_archive(url).logs()) == 32


def test_a_locked_sqlite_archive_is_one_line(env, capsys, generated):
    import sqlite3

    _path, logs = generated
    arch = str(env / "a.sqlite")
    archive.open_archive(arch).close()
    hold = sqlite3.connect(arch, timeout=0)
    hold.execute("BEGIN EXCLUSIVE")  # another program writing
    try:
        code, out, err = call(capsys, "event", "import", logs, "--key", EVENT_KEY.hex(),
                              "--archive", arch)
    finally:
        hold.rollback()
        hold.close()
    one_line(code, "", err, 4, "database is locked", "Nothing was lost")
    assert sys.modules  # (keeps the import list honest under ruff)
