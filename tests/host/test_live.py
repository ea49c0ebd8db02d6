"""`mjtable live`: the hand model, the server's read-only routes, and the
table page in headless Chromium (Debian's, driven by Playwright) against the
firmware's host commands on the MicroPython unix port (tools/hostlink_peer.py:
table.link + table.hostcmds, bots playing logged hands, live events) behind a
real pseudo-terminal. What the page draws is read back from its SVG tiles and
compared with the table's own log replayed through the rules core. No timing
is asserted (latency is measured in `make bench`: bench/bench_live.py)."""

from __future__ import annotations

import os
import select
import struct
import subprocess
import threading
import time
import tty

import bench_live as live_bench
import botplay
import pytest
import serial
from bench_live import start_live, stop
from mjtable.commands import live as livecmd
from mjtable.link import client as H
from mjtable.live import feed, model
from mjtable.logs import logfmt
from mjtable.tableops.logs import fetch_growing, table_logs
from sichuan import game as G
from sichuan import handlog, presets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KEY = bytes(range(5, 37))
XZ = presets.get("xuezhan")


# --- the model, on a hand the bots play through the engine ---


def bot_records(seed=3):
    """A whole hand's log records as the table writes them: T_HEAD, a T_ACT per action
    (its payments with it), T_END."""
    rng = botplay.Rng(seed)
    it = botplay.actions(XZ, rng, 0)
    g = next(it)
    w = handlog.Writer(XZ.crc(), g.np, 0, g.direction, 1000)
    recs = [(model.T_HEAD, bytes(w.buf))]
    t = 1000
    for a in it:
        if a is None or g.phase == G.PH_END:
            break
        t += 700
        a = (a[0], a[1], a[2], t)
        mark = len(w.buf)
        w.record(a, g.apply(a))
        recs.append((model.T_ACT, bytes(w.buf[mark:])))
    recs.append((model.T_END, struct.pack("<4h", *g.delta)))
    return recs, g


def table_truth(rs, recs, actions=None):
    """What the table holds after these records (or their first `actions`
    actions), from the engine alone: per seat (concealed faces in order, melds,
    discards with the claimed mark), wall, turn."""
    head, acts = handlog.decode(b"".join(p for t, p in recs if t in (model.T_HEAD, model.T_ACT)))
    g = G.Game(rs, head[2], head[3])
    if actions is not None:
        acts = [r for r in acts if r[0] == handlog.REC_ACTION][:actions]
    for r in acts:
        if r[0] == handlog.REC_ACTION:
            g.apply(r[1])
    seats = []
    for s in range(g.np):
        faces = [f for f in range(27) for _ in range(g.hand[s][f])]
        melds = [[("peng", "zhigang", "bugang", "angang")[m >> 5], m & 31] for m in g.meld_list(s)]
        disc = [[g.disc[i] & 0x7F, bool(g.disc[i] & 0x80)] for i in range(g.ndisc)
                if g.dseat[i] == s]
        seats.append((sorted(faces), melds, disc))
    return {"wall": g.wall, "turn": g.turn, "seats": seats}


def drawn_state(page_state):
    """The same, from what the page drew (readTable in table.js)."""
    seats = []
    for s in page_state["seats"]:
        faces = [int(f) for f in s["hand"] + s["drawn"]]
        seats.append((sorted(faces), [list(m) for m in s["melds"]],
                      [list(d) for d in s["discards"]]))
    return {"wall": page_state["wall"], "turn": page_state["turn"], "seats": seats}


def test_the_model_follows_the_engine_record_by_record():
    recs, g = bot_records()
    m = model.HandModel(feed.Rules(), 7, [10, 0, -5, -5])
    for i, (t, p) in enumerate(recs):
        m.feed(t, p)
        snap = m.snapshot()
        truth = table_truth(XZ, recs[: i + 1])
        got = {"wall": snap["wall"], "turn": snap["turn"],
               "seats": [(sorted(s["hand"] + ([s["drawn"]] if s["drawn"] >= 0 else [])),
                          [[x["kind"], x["face"]] for x in s["melds"]],
                          [[d["face"], d["claimed"]] for d in s["discards"]])
                         for s in snap["seats"]]}
        assert got == truth, "after record %d" % i
    assert snap["over"] and [s["delta"] for s in snap["seats"]] == list(g.delta)
    assert [s["total"] for s in snap["seats"]] == [10 + g.delta[0], g.delta[1],
                                                    -5 + g.delta[2], -5 + g.delta[3]]
    assert sum(len(s["discards"]) for s in snap["seats"]) > 0
    steps = model.replay_steps(feed.Rules(), recs, 5)
    assert len(steps) == len(recs) - 1 and steps[-1]["over"]  # the end folds into the last move
    pays = [p for st in steps for p in st["pays"]]
    assert pays and all(p["key"].startswith("h5.") for p in pays)
    assert len({p["key"] for p in pays}) == len(pays)


def test_each_win_stays_on_its_seat_and_the_wall_end_shows_each_verdict():
    from sichuan.settle import EV_CHECK, EV_WIN

    seen = {"wins": 0, "checks": 0}
    for seed in range(1, 13):
        recs, _ = bot_records(seed)
        head, acts = handlog.decode(b"".join(p for t, p in recs if t in (model.T_HEAD,
                                                                           model.T_ACT)))
        g = G.Game(XZ, head[2], head[3])
        m = model.HandModel(feed.Rules())
        m.feed(*recs[0])
        wins: list = [[] for _ in range(g.np)]
        checks = []
        moves = [a for a in acts if a[0] == handlog.REC_ACTION]  # one a T_ACT record
        for (t, p), r in zip(recs[1:-1], moves, strict=True):
            for e in g.apply(r[1]):
                if e[0] == EV_WIN:
                    wins[e[1]].append((e[2], e[5], e[4]))
                elif e[0] == EV_CHECK:
                    checks.append((e[1], e[2], e[3]))
            m.feed(t, p)
            snap = m.snapshot()
            got = [[(w["fan"], w["face"], w["from"]) for w in st["wins"]] for st in snap["seats"]]
            assert got == wins, seed  # every win so far, not only the last action's
        assert [(c["seat"], ("ready", "not_ready", "huazhu").index(c["status"]), c["fan"])
                for c in snap["checks"]] == checks, seed
        seen["wins"] += sum(map(len, wins))
        seen["checks"] += len(checks)
    assert seen["wins"] and seen["checks"]  # the seeds hold wins and a 流局 checked


def test_a_lost_record_is_a_mismatch_not_a_wrong_picture():
    recs, _ = bot_records()
    for lost in range(2, len(recs) - 1):  # each action in turn dropped by the link
        m = model.HandModel(feed.Rules())
        refused = 0
        for i, (t, p) in enumerate(recs):
            if i == lost:
                continue
            before = m.snapshot()
            try:
                m.feed(t, p)
            except model.Mismatch:
                refused += 1
                # the picture stays the last right one, never a later action on a stale state
                assert m.snapshot()["seats"] == before["seats"], (lost, i)
        assert refused, lost  # noticed, at the latest by the end points


def test_alerts_stand_until_the_next_action_and_claims_name_who_may_claim():
    recs, _ = bot_records()
    m = model.HandModel(feed.Rules())
    for t, p in recs[:12]:
        m.feed(t, p)
    m.feed(model.T_ALERT, bytes((2, 4, 0, 0, 0, 0, 0)))
    snap = m.snapshot()
    assert snap["seats"][2]["alerts"][0]["name"] == "tile in two places"
    m.feed(*recs[12])
    assert not m.snapshot()["seats"][2]["alerts"]
    # some discard in the hand opens a claim window, naming who may claim what
    m = model.HandModel(feed.Rules())
    windows = []
    for t, p in recs:
        m.feed(t, p)
        c = m.snapshot()["claim"]
        if c:
            windows.append(c)
    assert windows and all(c["may"] and 0 <= c["face"] < 27 for c in windows)
    assert {k for c in windows for ks in c["may"].values() for k in ks} <= {"hu", "peng", "gang"}


def test_hidden_hands_keep_counts_and_show_winners_and_the_end():
    recs, _ = bot_records()
    m = model.HandModel(feed.Rules())
    for t, p in recs[:-1]:
        m.feed(t, p)
    snap = m.snapshot()
    hidden = model.hide_hands(snap)
    for s, h in zip(snap["seats"], hidden["seats"], strict=True):
        assert h["count"] == s["count"]
        assert (h["hand"] is None) == (not s["won"])
    m.feed(*recs[-1])
    assert all(s["hand"] is not None for s in model.hide_hands(m.snapshot())["seats"])
    # nothing else tells a concealed tile: the face of a draw, who may claim what
    draws = claims = 0
    for st in model.replay_steps(feed.Rules(), recs[:-1]):
        h = model.hide_hands(st)
        if st["last"] and st["last"]["kind"] == "draw":
            draws += 1
            assert st["last"]["face"] >= 0 and h["last"]["face"] == -1
        if st["claim"] and st["claim"]["may"]:
            claims += 1
            assert h["claim"]["may"] == {} and h["claim"]["face"] == st["claim"]["face"]
            assert not any(s["prompt"] for s in h["seats"] if not s["won"])
    assert draws and claims


def test_events_that_repeat_the_log_just_read_are_dropped():
    log = [(2, b"a"), (2, b"b"), (2, b"c")]
    o = feed.Overlap(log)
    assert o.take((2, b"b")) == [] and o.take((2, b"c")) == []
    assert o.take((2, b"d")) == [(2, b"d")] and o.take((2, b"e")) == [(2, b"e")]
    o = feed.Overlap(log)
    assert o.take((2, b"x")) == [(2, b"x")]  # nothing overlapped
    o = feed.Overlap([])
    assert o.take((2, b"a")) == [(2, b"a")]


def test_the_event_page_stars_the_seats_ahead_and_no_one_while_all_are_level():
    from mjtable.live import hub

    def leads(*totals):
        seats = [{"seat": i, "name": "S%d" % i, "total": v, "alerts": []}
                 for i, v in enumerate(totals)]
        snap = {"table": 1, "name": "T", "id": "", "link": "ok", "hand": 1, "t": 0,
                "seats": seats}
        return hub.summary(snap)["leads"]

    assert leads(0, 0, 0, 0) == [] and leads(5, 5, 5, 5) == []
    assert leads(-2, 6, -2, -2) == [1]
    assert leads(4, -8, 4, 0) == [0, 2]  # level at the top: both ahead
    assert leads() == []


def test_delays_and_addresses_are_checked():
    assert livecmd.parse_delay("30s") == 30 and livecmd.parse_delay("2m") == 120
    assert livecmd.parse_delay("500ms") == 0.5 and livecmd.parse_delay("12") == 12
    for bad in ("soon", "-3s", "30 h"):
        with pytest.raises(livecmd.BadInput):
            livecmd.parse_delay(bad)
    with pytest.raises(livecmd.BadInput):
        livecmd.parse_listen("localhost", "--listen")
    with pytest.raises(livecmd.BadInput):
        livecmd.parse_tables([])


# --- against the firmware's host commands, in a browser ---


class Relay(threading.Thread):
    """A cable between the live server's pty and the table's: unplug() stops
    every byte both ways until plug(); swap() puts a new table on the far end."""

    def __init__(self):
        super().__init__(daemon=True)
        self.near_m, near_s = os.openpty()
        tty.setraw(near_s)
        self.path = os.ttyname(near_s)
        self._near_s = near_s
        self.far = None
        self.plugged = threading.Event()
        self.plugged.set()
        self.stop = False
        self.turns = 0  # loops begun: a swap is over once two more have begun

    def detach(self):
        """Take the far table off; return once no loop still reads it (one
        begun before could take a reply meant for the test's own session)."""
        self.far = None
        n = self.turns
        while self.turns < n + 2 and self.is_alive():
            time.sleep(0.01)

    def run(self):
        while not self.stop:
            self.turns += 1
            far = self.far
            fds = [self.near_m] + ([far] if far is not None else [])
            try:
                r, _, _ = select.select(fds, [], [], 0.05)
            except OSError:  # the far table closed under us (a swap, the teardown)
                continue
            for fd in r:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    continue
                if not self.plugged.is_set():
                    continue  # the cable is out: bytes go nowhere
                dst = far if fd == self.near_m else self.near_m
                if dst is not None:
                    try:
                        os.write(dst, data)
                    except OSError:
                        pass


def Peer(flash, fresh, pace=40, seed=1):
    return live_bench.Peer(flash, fresh=fresh, pace=pace, seed=seed, key=KEY)


def read(page):
    return page.evaluate("readTable(document.getElementById('table'))")


RECORD_DRAWS = """() => {
  // every state the page draws, read back from its tiles (the test's hook)
  window.__drawn = [];
  const draw = window.drawTable;
  window.drawTable = (el, snap, opts) => {
    draw(el, snap, opts);
    window.__drawn.push([readTable(el), el.dataset.hand]);
  };
}"""


def watch(page, until, limit=60.0):
    """Every state the page draws from now on, keyed by (hand, actions), until
    until(state, hand) holds for one."""
    if not page.evaluate("window.__drawn !== undefined"):
        page.evaluate(RECORD_DRAWS)
    seen = {}
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for st, hand in page.evaluate("window.__drawn.splice(0)"):
            if st["seats"]:
                seen.setdefault((int(hand), st["actions"]), st)
            if until(st, hand):
                return seen
        time.sleep(0.05)
    raise AssertionError("the page never got there; %d states seen" % len(seen))


def logs_of(path, want):
    ser = serial.Serial(path, 115200, timeout=1, write_timeout=5)
    link = H.Link(ser, timeout=10)
    link.hello()
    # the hand in play may grow while it is read: read it as monitor does
    out = {lid: logfmt.parse(fetch_growing(link, lid)).records
           for lid, _ in table_logs(link) if lid in want}
    ser.close()
    return out


def test_the_page_draws_the_table_move_by_move_and_survives_the_cable(tmp_path, browser):
    relay = Relay()
    peer = Peer(tmp_path / "flash.img", fresh=True)
    relay.far = peer.slave
    relay.start()
    live, urls = start_live("--table", relay.path + "=Table A", "--timeout", "1",
                            "--referee", "127.0.0.1:0", "--hide-hands")
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["referee"] + "/table/1")
        # from the first state the page shows (mid-hand: the bots began at once)
        # to the end of the next whole hand
        seen = watch(page, lambda st, hand: hand not in ("", "-1") and int(hand) >= 2
                     and st["phase"] == "end")
        first = min(seen)
        assert first[1] > 1, "the page opened at the hand's start, not mid-hand"
        # a page that falls behind draws the newest of the states waiting: busy
        # for a second (the bots move every 40 ms), it skips most of them
        page.evaluate("() => { const t = Date.now() + 1000; while (Date.now() < t) {} }")
        page.wait_for_function("window.liveSuperseded.length >= 5", timeout=10000)
        # the public view hides the concealed hands (tile backs, counts kept)
        pub = browser.new_page()
        pub.goto(urls["public"] + "/table/1")
        pub.wait_for_function("document.querySelectorAll('.seat').length == 4")
        # a seat that has won (血战) shows its hand: only the others' count
        faces = pub.evaluate("Array.from(document.querySelectorAll('.seat:not(.won) .hand .tile'))"
                             ".map(t => t.dataset.face)")
        assert faces and (set(faces) == {"back"} or read(pub)["phase"] == "end")
        # unplug: "link lost"; plug back: it reconnects and catches up
        relay.plugged.clear()
        page.wait_for_function("document.getElementById('table').dataset.link == 'lost'",
                               timeout=20000)
        relay.plugged.set()
        page.wait_for_function("document.getElementById('table').dataset.link == 'ok'",
                               timeout=20000)
        # the table restarts (the peer killed, a new one on the same flash)
        old = peer
        relay.far = None
        old.close()
        peer = Peer(tmp_path / "flash.img", fresh=False, seed=2)
        relay.far = peer.slave
        n0 = int(page.evaluate("document.getElementById('table').dataset.hand"))
        seen2 = watch(page, lambda st, hand: hand not in ("", "-1") and int(hand) > n0
                      and st["actions"] > 2 and st["link"] == "ok")
        superseded = [tuple(x) for x in page.evaluate("window.liveSuperseded")]
        stop(live)
        live = None
        hands = {h for h, _ in seen} | {h for h, _ in seen2}
        logs = logs_of(relay.path, hands)
        checked = 0
        for (hand, n), st in list(seen.items()) + list(seen2.items()):
            if hand not in logs or st["link"] != "ok":
                continue
            assert drawn_state(st) == table_truth(XZ, logs[hand], n), (hand, n)
            checked += 1
        # every move of the first whole hand reached the page: drawn (and
        # matched), or replaced by a newer state that came before it was drawn
        whole = first[0] + 1
        moves = sum(1 for r in logs[whole] if r[0] == logfmt.T_ACT)
        drawn = {n for h, n in seen if h == whole}
        skipped = {n for h, n in superseded if h == whole}
        assert set(range(1, moves + 1)) <= drawn | skipped, (moves, sorted(drawn))
        assert checked >= moves - len(skipped) and len(skipped) < moves
    finally:
        if live is not None:
            stop(live)
        peer.close()
        relay.stop = True
        relay.join(5)
        os.close(relay.near_m)
        os.close(relay._near_s)


def test_nothing_a_browser_sends_changes_anything(tmp_path):
    import urllib.error
    import urllib.request

    live, urls = start_live("--table", "/dev/null/none")
    try:
        base = urls["public"]
        for path in ("/", "/table/1", "/api/table/1", "/api/event", "/replay", "/ws/table/1"):
            req = urllib.request.Request(base + path, data=b"x", method="POST")
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(req, timeout=5)
            assert e.value.code == 405, path
        with urllib.request.urlopen(base + "/api/table/1", timeout=5) as r:
            body = r.read().decode()
        assert '"link": "lost"' in body or '"link": "connecting"' in body
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(base + "/table/9", timeout=5)
        assert e.value.code == 404
    finally:
        stop(live)


# --- the broadcast delay, the replay and the event page ---


def test_the_public_view_is_held_back_by_the_delay_the_referee_is_not():
    import asyncio

    from mjtable.live import hub as hubmod

    recs, g = bot_records()

    async def go():
        loop = asyncio.get_running_loop()
        hub = hubmod.Hub(loop, feed.Rules(), {"public": (0.3, True), "referee": (0.0, False)})
        t = hub.add("1", "/dev/null", "Table 1")
        t._run(time.time(), t._hand, (3, recs[:30]))
        ref, pub = t.views["referee"].current, t.views["public"].current
        assert ref["records"] == 30 and ref["seats"][0]["hand"]
        assert pub["records"] == 0  # still what the table was 0.3 s ago
        await asyncio.sleep(0.5)
        pub = t.views["public"].current
        assert pub["records"] == 30 and all(s["hand"] is None for s in pub["seats"]
                                            if not s["won"])
        assert hub.event_snapshot("public")["tables"][0]["hand"] == 3
        # the whole hand, read again after a reconnect: its points count once
        for _ in range(2):
            t._run(time.time(), t._hand, (3, recs))
        totals = [s["total"] for s in t.views["referee"].current["seats"]]
        assert totals == list(g.delta) == t.totals()

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as ex:  # Playwright's sync API may hold this thread's loop
        ex.submit(lambda: asyncio.run(go())).result()


# The replay redrawn from step 0 to its step until every tile is a PNG (or 5 s):
# each tile's image type and natural size.
TILE_KINDS = """async () => {
  const el = document.getElementById('table'), at = Number(el.dataset.step);
  let kinds = [];
  for (let i = 0; i < 50; i++) {
    show(0); show(at);
    kinds = await Promise.all(Array.from(el.querySelectorAll('.tile')).map(async t => {
      const b = await (await fetch(t.src)).blob();
      await t.decode().catch(() => {});
      return `${b.type} ${t.naturalWidth}x${t.naturalHeight}`;
    }));
    if (kinds.every(k => k.startsWith('image/png'))) break;
    await new Promise(r => setTimeout(r, 100));
  }
  return kinds;
}"""


def test_replay_steps_an_archived_hand_and_the_event_page_shows_every_table(tmp_path, browser):
    from mjtable import archive
    from test_hostcmds_e2e import build_log

    recs, g = bot_records(seed=4)
    path = str(tmp_path / "event.sqlite")
    ar = archive.open_archive(path)
    data = build_log(9, recs)
    log = logfmt.parse(data)
    # unsealed: it counts only as taken by name (archive.admit)
    ar.add_log("4c49564554455354", 9, log.head, data, "unsealed", "%08x" % XZ.crc(),
               accepted=("裁判", "a test hand", "test"))
    ar.close()
    live, urls = start_live("--table", "/dev/null/a=Final A", "--table", "/dev/null/b",
                            "--archive", path)
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["public"] + "/replay/1")
        page.wait_for_function("document.getElementById('table').dataset.step == '0'")
        for step in (0, 1, 5, 40):
            page.evaluate("show(%d)" % step)
            assert drawn_state(read(page)) == table_truth(XZ, recs[: step + 1]), step
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.getElementById('table').dataset.step") == "41"
        # each face shown becomes a bitmap twice the art's size (tiles.js); drawn again, the
        # tiles use it, with the same faces
        before = drawn_state(read(page))
        kinds = page.evaluate(TILE_KINDS)
        assert kinds and set(kinds) == {"image/png 120x168"}, kinds
        assert drawn_state(read(page)) == before
        page.evaluate("show(1e9)")  # the last step: the hand's end
        end = read(page)
        assert end["phase"] == "end"  # a wall run out is a 流局, a hand won out is over
        assert ("流局" if end["wall"] == 0 else "Hand over") in page.inner_text("#table")
        ev = browser.new_page()
        ev.goto(urls["public"] + "/")
        ev.wait_for_function("document.querySelectorAll('.card').length == 2")
        assert "Final A" in ev.inner_text(".tables") and "link lost" in ev.inner_text(".tables")
        assert ev.get_attribute(".card", "href") == "/table/1"
        ev.wait_for_function("document.querySelectorAll('.standings tbody tr').length == 4")
        best = max(range(4), key=lambda s: (g.delta[s], -s))
        assert ev.inner_text(".standings tbody tr") .split("\t")[2] == str(g.delta[best])
    finally:
        stop(live)


@pytest.mark.skipif(not os.environ.get("MJ_LIVE_VIRTUAL"),
                    reason="the full controller takes minutes: make test-long (MJ_LIVE_VIRTUAL=1)")
def test_the_page_follows_the_full_controller_with_bots(env, browser):
    """`mjtable virtual-table --bots` (firmware/app.py: scans, keys, displays,
    the link) instead of the host commands' peer: every state the page drew
    equals the table's log replayed to the same record."""
    # at the table's own frame pace: at --pace 0 the firmware appends records
    # faster than its link sends them, and its queue of 32 events overflows
    vt = subprocess.Popen([live_bench.EXE, "virtual-table", "--bots", "--pace", "20",
                           "--hands", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    live = None
    try:
        first = vt.stdout.readline()
        assert first.startswith("port: "), first + vt.stderr.read()
        port = first.split(": ", 1)[1].strip()
        live, urls = start_live("--table", port, "--referee", "127.0.0.1:0")
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["referee"] + "/table/1")
        seen = watch(page, lambda st, hand: hand not in ("", "-1") and int(hand) >= 1
                     and st["phase"] == "end", limit=600)
        stop(live)
        live = None
        logs = logs_of(port, {h for h, _ in seen})
        checked = 0
        for (hand, n), st in seen.items():
            if hand in logs and st["link"] == "ok":
                assert drawn_state(st) == table_truth(XZ, logs[hand], n), (hand, n)
                checked += 1
        assert checked > 10, checked
    finally:
        if live is not None:
            stop(live)
        vt.terminate()
        vt.wait(timeout=60)
