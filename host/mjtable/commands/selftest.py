"""`mjtable selftest [--port P] [--json] [--agc LO:HI]`: the table checks its
own chips and this prints, per seat, what it found and a verdict (the
judging: mjtable.tableops.selftest). Exit 0 only when every seat is ok (1
otherwise, 2 when the table cannot be asked). Between hands only: the table
refuses it while a hand is in play.
"""

from __future__ import annotations

import json

from mjtable import BadInput
from mjtable.link import client as L
from mjtable.link import port as findport
from mjtable.link import protocol as P
from mjtable.tableops import selftest as S


def add_parsers(sub):
    p = sub.add_parser(
        "selftest", help="the table checks its chips; a verdict per seat (between hands)",
        description="The table re-initialises and checks every chip: per seat the "
                    "reader (versions, the field and AGC on each antenna, tags seen), the "
                    "display (all segments lit), the key expander (each key's state), and "
                    "lights the LED chain. Exit 0 only when every seat is ok.")
    findport.add_arguments(p, key=False)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--agc", metavar="LO:HI", default=None,
                   help="AGC range of a tuned antenna (default %d:%d)" % S.AGC_RANGE)
    p.set_defaults(func=selftest)


def selftest(args):
    agc = S.agc_range(args.agc)
    link = findport.connect(args)
    try:
        seats = S.ask(link, agc)
    except L.LinkError as e:
        if e.status != P.E_BUSY:
            raise BadInput("selftest: %s" % e) from None
        raise BadInput("selftest refused by the table: a hand is in play; the self-test runs "
                       "between hands (let the hand end, or `mjtable match end`)") from None
    if args.json:
        print(json.dumps({"seats": seats}, indent=2, sort_keys=True))
    else:
        print("\n".join(S.describe(seats)))
    return 0 if S.all_ok(seats) else 1
