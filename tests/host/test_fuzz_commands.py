"""Every command that touches an archive or a table, with fuzzed arguments
(hypothesis; issue 41, item 5): whatever the user types, `mjtable` answers
with an exit code (mjtable.EXIT_*) and lines, never an uncaught exception.
The archives are real: SQLite files and a PostgreSQL server (tools/pgtemp),
each example on a fresh copy of an event with hands archived; the table is
the firmware on the MicroPython unix port behind a real pty
(tools/hostlink_peer.py)."""

import os
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mjcall import call
from test_event_standings import KEY as EVENT_KEY
from test_event_standings import start_round

KEY = EVENT_KEY
PEER_KEY = bytes(range(7, 39))
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])

WORDS = st.one_of(
    st.sampled_from(["0", "-1", "1", "2", "3", "99", "4294967296", "1e9", "nan", "inf", "-",
                     "", " ", "all", "1,2", "EV000001:3", "4556303030303031:2", "EV000009:1",
                     ":", "P0001", "P0005", "x" * 40, "成都一队", "../x", "/dev/null", "\t",
                     "--", "1.5", "0x10", "E2ETABLE:1"]),
    st.text(max_size=10).filter(lambda s: "\x00" not in s))
NUMS = st.one_of(st.sampled_from(["0", "1", "2", "-1", "3.5", "nan", "inf", "1e308", "x", ""]),
                 st.integers(-10, 10).map(str))


def _opt(draw, *args):
    return list(args) if draw(st.booleans()) else []


@st.composite
def archive_argv(draw, paths):
    """One archive command line; paths: the example's files and folders."""
    out = draw(st.sampled_from([paths["out"], paths["archive"], paths["dir"], "-",
                                paths["nodir"]]))
    rnd = draw(NUMS)
    w = draw(WORDS)
    pick = draw(st.integers(0, 17))
    argv = [
        ["logs", "list", "--archived"],
        ["replay", w] + _opt(draw, "--brief"),
        ["rescore", w] + _opt(draw, "--json"),
        ["export", "--csv", out] + _opt(draw, "--html", draw(st.sampled_from([out, paths["out"]]))),
        ["event", "show"] + _opt(draw, "--event", w),
        ["event", "draw", "--round", rnd] + _opt(draw, "--force"),
        ["event", "seating", "--round", rnd] + _opt(draw, "--html", out),
        ["event", "standings"] + _opt(draw, "--round", rnd) + _opt(draw, "--json", out)
        + _opt(draw, "--csv", out),
        ["event", "player", "--id", w] + _opt(draw, "--json"),
        ["event", "correct", "--round", rnd, "--player", w, "--points", draw(NUMS),
         "--reason", draw(WORDS), "--by", draw(WORDS)] + _opt(draw, "--placement"),
        ["event", "audit"] + _opt(draw, "--json"),
        ["event", "sheet", "--round", rnd, "--html", out] + _opt(draw, "--table", draw(NUMS)),
        ["event", "import", draw(st.sampled_from([paths["logs"], paths["dir"], paths["junk"],
                                                  paths["nodir"], paths["badlogs"]]))]
        + _opt(draw, "--accept", w, "--by", draw(WORDS)) + _opt(draw, "--key", draw(WORDS)),
        ["event", "sync", draw(st.sampled_from([paths["other"], paths["junk"], paths["archive"],
                                                paths["nodir"]]))] + _opt(draw, "--accept", w),
        ["event", "create", draw(st.sampled_from([paths["event"], paths["junk"], paths["toml"],
                                                  paths["dir"]]))],
        ["logs", "list", "--archived", "--archive", paths["junk"]],
        ["event", "standings", "--archive", paths["other"]],
        ["event", "player", "--id", "P0001"] + _opt(draw, "--event", w),
    ][pick]
    return argv


def _paths(tmp, generated):
    path, logs = generated
    d = tmp / "d"
    d.mkdir(exist_ok=True)
    (tmp / "junk.bin").write_bytes(b"\x00not an archive\xff" * 20)
    (tmp / "bad.toml").write_text('[event]\nid = 3\nrounds = "x"\n[[players]]\nid = ""\n',
                                  encoding="utf-8")
    bad = tmp / "badlogs" / event_table()
    bad.mkdir(parents=True, exist_ok=True)
    (bad / "h1.log").write_bytes(b"MJL2" + b"\x01" * 40)
    (bad / "h2.log").write_bytes(b"")
    return {"out": str(tmp / "out.txt"), "dir": str(d), "nodir": str(tmp / "no" / "x"),
            "junk": str(tmp / "junk.bin"), "toml": str(tmp / "bad.toml"), "event": path,
            "logs": logs, "badlogs": str(tmp / "badlogs")}


def event_table():
    import event_gen

    return event_gen.table_id(1).hex()


def _prepared(capsys, where, path, logs):
    a = ["--archive", where]
    assert call(capsys, "event", "create", path, *a)[0] == 0
    assert call(capsys, "event", "draw", "--round", "1", *a)[0] == 0
    start_round(where, "gen2", 1)
    assert call(capsys, "event", "import", logs, "--key", KEY.hex(), *a)[0] == 0


CODES: dict = {}


def _check(capsys, argv):
    code = call(capsys, *argv)[0]  # an uncaught exception fails the test here
    assert isinstance(code, int) and 0 <= code <= 5, (argv, code)
    CODES[code] = CODES.get(code, 0) + 1


@pytest.fixture(scope="module")
def lite_template(tmp_path_factory, generated):
    tmp = tmp_path_factory.mktemp("fuzzlite")
    arch = str(tmp / "template.sqlite")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MJTABLE_KEYFILE", str(tmp / "nokey"))

        class Cap:  # call() needs readouterr only
            def readouterr(self):
                return "", ""
        _prepared(Cap(), arch, *generated)
    return arch


def test_archive_commands_on_sqlite_never_raise(env, capsys, generated, lite_template):
    paths = _paths(env, generated)
    paths["other"] = str(env / "other.sqlite")
    shutil.copy(lite_template, paths["other"])
    n = [0]

    @settings(max_examples=200, **SETTINGS)
    @given(st.data())
    def run(data):
        n[0] += 1
        arch = str(env / ("a%d.sqlite" % n[0]))
        shutil.copy(lite_template, arch)
        paths["archive"] = arch
        argv = data.draw(archive_argv(paths))
        if "--archive" not in argv:
            argv += ["--archive", arch]
        _check(capsys, argv)
        os.remove(arch)

    CODES.clear()
    run()
    print("sqlite: exit codes", CODES)
    assert CODES.get(0, 0) >= 20 and CODES.get(2, 0) >= 20, CODES  # both sides reached


def test_archive_commands_on_postgresql_never_raise(env, capsys, generated, pg, lite_template):
    import psycopg

    template = pg.create_db("fuzz_template")
    _prepared(capsys, template, *generated)
    paths = _paths(env, generated)
    paths["other"] = lite_template
    n = [0]

    @settings(max_examples=60, **SETTINGS)
    @given(st.data())
    def run(data):
        n[0] += 1
        name = "fuzz_%d" % n[0]
        with psycopg.connect(pg.url(), autocommit=True) as c:
            c.execute("CREATE DATABASE %s TEMPLATE fuzz_template" % name)
        url = pg.url(name)
        paths["archive"] = url
        argv = data.draw(archive_argv(paths))
        if "--archive" not in argv:
            argv += ["--archive", url]
        try:
            _check(capsys, argv)
        finally:
            with psycopg.connect(pg.url(), autocommit=True) as c:
                c.execute("DROP DATABASE %s WITH (FORCE)" % name)

    CODES.clear()
    run()
    print("postgresql: exit codes", CODES)
    assert CODES.get(0, 0) >= 5 and CODES.get(2, 0) >= 5, CODES


@st.composite
def table_argv(draw, port, arch):
    w = draw(WORDS)
    pick = draw(st.integers(0, 10))
    argv = [
        ["info"] + _opt(draw, "--json"),
        ["logs", "list"],
        ["logs", "pull", "--archive", arch] + _opt(draw, "--all") + _opt(draw, "--no-ack")
        + _opt(draw, "--accept", w, "--by", draw(WORDS)),
        ["rules", "pull", "-o", draw(st.sampled_from([arch + ".bin", "/dev/null/x", arch]))],
        ["rules", "push", draw(st.sampled_from(["xuezhan", "chengdu", "tfmj-2024", w]))]
        + _opt(draw, "--wait", draw(NUMS)),
        ["clock", "set"],
        ["match", draw(st.sampled_from(["start", "end"]))] + _opt(draw, "--wait", draw(NUMS)),
        ["match", "start", "--event", w, "--round", draw(NUMS), "--table", draw(NUMS),
         "--archive", arch],
        ["key", "set"] + draw(st.sampled_from([[], ["--new"], [w]])),
        ["enroll", "--check"],
        ["logs", "list"] + _opt(draw, "--archived", "--archive", arch),
    ][pick]
    port_ = draw(st.sampled_from([port, port, port, "/dev/null", "/nonexistent/tty", arch]))
    timeout = draw(st.sampled_from(["2", "2", "0.5", "0", "-1", "nan"])) if port_ == port \
        else "1"
    return argv + ["--port", port_, "--timeout", timeout]


def test_table_commands_never_raise(env, capsys):
    from test_hostcmds_e2e import Table

    t = Table(env, hands=2, key=PEER_KEY)
    (env / "key").write_text(PEER_KEY.hex())
    arch = str(env / "t.sqlite")

    @settings(max_examples=100, **SETTINGS)
    @given(st.data())
    def run(data):
        assert t.proc.poll() is None
        _check(capsys, data.draw(table_argv(t.path, arch)))

    CODES.clear()
    try:
        run()
    finally:
        t.close()
    print("table commands: exit codes", CODES)
    assert CODES.get(0, 0) >= 10 and CODES.get(2, 0) >= 10, CODES
