"""Table commands over the link: `mjtable info`, `key set`, `clock set`,
`match start|end`.

    mjtable info [--port P] [--json]
    mjtable key set [HEX|--new]     while the key button was held at boot
    mjtable clock set [--port P]    the host's clock to the table
    mjtable match start|end [--port P] [--wait S]
    mjtable match start --event E --round R --table N   (an event's match)
Changing anything needs the table key (see mjtable.link.port).
"""

from __future__ import annotations

import json
import os
import struct
import time

from mjtable import BadInput, archive, seconds
from mjtable.event import sheets, tablematch
from mjtable.link import client as L
from mjtable.link import port as findport
from mjtable.link import protocol as P
from mjtable.tableops import info as I
from mjtable.tableops import rules as R


def add_parsers(sub):
    p = sub.add_parser("info", help="what the table reports about itself")
    findport.add_arguments(p, key=False)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=info)

    k = sub.add_parser("key", help="give the table its key (key button held at boot)")
    ksub = k.add_subparsers(dest="key_command", metavar="ACTION")
    ksub.required = True
    ks = ksub.add_parser("set", help="set the table key; it is also saved for this host")
    findport.add_arguments(ks, key=False)
    ks.add_argument("hex", nargs="?", metavar="HEX", help="64 hex digits (default: the saved "
                    "key, or a new random one with --new)")
    ks.add_argument("--new", action="store_true", help="make a new random key")
    ks.set_defaults(func=key_set)

    c = sub.add_parser("clock", help="set the table's clock from this host")
    csub = c.add_subparsers(dest="clock_command", metavar="ACTION")
    csub.required = True
    cs = csub.add_parser("set", help="set the table clock to this host's time (UTC)")
    findport.add_arguments(cs)
    cs.set_defaults(func=clock_set)

    m = sub.add_parser(
        "match", help="start or end a match at the table",
        description="start: begin a new match under the table's stored ruleset (the "
                    "last one pushed), the hands and totals counted afresh. end: end the "
                    "match under way (no hand begins until the next start). Neither is "
                    "taken while a hand is in play: --wait waits for it to end.")
    m.add_argument("op", choices=("start", "end"), metavar="start|end",
                   help="start a new match, or end the one under way")
    findport.add_arguments(m)
    m.add_argument("--wait", type=seconds, default=0.0, metavar="S",
                   help="seconds to wait for a hand in play to end (default 0: refuse at once)")
    e = m.add_argument_group("an event's match (match start --event E --round R --table N)")
    e.add_argument("--event", metavar="E", help="the event this match belongs to")
    e.add_argument("--round", type=int, metavar="R")
    e.add_argument("--table", type=int, metavar="N", help="the table number in the round's draw")
    e.add_argument("--again", action="store_true",
                   help="start this round's match of that table over (a table swapped)")
    archive.add_argument(e)
    m.set_defaults(func=match)


def info(args):
    link = findport.connect(args)
    try:
        d = link.info()
    except L.LinkError as e:
        R.refused(e, "info")
    d["table_id"] = link.table_id.hex()
    d["key_button"] = "1" if link.flags & 2 else "0"
    if args.json:
        print(json.dumps(I.as_json(d), indent=2, sort_keys=True))
        return 0
    for k, v in I.rows(d):
        print("%-13s %s" % (k, v))
    return 0


def key_set(args):
    if args.hex and args.new:
        raise BadInput("give a key or --new, not both")
    if args.hex:
        key = findport.parse_key(args.hex, "key")
    elif args.new:
        key = os.urandom(32)
    else:
        key = findport.load_key(None)
        if key is None:
            raise BadInput("no saved key: give one or --new")
    link = findport.connect(args)
    if not link.flags & 2:
        raise BadInput("the table's key button was not held at boot: hold it, power on, retry")
    try:
        link.set_key(key)
    except L.LinkError as e:
        R.refused(e, "key")
    path = findport.save_key(key)
    print("table %s: key set; saved in %s" % (findport.table_name(link), path))
    return 0


def clock_set(args):
    link = findport.connect(args, need_key=True)
    now = int(time.time())
    try:
        link.request(P.CMD_CLOCK, struct.pack("<I", now), auth=True)
    except L.LinkError as e:
        R.refused(e, "clock")
    print("table %s: clock set to %s" % (findport.table_name(link),
                                          time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                        time.gmtime(now))))
    return 0


def match(args):
    if args.event is not None:
        return event_match(args)
    link = findport.connect(args, need_key=True)
    op = P.MATCH_START if args.op == "start" else P.MATCH_END
    try:
        R.retry_busy(lambda: link.request(P.CMD_MATCH, bytes([op]), auth=True), args.wait)
    except L.LinkError as e:
        R.refused(e, "match %s" % args.op, link)
    print("table %s: match %s" % (findport.table_name(link),
                                  "started" if op == P.MATCH_START else "ended"))
    return 0


def event_match(args):
    """`match start --event E --round R --table N`: the event's ruleset and
    match length to the table, who sits where to the archive."""
    if args.op != "start" or args.round is None or args.table is None:
        raise BadInput("an event match: `match start --event E --round R --table N`")
    ar, ev, seats = tablematch.check(args.archive, args.event, args.round, args.table,
                                     args.again)
    link = findport.connect(args, need_key=True)
    after = tablematch.start(ar, ev, args.round, args.table, link, args.again)
    limit = " or ".join(x for x in ("%d hands" % ev.hands if ev.hands else "",
                                    "%d minutes" % ev.minutes if ev.minutes else "") if x)
    print("table %s: round %d table %d of %s started (%s, ruleset %s); hands from log %d on"
          % (findport.table_name(link), args.round, args.table, ev.eid, limit, ev.rs.name,
             after + 1))
    for s, pid in enumerate(seats):
        p = ev.player(pid)
        print("  %-9s %-6s %s (%s)" % (sheets.WINDS[s], pid, p.name, p.latin))
    return 0
