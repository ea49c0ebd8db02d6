"""`mjtable selftest`: the host's verdict on a SELFTEST report, and the whole
command against the full controller on the virtual table (the firmware on
the MicroPython unix port, firmware/main.py, its chips simulated), between
hands and mid-hand. The emulated board's run, with a reader unplugged and a
display stopped, is tests/board/test_selftest_board.py. No timing asserted."""

import json
import time

from mjcall import call
from mjtable.tableops import selftest as S
from test_virtual_table_e2e import KEY, VirtualTable, info  # noqa: F401 (KEY: the env fixture)

GOOD = ("seat=%d reader=1 product=400 firmware=305 eeprom=1 rack=1,480,13 tray=1,480,0 "
        "display=1 keys=1 pressed=00 leds=3")


def lines(*seats):
    return "\n".join(seats)


def test_every_seat_ok():
    seats = S.report(lines(*(GOOD % s for s in range(4))), S.AGC_RANGE)
    assert [s["ok"] for s in seats] == [True] * 4 and all(not s["problems"] for s in seats)
    r = seats[0]["reader"]
    assert (r["product"], r["firmware"], r["eeprom"]) == ("4.0", "3.5", "0.1")
    assert r["rack"] == {"field": "on", "agc": 480, "tags": 13}


def test_each_fault_is_named_with_what_to_check():
    text = lines(
        GOOD % 0,
        GOOD.replace("display=1", "display=0") % 1,
        "seat=2 reader=0 product=0 firmware=0 eeprom=0 rack=-1,0,0 tray=-1,0,0 display=1 "
        "keys=1 pressed=00 leds=3",
        GOOD.replace("tray=1,480,0", "tray=0,0,0").replace("keys=1 pressed=00",
                                                           "keys=0 pressed=00") % 3)
    seats = S.report(text, S.AGC_RANGE)
    assert [s["ok"] for s in seats] == [True, False, False, False]
    assert seats[1]["problems"] == [
        "display not answering at 0x71: check the seat cable and the display's address jumpers"]
    assert len(seats[2]["problems"]) == 1 and "reader not answering" in seats[2]["problems"][0]
    p3 = seats[3]["problems"]
    assert len(p3) == 2 and p3[0].startswith("tray antenna: RF field did not come on")
    assert p3[1].startswith("key expander not answering at 0x23")


def test_agc_outside_the_range_and_a_key_held():
    text = GOOD.replace("rack=1,480,13", "rack=1,40,13").replace("pressed=00", "pressed=44") % 0
    (s,) = S.report(text, S.AGC_RANGE)
    assert s["problems"][0] == ("rack antenna: AGC 40 outside 100..800: check the antenna's "
                                "tuning (hardware/bringup.md)")
    assert [p.split(" reads")[0] for p in s["problems"][1:]] == ["key gang", "key tiao"]
    assert S.report(text.replace("pressed=44", "pressed=00"), (30, 900))[0]["ok"]


def test_bad_agc_range_is_refused(capsys):
    code, _, err = call(capsys, "selftest", "--agc", "900:100", "--port", "/nonexistent")
    assert code == 2 and "--agc" in err


def test_between_hands_every_seat_is_ok_and_mid_hand_it_is_refused(env, capsys):
    vt = VirtualTable("--rules", "chengdu", "--hands", "1", "--pace", "0")
    try:
        code, out, err = call(capsys, "selftest", "--port", vt.port, "--json")
        assert code == 0, out + err
        seats = json.loads(out)["seats"]
        assert [s["seat"] for s in seats] == [0, 1, 2, 3]
        for s in seats:
            assert s["ok"] and s["problems"] == []
            assert set(s) >= {"seat", "ok", "reader", "display", "keys", "problems"}
            assert s["reader"]["firmware"] == "3.5" and s["reader"]["rack"]["field"] == "on"
        code, out, _ = call(capsys, "selftest", "--port", vt.port)
        assert code == 0 and out.count(": ok") == 4 and "field on, AGC 480" in out
        # a hand in play: the table refuses, and says when it will run
        assert call(capsys, "match", "start", "--port", vt.port)[0] == 0
        deadline = time.monotonic() + 60
        while info(capsys, vt.port).get("hand", -1) == -1:
            assert time.monotonic() < deadline, "no hand began"
            time.sleep(0.2)
        code, out, err = call(capsys, "selftest", "--port", vt.port)
        assert code == 2 and "a hand is in play" in err and "between hands" in err
    finally:
        assert vt.close() == 0
