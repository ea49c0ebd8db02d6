"""Bad input to `mjtable` gives one clear line on stderr, exit 2,
no traceback, and changes nothing (a review, session 12: each test failed on
the code before)."""

import os
import sqlite3
import tty

import pytest
from mjcall import call
from mjtable import archive

KEY = bytes(range(7, 39))
GBK_RULES = 'base = "xuezhan"\nname = "成都"\n'.encode("gb18030")


def bad(code, out, err):
    """A bad-input answer: exit 2, nothing on stdout, one mjtable error line."""
    assert code == 2, (code, out, err)
    assert out == ""
    assert err.startswith("mjtable: error: ") and "Traceback" not in err


# --- rule files that are not UTF-8 (a GBK file from a Chinese Windows editor)


def test_rule_file_in_gbk_is_bad_input_naming_the_file(tmp_path, capsys):
    f = tmp_path / "house.toml"
    f.write_bytes(GBK_RULES)
    for argv in (("calc", "1112345678999m", "--win", "5m", "--rules", str(f)),
                 ("rules", "show", str(f)),
                 ("rules", "compile", str(f), "-o", str(tmp_path / "o.bin"))):
        code, out, err = call(capsys, *argv)
        bad(code, out, err)
        assert "house.toml" in err
    assert not (tmp_path / "o.bin").exists()


def test_binary_rule_file_is_bad_input(tmp_path, capsys):
    f = tmp_path / "junk.bin"
    f.write_bytes(bytes(range(128, 256)) * 3)
    bad(*call(capsys, "rules", "show", str(f)))


def test_settle_script_naming_a_gbk_rule_file(tmp_path, capsys):
    (tmp_path / "house.toml").write_bytes(GBK_RULES)
    s = tmp_path / "hand.txt"
    s.write_text("rules house.toml\n甲 手牌 11567m 34457p 5789s 1m\n", encoding="utf-8")
    code, out, err = call(capsys, "settle", str(s))
    bad(code, out, err)
    assert "line 1" in err


# --- rules compile: a failed write leaves nothing behind


def test_compile_onto_a_directory_leaves_no_tmp_file(tmp_path, capsys):
    d = tmp_path / "out"
    d.mkdir()
    bad(*call(capsys, "rules", "compile", "xuezhan", "-o", str(d)))
    assert sorted(os.listdir(tmp_path)) == ["out"]


# --- archives: foreign or empty files are refused and left as they were


def test_sqlite_file_of_another_schema_is_not_an_archive(tmp_path, capsys):
    a = tmp_path / "other.sqlite"
    db = sqlite3.connect(a)
    db.execute("CREATE TABLE logs (a, b)")
    db.execute("INSERT INTO logs VALUES (1, 2)")
    db.commit()
    db.close()
    before = a.read_bytes()
    for argv in (("rescore",), ("replay", "1"), ("export", "--csv", str(tmp_path / "o.csv"))):
        bad(*call(capsys, *argv, "--archive", str(a)))
    assert a.read_bytes() == before
    assert not (tmp_path / "o.csv").exists()


def test_reading_commands_do_not_write_into_a_foreign_or_empty_file(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    other = tmp_path / "notes.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (t)")
    db.commit()
    db.close()
    before = other.read_bytes()
    for a in (empty, other):
        for argv in (("rescore",), ("export", "--csv", str(tmp_path / "o.csv")),
                     ("logs", "list", "--archived")):
            call(capsys, *argv, "--archive", str(a))
    assert empty.read_bytes() == b""  # got the archive's three tables
    assert other.read_bytes() == before


def test_export_never_writes_over_the_archive(tmp_path, capsys):
    a = tmp_path / "archive.sqlite"
    archive.open_archive(str(a)).close()
    before = a.read_bytes()
    bad(*call(capsys, "export", "--archive", str(a), "--csv", str(a)))
    assert a.read_bytes() == before  # was replaced by the CSV: every archived log lost
    bad(*call(capsys, "export", "--archive", str(a), "--html", str(a)))
    assert a.read_bytes() == before


def test_replay_of_a_huge_hand_number(tmp_path, capsys):
    a = tmp_path / "archive.sqlite"
    archive.open_archive(str(a)).close()
    bad(*call(capsys, "replay", "9" * 25, "--archive", str(a)))


# --- export: output paths


def test_export_into_a_missing_directory(tmp_path, capsys):
    a = tmp_path / "archive.sqlite"
    archive.open_archive(str(a)).close()
    code, out, err = call(capsys, "export", "--archive", str(a),
                          "--csv", str(tmp_path / "nodir" / "x.csv"))
    bad(code, out, err)
    assert "x.csv" in err


def test_export_writes_neither_output_when_one_cannot_be_written(tmp_path, capsys):
    a = tmp_path / "archive.sqlite"
    archive.open_archive(str(a)).close()
    bad(*call(capsys, "export", "--archive", str(a), "--csv", str(tmp_path / "ok.csv"),
              "--html", str(tmp_path / "nodir" / "x.html")))
    assert not (tmp_path / "ok.csv").exists()


def test_export_onto_a_directory_leaves_no_tmp_file(tmp_path, capsys):
    a = tmp_path / "archive.sqlite"
    archive.open_archive(str(a)).close()
    (tmp_path / "out").mkdir()
    bad(*call(capsys, "export", "--archive", str(a), "--csv", str(tmp_path / "out")))
    assert not (tmp_path / "out.tmp").exists()


# --- the table: rules pull into a bad path; a port that is not a table


@pytest.fixture
def table(env):
    from test_hostcmds_e2e import Table

    t = Table(env)
    yield t
    t.close()


def test_rules_pull_into_a_missing_directory(table, env, capsys):
    bad(*call(capsys, "rules", "pull", "--port", table.path, "-o", str(env / "nodir" / "r.bin")))
    (env / "d").mkdir()
    bad(*call(capsys, "rules", "pull", "--port", table.path, "-o", str(env / "d")))
    assert not (env / "d.tmp").exists()


def test_pull_from_a_silent_port_creates_no_archive(env, capsys):
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        a = env / "new.sqlite"
        code, out, err = call(capsys, "logs", "pull", "--port", os.ttyname(slave), "--timeout",
                              "1", "--archive", str(a))
        # not bad input: the link (exit 3), one line saying so
        assert code == 3 and out == "" and err.count("\n") == 1, (code, out, err)
        assert err.startswith("mjtable: error: ") and "does not answer" in err
        assert not a.exists()
    finally:
        os.close(master)
        os.close(slave)


# --- deploy: a source folder that does not exist


def test_deploy_from_a_missing_source_folder(tmp_path, capsys):
    bad(*call(capsys, "deploy", "--dry-run", "--no-board", "--src", str(tmp_path / "nosuch"),
              "--build", str(tmp_path / "build")))
