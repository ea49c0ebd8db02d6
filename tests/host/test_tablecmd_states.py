"""The host's names for INFO `state` are the firmware's states: the host
cannot import the firmware (it imports sichuan only), so this test holds the
two lists together."""

import os

from mjtable.commands import table as tablecmd
from table import controller as C
from table import hostlink

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_hosts_state_names_follow_the_firmwares_numbers():
    assert tablecmd.DEAL_WAIT == hostlink.DEAL_WAIT
    named = {C.IDLE: "empty table", C.PLAY: "in play", C.END: "clear the table",
             C.FULL: "full", C.DONE: "match over", hostlink.DEAL_WAIT: "the deal"}
    assert len(tablecmd.STATES) == len(named)
    for i, words in named.items():
        assert words in tablecmd.STATES[i], (i, tablecmd.STATES[i])


def test_state_index_reads_info_and_refuses_garbage():
    assert tablecmd.state_index("5,0") == tablecmd.DEAL_WAIT
    assert tablecmd.state_index("1,54") == 1
    assert tablecmd.state_index("x,3") == -1 and tablecmd.state_index("") == -1
    assert tablecmd.state_row("9,2").startswith("? (9)")
