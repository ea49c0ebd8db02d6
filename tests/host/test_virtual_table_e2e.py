"""End to end against the full controller: `mjtable virtual-table --bots`
runs firmware/main.py (scan, keys, displays and the host-link task) on the
MicroPython unix port, its chips simulated by the virtual table whose bots
play, with the host link on a pseudo-terminal. The host tool, on pyserial,
reads INFO, pushes a ruleset, waits for bot hands, pulls the logs into an
archive, rescores them and exports a CSV sheet. No timing is asserted (the
polling loops only bound a wait)."""

import csv
import json
import os
import subprocess
import time

from mjcall import call

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.path.join(ROOT, ".venv", "bin", "mjtable")
KEY = bytes(range(11, 43))


class VirtualTable:
    def __init__(self, *args):
        self.proc = subprocess.Popen([EXE, "virtual-table", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline()
        if not first.startswith("port: /dev/"):
            self.proc.kill()
            raise AssertionError("no port line: %r %s" % (first, self.proc.stderr.read()))
        self.port = first.split(": ", 1)[1].strip()

    def close(self):
        self.proc.terminate()  # SIGTERM: the firmware is told to stop, then it exits
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def info(capsys, port):
    code, out, err = call(capsys, "info", "--port", port, "--json")
    assert code == 0, err
    return json.loads(out)


def _wait(capsys, vt, what, cond, secs=150):
    deadline = time.monotonic() + secs
    while True:
        d = info(capsys, vt.port)
        if cond(d):
            return d
        assert time.monotonic() < deadline, "waited in vain for " + what
        assert vt.proc.poll() is None, vt.proc.stderr.read()
        time.sleep(0.2)


def test_full_controller_with_bots_push_play_pull_rescore_export(env, capsys):
    # 5 hands: the push waits for the hand in play, and the match must still be
    # under way after it (with 3, a fast run had played them all by then)
    vt = VirtualTable("--bots", "--hands", "5", "--gap", "1500", "--pace", "0",
                      "--rules", "xuezhan")
    arch = str(env / "event.sqlite")
    try:
        d = _wait(capsys, vt, "hand 1", lambda d: d["hand"] == 1)
        assert d["proto"] == 1 and d["key"] == 1 and d["rules"] == "xuezhan"
        assert d["play"] == "xuezhan" and d["left"] == 5
        # issue 21: pulls while the hand plays never fail; with --all the hand
        # in play is pulled as what it is, and it has no result yet
        code, out, err = call(capsys, "logs", "pull", "--port", vt.port, "--archive", arch)
        assert code == 0 and ("log 1: hand in play, left" in out or "seal valid" in out), out
        code, out, err = call(capsys, "logs", "pull", "--all", "--port", vt.port,
                              "--archive", arch)
        assert code == 0, out + err
        if "in play when pulled" in out:
            code, out, err = call(capsys, "replay", "1", "--archive", arch, "--brief")
            assert code == 0 and "no result" in out and "end:" not in out, out
        # the push waits for the hand in play; the match under way keeps its
        # rules, which the push says, as info does
        code, out, err = call(capsys, "rules", "push", "chengdu", "--port", vt.port,
                              "--wait", "120")
        assert code == 0 and "chengdu stored" in out, out + err
        assert "from the next match; " in out and " left under xuezhan" in out, out
        d = info(capsys, vt.port)
        assert d["rules"] == "chengdu" and d["play"] == "xuezhan" and 1 <= d["left"] <= 4
        code, out, err = call(capsys, "info", "--port", vt.port)
        assert "in play       xuezhan" in out and "waiting       chengdu" in out, out
        _wait(capsys, vt, "a second hand", lambda d: d["logs"] >= 3)
        code, out, err = call(capsys, "logs", "pull", "--port", vt.port, "--archive", arch)
        assert code == 0, out + err
        assert "seal valid, archived as hand 1" in out and "seal valid, archived as hand 2" in out
        assert "0 refused" in out
        code, out, err = call(capsys, "logs", "list", "--archived", "--archive", arch)
        logs = [line.split()[2] for line in out.splitlines()[1:]]
        assert len(logs) == len(set(logs)) >= 2, out  # each hand is one row
        code, out, err = call(capsys, "rescore", "--archive", arch)
        assert code == 0 and " 0 differ" in out and "same as the table" in out, out + err
        sheet = env / "sheet.csv"
        code, out, err = call(capsys, "export", "--csv", str(sheet), "--archive", arch)
        assert code == 0, err
        rows = list(csv.DictReader(sheet.open()))
        rules = {int(r["log"]): r["rules"] for r in rows}
        assert rules[1] == "xuezhan" and rules[2] == "xuezhan", rows  # the match's rules
        assert all(r["seal"] == "valid" and r["checked"] == "yes" for r in rows)
        for r in rows:  # a hand's points sum to zero
            assert sum(int(r[s]) for s in ("East", "South", "West", "North")) == 0
    finally:
        assert vt.close() == 0


def test_without_bots_the_table_waits_for_the_host_to_start_a_match(env, capsys):
    vt = VirtualTable("--rules", "chengdu", "--hands", "1", "--pace", "0")
    try:
        d = info(capsys, vt.port)
        assert d["rules"] == "chengdu" and d["logs"] == 0
        # no hand in play: a push is taken at once
        code, out, err = call(capsys, "rules", "push", "xueliu", "--port", vt.port, "--wait", "0")
        assert code == 0 and "xueliu active" in out, err
        assert info(capsys, vt.port)["logs"] == 0  # still no match under way
        code, out, err = call(capsys, "match", "start", "--port", vt.port)
        assert code == 0, err
        deadline = time.monotonic() + 60
        while info(capsys, vt.port)["logs"] == 0:  # the bots begin the match's hand
            assert time.monotonic() < deadline, "no hand began"
            time.sleep(0.2)
    finally:
        assert vt.close() == 0


def test_house_patterns_pushed_to_the_table_are_scored_there_and_rescore_agrees(env, capsys):
    """Issue 42: a rule file's own pattern (examples/rules/house/yitiaolong.toml)
    pushed with `rules push` to the full controller, whose bots then play a
    match of it; the logs pulled carry its CRC and its ruleset, and rescoring
    them with the host's core agrees with every payment the table made."""
    ytl = os.path.join(ROOT, "examples", "rules", "house", "yitiaolong.toml")
    # no match under way: the push is taken at once, and the match started plays it
    vt = VirtualTable("--rules", "xuezhan", "--hands", "2", "--pace", "0")
    arch = str(env / "house.sqlite")
    try:
        code, out, err = call(capsys, "rules", "push", ytl, "--port", vt.port, "--wait", "0")
        assert code == 0 and "yitiaolong active" in out, out + err
        code, out, err = call(capsys, "match", "start", "--port", vt.port)
        assert code == 0, err
        d = _wait(capsys, vt, "the match's two hands",
                  lambda d: d["logs"] >= 2 and not d.get("play"), secs=300)
        assert d["rules"] == "yitiaolong"
        code, out, err = call(capsys, "logs", "pull", "--port", vt.port, "--archive", arch)
        assert code == 0 and "2 new" in out and "0 refused" in out, out + err
        code, out, err = call(capsys, "rescore", "--archive", arch)
        assert code == 0 and " 0 differ" in out and "2 hand(s) rescored" in out, out + err
        sheet = env / "house.csv"
        code, out, err = call(capsys, "export", "--csv", str(sheet), "--archive", arch)
        assert code == 0, err
        rows = list(csv.DictReader(sheet.open(encoding="utf-8-sig")))
        assert len(rows) == 2 and all(r["rules"] == "yitiaolong" and r["checked"] == "yes"
                                      for r in rows), rows
        # the ruleset came back with the logs: the archive names it, replay needs no --rules
        code, out, err = call(capsys, "replay", "1", "--archive", arch, "--brief")
        assert code == 0 and "ruleset yitiaolong" in out, out + err
    finally:
        assert vt.close() == 0


def test_the_bots_play_every_match_the_table_starts(env, capsys):
    # no pause between matches: the firmware starts the next one the moment the
    # last ends, before the players have cleared the table (issue 43: the bots
    # stopped after their first match, 3 runs of 3); a hand a match
    vt = VirtualTable("--bots", "--hands", "1", "--gap", "0", "--pace", "0")
    try:
        _wait(capsys, vt, "the second match's hand", lambda d: d["logs"] >= 2, secs=300)
    finally:
        assert vt.close() == 0


def test_a_match_ended_between_two_hands_and_started_again_is_played(env, capsys):
    import serial
    from mjtable.link import client as H
    from mjtable.link import protocol as P

    # the players read the scores for 20 frames before they clear the table: at
    # 5 ms a frame the test's two requests come in that while
    vt = VirtualTable("--hands", "2", "--pace", "5")
    try:
        code, out, err = call(capsys, "match", "start", "--port", vt.port)
        assert code == 0, err
        ser = serial.Serial(vt.port, 115200, timeout=1, write_timeout=5)
        link = H.Link(ser, key=KEY, timeout=10)
        link.hello()
        deadline = time.monotonic() + 240
        while True:  # the first hand over, its tiles still on the table
            d = link.info()
            if d["state"].startswith("2,") and d["logs"] == "1":
                break
            assert time.monotonic() < deadline, "the first hand never ended: %r" % d
            time.sleep(0.05)
        link.request(P.CMD_MATCH, bytes((P.MATCH_END,)), auth=True)
        link.request(P.CMD_MATCH, bytes((P.MATCH_START,)), auth=True)
        ser.close()
        # the players clear the table and the bots play the new match's first hand
        _wait(capsys, vt, "the new match's first hand", lambda d: d["logs"] >= 2, secs=120)
    finally:
        assert vt.close() == 0
