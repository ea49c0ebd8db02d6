"""End to end: the firmware's host commands on the MicroPython unix port
(tools/hostlink_peer.py: table.link + table.hostcmds on a LittleFS volume,
bots playing logged hands) behind a real pseudo-terminal, and `mjtable` on
pyserial. No timing is asserted."""

import os
import shutil
import sqlite3
import struct
import subprocess
import tty

import pytest
import serial
from mjcall import call
from mjtable.link import client as H
from mjtable.link import protocol as P
from mjtable.logs import logfmt
from mjtable.tableops import logs as logscmd
from sichuan import presets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MICROPYTHON = os.path.join(ROOT, ".venv", "bin", "micropython")
PEER = os.path.join(ROOT, "tools", "hostlink_peer.py")
KEY = bytes(range(7, 39))
HANDS = 3


class Table:
    def __init__(self, tmp, hands=HANDS, key=KEY, extra=(), fresh=True):
        master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        os.set_blocking(master, False)
        cmd = [MICROPYTHON, PEER, "--fd", str(master), "--flash", str(tmp / "flash.img"),
               *(["--fresh"] if fresh else []), "--hands", str(hands), "--id", "E2ETABLE",
               *extra]
        if key:
            cmd += ["--key", key.hex()]
        self.proc = subprocess.Popen(cmd, pass_fds=(master,), stdout=subprocess.PIPE)
        os.close(master)
        self.slave = slave
        assert self.proc.stdout.readline() == b"hostlink_peer: ready\n"

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.slave)


@pytest.fixture
def table(env):
    t = Table(env)
    yield t
    t.close()


def session(t, key=KEY):
    ser = serial.Serial(t.path, 115200, timeout=1, write_timeout=5)
    link = H.Link(ser, key=key, timeout=10)
    link.hello()
    return link


def test_push_pull_rescore_export(table, env, capsys):
    code, out, _ = call(capsys, "info", "--port", table.path)
    assert code == 0 and "logs waiting  %d" % HANDS in out and "xuezhan" in out
    code, out, _ = call(capsys, "rules", "push", "chengdu", "--port", table.path)
    assert code == 0 and "chengdu active" in out
    code, out, _ = call(capsys, "info", "--port", table.path, "--json")
    assert '"rules_crc": "%08x"' % presets.get("chengdu").crc() in out
    code, out, _ = call(capsys, "rules", "pull", "--port", table.path, "-o", str(env / "r.bin"))
    assert code == 0 and (env / "r.bin").read_bytes() == presets.get("chengdu").to_blob()
    assert call(capsys, "rules", "show", "xuezhan")[0] == 0  # the group still works
    code, out, _ = call(capsys, "logs", "list", "--port", table.path)
    assert "%d log(s) waiting" % HANDS in out
    code, out, _ = call(capsys, "logs", "pull", "--port", table.path)
    assert code == 0 and out.count("seal valid, archived as hand") == HANDS
    assert "%d acknowledged" % HANDS in out
    code, out, _ = call(capsys, "logs", "list", "--port", table.path)
    assert "0 log(s) waiting" in out
    code, out, _ = call(capsys, "logs", "pull", "--port", table.path)  # nothing new, no error
    assert code == 0 and "0 log(s) pulled" in out
    code, out, _ = call(capsys, "rescore")
    assert code == 0 and "%d hand(s) rescored, 0 differ" % HANDS in out
    code, out, _ = call(capsys, "replay", "1")
    assert code == 0 and " deal " in out and "discards" in out and "end: East" in out
    code, out, _ = call(capsys, "export", "--csv", str(env / "s.csv"), "--html",
                       str(env / "s.html"))
    assert code == 0
    rows = (env / "s.csv").read_text().splitlines()
    assert len(rows) == HANDS + 1 and all(r.endswith(",yes") for r in rows[1:])
    page = (env / "s.html").read_text()
    assert "Standings" in page and "<script" not in page and "http" not in page
    # an archive combined with a copy of itself counts each hand once
    copy = env / "copy.sqlite"
    copy.write_bytes((env / "archive.sqlite").read_bytes())
    code, out, _ = call(capsys, "export", "--archive", str(env / "archive.sqlite"),
                       "--archive", str(copy), "--csv", str(env / "c.csv"))
    assert "%d hand(s) from 1 table(s)" % HANDS in out


def test_rescore_flags_a_hand_the_table_scored_differently(table, env, capsys):
    call(capsys, "logs", "pull", "--port", table.path)
    # a table with a scoring bug: its end record says something else. Rebuild
    # the log (valid chain, as a buggy table would write it) and archive it.
    db = sqlite3.connect(env / "archive.sqlite")
    data, = db.execute("SELECT data FROM logs WHERE id=1").fetchone()
    log = logfmt.parse(data)
    recs = [(t, p if t != logfmt.T_END else struct.pack("<4h", 9, -9, 0, 0))
            for t, p in log.records if t != logfmt.T_SEAL]
    db.execute("UPDATE logs SET data=? WHERE id=1", (build_log(log.log_id, recs),))
    db.commit()
    code, out, _ = call(capsys, "rescore")
    assert code == 1 and "hand 1: DIFFERS: points: table recorded [9, -9, 0, 0]" in out
    assert "1 differ" in out


def build_log(log_id, records):
    """A log file as the firmware writes it (docs/storage.md, format 1), for tamper tests."""
    import forger

    return forger.write(log_id, records, magic=b"MJL1")


class Cutting:
    """A serial port whose cable is pulled after `limit` bytes were read."""

    def __init__(self, ser, limit):
        self.ser = ser
        self.left = limit

    @property
    def in_waiting(self):
        return self.ser.in_waiting

    def reset_input_buffer(self):
        self.ser.reset_input_buffer()

    def write(self, b):
        return self.ser.write(b)

    def read(self, n):
        if self.left <= 0:
            raise serial.SerialException("cable pulled")
        data = self.ser.read(min(n, self.left))
        self.left -= len(data)
        return data


def test_a_cut_pull_resumes_and_yields_identical_logs(env, capsys):
    t = Table(env, hands=2, extra=("--seed", "9"))
    try:
        link = session(t)
        logs = logscmd.table_logs(link)
        whole = {lid: logscmd.fetch_log(link, lid) for lid, _ in logs}
        big = max(whole, key=lambda i: len(whole[i]))
        assert len(whole[big]) > 3 * 1015  # several chunks, so a cut lands inside
        from mjtable import archive

        ar = archive.open_archive(str(env / "archive.sqlite"))
        cut = H.Link(Cutting(link.stream, 1500), key=KEY, timeout=10)
        cut.hello()  # the HELLO reply is small
        with pytest.raises(serial.SerialException):
            logscmd.pull_object(cut, P.OBJ_LOG, big, b"", None,
                                lambda tot, crc, d: ar.save_partial(link.table_id.hex(), big,
                                                                   tot, crc, d))
        kept = ar.partial(link.table_id.hex(), big)
        assert 0 < len(kept) < len(whole[big]) and whole[big].startswith(logscmd.unwhiten(kept))
        ar.close()
        link.stream.close()
        code, out, _ = call(capsys, "logs", "pull", "--port", t.path)
        assert code == 0 and "log %d: resumed at byte %d" % (big, len(kept)) in out
        db = sqlite3.connect(env / "archive.sqlite")
        got = dict(db.execute("SELECT log_id, data FROM logs").fetchall())
        assert got == whole
        assert db.execute("SELECT count(*) FROM partial").fetchone()[0] == 0
    finally:
        t.close()


def test_a_stale_longer_partial_copy_is_dropped_not_resumed(env, capsys):
    # a partial copy of an older, longer log under the same id (a re-formatted
    # table restarts its ids): resuming past the end is E_ARG; start over
    t = Table(env, hands=2)
    try:
        link = session(t)
        lid, size = logscmd.table_logs(link)[0]
        link.stream.close()
        from mjtable import archive

        ar = archive.open_archive(str(env / "archive.sqlite"))
        ar.save_partial(link.table_id.hex(), lid, size + 5000, 1234, b"\x11" * (size + 2000))
        ar.close()
        code, out, err = call(capsys, "logs", "pull", "--port", t.path)
        assert code == 0, err
        assert "2 log(s) pulled" in out and "resumed" not in out
    finally:
        t.close()


def test_unauthenticated_changes_are_refused(table, env, capsys):
    before = session(table).info()
    os.remove(env / "key")
    code, _, err = call(capsys, "rules", "push", "chengdu", "--port", table.path)
    assert code == 2 and "needs the table key" in err
    code, _, err = call(capsys, "rules", "push", "chengdu", "--port", table.path,
                       "--key", "ab" * 32)
    assert code == 2 and "the key is wrong" in err
    code, _, err = call(capsys, "clock", "set", "--port", table.path, "--key", "ab" * 32)
    assert code == 2
    # straight on the wire: PUT, COMMIT and ACK without a MAC or with a forged one
    link = session(table, key=None)
    blob = presets.get("chengdu").to_blob()
    for key in (None, b"\x01" * 32):
        link.key = key
        for code_, payload in ((P.CMD_PUT, struct.pack("<BHII", 1, 0, len(blob), 0) + blob),
                               (0x21, struct.pack("<I", 1) + b"\x00" * 8),
                               (0x22, struct.pack("<I", 5)), (0x23, b"\x01")):
            with pytest.raises(H.LinkError) as e:
                link.request(code_, payload, auth=key is not None)
            assert e.value.status == 6  # E_AUTH
    code, out, _ = call(capsys, "logs", "pull", "--port", table.path)  # no key: no ack
    assert "seal unchecked" in out and "0 acknowledged" in out
    after = session(table).info()
    for k in ("rules", "rules_crc", "logs", "clock_set"):
        assert after[k] == before[k]


def test_an_unplayable_variant_is_refused_with_its_reason(table, env, capsys):
    from mjtable import BadInput
    from mjtable.rules import rulefile
    from mjtable.tableops import rules as tablerules

    # what a 4-seat table cannot run (断卡根 for five): the host says so before sending
    (env / "five.toml").write_text('base = "duankagen"\nname = "five"\nplayers = 5\n')
    code, _, err = call(capsys, "rules", "push", str(env / "five.toml"), "--port", table.path)
    assert code == 2 and "players = 5 but the table has 4 seats" in err
    # sent all the same (a host that does not check): the table refuses it in the same words
    with pytest.raises(BadInput, match="refused by the table: ruleset: players = 5 but the table"):
        tablerules.push(session(table), rulefile.load(str(env / "five.toml")), 5)
    assert session(table).info()["rules"] == "xuezhan"


def test_edited_dropped_reordered_or_forged_logs_are_detected(table, env):
    link = session(table)
    lid = logscmd.table_logs(link)[0][0]
    data = logscmd.fetch_log(link, lid)
    log, seal = logscmd.verify(data, link.table_id, KEY)
    assert seal == "valid" and len(log.records) > 20
    # one byte edited anywhere after the file header: always detected
    for i in range(12, len(data), 7):
        bad = bytearray(data)
        bad[i] ^= 0x20
        with pytest.raises(logfmt.LogDamaged):
            logfmt.parse(bytes(bad))
    offs = [12]
    for _t, p in log.records:
        offs.append(offs[-1] + 18 + len(p))
    rec = [data[offs[i] : offs[i + 1]] for i in range(len(log.records))]
    dropped = data[:12] + b"".join(rec[:5] + rec[6:])
    with pytest.raises(logfmt.LogDamaged, match="record 5"):
        logfmt.parse(dropped)
    swapped = data[:12] + b"".join(rec[:7] + [rec[8], rec[7]] + rec[9:])
    with pytest.raises(logfmt.LogDamaged, match="record 7"):
        logfmt.parse(swapped)
    # a rewrite with a recomputed chain (anyone can do that) fails the seal
    recs = list(log.records)
    t0, p0 = recs[3]
    recs[3] = (t0, bytes([p0[0] ^ 1]) + p0[1:])
    forged = build_log(lid, recs)
    again, seal = logscmd.verify(forged, link.table_id, KEY)
    assert seal == "FORGED"
    assert logscmd.verify(data, b"OTHERTBL", KEY)[1] == "FORGED"  # another table's log


def test_ack_only_with_the_head_of_the_log(table, env):
    link = session(table)
    lid = logscmd.table_logs(link)[0][0]
    data = logscmd.fetch_log(link, lid)
    head = logfmt.parse(data).head
    with pytest.raises(H.LinkError) as e:
        link.request(0x21, struct.pack("<I", lid) + bytes(8), auth=True)
    assert e.value.status == 15
    assert [i for i, _ in logscmd.table_logs(link)][0] == lid
    link.request(0x21, struct.pack("<I", lid) + head, auth=True)
    assert lid not in [i for i, _ in logscmd.table_logs(link)]


def test_deploy_dry_run_lists_the_board_files(env, capsys):
    from mjtable.firmware import deploy as D

    build = env / "fw"
    code, out, _ = call(capsys, "deploy", "--dry-run", "--no-board", "--build", str(build))
    assert code == 0
    listed = {line.split()[2] for line in out.splitlines() if line.startswith("would copy")}
    src = os.path.join(ROOT, "firmware")
    # firmware/ holds the board's modules and main.py; besides them only the
    # manifest naming them and the notation the host alone imports
    not_shipped = {"manifest.py", "sichuan/tiles.py"}
    want = set()
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, name), src)
                if rel in not_shipped:
                    continue
                want.add(rel if rel in ("main.py", "boot.py") else rel[:-3] + ".mpy")
    assert listed == want
    assert "table/hostcmds.mpy" in listed and "boards/pico.mpy" in listed
    # against a board that holds some of it: only what is new or changed
    local = D.manifest(str(build))
    remote = dict(local)
    remote["table/link.mpy"] = "0" * 64
    remote["table/xfer.mpy"] = None
    remote.pop("sichuan/fan.mpy")
    todo = dict(D.plan(local, remote))
    assert set(todo) == {"table/link.mpy", "table/xfer.mpy", "sichuan/fan.mpy"}
    assert todo["table/link.mpy"].startswith("changed") and todo["table/xfer.mpy"] == (
        "new on the board")


def test_deploy_puts_the_packages_in_romfs_when_the_board_has_it(env, capsys, monkeypatch):
    import argparse

    from mjtable import BadInput
    from mjtable.commands import deploy as deploycmd
    from mjtable.firmware import deploy as D

    # what `mpremote romfs query` prints (mpremote/commands.py)
    assert D.rom_size("ROMFS is not enabled on this device\n") == 0
    assert D.rom_size("No ROMFS partitions available\n") == 0
    assert D.rom_size("ROMFS0 partition has size 262144 bytes (64 blocks of 4096 bytes"
                              " each)\n  Raw contents: ff:ff ...\n") == 262144
    build = env / "fw"
    local = D.build(os.path.join(ROOT, "firmware"), str(build))
    # a board that holds main.py as built and, from a file deploy, one package file
    board = {"main.py": local["main.py"], "sichuan/fan.mpy": "0" * 64}
    monkeypatch.setattr(D, "remote_hashes",
                        lambda port, paths: {p: board.get(p) for p in paths})
    args = argparse.Namespace(src=os.path.join(ROOT, "firmware"), build=str(build), port="X",
                              no_board=False, dry_run=True, files=False, link_port=None)
    assert deploycmd.deploy(args, query=lambda port: 256 * 1024) == 0
    out = capsys.readouterr().out
    n = len(local) - 1
    assert "would write ROMFS image: %d files" % n in out
    assert "would remove sichuan/fan.mpy" in out  # it would run instead of the image
    assert "would copy" not in out  # main.py is already there
    assert os.path.getsize(str(build) + "-rom.romfs") < 256 * 1024
    # a partition too small for the image: refused, nothing written
    with pytest.raises(BadInput, match="deploy with --files"):
        deploycmd.deploy(args, query=lambda port: 4096)
    # no ROMFS, or --files: every file to the filesystem, as before
    args.files = True
    assert deploycmd.deploy(args, query=lambda port: 256 * 1024) == 0
    out = capsys.readouterr().out
    assert "ROMFS image" not in out and "would copy sichuan/fan.mpy" in out
    assert "the code loads into RAM" in out


def test_monitor_shows_the_live_hand(env, capsys):
    t = Table(env, hands=0, extra=("--bots", "--pace", "1"))
    try:
        code, out, _ = call(capsys, "monitor", "--port", t.path, "--hands", "1", "--timeout", "10")
        assert code == 0
        assert "=== new hand: xuezhan" in out and "=== hand over:" in out
        assert " discard " in out and "melds [" in out
    finally:
        t.close()


def test_enroll_builds_a_full_map_and_refuses_duplicates(table, env, capsys):
    code, out, _ = call(capsys, "enroll", "--port", table.path, "--check")
    assert code == 1 and "0 of 108 tiles enrolled" in out
    code, out, _ = call(capsys, "enroll", "--port", table.path, "--yes")
    assert code == 0 and "108 of 108 tiles enrolled" in out and "map sent" in out
    code, out, _ = call(capsys, "enroll", "--port", table.path, "--check")
    assert code == 0 and "108 of 108" in out
    # the simulated antenna repeats its tags after 108: re-enrolling tile 0 gets
    # the tag of tile 0 (its own: accepted), then tile 1 the tag of tile 1
    link = session(table)
    m = bytearray(link.get_object(P.OBJ_ENROLL, 0))
    m[8:16] = m[0:8]
    with pytest.raises(H.LinkError) as e:
        link.put_object(P.OBJ_ENROLL, 0, bytes(m))
    assert e.value.status == 15 and "UID already used" in link.info()["refused"]


def test_key_set_only_with_the_button_then_changes_need_it(env, capsys):
    os.remove(env / "key")
    plain = Table(env, hands=0, key=None)
    try:
        code, _, err = call(capsys, "key", "set", "--new", "--port", plain.path)
        assert code == 2 and "key button was not held" in err
    finally:
        plain.close()
    t = Table(env, hands=1, key=None, extra=("--button",))
    try:
        code, out, _ = call(capsys, "key", "set", "--new", "--port", t.path)
        assert code == 0 and "key set" in out and (env / "key").exists()
        code, out, _ = call(capsys, "info", "--port", t.path)
        assert "key           set" in out
        code, out, _ = call(capsys, "rules", "push", "xueliu", "--port", t.path)
        assert code == 0
        # a hand the table played before it had a key is unsealed: archived,
        # and kept on the table until taken on purpose (not a hand in play:
        # the table says none is)
        code, out, _ = call(capsys, "logs", "pull", "--port", t.path, "--all")
        assert code == 1 and "seal unsealed" in out and "kept on the table" in out
        assert "in play" not in out
        assert "0 acknowledged" in out
        code, out, _ = call(capsys, "logs", "pull", "--port", t.path, "--all",
                            "--accept", "1", "--by", "裁判")
        assert code == 0 and "1 acknowledged" in out and "accepted by name (by 裁判)" in out
    finally:
        t.close()


def test_deploy_checks_the_version_on_the_repl_port_when_no_usb_id_finds_the_link(monkeypatch):
    """A board whose link shares the REPL's CDC (no usb-device-cdc) and that no USB
    id finds (the emulated Pico's pty): the version check asks --port. It asked
    only the port found by USB id and ended 'the board did not answer on the
    link after the reset'."""
    import argparse

    from mjtable import BadInput
    from mjtable.commands import deploy as deploycmd
    from mjtable.firmware import check
    from mjtable.link import client as L
    from mjtable.link import port as findport

    asked = []

    class Answering:
        class stream:
            def close():
                pass

        def info(self):
            return {"fw": "9.9"}

    def connect(a):
        asked.append(a.port)
        if a.port != "/dev/pts/9":
            raise BadInput("no table found")
        return Answering()

    monkeypatch.setattr(L, "find_table_ports", lambda: [])
    monkeypatch.setattr(findport, "connect", connect)
    monkeypatch.setattr(check.time, "sleep", lambda s: None)
    monkeypatch.setattr(check.time, "monotonic", iter(range(0, 1000, 5)).__next__)
    args = argparse.Namespace(port="/dev/pts/9", link_port=None)
    deploycmd.check_version(args, "9.9")
    assert asked == ["/dev/pts/9"]
    # --link-port still wins; a table found by USB id is asked by connect itself
    assert deploycmd.link_port(argparse.Namespace(port="A", link_port="B")) == "B"
    monkeypatch.setattr(L, "find_table_ports", lambda: ["/dev/ttyACM1"])
    assert deploycmd.link_port(argparse.Namespace(port="A", link_port=None)) is None


_DELETE = """
import os, sys
sys.path.insert(0, %r)
sys.path.insert(0, %r)
from mjsim import blockdev
blockdev.mount(%r, "/flash")
os.remove("/flash/logs/h%d.log")
"""


def test_a_log_deleted_before_the_host_took_it_is_a_gap_and_the_match_incomplete(env, capsys):
    # issue 21: each log names the one before it (id, final head) under the seal
    Table(env).close()
    # someone at the REPL deletes hand 2's log from the flash, then the table restarts
    subprocess.run([MICROPYTHON, "-c", _DELETE % (os.path.join(ROOT, "firmware"),
                                                  os.path.join(ROOT, "sim"),
                                                  str(env / "flash.img"), 2)], check=True)
    t = Table(env, hands=1, fresh=False)
    try:
        code, out, _ = call(capsys, "logs", "pull", "--port", t.path)
        assert code == 1 and "3 log(s) pulled" in out, out
        assert "GAP: log 2, which log 3 follows, is neither on the table nor in this" in out
        assert "1 chain problem(s)" in out
        code, out, _ = call(capsys, "logs", "pull", "--port", t.path)  # nothing new: no gap
        assert code == 0 and "chain" not in out
        code, out, _ = call(capsys, "export", "--csv", str(env / "s.csv"), "--html",
                            str(env / "s.html"))
        assert code == 0 and "INCOMPLETE: table E2ETABLE: log 2 is missing (log 3 follows it)" \
            in out, out
        rows = (env / "s.csv").read_text().splitlines()
        assert [r.split(",")[-2] for r in rows[1:]] == ["ok", "log 2 missing before it", "ok"]
        assert "INCOMPLETE" in (env / "s.html").read_text()
    finally:
        t.close()


def test_monitor_started_mid_hand_catches_up_and_names_tiles_and_wins(env, capsys):
    # issue 21: the monitor showed nothing until the next hand began, and no
    # tile of a claim (alerts by name: test_monitor_alerts_by_name)
    import re
    import time

    t = Table(env, hands=0, extra=("--bots", "--pace", "25"))
    try:
        link = session(t)
        deadline = time.monotonic() + 60
        while not (link.info()["hand"] == "1" and dict(logscmd.table_logs(link))[1] > 600):
            assert time.monotonic() < deadline, "no hand in play"
            time.sleep(0.1)
        link.stream.close()
        code, out, _ = call(capsys, "monitor", "--port", t.path, "--hands", "1", "--brief")
        assert code == 0
        assert "=== hand in play (log 1): caught up from its log" in out, out[:300]
        hand = out.split("caught up from its log", 1)[1].split("=== hand over: ", 1)
        assert len(hand) == 2, out[-300:]
        acts = [x for x in hand[0].splitlines()[1:] if x and not x.startswith(("  ", "==="))]
        code, _, _ = call(capsys, "logs", "pull", "--port", t.path, "--no-ack")
        code, rep, _ = call(capsys, "replay", "E2ETABLE".encode().hex() + ":1", "--brief")
        assert code == 0
        logged = [x for x in rep.splitlines() if re.match(r"^ *\d+  ", x)]
        assert len(acts) == len(logged)  # every action once: none lost, none twice
        end = re.search(r"end: (.*)", rep).group(1)
        assert hand[1].splitlines()[0] == end
        assert re.search(r"\b(peng|zhigang|hu) \d[mps] from (East|South|West|North)"
                         r"|pass on (East|South|West|North)'s \d[mps]", out)
        assert re.search(r"win: \w+ (自摸 \d[mps]|胡 \d[mps] on \w+'s discard), \d+ 番", out)
        # issue 21 item 9: `match end` waits for the hand in play with --wait
        code, out, err = call(capsys, "match", "end", "--port", t.path, "--wait", "60")
        assert code == 0 and "match ended" in out, err
    finally:
        t.close()


def test_monitor_alerts_by_name():
    from mjtable.commands import monitor as monitorcmd

    lines = []
    v = monitorcmd.View(None, lines.append)
    v.record(logfmt.T_ALERT, bytes((1, 7, 4, 0, 0, 0, 0)))  # seat, code, reason, t
    v.record(logfmt.T_ALERT, bytes((2, 3, 0, 0, 0, 0, 0)))
    assert lines == ["  alert: South: claim refused (not a win)", "  alert: West: unknown tag"]


def test_match_says_what_start_and_end_do(capsys):
    code, out, _ = call(capsys, "match", "--help")
    assert code == 0 and "start a new match" in out and "stored ruleset" in out
    assert "--wait" in out


def test_two_deploys_at_once_do_not_share_a_build_folder(env, monkeypatch):
    # two tables flashed at once from one checkout: each deploy rebuilt the
    # same folder, removing the files the other was copying (mpremote: "cp:
    # No such file"). Here a second build of the folder runs while the first
    # deploy copies: every file it copies must still be there.
    import argparse

    from mjtable.commands import deploy as deploycmd
    from mjtable.firmware import deploy as D

    build = str(env / "fw")
    src = os.path.join(ROOT, "firmware")
    seen = {}

    def copy(port, build_dir, todo, image=None, remove=()):
        D.build(src, build)  # the other deploy's build, meanwhile
        seen["missing"] = [p for p, _ in todo if not os.path.isfile(os.path.join(build_dir, p))]
        shutil.rmtree(build)  # ... and its folder gone again before this one ends
        seen["gone"] = [p for p, _ in todo if not os.path.isfile(os.path.join(build_dir, p))]

    monkeypatch.setattr(D, "remote_hashes", lambda port, paths: {p: None for p in paths})
    monkeypatch.setattr(D, "copy", copy)
    monkeypatch.setattr(deploycmd, "check_version", lambda args, v: None)
    args = argparse.Namespace(src=src, build=build, port="X", no_board=False, dry_run=False,
                              files=True, link_port=None)
    assert deploycmd.deploy(args, query=lambda port: 0) == 0
    assert seen["missing"] == [] and seen["gone"] == []
    assert os.path.isfile(os.path.join(build, "app.mpy"))  # the last build is left there
    assert [n for n in os.listdir(env) if n.startswith("fw.")] == []  # and nothing else
