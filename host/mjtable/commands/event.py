"""`mjtable event ...`: the command line of the event room.

    mjtable event create FILE                       the event and its players
    mjtable event show [--event E]
    mjtable event draw --round R [--force]          the round's tables and seats
    mjtable event seating --round R [--html OUT]    the seating sheet, per table
    mjtable event standings [--round R] [--html OUT] [--csv OUT] [--json OUT|-]
    mjtable event player --id P [--json]            a player's record, hand by hand
    mjtable event correct --round R --player P --points N [--placement] --reason T --by NAME
    mjtable event audit [--json]                    every correction, in order
    mjtable event sheet --round R [--table N] [--html OUT] [--pdf OUT]   score sheets to sign
    mjtable event import DIR... [--key HEX]         log files copied off tables' flash
    mjtable event sync FROM.sqlite                  an offline laptop's archive into --archive
and `mjtable match start --event E --round R --table N` (tablecmd) ties a
table to its match. Every command takes --archive PATH|postgresql://...;
--event may be left out when the archive holds one event.
"""

from __future__ import annotations

import json
import os
import sys

from mjtable import EXIT_OK, EXIT_REPORTED, BadInput, archive, number, write_file
from mjtable.archive import admit
from mjtable.event import eventfile, seating, sheets, store
from mjtable.event import standings as S
from mjtable.link import port as findport


def _common(p, event=True):
    p.add_argument("--archive", metavar="PATH|URL", default=None,
                   help="SQLite file or postgresql://... (default %s)"
                   % archive.default_path().replace("%", "%%"))
    if event:
        p.add_argument("--event", metavar="E", help="event id (default: the only one)")


def add_parsers(sub):
    p = sub.add_parser("event", help="a competition: players, rounds, seating, standings, sheets")
    es = p.add_subparsers(dest="event_command", metavar="ACTION")
    es.required = True
    a = es.add_parser("create", help="create an event from its file (TOML)")
    a.add_argument("file", metavar="FILE")
    _common(a, event=False)
    a.set_defaults(func=create)
    a = es.add_parser("show", help="the event, its players, rounds and matches")
    _common(a)
    a.set_defaults(func=show)
    a = es.add_parser("draw", help="draw a round's tables and seats")
    _common(a)
    a.add_argument("--round", type=int, required=True, metavar="R")
    a.add_argument("--force", action="store_true",
                   help="draw although the rounds before have matches without results")
    a.set_defaults(func=draw)
    a = es.add_parser("seating", help="the seating sheet of a round, per table")
    _common(a)
    a.add_argument("--round", type=int, required=True, metavar="R")
    a.add_argument("--html", metavar="OUT.html")
    a.set_defaults(func=seating_sheet)
    a = es.add_parser("standings", help="standings after a round (default: the last played)")
    _common(a)
    a.add_argument("--round", type=int, metavar="R")
    a.add_argument("--html", metavar="OUT.html")
    a.add_argument("--csv", metavar="OUT.csv", help="UTF-8 with BOM (spreadsheets read it so)")
    a.add_argument("--json", metavar="OUT.json", help="- for stdout")
    a.set_defaults(func=standings_cmd)
    a = es.add_parser("player", help="a player's record, hand by hand")
    _common(a)
    a.add_argument("--id", required=True, metavar="P")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=player)
    a = es.add_parser("correct", help="a referee's penalty or correction (kept in the audit trail)")
    _common(a)
    a.add_argument("--round", type=int, required=True, metavar="R")
    a.add_argument("--player", required=True, metavar="P")
    a.add_argument("--points", type=number, required=True, metavar="N",
                   help="added to the player's raw points of that match (negative: a penalty)")
    a.add_argument("--placement", action="store_true",
                   help="add to the placement points instead (the placings stay)")
    a.add_argument("--reason", required=True)
    a.add_argument("--by", required=True, metavar="REFEREE")
    a.set_defaults(func=correct)
    a = es.add_parser("audit", help="every correction, in the order made")
    _common(a)
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=audit)
    a = es.add_parser("sheet", help="score sheets to sign, per table of a round (HTML, PDF)")
    _common(a)
    a.add_argument("--round", type=int, required=True, metavar="R")
    a.add_argument("--table", type=int, metavar="N", help="one table (default: every table)")
    a.add_argument("--html", metavar="OUT.html")
    a.add_argument("--pdf", metavar="OUT.pdf")
    a.set_defaults(func=sheet)
    a = es.add_parser("import", help="hand-log files copied off tables (DIR/TABLE_ID/h*.log)")
    a.add_argument("dirs", nargs="+", metavar="DIR")
    _key(a)
    admit.add_arguments(a)
    _common(a, event=False)
    a.set_defaults(func=import_cmd)
    a = es.add_parser("sync", help="an offline laptop's SQLite archive into --archive")
    a.add_argument("source", metavar="FROM.sqlite")
    _key(a)
    admit.add_arguments(a)
    _common(a, event=False)
    a.set_defaults(func=sync_cmd)


def _key(p):
    p.add_argument("--key", metavar="HEX", help="the tables' key, to check the seals (default "
                   "$MJTABLE_KEY or the key file, as for the table commands)")


# --- helpers ---

def _outputs(args, names, also):
    outs = [getattr(args, n) for n in names if getattr(args, n) not in (None, "-")]
    for o in outs:
        from mjtable import check_target

        check_target(o, also)
    return outs


# --- commands ---

def create(args):
    ev = eventfile.load(args.file)
    ar = store.open_archive(args.archive, create=True)
    new = store.add_event(ar, ev)
    print("event %s: %s, %d players at %d tables, %d rounds, %s; %s"
          % (ev.eid, ev.name, len(ev.players), ev.tables, ev.rounds, ev.rs.name,
             "created" if new else "already there (same file)"))
    return 0


def show(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    seats = store.all_seats(ar, ev.eid)
    ms = store.matches(ar, ev.eid)
    limit = []
    if ev.hands:
        limit.append("%d hands" % ev.hands)
    if ev.minutes:
        limit.append("%d minutes" % ev.minutes)
    print("event %s: %s (%s)" % (ev.eid, ev.name, ", ".join(ev.dates) or "no dates"))
    print("ruleset %s; matches of %s; %d rounds; placement points %s; tie-breaks %s"
          % (ev.rs.name, " or ".join(limit), ev.rounds,
             "-".join(sheets.num(v) for v in ev.placement_points), ", ".join(ev.tiebreaks)))
    print("%d players, %d tables; rounds drawn: %s; matches started: %d"
          % (len(ev.players), ev.tables, ", ".join(str(r) for r in sorted(seats)) or "none",
             len(ms)))
    return 0


def draw(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    store.check_round(ev, args.round)
    have = store.all_seats(ar, ev.eid)
    if args.round in have:
        raise BadInput("round %d of %s is drawn already" % (args.round, ev.eid))
    missing = [r for r in range(1, args.round) if r not in have]
    if missing:
        raise BadInput("draw round %d first" % missing[0])
    pids = [p.pid for p in ev.players]
    if args.round == 1:
        tables = seating.first_round(pids, ev.seats, ev.seed)
    else:
        store.index(ar)
        ms = S.build(ar, ev, args.round - 1)
        open_ = [m for m in ms.values() if not _complete(ev, m)]
        if open_ and not args.force:
            m = open_[0]
            raise BadInput("round %d table %d has %d counted hand(s)%s: the standings are not "
                           "final (%d such match(es)); --force draws anyway"
                           % (m.rnd, m.table_no, len(m.counted),
                              "" if m.table_id else ", not started", len(open_)))
        ranked = [r.pid for r in S.table(ev, ms)]
        tables = seating.next_round(ranked, have, ev.seats, ev.rounds, ev.seed)
    store.save_seats(ar, ev.eid, args.round, tables)
    rep = seating.repeats(list(tables.values()), _meets(have))
    have[args.round] = tables
    print("round %d of %s drawn: %d tables; %s" % (args.round, ev.eid, len(tables),
                                                 _draw_note(ev, have, rep)))
    return 0


def _draw_note(ev, history, rep) -> str:
    """The repeat meetings of the round just drawn and of the rounds drawn so
    far (and whether no draw could have fewer), and the winds."""
    total = seating.extra_meetings(history)
    floor = seating.fewest_possible(len(ev.players), ev.seats, len(history))
    winds = seating.wind_repeats(history, ev.seats)
    span = "round 1" if len(history) == 1 else "rounds 1-%d" % len(history)
    return "%d repeat meeting(s), %d in %s%s; %s" % (
        rep, total, span,
        " (the fewest there can be)" if total and total == floor else "",
        "winds balanced" if not winds else "%d wind(s) sat twice in a block" % winds)


def _meets(history):
    met = seating.met_pairs(history)
    return lambda a, b: met.get((a, b) if a < b else (b, a), 0)


def _complete(ev, m) -> bool:
    """A match whose result stands: hands counted, none in play, and as many
    as the match length asks (fewer in a timed match: the time ran out)."""
    n = len(m.counted)
    return n > 0 and not m.pending and (not ev.hands or n >= ev.hands or bool(ev.minutes))


def seating_sheet(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    store.check_round(ev, args.round)
    tables = store.seats(ar, ev.eid, args.round)
    if not tables:
        raise BadInput("round %d of %s is not drawn yet (`mjtable event draw --round %d`)"
                       % (args.round, ev.eid, args.round))
    if args.html:
        write_file(args.html, sheets.seating_html(ev, args.round, tables), [ar.path])
    print(sheets.seating_text(ev, args.round, tables), end="")
    return 0


def _standings(ar, ev, rnd):
    store.index(ar)
    ms = S.build(ar, ev, rnd)
    return ms, S.table(ev, ms)


def _last_played(ar, ev) -> int:
    ms = store.matches(ar, ev.eid)
    return max((m[0] for m in ms), default=0)


def standings_cmd(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    rnd = args.round if args.round is not None else _last_played(ar, ev)
    if args.round is not None:
        store.check_round(ev, rnd)
    _outputs(args, ("html", "csv", "json"), [ar.path])
    data = S.document(ar, ev.eid, rnd)
    if args.html:
        write_file(args.html, sheets.standings_html(data), [ar.path])
    if args.csv:
        write_file(args.csv, sheets.standings_csv(data), [ar.path])
    if args.json == "-":
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    if args.json:
        write_file(args.json, json.dumps(data, ensure_ascii=False, indent=1) + "\n", [ar.path])
    print(sheets.standings_text(data), end="")
    return 0


def player(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    ev.player(args.id)
    ms, rows = _standings(ar, ev, None)
    rec = sheets.player_record(ev, ms, rows, args.id)
    if args.json:
        print(json.dumps(rec, ensure_ascii=False, indent=1))
    else:
        print(sheets.player_text(rec), end="")
    return 0


def correct(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    store.check_round(ev, args.round)
    ev.player(args.player)
    sat = [p for ps in store.seats(ar, ev.eid, args.round).values() for p in ps]
    if args.player not in sat:
        raise BadInput("player %s has no seat in round %d" % (args.player, args.round))
    kind = "placement" if args.placement else "raw"
    if kind == "raw" and args.points != int(args.points):
        raise BadInput("raw points are whole numbers (%g)" % args.points)
    if args.points == 0:
        raise BadInput("a correction of 0 points changes nothing")
    cid = store.add_correction(ar, ev.eid, args.round, args.player, kind, args.points,
                               args.reason, args.by)
    print("correction %d: round %d, %s %+g %s points, by %s: %s"
          % (cid, args.round, args.player, args.points, kind, args.by, args.reason))
    return 0


def audit(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    cs = store.corrections(ar, ev.eid)
    if args.json:
        print(json.dumps([sheets.correction_dict(c) for c in cs], ensure_ascii=False, indent=1))
        return 0
    print("event %s: %d correction(s)" % (ev.eid, len(cs)))
    for c in cs:
        d = sheets.correction_dict(c)
        print("%4d  %s  round %d  %-8s %+g %s  by %s: %s"
              % (d["id"], d["at"], d["round"], d["player"], d["points"], d["kind"],
                 d["referee"], d["reason"]))
    return 0


def sheet(args):
    if not args.html and not args.pdf:
        raise BadInput("give --html OUT.html and/or --pdf OUT.pdf")
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    store.check_round(ev, args.round)
    _outputs(args, ("html", "pdf"), [ar.path])
    ms, _rows = _standings(ar, ev, args.round)
    pick = [m for (r, t), m in sorted(ms.items()) if r == args.round
            and (args.table is None or t == args.table)]
    if not pick:
        raise BadInput("round %d%s: nothing drawn" % (
            args.round, "" if args.table is None else " table %d" % args.table))
    data = [sheets.score_sheet_data(ev, m, ar) for m in pick]
    if args.html:
        write_file(args.html, sheets.score_sheets_html(ev, data), [ar.path])
    if args.pdf:
        from mjtable.event import pdf

        write_file(args.pdf, pdf.score_sheets(ev, data), [ar.path])
    print("round %d: %d score sheet(s) written to %s" % (
        args.round, len(data), " and ".join(p for p in (args.html, args.pdf) if p)))
    return 0


def import_cmd(args):
    from mjtable.event import importer

    accept = admit.from_args(args)
    key = _load_key(args)
    ar = store.open_archive(args.archive, create=True)
    st = importer.import_dirs(ar, args.dirs, key, accept)
    print("%d log file(s): %d new, %d already archived, %d refused; %d hand(s) indexed"
          % (st["files"], st["new"], st["old"], len(st["bad"]), st["indexed"]))
    for v, path in st["bad"]:
        print("refused: %s (%s)" % (admit.refusal(v, "mjtable event import %s" % " ".join(
            args.dirs)), path), file=sys.stderr)
    return _after(st)


def _load_key(args):
    key = findport.load_key(args.key)
    if key is None:
        print("no table key here (--key, $MJTABLE_KEY or %s): no seal can be checked, so every "
              "log is refused unless accepted by name" % findport.key_file(), file=sys.stderr)
    return key


def _after(st) -> int:
    """What an import or a sync found besides refusals: the chain's gaps, the
    tables no event's match was started on; the exit code."""
    for c in st["chain"]:
        print("log chain: " + c)
    for name, n in st["strays"].items():
        print("table %s: %d log(s) of a table no event's match was started on: archived, in no "
              "standings (`mjtable match start --event E --round R --table N` ties a table to "
              "its match)" % (name, n))
    return EXIT_REPORTED if st["bad"] or st["chain"] else EXIT_OK


def sync_cmd(args):
    from mjtable.event import sync

    if not os.path.isfile(args.source):
        raise BadInput("no archive at %s" % args.source)
    accept = admit.from_args(args)
    src = archive.open_archive(args.source, create=False)
    dst = store.open_archive(args.archive, create=True)
    if os.path.abspath(src.path) == os.path.abspath(dst.path):
        raise BadInput("%s: that is the target archive itself" % args.source)
    st = sync.sync(src, dst, _load_key(args), accept)
    print("synced %s into %s: %d log(s) new, %d already there, %d refused; %d ruleset(s); "
          "%d event(s), %d draw(s), %d match(es), %d correction(s) new"
          % (src.path, dst.path, st["logs"], st["had"], len(st["bad"]), st["rulesets"],
             st["events"], st["seats"], st["matches"], st["corrections"]))
    for v in st["bad"]:
        print("refused: %s" % admit.refusal(v, "mjtable event sync %s" % args.source))
    for c in st["conflicts"]:
        print("conflict: %s" % c)
    code = _after(st)
    return EXIT_REPORTED if st["conflicts"] else code
