"""A virtual table behind a pseudo-terminal, for as long as it is wanted
(`mjtable virtual-table`, whose command only parses and prints).

The whole controller (firmware/main.py's tasks: scan, keys, displays, the
host link) runs on the MicroPython unix port (mjsim.unixmain) against the
virtual table's chips (mjsim.virtual), the host link on a pty. The Runner
is the virtual table's side between two frames:

- **Every match the firmware starts is played.** The firmware writes each
  match's ruleset to a file before it starts it (`--match-file`); a new one
  there starts the table's truth afresh (that ruleset, the same tiles, new
  shuffles) whatever the table is doing between two hands: the players sweep
  the tiles off, as they do when the referee calls a new match. Waiting for a
  moment of the firmware's instead (the match's end shown, say) missed it
  when the firmware moved on first: the bots stopped after their first match,
  or waited for ever on a table the firmware wanted empty (issue 43).
- **Idle costs nothing.** With no match under way and the table cleared, a
  frame changes nothing, so none is made until something can happen: the
  host writes to the link (the runner waits on the pty with select), a
  rematch falls due, or IDLE_S passes. The firmware blocks on the frame's
  answer meanwhile, so both processes sleep (issue 41: a whole core at
  --pace 0, 0.44 at --pace 20, before).
"""

from __future__ import annotations

import os
import random
import select
import shutil
import signal
import tempfile
import time
import tty

from sichuan import game as G
from sichuan import ruleset as R

from mjsim import unixbuild
from mjsim import virtual as V

IDLE_S = 10.0  # s between two frames of an idle table (nothing on it, no match)
AWAKE_S = 1.0  # s the frames keep their pace after the host last wrote to the link


class Runner:
    """The virtual table's side of the run (on_frame, after each frame): prints
    the port once the firmware answers, starts the table's truth afresh for each
    match the firmware begins, paces the frames and sleeps through idle ones.

    link_fd: the pty master (the firmware reads it; here only waited on);
    gap: ms between two matches the firmware makes by itself (-1: none)."""

    def __init__(self, rules, seed, hands, pace, gap, path, match_file, link_fd, say=print):
        self.rules = rules
        self.seed = seed
        self.hands = hands or None
        self.pace = pace
        self.gap = gap
        self.path = path
        self.match_file = match_file
        self.link_fd = link_fd
        self.say = say
        self.match = 1
        self.started = False
        self.stop = False
        self.idle_frames = 0
        self._stamp = None  # (mtime_ns, size) of the match file last read
        self._announced = None
        self._done_at = None  # when the firmware was first seen with no match under way
        self._awake_until = 0.0
        self._wake_r, self._wake_w = os.pipe()  # stop() ends an idle wait at once

    def first_table(self):
        return V.VirtualTable(self.rules, self.seed, hands=self.hands)

    def request_stop(self):
        self.stop = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def close(self):
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)

    def announced(self):
        """(match number, ruleset blob) the firmware last announced, or None;
        the file is read again only when it changed."""
        try:
            st = os.stat(self.match_file)
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                with open(self.match_file) as f:
                    n, _crc, blob = f.read().split()
                self._announced = int(n), bytes.fromhex(blob)
            except (OSError, ValueError):  # being written: the next frame reads it
                self._stamp = None
        return self._announced

    def on_frame(self, vt, st):
        if not self.started:
            self.started = True
            self.say("port: %s" % self.path)
        if self.stop:
            vt.finished = True
            return
        if vt.mismatch or vt.stuck:
            return  # finished: the run stops and says why
        got = self.announced()
        if got is not None and got[0] > self.match and not in_hand(vt):
            self.renew(vt, st, got[0], got[1])  # the firmware began a new match
        elif vt.finished:
            vt.finished = False  # the match is over: keep the frames going
        self.pause(self.idle(vt, st))

    def idle(self, vt, st):
        """Nothing can change at the next frame: no match under way, the table
        cleared, no key held."""
        if st.state != V.S_DONE or vt.press_frames or vt.fault is not None:
            self._done_at = None
            return False
        if self._done_at is None:
            self._done_at = time.monotonic()
        return vt.finished or vt.stage in ("start", "clear")

    def pause(self, idle):
        now = time.monotonic()
        if not idle or now < self._awake_until:
            if self.pace:
                time.sleep(self.pace / 1000)
            return
        wait = IDLE_S
        if self.gap >= 0:  # the firmware starts the next match by itself then
            wait = min(wait, max(0.0, self._done_at + self.gap / 1000 - now))
        self.idle_frames += 1
        r, _, _ = select.select([self.link_fd, self._wake_r], [], [], wait)
        if self.link_fd in r:  # the host wrote: the firmware reads it at the next frames
            self._awake_until = time.monotonic() + AWAKE_S

    def renew(self, vt, st, match, blob):
        """The table's truth for match `match` (its ruleset blob): the tiles swept
        off, new shuffles of the same tiles."""
        rs = R.from_blob(blob)
        V.VirtualTable.__init__(vt, self.rules, self.seed, hands=self.hands)
        vt.rs = rs
        vt.match = G.Match(rs)
        vt.hands = self.hands or rs[R.P_HANDS]
        vt.rng = random.Random(self.seed * 7919 + match)  # new shuffles, the same tiles
        vt.bots = V.Bots(random.Random(self.seed * 104729 + match))
        vt.count = st.accepted  # the firmware counts accepted actions since boot
        self.match = match


def in_hand(vt):
    """The table's truth is in the middle of a hand (the firmware would refuse
    a new match then: it starts one only between hands)."""
    return vt.stage == "play" and vt.g is not None and vt.g.phase != G.PH_END


def serve(rules, key, seed=1, hands=0, gap=2000, pace=20, bots=False, button=False,
          table_id="VIRTUAL1", mp=None, say=print, warn=print):
    """Run the virtual table until a signal (SIGINT, SIGTERM, SIGHUP) or its
    firmware stops; 0, or 1 with what stopped it (warn). The firmware is built
    for this machine's unix port first (SystemExit naming what failed)."""
    mp = mp or V.MP
    tmp = tempfile.mkdtemp(prefix="mjvirtual")
    master = slave = -1
    runner = None
    try:
        fw = os.path.join(tmp, "firmware")
        unixbuild.build(fw)
        master, slave = os.openpty()  # the slave stays open here: no hang-up between hosts
        tty.setraw(slave)
        path = os.ttyname(slave)
        os.set_blocking(master, False)
        match_file = os.path.join(tmp, "match")
        fw_args = ["--link=fd:%d" % master, "--id=" + table_id, "--match-file=" + match_file]
        if key is not None:
            fw_args.append("--key=" + key.hex())
        if button:
            fw_args.append("--button")
        if hands:
            fw_args.append("--hands=%d" % hands)
        fw_args.append("--rematch=%d" % gap if bots else "--idle")
        runner = Runner(rules, seed, hands, pace, gap if bots else -1, path, match_file, master,
                        say)

        def stop(signum, frame):
            runner.request_stop()

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, stop)
        res = V.run(runner.first_table(), heap=V.HEAP, on_frame=runner.on_frame, mp=mp, fw=fw,
                    timeout=600, preset=rules, fw_args=fw_args, pass_fds=(master,))
        if runner.stop:
            return 0  # stopped: the firmware got the signal too and quit first
        why = res.get("error") or res.get("mismatch") or res.get("stuck")
        if why:
            warn("virtual table stopped: %s" % (why,))
            if res.get("stderr"):
                warn(res["stderr"])
            return 1
        return 0
    finally:
        if runner is not None:
            runner.close()
        for fd in (master, slave):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        shutil.rmtree(tmp, ignore_errors=True)
