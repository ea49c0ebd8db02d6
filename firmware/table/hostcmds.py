"""The table's host commands: what a host may read and change over the link.

install(link, logs, ...) -> Host registers on a table.link.Link:
  objects (table.xfer GET/PUT/COMMIT/STAT)
    kind 1 ruleset   idx 0: the active blob; a pushed one is checked whole
                     (sichuan.ruleset.from_blob, then what this table can run),
                     written atomically (table.store), and only then activated
    kind 2 hand log  idx = log id: the log file's bytes as on flash, whitened
                     (each byte XOR table.whiten.MASK: fewer bytes to stuff), read only
    kind 3 enrolment idx 0: 108 * 8 UID bytes (table.enroll), atomic, checked
  commands (codes 0x20..; "auth" = needs the link MAC)
    0x20 LOGS   read  start id u32 (optional) -> count u16, more u8,
                      count * (id u32, size u32), ids ascending from start
    0x21 ACK    auth  id u32, head[8] -> (none): the host holds the log whose
                      chain ends in head: delete it (LogStore.ack)
    0x22 CLOCK  auth  unix seconds u32 -> (none)
    0x23 MATCH  auth  op u8 (1 start, 2 end), args -> next log id u32: on_match(op,
                      args); start's args: hands u16, seconds u16 (0: no limit), rules
                      CRC u32 (0: any), all optional; the reply is the id the match's
                      first hand will log under
    0x24 WATCH  read  on u8 -> (none): stream live events (0 stops)
    0x25 TAG    read  (none) -> seq u32, uid[8]: the tag last read on the
                      enrolment antenna (seq counts presentations; 0 = none)
    0x26 SELFTEST read (none) -> text: the table checks its chips (table.selftest:
                      one line a seat); E_BUSY while a hand is in play
  INFO key=value lines: fw, proto, rules, rules_crc (the stored ruleset, which
  the next match plays), free, logs, clock, key, watch; hand (the log being
  written, -1 between hands); mpy (MicroPython's version), and when they
  apply: commit and shadowed (the table's own image), usb (locked, maint or
  open: the board's REPL), heap (the board's heap: free now, its live peak,
  its size); status()'s lines (hostlink: play, play_crc, left:
  the match under way; chips, crashes, fault: the table's health); refused
  (why the last pushed ruleset or map was refused), repaired, damaged.

Events: the controller calls push_event(data) with the bytes of what happened
(by convention the hand-log bytes it appends, see below); they are queued
(at most EVENT_QUEUE, the oldest dropped and counted) and sent as event kind
EV_GAME by poll() while a host watches and the link has no reply going out.

Hand-log records (table.recordlog types, as table/controller.py writes them):
T_HEAD the 14-byte sichuan.handlog header, T_ACT one action and its payments
(the concatenated T_HEAD and T_ACT payloads are the engine's hand log),
T_ALERT an alert, T_END each seat's points (i16 LE); T_SEAL closes a hand:
HMAC-SHA256(key, SEAL_TAG || table_id[8] || log id u32 LE || chain head
before the seal) so a referee with the key can prove the log came from this
table unchanged. seal(log) appends it.
"""

import struct
import time

from micropython import const
from sichuan import ruleset as R
from table import frame as F
from table import store
from table.crc import crc32
from table.recordlog import LogError
from table.whiten import MASK, xor

FW_VERSION = "0.5.0"

CMD_LOGS = const(0x20)
CMD_ACK = const(0x21)
CMD_CLOCK = const(0x22)
CMD_MATCH = const(0x23)
CMD_WATCH = const(0x24)
CMD_TAG = const(0x25)
CMD_SELFTEST = const(0x26)

MATCH_START = const(1)
MATCH_END = const(2)

EV_GAME = const(0x40)  # event kind: one hand-log record (type u8 + payload)
T_HEAD = const(1)  # recordlog types: handlog header
T_ACT = const(2)  # one action and its payments (handlog bytes)
T_ALERT = const(3)
T_END = const(4)  # points per seat this hand, i16 LE
T_SEAL = const(0xFE)  # HMAC seal, 32 bytes
SEAL_TAG = b"MJSEAL1"

SEATS = const(4)  # seats the physical table has
RULES_MAX = const(1024)  # a ruleset blob is ~180 bytes; with eight house patterns at most ~860
ENROLL_LEN = const(864)  # 108 tiles * 8-byte UIDs
EVENT_QUEUE = const(32)
_LIST_MAX = const(127)
_CRC_CACHE = const(64)  # log entries per LOGS reply (8 bytes each)

def unsupported(rs, seats=SEATS):
    """None if this table can run ruleset rs, else (param id, reason text):
    what no table of this build can run (the core's table_can_run: more
    players than seats, a deal larger than the tiles). Fewer players than
    seats play at seats 0..players-1; the 宜宾 听用 are shown by the 本金,
    which lies face up on the dealer's tray (docs/table.md)."""
    ok, why = R.table_can_run(rs, seats, shows_wild=True)
    if not ok:  # the detail names the parameter, as table_can_run's checks go
        return (R.P_PLAYERS if rs[R.P_PLAYERS] > seats else R.P_HAND_SIZE), why
    return None


class Clock:
    """Wall clock in unix seconds, set by the host (the Pico has no battery RTC)."""

    def __init__(self):
        self._off = 0
        self.set_at = 0  # unix seconds of the last set, 0 = never set

    def now(self):
        return int(time.time()) + self._off

    def set(self, secs):
        self._off = secs - int(time.time())
        self.set_at = secs


class _Staged:
    """One object staged in RAM until COMMIT (rules and maps are small)."""

    def __init__(self, limit):
        self.limit = limit
        self.buf = None

    def begin(self, total):
        if total > self.limit:
            raise F.LinkError(F.E_LEN, self.limit)
        self.buf = bytearray(total)

    def write(self, off, data):
        if self.buf is None:
            raise F.LinkError(F.E_STATE)
        self.buf[off : off + len(data)] = data

    def take(self):
        b = self.buf
        self.buf = None
        if b is None:
            raise F.LinkError(F.E_STATE)
        return bytes(b)


class BlobObject:
    """A small stored object (ruleset, enrolment map): active bytes in RAM, a
    staged version, and accept(blob) deciding what to activate. live: data is
    a buffer the table itself uses (its enrolment map), which the action
    accept returns updates in place, so the bytes are held once."""

    def __init__(self, host, path, data, limit, accept, live=False):
        self._h = host
        self.path = path
        self.data = data
        self._crc = crc32(data)
        self._st = _Staged(limit)
        self._accept = accept
        self._live = live

    def _idx(self, idx):
        if idx != 0:
            raise F.LinkError(F.E_ARG)

    def size(self, idx):
        self._idx(idx)
        return len(self.data)

    def crc(self, idx):
        self._idx(idx)
        return self._crc

    def read(self, idx, off, mv):
        self._idx(idx)
        mv[:] = memoryview(self.data)[off : off + len(mv)]

    def begin(self, idx, total):
        self._idx(idx)
        if self._h.busy():
            raise F.LinkError(F.E_BUSY)
        self._st.begin(total)

    def write(self, idx, off, data):
        self._st.write(off, data)

    def abort(self, idx):
        self._st.buf = None

    def commit(self, idx):
        blob = self._st.take()
        if self._h.busy():
            raise F.LinkError(F.E_BUSY)
        after = self._accept(blob)  # raises LinkError to refuse; nothing changed
        try:
            store.write(self.path, blob)
        except (OSError, ValueError):
            raise F.LinkError(F.E_INTERNAL) from None
        if not self._live:
            self.data = blob
        self._h.refused = ""
        if after is not None:
            after()
        self._crc = crc32(self.data)


class LogFiles:
    """Hand logs (kind 2) as file bytes XOR MASK (table.whiten), read through
    one cached handle.
    Only the log of the hand in play (current()) can change (it grows), so
    only its size is looked at again on each GET, and the size of a log that
    was in play when its handle was opened, until a GET after its end finds
    it unchanged (its end and seal records come after); the whole-file CRC
    is cached per (id, size). A stat per chunk would cost more than the chunk."""

    def __init__(self, logs, current=None):
        self._logs = logs
        self._current = current
        self._id = -1
        self._f = None
        self._live = False  # the open log was the hand in play when opened
        self._size = 0
        self._crc = 0
        self._tmp = bytearray(256)
        self._crcs = {}  # id -> (size, crc) of logs seen: a log is read more than once

    def _full(self, idx):
        """The log id (u32) whose low 16 bits are idx: GET names an object by
        a u16, and the logs on flash at once are far fewer than 65536."""
        if self._id >= 0 and self._id & 0xFFFF == idx:
            return self._id
        for i in self._logs.list():  # a listdir only when another log is asked for
            if i & 0xFFFF == idx:
                return i
        return idx

    def _open(self, idx):
        idx = self._full(idx)
        live = self._current is not None and self._current() == idx
        if idx == self._id and self._f is not None:
            if not (live or self._live):
                return
            # the hand in play, or the one that was when the handle was opened
            # (its end record and seal came after): its size may have grown
            # since the last GET (a stat: littlefs read handles need not see
            # another's appends)
            import os

            try:
                size = os.stat(self._logs.path(idx))[6]
            except OSError:
                size = -1
            if size == self._size:
                self._live = live  # once ended and seen whole, it changes no more
                return
        self.close()
        try:
            f = open(self._logs.path(idx), "rb")
        except OSError:
            raise F.LinkError(F.E_ARG) from None
        f.seek(0, 2)  # the size without a stat: a path lookup costs more than the chunk
        size = f.tell()
        f.seek(0)
        c = self._crcs.get(idx)
        if c is None or c[0] != size:
            c = 0
            mv = memoryview(self._tmp)
            while True:
                n = f.readinto(self._tmp)
                if not n:
                    break
                xor(self._tmp, n, MASK)  # the CRC is of the bytes as served
                c = crc32(mv[:n], c)
            c = (size, c)
            if len(self._crcs) >= _CRC_CACHE:
                self._crcs.clear()
            self._crcs[idx] = c
        self._f = f
        self._id = idx
        self._live = live
        self._size = size
        self._crc = c[1]

    def close(self):
        if self._f is not None:
            self._f.close()
        self._f = None
        self._id = -1

    def forget(self, idx):
        """The log was acked (deleted): drop its handle and cached CRC."""
        if self._id == idx:
            self.close()
        self._crcs.pop(idx, None)

    def open(self, idx):
        """Make log idx the open one (LinkError E_ARG if there is none)."""
        self._open(idx)

    @property
    def size_now(self):
        return self._size

    @property
    def crc_now(self):
        return self._crc

    def size(self, idx):
        self._open(idx)
        return self._size

    def crc(self, idx):
        self._open(idx)
        return self._crc

    def read(self, idx, off, mv):
        self._open(idx)
        self.read_open(off, mv)

    def read_open(self, off, mv):
        """Fill mv from the open log at off, whitened."""
        f = self._f
        if f is None:
            raise F.LinkError(F.E_INTERNAL)
        f.seek(off)
        got = f.readinto(mv)
        if got != len(mv):
            raise F.LinkError(F.E_INTERNAL)
        xor(mv, got, MASK)

    def begin(self, idx, total):
        raise F.LinkError(F.E_ARG)  # logs are written by the table only

    def write(self, idx, off, data):
        raise F.LinkError(F.E_STATE)

    def commit(self, idx):
        raise F.LinkError(F.E_STATE)

    def abort(self, idx):
        pass


class Host:
    """State of the host commands; see install()."""

    def __init__(
        self,
        link,
        logs,
        root="/flash",
        rules=None,
        on_rules=None,
        on_enroll=None,
        on_match=None,
        busy=None,
        current_log=None,
        last_tag=None,
        clock=None,
        table_id=b"\x00" * 8,
        seats=SEATS,
        rules_file="ruleset.bin",
        enroll_file="enroll.bin",
        enroll_map=None,
        status=None,
        selftest=None,
    ):
        from table.xfer import Transfers

        self.link = link
        self.logs = logs
        self.root = root
        self.rules_path = root + "/" + rules_file
        self.seats = seats
        self.clock = clock or Clock()
        self.table_id = bytes(table_id)
        self._on_rules = on_rules
        self._on_enroll = on_enroll
        self._on_match = on_match
        self._busy = busy
        self._current = current_log
        self._tag = last_tag
        self._status = status
        self._selftest = selftest
        self.refused = ""
        self.usb = ""  # app.main_board: "locked", "maint" or "open" (the REPL's state)
        self.stats = None  # app.main_board: its Stats (INFO heap=, the board's figures)
        self.watching = False
        self.dropped = 0
        self._events = []
        self.rules = rules if rules is not None else self._load_rules()
        live = enroll_map is not None and on_enroll is not None
        if live:
            emap = enroll_map
        else:
            st, emap = store.load(root + "/" + enroll_file)
            if st != store.OK or len(emap) != ENROLL_LEN:
                emap = bytes(ENROLL_LEN)
        self.rules_obj = BlobObject(
            self, self.rules_path, self.rules.to_blob(), RULES_MAX, self._accept_rules
        )
        self.enroll_obj = BlobObject(
            self, root + "/" + enroll_file, emap, ENROLL_LEN, self._accept_enroll, live
        )
        self.log_files = LogFiles(logs, current_log)
        xfer = Transfers(
            {F.OBJ_RULES: self.rules_obj, F.OBJ_LOG: self.log_files, F.OBJ_ENROLL: self.enroll_obj}
        )
        xfer.install(link)
        self._xget = xfer.get
        link.register(F.CMD_GET, self._cmd_get)  # log chunks take a shorter path
        link.register(CMD_LOGS, self._cmd_logs)
        link.register(CMD_ACK, self._cmd_ack, True)
        link.register(CMD_CLOCK, self._cmd_clock, True)
        link.register(CMD_MATCH, self._cmd_match, True)
        link.register(CMD_WATCH, self._cmd_watch)
        link.register(CMD_TAG, self._cmd_tag)
        link.register(CMD_SELFTEST, self._cmd_selftest)
        link.register(F.CMD_INFO, self._cmd_info)

    def _load_rules(self):
        from sichuan import presets

        st, blob = store.load(self.rules_path)
        if st == store.OK:
            try:
                return R.from_blob(blob)
            except ValueError:
                pass
        return presets.get("xuezhan")

    def busy(self):
        """True while a hand is in play: rules, map and match wait for its end."""
        return bool(self._busy and self._busy())

    # --- checks of pushed objects ---

    def _accept_rules(self, blob):
        try:
            rs = R.from_blob(blob)
        except ValueError as e:
            self.refused = "ruleset: %s" % e
            raise F.LinkError(F.E_CHECK, 0) from None
        bad = unsupported(rs, self.seats)
        if bad is not None:
            self.refused = "ruleset: %s" % bad[1]
            raise F.LinkError(F.E_ARG, bad[0])

        def activate():
            self.rules = rs
            if self._on_rules is not None:
                self._on_rules(rs)

        return activate

    def _accept_enroll(self, blob):
        if len(blob) != ENROLL_LEN:
            self.refused = "enrolment: %d bytes, expected %d" % (len(blob), ENROLL_LEN)
            raise F.LinkError(F.E_LEN, ENROLL_LEN)
        bad = check_enroll(blob)
        if bad >= 0:
            self.refused = "enrolment: tile %d has a UID already used by another tile" % bad
            raise F.LinkError(F.E_CHECK, bad)
        if self._on_enroll is None:
            return None
        return lambda: self._on_enroll(blob)

    # --- commands ---

    def _cmd_logs(self, req, resp):
        start = struct.unpack_from("<I", req)[0] if len(req) >= 4 else 0
        ids = [i for i in self.logs.list() if i >= start]
        import os

        n = 0
        for i in ids[:_LIST_MAX]:
            try:
                size = os.stat(self.logs.path(i))[6]
            except OSError:
                continue  # acked meanwhile
            struct.pack_into("<II", resp, 3 + 8 * n, i, size)
            n += 1
        struct.pack_into("<HB", resp, 0, n, 1 if len(ids) > _LIST_MAX else 0)
        return 3 + 8 * n

    def _cmd_ack(self, req, resp):
        if len(req) != 12:
            raise F.LinkError(F.E_ARG)
        log_id = struct.unpack_from("<I", req)[0]
        if self._current is not None and self._current() == log_id:
            raise F.LinkError(F.E_BUSY)  # the hand is still being written
        self.log_files.forget(log_id)
        try:
            self.logs.ack(log_id, bytes(req[4:12]))
        except KeyError:
            raise F.LinkError(F.E_ARG) from None
        except LogError:
            raise F.LinkError(F.E_CHECK) from None
        return 0

    def _cmd_clock(self, req, resp):
        if len(req) != 4:
            raise F.LinkError(F.E_ARG)
        self.clock.set(struct.unpack_from("<I", req)[0])
        return 0

    def _cmd_match(self, req, resp):
        if len(req) < 1 or req[0] not in (MATCH_START, MATCH_END):
            raise F.LinkError(F.E_ARG)
        if self._on_match is None:
            raise F.LinkError(F.E_STATE)
        self._on_match(req[0], bytes(req[1:]))  # raises LinkError to refuse
        struct.pack_into("<I", resp, 0, self.logs.next_id())  # where the match's hands begin
        return 4

    def _cmd_watch(self, req, resp):
        if len(req) != 1 or req[0] > 1:
            raise F.LinkError(F.E_ARG)
        self.watching = bool(req[0])
        if not self.watching:
            self._events = []
        return 0

    def _cmd_get(self, req, resp):
        # A log pull is a long run of GETs: serve kind 2 here with one lookup
        # instead of three (xfer.get asks size, crc and read separately);
        # same checks and reply as table.xfer.
        if len(req) != 9 or req[0] != F.OBJ_LOG:
            return self._xget(req, resp)
        _, idx, off, ln = struct.unpack_from("<BHIH", req)
        lf = self.log_files
        lf.open(idx)
        total = lf._size  # not the properties: a call each, per chunk
        if off > total or ln > len(resp) - 8:
            raise F.LinkError(F.E_ARG)
        if ln > total - off:
            ln = total - off
        struct.pack_into("<II", resp, 0, total, lf._crc)
        lf.read_open(off, resp[8 : 8 + ln])
        return 8 + ln

    def _cmd_tag(self, req, resp):
        if self._tag is None:
            raise F.LinkError(F.E_STATE)
        got = self._tag()
        seq, uid = (0, bytes(8)) if got is None else got
        struct.pack_into("<I", resp, 0, seq)
        resp[4:12] = uid
        return 12

    def _cmd_selftest(self, req, resp):
        if self._selftest is None:
            raise F.LinkError(F.E_STATE)
        text = self._selftest()  # raises LinkError(E_BUSY) in a hand
        n = min(len(text), len(resp))
        resp[:n] = text[:n]
        return n

    def _cmd_info(self, req, resp):
        text = self.info()
        n = min(len(text), len(resp))
        resp[:n] = text[:n]
        return n

    def info(self):
        rs = self.rules
        try:
            free = self.logs.free_bytes()
        except OSError:
            free = -1
        lines = [
            "fw=%s" % FW_VERSION,
            "proto=%d" % F.VERSION,
            "rules=%s" % rs.name,
            "rules_crc=%08x" % rs.crc(),
            "free=%d" % free,
            "logs=%d" % len(self.logs.list()),
            "clock=%d" % self.clock.now(),
            "clock_set=%d" % (1 if self.clock.set_at else 0),
            "key=%d" % (1 if self.link.has_key else 0),
            "watch=%d" % (1 if self.watching else 0),
            "dropped=%d" % self.dropped,  # events lost to a full queue: a watcher resyncs
        ]
        # the log being written (-1: none), which a pull leaves for later
        lines.append("hand=%d" % (self._current() if self._current is not None else -1))
        lines += _build_lines()
        if self.usb:
            lines.append("usb=" + self.usb)
        if self.stats is not None:  # bytes: free now, the live peak the scan task saw, all
            import gc

            f = gc.mem_free()
            lines.append("heap=%d,%d,%d" % (f, self.stats.live_peak, f + gc.mem_alloc()))
        if self._status is not None:
            lines.append(self._status())
        if self.refused:
            lines.append("refused=%s" % self.refused)
        # what the boot found (docs/storage.md): log id:bytes cut, log id:reason
        if self.logs.repairs:
            lines.append("repaired=" + ",".join("%d:%d" % r[:2] for r in self.logs.repairs))
        if self.logs.damaged:
            lines.append("damaged=" + ",".join("%d:%d" % d[:2] for d in self.logs.damaged))
        return ("\n".join(lines) + "\n").encode()

    # --- live events and seals, called by the controller ---

    def push_event(self, data):
        """Queue one event (bytes, at most 1024) for watching hosts; never blocks."""
        if not self.watching:
            return
        if len(self._events) >= EVENT_QUEUE:
            self._events.pop(0)
            self.dropped += 1
        self._events.append(bytes(data[: F.MAX_PAYLOAD]))

    def pending(self):
        """Events queued and not yet sent."""
        return len(self._events)

    def poll(self):
        """Send one queued event if the link is free; call after link.poll()."""
        if self._events and self.link.idle():
            if self.link.send_event(EV_GAME, self._events[0]):
                self._events.pop(0)

    def seal(self, log):
        """Append the HMAC seal record to an open RecordLog (end of hand).
        Returns False (nothing written) if the table has no key yet."""
        mac = self.link._mac
        if mac is None:
            return False
        d = mac.digest(SEAL_TAG, self.table_id, struct.pack("<I", log.log_id), log.head())
        log.append(T_SEAL, d)
        return True


def _build_lines():
    """INFO's lines on what runs: MicroPython's version and, on the table's
    own image (image/build.py writes its mjbuild module), the firmware's git
    commit and the files on flash it overrides. A file deploy has no mjbuild."""
    import sys

    out = ["mpy=%d.%d.%d" % tuple(sys.implementation.version[:3])]
    try:
        import mjbuild  # type: ignore[import-not-found]
    except ImportError:
        return out
    out.append("commit=" + mjbuild.COMMIT)
    if mjbuild.shadowed:
        out.append("shadowed=" + mjbuild.shadowed)
    return out


def check_enroll(blob):
    """-1 if the map is well formed, else the first tile whose (non-zero) UID
    repeats an earlier tile's."""
    seen = {}
    for t in range(len(blob) // 8):
        u = bytes(blob[t * 8 : t * 8 + 8])
        if u == b"\x00" * 8:
            continue
        if u in seen:
            return t
        seen[u] = t
    return -1


def install(link, logs, **kw):
    """Register the host commands on `link` (a table.link.Link).

    logs: the controller's table.logstore.LogStore. Keywords (all optional):
      root        folder of the store files, "/flash"
      rules_file, enroll_file   their names in root ("ruleset.bin", "enroll.bin",
                  as app.py names the map)
      rules       the active sichuan Ruleset (else root/ruleset, else xuezhan)
      on_rules    fn(rs): a new ruleset is on flash; use it from the next hand
      on_enroll   fn(blob): a new enrolment map (864 bytes) is on flash
      enroll_map  the table's own map (its Enrollment's uids), which on_enroll
                  updates in place: served as it is, not read again from flash
      on_match    fn(op, args): MATCH_START / MATCH_END; raise frame.LinkError
                  (e.g. E_BUSY) to refuse
      busy        fn() -> True while a hand is in play (pushes wait: E_BUSY)
      current_log fn() -> id of the log being written (not ackable), or -1
      last_tag    fn() -> (seq, uid[8]) of the tag last read on the enrolment
                  antenna, seq counting presentations; None if none yet
      clock       an object with now() and set(secs) (default: Clock())
      table_id    8 bytes, as given to the Link (bound into log seals)
      seats       seats of the physical table (4)
      status      fn() -> more INFO lines (text, no final newline): the match
                  in play and the table's health
      selftest    fn() -> the SELFTEST report (bytes); raise frame.LinkError
                  (E_BUSY) to refuse
    Returns the Host: call host.poll() after link.poll(), host.push_event(b)
    for live events and host.seal(log) at the end of a hand."""
    return Host(link, logs, **kw)
