"""`mjtable live`: watch the tables in a browser.

    mjtable live --table PORT[=NAME]... [--listen HOST:PORT] [--delay 30s]
                 [--hide-hands] [--referee HOST:PORT] [--archive PATH]

Reads each table over its link (reading only: no key is used or asked for)
and serves the event page at the --listen address (default 127.0.0.1:8340),
each table at /table/1, /table/2 ... (in --table order). --delay holds
everything the public address shows back by that long (30s, 2m, 500ms; a
plain number is seconds); --hide-hands keeps the concealed hands off it.
--referee serves a second address with no delay and every hand. --archive
gives the replays (/replay), the standings and the players' names. Each
table's link goes through the process that owns its port (`mjtable serve`),
or this one owns it, so every other command can use the table meanwhile.
Prints one `live: VIEW URL` line per address once serving; runs until Ctrl-C.
"""

from __future__ import annotations

import asyncio
import re
import sys

from mjtable import BadInput, archive, seconds

DEFAULT_LISTEN = "127.0.0.1:8340"
STANDINGS_EVERY = 5.0  # s between two reads of the archive's standings


def add_parsers(sub):
    p = sub.add_parser("live", help="watch the tables live in a browser")
    p.add_argument("--table", metavar="PORT[=NAME]", action="append", default=[],
                   help="a table's serial device or pty path (repeat for more tables)")
    p.add_argument("--listen", metavar="HOST:PORT", default=DEFAULT_LISTEN,
                   help="address of the public pages (default %s)" % DEFAULT_LISTEN)
    p.add_argument("--delay", default="0", help="broadcast delay of the public pages: 30s, 2m, "
                   "500ms (default 0: none)")
    p.add_argument("--hide-hands", action="store_true",
                   help="the public pages do not show concealed hands")
    p.add_argument("--referee", metavar="HOST:PORT", default=None,
                   help="a second address: no delay, every hand shown")
    p.add_argument("--timeout", type=seconds, default=2.0, help="seconds to wait for a reply")
    archive.add_argument(p)
    p.set_defaults(func=run)


def parse_delay(text: str) -> float:
    """Seconds of '30s', '2m', '500ms' or '12' (seconds); BadInput otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min)?\s*", text or "")
    if not m:
        raise BadInput("--delay %r: expected a duration such as 30s, 2m or 500ms" % text)
    v = float(m.group(1))
    unit = m.group(2) or "s"
    v *= {"ms": 0.001, "s": 1, "m": 60, "min": 60}[unit]
    if v > 3600:
        raise BadInput("--delay %r: at most an hour" % text)
    return v


def parse_listen(text: str, what: str):
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise BadInput("%s %r: expected HOST:PORT" % (what, text))
    return host or "127.0.0.1", int(port)


def parse_tables(specs):
    """[(key, port, name)]: a table without =NAME is named by its id once read."""
    if not specs:
        raise BadInput("give at least one --table PORT (a serial device or a pty path)")
    out = []
    for i, spec in enumerate(specs):
        port, _, name = spec.partition("=")
        if not port:
            raise BadInput("--table %r: no port" % spec)
        out.append((str(i + 1), port, name))
    return out


def run(args):
    tables = parse_tables(args.table)
    delay = parse_delay(args.delay)
    listens = [("public",) + parse_listen(args.listen, "--listen")]
    views = {"public": (delay, args.hide_hands)}
    if args.referee:
        listens.append(("referee",) + parse_listen(args.referee, "--referee"))
        views["referee"] = (0.0, False)
    try:
        asyncio.run(_main(tables, views, listens, args.archive, args.timeout))
    except OSError as e:  # the address is taken
        raise BadInput("cannot listen: %s" % e) from None
    return 0


async def _main(tables, views, listens, archive_path, timeout):
    from mjtable.live.feed import Feed, Rules
    from mjtable.live.hub import Hub
    from mjtable.live.server import serve
    from mjtable.live.standings import players, standings

    loop = asyncio.get_running_loop()
    hub = Hub(loop, Rules(), views)
    feeds = []
    for key, port, name in tables:
        t = hub.add(key, port, name)
        f = Feed(port, t, hub.rules, timeout=timeout,
                 log=lambda text: print(text, file=sys.stderr, flush=True))
        t.feed = f
        feeds.append(f)

    def from_archive(path):
        return standings(path, hub.label), players(path)

    async def keep_standings():
        path = archive_path or archive.default_path()
        while True:
            try:
                hub.from_archive(*await loop.run_in_executor(None, from_archive, path))
            except Exception as e:  # an archive being written, or damaged: say so
                hub.from_archive({"title": "Standings unavailable: %s" % e, "columns": [],
                                  "rows": []}, hub.players)
            await asyncio.sleep(STANDINGS_EVERY)

    served = []

    def ready(urls):
        served.extend(urls)
        for f in feeds:  # only once serving: a server that cannot listen takes no table
            f.start()
        for view, url in urls:
            print("live: %s %s" % (view, url), flush=True)

    st = asyncio.ensure_future(keep_standings())
    try:
        await serve(hub, listens, archive_path or archive.default_path(), ready)
    finally:
        st.cancel()
        for f in feeds:
            if f.is_alive():
                f.stop()
        if served:  # an address taken: the error alone, it never started
            print("live: stopped", file=sys.stderr)
