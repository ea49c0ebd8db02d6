"""`mjtable export`: score sheets of archived hands, as CSV and as one
self-contained HTML page (each hand's wins, payments and points; the
standings). Several archives (one per table, or copies from several laptops)
combine into one event's standings; a log present in more than one archive is
counted once (same table id, log id and chain head).

    mjtable export [--archive PATH]... [--csv OUT.csv] [--html OUT.html] [--title T]
Standings are per table seat (TABLE/East ...): the table knows seats, not people.
"""

from __future__ import annotations

import sys

from mjtable import BadInput, archive, check_target, write_file
from mjtable.logs.summary import collect, mark_gaps, standings, to_csv, to_html


def add_parsers(sub):
    p = sub.add_parser("export", help="score sheets: CSV and a self-contained HTML page")
    p.add_argument("--archive", metavar="PATH|URL", action="append", default=None,
                   help="archive(s) to combine, each a SQLite file or a postgresql:// address "
                        "(default %s)" % archive.default_path().replace("%", "%%"))
    p.add_argument("--csv", metavar="OUT.csv", help="one row per hand ('-': to stdout)")
    p.add_argument("--html", metavar="OUT.html", help="hands and standings")
    p.add_argument("--title", default="Sichuan mahjong: score sheet")
    p.set_defaults(func=export)


def export(args):
    if not args.csv and not args.html:
        raise BadInput("give --csv OUT.csv and/or --html OUT.html")
    archives = args.archive or [archive.default_path()]
    if args.html == "-":
        raise BadInput("--html -: only the CSV can go to stdout; give --html OUT.html")
    outs = [p for p in (args.csv, args.html) if p]
    for p in outs:  # both can be written, and neither is an archive, before either is
        if p != "-":
            check_target(p, archives)
    hs = collect(archives)
    gaps = mark_gaps(hs)
    if args.csv == "-":
        sys.stdout.flush()
        raw = getattr(sys.stdout, "buffer", None)  # UTF-8 whatever the terminal's encoding
        if raw is not None:
            raw.write(to_csv(hs).encode("utf-8"))
            raw.flush()
        else:
            sys.stdout.write(to_csv(hs))
    elif args.csv:
        write_file(args.csv, to_csv(hs), archives)
    if args.html:
        write_file(args.html, to_html(hs, args.title, gaps), archives)
    st = standings(hs)
    # with the CSV on stdout, the summary goes to stderr so the CSV stays whole
    say = sys.stderr if args.csv == "-" else sys.stdout
    print("%d hand(s) from %d table(s) exported to %s" % (
        len(hs), len({h["table"] for h in hs}),
        " and ".join("stdout" if p == "-" else p for p in outs)), file=say)
    for g in gaps:
        print("INCOMPLETE: " + g, file=say)
    if st:
        print("leader: %s %+d" % (st[0][1], st[0][2]), file=say)
    return 0
