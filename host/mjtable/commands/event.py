"""`mjtable event ...`: the command line of the event room.

    mjtable event create FILE                       the event and its players
    mjtable event show [--event E]
    mjtable event draw --round R [--method random|swiss] [--manual FILE] [--force]
    mjtable event seating --round R [--html OUT] [--pdf OUT]   the seating sheet, per table
    mjtable event standings [--round R] [--html OUT] [--pdf OUT] [--csv OUT] [--json OUT|-]
    mjtable event player [show] --id P [--json]     a player's record, hand by hand
    mjtable event player add|drop|sub|name --id P ... --reason T --by NAME   people change
    mjtable event result --round R --table N --points E,S,W,N --reason T --by NAME
    mjtable event clock [--round R] [--follow] [--html OUT]   the round's time, for the hall
    mjtable event correct --round R --player P --points N [--placement] --reason T --by NAME
    mjtable event audit [--json]                    corrections, changes, results by hand
    mjtable event sheet --round R [--table N] [--html OUT] [--pdf OUT]   score sheets to sign
    mjtable event import DIR... [--key HEX] [--accept LOGS --by NAME]   log files off tables
    mjtable event sync FROM.sqlite [--key HEX] [--accept LOGS --by NAME]   an offline laptop's
and `mjtable match start --event E --round R --table N` (tablecmd) ties a
table to its match. The logic is in mjtable.event (and mjtable.archive.admit:
what a log must be to get in). Every command takes --archive PATH|postgresql://...;
--event may be left out when the archive holds one event.
"""

from __future__ import annotations

import json
import os
import sys

from mjtable import EXIT_OK, EXIT_REPORTED, BadInput, archive, number, write_file
from mjtable.archive import admit
from mjtable.event import draw as drawing
from mjtable.event import eventfile, people, sheets, store
from mjtable.event import standings as S
from mjtable.link import port as findport


def _common(p, event=True):
    archive.add_argument(p)
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
    a.add_argument("--method", choices=drawing.METHODS,
                   help="random (round 1's way, from the seed) or swiss (by standing: later "
                        "rounds' default)")
    a.add_argument("--manual", metavar="FILE", help="seat the round as FILE says: a line a "
                   "table, 'N: P1 P2 P3 P4' East first, '-' for a stand-in")
    a.add_argument("--force", action="store_true",
                   help="draw although the rounds before have matches without results")
    a.set_defaults(func=draw)
    a = es.add_parser("seating", help="the seating sheet of a round, per table")
    _common(a)
    a.add_argument("--round", type=int, required=True, metavar="R")
    a.add_argument("--html", metavar="OUT.html")
    a.add_argument("--pdf", metavar="OUT.pdf")
    a.set_defaults(func=seating_sheet)
    a = es.add_parser("standings", help="standings after a round (default: the last played)")
    _common(a)
    a.add_argument("--round", type=int, metavar="R")
    a.add_argument("--html", metavar="OUT.html")
    a.add_argument("--pdf", metavar="OUT.pdf")
    a.add_argument("--csv", metavar="OUT.csv", help="UTF-8 with BOM (spreadsheets read it so)")
    a.add_argument("--json", metavar="OUT.json", help="- for stdout")
    a.set_defaults(func=standings_cmd)
    a = es.add_parser(
        "player", help="a player's record (show), or people changing: add, drop, sub, name",
        description="show: a player's record, hand by hand. add: a late registration (before "
                    "round 1 is drawn). drop: the player plays no more from --round on. sub: "
                    "--id plays instead of --for from --round on, under their own id. name: a "
                    "name, latin or club corrected. A change applies from the round it names "
                    "(default: the player's first round not started); a drawn round whose "
                    "match has not started changes with it, no draw again.")
    a.add_argument("action", nargs="?", default="show", choices=PLAYER_ACTIONS)
    _common(a)
    a.add_argument("--id", required=True, metavar="P")
    a.add_argument("--json", action="store_true", help="show: print JSON")
    a.add_argument("--for", dest="for_", metavar="P", help="sub: the player replaced")
    a.add_argument("--round", type=int, metavar="R", help="drop, sub: from this round on")
    a.add_argument("--name", help="add, sub, name: the name (汉字)")
    a.add_argument("--latin", help="add, sub, name: pinyin or latin letters")
    a.add_argument("--club")
    a.add_argument("--reason", default="", help="changes: why (kept in the audit)")
    a.add_argument("--by", default="", metavar="REFEREE", help="changes: who made it")
    a.set_defaults(func=player)
    a = es.add_parser("result", help="a match result entered by hand (the table's hardware "
                      "failed): marked so in every output, audited")
    _common(a)
    a.add_argument("--round", type=int, required=True, metavar="R")
    a.add_argument("--table", type=int, required=True, metavar="N")
    a.add_argument("--points", required=True, metavar="E,S,W,N",
                   help="each seat's points for the match, East first (they add up to 0)")
    a.add_argument("--hands", type=int, metavar="H", help="hands played (default: the match "
                   "length)")
    a.add_argument("--reason", required=True)
    a.add_argument("--by", required=True, metavar="REFEREE")
    a.set_defaults(func=result)
    a = es.add_parser("clock", help="the round's clock for the hall, in step with the tables'")
    _common(a)
    a.add_argument("--round", type=int, metavar="R", help="default: the last round started")
    a.add_argument("--follow", action="store_true", help="count down on this terminal until "
                   "the time is up")
    a.add_argument("--html", metavar="OUT.html", help="a page for the hall's screen that "
                   "counts down by itself")
    a.set_defaults(func=clock_cmd)
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
    a = es.add_parser("audit", help="every correction, change of people and result entered "
                      "by hand, in the order made")
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


PLAYER_ACTIONS = ("show", "add", "drop", "sub", "name")


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
    print("event %s: %s, %s at %s, %s, %s; %s"
          % (ev.eid, ev.name, sheets.plural(len(ev.players), "player"),
             sheets.plural(ev.tables, "table"), sheets.plural(ev.rounds, "round"), ev.rs.name,
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
    print("%s, %s; rounds drawn: %s; matches started: %d"
          % (sheets.plural(len(ev.active(1)), "player"), sheets.plural(ev.tables, "table"),
             ", ".join(str(r) for r in sorted(seats)) or "none", len(ms)))
    for p in ev.players:
        if sheets.status(p):
            print("  %s %s: %s" % (p.pid, p.name, sheets.status(p)))
    return 0


def draw(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    manual = _read_text(args.manual) if args.manual else None
    tables, note = drawing.draw(ar, ev, args.round, args.method, manual, args.force)
    store.save_seats(ar, ev.eid, args.round, tables)
    print("round %d of %s drawn: %s; %s" % (args.round, ev.eid,
                                           sheets.plural(len(tables), "table"), note))
    return 0


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    except UnicodeDecodeError:
        raise BadInput("%s: not UTF-8 text" % path) from None


def seating_sheet(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    store.check_round(ev, args.round)
    tables = store.seats(ar, ev.eid, args.round)
    if not tables:
        raise BadInput("round %d of %s is not drawn yet (`mjtable event draw --round %d`)"
                       % (args.round, ev.eid, args.round))
    _outputs(args, ("html", "pdf"), [ar.path])
    if args.html:
        write_file(args.html, sheets.seating_html(ev, args.round, tables), [ar.path])
    if args.pdf:
        from mjtable.event import pdf

        write_file(args.pdf, pdf.seating(ev, args.round, sheets.seating_rows(ev, tables)),
                   [ar.path])
    print(sheets.seating_text(ev, args.round, tables), end="")
    return 0


def _standings(ar, ev, rnd):
    store.index(ar)
    ms = S.build(ar, ev, rnd)
    return ms, S.table(ev, ms)


def _last_played(ar, ev) -> int:
    ms = store.matches(ar, ev.eid)
    return max([m[0] for m in ms] + [p[1] for p in store.papers(ar, ev.eid)], default=0)


def standings_cmd(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    rnd = args.round if args.round is not None else _last_played(ar, ev)
    if args.round is not None:
        store.check_round(ev, rnd)
    _outputs(args, ("html", "csv", "json", "pdf"), [ar.path])
    data = S.document(ar, ev.eid, rnd)
    if args.html:
        write_file(args.html, sheets.standings_html(data), [ar.path])
    if args.csv:
        write_file(args.csv, sheets.standings_csv(data), [ar.path])
    if args.pdf:
        from mjtable.event import pdf

        write_file(args.pdf, pdf.standings(data), [ar.path])
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
    if args.action == "show":
        ev.player(args.id)
        ms, rows = _standings(ar, ev, None)
        rec = sheets.player_record(ev, ms, rows, args.id)
        if args.json:
            print(json.dumps(rec, ensure_ascii=False, indent=1))
        else:
            print(sheets.player_text(rec), end="")
        return 0
    if args.action == "add":
        cid = people.add(ar, ev, args.id, args.name, args.latin, args.club, args.reason, args.by)
        what = "registered late: plays from round 1"
    elif args.action == "drop":
        cid, rnd = people.drop(ar, ev, args.id, args.round, args.reason, args.by)
        what = "dropped: plays no round from round %d on" % rnd
    elif args.action == "sub":
        if not args.for_:
            raise BadInput("sub: give --for P, the player replaced")
        cid, rnd = people.sub(ar, ev, args.id, args.for_, args.round, args.name, args.latin,
                              args.club, args.reason, args.by)
        what = "plays instead of %s from round %d on" % (args.for_, rnd)
    else:
        cid = people.rename(ar, ev, args.id, args.name, args.latin, args.club, args.reason,
                            args.by)
        p = store.load_event(ar, ev.eid).player(args.id)
        what = "is now %s (%s)%s" % (p.name, p.latin, ", " + p.club if p.club else "")
    print("change %d: %s %s; by %s: %s" % (cid, args.id, what, args.by, args.reason))
    return 0


def result(args):
    from mjtable.event import paper

    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    rid = paper.enter(ar, ev, args.round, args.table, args.points, args.hands, args.reason,
                      args.by)
    print("result %d: round %d table %d entered by hand by %s (%s): %s; marked so in every "
          "standing and sheet" % (rid, args.round, args.table, args.by, args.reason,
                                  args.points))
    return 0


def clock_cmd(args):
    import time

    from mjtable.event import clock

    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    rnd = args.round if args.round is not None else _last_played(ar, ev) or 1
    if args.html:
        _outputs(args, ("html",), [ar.path])
        write_file(args.html, clock.html(clock.round_clock(ar, ev, rnd, time.time())),
                   [ar.path])
    while True:
        d = clock.round_clock(ar, ev, rnd, time.time())
        if not args.follow or not d["left"]:
            print(clock.text(d))
            return 0
        print("\r" + clock.text(d).splitlines()[0] + "   ", end="", flush=True)
        time.sleep(1)


def correct(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    store.check_round(ev, args.round)
    p = ev.player(args.player)
    drawn = store.seats(ar, ev.eid, args.round)
    sat = [q for ps in drawn.values() for q in ps]
    if drawn and args.player not in sat or not drawn and not p.plays(args.round):
        raise BadInput("player %s has no seat in round %d" % (args.player, args.round))
    kind = "placement" if args.placement else "raw"
    if kind == "raw" and args.points != int(args.points):
        raise BadInput("raw points are whole numbers (%g)" % args.points)
    if args.points == 0:
        raise BadInput("a correction of 0 points changes nothing")
    cid = store.add_correction(ar, ev.eid, args.round, args.player, kind, args.points,
                               args.reason, args.by)
    print("correction %d: round %d, %s %+g %s points, by %s: %s%s"
          % (cid, args.round, args.player, args.points, kind, args.by, args.reason,
             "" if drawn else " (round %d is not drawn yet: it applies once played)"
             % args.round))
    return 0


def audit(args):
    ar = store.open_archive(args.archive)
    ev = store.event_of(ar, args.event)
    rows = sheets.audit_rows(store.corrections(ar, ev.eid), store.changes(ar, ev.eid),
                             store.papers(ar, ev.eid))
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    n = sum(r["what"] == "correction" for r in rows)
    print("event %s: %d correction(s), %d change(s) of people, %d result(s) entered by hand"
          % (ev.eid, n, sum(r["what"] == "change" for r in rows),
             sum(r["what"] == "result" for r in rows)))
    for r in rows:
        print("%4d  %s  %s" % (r["id"], r["at"], r["text"]))
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
