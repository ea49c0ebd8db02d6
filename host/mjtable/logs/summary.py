"""Archived hands summarised: one dict per distinct hand across archives
(its wins, payments and points, checked by replaying it), the gaps in each
table's chain of logs, the standings per table seat, and the sheet as CSV and
as one self-contained HTML page (`mjtable export`, the live event page).

A log present in more than one archive is counted once (same table id, log id
and chain head). Standings are per table seat (TABLE/East ...): the table
knows seats, not people.
"""

from __future__ import annotations

import csv
import html
import io

from sichuan.settle import EV_PAY, EV_WIN

from mjtable import archive
from mjtable.logs import hands
from mjtable.logs.logfmt import table_name


def collect(paths) -> list:
    """One dict per distinct hand across the archives, in table/log order.

    A copy pulled while its hand was in play (`logs pull --all`) is a prefix
    of the later whole log: a hand's log only grows, so a row whose bytes
    begin another row's of the same table and log id is that hand again,
    and only the longest copy counts."""
    rows: dict = {}  # (table, log id) -> [(size, path, row id)]
    for path in paths:
        ar = archive.open_archive(path, create=False)
        for r in ar.logs():
            rows.setdefault((r[1], r[2]), []).append((r[4], path, r[0]))
        ar.close()
    keep: dict = {}  # path -> row ids
    for copies in rows.values():
        kept: list = []  # the bytes of the copies counted, longest first
        for _, path, row in sorted(copies, key=lambda c: -c[0]):
            data = _data(path, row) if len(copies) > 1 else b""  # one copy: nothing to compare
            if not any(k.startswith(data) for k in kept):
                kept.append(data)
                keep.setdefault(path, []).append(row)
    out = []
    for path, ids in keep.items():
        ar = archive.open_archive(path, create=False)
        took = ar.accepted()
        for row in ids:
            h = summarise(ar, row)
            a = took.get((h["table"], h["log"], h["head"].hex()))
            h["accepted"] = a[0] if a else ""
            out.append(h)
        ar.close()
    out.sort(key=lambda h: (h["table"], h["log"]))
    return out


def _data(path, row: int) -> bytes:
    ar = archive.open_archive(path, create=False)
    try:
        return ar.log_data(row)[2]
    finally:
        ar.close()


def summarise(ar, row: int) -> dict:
    h = hands.load(ar, row)
    wins: list = []
    pays: list = []
    checks: list = []

    def each(a, evs, g, logged):
        for e in evs:
            if e[0] == EV_WIN:
                wins.append(hands.fmt_win(g, e))
            elif e[0] == EV_PAY:
                pays.append(hands.fmt_pay(e))
        checks.append(hands.fmt_checks(g.rs, evs))

    g, diffs = hands.run(h, each)
    table = h.log.end_points()
    if table is None:  # in play when pulled, or cut short: no result to stand
        diffs.append("no end-of-hand record")
    elif table != list(g.delta):
        diffs.append("points differ: table %s, engine %s" % (table, list(g.delta)))
    return {"table": h.table_id, "log": h.log_id, "rules": h.rs.name, "seal": h.seal,
            "points": table, "wins": wins,  # None: no result (in play, or cut short)
            "payments": pays, "checks": [c for c in checks if c], "checked": not diffs,
            "differences": diffs,
            "head": h.log.head, "follows": h.log.follows()}


def mark_gaps(hs) -> list:
    """Set each hand's "chain": "ok", "-" (a format 1 log, no link) or the
    log missing before it: its link names a log (id and final head) that is
    not among the hands, whole. Returns the texts of the gaps: where they
    are, the match is incomplete."""
    have = {(h["table"], h["log"], h["head"]) for h in hs}
    gaps = []
    for h in hs:
        f = h["follows"]
        if f is None:
            h["chain"] = "-"
        elif f[0] == 0 or (h["table"], f[0], f[1]) in have:
            h["chain"] = "ok"
        else:
            h["chain"] = "log %d missing before it" % f[0]
            gaps.append("table %s: log %d is missing (log %d follows it)"
                        % (table_name(h["table"]), f[0], h["log"]))
    return gaps


def stands(h) -> bool:
    """A hand whose result counts: sealed with the table key, or accepted by
    name by a referee (mjtable.archive.admit)."""
    return h["points"] is not None and (h["seal"] == "valid" or bool(h.get("accepted")))


def seal_text(h) -> str:
    if h.get("accepted"):
        return "%s, accepted by %s" % (h["seal"], h["accepted"])
    return h["seal"] if stands(h) or h["points"] is None else h["seal"] + ", not counted"


def standings(hs) -> list:
    """[(place, player, total, hands)] by total, higher first."""
    tot: dict = {}
    n: dict = {}
    for h in hs:
        if not stands(h):  # no result, or one that is not the table's under its seal
            continue
        for s, p in enumerate(h["points"] or ()):
            who = "%s/%s" % (table_name(h["table"]), hands.SEAT_NAMES[s])
            tot[who] = tot.get(who, 0) + p
            n[who] = n.get(who, 0) + 1
    order = sorted(tot, key=lambda w: (-tot[w], w))
    return [(i + 1, w, tot[w], n[w]) for i, w in enumerate(order)]


def to_csv(hs) -> str:
    """The sheet as CSV text, starting with a UTF-8 BOM: without it Excel reads
    the file as the system's code page and garbles 汉字 (家里规矩, 自摸)."""
    f = io.StringIO()
    f.write("\ufeff")
    w = csv.writer(f)
    w.writerow(["table", "log", "rules", "seal", "East", "South", "West", "North",
                "wins", "chain", "checked"])
    for h in hs:
        pts = list(h["points"] or ()) + [""] * (4 - len(h["points"] or ()))
        w.writerow([table_name(h["table"]), h["log"], h["rules"], seal_text(h), *pts[:4],
                    "; ".join(h["wins"]), h.get("chain", "-"),
                    "yes" if h["checked"] else "DIFFERS"])
    return f.getvalue()


_CSS = """body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;
margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:.2em .6em;text-align:left}
th{background:#eee}.neg{color:#b00}.bad{color:#b00;font-weight:bold}details{margin:.3em 0}
td.n{text-align:right}"""


def _pts(v) -> str:
    return '<td class="n%s">%+d</td>' % (" neg" if v < 0 else "", v)


def to_html(hs, title: str, gaps=()) -> str:
    e = html.escape
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title>"
           "<style>%s</style></head><body><h1>%s</h1>" % (e(title), _CSS, e(title))]
    if gaps:
        out.append("<p class='bad'>INCOMPLETE: hands are missing, the standings leave them "
                   "out</p>" + "".join("<div class='bad'>%s</div>" % e(g) for g in gaps))
    out.append("<h2>Standings</h2><table><tr><th>#</th><th>player (table/seat)</th>"
               "<th>points</th><th>hands</th></tr>")
    for place, who, total, n in standings(hs):
        out.append("<tr><td>%d</td><td>%s</td>%s<td class='n'>%d</td></tr>"
                   % (place, e(who), _pts(total), n))
    out.append("</table><h2>Hands</h2><table><tr><th>table</th><th>log</th><th>rules</th>"
               "<th>seal</th><th>East</th><th>South</th><th>West</th><th>North</th>"
               "<th>breakdown</th></tr>")
    for h in hs:
        cells = ("".join(_pts(v) for v in h["points"]) if h["points"] is not None
                 else "<td colspan='4' class='bad'>no result</td>")
        body = "".join("<div>%s</div>" % e(w) for w in h["wins"] + h.get("checks", [])) or (
            "<div>no win</div>")
        body += "<details><summary>%d payment(s)</summary>%s</details>" % (
            len(h["payments"]), "".join("<div>%s</div>" % e(p) for p in h["payments"]))
        if not h["checked"]:
            body += "".join("<div class='bad'>%s</div>" % e(d) for d in h["differences"])
        if h.get("chain", "-") not in ("ok", "-"):
            body += "<div class='bad'>%s</div>" % e(h["chain"])
        seal = h["seal"] if h["seal"] == "valid" else "<span class='bad'>%s</span>" % e(
            seal_text(h))
        out.append("<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td>%s<td>%s</td></tr>"
                   % (e(table_name(h["table"])), h["log"], e(h["rules"]), seal, cells, body))
    out.append("</table></body></html>\n")
    return "".join(out)
