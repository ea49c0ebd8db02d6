"""mjtable.names: a name or text for every code the rules core uses."""

from mjtable.rules import names
from sichuan import claims as C
from sichuan import game as G
from sichuan import settle as S


def test_reason_table_names_every_code():
    assert len(names.REASONS) == len(names.REASON_KEYS) == C.WILD_TILE + 1  # the last code
    assert names.REASON_KEYS[C.MUST_DISCARD_VOID] == "MUST_DISCARD_VOID"
    assert "void" in names.REASONS[C.MUST_DISCARD_VOID]
    assert "void" in names.REASONS[C.VOID_HELD_NO_CLAIM]


def test_each_key_is_the_name_of_its_code():
    for code, key in enumerate(names.REASON_KEYS):
        assert getattr(C, key) == code, key


def test_action_phase_event_and_pay_names_cover_every_code():
    assert len(names.ACTION_NAMES) == G.TI + 1 and names.ACTION_NAMES[G.TI] == "ti"
    assert names.ACTION_NAMES[G.HU] == "hu" and names.ACTION_NAMES[G.FEI] == "fei"
    assert len(names.PHASE_NAMES) == G.PH_END + 1 and names.PHASE_NAMES[G.PH_ROB] == "rob"
    assert len(names.EVENT_NAMES) == S.EV_MA + 1 and names.EVENT_NAMES[S.EV_CHECK] == "check"
    assert len(names.PAY_NAMES) == S.PAY_TUIGANG + 1 and names.PAY_NAMES[S.PAY_BAO] == "bao"


def test_meld_kind_names():
    from sichuan import meld

    assert names.KIND_NAMES[meld.ANGANG] == "angang" and len(names.KIND_NAMES) == 4


def test_fan_variant_names():
    from mjtable.referee import calc
    from sichuan import fan
    from sichuan import ruleset as R

    assert len(calc.EXTRA_NAMES) == fan.HOUSE0 - R.NPATTERNS
    assert calc.EXTRA_NAMES[fan.X_KA] == "ka" and calc.EXTRA_NAMES[fan.X_WUTINGYONG] == "wutingyong"


def test_every_win_flag_has_a_name_and_a_chinese_text():
    from mjtable.commands import settle as settlecmd
    from mjtable.rules import names as N
    from sichuan import fan

    flags = N.WIN_FLAGS
    # sichuan.fan's flags are the bits 1 << i in this order, NOWILD the last
    assert 1 << (len(flags) - 1) == fan.NOWILD
    pairs = {"zimo": fan.ZIMO, "gangshangpao": fan.GANGSHANGPAO, "qiangganghu": fan.QIANGGANG,
             "tianhu": fan.TIANHU, "baohu": fan.BAOHU, "qinghu": fan.QINGHU,
             "qinghupao": fan.QINGHUPAO, "benjin": fan.BENJIN}
    for n, bit in pairs.items():
        assert N.flags_of(bit) == [n]
    for i in range(1, len(flags)):  # zimo is left out of the Chinese text
        assert settlecmd._flags_zh(1 << i)


def test_alert_names_are_the_firmwares():
    from table import alerts

    assert names.ALERT_NAMES == alerts.NAMES
