"""One table's link, read in a thread: the records of the hand in play.

The feed opens a session without a key (reading only: HELLO, WATCH, LOGS,
GET, INFO; nothing that changes the table), turns WATCH on, then reads the
newest log on the table (the hand in play, or the last one played) and hands
its records over whole, so a page opened mid-hand has the hand's whole state.
Then every EV_GAME event is one more record.

Events and the log overlap: records appended between WATCH on and the GET
are in both. The table sends events in the order it appends records, so the
events are a run of the log from some record on; the longest tail of the log
that the first events repeat is dropped (`Overlap`). A record lost anyway
(the table's queue of 32 overflowed) makes the replay refuse an action or the
end points differ; the sink then asks for a resync: the log is read again.

The link goes through the process that owns the table's port (link/owner.py:
`mjtable serve`, or this one, which becomes the owner when nothing is), so
every other command can use the table meanwhile.

The table is asked INFO every HEARTBEAT s: no answer is "link lost" (cable
out, table off), and the feed reconnects every RETRY s. A reconnect is
trusted only to the table of the first session: another table's id on the
port (a restarted virtual table's new pty path given to another one) is
refused and said so. An answer with watch=0 after we watched means the
table restarted (it forgot our WATCH): the sink starts a new match, and
the feed resyncs; a `dropped` count that grew means its event queue lost
records: the feed resyncs. Sink methods (called from this thread):
    link(state, detail)        "connecting" | "ok" | "lost", detail for spectators
    hand(log_id, records)      the whole hand so far: [(type, payload)]
    record(rtype, payload)     one more record of it
    earlier(log_id, points)    a finished hand's points, still on the table
    status(info)               INFO's answer (dict), each HEARTBEAT
    restarted()                the table restarted: what came before is another match
"""

from __future__ import annotations

import threading
import time

from sichuan import presets
from sichuan import ruleset as R

from mjtable.link import client as L
from mjtable.link import owner
from mjtable.link import protocol as P
from mjtable.logs import logfmt
from mjtable.tableops.logs import fetch_growing, fetch_log, table_logs

HEARTBEAT = 1.0  # s of silence before the feed asks INFO
RETRY = 1.0  # s between reconnection attempts
EARLIER = 16  # finished hands still on the table whose points are read at the start
OFFLINE = "table offline, reconnecting"


class WrongTable(Exception):
    """Another table than the first session's answers on the port."""


class Rules:
    """Rulesets by CRC: the presets, then whatever a table reports."""

    def __init__(self):
        self._by_crc = {}
        for n in presets.names():
            rs = presets.get(n)
            self._by_crc[rs.crc()] = rs
        self._lock = threading.Lock()

    def __call__(self, crc):
        with self._lock:
            return self._by_crc.get(crc)

    def add(self, rs):
        with self._lock:
            self._by_crc[rs.crc()] = rs


class Overlap:
    """Drops the events that repeat the tail of the log just read."""

    def __init__(self, log_records):
        self.log = list(log_records)
        self.seen: list = []
        self.done = not self.log

    def take(self, rec):
        """The records to feed now for event rec (none while it may repeat the log)."""
        if self.done:
            return [rec]
        self.seen.append(rec)
        log, seen, n = self.log, self.seen, len(self.seen)
        for j in range(len(log) - n):  # all of it inside the log so far: wait for more
            if log[j : j + n] == seen:
                return []
        self.done = True
        for k in range(min(n, len(log)), 0, -1):
            if log[-k:] == seen[:k]:
                return seen[k:]
        return seen  # no overlap: every event is new


class Feed(threading.Thread):
    """Reads one table; `port` is a serial device or a pty path."""

    def __init__(self, port, sink, rules, timeout=2.0, opener=None, log=None):
        super().__init__(daemon=True, name="feed %s" % port)
        self.port = port
        self.sink = sink
        self.rules = rules
        self.timeout = timeout
        self.owned: dict = {}  # the owner this process started for the port, if any
        self.opener = opener or (lambda p: owner.shared_stream(p, timeout, self.owned))
        self.log = log or (lambda text: None)  # what went wrong, for the operator
        self.stopping = threading.Event()
        self.want_resync = threading.Event()
        self.table_id = ""  # the first session's: no other table is trusted after it
        self.had_key = False
        self.watched = False  # WATCH was on: a table answering watch=0 restarted
        self._said = None
        self.counted: set = set()  # earlier logs whose points were reported
        self.log_id = -1  # the hand the records belong to
        self.ser = None

    def stop(self):
        self.stopping.set()
        for o in self.owned.values():
            o.stop()

    def resync(self):
        self.want_resync.set()

    def run(self):
        while not self.stopping.is_set():
            if self._said is None:
                self.sink.link("connecting", "connecting to %s" % self.port)
            try:
                self.ser = self.opener(self.port)
            except owner.Refused as e:
                self._lost(str(e) if e.state == "wrong table" else OFFLINE, str(e))
                self.stopping.wait(RETRY)
                continue
            except Exception as e:  # pyserial's SerialException, OSError: not there
                self._lost(OFFLINE, "cannot open %s: %s" % (self.port, e))
                self.stopping.wait(RETRY)
                continue
            try:
                self._session(L.Link(self.ser, key=None, timeout=self.timeout))
            except WrongTable as e:
                self._lost(str(e), str(e))
            except (L.LinkError, OSError, ValueError, logfmt.LogDamaged) as e:
                self._lost(OFFLINE, str(e))
            except Exception as e:  # a serial error of any kind: the cable
                self._lost(OFFLINE, "%s: %s" % (type(e).__name__, e))
            finally:
                try:
                    self.ser.close()
                except Exception:
                    pass
            self.stopping.wait(RETRY)

    def _lost(self, detail, why):
        """Spectators read `detail`; the operator's log gets `why` once."""
        if why != self._said:
            self._said = why
            self.log("live: %s: %s" % (self.port, why))
        self.sink.link("lost", detail)

    def _session(self, link):
        link.hello()
        tid = link.table_id.hex()
        if self.table_id and tid != self.table_id:
            raise WrongTable("another table (id %s) is on %s, not this one (%s): not trusted; "
                             "waiting for %s" % (tid, self.port, self.table_id, self.table_id))
        if self.had_key and not link.flags & P.FLAG_KEY:
            raise WrongTable("the table on %s (id %s) has lost its key: not trusted"
                             % (self.port, tid))
        self.table_id = tid
        self.had_key = bool(link.flags & P.FLAG_KEY)
        if self.watched and link.info().get("watch") == "0":
            self._restarted()  # while we were away
        link.request(P.CMD_WATCH, b"\x01")
        self.watched = True
        overlap = self._catch_up(link)
        self._said = None
        self.sink.link("ok", self.table_id)
        asked = time.monotonic()
        dropped = None
        while not self.stopping.is_set():
            if self.want_resync.is_set():
                overlap = self._catch_up(link)
            while link.events:
                kind, _seq, payload = link.events.popleft()
                if kind == P.EV_GAME:
                    overlap = self._event(link, overlap, payload)
            got = link.read_frame(time.monotonic() + 0.2)
            now = time.monotonic()
            if got is not None and got[0] == (P.EV_GAME | P.REPLY):
                overlap = self._event(link, overlap, got[2])
            if now - asked > HEARTBEAT:  # also while busy: a drop shows in INFO
                info = link.info()  # LinkError if the table does not answer: lost
                asked = time.monotonic()
                self.sink.status(info)
                if info.get("watch") == "0":  # restarted: it forgot our WATCH
                    self._restarted()
                    link.request(P.CMD_WATCH, b"\x01")
                    self.watched = True
                    overlap = self._catch_up(link)
                elif dropped is not None and info.get("dropped", "0") != dropped:
                    overlap = self._catch_up(link)  # the table's queue lost events
                dropped = info.get("dropped", "0")

    def _restarted(self):
        """The table restarted: the match that was under way ends there (its
        result kept by the sink, with a note); its logs stay counted."""
        self.watched = False
        self.sink.restarted()

    def _catch_up(self, link):
        """Read the newest log whole; report the finished ones' points once."""
        self.want_resync.clear()
        logs = table_logs(link)
        if (logs[-1][0] if logs else 0) < self.log_id:  # a fresh volume (a virtual table)
            self.counted = {k for k in self.counted if k[0] != self.table_id}
        if not logs:
            self.log_id = 0
            self.sink.hand(-1, [])
            return Overlap([])
        for lid, _size in logs[-EARLIER - 1 : -1]:
            if (self.table_id, lid) in self.counted:
                continue
            self.counted.add((self.table_id, lid))
            pts = logfmt.parse(fetch_log(link, lid)).end_points()
            if pts is not None:
                self.sink.earlier(lid, pts)
        lid = logs[-1][0]
        # the hand in play may grow during the read: pulled as monitor does,
        # a copy of the log as it stood at the last reply, never a cut
        recs = logfmt.parse(fetch_growing(link, lid)).records
        # every event that came before the read's last reply is in the log
        link.events.clear()
        self._know_rules(link, recs)
        self.log_id = lid
        self.sink.hand(lid, recs)
        if any(t == logfmt.T_END for t, _ in recs):
            self.counted.add((self.table_id, lid))
        return Overlap([r for r in recs if r[0] != logfmt.T_SEAL])  # the seal is not streamed

    def _event(self, link, overlap, payload):
        if not payload:
            return overlap
        rec = (payload[0], bytes(payload[1:]))
        for r in overlap.take(rec):
            if r[0] == logfmt.T_HEAD:
                self._know_rules(link, [r])
                self.sink.status(link.info())  # the match this hand is of, before it
                self.log_id += 1
                self.sink.hand(self.log_id, [r])
            else:
                self.sink.record(r[0], r[1])
                if r[0] == logfmt.T_END:
                    self.counted.add((self.table_id, self.log_id))
        return overlap

    def _know_rules(self, link, recs):
        """Pull the table's ruleset when a hand's header names one not known."""
        for t, p in recs:
            if t == logfmt.T_HEAD and len(p) >= 7:
                crc = int.from_bytes(p[3:7], "little")
                if self.rules(crc) is None:
                    blob = link.get_object(P.OBJ_RULES, 0)
                    try:
                        self.rules.add(R.from_blob(blob))
                    except ValueError:
                        pass
