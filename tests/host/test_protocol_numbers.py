"""The host's protocol numbers (mjtable.link.protocol, each defined there
once) are the firmware's: the host cannot import the firmware (it imports
sichuan only), so this test holds the two sides together, name by name."""

import sichuan  # noqa: F401  (the const shim)
from mjtable.link import protocol as P
from mjtable.logs import logfmt
from mjtable.tableops import info as I
from table import controller as C
from table import frame, hostcmds, hostlink


def _numbers(mod, prefix):
    return {k: v for k, v in vars(mod).items() if k.startswith(prefix) and isinstance(v, int)}


def test_every_code_of_the_firmware_has_the_same_number_on_the_host():
    fw = {}
    for mod, prefix in ((frame, "CMD_"), (frame, "OBJ_"), (frame, "E_"), (hostcmds, "CMD_"),
                        (hostcmds, "EV_")):
        fw.update(_numbers(mod, prefix))
    fw.update(VERSION=frame.VERSION, REPLY=frame.REPLY, EVENT=frame.EVENT,
              NO_REQUEST=frame.NO_REQUEST)
    host = {k: getattr(P, k, None) for k in fw}
    assert host == fw
    assert P.ERRORS == {v: k for k, v in _numbers(frame, "E_").items()}


def test_the_hosts_state_names_follow_the_firmwares_numbers():
    assert P.DEAL_WAIT == hostlink.DEAL_WAIT
    named = {C.IDLE: "empty table", C.PLAY: "in play", C.END: "clear the table",
             C.FULL: "full", C.DONE: "match over", hostlink.DEAL_WAIT: "the deal"}
    assert len(P.STATES) == len(named)
    for i, words in named.items():
        assert words in P.STATES[i], (i, P.STATES[i])


def test_the_log_record_types_are_the_controllers():
    # (the end record's number is the controller's own: the logs' tests read it back)
    assert (logfmt.T_HEAD, logfmt.T_ACT, logfmt.T_ALERT) == (C.REC_HEAD, C.REC_ACT, C.REC_ALERT)


def test_state_index_reads_info_and_refuses_garbage():
    assert I.state_index("5,0") == P.DEAL_WAIT
    assert I.state_index("1,54") == 1
    assert I.state_index("x,3") == -1 and I.state_index("") == -1
    assert I.state_row("9,2").startswith("? (9)")


def test_the_signed_requests_are_those_the_table_checks_a_mac_on(tmp_path):
    """An owner of the link keeps these requests' numbers (link/owner.py): a
    request the table checks a MAC on and the owner numbered anew would fail."""
    from table import link as fl
    from table.logstore import LogStore

    link = fl.Link(lambda mv: 0, lambda mv: len(mv), key=bytes(32))
    hostcmds.install(link, LogStore(str(tmp_path / "logs")), root=str(tmp_path))
    signed = {code for code in range(64) if link._auth[code]}
    assert signed == set(P.SIGNED_CMDS)
    # HELLO's flags: the table's two, and the owner's own beside them
    assert (P.FLAG_KEY, P.FLAG_KEY_BUTTON) == (fl.FLAG_KEY, fl.FLAG_KEY_BUTTON)
    assert P.FLAG_RELAYED & (fl.FLAG_KEY | fl.FLAG_KEY_BUTTON) == 0
