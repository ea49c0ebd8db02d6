"""`mjtable virtual-table [--rules PRESET] [--bots]`: a table without hardware.

Runs the whole controller (firmware/main.py: scan, keys, displays and the host
link) on the MicroPython unix port, its code in "flash" as on the board
(sim/mjsim/mprun.py), on the simulated chips of the virtual table
(sim/mjsim/virtual.py), with the host link on a pseudo-terminal. Prints
`port: PATH` as its first line once the firmware is up; every other command
then works with `--port PATH`. Runs until stopped (Ctrl-C, SIGTERM).

--bots: the virtual table's bot players play matches back to back (`--hands
N` hands each, else the ruleset's match), a pause of `--gap` ms between
matches, in which a pushed ruleset can be taken (the table refuses pushes
while a hand is in play); each match plays the table's active ruleset, which
the firmware announces in a file this process reads. Without --bots the
table waits with no match under way until `mjtable match start`; the bots
play that match, then the table waits again.

The volume is fresh at every start (a temporary LittleFS image). The table
key is the host's key (findport: --key, $MJTABLE_KEY, the key file); with
none, a new one is made and saved in the key file so the other commands find
it.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sys
import tempfile
import time
import tty

from mjsim import unixbuild
from mjsim import virtual as V

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


def build_firmware(dst: str) -> None:
    """The firmware compiled for this machine's unix port into dst (mjsim.unixbuild)."""
    try:
        unixbuild.build(dst)
    except SystemExit as e:  # naming the file mpy-cross refused, or the unknown port
        raise BadInput(str(e.code)) from None


def table_key(args):
    key = findport.load_key(args.key)
    if key is None and not args.button:
        key = os.urandom(32)
        path = findport.save_key(key)
        print("key: new table key saved in %s" % path, file=sys.stderr)
    return key


class Runner:
    """The virtual table's side of the run: prints the port once the firmware
    answers, paces the frames, and starts the table's truth afresh for each
    match the firmware begins (its ruleset, the same tiles, new shuffles)."""

    def __init__(self, V, args, path, match_file):
        self.V = V
        self.args = args
        self.path = path
        self.match_file = match_file
        self.match = 1
        self.started = False
        self.stop = False

    def first_table(self):
        return self.V.VirtualTable(self.args.rules, self.args.seed,
                                   hands=self.args.hands or None)

    def _announced(self):
        """(match number, ruleset blob) the firmware last announced, or None."""
        try:
            with open(self.match_file) as f:
                n, _crc, blob = f.read().split()
            return int(n), bytes.fromhex(blob)
        except (OSError, ValueError):
            return None

    def on_frame(self, vt, st):
        if not self.started:
            self.started = True
            print("port: %s" % self.path, flush=True)
        if self.stop:
            vt.finished = True
            return
        if self.args.pace:
            time.sleep(self.args.pace / 1000)
        if vt.mismatch or vt.stuck:
            return  # finished: the run stops and says why
        if not vt.finished and vt.stage != "start":
            return  # a hand in play
        got = self._announced()
        if got is not None and got[0] > self.match:
            self.renew(vt, st, got[0], got[1])  # the firmware began a new match
        elif vt.finished:
            vt.finished = False  # the match is over: keep the frames going

    def renew(self, vt, st, match, blob):
        from sichuan import game as G
        from sichuan import ruleset as R

        V = self.V
        rs = R.from_blob(blob)
        seed = self.args.seed
        V.VirtualTable.__init__(vt, self.args.rules, seed, hands=self.args.hands or None)
        vt.rs = rs
        vt.match = G.Match(rs)
        vt.hands = self.args.hands or rs[R.P_HANDS]
        vt.rng = random.Random(seed * 7919 + match)  # new shuffles, the same tiles
        vt.bots = V.Bots(random.Random(seed * 104729 + match))
        vt.count = st.accepted  # the firmware counts accepted actions since boot
        self.match = match


def run(args):
    if args.rules:
        from mjtable.rules import rulefile

        rulefile.preset(args.rules)  # a clear error for an unknown preset
        args.rules = rulefile.preset_name(args.rules)  # `TFMJ_2024` is tfmj-2024
    mp = tree.tool("micropython")
    key = table_key(args)
    tmp = tempfile.mkdtemp(prefix="mjvirtual")
    master = slave = -1
    try:
        fw = os.path.join(tmp, "firmware")
        build_firmware(fw)
        master, slave = os.openpty()
        tty.setraw(slave)
        path = os.ttyname(slave)
        os.set_blocking(master, False)
        match_file = os.path.join(tmp, "match")
        fw_args = ["--link=fd:%d" % master, "--id=" + args.id, "--match-file=" + match_file]
        if key is not None:
            fw_args.append("--key=" + key.hex())
        if args.button:
            fw_args.append("--button")
        if args.hands:
            fw_args.append("--hands=%d" % args.hands)
        fw_args.append("--rematch=%d" % args.gap if args.bots else "--idle")
        runner = Runner(V, args, path, match_file)

        def stop(signum, frame):
            runner.stop = True

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, stop)
        res = V.run(runner.first_table(), heap=V.HEAP, on_frame=runner.on_frame, mp=mp, fw=fw,
                    timeout=600, preset=args.rules, fw_args=fw_args, pass_fds=(master,))
        if runner.stop:
            return 0  # stopped: the firmware got the signal too and quit first
        if res.get("error") or res.get("mismatch") or res.get("stuck"):
            print("virtual table stopped: %s" % (res.get("error") or res.get("mismatch")
                                                 or res.get("stuck")), file=sys.stderr)
            if res.get("stderr"):
                print(res["stderr"], file=sys.stderr)
            return 1
        return 0
    finally:
        for fd in (master, slave):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        shutil.rmtree(tmp, ignore_errors=True)
