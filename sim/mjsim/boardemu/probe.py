# Runs ON the emulated Pico (mpremote exec, after a soft reset: the firmware's
# main.py is not started), with the deployed firmware: what app.main_board does
# before asyncio.run, with the heap measured after each step, then timed scans
# on the tags the harness laid (seat s: rack 14, tray 8) and one scan cycle of
# the controller. Prints one JSON line. Kept small: the board compiles it.
import gc
import json
import time

import machine

# The firmware's boot (the deploy's reset) started the watchdog, and a soft
# reset does not stop it: stop it here (WATCHDOG CTRL.ENABLE), or it resets
# the board 8 s into the probe.
machine.mem32[0x40058000] &= ~(1 << 30)
out = {}
gc.collect()
out["free_empty"] = gc.mem_free()
import asyncio  # noqa: E402, F401

gc.collect()
out["free_asyncio"] = gc.mem_free()
import app  # noqa: E402
from boards import pico  # noqa: E402
from drivers import pn5180  # noqa: E402
from table import hostlink, usbport  # noqa: E402

gc.collect()
out["free_code"] = gc.mem_free()
read, write, _ = usbport.open_stream()
rs = app.active_rules("", app.PRESET)
gc.collect()
board = pico.make(machine)
gc.collect()
ctl = app.boot(board, "", rs)
hl = hostlink.HostLink(ctl, "", read, write, key=hostlink.load_key(""), button=False,
                       table_id=machine.unique_id())
gc.collect()
out["free_booted"] = gc.mem_free()
print("probe: booted")


def us(f):
    t = time.ticks_us()
    f()
    return time.ticks_diff(time.ticks_us(), t)


seat = []
for r in board.readers:
    r.select_antenna(0)
    a = us(r.inventory)
    na = r.count
    r.select_antenna(1)
    b = us(r.inventory)
    seat.append((a, na, b, r.count))
out["seat"] = seat
print("probe: seats")


def both():
    for r in board.readers:
        r.select_antenna(0)
    pn5180.inventory_all(board.readers)


out["table_rack"] = [us(both) for _ in range(3)]
cyc = []
for _ in range(6):
    cyc.append(us(ctl.scan_cycle))
out["cycle"] = cyc
gc.collect()
out["free_after"] = gc.mem_free()
print("PROBE " + json.dumps(out))
