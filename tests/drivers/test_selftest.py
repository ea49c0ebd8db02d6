"""table.selftest on the simulated board with the real drivers (both
interpreters): what it reports of each seat's chips, the patterns it shows,
and Board.down following what it found. The host's verdict on such a report
is tested in tests/host/test_selftestcmd.py."""

from table import selftest
from tablekit import TableRig, tile_uid


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split())


def report(r):
    return [fields(ln) for ln in selftest.run(r.board).decode().split("\n")]


def test_every_chip_answers_and_every_pattern_is_shown():
    r = TableRig()
    for t in range(13):
        r.table.readers[0].put(0, tile_uid(t))
    r.table.readers[3].put(1, tile_uid(50))
    seats = report(r)
    assert [s["seat"] for s in seats] == ["0", "1", "2", "3"]
    for s in seats:
        assert s["reader"] == s["display"] == s["keys"] == "1"
        assert s["product"] == "400" and s["firmware"] == "305" and s["eeprom"] == "1"
        assert s["pressed"] == "00" and s["leds"] == "3"
        assert s["rack"].startswith("1,480,") and s["tray"].startswith("1,480,")
    assert seats[0]["rack"] == "1,480,13" and seats[3]["tray"] == "1,480,1"
    assert seats[1]["rack"] == "1,480,0"
    for d in r.table.displays:
        assert d.text() == "8.8.8.8." and d.colon()
    assert r.table.leds.shown == [(48, 48, 48)] * 12
    assert r.board.down == 0
    assert all(rd.antenna == 0 for rd in r.board.readers)  # back on the rack


def test_a_reader_unplugged_and_a_display_stopped_are_named():
    r = TableRig()
    r.board.readers[2].busy_polls = 50  # an unplugged reader fails within 50 BUSY polls
    r.table.readers[2].unplug()
    r.table.i2c.detach(0x71)  # seat 1's display
    seats = report(r)
    assert seats[2]["reader"] == "0" and seats[2]["rack"] == seats[2]["tray"] == "-1,0,0"
    assert seats[1]["display"] == "0"
    for s in (0, 1, 3):
        assert seats[s]["reader"] == "1"
    for s in (0, 2, 3):
        assert seats[s]["display"] == "1"
    assert all(s["keys"] == "1" for s in seats)
    assert r.board.down == 1 << 2 | 1 << 4 + 1  # Board.down: reader 2, display 1


def test_a_field_that_stays_off_and_a_key_held():
    r = TableRig()
    r.table.readers[3].tx_fault = True
    r.table.readers[1].agc = 40  # an antenna far off its tuning
    r.table.press(0, 2)  # 杠 held (or shorted)
    seats = report(r)
    # it answers, its field does not come on: down (its init checks the
    # field), and said so antenna by antenna
    assert seats[3]["reader"] == "1" and seats[3]["firmware"] == "305"
    assert seats[3]["rack"] == seats[3]["tray"] == "0,0,0"
    assert r.board.readers[3].field_fault and r.board.down == 1 << 3
    assert seats[1]["rack"] == "1,40,0" and seats[1]["tray"] == "1,40,0"
    assert seats[0]["pressed"] == "04"
