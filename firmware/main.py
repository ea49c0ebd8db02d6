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
from table.controller import DONE, Controller
from table.enroll import Enrollment
from table.logstore import LogStore

ENROLL_FILE = "enroll.bin"
LOG_DIR = "logs"
PRESET = "xuezhan"


async def scan_task(ctl, clock, wdt, sim):
    while True:
        if sim is not None:
            sim.report(ctl)
            if not sim.frame():
                return
        ctl.scan_cycle()
        ctl.step(clock())
        if wdt is not None:
            wdt.feed()
        if sim is not None and ctl.state == DONE and sim.stopped:
            return
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


async def run(ctl, board, clock, wdt=None, sim=None):
    scan = asyncio.create_task(scan_task(ctl, clock, wdt, sim))
    asyncio.create_task(key_task(ctl, board, clock, sim))
    asyncio.create_task(display_task(ctl, clock, sim))
    await scan


def boot(board, root, enrollment_blob=None, claim_ms=5000, preset=PRESET):
    """Load the enrollment (or store the one given) and build the controller."""
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
    return Controller(board, presets.get(preset), en, logs, claim_ms=claim_ms)


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
    asyncio.run(run(ctl, st.board, st.ticks_ms, None, st))
    import gc

    gc.collect()
    st.close()


if sys.platform == "rp2":
    main_board()
elif len(sys.argv) > 3 and sys.argv[1] == "sim":
    main_sim(sys.argv)
