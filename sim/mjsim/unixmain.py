"""The controller on the MicroPython unix port: the simulation room's entry.

    python -m mjsim.mprun --heap 128K --rom FW mjsim.unixmain \
        sim PORT FLASH_IMAGE [claim_ms [preset]]

runs the firmware's controller (app.boot, app.run) on mjsim.board, fed by
the virtual table (mjsim.virtual) over TCP 127.0.0.1:PORT, with its files on
a LittleFS2 volume in FLASH_IMAGE (a file-backed block device the size of
the Pico's filesystem). In the sim the
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
"""

import asyncio
import sys

from app import PRESET, Stats, active_rules, boot, collect, run
from table import controller as C
from table import store


def sim_options(argv):
    """The --name=value options of main (module docstring)."""
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


def main(argv):
    from mjsim import blockdev
    from mjsim import board as sim

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
    collect()
    blockdev.mount(image, "/flash", fresh=fresh)
    rs = active_rules("/flash", preset)
    collect()
    st = sim.SocketTable(port)
    collect()
    ctl = boot(st.board, "/flash", rs, st.enrollment, claim_ms)
    hl = None
    if o["link"] is not None:
        from table import hostlink

        from mjsim import ptyport

        key = o["key"]
        if key is not None:
            key = bytes.fromhex(key)
            store.write("/flash/" + hostlink.KEY_FILE, key)
        else:
            key = hostlink.load_key("/flash")
        read, write = ptyport.stream(ptyport.open_pty(o["link"]))
        tid = (o["id"].encode() + bytes(8))[:8]
        hl = hostlink.HostLink(ctl, "/flash", read, write, key=key, button=o["button"],
                               table_id=tid, hands=o["hands"], rematch_ms=o["rematch"],
                               match_file=o["match-file"])
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


if sys.argv and sys.argv[0] == __name__:  # the program mprun runs (romboot), not an import
    main(sys.argv)
