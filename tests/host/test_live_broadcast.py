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
