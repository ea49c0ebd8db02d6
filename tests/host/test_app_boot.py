"""What firmware/app.py says at boot about the files it found (CPython; the
table prints to its console, which `mpremote` or a serial terminal shows)."""

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
