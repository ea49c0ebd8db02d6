"""`mjtable live`: the tables watched in a browser (docs/live.md).

    feed.py       one table's link, read in a thread: the hand's records
    model.py      the hand as pages draw it, replayed through the rules core
    hub.py        the tables' snapshots, and what each view is sent (delay, hidden hands)
    server.py     the aiohttp app: pages, JSON, WebSockets (all read-only)
    standings.py  the event page's standings from the archive
    cmd.py        the command line
    templates/, static/   the pages, their script and the SVG tiles
"""
