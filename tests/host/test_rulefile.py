"""TOML rule files, `--rules PRESET|FILE` and `mjtable rules show|compile`."""

import tomllib

import pytest
from mjcall import call
from mjtable import BadInput, cli
from mjtable.commands import rules as rulescmd
from mjtable.rules import paramdoc, rulefile
from sichuan import presets, ruleset

EXAMPLES = ["examples/rules/chengdu-16.toml", "examples/rules/menqing-duanyao.toml",
            "examples/rules/xueliu-jiafan.toml"]


def rules(text, source="house.toml", default_name=None):
    return rulefile.from_toml(tomllib.loads(text), source, default_name)


def bad(text, *words):
    with pytest.raises(BadInput) as e:
        rules(text)
    msg = str(e.value)
    assert msg.startswith("house.toml: ")
    for w in words:
        assert w in msg, msg
    return msg


def test_base_plus_overrides():
    rs = rules('base = "chengdu"\ncap = 4\nbase_points = 5\n')
    ref = presets.get("chengdu")
    assert rs[ruleset.P_CAP] == 4 and rs[ruleset.P_BASE_POINTS] == 5
    for pid in range(ruleset.NPARAMS):
        if pid not in (ruleset.P_CAP, ruleset.P_BASE_POINTS):
            assert rs[pid] == ref[pid], ruleset.param_name(pid)
    assert rs.name == "chengdu"  # no name and no file stem: the base's


def test_fan_table_and_dotted_keys_agree():
    a = rules('base = "xuezhan"\n[fan]\nqingyise = 3\nmenqing = 1\n')
    b = rules('base = "xuezhan"\nfan.qingyise = 3\nfan.menqing = 1\n')
    assert a == b
    assert a.fan(ruleset.QINGYISE) == 3 and a.fan(ruleset.MENQING) == 1


def test_named_values():
    rs = rules('base = "xuezhan"\ncap = "none"\nhuansanzhang = false\n'
               '[fan]\nqingyise = "none"\ntianhu = "cap"\n')
    assert rs[ruleset.P_CAP] == -1 and rs[ruleset.P_HUANSANZHANG] == 0
    assert rs.fan(ruleset.QINGYISE) == ruleset.NONE
    assert rs.fan(ruleset.TIANHU) == ruleset.AT_CAP


def test_name_key_and_file_stem(tmp_path):
    assert rules('base = "xuezhan"\nname = "my house"\n').name == "my house"
    f = tmp_path / "friday-night.toml"
    f.write_text('base = "xuezhan"\n', encoding="utf-8")
    assert rulefile.load(str(f)).name == "friday-night"


def test_unknown_keys_are_named():
    bad('base = "xuezhan"\ncapp = 3\n', "unknown key 'capp'")
    bad('base = "xuezhan"\n[fan]\nqingyse = 3\n', "unknown key 'fan.qingyse'")
    bad('base = "xuezhan"\n[gang]\nzhi = 2\n', "unknown key 'gang.zhi'")
    bad('base = "xuezhan"\nfan = 3\n', "fan: expected a table of pattern values")


# -- issue 21 item 8: what a referee types wrong, said so that it can be fixed


def test_typos_say_what_was_meant():
    bad('base = "xuezhan"\ncapp = 3\n', "unknown key 'capp' (did you mean 'cap'?)")
    bad('base = "xuezhan"\n[fan]\nqingyse = 3\n', "did you mean 'fan.qingyise'")
    msg = bad('base = "chengd"\n', "did you mean 'chengdu' or 'chengdu_jiaoma'?")
    assert "presets: xuezhan" in msg


def test_a_list_and_yes_are_refused_saying_what_works():
    bad('base = "xuezhan"\nfan = [1, 2]\n', "fan: expected a table", "fan.qingyise = 2")
    bad('base = "xuezhan"\ncap = [1, 2]\n', "cap", "not a list")
    bad('base = "xuezhan"\nzimo_bonus = "yes"\n', "zimo_bonus", "write true or false")


def test_preset_names_ignore_case_and_dash_or_underscore(capsys):
    assert rulefile.load("TFMJ_2024") == presets.get("tfmj-2024")
    assert rulefile.load("Chengdu-Jiaoma") == presets.get("chengdu_jiaoma")
    assert rules('base = "XueZhan"\n') == presets.get("xuezhan")
    code, out, err = call(capsys, "calc", "1112345678999m", "--win", "5m", "--rules", "Tfmj_2024")
    assert code == 0 and "(rules tfmj-2024)" in out


def test_base_may_name_another_rule_file(tmp_path, capsys):
    (tmp_path / "house.toml").write_text('base = "chengdu"\ncap = 3\n', encoding="utf-8")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "friday.toml").write_text('base = "../house.toml"\nbase_points = 2\n',
                                     encoding="utf-8")
    rs = rulefile.load(str(sub / "friday.toml"))
    assert rs.name == "friday" and rs[ruleset.P_CAP] == 3 and rs[ruleset.P_BASE_POINTS] == 2
    assert rs[ruleset.P_FAN_SHOWN_OFFSET] == presets.get("chengdu")[ruleset.P_FAN_SHOWN_OFFSET]
    code, out, err = call(capsys, "rules", "show", str(sub / "friday.toml"))
    assert code == 0 and "base     house" in out
    (tmp_path / "a.toml").write_text('base = "b.toml"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('base = "a.toml"\n', encoding="utf-8")
    code, out, err = call(capsys, "rules", "show", str(tmp_path / "a.toml"))
    assert code == 2 and "is a loop" in err


def test_a_bom_is_accepted_and_a_directory_is_named(tmp_path, capsys):
    f = tmp_path / "notepad.toml"
    f.write_bytes(b"\xef\xbb\xbf" + 'base = "xuezhan"\nname = "家里规矩"\n'.encode())
    assert rulefile.load(str(f)).name == "家里规矩"
    code, out, err = call(capsys, "calc", "1112345678999m", "--win", "5m", "--rules",
                          str(tmp_path))
    assert code == 2 and "is a directory" in err and "a .toml rule file" in err


UNPLAYABLE = [('suits = 1\n', "the deal needs 53 tiles but only 36 are in play"),
              ('players = 3\nhsz_dirs = 4\n', "换三张 across needs 4 players, not 3")]


@pytest.mark.parametrize("body, why", UNPLAYABLE)
def test_an_unplayable_ruleset_is_refused_by_every_command(tmp_path, capsys, body, why):
    f = tmp_path / "house.toml"
    f.write_text('base = "xuezhan"\n' + body, encoding="utf-8")
    rs = rulefile._load_any(str(f))  # the words `rules push` and the table give
    ok, said = ruleset.table_can_run(rs, shows_wild=True)
    assert not ok and said.endswith(why)
    script = tmp_path / "s.txt"
    script.write_text("rules %s\n甲 打 5m\n" % f, encoding="utf-8")
    out_bin = tmp_path / "out.bin"
    for argv in (("rules", "show", str(f)), ("rules", "compile", str(f), "-o", str(out_bin)),
                 ("calc", "1112345678999m", "--win", "5m", "--rules", str(f)),
                 ("waits", "1112345678999m", "--rules", str(f)),
                 ("sim", "--rules", str(f), "--hands", "1", "--seed", "1"),
                 ("settle", str(script))):
        code, out, err = call(capsys, *argv)
        assert code == 2 and out == "", argv
        assert err.startswith("mjtable: error: ") and why in err, (argv, err)
    assert not out_bin.exists()


def test_kong_help_says_what_it_is_multiplied_by(capsys):
    code, out, err = call(capsys, "rules", "show", "xuezhan")
    line = [ln for ln in out.splitlines() if ln.lstrip().startswith("gang_an ")][0]
    assert "each payer pays this x base_points" in line


def test_bad_values_are_named():
    bad('base = "xuezhan"\ncap = 99\n', "cap", "99", "-1..15")
    bad('base = "xuezhan"\nplayers = 1\n', "players", "2..5")
    bad('base = "xuezhan"\ncap = "lots"\n', "cap", "'lots'")
    bad('base = "xuezhan"\nfan.gen = 1.5\n', "fan.gen", "1.5")
    bad('base = "xuezhan"\nbase_points = true\n', "base_points", "true/false")
    bad('base = "xuezhan"\nplayers = "none"\n', "players", "'none'")
    bad('base = "xuezhan"\nfan.qingyise = 64\n', "fan.qingyise", "64")
    bad('base = "xuezhan"\nname = ""\n', "name")


def test_base_is_required_and_checked():
    bad("cap = 3\n", "base")
    msg = bad('base = "sichuan"\n', "base", "'sichuan'")
    for name in presets.names():
        assert name in msg
    bad("base = 3\n", "base")


def test_bad_toml_names_the_file(tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text("base = \n", encoding="utf-8")
    with pytest.raises(BadInput, match="broken.toml:1:8: not valid TOML"):
        rulefile.load(str(f))


def test_load_spec_kinds(tmp_path):
    assert rulefile.load("games456") == presets.get("games456")
    assert rulefile.load(None) == presets.get("xuezhan")
    with pytest.raises(BadInput, match="unknown preset 'nope'"):
        rulefile.load("nope")
    with pytest.raises(BadInput, match="not found"):
        rulefile.load(str(tmp_path / "nope.toml"))
    blob = tmp_path / "c.bin"
    rs = rulefile.load(EXAMPLES[0])
    blob.write_bytes(rs.to_blob())
    assert rulefile.load(str(blob)) == rs
    blob.write_bytes(rs.to_blob()[:-1] + b"\x00")
    with pytest.raises(BadInput, match="CRC"):
        rulefile.load(str(blob))


@pytest.mark.parametrize("path", EXAMPLES)
def test_examples_load_and_differ_from_their_base(path):
    rs = rulefile.load(path)
    data = tomllib.load(open(path, "rb"))
    assert rs.name == data["name"]
    assert rs.values != presets.get(data["base"]).values


def test_examples_mean_what_they_say():
    c16 = rulefile.load(EXAMPLES[0])
    assert c16[ruleset.P_CAP] == 4  # x16
    md = rulefile.load(EXAMPLES[1])
    assert md.fan(ruleset.MENQING) == 1 and md.fan(ruleset.DUANYAOJIU) == 1
    xj = rulefile.load(EXAMPLES[2])
    assert xj[ruleset.P_MODE] == ruleset.MODE_XUELIU and xj[ruleset.P_ZIMO_BONUS] == 0
    assert xj.fan(ruleset.ZIMO) == 1 and xj[ruleset.P_HUANSANZHANG] == 0


def test_every_parameter_is_documented():
    for pid in range(ruleset.P_FAN0):
        name = ruleset.param_name(pid)
        assert paramdoc.PARAM_DOC.get(name), name
    for name, values in paramdoc.VALUE_DOC.items():
        pid = ruleset.param_id(name)
        lo, hi = ruleset.bounds(pid)
        assert all(lo <= v <= hi for v in values), name


# -- the CLI


def test_rules_show_lists_everything(capsys):
    assert cli.main(["rules", "show", "examples/rules/chengdu-16.toml"]) == 0
    out = capsys.readouterr().out
    rs = rulefile.load("examples/rules/chengdu-16.toml")
    assert "chengdu-16" in out and "%08X" % rs.crc() in out
    lines = out.splitlines()
    for pid in range(ruleset.P_FAN0):
        name = ruleset.param_name(pid)
        row = [x for x in lines if x.split()[:1] == [name]]
        assert len(row) == 1, name
        assert row[0].split()[1].rstrip("*") == str(rs[pid]), name
    for pat in ruleset.PATTERNS:
        row = [x for x in lines if x.split()[:1] == [pat]]
        assert len(row) == 1, pat
    # chengdu counts 平胡 as 1番 (x1) and 清一色 as 3番 (x4); 根 adds one
    assert rulescmd.show_text(rs, presets.get("chengdu")) == out.rstrip("\n")
    pinghu = next(x for x in lines if x.split()[:1] == ["pinghu"]).split()
    assert pinghu[2:5] == ["0", "1", "x1"]
    qys = next(x for x in lines if x.split()[:1] == ["qingyise"]).split()
    assert qys[2:5] == ["2", "3", "x4"]
    gen = next(x for x in lines if x.split()[:1] == ["gen"]).split()
    assert gen[2:4] == ["1", "+1"]


def test_rules_show_marks_what_the_file_changes(capsys):
    assert cli.main(["rules", "show", EXAMPLES[1]]) == 0
    out = capsys.readouterr().out
    assert "base     xuezhan" in out
    marked = sorted(x.split()[0] for x in out.splitlines() if "*" in x and x.startswith("  "))
    assert marked == ["base_points", "cap", "duanyaojiu", "menqing"]
    assert cli.main(["rules", "show", "xuezhan"]) == 0
    out = capsys.readouterr().out
    assert "*" not in out and "base " not in out.splitlines()[2]


def test_rules_show_unknown(capsys):
    assert cli.main(["rules", "show", "nosuch"]) == 2
    assert "unknown preset 'nosuch'" in capsys.readouterr().err


def test_rules_compile_round_trip(tmp_path, capsys):
    out = tmp_path / "house.bin"
    assert cli.main(["rules", "compile", EXAMPLES[1], "-o", str(out)]) == 0
    rs = rulefile.load(EXAMPLES[1])
    assert out.read_bytes() == rs.to_blob()
    assert ruleset.from_blob(out.read_bytes()) == rs
    assert "%08X" % rs.crc() in capsys.readouterr().out


def test_rules_compile_bad_file_writes_nothing(tmp_path, capsys):
    src = tmp_path / "bad.toml"
    src.write_text('base = "xuezhan"\ncapp = 3\n', encoding="utf-8")
    out = tmp_path / "bad.bin"
    assert cli.main(["rules", "compile", str(src), "-o", str(out)]) == 2
    assert not out.exists()
    assert "unknown key 'capp'" in capsys.readouterr().err


def test_rules_compile_needs_output(capsys):
    assert cli.main(["rules", "compile", EXAMPLES[0]]) == 2
