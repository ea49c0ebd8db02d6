"""The table controller as asyncio tasks: what main.py starts (start()).

On the board (sys.platform "rp2"): boards.pico wiring, files on the Pico's
LittleFS at /, the hardware watchdog fed by the scan task and, for one
long step of the game, by a timer (table/watchdog.py: a scan task stuck
for a minute resets the board). On the MicroPython unix port the simulation
room's entry (sim/mjsim/unixmain.py) builds the same controller with boot()
and runs it with run() on a simulated board.

Tasks: scan (each cycle: scan the focus seats, read the table into the
game), keys (poll the seats' key expanders), display (displays and LEDs),
and the host link (table.link with table.hostcmds: docs/hostcmds.md).
"""

import asyncio
import gc
import sys
import time

from table import controller as C
from table import store
from table.logstore import LogStore

ENROLL_FILE = "enroll.bin"  # the names table.hostcmds stores them under
RULES_FILE = "ruleset.bin"
RESET_FILE = "reset.bin"  # why the watchdog is about to reset the board (stuck())
LOG_DIR = "logs"
PRESET = "xuezhan"


class Stats:
    """CPU time of the scan task (us, ticks_us on the board and the unix
    port): per scan cycle (scan + read the table into the game), and the
    largest live heap seen (sampled after a collection every 32 cycles). In
    the sim also the bytes the scans and the display refreshes allocate (the
    hot paths, meant to allocate nothing), counted over the calls no
    collection interrupted: gc.mem_alloc() walks the heap, too slow for the
    board's cycle."""

    def __init__(self):
        self.cycles = 0
        self.scan_us = 0
        self.step_us = 0
        self.max_cycle_us = 0
        self.live_peak = 0
        self.alloc = [0, 0, 0, 0]  # scan bytes, scans counted, refresh bytes, refreshes

    def count_alloc(self, i, before):
        a = gc.mem_alloc()
        if a >= before:  # else a collection ran meanwhile
            self.alloc[i] += a - before
            self.alloc[i + 1] += 1

    def sample_heap(self):
        gc.collect()
        a = gc.mem_alloc()
        if a > self.live_peak:
            self.live_peak = a

    def line(self):
        a = self.alloc
        return ("STATS cycles=%d scan_us=%d step_us=%d max_cycle_us=%d live_peak=%d heap=%d"
                " scan_alloc=%d scans=%d refresh_alloc=%d refreshes=%d") % (
            self.cycles, self.scan_us, self.step_us, self.max_cycle_us, self.live_peak,
            gc.mem_alloc() + gc.mem_free(), a[0], a[1], a[2], a[3])


async def scan_task(ctl, clock, wdt, sim, stats):
    while True:
        if sim is not None:
            sim.report(ctl)
            if not sim.frame():
                return
        m = gc.mem_alloc() if sim is not None else 0
        t0 = time.ticks_us()
        if sim is not None:
            ctl.scan_cycle()  # the sim's clock is one frame a cycle
        else:
            ctl.scan_begin()
            seen = ctl.scanner.changes
            while ctl.scan_next():
                if ctl.scanner.changes != seen:  # a tile confirmed: into the game now
                    seen = ctl.scanner.changes
                    ctl.step(clock())  # a move taken is on the displays at once (_apply)
                await asyncio.sleep_ms(0)  # keys, displays and the link between two reads
        t1 = time.ticks_us()
        if sim is not None:
            stats.count_alloc(0, m)
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


async def display_task(ctl, clock, sim, stats):
    while True:
        m = gc.mem_alloc() if sim is not None else 0
        ctl.refresh(clock())
        if sim is not None:
            stats.count_alloc(2, m)
        await asyncio.sleep_ms(0 if sim is not None else 50)


async def guard(ctl, fn, *args):
    """Run the task fn(*args) for good: one that raises is printed with its
    traceback, reported (ctl.crashes, ctl.fault: INFO `crashes`, `fault`)
    and started again a second later. No task dies silently, and a failing
    one leaves the others, and the link, running."""
    while True:
        try:
            return await fn(*args)
        except Exception as e:  # asyncio.CancelledError is no Exception
            sys.print_exception(e)
            ctl.crashes += 1
            ctl.fault = "%s %r" % (fn.__name__, e)
        await asyncio.sleep_ms(1000)


def key_sampler(board, clock):
    """The keys sampled into their queues (key_task takes the events): the
    scanner calls it between two reads, each of which blocks for up to
    ~100 ms, so that a short press is not missed while a cycle runs."""
    bs = board.buttons

    def sample():
        board.refresh_inputs()
        now = clock()
        for b in bs:
            b.sample(now)

    return sample


async def run(ctl, board, clock, wdt=None, sim=None, stats=None, hl=None):
    if stats is None:
        stats = Stats()
    g = asyncio.create_task
    if sim is None:
        ctl.scanner.idle = key_sampler(board, clock)
    scan = g(guard(ctl, scan_task, ctl, clock, wdt, sim, stats))
    keys = g(guard(ctl, key_task, ctl, board, clock, sim))
    disp = g(guard(ctl, display_task, ctl, clock, sim, stats))
    lnk = None
    if hl is not None:
        lnk = g(guard(ctl, hl.serve, 1 if sim is not None else 5))
    await scan
    keys.cancel()
    disp.cancel()
    if lnk is not None:
        lnk.cancel()
    await asyncio.sleep_ms(0)


def collect():
    """A collection between the boot's steps. The allocator takes the lowest
    free block that fits, and garbage is not free until collected: without
    these, each step's long-lived objects land past the last step's
    garbage, whose holes then cut up the heap the hands need (docs/table.md
    has the smallest heap that plays a match, before and after)."""
    gc.collect()


def boot(board, root, rs, enrollment_blob=None, claim_ms=5000):
    """Load the enrollment (or store the one given) and build the controller
    playing ruleset rs (active_rules)."""
    from table.enroll import Enrollment

    en = Enrollment()
    path = root + "/" + ENROLL_FILE
    status = en.load(path)
    if status != store.OK and enrollment_blob is not None:
        en.load_blob(enrollment_blob)
        en.save(path)
    collect()
    logs = LogStore(root + "/" + LOG_DIR)
    for r in logs.repairs:  # a power cut tore the last record: cut off, kept out
        print("log %d repaired: %d B of a torn record %d cut" % r)
    for d in logs.damaged:
        print("log %d damaged (reason %d at record %d, byte %d): kept, no appends" % d)
    down = board.init()
    for b in range(12):  # bits as boards.pico Board.down
        if down >> b & 1:
            print("chip not answering:", ("reader", "display", "keys")[b >> 2] + str(b & 3))
    collect()
    ctl = C.Controller(board, rs, en, logs, claim_ms=claim_ms)
    st, why = store.load(root + "/" + RESET_FILE)
    if st != store.MISSING:
        ctl.fault = "reset: " + (why.decode() if st == store.OK else "?")
        print(ctl.fault)
        store.remove(root + "/" + RESET_FILE)
    return ctl


def stuck(root, ctl):
    """The watchdog's on_stuck: why the board is about to reset, stored for
    the next boot to report (boot(): printed, INFO `fault`)."""

    def f(ms):
        store.write(root + "/" + RESET_FILE, ("scan task silent %d ms; last fault: %s" % (
            ms, ctl.fault)).encode())

    return f


def active_rules(root, preset):
    """The ruleset the host pushed (RULES_FILE, as table.hostcmds stores it),
    else the named preset. Called before the board is made: the presets
    module is dropped after its one call, and the board's many small objects
    fill the holes it leaves, where the hands' larger blocks would not fit."""
    from sichuan import ruleset as R

    status, blob = store.load(root + "/" + RULES_FILE)
    if status == store.OK:
        try:
            return R.from_blob(blob)
        except ValueError:
            print("stored ruleset refused; playing", preset)
    elif status == store.CORRUPT:
        print("stored ruleset corrupt; playing", preset)
    from sichuan import presets

    rs = presets.get(preset)
    # One call's worth: its tables and functions, 2.5 KB of the live peak
    # on the unix port, given back (table.hostcmds imports it again if it must).
    del sys.modules["sichuan.presets"]
    del sys.modules["sichuan"].presets
    return rs


_locked = False  # a keyed table: the REPL stays shut (main_board, start)


def _usb_mode(key, button):
    """INFO usb=: "open" (no key), "maint" (key, key button held at boot:
    REPL and deploy open), else "locked": only the link answers on USB."""
    return "open" if key is None else ("maint" if button else "locked")


def main_board():
    global _locked
    import machine
    import micropython
    from boards import pico
    from table import hostlink, usbport, watchdog

    key = hostlink.load_key("")
    # A keyed table is locked until the key button says otherwise: Ctrl-C
    # is a byte like any other (main.py turned it off), so neither mpremote
    # nor a terminal reaches the REPL, and start() resets rather than let
    # the program end into it. Without a key it works as on any board.
    _locked = key is not None
    micropython.kbd_intr(-1 if _locked else 3)
    # the link's USB interface first: adding it re-enumerates the device
    read, write, _ = usbport.open_stream()
    rs = active_rules("", PRESET)
    collect()
    board = pico.make(machine)
    collect()
    ctl = boot(board, "", rs)
    button = hostlink.key_button(board)  # after boot's board.init(): expanders set up
    usb = _usb_mode(key, button)
    if usb == "maint":
        micropython.kbd_intr(3)
        _locked = False
        print("maintenance: key button held at boot, REPL open")
    hl = hostlink.HostLink(ctl, "", read, write, key=key, button=button,
                           table_id=machine.unique_id())
    hl.host.usb = usb
    if not ctl.fault and machine.reset_cause() == machine.WDT_RESET:
        ctl.fault = "reset: watchdog"  # the VM stuck in C: no callback ran to say why
    stats = Stats()
    hl.host.stats = stats
    if usb == "maint":  # no match until the host starts one; the seats say why
        ctl.state = C.DONE
        ctl.display.text = "OPEn"
    wdt = watchdog.Watchdog(machine.WDT(timeout=watchdog.TIMEOUT_MS), machine.Timer(-1),
                            time.ticks_ms, on_stuck=stuck("", ctl))
    asyncio.run(run(ctl, board, time.ticks_ms, wdt, stats=stats, hl=hl))


def start(argv):
    """The board's controller on the RP2040 (elsewhere, nothing: the unix
    port's entry is mjsim.unixmain). On a locked board whatever ends the
    controller (an exception) is printed and the board resets: the program
    never ends into the REPL."""
    if sys.platform == "rp2":
        import machine
        from table import watchdog

        try:
            main_board()
        except BaseException as e:  # noqa: B036 (KeyboardInterrupt too, when open)
            if not _locked:
                watchdog.off(machine)  # into the REPL, which it must not reset
                raise
            sys.print_exception(e)  # type: ignore[attr-defined]
        if _locked:
            machine.reset()
        watchdog.off(machine)
