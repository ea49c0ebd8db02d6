"""Fuzzed requests to the table's host commands (table/hostcmds.py behind the
firmware link, in-process on CPython): whatever the payload, no handler fails
(E_INTERNAL), nothing changes without the key's MAC, and the link answers on."""

import os
import shutil
import struct
import tempfile
import zlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mjtable.link import client as H
from sichuan import presets
from table import frame as F
from table import hostcmds as HC
from table.link import Link
from table.logstore import LogStore

KEY = bytes(range(90, 122))
CODES = [F.CMD_INFO, F.CMD_GET, F.CMD_PUT, F.CMD_COMMIT, F.CMD_STAT, HC.CMD_LOGS, HC.CMD_ACK,
         HC.CMD_CLOCK, HC.CMD_MATCH, HC.CMD_WATCH, HC.CMD_TAG]


class Table:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="mjfuzz")
        self.logs = LogStore(self.dir + "/logs")
        log = self.logs.new_log()
        log.append(HC.T_HEAD, b"x" * 14)
        log.append(HC.T_ACT, b"\x00\x03\x04")
        self.head = log.head()
        log.close()
        self.inq = bytearray()
        self.out = bytearray()
        self.link = Link(self._read, self._write, key=KEY, table_id=b"FUZZHOST")
        self.matches = []
        self.host = HC.install(self.link, self.logs, root=self.dir,
                               on_match=lambda op, a: self.matches.append(op),
                               last_tag=lambda: (1, b"\x01" * 8), table_id=b"FUZZHOST")
        self.seq = 0
        self.ask(F.CMD_HELLO, b"\x01")

    def close(self):
        self.host.log_files.close()
        shutil.rmtree(self.dir)

    def _read(self, mv):
        n = min(len(mv), len(self.inq))
        mv[:n] = self.inq[:n]
        del self.inq[:n]
        return n

    def _write(self, mv):
        self.out += mv
        return len(mv)

    def ask(self, code, payload, key=None):
        self.seq += 1
        self.inq += H.frame(code, self.seq, payload, key, self.link.nonce)
        for _ in range(100):
            if not self.link.poll() and not self.inq and self.link.idle():
                break
        frames = [H.parse(H.unstuff(f)) for f in bytes(self.out).split(b"\x00") if f]
        self.out.clear()
        return [p for c, s, p in frames if c == code | F.REPLY]

    def state(self):
        return (self.host.rules_obj.data, self.host.enroll_obj.data, self.logs.list(),
                self.host.clock.set_at, tuple(self.matches))


@settings(max_examples=3000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(CODES), st.binary(max_size=300), st.booleans())
def test_fuzzed_payloads_never_crash_and_change_nothing_without_the_key(code, payload, signed):
    t = Table()
    try:
        before = t.state()
        # unsigned, or signed with a wrong key: refused or read-only
        replies = t.ask(code, payload, b"\x05" * 32 if signed else None)
        assert replies and replies[0][0] != F.E_INTERNAL
        assert t.state() == before
        # signed with the key: may act, never crashes
        replies = t.ask(code, payload, KEY)
        assert replies and replies[0][0] != F.E_INTERNAL
        assert t.ask(F.CMD_ECHO, b"alive") == [b"\x00alive"]
    finally:
        t.close()


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=200), st.integers(0, 250))
def test_fuzzed_ruleset_blobs_never_replace_the_active_one_unless_valid(junk, at):
    t = Table()
    try:
        blob = bytearray(presets.get("chengdu").to_blob())
        blob[at % len(blob) : at % len(blob) + len(junk)] = junk
        blob = bytes(blob)
        head = struct.pack("<BHII", F.OBJ_RULES, 0, len(blob), 0)
        t.ask(F.CMD_PUT, head + blob, KEY)
        r = t.ask(F.CMD_COMMIT, struct.pack("<BHII", F.OBJ_RULES, 0, len(blob),
                                            zlib.crc32(blob)), KEY)
        assert r[0][0] in (F.OK, F.E_CHECK, F.E_ARG, F.E_LEN)
        if r[0][0] == F.OK:
            assert t.host.rules.to_blob() == blob
        else:
            assert t.host.rules == presets.get("xuezhan")
            assert not os.path.exists(t.dir + "/ruleset.bin")
    finally:
        t.close()
