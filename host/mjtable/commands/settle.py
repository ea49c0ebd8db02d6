"""`mjtable settle FILE [--json]`: settle a disputed hand from a referee's script.

The script (format: host/mjtable/script.py, README.md) is played through
the game engine; this prints every payment with its reason and line, the
wins and the end-of-wall checks, then each seat's delta. A bad line prints
one error naming it and nothing else (exit 2).
"""

import json
import os
import sys

from sichuan import game as G
from sichuan import settle, tiles

from mjtable import BadInput
from mjtable.referee import script, winfmt
from mjtable.referee.script import seat_name
from mjtable.rules import names

END_NAMES = {G.END_WALL: "wall", G.END_WINNERS: "winners"}


def add_parsers(sub):
    hlp = "settle a disputed hand written as a script of actions (every payment and why)"
    p = sub.add_parser("settle", help=hlp, description=hlp)
    p.add_argument("file", metavar="FILE", help="the hand script ('-' for stdin)")
    p.add_argument("--rules", metavar="PRESET|FILE", default="xuezhan",
                   help="ruleset when the script has no `rules` line (default xuezhan)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def read(path):
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeError) as e:
        raise BadInput("%s: cannot read: %s" % (path, e)) from None


def run(args):
    base = None if args.file == "-" else os.path.dirname(os.path.abspath(args.file))
    res = script.run(read(args.file), args.rules, base)
    print(as_json(res) if args.json else as_text(res))
    return 0


def _pay_reason(r):
    return names.PAY_NAMES[r] if 0 <= r < len(names.PAY_NAMES) else str(r)


def as_dict(res):
    """The result as a dict with a fixed key order (seats are 0-based numbers)."""
    g = res.game
    pays = [{"line": ln, "payer": e[1], "payee": e[2], "amount": e[3],
             "reason": _pay_reason(e[4])} for ln, e in res.payments()]
    rs = res.rs
    wins = [{"line": ln, "seat": e[1], "fan": e[2], "flags": names.flags_of(e[3]),
             "from": e[4], "tile": tiles.name(e[5]), "fan_shown": winfmt.shown(rs, e[2]),
             "patterns": pats} for (ln, e), pats in zip(res.wins(), res.patterns, strict=True)]
    checks = [{"seat": e[1], "status": names.CHECK_NAMES[e[2]], "fan": e[3],
               "fan_shown": winfmt.shown(rs, e[3]) if e[3] >= 0 else None}
              for _ln, e in res.checks()]
    end = res.end()
    return {"rules": res.rs.name, "dealer": g.dealer, "payments": pays, "wins": wins,
            "checks": checks, "end": END_NAMES.get(end), "filled_turns": res.filled,
            "deltas": list(g.delta)}


def as_json(res):
    return json.dumps(as_dict(res), ensure_ascii=False)


def _flags_zh(flags):
    return " ".join(names.flags_of(flags & ~1, zh=True))  # 自摸 is said elsewhere


def as_text(res):
    g = res.game
    d = as_dict(res)
    out = ["rules %s%s, dealer %s" % (res.rs.name, " (%s)" % res.rules_note
                                      if res.rules_note else "", seat_name(g.dealer))]
    groups = {}  # line -> ([win and check texts], [payment texts]), engine order
    order = []
    pats = iter(res.patterns)
    for ln, _f, e in res.events:
        if e[0] not in (settle.EV_PAY, settle.EV_WIN, settle.EV_CHECK):
            continue
        if ln not in groups:
            groups[ln] = ([], [])
            order.append(ln)
        if e[0] == settle.EV_PAY:
            groups[ln][1].append("%-5s pays %-5s %3d  %s (%s)" % (
                seat_name(e[1]), seat_name(e[2]), e[3], names.PAY_ZH[e[4]], _pay_reason(e[4])))
        elif e[0] == settle.EV_WIN:
            how = "自摸" if e[4] < 0 else "胡 on %s's discard" % seat_name(e[4])
            extra = _flags_zh(e[3])
            groups[ln][0].append("%s %s %s: %s%s: %s" % (
                seat_name(e[1]), how, tiles.name(e[5]), winfmt.fan_text(res.rs, e[2]),
                " (as %s)" % extra if extra else "", winfmt.patterns_text(next(pats), res.rs)))
        else:
            v = " (%s)" % winfmt.fan_text(res.rs, e[3]) if e[2] == settle.CK_READY else ""
            groups[ln][0].append("查叫: %s %s%s" % (seat_name(e[1]), names.CHECK_ZH[e[2]], v))
    for ln in order:
        out.append("line %d  %s" % (ln, res.lines.get(ln, "")))
        for text in groups[ln][0] + groups[ln][1]:
            out.append("    " + text)
    end = res.end()
    if end == G.END_WALL:
        tail = "hand over: wall empty (流局)"
    elif end == G.END_WINNERS:
        tail = "hand over: winners"
    else:
        tail = "hand not over: %d tiles left in the wall" % g.wall
    if res.filled:
        tail += "; %d turn%s filled (drawn and thrown)" % (res.filled,
                                                           "" if res.filled == 1 else "s")
    out.append(tail)
    out.append("deltas: " + "  ".join("%s %+d" % (seat_name(s), v)
                                      for s, v in enumerate(d["deltas"]))
               + "   (sum %d)" % sum(d["deltas"]))
    return "\n".join(out)
