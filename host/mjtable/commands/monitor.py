"""`mjtable monitor`: the live game in the terminal, from the table's event stream.

The table sends each hand-log record it writes as an event (table/hostcmds.py:
EV_GAME, record type + payload); the monitor runs them through the rules core
and prints each action with its tile (`South peng 5p from East`), each win
(自摸 or 胡 on whose discard), the payments, alerts by name, and every seat's
rack, melds and discards. Started mid-hand, it first reads the log of the
hand in play (INFO `hand`) and catches up from it, then goes on live.

    mjtable monitor [--port P] [--hands N] [--brief]
Runs until Ctrl-C, or until N hands have ended. A table with no match under
way (none started yet, or the one followed is over) is said to be so, once
each time, within QUIET_S s: the monitor never waits silently for hands that
no match will play.
"""

from __future__ import annotations

import struct
import time

from sichuan import game as G
from sichuan import handlog, tiles
from sichuan.settle import EV_PAY, EV_WIN

from mjtable import BadInput, archive
from mjtable.link import client as L
from mjtable.link import port as findport
from mjtable.link import protocol as P
from mjtable.logs import hands, logfmt
from mjtable.logs.logfmt import T_ACT, T_ALERT, T_END, T_HEAD
from mjtable.rules import names
from mjtable.tableops import rules as tablerules
from mjtable.tableops.logs import fetch_growing

STREAMED = (T_HEAD, T_ACT, T_ALERT, T_END)  # the records the table also sends as events
STOP_S = 2.0  # s the WATCH off after a Ctrl-C may take
QUIET_S = 5.0  # s without an event before the table is asked whether a match is under way


def add_parsers(sub):
    p = sub.add_parser("monitor", help="watch the live game")
    findport.add_arguments(p, key=False)
    p.add_argument("--hands", type=int, default=0, help="stop after this many hands end")
    p.add_argument("--brief", action="store_true", help="actions and payments only")
    p.set_defaults(func=monitor)


def _seat(s: int) -> str:
    return hands.SEAT_NAMES[s] if 0 <= s < len(hands.SEAT_NAMES) else "seat%d" % s


def action_text(g, a) -> str:
    """One action as the monitor prints it, from the game before it: a claim
    names the tile claimed and its discarder (`South peng 5p from East`), a
    胡 whether it is on a discard or 自摸."""
    kind, seat, _arg, _t = a
    if kind in (G.PENG, G.ZHIGANG, G.HU, G.PASS) and G.claim_open(g.phase) and g.pend >= 0:
        what = "%s %s" % (_seat(seat), names.ACTION_NAMES[kind])
        if kind == G.PASS:
            return "%s on %s's %s" % (what, _seat(g.pseat), tiles.name(g.pend))
        rob = " (抢杠胡)" if kind == G.HU and g.phase == G.PH_ROB else ""
        return "%s %s from %s%s" % (what, tiles.name(g.pend), _seat(g.pseat), rob)
    if kind == G.HU:
        t = " " + tiles.name(g.drawn) if g.drawn >= 0 else ""
        return "%s hu%s (自摸)" % (_seat(seat), t)
    return hands.fmt_action(a)


def alert_text(data: bytes) -> str:
    """A T_ALERT record: seat, alert code, engine reason, t u32."""
    seat, code, reason = data[0], data[1], data[2]
    name = names.ALERT_NAMES[code] if code < len(names.ALERT_NAMES) else "alert %d" % code
    why = ""
    if reason and reason < len(names.REASONS):
        why = " (%s)" % names.REASONS[reason]
    return "alert: %s: %s%s" % (_seat(seat), name, why)


class View:
    """Hand state rebuilt from the event stream (or from the log of the hand
    in play, to catch up)."""

    def __init__(self, link, out=print, brief=False):
        self.link = link
        self.out = out
        self.brief = brief
        self.rs = None
        self.game = None
        self.head = b""
        self.ended = 0

    def _rules(self, crc):
        """The ruleset with this CRC: the table's stored one, else (a ruleset
        pushed mid-match waits for the next) the archive's or a preset."""
        if self.rs is not None and self.rs.crc() == crc:
            return True
        self.rs = tablerules.pull(self.link)[0]
        if self.rs.crc() != crc:
            try:
                ar = archive.open_archive(create=False)
                rs = hands.ruleset_of(ar, crc)
                ar.close()
            except BadInput:
                from sichuan import presets

                rs = next((presets.get(n) for n in presets.names()
                           if presets.get(n).crc() == crc), None)
            if rs is not None:
                self.rs = rs
        return self.rs.crc() == crc

    def event(self, payload: bytes) -> None:
        if payload:
            self.record(payload[0], payload[1:])

    def record(self, t: int, data: bytes, live: bool = True) -> None:
        """One hand-log record; live False while catching up (no rack lines)."""
        if t == T_HEAD:
            head, _ = handlog.decode(data)
            if not self._rules(head[0]):
                self.out("new hand under ruleset CRC %08X, which neither the table nor the "
                         "archive holds: not shown" % head[0])
                self.game = None
                return
            self.head = data
            self.game = G.Game(self.rs, head[2], head[3])
            self.out("=== new hand: %s, dealer %s" % (self.rs.name, _seat(head[2])))
        elif t == T_ACT and self.game is not None:
            _, recs = handlog.decode(self.head + data)
            for r in recs:
                if r[0] != handlog.REC_ACTION:
                    continue
                text = action_text(self.game, r[1])
                evs = self.game.apply(r[1])
                self.out(text)
                for e in evs:
                    if e[0] == EV_WIN:
                        self.out("  win: " + hands.fmt_win(self.game, e))
                    elif e[0] == EV_PAY:
                        self.out("  " + hands.fmt_pay(e))
                checks = hands.fmt_checks(self.rs, evs)
                if checks:
                    self.out("  " + checks)
                if live and not self.brief and r[1][0] != G.DEAL:
                    self.out("\n".join(hands.state_lines(self.game)))
        elif t == T_ALERT and len(data) >= 3:
            self.out("  " + alert_text(data))
        elif t == T_END and self.game is not None:
            pts = struct.unpack("<%dh" % (len(data) // 2), data)
            self.out("=== hand over: " + "  ".join("%s %+d" % (_seat(s), p)
                                                 for s, p in enumerate(pts)))
            self.game = None
            self.ended += 1

    def catch_up(self, lid: int, recs: list) -> None:
        """The records of the hand in play so far, from its log."""
        self.out("=== hand in play (log %d): caught up from its log" % lid)
        for t, data in recs:
            self.record(t, data, live=False)
        if self.game is not None and not self.brief:
            self.out("\n".join(hands.state_lines(self.game)))
        self.out("=== live")


def overlap(recs: list, events: list) -> int:
    """How many of `events` (the stream since WATCH began, oldest first) the
    log `recs` already holds: the stream runs on from the log's last record,
    so the events up to the one that ends the longest run matching the log's
    tail are skipped. 0 when none does (all arrived after the log was read)."""
    if not recs:
        return 0
    for i, ev in enumerate(events):
        if ev != recs[-1]:
            continue
        k = min(i + 1, len(recs))
        if events[i + 1 - k:i + 1] == recs[len(recs) - k:]:
            return i + 1
    return 0


def _in_play(link, view) -> int:
    """Catch up on the hand in play (its log, read as it grows); returns how
    many events already queued that log holds."""
    lid = link.info().get("hand", "-1")
    if not lid.isdigit():
        return 0
    try:
        log = logfmt.parse(fetch_growing(link, int(lid)))
    except (L.LinkError, logfmt.LogDamaged) as e:
        view.out("hand in play (log %s) not read: %s; shown from the next hand" % (lid, e))
        return len(link.events)
    recs = [(t, bytes(p)) for t, p in log.records if t in STREAMED]
    view.catch_up(int(lid), recs)
    queued = [(p[0], bytes(p[1:])) for k, _s, p in link.events if k == P.EV_GAME and p]
    return overlap(recs, queued)


def match_note(info: dict, ended: int) -> str:
    """What to say of a table whose INFO is `info` ('' while a match is under
    way, or for a table that does not say), `ended` hands having been seen."""
    if info.get("play", "-"):
        return ""
    if ended:
        return "match over: no match under way; waiting for the next one to start"
    return "no match under way at the table: waiting for one to start (mjtable match start)"


def _say_match(link, view, said: str) -> str:
    """Say once that no match is under way; the note said (for the next call)."""
    try:
        note = match_note(link.info(), view.ended)
    except L.LinkError:
        return said  # the next read says what is wrong with the link
    if note and note != said:
        view.out(note)
    return note


def monitor(args):
    link = findport.connect(args)
    try:
        link.request(P.CMD_WATCH, b"\x01")
    except L.LinkError as e:
        raise BadInput("the table refused to stream events: %s" % e) from None
    view = View(link, lambda s: print(s, flush=True), args.brief)
    print("watching table %s (Ctrl-C to stop)" % findport.table_name(link), flush=True)
    try:
        skip = _in_play(link, view)
        said = _say_match(link, view, "")
        heard = time.monotonic()
        while not args.hands or view.ended < args.hands:
            while link.events:
                kind, _seq, payload = link.events.popleft()
                if kind == P.EV_GAME:
                    heard = time.monotonic()
                    if skip:
                        skip -= 1
                        continue
                    view.event(payload)
            got = link.read_frame(time.monotonic() + 1.0)
            if got is not None and got[0] == (P.EV_GAME | P.REPLY):
                heard = time.monotonic()
                view.event(got[2])
            elif time.monotonic() - heard >= QUIET_S:
                said = _say_match(link, view, said)
                heard = time.monotonic()
    except KeyboardInterrupt:
        # Ctrl-C stops at once: the WATCH off below is a courtesy (an owner
        # stops this client's events when it leaves), not worth the timeout
        link.timeout = min(link.timeout, STOP_S)
        raise
    finally:
        try:
            link.request(P.CMD_WATCH, b"\x00")
        except L.LinkError:
            pass
    return 0
