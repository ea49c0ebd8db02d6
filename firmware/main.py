"""Entry point: the table controller as asyncio tasks.

On the board (sys.platform "rp2"): boards.pico wiring, files on the Pico's
LittleFS at /, the hardware watchdog fed by the scan task (a hung scan
resets the board within 8 s). On the unix port:

    micropython -X heapsize=96K main.py sim PORT FLASH_IMAGE [claim_ms [preset]]

runs the same controller on boards.sim, fed by tools/virtual_table.py over
TCP 127.0.0.1:PORT, with its files on a LittleFS2 volume in FLASH_IMAGE (a
file-backed block device the size of the Pico's filesystem). In the sim the
clock is the virtual table's, advanced one frame per scan cycle. Options
after those (sim only, `mjtable virtual-table` passes them):

    --link=fd:N | --link=PATH   the host link on an inherited pty master fd
                    (non-blocking) or on a tty path (set raw, VMIN 0)
    --key=HEX       the table key (32 bytes; saved on the volume)
    --button        the key button was held at boot (SETKEY open)
    --id=TEXT       the table id (8 bytes)
    --idle          boot with no match under way (the host starts one)
    --hands=N       end each match after N hands (short matches for tests)
    --rematch=MS    a new match MS ms (real time) after one ends
    --match-file=PATH   write "n crc hexblob" of each match's ruleset there
                    before it starts (the virtual table plays the same rules)

Tasks: scan (each cycle: scan the focus seats, read the table into the
game), keys (poll the seats' key expanders), display (displays and LEDs),
and the host link (table.link with table.hostcmds: docs/hostcmds.md).
"""

import asyncio
import sys
import time

from sichuan import presets
from table import controller as C
from table import store
from table.logstore import LogStore

ENROLL_FILE = "enroll.bin"  # the names table.hostcmds stores them under
RULES_FILE = "ruleset.bin"
LOG_DIR = "logs"
KEY_FILE = "key"  # the table key (32 bytes), table.store format
PRESET = "xuezhan"
LINK_BURST = 8  # link frames handled per wake of the link task


class Stats:
    """CPU time of the scan task (us, ticks_us on the board and the unix
    port): per scan cycle (scan + read the table into the game), and the
    largest live heap seen (sampled after a collection every 32 cycles)."""

    def __init__(self):
        self.cycles = 0
        self.scan_us = 0
        self.step_us = 0
        self.max_cycle_us = 0
        self.live_peak = 0

    def sample_heap(self):
        import gc

        gc.collect()
        a = gc.mem_alloc()
        if a > self.live_peak:
            self.live_peak = a

    def line(self):
        import gc

        return "STATS cycles=%d scan_us=%d step_us=%d max_cycle_us=%d live_peak=%d heap=%d" % (
            self.cycles, self.scan_us, self.step_us, self.max_cycle_us, self.live_peak,
            gc.mem_alloc() + gc.mem_free())


async def scan_task(ctl, clock, wdt, sim, stats):
    import time

    while True:
        if sim is not None:
            sim.report(ctl)
            if not sim.frame():
                return
        t0 = time.ticks_us()
        ctl.scan_cycle()
        t1 = time.ticks_us()
        ctl.step(clock())
        t2 = time.ticks_us()
        stats.cycles += 1
        stats.scan_us += time.ticks_diff(t1, t0)
        stats.step_us += time.ticks_diff(t2, t1)
        c = time.ticks_diff(t2, t0)
        if c > stats.max_cycle_us:
            stats.max_cycle_us = c
        if stats.cycles & 31 == 0:
            stats.sample_heap()
        if wdt is not None:
            wdt.feed()
        await asyncio.sleep_ms(0 if sim is not None else 5)


async def key_task(ctl, board, clock, sim):
    while True:
        board.refresh_inputs()
        now = clock()
        for s in range(len(board.buttons)):
            ev = board.buttons[s].poll(now)
            while ev:
                ctl.key(s, ev, now)
                ev = board.buttons[s].next()
        await asyncio.sleep_ms(0 if sim is not None else 10)


async def display_task(ctl, clock, sim):
    while True:
        ctl.refresh(clock())
        await asyncio.sleep_ms(0 if sim is not None else 50)


async def link_task(hl, sim):
    """Poll the host link: each wake handles at most LINK_BURST frames (each
    bounded: one read, one frame, one write attempt), then yields, so the
    game never waits on the host."""
    link = hl.link
    host = hl.host
    idle_ms = 1 if sim is not None else 5
    while True:
        n = 0
        while n < LINK_BURST and link.poll():
            n += 1
        host.poll()
        hl.tick()
        await asyncio.sleep_ms(0 if n else idle_ms)


async def run(ctl, board, clock, wdt=None, sim=None, stats=None, hl=None):
    if stats is None:
        stats = Stats()
    scan = asyncio.create_task(scan_task(ctl, clock, wdt, sim, stats))
    keys = asyncio.create_task(key_task(ctl, board, clock, sim))
    disp = asyncio.create_task(display_task(ctl, clock, sim))
    lnk = asyncio.create_task(link_task(hl, sim)) if hl is not None else None
    await scan
    keys.cancel()
    disp.cancel()
    if lnk is not None:
        lnk.cancel()
    await asyncio.sleep_ms(0)


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
            current_log=self.current_log, table_id=table_id)
        ctl.logs = LiveLogs(logs, self.host)

    def _save_key(self, key):
        store.write(self.root + "/" + KEY_FILE, key)

    def busy(self):
        return self.ctl.state == C.PLAY  # a hand in play

    def current_log(self):
        ctl = self.ctl
        return ctl.log.log_id if ctl.log is not None else -1

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
            self.new_match()
        else:
            self.ctl.state = C.DONE  # no match under way

    def new_match(self):
        """Start a match with the active ruleset (the table must not be in a hand)."""
        from sichuan import game as G

        ctl = self.ctl
        rs = self.next_rules
        self.matches += 1
        self.announce()
        ctl.rs = rs
        ctl.match = G.Match(rs)
        ctl.state = C.IDLE  # the next hand starts on an empty table
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
        if self.hands and ctl.state == C.END and ctl.match.hand_no >= self.hands:
            ctl.state = C.DONE  # the match is as long as asked
        if ctl.state != C.DONE or self.rematch_ms < 0:
            return
        now = time.ticks_ms()
        if not self._done:
            self._done = True
            self._done_at = now
        elif time.ticks_diff(now, self._done_at) >= self.rematch_ms:
            self.new_match()


def load_key(root):
    """The table key saved on flash (32 bytes), or None."""
    st, key = store.load(root + "/" + KEY_FILE)
    return key if st == store.OK and len(key) == 32 else None


def boot(board, root, enrollment_blob=None, claim_ms=5000, preset=PRESET):
    """Load the enrollment (or store the one given) and build the controller."""
    from table.enroll import Enrollment

    en = Enrollment()
    path = root + "/" + ENROLL_FILE
    status = en.load(path)
    if status != store.OK and enrollment_blob is not None:
        en.load_blob(enrollment_blob)
        en.save(path)
    logs = LogStore(root + "/" + LOG_DIR)
    failed = board.init()
    if failed:
        print("chips not answering:", failed)
    return C.Controller(board, active_rules(root, preset), en, logs, claim_ms=claim_ms)


def active_rules(root, preset):
    """The ruleset the host pushed (RULES_FILE, as table.hostcmds stores it),
    else the named preset."""
    from sichuan import ruleset as R

    status, blob = store.load(root + "/" + RULES_FILE)
    if status == store.OK:
        try:
            return R.from_blob(blob)
        except ValueError:
            print("stored ruleset refused; playing", preset)
    return presets.get(preset)


def main_board():
    import machine
    from boards import pico
    from table import usbport

    # the link's USB interface first: adding it re-enumerates the device
    read, write, _ = usbport.open_stream()
    board = pico.make(machine)
    ctl = boot(board, "")
    hl = HostLink(ctl, "", read, write, key=load_key(""), button=key_button(board),
                  table_id=machine.unique_id())
    wdt = machine.WDT(timeout=8000)
    asyncio.run(run(ctl, board, time.ticks_ms, wdt, hl=hl))


def key_button(board):
    """The key button: seat 0's 过 key, sampled once at boot (docs/protocol.md,
    The key). Holding it while the table powers up opens SETKEY."""
    from drivers import buttons as B

    try:
        board.refresh_inputs()
        return board.buttons[0].pins[B.GUO].value() == 0  # active low
    except (OSError, IndexError):
        return False


def sim_options(argv):
    """The --name=value options of main_sim (module docstring)."""
    o = {"link": None, "key": None, "button": False, "id": "VIRTUAL1", "idle": False,
         "hands": 0, "rematch": -1, "match-file": None}
    for a in argv:
        if not a.startswith("--"):
            continue
        name, _, value = a[2:].partition("=")
        if name not in o:
            raise ValueError("main.py: unknown option " + a)
        if isinstance(o[name], bool):
            o[name] = True
        elif isinstance(o[name], int):
            o[name] = int(value)
        else:
            o[name] = value
    return o


def main_sim(argv):
    from boards import sim
    from table import blockdev

    pos = [a for a in argv if not a.startswith("--")]
    o = sim_options(argv)
    port = int(pos[2])
    image = pos[3]
    claim_ms = int(pos[4]) if len(pos) > 4 else 5000
    preset = pos[5] if len(pos) > 5 else PRESET
    fresh = True
    try:
        import os

        os.stat(image)
        fresh = False
    except OSError:
        pass
    blockdev.mount(image, "/flash", fresh=fresh)
    st = sim.SocketTable(port)
    ctl = boot(st.board, "/flash", st.enrollment, claim_ms, preset)
    hl = None
    if o["link"] is not None:
        key = o["key"]
        if key is not None:
            key = bytes.fromhex(key)
            store.write("/flash/" + KEY_FILE, key)
        else:
            key = load_key("/flash")
        from table import ptyport

        read, write = ptyport.stream(ptyport.open_pty(o["link"]))
        tid = (o["id"].encode() + bytes(8))[:8]
        hl = HostLink(ctl, "/flash", read, write, key=key, button=o["button"], table_id=tid,
                      hands=o["hands"], rematch_ms=o["rematch"], match_file=o["match-file"])
        hl.announce()
        if o["idle"]:
            ctl.state = C.DONE  # no match until the host starts one
        print("link: ready")
    stats = Stats()
    stats.sample_heap()
    asyncio.run(run(ctl, st.board, st.ticks_ms, None, st, stats, hl))
    stats.sample_heap()
    print(stats.line())
    st.close()


if sys.platform == "rp2":
    main_board()
elif len(sys.argv) > 3 and sys.argv[1] == "sim":
    main_sim(sys.argv)
