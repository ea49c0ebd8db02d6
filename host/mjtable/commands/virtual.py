"""`mjtable virtual-table [--rules PRESET] [--bots]`: a table without hardware.

Runs the whole controller (firmware/main.py: scan, keys, displays and the host
link) on the MicroPython unix port, its code in "flash" as on the board
(sim/mjsim/mprun.py), on the simulated chips of the virtual table
(sim/mjsim/virtual.py), with the host link on a pseudo-terminal
(sim/mjsim/tablerun.py). Prints `port: PATH` as its first line once the
firmware is up; every other command then works with `--port PATH`. Runs until
stopped (Ctrl-C, SIGTERM).

--bots: the virtual table's bot players play matches back to back (`--hands
N` hands each, else the ruleset's match), a pause of `--gap` ms between
matches, in which a pushed ruleset can be taken (the table refuses pushes
while a hand is in play); each match plays the table's active ruleset, which
the firmware announces in a file the runner reads. Without --bots the table
waits with no match under way until `mjtable match start`; the bots play
every match the table starts, however it was started or ended. An idle
table (no match, nothing on it) makes no frames until the host writes to it.

The volume is fresh at every start (a temporary LittleFS image). The table
key is the host's key (findport: --key, $MJTABLE_KEY, the key file); with
none, a new one is made and saved in the key file so the other commands find
it.
"""

from __future__ import annotations

import os
import sys

from mjsim import tablerun

from mjtable import BadInput
from mjtable.firmware import tree
from mjtable.link import port as findport


def add_parsers(sub):
    p = sub.add_parser("virtual-table", help="run a simulated table behind a pty")
    p.add_argument("--rules", metavar="PRESET", default="xuezhan",
                   help="ruleset of the fresh table (default xuezhan)")
    p.add_argument("--bots", action="store_true", help="bots play matches continuously")
    p.add_argument("--hands", type=int, default=0,
                   help="hands per match (default: the ruleset's match)")
    p.add_argument("--gap", type=int, default=2000,
                   help="ms between two matches (default 2000)")
    p.add_argument("--pace", type=int, default=20,
                   help="real ms per table frame (default 20; 0: as fast as it goes)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--key", metavar="HEX", default=None, help="table key (default: the host's)")
    p.add_argument("--button", action="store_true", help="the key button is held at boot")
    p.add_argument("--id", default="VIRTUAL1", help="table id (8 characters)")
    p.set_defaults(func=run)


def table_key(args):
    key = findport.load_key(args.key)
    if key is None and not args.button:
        key = os.urandom(32)
        path = findport.save_key(key)
        print("key: new table key saved in %s" % path, file=sys.stderr)
    return key


def run(args):
    from mjtable.rules import rulefile

    rulefile.preset(args.rules)  # a clear error for an unknown preset
    rules = rulefile.preset_name(args.rules)  # `TFMJ_2024` is tfmj-2024
    key = table_key(args)
    try:
        return tablerun.serve(rules, key, seed=args.seed, hands=args.hands, gap=args.gap,
                              pace=args.pace, bots=args.bots, button=args.button,
                              table_id=args.id, mp=tree.tool("micropython"),
                              say=lambda s: print(s, flush=True),
                              warn=lambda s: print(s, file=sys.stderr))
    except SystemExit as e:  # the build naming the file mpy-cross refused, or the unknown port
        raise BadInput(str(e.code)) from None
