"""`mjtable selftest` on the emulated Pico (boardemu, the chip models strict
as the board tests run them): with seat 1's reader unplugged and seat 2's
display stopped, the verdict names exactly those two, what to check for
each, and the exit code says not every seat is ok; put back, every seat is.
The firmware boots from a deployed image (tests/board/faultkit.py), so no
deploy over the emulated USB. Select with `-m board`."""

import json
import time

import faultkit
import pytest
from mjsim.boardemu.board import skip_reason

_SKIP = skip_reason()
pytestmark = [pytest.mark.board, pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")]
T, SLOW = "--timeout", "120"  # s: the emulated board runs several times slower than a real one


def booted(b, wall_s=180.0):
    """Ask INFO until the table answers (the board boots)."""
    t = time.monotonic() + wall_s
    while b.mjtable("info", T, SLOW, check=False).returncode:
        assert time.monotonic() < t, "the board never answered"
        time.sleep(1)


def selftest(b):
    r = b.mjtable("selftest", "--json", T, SLOW, check=False)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)["seats"]


def test_selftest_names_the_unplugged_reader_and_the_stopped_display(tmp_path):
    b = faultkit.emu_board(faultkit.fs_image(str(tmp_path)), workdir=str(tmp_path / "w"))
    b.start()
    try:
        booted(b)
        b.answer("reader1", False)
        b.answer("display2", False)
        code, seats = selftest(b)
        assert code == 1
        why = [s["problems"] for s in seats]
        assert [s["ok"] for s in seats] == [True, False, False, True], why
        assert len(seats[1]["problems"]) == 1
        assert seats[1]["problems"][0].startswith("reader not answering: check the seat cable")
        assert seats[2]["problems"] == [
            "display not answering at 0x72: check the seat cable and the display's address "
            "jumpers"]
        for s in (0, 2, 3):  # the strict model's chips as they are
            r = seats[s]["reader"]
            assert (r["product"], r["firmware"], r["eeprom"]) == ("4.0", "3.5", "0.1")
            assert r["rack"]["field"] == r["tray"]["field"] == "on"
        assert seats[0]["display"]["answering"] and b.texts()[0] == "8.8.8.8."
        b.answer("reader1", True)
        b.answer("display2", True)
        code, seats = selftest(b)
        assert code == 0 and all(s["ok"] for s in seats), seats
        assert sum(r.violations for r in b.chips.readers) == 0  # BUSY kept, boots waited
    finally:
        b.stop()
