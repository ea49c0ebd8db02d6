"""What firmware/app.py says at boot about the files it found (CPython; the
table prints to its console, which `mpremote` or a serial terminal shows),
and what `mjtable info` shows of it (INFO repaired=, damaged=)."""

import app
from sichuan import presets
from table import store


def test_a_corrupt_stored_ruleset_is_said_and_the_preset_played(tmp_path, capsys):
    p = str(tmp_path / app.RULES_FILE)
    store.write(p, presets.get("chengdu").to_blob())
    with open(p, "r+b") as f:
        f.seek(20)
        f.write(b"\x00")
    assert store.load(p)[0] == store.CORRUPT
    rs = app.active_rules(str(tmp_path), "xuezhan")
    assert rs.name == "xuezhan"
    assert "stored ruleset corrupt; playing xuezhan" in capsys.readouterr().out


def test_a_stored_ruleset_is_played_and_none_is_quiet(tmp_path, capsys):
    assert app.active_rules(str(tmp_path), "xuezhan").name == "xuezhan"
    store.write(str(tmp_path / app.RULES_FILE), presets.get("chengdu").to_blob())
    assert app.active_rules(str(tmp_path), "xuezhan").name == "chengdu"
    assert capsys.readouterr().out == ""


def test_mjtable_info_shows_what_the_boot_repaired(monkeypatch, capsys):
    from mjcall import call
    from mjtable.link import port as findport

    class Link:
        table_id = b"TESTTBL1"
        flags = 0

        def info(self):
            return {"fw": "1", "rules": "xuezhan", "rules_crc": "0", "repaired": "7:15",
                    "damaged": "9:3"}

    monkeypatch.setattr(findport, "connect", lambda args: Link())
    code, out, _ = call(capsys, "info")
    assert code == 0
    assert "repaired      7:15  (power cut" in out and "damaged       9:3  (kept" in out


def test_mjtable_info_names_the_chips_not_answering_and_the_last_fault(monkeypatch, capsys):
    from mjcall import call
    from mjtable.link import port as findport

    class Link:
        table_id = b"TESTTBL1"
        flags = 0

        def info(self):
            return {"fw": "1", "rules": "xuezhan", "rules_crc": "0", "chips": "284",
                    "crashes": "2", "fault": "key_task OSError(110,)", "state": "2,5"}

    monkeypatch.setattr(findport, "connect", lambda args: Link())
    code, out, _ = call(capsys, "info")
    assert code == 0
    assert "state         hand over: clear the table; 5 tiles read" in out
    assert "chips down    reader2, display3, keys1  (check" in out
    assert "task failures 2  (each restarted)" in out
    assert "last fault    key_task OSError(110,)" in out


def test_the_watchdog_reason_is_reported_by_the_next_boot_once(tmp_path, capsys):
    from mjsim import board as sim

    board, _ = sim.make()
    for r in board.readers:
        r.settle_us = r.switch_us = 0
    root = str(tmp_path)
    rs = app.active_rules(root, "xuezhan")
    ctl = app.boot(board, root, rs)
    ctl.fault = "scan_task OSError(5,)"
    app.stuck(root, ctl)(61000)  # the watchdog's on_stuck, before it lets the board reset
    ctl = app.boot(board, root, rs)
    want = "reset: scan task silent 61000 ms; last fault: scan_task OSError(5,)"
    assert ctl.fault == want and want in capsys.readouterr().out
    assert app.boot(board, root, rs).fault == ""  # said once
