"""The host link tied to the controller (docs/hostcmds.md), imported only
when a link is opened: app.py starts `HostLink.serve` as an asyncio task.
The controller itself holds no link code: its logs are wrapped (LiveLogs) so
records stream to watching hosts and each hand is sealed before it closes.
"""

import struct
import time

from sichuan import ruleset as R
from table import controller as C
from table import store

KEY_FILE = "key"  # the table key (32 bytes), table.store format
ENROLL_PLACE = 1  # the enrolment antenna: seat 0's tray (table.scan places)
LINK_BURST = 8  # link frames handled per wake of the link task
DEAL_WAIT = 5  # INFO state: a hand started (PLAY), its deal not yet begun
_PATTERN_MS = 3000  # a self-test's display and LED patterns stay this long


class LiveLog:
    """A hand's RecordLog as the controller sees it: each record also goes to
    watching hosts (host.push_event), and close() seals the hand first
    (host.seal: the HMAC record), so table/controller.py needs no link code."""

    def __init__(self, log, host):
        self._log = log
        self._host = host
        self.log_id = log.log_id

    def append(self, rtype, payload):
        self._log.append(rtype, payload)
        if self._host.watching:  # build the event only for a watching host
            self._host.push_event(bytes((rtype,)) + bytes(payload))

    def head(self):
        return self._log.head()

    def close(self):
        # A damaged log (a failed write: flash full, EIO) refuses the seal
        # with LogError; it stays unsealed, which the host reports.
        if self._log.damaged is None:
            try:
                self._host.seal(self._log)
            except (OSError, ValueError):
                pass  # an unsealed log is reported by the host, not fatal to the game
        self._log.close()


class LiveLogs:
    """The LogStore the controller writes through: new logs are LiveLogs."""

    def __init__(self, logs, host):
        self._logs = logs
        self._host = host

    def can_start_hand(self):
        return self._logs.can_start_hand()

    def new_log(self):
        return LiveLog(self._logs.new_log(), self._host)


class HostLink:
    """The host link tied to the controller (docs/hostcmds.md): rules and
    match changes wait for the hand in play (busy); a pushed ruleset is
    played from the next match; MATCH start begins one with the active
    rules. The controller's logs are wrapped so records stream to watching
    hosts and hands are sealed."""

    def __init__(self, ctl, root, read, write, key=None, button=False,
                 table_id=b"MJTABLE0", hands=0, rematch_ms=-1, match_file=None):
        from table import hostcmds
        from table.link import Link

        self.ctl = ctl
        self.root = root
        self.hands = hands  # 0: the ruleset's own match length
        self.rematch_ms = rematch_ms  # -1: only the host starts a match
        self.match_file = match_file
        self.deadline = None  # ticks_ms when the match's time is up (MATCH start), or None
        self.ticks = time.ticks_ms
        self.matches = 1
        self.next_rules = ctl.rs
        self._done = False  # the DONE state was seen (at _done_at, ticks_ms)
        self._done_at = time.ticks_ms()
        logs = ctl.logs
        self.link = Link(read, write, key=key, key_button_held=lambda: button,
                         save_key=self._save_key, table_id=table_id)
        self.host = hostcmds.install(
            self.link, logs, root=root, rules=ctl.rs, on_rules=self._on_rules,
            on_enroll=self._on_enroll, on_match=self._on_match, busy=self.busy,
            current_log=self.current_log, table_id=table_id,
            enroll_map=ctl.scanner.enroll.uids, last_tag=self.last_tag, status=self.status,
            selftest=self.selftest)
        self._redraw_at = None  # ticks_ms when a self-test's patterns give way
        ctl.logs = LiveLogs(logs, self.host)
        self._tag_seq = 0
        self._tag_uid = None  # on the antenna at the last question
        self._tag_last = bytes(8)

    def last_tag(self):
        """(seq, uid) of the tag on the enrolment antenna (`mjtable enroll`),
        seq counting presentations (a tag other than the last one, or the
        antenna emptied in between); None before the first. A tag not in the
        map counts once the scanner has seen it in `arrive` scans; an enrolled
        one once it is there, so a host can refuse a tag given twice."""
        uid = self.ctl.scanner.tag_at(ENROLL_PLACE)
        if uid != self._tag_uid:  # None: emptied, the same tag laid again counts anew
            self._tag_uid = uid
            if uid is not None:
                self._tag_seq += 1
                self._tag_last = uid
        return (self._tag_seq, self._tag_last) if self._tag_seq else None

    def status(self):
        """INFO lines: the match under way (`play` its ruleset, a pushed one
        waiting for the next match; `play_crc`; `left` the hands left, the one
        in play included; `play=` alone when none is), then the health:
        `chips` the chips not answering (hex, bits as boards.pico Board.down),
        `crashes` the task failures since boot (app.guard restarted them),
        `fault` the last one or why the board last reset (empty if none),
        `keys` the key events taken since boot and what the last did
        (table.controller K_*: 0 acted, else why not), `state` the
        controller's state (IDLE..DONE, or DEAL_WAIT for a hand whose deal
        has not begun) and the tiles it still reads (a table waiting to be
        cleared says how many)."""
        c = self.ctl
        st = c.state if c.state != C.PLAY or c.in_hand() else DEAL_WAIT
        health = "chips=%x\ncrashes=%d\nfault=%s\nkeys=%d,%d\nstate=%d,%d" % (
            c.board.down, c.crashes, c.fault, c.keys_seen, c.key_why, st, c.scanner.seen())
        if c.state == C.DONE:
            return "play=\n" + health
        n = self.hands or c.rs[R.P_HANDS]
        return "play=%s\nplay_crc=%08x\nleft=%d\n%s" % (c.rs.name, c.rs_crc,
                                                       max(n - c.match.hand_no, 0), health)

    def _save_key(self, key):
        store.write(self.root + "/" + KEY_FILE, key)

    def busy(self):
        return self.ctl.in_hand()  # not while the table waits for its deal

    def current_log(self):
        ctl = self.ctl
        return ctl.log.log_id if ctl.log is not None else -1

    def selftest(self):
        """SELFTEST: between hands only (a hand's tiles would be read by a
        scanner that is not looking); the patterns stay _PATTERN_MS."""
        from table import frame as F

        if self.busy():
            raise F.LinkError(F.E_BUSY)
        from table import selftest

        text = selftest.run(self.ctl.board)
        self._redraw_at = time.ticks_add(time.ticks_ms(), _PATTERN_MS)
        return text

    def _redraw(self):
        """The self-test's patterns give way to what the table shows."""
        if self._redraw_at is None or time.ticks_diff(time.ticks_ms(), self._redraw_at) < 0:
            return
        self._redraw_at = None
        d = self.ctl.display
        for s in range(d.seats):
            d.redraw(s)
        if d.leds is not None:
            d.leds.refresh()

    def _on_rules(self, rs):
        self.next_rules = rs  # the match under way keeps its rules

    def _on_enroll(self, blob):
        self.ctl.scanner.enroll.load_blob(blob)

    def _on_match(self, op, args):
        from table import frame as F
        from table import hostcmds

        if self.busy():
            raise F.LinkError(F.E_BUSY)
        if op == hostcmds.MATCH_START:
            lim = None
            if len(args) >= 8:  # hands u16, seconds u16, rules CRC u32 (hostcmds)
                lim = struct.unpack_from("<HHI", args)
                if lim[2] and lim[2] != self.next_rules.crc():
                    raise F.LinkError(F.E_CHECK)  # not the ruleset the host means
            self.new_match()
            if lim is not None:
                self.hands = lim[0]
                if lim[1]:
                    self.deadline = time.ticks_add(self.ticks(), lim[1] * 1000)
        else:
            self.ctl.state = C.DONE  # no match under way

    def new_match(self):
        """Start a match with the active ruleset (the table must not be in a hand)."""
        self.matches += 1
        self.deadline = None
        self.announce()
        self.ctl.new_match(self.next_rules)
        self._done = False

    def announce(self):
        """Tell the virtual table (sim) which rules the match coming up plays."""
        if self.match_file is None:
            return
        import binascii

        rs = self.next_rules
        with open(self.match_file, "w") as f:
            f.write("%d %08x %s\n" % (self.matches, rs.crc(),
                                       binascii.hexlify(rs.to_blob()).decode()))

    def tick(self):
        """Between frames: end a match after `hands` hands, start the next one
        `rematch_ms` after the last ended."""
        ctl = self.ctl
        self._redraw()
        if self.hands and ctl.state == C.END and ctl.match.hand_no >= self.hands:
            ctl.state = C.DONE  # the match is as long as asked
        if self.deadline is not None and ctl.state != C.DONE:
            now = self.ticks()
            over = time.ticks_diff(now, self.deadline)
            if over >= 0:  # time is up (T/TFMJ: 50 minutes)
                if ctl.in_hand():  # this hand is the last: the seats say so, in turn
                    ctl.last = True      # with the scores, 2 s each
                    ctl.display.text = None if over >> 11 & 1 else "LASt"
                else:
                    ctl.state = C.DONE
                    ctl.display.text = None
        if ctl.state != C.DONE or self.rematch_ms < 0:
            return
        now = time.ticks_ms()
        if not self._done:
            self._done = True
            self._done_at = now
        elif time.ticks_diff(now, self._done_at) >= self.rematch_ms:
            self.new_match()

    async def serve(self, idle_ms):
        """The link task: each wake does at most LINK_BURST polls (each
        bounded: one read, one frame, one write attempt), then yields, so the
        game never waits on the host. idle_ms: the sleep when nothing came."""
        import asyncio

        link = self.link
        host = self.host
        while True:
            n = 0
            while n < LINK_BURST and link.poll():
                n += 1
            host.poll()
            self.tick()
            await asyncio.sleep_ms(0 if n else idle_ms)


def load_key(root):
    """The table key saved on flash (32 bytes), or None."""
    st, key = store.load(root + "/" + KEY_FILE)
    return key if st == store.OK and len(key) == 32 else None


def key_button(board):
    """The key button: seat 0's 过 key, sampled once at boot (docs/protocol.md,
    The key). Holding it while the table powers up opens SETKEY."""
    from drivers import buttons as B

    try:
        board.refresh_inputs()
        return board.buttons[0].down(B.GUO)
    except (OSError, IndexError):
        return False
