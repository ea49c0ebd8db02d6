"""The virtual table's bots (sim/mjsim/virtual.py VirtualTable: its racks,
trays, bots, faults and truth) playing against the firmware on an EmuBoard.

On the unix port the firmware reports its state to the virtual table after
each scan cycle (mjsim/board.py); a board has no such channel. Here the bots
see what a host and a player see: the actions the table accepted, from the
host link's event stream (WATCH: each hand-log record as it is written), and
the seat displays. A move is made once the table has accepted every earlier
one and SETTLE_MS of emulated time have passed since (a player waiting for the
display), in steps of FRAME_MS of emulated time, run by the bridge between two
bus events (the CPU paused), so the moves' timing is exact in emulated time.
"""

import bisect
import struct
import threading
import time

from mjtable.link import client as L
from mjtable.link import protocol as P
from mjtable.logs.logfmt import T_ACT, T_ALERT, T_END, T_HEAD
from mjtable.rules import names
from mjtable.tableops import info as tableinfo
from sichuan import game as G
from sichuan import handlog

from mjsim import virtual as V

FRAME_MS = 200  # a bot looks at the table this often (emulated ms); a key is held 2 frames
SETTLE_MS = 300  # and moves this long after the table accepted its last move
ALERT_MS = 2000  # an alert event counts as showing this long
SHOWN_MS = 100  # a display write this long after a move's acceptance still shows it
STALL_NS = 60 * 10**9  # nothing new on the link this long (emulated): stuck


class Watch:
    """A host link session with WATCH on, read in a thread: what the table
    accepted (count, last action), the hands begun and ended, points per
    hand, alerts. `at` is the emulated ns of the last accepted action."""

    def __init__(self, board, in_play=True):
        self.board = board
        self.accepted = 0
        self.last = None
        self.at = 0
        self.heads = 1 if in_play else 0  # a booted table with its map starts hand 0
        self.ends = 0
        self.points = []  # per hand, per seat (the table's T_END records)
        self.alerts = {}  # seat -> (code, emulated ns)
        self.actions = []  # (kind, seat, arg) of every accepted action
        self.accepted_at = []  # the emulated ns each was seen on the link
        self.ready_ns = None  # emulated ns the link first answered
        # the head of the hand in play (hand 0's came before this session: a
        # stand-in; an action record's own bytes do not depend on it)
        self.head = b"HL\x01" + bytes(handlog.HEADER_LEN - 3)
        self.errors = []
        self.info_misses = 0  # INFOs between hands that got no answer in time
        self._stop = threading.Event()
        self._ready = threading.Event()
        self.link = None
        self.progress = False  # print a line at each hand's end
        self._t0 = time.monotonic()

    def start(self, timeout=120.0):
        self._thread = threading.Thread(target=self._run, args=(timeout,), daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("no link to the board in %.0f s: %s" % (timeout, self.errors))
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(30)

    def _open(self, deadline):
        while True:
            ser = L.open_port(self.board.port, timeout=1.0)
            try:
                lk = L.Link(ser, key=self.board.key, timeout=10.0)
                lk.hello()
                lk.request(P.CMD_WATCH, b"\x01")
                return lk
            except L.LinkError as e:
                ser.close()
                self.errors.append(str(e))
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def _run(self, timeout):
        try:
            lk = self.link = self._open(time.monotonic() + timeout)
        except Exception as e:  # noqa: BLE001 (reported by start())
            self.errors.append(repr(e))
            return
        self.ready_ns = self.board.now_ns()
        self._ready.set()
        try:
            asked = 0.0
            while not self._stop.is_set():
                while lk.events:
                    kind, _seq, payload = lk.events.popleft()
                    if kind == P.EV_GAME:
                        self._event(payload)
                got = lk.read_frame(time.monotonic() + 0.2)
                if got is not None and got[0] == (P.EV_GAME | P.REPLY):
                    self._event(got[2])
                if self.heads == self.ends and time.monotonic() - asked >= 1.0:
                    asked = time.monotonic()
                    self._deal_wait(lk)
            try:
                lk.request(P.CMD_WATCH, b"\x00")
            except L.LinkError:
                pass
        finally:
            lk.stream.close()

    def _deal_wait(self, lk):
        """Between two hands: INFO, once a second of wall time, for the table
        waiting for its deal (state 5). The next hand's head comes only with
        its deal (table/controller.py), so the bots learn of the start as a
        host does, from INFO (the players at a table, from the displays)."""
        try:
            st = tableinfo.state_index(lk.info().get("state", ""))
        except L.LinkError:
            self.info_misses += 1  # a slow board: asked again a second later
            return
        if st == P.DEAL_WAIT and self.heads == self.ends:
            self.heads = self.ends + 1  # the hand after the last ended has begun

    def _event(self, payload):
        try:
            self.event(payload)
        except Exception as e:  # noqa: BLE001 (kept for the test to see)
            self.errors.append("event %s: %r" % (payload.hex(), e))

    def event(self, payload):
        if not payload:
            return
        t, data = payload[0], payload[1:]
        # when the board sent it: the host thread reads it later, the more so
        # on a loaded machine, and the CPU runs on meanwhile
        chips = getattr(self.board, "chips", None)  # a test's stand-in clock has none
        now = (chips.usb_at if chips is not None else 0) or self.board.now_ns()
        if t == T_HEAD:
            self.head = data
            # the hand after the last ended: when WATCH came on before hand
            # 0's head (a fast boot), that head is the hand taken as in play
            self.heads = self.ends + 1
        elif t == T_ACT:
            _, recs = handlog.decode(self.head + data)
            for r in recs:
                if r[0] == handlog.REC_ACTION:
                    k, s, a = r[1][0], r[1][1], r[1][2]
                    a = a if isinstance(a, int) and 0 <= a < 255 else -1
                    self.actions.append((k, s, a))
                    self.last = (k, s, a)
                    self.accepted += 1
                    self.accepted_at.append(now)
                    self.at = now
        elif t == T_ALERT and len(data) >= 3:
            self.alerts[data[0]] = (data[1], now)
        elif t == T_END:
            self.points.append(struct.unpack("<%dh" % (len(data) // 2), data))
            self.ends += 1
            if self.progress:  # a run of hours says how far it got
                print("board: hand %d ended, %d actions, %.0f emulated s, %.0f s wall" % (
                    self.ends, self.accepted, now / 1e9, time.monotonic() - self._t0),
                    flush=True)


class Status:
    """virtual_table.Status as the board shows it (see the module docstring)."""

    def __init__(self, w, vt, board, settle_ns):
        now = board.now_ns()
        self.frame = vt.frames
        self.accepted = w.accepted
        self.last = w.last
        over = w.ends >= vt.hands
        self.state = (V.S_PLAY if w.heads > w.ends else V.S_DONE if over else V.S_END)
        self.hand = max(0, w.heads - 1)
        self.phase = vt.g.phase if vt.g is not None else 255
        self.turn = vt.g.turn if vt.g is not None else 255
        self.alerts = [0, 0, 0, 0]
        for s, (code, at) in list(w.alerts.items()):
            if now - at < ALERT_MS * 1_000_000:
                self.alerts[s] = code
        self.settled = w.accepted == vt.count and now - w.at >= settle_ns
        self.totals = [sum(p[s] for p in w.points if s < len(p)) for s in range(4)]
        self.ram = b"".join(bytes(d.ram) for d in board.table.displays)
        shown = board.table.leds.shown
        self.leds = [led_state(shown[3 * s]) for s in range(4)]

    def texts(self):
        return V.Status.texts(self)


# drivers/ws2812.py's colours by state (OFF, TURN, CLAIM, ALERT, HU, WAIT), before scaling
_RGB = ((0, 255, 0), (0, 64, 255), (255, 0, 0), (255, 170, 0), (60, 60, 60))


def led_state(rgb):
    """The seat LED state a colour shows (0 when dark, as in a blink's off half)."""
    if not any(rgb):
        return 0
    n = sum(c * c for c in rgb) ** 0.5

    def cos(ref):
        return sum(a * b for a, b in zip(rgb, ref, strict=True)) / (
            n * sum(c * c for c in ref) ** 0.5)

    return 1 + max(range(len(_RGB)), key=lambda i: cos(_RGB[i]))


class BoardPlay:
    """vt's bots against the board: step every FRAME_MS emulated ms until vt
    is finished or `until(vt, watch)` says so."""

    def __init__(self, board, vt, until=None, frame_ms=FRAME_MS, settle_ms=SETTLE_MS,
                 on_frame=None):
        self.board = board
        self.vt = vt
        self.until = until
        self.frame_ns = frame_ms * 1_000_000
        self.settle_ns = settle_ms * 1_000_000
        self.on_frame = on_frame
        self.keys = [0, 0, 0, 0]
        self.done = threading.Event()
        self.watch = Watch(board)
        self.moved = {}  # vt.count after a move -> emulated ns the bots made it
        self._mark, self._since = None, 0

    def start(self):
        self.watch.start()
        self.board.at(self.board.now_ns() + self.frame_ns, self._frame)
        return self

    def _frame(self):  # the bridge thread, chips locked, CPU paused
        vt = self.vt
        st = Status(self.watch, vt, self.board, self.settle_ns)
        vt.tick(st)
        self._stalled(vt)
        vt.feed(self.board.table, self.keys)
        self.moved.setdefault(vt.count, self.board.now_ns())
        if self.on_frame is not None:
            self.on_frame(st)
        if vt.finished or (self.until is not None and self.until(vt, self.watch)):
            self.done.set()
            return
        self.board.at(self.board.now_ns() + self.frame_ns, self._frame)

    def _stalled(self, vt):
        """vt counts a stall only while a move waits for the table; a table that
        never starts the next hand (vt's stage "start") is one too."""
        w = self.watch
        now = self.board.now_ns()
        mark = (w.accepted, w.heads, w.ends)
        if mark != self._mark:
            self._mark, self._since = mark, now
        elif not vt.finished and now - self._since > STALL_NS:
            vt.stuck = "stage %s: nothing new from the table for %d emulated s (%d actions, " \
                "%d heads, %d ends, %d INFOs unanswered)" % (
                    vt.stage, STALL_NS // 10**9, *mark, w.info_misses)
            vt.finished = True

    def latencies(self):
        """Each kind of move, from the bots making it to the table accepting it
        on the link, and to the first display write that changed what a
        display shows within SHOWN_MS of the acceptance (a draw changes none;
        a blink in that window would count): emulated ms, {"draw": {"n",
        "median", "worst", "display": {"n", "median", "worst"}}, ...}."""
        w, lat, shown = self.watch, {}, self.board.chips.shown
        for i, (k, _s, _a) in enumerate(w.actions[:len(w.accepted_at)]):
            if i + 1 not in self.moved:
                continue
            name = names.ACTION_NAMES[k] if k < len(names.ACTION_NAMES) else str(k)
            m, acc = self.moved[i + 1], w.accepted_at[i]
            link, disp = lat.setdefault(name, ([], []))
            link.append((acc - m) / 1e6)
            near = SHOWN_MS * 1_000_000  # the display is written in the step that took the move
            j = bisect.bisect_right(shown, max(m, acc - near))
            if j < len(shown) and shown[j] <= acc + near:
                disp.append((shown[j] - m) / 1e6)
        out = {}
        for k, (link, disp) in sorted(lat.items()):
            out[k] = _stats(link)
            if disp:
                out[k]["display"] = _stats(disp)
        return out

    def wait(self, timeout):
        """True when done within timeout (wall s)."""
        deadline = time.monotonic() + timeout
        while not self.done.wait(1.0):
            self.board._check_alive()
            if time.monotonic() > deadline:
                return False
        return True

    def stop(self):
        self.done.set()
        self.watch.stop()


def _stats(xs):
    return {"n": len(xs), "median": sorted(xs)[len(xs) // 2], "worst": max(xs)}


def first_actions(n):
    """until(): stop once the table has accepted n actions."""
    return lambda vt, w: w.accepted >= n


def dealt(vt, w):
    """until(): the first discard of the hand is accepted."""
    return any(a[0] == G.DISCARD for a in w.actions)


def pulled_hands(archive_path):
    """The hands `mjtable logs pull` archived, as the engine replays them:
    [{"actions": [(kind, seat, arg)], "points": the table's T_END points or
    None, "replayed": each seat's points by the engine, "diffs": where the
    engine's payments differ from the log's}], in log order."""
    from mjtable import archive
    from mjtable.logs import hands

    ar = archive.open_archive(archive_path, create=False)
    out = []
    try:
        for row in ar.logs():
            h = hands.load(ar, row[0])
            acts = []
            for r in h.records:
                if r[0] == handlog.REC_ACTION:
                    a = r[1][2]
                    acts.append((r[1][0], r[1][1], a if isinstance(a, int) and 0 <= a < 255
                                 else -1))
            g, diffs = hands.run(h)
            out.append({"actions": acts, "points": h.log.end_points(),
                        "replayed": list(g.delta), "diffs": diffs})
    finally:
        ar.close()
    return out
