"""The board harness's view of the link (boardemu.play.Watch), fed the
records a table streams: the hand count holds whether WATCH came on before
or after the booted table wrote hand 0's head. No emulator needed."""

import os
import struct

from mjsim.boardemu import play

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Clock:
    def now_ns(self):
        return 0


def end(w):
    w.event(bytes([play.T_END]) + struct.pack("<4h", 1, -1, 0, 0))


def test_hand_0s_head_after_watch_is_the_hand_taken_as_in_play():
    w = play.Watch(Clock())  # in play: a booted table with its map starts hand 0
    assert (w.heads, w.ends) == (1, 0)
    w.event(bytes([play.T_HEAD]) + b"h0")  # WATCH came on first: the same hand
    assert (w.heads, w.ends) == (1, 0)
    end(w)
    assert w.heads == w.ends  # hand over: the bots clear, not play on (was heads 2)
    w.event(bytes([play.T_HEAD]) + b"h1")
    assert (w.heads, w.ends) == (2, 1) and w.head == b"h1"


def test_a_watch_that_missed_hand_0s_head_counts_the_next():
    w = play.Watch(Clock())
    end(w)
    w.event(bytes([play.T_HEAD]) + b"h1")
    assert (w.heads, w.ends) == (2, 1)


class InfoLink:
    """INFO's answers, one per call: a state string, or None for no answer."""

    def __init__(self, *states):
        self.states = list(states)

    def info(self):
        st = self.states.pop(0)
        if st is None:
            raise play.L.LinkError(0, msg="no reply to command 0x01")
        return {"state": st}


def test_between_hands_the_deal_wait_on_info_starts_the_next_hand():
    w = play.Watch(Clock())
    end(w)  # hand 0 over; hand 1's head comes only with its deal
    lk = InfoLink(None, "2,107", "5,0")
    w._deal_wait(lk)  # no answer: counted, nothing assumed
    assert (w.heads, w.ends, w.info_misses) == (1, 1, 1)
    w._deal_wait(lk)  # hand over, the table not yet cleared: not yet
    assert (w.heads, w.ends) == (1, 1)
    w._deal_wait(lk)
    assert (w.heads, w.ends) == (2, 1)
    w.event(bytes([play.T_HEAD]) + b"h1")  # the deal's head: the same hand
    assert (w.heads, w.ends) == (2, 1) and w.head == b"h1"
