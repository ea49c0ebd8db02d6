"""`mjtable match start --event E --round R --table N` against the firmware's
host commands on the MicroPython unix port (tools/hostlink_peer.py behind a
real pseudo-terminal): the table is told the event's ruleset and match
length, the archive who sits where, and the hands pulled from that table
after the start are that match's, the ones before it not. No timing asserted."""

import json
import time

import pytest
from mjcall import call
from test_event_setup import _file
from test_hostcmds_e2e import Table

KEY = bytes(range(7, 39))


@pytest.fixture
def table(env):
    t = Table(env, hands=2, extra=("--pace", "1"))  # two hands logged before the match
    yield t
    t.close()


def _info(capsys, port):
    code, out, err = call(capsys, "info", "--port", port, "--json")
    assert code == 0, err
    return json.loads(out)


def test_a_match_started_for_the_event_gets_the_hands_played_after_it(table, env, capsys):
    rules = env / "tfmj2.toml"  # two-hand matches: the peer plays a match's length
    rules.write_text('base = "tfmj-2024"\nname = "tfmj-2"\nhands = 2\n')
    ev = _file(env, 4, ruleset='"%s"' % rules, hands_per_match="2")
    assert call(capsys, "event", "create", ev)[0] == 0
    code, out, err = call(capsys, "match", "start", "--event", "t1", "--round", "1", "--table",
                          "1", "--port", table.path)
    assert code == 2 and "no draw yet" in err
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0
    code, out, err = call(capsys, "match", "start", "--event", "t1", "--round", "1", "--table",
                          "1", "--port", table.path)
    assert code == 0, err
    assert "hands from log 3 on" in out and "2 hands" in out and "选手" in out
    assert _info(capsys, table.path)["rules"] == "tfmj-2"  # the event's ruleset was pushed
    code, out, err = call(capsys, "match", "start", "--event", "t1", "--round", "1", "--table",
                          "1", "--port", table.path)
    assert code == 2 and "started already" in err
    deadline = time.monotonic() + 150
    while True:  # the peer's match, 2 hands: over when the 2nd has a log and none is in play
        info = _info(capsys, table.path)
        if int(info["logs"]) >= 2 + 2 and str(info["hand"]) == "-1":
            break
        assert time.monotonic() < deadline, "the peer played no 2 hands: %s" % info
        time.sleep(0.2)
    code, out, err = call(capsys, "logs", "pull", "--port", table.path)
    assert code == 0 and "4 log(s) pulled" in out, out + err
    code, out, err = call(capsys, "event", "standings", "--json", "-")
    assert code == 0, err
    d = json.loads(out)
    rounds = [p["rounds"]["1"] for p in d["standings"]]
    assert all(r["hands"] == 2 and r["table"] == 1 for r in rounds)
    assert sum(r["raw_points"] for r in rounds) == 0  # tfmj-2024 starts at 0: zero sum
    assert sorted(r["place"] for r in rounds)[0] == 1
    code, out, err = call(capsys, "event", "player", "--id", "P0", "--json")
    logs = [h["log"] for h in json.loads(out)["rounds"][0]["hands"]]
    assert logs == ["E2ETABLE:%d" % i for i in range(3, 5)]  # the table by its name
    assert d["ruleset"] == "tfmj-2"
