"""`mjtable replay HAND_ID`: step through an archived hand with the table's own
rules core, showing each action, then every seat's rack (concealed tiles),
melds and discards and the payments it caused.

    mjtable replay HAND_ID [--archive PATH] [--rules PRESET|FILE] [--step] [--brief]
HAND_ID is the archive's hand number (`mjtable logs list --archived`) or
TABLE:LOG. --step waits for Enter after each action (on a terminal).
"""

from __future__ import annotations

import sys

from sichuan import game as G
from sichuan import ruleset as R

from mjtable import archive
from mjtable.logs import hands


def add_parsers(sub):
    p = sub.add_parser("replay", help="step through an archived hand")
    p.add_argument("hand", metavar="HAND_ID", help="hand number or TABLE:LOG")
    archive.add_argument(p)
    p.add_argument("--rules", metavar="PRESET|FILE", default=None,
                   help="ruleset to replay under (default: the one the table used)")
    p.add_argument("--step", action="store_true", help="wait for Enter after each action")
    p.add_argument("--brief", action="store_true", help="actions and payments only")
    p.set_defaults(func=replay)


# 换三张 directions (sichuan.game DIR_*): where each seat's three go
EXCHANGE_TO = {G.DIR_NEXT: "下家 (next seat)", G.DIR_PREV: "上家 (previous seat)",
               G.DIR_ACROSS: "对家 (across)"}
LEGEND = "(a * after a discard: another seat claimed it with 碰, 杠 or 胡)"


def header_lines(ar, h) -> list:
    crc, _players, dealer, direction, _t0 = h.header
    line = "hand %d: table %s log %d, seal %s, ruleset %s (CRC %08X), dealer %s" % (
        h.row, h.table_id, h.log_id, h.seal, h.rs.name, crc, hands.SEAT_NAMES[dealer])
    if h.rs[R.P_HUANSANZHANG]:
        line += ", 换三张 to " + EXCHANGE_TO.get(direction, "direction %d" % direction)
    return [line, "played %s (table clock); pulled %s" % (hands.duration_text(h),
                                                          hands.pulled_text(ar, h.row))]


def replay(args):
    ar = archive.open_archive(args.archive, create=False)
    h = hands.load(ar, ar.find_hand(args.hand), args.rules)
    print("\n".join(header_lines(ar, h)))
    if not args.brief:
        print(LEGEND)
    step = [0]
    interactive = args.step and sys.stdin.isatty()

    def each(a, evs, g, logged):
        step[0] += 1
        print("%3d  %s" % (step[0], hands.fmt_action(a)))
        for e in hands.wins(evs):
            print("     win: " + hands.fmt_win(g, e))
        checks = hands.fmt_checks(g.rs, evs)
        if checks:
            print("     " + checks)
        for e in evs:
            if e[0] == 2:  # EV_PAY
                print("     " + hands.fmt_pay(e))
        if not args.brief and a[0] != G.DEAL:
            print("\n".join(hands.state_lines(g)))
        if interactive:
            input()

    g, diffs = hands.run(h, each)
    table = h.log.end_points()
    if table is None:  # no result to print: the log holds none
        print("no result: the log ends before the hand did (in play when pulled, or cut short)")
    elif h.stopped is not None:  # the engine's points so far are no result
        print("end: none; the replay stopped where the engine refused an action")
    elif not diffs or table == list(g.delta):
        print("end: %s" % "  ".join("%s %+d" % (hands.SEAT_NAMES[s], table[s])
                                     for s in range(len(table))))
    if table is not None and h.stopped is None and table != list(g.delta):
        diffs.append("points: table recorded %s, engine gives %s" % (table, list(g.delta)))
    for d in diffs:
        print("DIFFERENCE: " + d)
    return 1 if diffs else 0
