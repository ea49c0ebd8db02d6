try:
    from check import raises
except ImportError:
    import sys

    sys.path.append(__file__.rsplit("/", 2)[0] + "/core")
    from check import raises

from drivers.ht16k33 import glyph
from sichuan import claims
from table import alerts


def test_every_text_is_four_showable_glyphs():
    assert len(alerts.TEXTS) == len(alerts.NAMES)
    for t in alerts.TEXTS:
        assert len(t) == 4
        for ch in t:
            assert glyph(ch) >= 0, (t, ch)
    assert len(set(alerts.TEXTS)) == len(alerts.TEXTS)


def test_engine_reasons_map_to_codes():
    assert alerts.from_reason(claims.MUST_DISCARD_VOID) == alerts.VOID
    assert alerts.from_reason(claims.NOT_YOUR_TURN) == alerts.TURN
    assert alerts.from_reason(claims.FIFTH_COPY) == alerts.FIFTH
    assert alerts.from_reason(claims.BAD_COUNT) == alerts.COUNT
    assert alerts.from_reason(claims.NO_CLAIM) == alerts.REFUSED
    assert alerts.from_reason(claims.GUOSHOU) == alerts.REFUSED


def test_raise_clear_and_key_alerts_expire():
    a = alerts.Alerts(4, hold_ms=1000)
    assert a.raise_(2, alerts.VOID, 0)
    assert not a.raise_(2, alerts.VOID, 10)  # same alert again: not new
    assert a.raise_(1, alerts.REFUSED, 100, reason=claims.NO_CLAIM, by_key=True)
    assert a.table_alert() and a.any()
    a.expire(900)
    assert a.code[1] == alerts.REFUSED
    a.expire(1100)
    assert a.code[1] == alerts.NONE and a.code[2] == alerts.VOID
    a.clear_table()
    assert not a.any()
    raises(ValueError, a.raise_, 4, alerts.VOID, 0)
    raises(ValueError, a.raise_, 0, 99, 0)


def test_clear_table_keeps_key_alerts():
    a = alerts.Alerts()
    a.raise_(0, alerts.TWO, 0)
    a.raise_(3, alerts.TURN, 0, by_key=True)
    a.clear_table()
    assert a.code[0] == 0 and a.code[3] == alerts.TURN
    assert a.text(3) == "turn"
