"""What `replay`, `rescore` and `export` print for archived hands, as a
referee reads it (issue 21 items 3, 7, 9): reasons by name, the fan and
patterns as `calc` shows them, the 流局 checks, the hand's time.

The hands are bot hands logged as the table logs them (table.logstore,
sichuan.handlog, table.hostcmds' seal) and archived as `logs pull` does."""

import csv
import io
import json

import pytest
from gamekit import play
from mjcall import call
from mjtable import archive
from mjtable.logs import logfmt
from sichuan import presets
from test_logs_archive import TID, _hand, _Recorder  # hands logged as the table logs them


def archive_hands(tmp_path, plays):
    """An archive of sealed bot hands: plays = [(preset, seed)]. Returns its path."""
    path = str(tmp_path / "ar.sqlite")
    ar = archive.open_archive(path)
    for name, seed in plays:
        lid, data, _points = _hand(str(tmp_path / "logs"), seed, name)
        ar.add_log(TID.hex(), lid, logfmt.parse(data).head, data, "valid",
                   "%08x" % presets.get(name).crc())
    ar.close()
    return path


@pytest.fixture(scope="module")
def ar(tmp_path_factory):
    """Hand 1 xuezhan (流局, 换三张), 2 chengdu (a win, 平胡 1番), 3 tfmj-2024 (no 换三张)."""
    return archive_hands(tmp_path_factory.mktemp("ref"),
                         [("xuezhan", 3), ("chengdu", 4), ("tfmj-2024", 5)])


def _replay(capsys, ar, *argv):
    code, out, err = call(capsys, "replay", *argv, "--archive", ar)
    return code, out.splitlines()


def test_replay_header_says_the_exchange_only_where_there_is_one(capsys, ar):
    code, lines = _replay(capsys, ar, "1")
    assert code == 0
    assert lines[0].endswith(
        "ruleset xuezhan (CRC 0B956EF6), dealer East, 换三张 to 下家 (next seat)")
    code, lines = _replay(capsys, ar, "3", "--brief")
    assert "换三张" not in lines[0] and "exchange" not in lines[0]


def test_replay_gives_the_time_and_explains_the_star(capsys, ar):
    code, lines = _replay(capsys, ar, "1")
    assert lines[1].startswith("played 3 min 18 s, 138 actions (table clock); pulled 20")
    assert lines[2] == "(a * after a discard: another seat claimed it with 碰, 杠 or 胡)"
    assert any("*" in ln and "discards" in ln for ln in lines)


def test_replay_shows_the_liuju_with_each_seats_status(capsys, ar):
    code, lines = _replay(capsys, ar, "1", "--brief")
    i = lines.index("     流局 (wall empty): East 没叫, South 没叫, West 没叫, North 听牌 (2 番)")
    assert lines[i - 1] == "138  West discard 6s"
    assert lines[i + 1] == "     East pays North 4 查叫 (chajiao)"


def test_replay_shows_a_win_as_calc_does(capsys, ar):
    code, lines = _replay(capsys, ar, "2", "--brief")
    wins = [ln for ln in lines if ln.startswith("     win: ")]
    assert wins == ["     win: North 胡 2p on South's discard, 2 番 (1 doubling): "
                    "平胡 pinghu +0, 根 gen +1"]


def test_a_refused_action_is_named_and_gives_no_result(capsys, ar):
    # hand 1 played 换三张; tfmj-2024 has none, so its exchange is refused
    code, lines = _replay(capsys, ar, "1", "--rules", "tfmj-2024", "--brief")
    assert code == 1
    assert lines[-1] == ("DIFFERENCE: action 5 (East exchange 237p) refused by the engine: "
                         "not now (wrong phase); the replay stops there")
    assert not any(ln.startswith("end: East") for ln in lines)
    code, out, err = call(capsys, "rescore", "1", "--rules", "tfmj-2024", "--archive", ar)
    assert code == 1 and "not now (wrong phase)" in out and "engine gives" not in out
    code, out, err = call(capsys, "rescore", "1", "--rules", "tfmj-2024", "--archive", ar,
                          "--json")
    (r,) = json.loads(out)
    assert r["points_engine"] is None and r["points_table"] == [-4, -6, -4, 14]


def test_export_csv_to_stdout_with_a_bom_and_the_wins_patterns(capsys, ar, tmp_path):
    code, out, err = call(capsys, "export", "--archive", ar, "--csv", "-")
    assert code == 0 and out.startswith("\ufefftable,log,rules,seal,")
    assert not (tmp_path / "-").exists() and "exported to stdout" in err
    rows = list(csv.reader(io.StringIO(out[1:])))
    assert rows[2][2] == "chengdu" and rows[2][8] == (
        "North 胡 2p on South's discard, 2 番 (1 doubling): 平胡 pinghu +0, 根 gen +1")
    code, out, err = call(capsys, "export", "--archive", ar, "--csv", str(tmp_path / "s.csv"))
    assert (tmp_path / "s.csv").read_bytes().startswith(b"\xef\xbb\xbftable,")


def test_logs_list_archived_names_the_rules(capsys, ar):
    code, out, err = call(capsys, "logs", "list", "--archived", "--archive", ar)
    lines = out.splitlines()
    assert lines[0].split()[-1] == "rules"
    assert [ln.split()[-1] for ln in lines[1:]] == ["xuezhan", "chengdu", "tfmj-2024"]


class _Events:
    """A hand log that keeps its records as the table streams them to `monitor`."""

    def __init__(self):
        self.records = []

    def append(self, rtype, payload):
        self.records.append(bytes([rtype]) + bytes(payload))


def test_monitor_shows_a_win_and_the_liuju_as_replay_does():
    from mjtable.commands import monitor as monitorcmd

    rs = presets.get("chengdu")
    log = _Events()
    play(rs, 4, log=_Recorder(rs, log))
    lines = []
    view = monitorcmd.View(None, lines.append, brief=True)
    view.rs = rs  # the ruleset the table plays: nothing to pull
    for rec in log.records:
        view.event(rec)
    assert "  win: North 胡 2p on South's discard, 2 番 (1 doubling): 平胡 pinghu +0, 根 gen +1" \
        in lines
    assert "  流局 (wall empty): East 没叫, South 没叫, West 没叫" in lines
