# A match's length as the host sets it (MATCH start's hands, seconds, rules
# CRC: mjtable match start --event): the table keeps the time; once it is up
# the hand in play is the last and the seat displays say so (table/hostlink.py,
# table/controller.py); under CPython and MicroPython.
import struct
import time

if not hasattr(time, "ticks_ms"):  # CPython: MicroPython's wrapping ms clock, for HostLink
    time.ticks_ms = lambda: int(time.monotonic() * 1000) & 0x3FFFFFFF
    time.ticks_add = lambda a, b: (a + b) & 0x3FFFFFFF
    time.ticks_diff = lambda a, b: ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

from storage_util import rmtree, scratch
from table import controller as C
from table import frame as F
from table import hostcmds as HC
from table.hostlink import HostLink
from table.logstore import LogStore
from tablekit import TableRig

KEY = bytes(range(9, 41))


class Rig:
    def __init__(self):
        self.dir = scratch("matchlim")
        self.table = TableRig(logs=LogStore(self.dir + "/logs"))
        self.ctl = self.table.ctl
        self.hl = HostLink(self.ctl, self.dir, lambda mv: 0, lambda mv: len(mv), key=KEY)
        self.clock = [1000]
        self.hl.ticks = lambda: self.clock[0]

    def start(self, hands, secs, crc):
        resp = bytearray(16)
        n = self.hl.host._cmd_match(bytes((HC.MATCH_START,)) + struct.pack("<HHI", hands, secs,
                                                                           crc), resp)
        return struct.unpack_from("<I", resp)[0] if n == 4 else None

    def close(self):
        rmtree(self.dir)


def test_match_start_sets_the_length_and_answers_where_its_hands_begin():
    r = Rig()
    try:
        first = r.start(6, 3000, r.ctl.rs.crc())
        assert first == r.ctl.logs._logs.next_id()  # the next hand's log id
        assert r.hl.hands == 6 and r.hl.deadline == 1000 + 3000 * 1000
        try:
            r.start(8, 0, r.ctl.rs.crc() ^ 1)  # the host means another ruleset
            raise AssertionError("a wrong ruleset CRC was taken")
        except F.LinkError as e:
            assert e.code == F.E_CHECK
        assert r.hl.hands == 6  # refused: nothing changed
        r.start(8, 0, 0)  # no time limit, any ruleset
        assert r.hl.deadline is None and r.hl.hands == 8
    finally:
        r.close()


def deal_first_rack(r):
    """The table empty, then seat 0's rack dealt: the hand has begun."""
    t = r.table
    t.frame(3)
    assert r.ctl.state == C.PLAY and not r.ctl.in_hand()  # waiting for its deal
    t.put(0, 0, range(0, 14))
    assert t.until(lambda: r.ctl.accepted == 1)
    assert r.ctl.in_hand()


def test_after_the_time_the_hand_in_play_is_the_last_and_the_seats_say_so():
    r = Rig()
    try:
        r.start(8, 60, 0)
        deal_first_rack(r)
        r.clock[0] += 59 * 1000
        r.hl.tick()
        assert not r.ctl.last and r.ctl.display.text is None
        shown = set()
        for k in range(4):  # time is up: "LASt" and the scores by turns of 2 s
            r.clock[0] = 1000 + 60 * 1000 + k * 2048
            r.hl.tick()
            shown.add(r.ctl.display.text)
        assert r.ctl.last and r.ctl.state == C.PLAY and shown == {"LASt", None}
        r.ctl.state = C.END  # the last hand ended: no other begins
        r.hl.tick()
        assert r.ctl.state == C.DONE and r.ctl.display.text is None
    finally:
        r.close()


def test_time_up_between_hands_ends_the_match():
    r = Rig()
    try:
        r.start(8, 60, 0)
        assert r.ctl.state == C.IDLE
        r.clock[0] += 61 * 1000
        r.hl.tick()
        assert r.ctl.state == C.DONE
        r.start(8, 60, 0)  # the next match has its own time
        assert r.ctl.state == C.IDLE and not r.ctl.last
        r.hl.tick()
        assert r.ctl.state == C.IDLE
    finally:
        r.close()


def test_time_up_while_the_table_waits_for_its_deal_ends_the_match():
    r = Rig()
    try:
        r.start(8, 60, 0)
        r.table.frame(3)
        assert r.ctl.state == C.PLAY and not r.ctl.in_hand()
        r.clock[0] += 61 * 1000
        r.hl.tick()  # no hand had begun: none is played after the time
        assert r.ctl.state == C.DONE and not r.ctl.last
    finally:
        r.close()


def test_the_host_may_end_the_match_while_the_table_waits_for_its_deal_not_in_a_hand():
    r = Rig()
    resp = bytearray(16)
    try:
        r.start(8, 0, 0)
        r.table.frame(3)
        assert r.ctl.state == C.PLAY and not r.ctl.in_hand()  # waiting for its deal
        r.hl.host._cmd_match(bytes((HC.MATCH_END,)), resp)
        assert r.ctl.state == C.DONE and r.ctl.logs._logs.list() == []  # no hand, no log
        r.start(8, 0, 0)
        deal_first_rack(r)
        try:
            r.hl.host._cmd_match(bytes((HC.MATCH_END,)), resp)
            raise AssertionError("a match ended in the middle of a hand")
        except F.LinkError as e:
            assert e.code == F.E_BUSY
        assert r.ctl.state == C.PLAY and r.ctl.logs._logs.list() == [1]
    finally:
        r.close()


def test_the_controller_starts_no_hand_after_the_last():
    t = TableRig()
    t.ctl.state = C.END
    t.ctl.last = True
    t.frame(2)  # the table is clear: a hand would start
    assert t.ctl.state == C.DONE
    t = TableRig()
    t.ctl.state = C.END
    t.frame(2)
    assert t.ctl.state == C.PLAY
