"""`mjtable monitor`: the live game in the terminal, from the table's event stream.

The table sends each hand-log record it writes as an event (table/hostcmds.py:
EV_GAME, record type + payload); the monitor runs them through the rules core
and prints each action, the payments, and every seat's rack, melds and
discards. Joining mid-hand, it waits for the next hand to begin.

    mjtable monitor [--port P] [--hands N] [--brief]
Runs until Ctrl-C, or until N hands have ended.
"""

from __future__ import annotations

import struct
import time

from sichuan import game as G
from sichuan import handlog
from sichuan.settle import EV_PAY, EV_WIN

from . import BadInput, findport, hands
from . import link as L
from .replaycmd import state_lines
from .tablecmd import CMD_WATCH

EV_GAME = 0x40
T_HEAD, T_ACT, T_ALERT, T_END = 1, 2, 3, 4


def add_parsers(sub):
    p = sub.add_parser("monitor", help="watch the live game")
    findport.add_arguments(p, key=False)
    p.add_argument("--hands", type=int, default=0, help="stop after this many hands end")
    p.add_argument("--brief", action="store_true", help="actions and payments only")
    p.set_defaults(func=monitor)


class View:
    """Hand state rebuilt from the event stream."""

    def __init__(self, link, out=print, brief=False):
        self.link = link
        self.out = out
        self.brief = brief
        self.rs = None
        self.game = None
        self.head = b""
        self.ended = 0

    def _rules(self, crc):
        if self.rs is None or self.rs.crc() != crc:
            from .tablecmd import pull_rules

            self.rs = pull_rules(self.link)[0]
        return self.rs.crc() == crc

    def event(self, payload: bytes) -> None:
        if not payload:
            return
        t, data = payload[0], payload[1:]
        if t == T_HEAD:
            head, _ = handlog.decode(data)
            if not self._rules(head[0]):
                self.out("new hand under a ruleset the table no longer has: not shown")
                self.game = None
                return
            self.head = data
            self.game = G.Game(self.rs, head[2], head[3])
            self.out("=== new hand: %s, dealer %s" % (self.rs.name, hands.SEAT_NAMES[head[2]]))
        elif t == T_ACT and self.game is not None:
            _, recs = handlog.decode(self.head + data)
            for r in recs:
                if r[0] != handlog.REC_ACTION:
                    continue
                evs = self.game.apply(r[1])
                self.out("%s" % hands.fmt_action(r[1]))
                for e in evs:
                    if e[0] == EV_WIN:
                        self.out("  win: " + hands.fmt_win(self.game, e))
                    elif e[0] == EV_PAY:
                        self.out("  " + hands.fmt_pay(e))
                checks = hands.fmt_checks(self.rs, evs)
                if checks:
                    self.out("  " + checks)
                if not self.brief and r[1][0] != G.DEAL:
                    self.out("\n".join(state_lines(self.game)))
        elif t == T_ALERT and len(data) >= 3:
            self.out("  alert: seat %d code %d reason %d" % (data[0], data[1], data[2]))
        elif t == T_END and self.game is not None:
            pts = struct.unpack("<%dh" % (len(data) // 2), data)
            self.out("=== hand over: " + "  ".join("%s %+d" % (hands.SEAT_NAMES[s], p)
                                                 for s, p in enumerate(pts)))
            self.game = None
            self.ended += 1


def monitor(args):
    link = findport.connect(args)
    try:
        link.request(CMD_WATCH, b"\x01")
    except L.LinkError as e:
        raise BadInput("the table refused to stream events: %s" % e) from None
    view = View(link, lambda s: print(s, flush=True), args.brief)
    print("watching table %s (Ctrl-C to stop)" % link.table_id.hex(), flush=True)
    try:
        while not args.hands or view.ended < args.hands:
            while link.events:
                kind, _seq, payload = link.events.popleft()
                if kind == EV_GAME:
                    view.event(payload)
            got = link.read_frame(time.monotonic() + 1.0)
            if got is not None and got[0] == (EV_GAME | L.REPLY):
                view.event(got[2])
    finally:
        try:
            link.request(CMD_WATCH, b"\x00")
        except L.LinkError:
            pass
    return 0
