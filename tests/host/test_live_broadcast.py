"""`mjtable live` as a broadcast uses it (issue 43): what the public stream
may carry under a delay, the waits in play, names and outcomes, a phone,
and the small things. Against tools/hostlink_peer.py (the firmware's link
and host commands on the MicroPython unix port, bots playing logged hands)
behind a real pseudo-terminal, over the WebSockets (aiohttp) or in headless
Chromium. No timing is asserted."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor

import bench_live as live_bench
from bench_live import start_live, stop
from mjtable.live import model

KEY = bytes(range(7, 39))


def collect(urls, until, limit=90.0):
    """The messages of each WebSocket url (JSON-decoded), in order, until
    until(streams) holds (checked every 0.2 s) or `limit` s."""

    async def client(session, url, out):
        async with session.ws_connect(url, max_msg_size=0) as ws:
            async for m in ws:
                out.append(json.loads(m.data))

    async def main():
        import aiohttp

        streams = [[] for _ in urls]
        async with aiohttp.ClientSession() as session:
            tasks = [asyncio.ensure_future(client(session, u, out))
                     for u, out in zip(urls, streams, strict=True)]
            deadline = time.monotonic() + limit
            while time.monotonic() < deadline and not until(streams):
                await asyncio.sleep(0.2)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return streams

    with ThreadPoolExecutor(1) as ex:  # Playwright's sync API may hold this thread's loop
        return ex.submit(lambda: asyncio.run(main())).result()


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
        relay.far = None  # the other table leaves; was it ever asked to stream its hands?
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
