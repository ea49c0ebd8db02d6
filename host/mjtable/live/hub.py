"""The tables' state on the server, and what each view of it is sent.

A Table is the sink of one Feed (feed.py): its methods are called from the
feed's thread and handed to the event loop, where the HandModel (model.py)
replays the records; every change makes a full snapshot (a page never needs
the ones before: a page opened late, or a browser that reconnects, is whole
with the next one). Snapshots go to each view's Publisher:

    a view = (delay s, hide concealed hands); "public" is --delay and
    --hide-hands, "referee" is no delay and every hand.

A Publisher holds a snapshot back `delay` seconds (call_later: the order of
the table's events is kept), then sends it, JSON-encoded once, to every
client of the view (one send queue each: a slow browser never holds up the
others). The event page's summaries go the same way, through the same delay.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque

from mjtable.live.model import T_END, HandModel, Mismatch, hide_hands
from mjtable.logs.logfmt import table_name

UNSEEN = "?"  # no INFO seen yet
CLIENT_QUEUE = 256  # snapshots a slow browser may fall behind before it is dropped


class Client:
    """One browser's send queue (a WebSocket)."""

    def __init__(self, ws):
        self.ws = ws
        self.queue: deque = deque()
        self.wake = asyncio.Event()
        self.closed = False

    def put(self, text: str) -> None:
        if len(self.queue) >= CLIENT_QUEUE:
            self.closed = True  # too far behind: it reconnects and is whole again
        self.queue.append(text)
        self.wake.set()

    async def run(self) -> None:
        try:
            while not self.closed and not self.ws.closed:
                await self.wake.wait()
                self.wake.clear()
                while self.queue and not self.ws.closed:
                    await self.ws.send_str(self.queue.popleft())
            if not self.ws.closed:
                await self.ws.close()
        except (ConnectionError, RuntimeError):  # the browser went away mid-send
            self.closed = True


class Publisher:
    """One view of one stream (a table, or the event's summary)."""

    def __init__(self, loop, delay: float, transform=None):
        self.loop = loop
        self.delay = delay
        self.transform = transform
        self.current = None  # the last snapshot published (already transformed)
        self.text = ""
        self.clients: set = set()
        self.after = []  # fn(snapshot) called on each publish (the event summary)

    def push(self, snap: dict) -> None:
        if self.delay > 0:
            self.loop.call_later(self.delay, self._publish, snap)
        else:
            self._publish(snap)

    def _publish(self, snap: dict) -> None:
        if self.transform is not None:
            snap = self.transform(snap)
        self.current = snap
        self.text = json.dumps(snap, ensure_ascii=False)
        for c in list(self.clients):
            c.put(self.text)
        for fn in self.after:
            fn(snap)


def summary(snap: dict) -> dict:
    """A table at a glance: the event page's row."""
    seats = snap.get("seats", [])
    totals = [s["total"] for s in seats]
    # the seats ahead: every seat on the top total, none while all are level
    top = max(totals, default=0)
    leads = [] if len(set(totals)) < 2 else [i for i, v in enumerate(totals) if v == top]
    alerts = [{"seat": s["seat"], "name": a["name"]} for s in seats for a in s["alerts"]]
    return {"table": snap["table"], "name": snap["name"], "id": snap["id"],
            "link": snap["link"], "detail": snap.get("detail", ""), "hand": snap["hand"],
            "match_hand": snap.get("match_hand", 0), "rules": snap.get("rules", ""),
            "phase": snap.get("phase", ""), "wall": snap.get("wall", 0),
            "turn": snap.get("turn", -1), "totals": totals, "leads": leads,
            "names": [s["name"] for s in seats], "alerts": alerts,
            "players": [s.get("player", "") for s in seats], "match": snap.get("match"),
            "over": snap.get("over", False), "t": snap["t"]}


class Table:
    """One table: a Feed's sink, and its snapshots for each view.

    The totals are the match's: a match ends when the table says none is
    under way (INFO `play=` empty: its final order is shown) or when the
    table restarts; the next hand begins a new one, and the one before is
    kept in `previous` with a note."""

    def __init__(self, hub, key: str, port: str, name: str):
        self.hub = hub
        self.key = key
        self.port = port
        self.name = name  # "" until the table's id names it
        self.table_id = ""
        self.link_state = "connecting"
        self.detail = ""
        self.hand_id = -1
        self.points: dict = {}  # log id -> each seat's points, of the match's finished hands
        self.over = False  # the table ended the match: the final order is shown
        self.ending = ""  # why the match ends at the next hand ("" while it goes on)
        self.play = UNSEEN  # INFO `play` last seen (None: the table has no such line)
        self.left = None  # INFO `left` last seen: hands left in the match
        self.previous: list = []  # the matches before: {"note", "hands", "totals"}
        self.model = HandModel(hub.rules, 0)
        self.version = 0
        self.t = time.time()
        self.feed = None  # set by the caller; asked to resync on a mismatch
        self.views = {name: Publisher(hub.loop, delay, hide_hands if hide else None)
                      for name, (delay, hide) in hub.views.items()}

    # --- the feed's calls, from its thread ---

    def _soon(self, fn, *args):
        t = time.time()  # when the host had it: the pages' latency starts here
        self.hub.loop.call_soon_threadsafe(self._run, t, fn, args)

    def _run(self, t, fn, args):
        if fn(*args) is False:
            return  # nothing a page shows changed
        self.t = t
        self.changed()

    def link(self, state, detail):
        self._soon(self._link, state, detail)

    def hand(self, log_id, records):
        self._soon(self._hand, log_id, list(records))

    def record(self, rtype, payload):
        self._soon(self._record, rtype, payload)

    def earlier(self, log_id, points):
        self._soon(self._earlier, log_id, points)

    def status(self, info):
        self._soon(self._status, dict(info))

    def restarted(self):
        self._soon(self._restarted)

    # --- in the loop ---

    def _link(self, state, detail):
        if (state, detail) == (self.link_state, self.detail):
            return False
        self.link_state = state
        self.detail = detail
        if state == "ok":
            self.table_id = detail
        return True

    def _status(self, info):
        """INFO's match lines (asked at every hand's head, and every second):
        `play=` empty when no match is under way, `left` the hands left in it
        (a table without them says nothing of matches). A match under way
        after none was, or with more hands left than before, is a new one: it
        begins at the next hand."""
        play, left = info.get("play"), info.get("left")
        left = int(left) if left and left.isdigit() else None
        seen = bool(self.points) or self.model.game is not None
        changed = False
        if play == "" and not self.over and seen:
            self.over = True  # the final order stands until the next match's first hand
            self.ending = "match over"
            changed = True
        elif play and seen and not self.ending and (
                self.play in ("", None) or None not in (left, self.left) and left > self.left):
            self.ending = "match over" if self.play == "" else "ended before this match"
        self.play = play
        self.left = left
        return changed

    def _restarted(self):
        self.ending = "interrupted: the table restarted"
        self._new_match()

    def _new_match(self):
        """The match so far becomes `previous` (with why it ended)."""
        if self.points or self.model.game is not None:
            self.previous = (self.previous + [{"note": self.ending, "hands": len(self.points),
                                               "totals": self.totals()}])[-3:]
        self.points = {}
        self.over = False
        self.ending = ""

    def totals(self, but=None) -> list:
        """Each seat's points over the finished hands seen (but the hand `but`)."""
        out = [0, 0, 0, 0]
        for lid, pts in self.points.items():
            if lid != but:
                for i, p in enumerate(pts[:4]):
                    out[i] += p
        return out

    def _hand(self, log_id, records):
        # a hand read again (a reconnect, a resync) counts once: points by log id
        if self.ending and log_id != self.hand_id:
            self._new_match()  # this hand begins the next match
        self.hand_id = log_id
        self.model = HandModel(self.hub.rules, log_id, self.totals(but=log_id))
        for r in records:
            self._record(*r)

    def _earlier(self, log_id, points):
        self.points[log_id] = list(points)

    def _record(self, rtype, payload):
        try:
            self.model.feed(rtype, payload)
            if rtype == T_END and self.model.end_points:
                self._earlier(self.hand_id, self.model.end_points)
        except Mismatch as e:
            self.detail = "resync: %s" % e
            if self.feed is not None:
                self.feed.resync()

    def changed(self):
        self.version += 1
        snap = self.snapshot()
        for v in self.views.values():
            v.push(snap)

    def label(self) -> str:
        """The table's name: the one given, else its id as text (TBLA0001)."""
        return self.name or table_name(self.table_id) or "Table %s" % self.key

    def snapshot(self) -> dict:
        s = self.model.snapshot()
        players = self.hub.players.get(self.table_id) or []
        for seat in s["seats"]:
            seat["player"] = players[seat["seat"]] if seat["seat"] < len(players) else ""
        done = len([k for k in self.points if k != self.hand_id])
        s.update({"table": self.key, "name": self.label(), "id": self.table_id,
                  "link": self.link_state, "detail": self.detail, "hand": self.hand_id,
                  "match_hand": done + (1 if s["np"] else 0),
                  "match": final_order(s) if self.over else None,
                  "previous": self.previous, "version": self.version, "t": self.t})
        return s


def final_order(snap: dict) -> dict:
    """The match's end: the seats by their totals, first to last."""
    seats = sorted(snap.get("seats", []), key=lambda s: (-s["total"], s["seat"]))
    return {"over": True, "order": [{"seat": s["seat"], "total": s["total"]} for s in seats]}


class Hub:
    """Every table of the server, and the event page's view of them."""

    def __init__(self, loop, rules, views):
        self.loop = loop
        self.rules = rules
        self.views = views  # name -> (delay s, hide hands)
        self.players: dict = {}  # table id (hex) -> the player at each seat (the event's)
        self.tables: dict = {}
        self.events = {name: Publisher(loop, 0) for name in views}
        self._rows = {name: {} for name in views}

    def add(self, key, port, name) -> Table:
        t = Table(self, key, port, name)
        self.tables[key] = t
        for view, pub in t.views.items():
            pub.after.append(lambda snap, view=view: self._row(view, snap))
            pub._publish(t.snapshot())  # "connecting", at once in every view
        return t

    def _row(self, view, snap):
        self._rows[view][snap["table"]] = summary(snap)
        self.events[view].push(self.event_snapshot(view))

    def from_archive(self, standings, players) -> None:
        """The archive read again: what changed goes to the pages."""
        if players != self.players:
            self.players = players
            for t in self.tables.values():
                t.changed()
        if standings != self.standings:
            self.standings = standings
            for view, pub in self.events.items():
                pub.push(self.event_snapshot(view))

    def label(self, hex_id: str) -> str:
        """A table id as the pages name it: the --table name given for it, else its text."""
        for t in self.tables.values():
            if t.table_id == hex_id and t.name:
                return t.name
        return table_name(hex_id)

    def event_snapshot(self, view) -> dict:
        rows = self._rows[view]
        return {"tables": [rows[k] for k in self.tables if k in rows],
                "standings": self.standings,
                "t": time.time()}

    standings = None  # the archive's standings (standings.py), refreshed by the server
