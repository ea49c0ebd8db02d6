"""The web server (aiohttp): pages, JSON and WebSockets, all read-only.

Routes (every one a GET; a WebSocket's incoming messages are ignored, so
nothing a browser sends can reach a table):
    /                     the event page: every table at a glance, standings
    /table/{t}            one table (t: 1, 2, ... in --table order)
    /replay               the archive's hands;  /replay/{hand}: one, step by step
    /api/event, /api/table/{t}, /api/replay/{hand}    the same as JSON
    /ws/event, /ws/table/{t}    a snapshot on every change (hub.py)
    /static/...           the pages' script, style and tile drawing

One app is made per view (make_app(hub, view)): the public one (--delay,
--hide-hands) and the referee's (no delay, every hand), each on its own
listening address, so a spectator cannot reach the referee's view.
"""

from __future__ import annotations

import asyncio
import html
import json
import os

from aiohttp import WSMsgType, web

from mjtable import BadInput, archive
from mjtable.live.hub import Client
from mjtable.live.model import replay_steps

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC = os.path.join(HERE, "static")
PAGES = os.path.join(HERE, "templates")


def _page(name, status=200, **values):
    with open(os.path.join(PAGES, name), encoding="utf-8") as f:
        text = f.read()
    for k, v in values.items():
        text = text.replace("{{%s}}" % k, v)
    return web.Response(text=text, status=status, content_type="text/html", charset="utf-8")


def make_app(hub, view: str, archive_path=None) -> web.Application:
    app = web.Application()
    delay = hub.views[view][0]
    config = json.dumps({"view": view, "delay": delay, "hide": hub.views[view][1]})

    def table_of(request):
        t = hub.tables.get(request.match_info["t"])
        if t is None:
            raise web.HTTPNotFound(text="no table %s" % request.match_info["t"])
        return t

    async def event_page(request):
        return _page("event.html", config=config)

    async def table_page(request):
        t = request.match_info["t"]
        if t not in hub.tables:  # a page, with the way back to every table
            return _page("missing.html", 404, what=html.escape("no table %s" % t))
        return _page("table.html", config=config, table=t)

    async def api_event(request):
        return web.json_response(hub.event_snapshot(view))

    async def api_table(request):
        return web.json_response(table_of(request).views[view].current)

    async def ws_stream(request, pub):
        ws = web.WebSocketResponse(heartbeat=10)
        await ws.prepare(request)
        c = Client(ws)
        pub.clients.add(c)
        if pub.text:
            c.put(pub.text)  # whole at once: the page opens mid-hand
        sender = asyncio.ensure_future(c.run())
        try:
            async for msg in ws:  # read only to notice the close; nothing is acted on
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            pub.clients.discard(c)
            c.closed = True
            c.wake.set()
            await sender
        return ws

    async def ws_table(request):
        return await ws_stream(request, table_of(request).views[view])

    async def ws_event(request):
        return await ws_stream(request, hub.events[view])

    def hand_steps(spec):
        if not archive_path:
            raise web.HTTPNotFound(text="no archive (start with --archive PATH)")
        from mjtable.logs import hands

        try:
            ar = archive.open_archive(archive_path, create=False)
        except BadInput as e:
            raise web.HTTPNotFound(text=str(e)) from None
        try:
            h = hands.load(ar, ar.find_hand(spec))
        except BadInput as e:
            raise web.HTTPNotFound(text=str(e)) from None
        finally:
            ar.close()
        steps = replay_steps(lambda crc: h.rs, h.log.records, h.row)
        return {"hand": h.row, "table": h.table_id, "name": hub.label(h.table_id),
                "log": h.log_id, "seal": h.seal, "steps": steps}

    async def replay_index(request):
        return _page("replay.html", config=config, hand="")

    async def replay_page(request):
        return _page("replay.html", config=config, hand=request.match_info["hand"])

    async def api_replay(request):
        return web.json_response(hand_steps(request.match_info["hand"]))

    async def api_hands(request):
        if not archive_path or not os.path.exists(archive_path):
            return web.json_response([])
        ar = archive.open_archive(archive_path, create=False)
        try:
            rows = [{"hand": r[0], "table": r[1], "name": hub.label(r[1]), "log": r[2],
                     "seal": r[5]} for r in ar.logs()]
        finally:
            ar.close()
        return web.json_response(rows)

    app.router.add_get("/", event_page)
    app.router.add_get("/table/{t}", table_page)
    app.router.add_get("/replay", replay_index)
    app.router.add_get("/replay/{hand}", replay_page)
    app.router.add_get("/api/event", api_event)
    app.router.add_get("/api/table/{t}", api_table)
    app.router.add_get("/api/hands", api_hands)
    app.router.add_get("/api/replay/{hand}", api_replay)
    app.router.add_get("/ws/event", ws_event)
    app.router.add_get("/ws/table/{t}", ws_table)
    app.router.add_static("/static/", STATIC)
    return app


async def serve(hub, listens, archive_path=None, ready=None):
    """Serve each view on its address [(view, host, port)] until cancelled.
    ready(addresses) is called with the bound (view, url) pairs."""
    runners = []
    urls = []
    try:
        for view, host, port in listens:
            runner = web.AppRunner(make_app(hub, view, archive_path), access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, host, port)
            await site.start()
            runners.append(runner)
            sock = site._server.sockets[0]  # the port the system chose for port 0
            urls.append((view, "http://%s:%d" % (host, sock.getsockname()[1])))
        if ready is not None:
            ready(urls)
        await asyncio.Event().wait()
    finally:
        for r in runners:
            await r.cleanup()
