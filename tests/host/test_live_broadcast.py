"""`mjtable live` as a broadcast uses it (issue 43): what the public stream
may carry under a delay, the waits in play, names and outcomes, a phone,
and the small things. Against tools/hostlink_peer.py (the firmware's link
and host commands on the MicroPython unix port, bots playing logged hands)
behind a real pseudo-terminal, over the WebSockets (aiohttp) or in headless
Chromium. No timing is asserted."""

from __future__ import annotations

import time

import bench_live as live_bench
from bench_live import start_live, stop
from mjtable.live import model

KEY = bytes(range(7, 39))


def collect(urls, until, limit=90.0):
    """The messages of each WebSocket url (JSON-decoded), in order, until
    until(streams) holds (checked every 0.2 s) or `limit` s."""
    def msgs(streams):
        return [[d for _, d in got] for got in streams]

    return msgs(live_bench.ws_collect(urls, lambda streams: until(msgs(streams)), limit))


def ws(url, path):
    return url.replace("http:", "ws:") + path


# --- 1. the broadcast delay carries nothing the delayed moment did not know ---


def test_the_delayed_public_stream_is_the_referee_stream_version_by_version(tmp_path):
    peer = live_bench.Peer(tmp_path / "flash.img", pace=25, seed=5, key=KEY)
    live, urls = start_live("--table", peer.path + "=Final", "--delay", "1.5s", "--hide-hands",
                            "--referee", "127.0.0.1:0")
    try:
        def enough(streams):
            ref, pub = streams
            wins = any(s["wins"] for snap in ref for s in snap.get("seats", []))
            checks = any(snap.get("checks") for snap in ref)
            # every referee version of the window also reached the delayed stream
            return wins and checks and pub and pub[-1]["version"] >= ref[0]["version"] + 400

        ref, pub = collect([ws(urls["referee"], "/ws/table/1"), ws(urls["public"], "/ws/table/1")],
                           enough, limit=150)
    finally:
        stop(live)
        peer.close()
    by_version = {s["version"]: s for s in ref}
    compared = 0
    for snap in pub:
        want = by_version.get(snap["version"])
        if want is None:
            continue  # before the referee's first message
        want = model.hide_hands(want)
        for field in sorted(set(want) | set(snap)):
            assert snap.get(field) == want.get(field), (
                "public version %d: %r is not what the table was at that version"
                % (snap["version"], field))
        compared += 1
    assert compared > 300, compared
    assert any(s["wins"] for snap in pub for s in snap["seats"])  # the wins were compared
    assert any(snap["checks"] for snap in pub)  # and the 流局 verdicts


# --- 8. the small ones ---


def test_live_help_says_the_delay_default():
    import subprocess

    out = subprocess.run([live_bench.EXE, "live", "--help"], capture_output=True, text=True).stdout
    assert "--delay" in out
    text = " ".join(out.split())  # argparse wraps the help
    assert "default 0: none" in text and "(30s)" not in text, text


def test_a_taken_address_is_one_error_line():
    import socket
    import subprocess

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        r = subprocess.run([live_bench.EXE, "live", "--table", "/dev/null/none", "--listen",
                            "127.0.0.1:%d" % taken.getsockname()[1]], capture_output=True,
                           text=True, timeout=60)
    finally:
        taken.close()
    assert r.returncode == 2 and "cannot listen" in r.stderr, r
    assert "live: stopped" not in r.stderr, r.stderr  # it never started
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_table_that_is_not_there_gets_a_page_with_a_way_back(browser):
    live, urls = start_live("--table", "/dev/null/none=Final")
    try:
        page = browser.new_page()
        resp = page.goto(urls["public"] + "/table/9")
        assert resp.status == 404
        assert "no table 9" in page.inner_text("body")
        page.click("text=all tables")
        page.wait_for_function("document.querySelectorAll('.card').length == 1")
        assert page.url.rstrip("/") == urls["public"].rstrip("/")
        assert "Final" in page.inner_text(".tables")
    finally:
        stop(live)


# --- 6. never the wrong table ---


def info_of(path):
    """INFO of the table on a pty, on a session of the test's own (no key)."""
    import serial
    from mjtable.link import client as H

    ser = serial.Serial(path, 115200, timeout=1, write_timeout=5)
    try:
        link = H.Link(ser, timeout=10)
        link.hello()
        return link.info()
    finally:
        ser.close()


def banner(page):
    return page.evaluate("(document.querySelector('.linkstate') || {}).textContent || ''")


def test_a_reconnect_is_trusted_only_to_the_same_table(tmp_path, browser):
    """The cable out: 'table offline, reconnecting'; another table on the same
    path: refused, said so, never shown nor watched; the same table again,
    restarted on a fresh volume: its new match shown as new, the one it broke
    off kept with a note."""
    from test_live import Relay

    relay = Relay()
    watched = []
    peers = [live_bench.Peer(tmp_path / "a.img", pace=25, seed=3, key=KEY)]
    relay.far = peers[0].slave
    relay.start()
    live, urls = start_live("--table", relay.path + "=Final", "--timeout", "1")
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["public"] + "/table/1")
        page.wait_for_function("document.getElementById('table').dataset.link == 'ok' && "
                               "Number(document.getElementById('table').dataset.hand) >= 2",
                               timeout=60000)
        relay.plugged.clear()  # the cable out
        page.wait_for_function("document.getElementById('table').dataset.link == 'lost'",
                               timeout=30000)
        assert "table offline, reconnecting" in banner(page)
        assert "command" not in banner(page) and "0x" not in banner(page), banner(page)
        # another table comes up on the same path
        peers.append(live_bench.Peer(tmp_path / "b.img", pace=25, seed=4, key=KEY,
                                     table_id="OTHER001"))
        relay.far = peers[1].slave
        relay.plugged.set()
        page.wait_for_function("document.querySelector('.linkstate') && document.querySelector"
                               "('.linkstate').textContent.includes('not trusted')",
                               timeout=30000)
        assert "OTHER001".encode().hex() in banner(page), banner(page)
        time.sleep(3)  # it stays refused
        snap = page.evaluate("window.liveSnap")
        assert snap["link"] == "lost" and snap["id"] == b"LIVETEST".hex()
        relay.detach()  # the other table leaves; was it ever asked to stream its hands?
        watched.append(info_of(peers[1].path).get("watch"))
        # the same table back, restarted with nothing on its flash (a virtual table)
        peers.append(live_bench.Peer(tmp_path / "c.img", pace=25, seed=5, key=KEY))
        relay.far = peers[2].slave
        page.wait_for_function("document.getElementById('table').dataset.link == 'ok' && "
                               "document.querySelectorAll('.previous').length == 1",
                               timeout=60000)
        note = page.inner_text(".previous")
        assert "interrupted" in note and "restarted" in note, note
        prev = page.evaluate("window.liveSnap")["previous"][0]
        assert prev["hands"] >= 1 and sum(prev["totals"]) == 0  # the first table's hands
        # the new match counts its own hands: on a fresh volume, every log is one of them
        page.wait_for_function("window.liveSnap.hand >= 1")
        snap = page.evaluate("window.liveSnap")
        assert snap["match_hand"] == snap["hand"], (snap["match_hand"], snap["hand"])
    finally:
        stop(live)
        relay.stop = True
        relay.join(5)
        for p in peers:
            p.close()
    # the other table was never watched: live refused it before asking anything of it
    assert watched == ["0"], watched


# --- 2. waits in play ---


def out_of_wall(recs, actions):
    """Copies of each face taken from the wall by the first `actions` actions of
    a hand's records (deals, draws, 马/本金): the wall's complement, from the log."""
    from sichuan import game as G
    from sichuan import handlog

    head, acts = handlog.decode(b"".join(p for t, p in recs if t in (model.T_HEAD, model.T_ACT)))
    taken = [0] * 27
    moves = [r[1] for r in acts if r[0] == handlog.REC_ACTION][:actions]
    for kind, _seat, arg, _t in moves:
        if kind == G.DEAL:
            for f in arg:
                taken[f] += 1
        elif kind in (G.DRAW, G.MA, G.BENJIN):
            taken[arg] += 1
    return taken


def test_each_ready_seats_waits_are_the_tiles_a_win_comes_on():
    """Over twelve bot hands, at every action: each wait shown has as many
    copies left as the wall holds (read from the log's deals and draws, not
    the engine's bookkeeping); every win by a plain discard was on a wait
    shown for that seat the moment before, at the fan the win scored and
    with its patterns named alike (根×2 in both), and
    every 自摸 on one of its waits; hidden hands show none."""
    from mjtable.live import feed
    from mjtable.referee import winfmt
    from sichuan import presets
    from test_live import bot_records

    xz = presets.get("xuezhan")
    seen = {"waits": 0, "discard_wins": 0, "zimo": 0, "gen": 0}
    for seed in range(1, 13):
        recs, _ = bot_records(seed)
        m = model.HandModel(feed.Rules())
        prev = None
        for t, p in recs:
            m.feed(t, p)
            snap = m.snapshot()
            taken = out_of_wall(recs, snap["actions"])
            for seat in snap["seats"]:
                for w in seat["waits"] or ():
                    assert w["left"] == 4 - taken[w["face"]], (seed, snap["actions"], w)
                    seen["waits"] += 1
            assert all(s["waits"] is None for s in model.hide_hands(snap)["seats"]
                       if not s["won"])
            fresh = prev is not None and snap["actions"] > prev["actions"]
            for w in snap["wins"] if fresh else ():  # the wins of the action just fed
                before = {x["face"]: x for x in prev["seats"][w["seat"]]["waits"] or ()}
                assert w["face"] in before, (seed, snap["actions"], w, before)
                if w["from"] >= 0 and not w["flags"]:  # a plain 点炮: no 杠上炮, 抢杠, 海底 ...
                    assert before[w["face"]]["fan"] == w["shown"] == \
                        winfmt.shown(xz, w["fan"]), (seed, w, before)
                    # and named alike, a 根 counted in both (根×2)
                    names = [p["name"] for p in w["patterns"]]
                    assert before[w["face"]]["patterns"] == names, (seed, w, before)
                    seen["gen"] += sum("根×" in n for n in names)
                    seen["discard_wins"] += 1
                elif w["from"] < 0:
                    seen["zimo"] += 1
            prev = snap
    assert seen["waits"] > 100 and seen["discard_wins"] >= 3 and seen["zimo"] >= 1, seen
    assert seen["gen"] >= 1, seen  # a win of two 根 or more among them


RECORD_WAITS = """() => {
  // every state the page draws: (hand, actions) and each seat's waits as drawn
  window.__waits = [];
  const draw = window.drawTable;
  window.drawTable = (el, snap, opts) => {
    draw(el, snap, opts);
    window.__waits.push([Number(el.dataset.hand), Number(el.dataset.actions),
      Array.from(el.querySelectorAll('.seat')).map(s => Array.from(s.querySelectorAll('.wait'))
        .map(w => [Number(w.dataset.face), Number(w.dataset.left), Number(w.dataset.fan)]))]);
  };
}"""


def test_the_referee_page_shows_the_waits_in_play_and_the_hidden_public_page_none(
        tmp_path, browser):
    from mjtable.live import feed
    from test_live import logs_of

    peer = live_bench.Peer(tmp_path / "flash.img", pace=20, seed=8, key=KEY)
    live, urls = start_live("--table", peer.path + "=Final", "--referee", "127.0.0.1:0",
                            "--hide-hands")
    try:
        ref = browser.new_page(viewport={"width": 1600, "height": 1000})
        ref.goto(urls["referee"] + "/table/1")
        pub = browser.new_page(viewport={"width": 1600, "height": 1000})
        pub.goto(urls["public"] + "/table/1")
        for pg in (ref, pub):
            pg.wait_for_function("window.drawTable !== undefined")
            pg.evaluate(RECORD_WAITS)
        drawn, public = [], []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and sum(1 for _, _, ws in drawn for w in ws if w) < 60:
            drawn += ref.evaluate("window.__waits.splice(0)")
            public += pub.evaluate("window.__waits.splice(0)")
            time.sleep(0.2)
        public += pub.evaluate("window.__waits.splice(0)")
    finally:
        stop(live)
    try:
        logs = logs_of(peer.path, {h for h, _, _ in drawn})
    finally:
        peer.close()
    assert public and not any(w for _, _, ws in public for w in ws)  # hidden: none shown
    checked = 0
    for hand, actions, ws in drawn:
        if hand not in logs:
            continue
        recs = logs[hand]
        m = model.HandModel(feed.Rules())
        for t, p in recs:
            if t == model.T_ACT and m.actions >= actions:
                break
            m.feed(t, p)
        if m.actions != actions:
            continue
        taken = out_of_wall(recs, actions)
        want = [[[w["face"], 4 - taken[w["face"]], w["fan"]] for w in s["waits"] or ()]
                for s in m.snapshot()["seats"]]
        assert ws == want, (hand, actions)
        checked += sum(1 for x in ws if x)
    assert checked >= 30, checked


# --- 3. names and outcomes ---


def test_the_pages_name_the_players_and_the_tables(env, capsys, browser):
    """Standings by the table's name, not its hex id; once the event's match
    is started at the table (`match start --event`, through live's link), its
    seats carry the players' names, on the table page and the event page."""
    from forger import sealed
    from mjcall import call
    from mjtable import archive
    from mjtable.event import store
    from mjtable.logs import logfmt
    from test_event_setup import _file
    from test_live import bot_records

    arch = str(env / "archive.sqlite")
    recs, _ = bot_records(seed=4)
    # sealed with the table's key: an unsealed hand counts in no standing (issue 41)
    data = sealed(9, recs, KEY, b"LIVETEST", magic=b"MJL1")
    ar = archive.open_archive(arch)
    ar.add_log(b"LIVETEST".hex(), 9, logfmt.parse(data).head, data, "valid", "0b956ef6")
    ar.close()
    peer = live_bench.Peer(env / "flash.img", pace=40, seed=9, key=KEY)
    live, urls = start_live("--table", peer.path + "=Final", "--archive", arch)
    try:
        ev = browser.new_page(viewport={"width": 1600, "height": 1000})
        ev.goto(urls["public"] + "/")
        # the archive's rows at once; each by the table's name once live has met
        # the table (its id is learnt on the link; the standings are re-read every 5 s)
        ev.wait_for_function("document.querySelectorAll('.standings tbody tr').length == 4",
                             timeout=30000)
        ev.wait_for_function("Array.from(document.querySelectorAll('.standings tbody tr'))"
                             ".every(r => !r.textContent.includes('LIVETEST'))", timeout=30000)
        seats = [r.split("\t")[1] for r in ev.inner_text(".standings tbody").splitlines()]
        assert all(s.startswith("Final/") for s in seats), seats  # not 4c49564554455354/East
        assert call(capsys, "event", "create", _file(env, 4, rounds="1"))[0] == 0
        assert call(capsys, "event", "draw", "--round", "1")[0] == 0
        code, out, err = call(capsys, "match", "start", "--event", "t1", "--round", "1",
                              "--table", "1", "--port", peer.path)
        assert code == 0, err
        ar = archive.open_archive(arch)
        want = [store.load_event(ar, "t1").player(p).name for p in store.seats(ar, "t1", 1)[1]]
        ar.close()
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["public"] + "/table/1")
        page.wait_for_function("document.querySelectorAll('.seat .player').length == 4",
                               timeout=30000)
        got = page.evaluate("Array.from(document.querySelectorAll('.seat')).map(s => "
                            "s.querySelector('.player').textContent)")
        assert got == want, (got, want)
        ev.wait_for_function("document.querySelectorAll('.card td.player').length == 4 && "
                             "document.querySelector('.card td.player').textContent != ''",
                             timeout=30000)
        assert ev.evaluate("Array.from(document.querySelectorAll('.card td.player'))"
                           ".map(t => t.textContent)") == want
        assert "Final" in ev.inner_text(".card h2")
    finally:
        stop(live)
        peer.close()


RECORD_OUTCOMES = """() => {
  // per state drawn: (hand, actions, phase, wall), each seat's wins as drawn,
  // the centre's end line, the ticker's entries; and every chip in flight,
  // each animation frame, against every seat's points
  window.__out = [];
  window.__chips = {frames: 0, hits: 0};
  const draw = window.drawTable;
  window.drawTable = (el, snap, opts) => {
    draw(el, snap, opts);
    const text = sel => (el.querySelector(sel) || {}).textContent || "";
    window.__out.push({hand: Number(el.dataset.hand), actions: Number(el.dataset.actions),
      records: Number(el.dataset.records),
      phase: el.dataset.phase, wall: Number(el.dataset.wall),
      wins: Array.from(el.querySelectorAll('.seat')).map(s => Array.from(
        s.querySelectorAll('.wonb')).map(w => [Number(w.dataset.face), w.textContent])),
      over: text('.centre .over'), ticker: Array.from(el.querySelectorAll('.ticker li'))
        .map(li => li.textContent)});
  };
  const look = () => {
    const rects = sel => Array.from(document.querySelectorAll(sel)).map(
      e => e.getBoundingClientRect());
    const chips = rects('.chip');
    if (chips.length) {
      window.__chips.frames++;
      const pts = rects('.points');
      for (const c of chips) for (const p of pts)
        if (c.left < p.right && c.right > p.left && c.top < p.bottom && c.bottom > p.top)
          window.__chips.hits++;
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


def replayed(recs, records):
    """The model after the first `records` records of a hand (the seal is not streamed)."""
    from mjtable.live import feed

    m = model.HandModel(feed.Rules())
    for t, p in [r for r in recs if r[0] != model.T_SEAL][:records]:
        m.feed(t, p)
    return m


def test_a_hand_tells_its_wins_its_actions_and_its_end_and_no_chip_covers_the_points(
        tmp_path, browser):
    from test_live import logs_of

    peer = live_bench.Peer(tmp_path / "flash.img", pace=30, seed=11, key=KEY)
    live, urls = start_live("--table", peer.path + "=Final", "--referee", "127.0.0.1:0")
    states = []
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["referee"] + "/table/1")
        page.wait_for_function("window.drawTable !== undefined")
        page.evaluate(RECORD_OUTCOMES)
        deadline = time.monotonic() + 150

        def seen_liuju():  # the centre's end line drawn, not only the last action
            return any(s["phase"] == "end" and s["wall"] == 0 and s["over"] for s in states)

        def seen_win_kept():
            return any(s["wins"][i] and t["wins"][i] and t["actions"] > s["actions"]
                       for s, t in zip(states[:-1], states[1:], strict=True) for i in range(4))

        def flown():
            return page.evaluate("window.__chips.frames") > 30

        def enough():  # a loaded machine's page draws fewer of the states: wait for them
            return sum(1 for s in states if s["ticker"]) > 60

        while time.monotonic() < deadline and not (seen_liuju() and seen_win_kept() and
                                                   flown() and enough()):
            states += page.evaluate("window.__out.splice(0)")
            time.sleep(0.2)
        chips = page.evaluate("window.__chips")
    finally:
        stop(live)
    try:
        logs = logs_of(peer.path, {s["hand"] for s in states})
    finally:
        peer.close()
    assert seen_liuju() and seen_win_kept()
    assert chips["frames"] > 30 and chips["hits"] == 0, chips  # chips flew, none over points
    names = ["East", "South", "West", "North"]
    checked = {"wins": 0, "ends": 0, "ticker": 0}
    for s in states:
        if s["hand"] not in logs:
            continue
        snap = replayed(logs[s["hand"]], s["records"]).snapshot()
        assert snap["actions"] == s["actions"], (s["hand"], s["records"])
        for seat, drawn in zip(snap["seats"], s["wins"], strict=True):
            assert len(drawn) == len(seat["wins"]), (s["hand"], s["actions"])
            for (face, text), w in zip(drawn, seat["wins"], strict=True):
                assert face == w["face"] and all(p["name"] in text for p in w["patterns"]), \
                    (text, w)
                how = "自摸" if w["from"] < 0 else "点炮 " + names[w["from"]]
                assert how in text, (text, w)
                checked["wins"] += 1
        if snap["over"]:
            assert ("流局" in s["over"]) == (snap["wall"] == 0), s["over"]
            checked["ends"] += 1
        moves = [t for t in snap["ticker"]]
        assert len(s["ticker"]) == len(moves)
        if moves:
            assert s["ticker"][-1].startswith(names[moves[-1][1]])
            checked["ticker"] += 1
    assert checked["wins"] > 5 and checked["ends"] >= 1 and checked["ticker"] > 50, checked


def test_the_end_of_a_match_says_so_with_the_final_order(tmp_path, browser):
    """A match of one hand started at the table (MATCH start, through live's
    link): when the table says none is under way, the page gives the final
    order, and the event page says the match is over."""
    import struct

    from mjtable.link import client as H
    from mjtable.link import owner
    from mjtable.link import protocol as P
    from mjtable.tableops import rules

    peer = live_bench.Peer(tmp_path / "flash.img", pace=20, seed=13, key=KEY)
    live, urls = start_live("--table", peer.path + "=Final")
    try:
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(urls["public"] + "/table/1")
        page.wait_for_function("document.getElementById('table').dataset.link == 'ok'")
        link = H.Link(owner.open_stream(peer.path), key=KEY, timeout=10)
        link.hello()
        start = bytes((P.MATCH_START,)) + struct.pack("<HHI", 1, 0, 0)  # one hand
        rules.retry_busy(lambda: link.request(P.CMD_MATCH, start, auth=True), 60)
        link.stream.close()
        page.wait_for_function("document.querySelector('.matchover') !== null", timeout=60000)
        snap = page.evaluate("window.liveSnap")
        order = page.evaluate("Array.from(document.querySelectorAll('.matchover li'))"
                              ".map(li => Number(li.dataset.seat))")
        totals = {s["seat"]: s["total"] for s in snap["seats"]}
        assert order == sorted(totals, key=lambda s: (-totals[s], s)), (order, totals)
        assert "Match over" in page.inner_text(".matchover")
        # the match is its one hand: the hands the table played before it are another
        assert snap["match_hand"] == 1 and all(s["total"] == s["delta"] for s in snap["seats"])
        assert snap["previous"] and "before this match" in snap["previous"][-1]["note"]
        ev = browser.new_page()
        ev.goto(urls["public"] + "/")
        ev.wait_for_function("document.querySelector('.card .sub') && document.querySelector"
                             "('.card .sub').textContent.includes('match over')")
    finally:
        stop(live)
        peer.close()


# --- 4. a phone, and a seat's own view ---

FITS = """() => {
  const w = window.innerWidth, h = window.innerHeight, se = document.scrollingElement;
  const wide = Array.from(document.querySelectorAll('body *')).filter(e => {
    const r = e.getBoundingClientRect();
    return r.width && r.right > w + 0.5;
  }).map(e => e.className);
  return {width: se.scrollWidth, height: se.scrollHeight, wide: wide,
          places: Object.fromEntries(Array.from(document.querySelectorAll('.seat')).map(
            s => [s.classList[1], Number(s.dataset.seat)]))};
}"""


def test_the_table_fits_a_phone_from_any_seat(tmp_path, browser):
    """390 x 844, upright: no page wider than the screen, nor taller, through
    whole hands; ?seat=N puts seat N at the bottom (the player's own screen),
    the next in play order on its right, the one across at the top."""
    peer = live_bench.Peer(tmp_path / "flash.img", pace=15, seed=21, key=KEY)
    live, urls = start_live("--table", peer.path + "=Final", "--referee", "127.0.0.1:0")
    try:
        looked = set()
        for seat in (2, 0):
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(urls["referee"] + "/table/1" + ("?seat=%d" % seat if seat else ""))
            page.wait_for_function("document.querySelectorAll('.seat').length == 4")
            deadline = time.monotonic() + (15 if seat else 3)
            while time.monotonic() < deadline:
                got = page.evaluate(FITS)
                assert got["width"] <= 390 and not got["wide"], got
                assert got["height"] <= 844, got
                assert got["places"] == {"bottom": seat, "right": (seat + 1) % 4,
                                         "top": (seat + 2) % 4, "left": (seat + 3) % 4}, got
                looked.add(page.evaluate("document.getElementById('table').dataset.phase"))
                time.sleep(0.1)
            page.close()
        assert {"draw", "discard", "end"} <= looked, looked  # whole hands, their ends too
    finally:
        stop(live)
        peer.close()


def test_the_replays_name_the_table(tmp_path, browser):
    """An archived hand is the table's by its name, not its hex id."""
    from mjtable import archive
    from mjtable.logs import logfmt
    from test_hostcmds_e2e import build_log
    from test_live import bot_records

    path = str(tmp_path / "archive.sqlite")
    data = build_log(9, bot_records(seed=4)[0])
    ar = archive.open_archive(path)
    ar.add_log(b"LIVETEST".hex(), 9, logfmt.parse(data).head, data, "unsealed", "0b956ef6")
    ar.close()
    live, urls = start_live("--table", "/dev/null/none", "--archive", path)
    try:
        page = browser.new_page()
        page.goto(urls["public"] + "/replay")
        page.wait_for_function("document.querySelectorAll('#hands li').length == 1")
        assert "LIVETEST, log 9" in page.inner_text("#hands"), page.inner_text("#hands")
        page.goto(urls["public"] + "/replay/1")
        page.wait_for_function("document.getElementById('title').textContent != ''")
        title = page.inner_text("#title")
        assert "LIVETEST log 9" in title and b"LIVETEST".hex() not in title, title
    finally:
        stop(live)
