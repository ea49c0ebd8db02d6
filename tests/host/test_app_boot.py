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
    from mjtable import findport

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
