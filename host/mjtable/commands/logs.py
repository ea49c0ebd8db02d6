"""`mjtable logs list|pull`: the table's hand logs into the local archive.

    mjtable logs list [--port P] [--archived]     logs on the table (or in the archive)
    mjtable logs pull [--port P] [--archive PATH] [--no-ack] [--all]
                      [--accept LOGS --by REFEREE [--reason TEXT]]

How a pull checks, archives and acknowledges each log: mjtable.tableops.logs,
by the policy every way into an archive keeps (mjtable.archive.admit). A log
refused (damaged, forged, unsealed and not accepted by name, another copy of
an id archived) or a GAP in the logs' chain: exit 1; an acknowledgement the
table did not take: exit 3.
"""

from __future__ import annotations

import os
import sys

from mjtable import EXIT_LINK, EXIT_OK, EXIT_REPORTED, archive
from mjtable.archive import admit
from mjtable.link import port as findport
from mjtable.tableops import logs as T


def add_parsers(sub):
    p = sub.add_parser("logs", help="list or pull the table's hand logs")
    lsub = p.add_subparsers(dest="logs_command", metavar="ACTION")
    lsub.required = True
    a = lsub.add_parser("list", help="hand logs waiting on the table (or --archived)")
    findport.add_arguments(a, key=False)
    archive.add_argument(a)
    a.add_argument("--archived", action="store_true", help="list the archive instead")
    a.set_defaults(func=list_)
    b = lsub.add_parser("pull", help="pull, verify, archive and acknowledge hand logs")
    findport.add_arguments(b)
    archive.add_argument(b)
    b.add_argument("--no-ack", action="store_true", help="keep the logs on the table")
    b.add_argument("--all", action="store_true", help="also pull the hand in play")
    admit.add_arguments(b)
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=pull)


def _rules_name(ar, crc):
    """The name of the ruleset a log's CRC names (archived or a preset), else the CRC."""
    from mjtable.logs.hands import ruleset_of

    rs = ruleset_of(ar, int(crc, 16)) if crc else None
    return rs.name if rs is not None else (crc or "-")


def list_(args):
    if args.archived:
        ar = archive.open_archive(args.archive, create=False)
        rows = ar.logs()
        print("%5s  %-16s %6s %7s  %-9s %-16s %s" % ("hand", "table", "log", "bytes", "seal",
                                                   "head", "rules"))
        for r in rows:  # the rules last: a name is up to 32 bytes of 汉字 or letters
            print("%5d  %-16s %6d %7d  %-9s %-16s %s" % (r[0], r[1], r[2], r[4], r[5],
                                                       r[3], _rules_name(ar, r[6])))
        return 0
    link = findport.connect(args)
    logs = T.table_logs(link)
    playing = link.info().get("hand", "-1")
    print("table %s: %d log(s) waiting" % (findport.table_name(link), len(logs)))
    for lid, size in logs:
        print("  log %-6d %7d bytes%s" % (lid, size, "  (hand in play)" * (str(lid) == playing)))
    return 0


class Bar:
    """A one-line progress bar on stderr (nothing when quiet or not a terminal)."""

    def __init__(self, label: str, quiet: bool):
        self.label = label
        self.on = not quiet and sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.on:
            return
        w = 30
        k = w * done // total if total else w
        sys.stderr.write("\r%-12s [%s%s] %6d/%d" % (self.label, "#" * k, "." * (w - k),
                                                     done, total))
        sys.stderr.flush()

    def end(self) -> None:
        if self.on:
            sys.stderr.write("\n")


def pull(args):
    args.accepting = admit.from_args(args)
    # a foreign file: refused first (an empty one is an archive another pull is making)
    if args.archive and os.path.exists(args.archive) and os.path.getsize(args.archive):
        archive.open_archive(args.archive, create=False).close()
    link = findport.connect(args)
    ar = archive.open_archive(args.archive)  # made only once a table answered
    st, chain = T.pull_all(link, ar, args, lambda label: Bar(label, args.quiet))
    for c in chain:
        print("log chain: " + c)
    print("table %s: %d log(s) pulled, %d new, %d acknowledged, %d refused%s; archive %s"
          % (findport.table_name(link), st["pulled"], st["new"], st["acked"], len(st["bad"]),
             ", %d chain problem(s)" % len(chain) if chain else "", ar.path))
    if st["unacked"]:
        return EXIT_LINK
    return EXIT_REPORTED if st["bad"] or chain else EXIT_OK
