"""The table controller: scans, keys and the engine tied together.

One Controller runs a match: it starts a hand once every antenna is empty,
feeds what the observer reads off the table (table.observe) and what the
seats' keys say to the engine (sichuan.game), refuses with an alert what the
engine or the table will not allow (the game unchanged until the table is
put right), times the claim windows, shows everything on the seat displays,
and appends the hand log to flash (table.logstore) as it goes.

Time is an argument everywhere (ms, a ticks_ms()-like counter that may wrap
at 2**30), so the board supplies its clock and the simulator a virtual one.

Hand log on flash: one RecordLog per hand, record types
    REC_HEAD  1  sichuan.handlog header (14 bytes)
    REC_ACT   2  one accepted action and its payments, handlog encoding
    REC_ALERT 3  seat, alert code, engine reason, t (u32 LE)
    REC_END   4  each seat's points this hand, i16 LE
so that the concatenated HEAD and ACT payloads are a handlog buffer that
sichuan.handlog.replay() re-scores.

Claim keys: 胡 -> HU, 碰 -> PENG, 杠 -> ZHIGANG (in a claim window), 过 ->
PASS; 胡 on one's own turn -> self-drawn HU; suit keys -> DINGQUE. 暗杠 and
补杠 are read from the tiles alone (they move rack -> tray on one's turn).
断卡根: a long press of 胡 (drivers.buttons LONG) -> BAOHU before the seat's
first draw, else it announces 请胡 and the seat's next discard is QINGHU.
宜宾: 碰 -> FEI when only a 飞 is open to the seat, a long 碰 -> FEI; 提 and the
本金 (as the 叫马 tile: one tile onto the dealer's tray) are read off the tiles.
Two or three players sit at seats 0..players-1; the other seats' keys and
readers are not used and their displays show "----".
"""

import gc

from drivers import buttons as B
from micropython import const
from sichuan import game as G
from sichuan import handlog
from sichuan import ruleset as R
from sichuan.claims import MUST_WIN, ST_GAVE, ST_QUE, ST_WON
from sichuan.settle import EV_HAND_END, EV_PAY, EV_PHASE
from table import alerts
from table.alerts import Alerts
from table.display import S_DINGQUE, S_EXCHANGE, S_IDLE, S_OFF, S_PLAY, S_QING, S_WON, TableDisplay
from table.observe import Observer
from table.recordlog import LogError
from table.scan import NOWHERE, TILES, Scanner

# controller states
IDLE = const(0)  # waiting for an empty table to start a hand
PLAY = const(1)
END = const(2)  # hand over: waiting for the tiles to be cleared away
FULL = const(3)  # the log store refuses a new hand (reason in why_not)
DONE = const(4)  # the match is over

REC_HEAD = const(1)
REC_ACT = const(2)
REC_ALERT = const(3)
_REC_END = const(4)
# what a key event did (INFO keys=): acted, or why not
K_ACTED = const(0)
K_NO_HAND = const(1)  # no hand in play
K_TABLE = const(2)  # an alert asks for the table to be put right first
K_NOT_NOW = const(3)  # not a key for this moment (a suit key after 定缺, ...)
K_LONG = const(4)  # a long press with no meaning for this key
K_REFUSED = const(5)  # the rules refused the action

_WRAP = const(0x3FFFFFFF)
# Bytes kept free between hands for the next hand's log file: opening a file
# on LittleFS takes one block of about 1.2 KB (its cache is 4 x progsize
# 256), which a fragmented heap may not have when the hand starts. The room
# is that block's size on the unix port (1,200 B, as a failed open reports
# it), not the open's whole heap use (1,280 B measured around it, the rest
# in smaller allocations that go anywhere): a larger room would not fit the
# hole the file leaves (docs/decisions.md).
_FILE_ROOM = const(1200)
# The hand log's buffer as made at boot; a hand logs about 540 B (make demo:
# 909 actions in 8 hands, 4.6 B each), a longer one grows it.
_LOG_ROOM = const(1024)
_ASK_MAX = const(6)  # tiles in flux at a place settled by asks; more: read it whole again
# focus(): the place in turn every fourth cycle, not every other (a discard
# awaited). Above the two 8-bit place fields, inside a small int.
_RR_SPARE = const(1 << 28)


def elapsed(now, then):
    return (now - then) & _WRAP


class Controller:
    """board: has readers, displays, leds (boards.pico.Board or the sim's).
    rs: the ruleset; enroll: table.enroll.Enrollment; logs: LogStore or None.
    claim_ms: claim window; settle_ms: how long an odd table must stay odd
    before a 'wrong tile count' alert; arrive/gone: scan filter (scans)."""

    def __init__(self, board, rs, enroll, logs=None, claim_ms=5000, settle_ms=1500,
                 arrive=2, gone=8, pay_ms=2000):
        self.board = board
        self.scanner = Scanner(board.readers, enroll, arrive, gone)
        self.np = 0
        self.state = IDLE
        self.new_match(rs)  # rs, rs_crc, np, obs, match
        self.alerts = Alerts(len(board.displays))
        self.display = TableDisplay(board.displays, board.leds, pay_ms)
        self.logs = logs
        self.claim_ms = claim_ms
        self.settle_ms = settle_ms
        self.game = None  # type: G.Game | None
        # The game and the log buffer are made once, here, while the heap is
        # whole, and used again in place each hand: a long-running table's
        # fragmented heap need not find blocks of about 1 KB at a hand's start.
        self._spare = self.match.new_game(self.match.exchange_direction())
        self._logbuf = bytearray(_LOG_ROOM)
        self.why_not = 0
        self.log = None
        self.log_id = 0
        self.writer = None  # type: handlog.Writer | None
        self._room = None
        self._keep_room()
        self._mark = 0
        self.window_at = 0
        self.accepted = 0
        self.last_action = None  # type: tuple | None
        self.refused = 0
        self.hands = 0
        self.log_failed = False
        self._rr = 0
        self._cycle = 0
        self._plan = bytearray(17)  # the cycle's places (scan_begin): 8 every, 8 often, 1 in turn
        self._plan_n = 0
        self._plan_i = 0
        self._again = 0  # reads of the current place again (scan_next)
        self._between = NOWHERE  # the place read before the next one again
        self._t = TILES  # the next tile to settle at the current place, TILES: read it
        self._planned = 0  # self.accepted when the cycle was planned
        self._odd_since = 0
        self._odd_changes = -1
        self._full_at = 0
        self.qing = -1  # the seat that announced 请胡 (long 胡), or -1
        self.down = 0  # the board's chips down at the last step (bits as Board.down)
        self._shown = 0  # ... as the console was last told
        self.fault = ""  # the last task failure (app.guard), or why the last boot reset
        self.crashes = 0  # task failures since boot
        self.keys_seen = 0  # key events taken since boot
        self.key_why = K_ACTED  # why the last one did nothing (K_*)

    # --- scanning ---------------------------------------------------------

    def focus(self):
        """Places (bit seat * 2 + antenna) to scan every cycle, in bits 0..15,
        and every other cycle, in bits 16..27: one int, as a tuple would be
        made every scan cycle. The places where the next move can happen are
        read most; the rest in turn, one place per two cycles (per four with
        _RR_SPARE set), so a tile moved anywhere is still seen, a little
        later."""
        g = self.game
        allp = (1 << 2 * self.np) - 1
        if self.state != PLAY or g is None:
            return allp  # between hands: see the table cleared quickly
        ph = g.phase
        if ph == G.PH_DEAL or ph == G.PH_EXCHANGE or ph == G.PH_DINGQUE or self.obs.transit():
            return 0x55 & allp  # the racks
        s = g.pseat if G.claim_open(ph) else g.turn
        every = 1 << 2 * s
        often = 2 << 2 * s  # a claim window: the discarder's tray
        spare = 0
        if ph == G.PH_DRAW or ph == G.PH_DISCARD:
            # A discard or a 杠 leaves the rack first, and the rack's read
            # asks the tray for what left (scan.settle): reading the tray
            # would only put the rack's next read off, where the move shows.
            often = 0
        if ph == G.PH_DISCARD:
            # So does a place read in turn, by 85 to 225 ms: while the
            # discard is awaited, half as often. Not at a draw: no display
            # waits on it, and a stray tag elsewhere is seen as soon as
            # before then (docs/decisions.md)
            spare = _RR_SPARE
        d = self.obs.due_seat
        if d >= 0:
            every |= 3 << 2 * d
        return every | (often & ~every) << 16 | spare

    def scan_cycle(self):
        """One whole scan cycle (blocking): scan_begin, then scan_next until False."""
        self.scan_begin()
        while self.scan_next():
            pass

    def scan_begin(self):
        """Plan a scan cycle: the focus places, then (every other cycle) the
        often places or (in the others, every other with _RR_SPARE) one
        more place in turn. The board's scan task runs it place by place
        (scan_next), yielding in between: a cycle can take most of a second,
        and the keys, the displays and the link must not wait for it."""
        f = self.focus()
        self._planned = self.accepted
        every = f & 0xFFFF
        often = f >> 16 & 0xFFF
        n = 2 * self.np
        plan = self._plan
        k = 0
        for p in range(n):
            if every >> p & 1:
                plan[k] = p
                k += 1
        self._cycle += 1
        if self._cycle & 1:
            for p in range(n):
                if often >> p & 1:
                    plan[k] = p
                    k += 1
        elif not (f & _RR_SPARE and self._cycle & 2):
            for _ in range(n):
                self._rr = (self._rr + 1) % n
                if not (every | often) >> self._rr & 1:
                    plan[k] = self._rr
                    k += 1
                    break
        self._plan_n = k
        self._plan_i = 0
        self._again = 0
        self._between = NOWHERE
        self._t = TILES

    def scan_next(self):
        """One step of the planned cycle (False when the cycle is done): a
        whole read of a place, or the asks that settle one tile the read left
        in flux there (Scanner.settle: an ask takes 3 to 6 ms on the board,
        where a rack's read takes 85 to 225), so a laid tile is confirmed,
        and a lifted one gone, within the step after the read that saw it.
        An unknown tag (no UID to ask for) or more than _ASK_MAX tiles in flux
        (a deal, a rack cleared) has the place read whole again instead, up
        to `gone` times, the place an arriving tile comes from first: the
        filter moves a tile only once its old place has missed it. A move
        taken (a step between two calls) plans the cycle anew from the places
        where the next move can happen."""
        if self._plan_i >= self._plan_n:
            return False
        if self._t >= TILES and self._again == 0 and self.accepted != self._planned:
            self.scan_begin()  # a move was taken: the next one is read for first
        sc = self.scanner
        p = self._plan[self._plan_i]
        if self._t >= TILES:
            if self._between != NOWHERE:
                sc.scan_place(self._between)
            sc.scan_place(p)
            self._t = sc.flux_first  # the first tile the read left in flux at p
            if self._again < sc.gone and (
                    0 < sc.unknown[p] < sc.arrive or sc.flux > _ASK_MAX):
                q = sc.arriving(p)
                self._again += 1
                self._between = q if 0 <= q != p else NOWHERE
                self._t = TILES
                return True
        t = sc.unsettled(p, self._t)
        if t < TILES:
            sc.settle(p, t)
            self._t = t + 1
            return True
        self._t = TILES
        self._again = 0
        self._between = NOWHERE
        self._plan_i += 1
        return self._plan_i < self._plan_n

    # --- the game ------------------------------------------------------------

    def step(self, now):
        """Read the table into the game (call after each scan cycle)."""
        self.alerts.expire(now)
        self._chips(now)
        st = self.state
        if st == PLAY:
            self._play(now)
        elif st == IDLE or st == FULL:
            if not self.scanner.enroll.complete():
                self.display.text = "Enr "  # no tiles known: enroll them from the host
                return
            if self.down & (1 << self.np) - 1:
                return  # a seat's reader is down: a hand there could not be read
            if self.scanner.empty() and (st == IDLE or elapsed(now, self._full_at) >= 2000):
                self.start_hand(now)
        elif st == END:
            if self.scanner.empty():
                self.state = DONE if self.match.over() or self.last else IDLE
                if self.state == IDLE:
                    self.start_hand(now)
                else:
                    self.display.clear_payments()  # the final scores stay up

    def _chips(self, now):
        """Chips that do not answer (boards.pico Board.down: bit s reader,
        4 + s display, 8 + s keys of seat s). A reader that failed 3 reads
        in a row, or a display whose writes failed twice in a row, is marked
        down (the board marks its expanders); a chip down is not touched but by the
        board's retry, and taken back once it answers. Its seat shows a chip
        alert, logged once when the chip goes down; the other seats play on."""
        b = self.board
        sc = self.scanner
        d = self.display
        al = self.alerts
        for s in range(d.seats):
            if sc.errors[s] >= 3:
                b.down |= 1 << s
            if d.failed[s] >= 2:  # twice: one can be the rp2 port's echo of another's timeout
                b.down |= 16 << s
        back = b.retry(now)
        if 0 <= back < 4:
            sc.errors[back] = 0
        elif 4 <= back < 8:
            d.redraw(back - 4)
        down = b.down
        sc.skip = down & 15
        d.down = down >> 4 & 15
        if down != self._shown:  # the console says so (bits as Board.down)
            self._shown = down
            print("chips not answering: %03x" % down)
        new = down & ~self.down
        self.down = down
        for s in range(d.seats):
            c = self._reader_alert(s) if down >> s & 1 else (
                alerts.KEYS if down >> 8 + s & 1 else (alerts.DISPLAY if down >> 4 + s & 1 else 0))
            if c:
                if al.code[s] == 0 or al.by_key[s] == 2:
                    al.raise_(s, c, now)
                if new >> s & 0x111:
                    self._log_alert(s, c, 0, now)
            elif al.by_key[s] == 2:
                al.clear(s)

    def _reader_alert(self, s):
        """A reader down: FIELD when it answers but its field stays off (the
        driver's field_fault: antenna, its tuning or the TX supply), READER
        when it does not answer at all (the cable)."""
        return alerts.FIELD if self.board.readers[s].field_fault else alerts.READER

    def new_match(self, rs):
        """A match under ruleset rs begins (the table must not be in a hand).
        Its players may be fewer than the last match's: they sit at seats
        0..players-1, and the observer follows that many racks."""
        self.rs = rs
        self.rs_crc = rs.crc()  # each hand's log names it: found once a match
        if rs[R.P_PLAYERS] != self.np:
            self.np = rs[R.P_PLAYERS]
            self.obs = Observer(self.scanner, self.np)
        self.match = G.Match(rs)
        self.last = False  # the hand in play is the match's last (its time is up)
        self.state = IDLE  # the next hand starts on an empty table

    def start_hand(self, now):
        """Begin the next hand (the table must be empty); False if the log
        store refuses (state FULL, why_not = logstore reason)."""
        if self.logs is not None:
            ok, why = self.logs.can_start_hand()
            if not ok:
                self.state = FULL
                self.why_not = why
                self._full_at = now
                self.display.text = "FULL"
                return False
        self.display.text = None
        # no half-built hand is left in play if building the next one fails
        self.game = None
        self.writer = None
        d = self.match.exchange_direction()
        g = self.match.new_game(d, self._spare)
        self.game = g
        self.obs.reset()
        self.qing = -1
        for s in range(self.np):
            self.alerts.clear(s)
        self.display.clear_payments()
        self.writer = handlog.Writer(self.rs_crc, self.np, g.dealer, d, now, self._logbuf)
        # The log file opens with the hand's first record after the head
        # (_open_log): a table switched off while it waits for the deal leaves
        # no log, where a head alone would reach the host as a hand cut short.
        self._mark = len(self.writer.buf)  # the head, written at the open
        self.log = None
        self.log_failed = False
        self.down = 0  # the chips down now are logged again in this hand
        self.state = PLAY
        return True

    def in_hand(self):
        """True once the hand in play has begun: its first record logged (an
        action, or an alert), or an action taken where no log is kept. A
        table waiting for its deal is not in a hand: the host may push rules,
        or start or end the match, and a match whose time is up ends there."""
        w = self.writer
        return self.state == PLAY and (self.log is not None or self.log_failed or (
            w is not None and len(w.buf) > handlog.HEADER_LEN))

    def _open_log(self):
        """Open the hand's log and write its head: the log, or None (and
        log_failed) if the store refuses or the flash fails: nothing
        unlogged is accepted."""
        # Let go of the room without a collection: the small allocations
        # before the file opens land elsewhere, and the open's large one,
        # failing, collects and finds the room's block.
        self._room = None
        w = self.writer
        if self.logs is None or w is None:
            return None
        try:
            log = self.logs.new_log()
            self.log = log
            self.log_id = log.log_id
            log.append(REC_HEAD, w.buf[:handlog.HEADER_LEN])
        except (OSError, ValueError, LogError):
            self.log_failed = True
            return None
        return log

    def _flush(self, rtype):
        w = self.writer
        if w is None:
            return
        if len(w.buf) > self._mark:
            self._append(rtype, w.buf[self._mark:])
        self._mark = len(w.buf)

    def _append(self, rtype, payload):
        if self.state != PLAY or self.log_failed or self.logs is None:
            return
        log = self.log if self.log is not None else self._open_log()
        if log is None:
            return
        try:
            log.append(rtype, payload)
        except (OSError, ValueError):
            self.log_failed = True  # stop the game: nothing unlogged is accepted

    def _log_alert(self, seat, code, reason, now):
        if self.state == PLAY:
            t = now & 0xFFFFFFFF
            self._append(REC_ALERT, bytes((seat, code, reason, t & 0xFF, (t >> 8) & 0xFF,
                                           (t >> 16) & 0xFF, t >> 24)))

    def _alert(self, seat, code, now, reason=0, by_key=False):
        if self.alerts.raise_(seat, code, now, reason, by_key):
            self._log_alert(seat, code, reason, now)

    def _play(self, now):
        g = self.game
        sc = self.scanner
        if g is None:
            return
        if self.log_failed:
            for s in range(self.np):
                self._alert(s, alerts.FULL, now)
            return
        s = sc.unknown_seat()
        if s >= 0:
            self._alert(s, alerts.TAG, now)
            return
        s = sc.dual_seat()
        if s >= 0:
            self._alert(s, alerts.TWO, now)
            return
        a = self.obs.classify(g)
        ob = self.obs
        if ob.problem_seat >= 0:
            if ob.settle:
                if sc.changes != self._odd_changes or sc.pending:
                    self._odd_changes = sc.changes
                    self._odd_since = now
                    return
                if elapsed(now, self._odd_since) < self.settle_ms:
                    return
            self.alerts.clear_table(ob.problem_code)
            self._alert(ob.problem_seat, ob.problem_code, now)
            return
        self._odd_changes = -1
        if a is None:
            if not ob.waiting:
                self.alerts.clear_table()
            self._claim_timer(now)
            return
        if sc.pending:
            return  # a tile is still arriving somewhere: read the table once it is still
        if self._hu_down():
            return  # 胡 is being pressed: the tile laid aside with it is not a discard
        k = a[0]
        if k == G.DISCARD and a[1] == self.qing:
            k = G.QINGHU  # announced by a long 胡: this discard is the 请胡 single
        self._apply((k, a[1], a[2], now), now, False)

    def _hu_down(self):
        bs = getattr(self.board, "buttons", None)
        if not bs:
            return False
        for b in bs:
            if b.pressed(B.HU) or b.down(B.HU):  # down: before its debounce is over
                return True
        return False

    def _claim_timer(self, now):
        g = self.game
        if g is None or not G.claim_open(g.phase):
            return
        if elapsed(now, self.window_at) < self.claim_ms:
            return
        for s in range(self.np):
            if g.prompt_mask(s):
                a = (G.PASS, s, -1, now)
                if g.check(a) == MUST_WIN:
                    a = (G.HU, s, -1, now)
                if not self._apply(a, now, True):
                    return
                if not G.claim_open(g.phase):
                    return

    def _apply(self, a, now, by_key):
        """Offer action a to the engine; True if accepted."""
        g = self.game
        if g is None:
            return False
        r = g.check(a)
        if r:
            self.refused += 1
            code = alerts.from_reason(r)
            if not by_key and code == alerts.REFUSED:
                code = alerts.COUNT if a[0] in (G.DEAL, G.EXCHANGE) else code
            self._alert(a[1], code, now, r, by_key)
            return False
        self.obs.before(g)
        evs = g.apply(a)
        self.obs.accepted(g, a, evs)
        w = self.writer
        if w is not None:
            w.record(a, evs)
        self.accepted += 1
        self.last_action = a
        if a[1] == self.qing:
            self.qing = -1  # a 请胡 announced holds until the seat's next action
        self.alerts.clear(a[1])
        self.alerts.clear_table()
        end = False
        for e in evs:
            k = e[0]
            if k == EV_PAY:
                self.display.payment(e[1], -e[3], now)
                self.display.payment(e[2], e[3], now)
            elif k == EV_PHASE and G.claim_open(e[1]):
                self.window_at = now
            elif k == EV_HAND_END:
                end = True
        # Shown before it is logged: on the board the log's sync takes ~50 ms
        # (LittleFS copies the file's last block to a new one), and nothing
        # waits on it but the host's stream of the record.
        self.refresh(now)
        self._flush(REC_ACT)
        if end:
            self._end_hand(now)
        return True

    def _end_hand(self, now):
        g = self.game
        if g is None:
            return
        d = bytearray(2 * self.np)
        for s in range(self.np):
            v = g.delta[s] & 0xFFFF
            d[2 * s] = v & 0xFF
            d[2 * s + 1] = v >> 8
        self._append(_REC_END, d)
        if self.log is not None:
            try:
                self.log.close()
            except OSError:
                pass
        self.log = None
        self._keep_room()
        self.match.finish(g)
        self.hands += 1
        self.state = END

    def _keep_room(self):
        """Hold a block for the next hand's log file while the table is
        cleared: taken now, just after a collection has freed the closed
        file's block, rather than at the next start, after the scans between
        hands have scattered small objects over the free space."""
        if self.logs is not None and self._room is None:
            gc.collect()  # the room takes the lowest hole that fits it
            try:
                self._room = bytearray(_FILE_ROOM)
            except MemoryError:
                self._room = None  # the next start tries without it

    def settled(self):
        """True when the table is as the game expects (nothing moving, owed
        or wrong): what a player (or a bot) waits for before the next move."""
        if self.state != PLAY:
            return True
        ob = self.obs
        return (ob.nd == 0 and ob.due_seat < 0 and not self.scanner.pending
                and not ob.transit() and not self.alerts.table_alert())

    # --- keys ---------------------------------------------------------------

    def key(self, seat, ev, now):
        """A key event (drivers.buttons) from `seat`; True if an action was
        accepted. Counted, with why the last one did nothing (INFO keys=)."""
        self.keys_seen += 1
        why = self._key(seat, ev, now)
        self.key_why = why
        return why == K_ACTED

    def _key(self, seat, ev, now):
        g = self.game
        if self.state != PLAY or g is None or seat >= self.np:
            return K_NO_HAND
        if self.alerts.table_alert():
            return K_TABLE  # the table first
        k = B.index_of(ev)
        claim = G.claim_open(g.phase)
        if B.kind_of(ev) == B.LONG:
            if k == B.PENG and claim and self.rs[R.P_TINGYONG]:
                return self._applied((G.FEI, seat, -1, now), now)  # 飞 by choice
            if k != B.HU:
                return K_LONG
            return K_ACTED if self._declare(g, seat, now) else K_REFUSED
        if B.kind_of(ev) != B.SHORT:
            return K_LONG
        ph = g.phase
        arg = -1
        if k == B.HU:
            kind = G.HU
        elif k == B.PENG:
            kind = G.PENG
            if self.rs[R.P_TINGYONG] and g.check((kind, seat, -1, now)) and not g.check(
                    (G.FEI, seat, -1, now)):
                kind = G.FEI  # 宜宾: only a 飞 (one real copy and a wild) is open
        elif k == B.GANG:
            if not claim:
                return K_NOT_NOW  # 暗杠 / 补杠: the tiles tell
            kind = G.ZHIGANG
        elif k == B.GUO:
            if not claim:
                return K_NOT_NOW
            kind = G.PASS
        elif B.WAN <= k <= B.TIAO:
            if ph != G.PH_DINGQUE:
                return K_NOT_NOW
            kind = G.DINGQUE
            arg = k - B.WAN
        else:
            return K_NOT_NOW
        return self._applied((kind, seat, arg, now), now)

    def _applied(self, a, now):
        return K_ACTED if self._apply(a, now, True) else K_REFUSED

    def _declare(self, g, seat, now):
        """A long press of 胡 (断卡根): 报胡 while the engine allows it (before
        the seat's first draw; the dealer before its first discard), else it
        announces 请胡: the seat's next discard read off the tiles is the
        请胡 single (QINGHU), if some single of its hand may be one now."""
        if not self.rs[R.P_BAOHU] and not self.rs[R.P_QINGHU]:
            return False
        a = (G.BAOHU, seat, -1, now)
        r = g.check(a)
        if not r:
            return self._apply(a, now, True)
        if self.rs[R.P_QINGHU] and g.phase == G.PH_DISCARD and g.turn == seat:
            h = g.hand[seat]
            for f in range(27):
                if h[f]:
                    r = g.check((G.QINGHU, seat, f, now))
                    if not r:
                        self.qing = seat
                        return False
        self._alert(seat, alerts.REFUSED, now, r, True)
        return False

    # --- displays -----------------------------------------------------------

    def score(self, s):
        if s >= self.np:
            return 0  # a seat nobody plays at
        v = self.match.totals[s]
        g = self.game
        if self.state == PLAY and g is not None:
            v += g.delta[s]
        return v

    def refresh(self, now):
        """Bring every seat's display and LEDs up to date."""
        g = self.game
        play = self.state == PLAY and g is not None
        for s in range(len(self.display.displays)):
            turn = False
            void = 255
            prompt = 0
            st = S_IDLE if s < self.np else S_OFF
            if play and g is not None and s < self.np:
                ph = g.phase
                st = S_PLAY
                turn = g.turn == s and (ph == G.PH_DRAW or ph == G.PH_DISCARD)
                void = g.void[s]
                prompt = g.prompt_mask(s)
                if g.status[s] & ST_WON:
                    st = S_WON
                elif ph == G.PH_EXCHANGE and not g.status[s] & ST_GAVE:
                    st = S_EXCHANGE
                elif ph == G.PH_DINGQUE and not g.status[s] & ST_QUE:
                    st = S_DINGQUE
                elif s == self.qing:
                    st = S_QING
            self.display.show(s, now, self.score(s), turn, void, prompt, self.alerts.code[s], st)
        self.display.tick(now)
