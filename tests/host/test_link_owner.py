"""One owner of the table's link (issue 43): `mjtable serve` or `mjtable live`
holds the table's port, and live, monitor, logs pull, info, rules push and
the event room's match start all work at the same time through it, called as
always. Against the firmware's host commands on the MicroPython unix port
(tools/hostlink_peer.py) and the full controller (`mjtable virtual-table`),
each behind a real pseudo-terminal. No timing is asserted."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time

import bench_live as live_bench
import pytest
from bench_live import start_live, stop
from mjcall import call
from test_event_setup import _file
from test_live_broadcast import collect, ws
from test_virtual_table_e2e import VirtualTable

KEY = bytes(range(9, 41))
EXE = live_bench.EXE


@pytest.fixture
def run_dir(env, monkeypatch):
    """The owners' sockets for this test alone (short: a Unix socket's path is)."""
    d = tempfile.mkdtemp(prefix="mjrun")
    monkeypatch.setenv("MJTABLE_RUN_DIR", d)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def start(*argv):
    return subprocess.Popen([EXE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def finish(procs, timeout=300):
    """Each process's (argv, exit code, stdout, stderr), all waited for."""
    out = []
    for p in procs:
        o, e = p.communicate(timeout=timeout)
        out.append((p.args[1:], p.returncode, o, e))
    return out


def all_ok(results):
    for argv, code, out, err in results:
        assert code == 0 and "Traceback" not in err, (argv, code, out[-800:], err[-1500:])


def event(env, capsys, hands=1):
    """Event t1 (4 players, round 1 drawn) whose matches are `hands` hands of xuezhan."""
    rules = env / "xz1.toml"
    rules.write_text('base = "xuezhan"\nname = "xz-%d"\nhands = %d\n' % (hands, hands))
    assert call(capsys, "event", "create", _file(env, 4, ruleset='"%s"' % rules, rounds="1",
                                                 hands_per_match=str(hands)))[0] == 0
    assert call(capsys, "event", "draw", "--round", "1")[0] == 0
    return str(rules)


def test_every_command_at_once_through_serve(env, run_dir, capsys):
    peer = live_bench.Peer(env / "flash.img", pace=30, seed=4, key=KEY)
    owner = start("serve", "--port", peer.path)
    try:
        assert owner.stdout.readline().startswith("serve: %s owned" % peer.path)
        # a second owner is refused: the port has one (exit 5: another program has it)
        r = subprocess.run([EXE, "serve", "--port", peer.path], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 5 and "owned already" in r.stderr, r
        live, urls = start_live("--table", peer.path, "--referee", "127.0.0.1:0")
        try:
            arch = str(env / "archive.sqlite")
            procs = [start("monitor", "--hands", "1", "--brief", "--port", peer.path),
                     start("info", "--port", peer.path, "--json"),
                     start("logs", "pull", "--port", peer.path, "--archive", arch),
                     start("info", "--port", peer.path),
                     start("rules", "push", "chengdu", "--port", peer.path, "--wait", "120")]
            snaps = collect([ws(urls["referee"], "/ws/table/1")],
                            lambda s: s[0] and s[0][-1].get("over") and s[0][-1]["link"] == "ok",
                            limit=120)[0]
            results = finish(procs)
        finally:
            stop(live)
        all_ok(results)
        assert json.loads(results[1][2])["table_id"] == b"LIVETEST".hex()
        assert "=== hand over" in results[0][2]  # the monitor followed a whole hand
        assert "chengdu" in results[4][2]
        assert snaps[-1]["over"] and snaps[-1]["name"] == "LIVETEST"  # live read it all along
    finally:
        owner.terminate()
        owner.wait(timeout=30)
        peer.close()
    assert not os.listdir(run_dir) or all(n.endswith(".lock") for n in os.listdir(run_dir))


def test_a_port_held_alone_is_in_use_even_for_its_owner_until_let_go(env, run_dir, capsys):
    """The port's lock (issue 41) under the owner (issue 43): a monitor that
    opened the port alone, before any owner, keeps it; a `serve` started then
    waits for it, and a command meanwhile is told at once that the port is in
    use (exit 5, one line), not that the table is offline; once the monitor
    lets go, the owner takes the port and the same command goes through it."""
    peer = live_bench.Peer(env / "flash.img", pace=30, seed=4, key=KEY)
    mon = start("monitor", "--port", peer.path)
    owner = None
    try:
        assert mon.stdout.readline().startswith("watching table"), mon.stderr.read()
        owner = start("serve", "--port", peer.path)
        assert owner.stdout.readline().startswith("serve: %s owned" % peer.path)
        code, out, err = call(capsys, "info", "--port", peer.path)
        assert code == 5 and err.count("\n") == 1, (code, err)
        assert "in use by another program" in err and "mjtable serve" in err, err
        mon.terminate()
        mon.wait(timeout=30)
        deadline = time.monotonic() + 60
        while True:
            code, out, err = call(capsys, "info", "--port", peer.path)
            if code == 0:
                break
            assert code == 5 and time.monotonic() < deadline, (code, err)
            time.sleep(0.5)
        assert "LIVETEST" in out, out
    finally:
        for p in (mon, owner):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=30)
        peer.close()


def test_every_command_at_once_through_live_against_a_playing_virtual_table(env, run_dir,
                                                                            capsys):
    rules = event(env, capsys)
    vt = VirtualTable("--hands", "1", "--pace", "0")  # no match until the event's starts
    live = None
    try:
        live, urls = start_live("--table", vt.port + "=Final", "--referee", "127.0.0.1:0")
        arch = str(env / "archive.sqlite")
        mon = start("monitor", "--hands", "1", "--brief", "--port", vt.port)
        procs = [start("info", "--port", vt.port),
                 start("logs", "pull", "--port", vt.port, "--archive", arch),
                 start("rules", "push", rules, "--port", vt.port, "--wait", "240"),
                 start("match", "start", "--event", "t1", "--round", "1", "--table", "1",
                       "--port", vt.port, "--archive", arch)]
        # the commands first: a match start that failed (two pushes at once
        # restarting each other's staging) would leave the monitor waiting
        results = finish(procs, timeout=300)
        all_ok(results)
        assert "round 1 table 1 of t1 started" in results[3][2]
        # the event's match: its hand played by the bots, followed by the live page
        snaps = collect([ws(urls["referee"], "/ws/table/1")],
                        lambda s: any(x.get("over") and x["actions"] > 10 for x in s[0]),
                        limit=400)[0]
        results = finish([mon], timeout=300)
        all_ok(results)
        assert "=== hand over" in results[0][2]
        assert any(x.get("over") and x["link"] == "ok" for x in snaps)
        # and afterwards, with live still the owner: the hand is pulled into the event
        code, out, err = call(capsys, "logs", "pull", "--port", vt.port, "--archive", arch)
        assert code == 0 and "seal valid" in out, out + err
        code, out, err = call(capsys, "event", "standings", "--json", "-")
        assert code == 0, err
        hands = [p["rounds"]["1"]["hands"] for p in json.loads(out)["standings"]]
        assert hands == [1, 1, 1, 1]
    finally:
        if live is not None:
            stop(live)
        assert vt.close() == 0


@contextlib.contextmanager
def two_clients(port):
    """An owner of `port` in this process and two keyed clients of it, each
    with its HELLO answered: (a, b)."""
    from mjtable.link import client as L
    from mjtable.link import owner

    o = owner.serve(port, 2.0)
    links = []
    try:
        for _ in range(2):
            links.append(L.Link(owner.open_stream(port), key=KEY, timeout=5))
            links[-1].hello()
        yield links[0], links[1]
    finally:
        for link in links:
            link.stream.close()
        o.stop()
        o.join(10)


def test_a_signed_request_behind_another_clients_numbers_is_sent_again_above_them(env,
                                                                                   run_dir):
    """Two keyed clients of one owner, each numbering its requests from 1: the
    second one's signed requests come below the first one's numbers and the
    owner refuses them (E_REPLAY, with the number to go above); the client
    sends them again, so both succeed."""
    from mjtable.link import protocol as P

    peer = live_bench.Peer(env / "flash.img", pace=30, seed=6, key=KEY)
    try:
        with two_clients(peer.path) as (a, b):
            assert a.relayed and b.relayed and a.nonce == b.nonce
            for _ in range(20):
                a.info()  # a's numbers run ahead
            t0 = int(time.time())
            b.request(P.CMD_CLOCK, t0.to_bytes(4, "little"), auth=True)  # sent twice, taken once
            assert b.seq > a.seq
            a.request(P.CMD_CLOCK, t0.to_bytes(4, "little"), auth=True)
            assert a.info()["clock_set"] == "1"
    finally:
        peer.close()


def test_two_pushes_at_once_through_one_owner_both_take(env, run_dir):
    """The table stages one object at a time for its one session (a PUT at
    offset 0 starts afresh): a's PUT..COMMIT holds it at the owner, b's push
    meanwhile waits for a's COMMIT, and both are taken, b's last. Before,
    b's PUT restarted a's staging and a's COMMIT was refused (E_STATE): the
    event room's `match start` lost its match to a `rules push`."""
    import threading

    from mjtable.link import client as L
    from mjtable.link import protocol as P
    from mjtable.tableops import rules as tablerules
    from sichuan import presets

    vt = VirtualTable("--pace", "0")  # no match under way: a push is taken at once
    try:
        with two_clients(vt.port) as (a, b):
            x, y = presets.get("chengdu"), presets.get("xuezhan")
            failed = []

            def push_b():
                try:
                    b.put_object(P.OBJ_RULES, 0, y.to_blob())
                except L.LinkError as e:
                    failed.append(("b", e))

            pusher = threading.Thread(target=push_b)
            request = a.request

            def a_request(code, payload=b"", **kw):
                if code == P.CMD_COMMIT:  # a's bytes all staged: b pushes now
                    pusher.start()
                    time.sleep(1.0)  # b's PUT reaches the owner (and, before, the table)
                return request(code, payload, **kw)

            a.request = a_request
            try:
                a.put_object(P.OBJ_RULES, 0, x.to_blob())
            except L.LinkError as e:
                failed.append(("a", e))
            pusher.join(60)
            assert not pusher.is_alive() and not failed, failed
            assert tablerules.pull(a)[0].crc() == y.crc()  # b's, committed after a's
    finally:
        assert vt.close() == 0


def _lines(proc):
    """A queue the process's stdout lines go to, as they come."""
    import queue
    import threading

    q = queue.Queue()
    threading.Thread(target=lambda: [q.put(line) for line in proc.stdout], daemon=True).start()
    return q


def _until(q, word, secs=120):
    """The lines read up to and with the first holding `word`."""
    import queue

    seen = []
    deadline = time.monotonic() + secs
    while True:
        try:
            seen.append(q.get(timeout=max(0.1, deadline - time.monotonic())))
        except queue.Empty:
            raise AssertionError("no %r in %s" % (word, seen)) from None
        if word in seen[-1]:
            return seen


def test_a_monitor_says_when_no_match_is_under_way(env, run_dir, capsys):
    """A monitor waiting for hands no match will play says so: at the start,
    with no match under way, and when the match it followed is over before
    its --hands (before, it waited silently for ever)."""
    vt = VirtualTable("--hands", "1", "--pace", "0")  # no match until one is started
    owner = start("serve", "--port", vt.port)
    mon = None
    try:
        assert owner.stdout.readline().startswith("serve: %s owned" % vt.port)
        mon = start("monitor", "--hands", "2", "--brief", "--port", vt.port)
        q = _lines(mon)
        _until(q, "no match under way at the table: waiting for one to start")
        code, out, err = call(capsys, "match", "start", "--port", vt.port)
        assert code == 0, err
        seen = _until(q, "=== hand over")  # the match's one hand
        seen += _until(q, "match over: no match under way")
        assert not any("no match under way at the table" in line for line in seen), seen
        assert mon.poll() is None  # its second hand is the next match's
    finally:
        for p in (mon, owner):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=30)
        assert vt.close() == 0
