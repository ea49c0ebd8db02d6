"""Entry point: the table controller as asyncio tasks.

On the board (sys.platform "rp2"): boards.pico wiring, files on the Pico's
LittleFS at /, the hardware watchdog fed by the scan task (a hung scan
resets the board within 8 s). On the unix port:

    micropython -X heapsize=96K main.py sim PORT FLASH_IMAGE [claim_ms [preset]]

runs the same controller on boards.sim, fed by tools/virtual_table.py over
TCP 127.0.0.1:PORT, with its files on a LittleFS2 volume in FLASH_IMAGE (a
file-backed block device the size of the Pico's filesystem). In the sim the
clock is the virtual table's, advanced one frame per scan cycle.

Tasks: scan (each cycle: scan the focus seats, read the table into the
game), keys (poll the seats' key expanders), display (displays and LEDs),
and, later, the host link.
"""

import asyncio
import sys

from sichuan import presets
from table import store
from table.logstore import LogStore

ENROLL_FILE = "enroll.bin"  # the names table.hostcmds stores them under
RULES_FILE = "ruleset.bin"
LOG_DIR = "logs"
PRESET = "xuezhan"


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


async def run(ctl, board, clock, wdt=None, sim=None, stats=None):
    if stats is None:
        stats = Stats()
    scan = asyncio.create_task(scan_task(ctl, clock, wdt, sim, stats))
    keys = asyncio.create_task(key_task(ctl, board, clock, sim))
    disp = asyncio.create_task(display_task(ctl, clock, sim))
    await scan
    keys.cancel()
    disp.cancel()
    await asyncio.sleep_ms(0)


def boot(board, root, enrollment_blob=None, claim_ms=5000, preset=PRESET):
    """Load the enrollment (or store the one given) and build the controller."""
    from table.controller import Controller
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
    return Controller(board, active_rules(root, preset), en, logs, claim_ms=claim_ms)


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

    board = pico.make(machine)
    ctl = boot(board, "")
    import time

    wdt = machine.WDT(timeout=8000)
    asyncio.run(run(ctl, board, time.ticks_ms, wdt))


def main_sim(argv):
    from boards import sim
    from table import blockdev

    port = int(argv[2])
    image = argv[3]
    claim_ms = int(argv[4]) if len(argv) > 4 else 5000
    preset = argv[5] if len(argv) > 5 else PRESET
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
    stats = Stats()
    stats.sample_heap()
    asyncio.run(run(ctl, st.board, st.ticks_ms, None, st, stats))
    stats.sample_heap()
    print(stats.line())
    st.close()


if sys.platform == "rp2":
    main_board()
elif len(sys.argv) > 3 and sys.argv[1] == "sim":
    main_sim(sys.argv)
