"""What the event prints: seating sheets, score sheets to sign, standings
(text, HTML, CSV with a BOM, JSON) and a player's record.

The data is built as plain dicts first (standings_data, score_sheet_data,
player_record): the JSON is that dict, and the HTML (jinja2 templates in
templates/, autoescaped), the CSV, the text and the PDF are drawn from it, so
every format says the same. Times: the table's clock is in ms since its boot
(the hand log's t0), so a hand's time is given from the match's first hand
("+12:30") with its length; the match's start is the host's clock (UTC).
"""

from __future__ import annotations

import csv
import io
import os
import time

import jinja2

from mjtable.logs.logfmt import table_name

WINDS = ("东 East", "南 South", "西 West", "北 North", "Seat 5")
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(os.path.join(os.path.dirname(__file__), "templates")),
    autoescape=True, trim_blocks=True, lstrip_blocks=True)


def num(v) -> str:
    """A points figure: an int as is, a fraction with up to 2 decimals."""
    if float(v) == int(v):
        return str(int(v))
    return ("%.2f" % v).rstrip("0")


def pad(text: str, width: int) -> str:
    """text left-aligned in `width` terminal columns (a 汉字 takes two)."""
    import unicodedata

    cols = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - cols)


def signed(v) -> str:
    s = num(v)
    return s if s.startswith("-") or s == "0" else "+" + s


def utc(secs) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(secs)) if secs else ""


def mmss(ms) -> str:
    s = ms // 1000
    return "%d:%02d" % (s // 60, s % 60)


_ENV.filters.update(num=num, signed=signed, utc=utc, mmss=mmss)


def render(template: str, **kw) -> str:
    """A page from one of templates/ (autoescaped)."""
    return _ENV.get_template(template).render(**kw)


def _who(ev, pid) -> dict:
    p = ev.player(pid)
    return {"id": p.pid, "name": p.name, "latin": p.latin, "club": p.club, "status": status(p)}


def correction_dict(c) -> dict:
    cid, rnd, pid, kind, pts, reason, referee, at = c
    return {"id": cid, "round": rnd, "player": pid, "kind": kind, "points": pts,
            "reason": reason, "referee": referee,
            "at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))}


def log_name(h) -> str:
    """A hand's table:log for people (TBLA0001:12)."""
    return "%s:%d" % (table_name(h.table_id), h.log_id)


def match_marks(mt) -> list:
    """What a match's result rests on besides logs sealed with the table
    key, one text each: a result entered by hand, hands a referee accepted
    by name."""
    out = []
    if mt.paper:
        pid, rnd, t, _pts, _hands, reason, referee, _at = mt.paper
        out.append("entered by hand: round %d table %d, by %s: %s (result #%d)"
                   % (rnd, t, referee, reason, pid))
    return out + ["accepted by name: %s by %s%s" % (log_name(h), h.accepted,
                                                     " (%s)" % h.reason if h.reason else "")
                  for h in mt.accepted]


def status(p) -> str:
    """A player's coming and going, for the sheets ("" if they play every round)."""
    out = []
    if p.sub_for:
        out.append("substitute for %s from round %d" % (p.sub_for, p.first))
    elif p.first > 1:
        out.append("from round %d" % p.first)
    if p.stop:
        out.append("dropped from round %d" % p.stop)
    return ", ".join(out)


def plural(n: int, word: str, many: str = "") -> str:
    """'1 table', '2 tables'."""
    return "%d %s" % (n, word if n == 1 else many or word + "s")


def seal_text(h) -> str:
    """A hand's seal as the sheets show it."""
    return "%s, accepted by %s" % (h.seal, h.accepted) if h.accepted else h.seal


def audit_rows(corrections, changes, papers) -> list:
    """Every correction, change of people and result entered by hand, in the
    order made: [{"what", "id", "at", "text", ...}]."""
    out = []
    for c in corrections:
        d = correction_dict(c)
        d.update(what="correction", text="correction: round %d  %-8s %+g %s  by %s: %s" % (
            d["round"], d["player"], d["points"], d["kind"], d["referee"], d["reason"]),
            t=c[7])
        out.append(d)
    for cid, kind, pid, rnd, data, reason, referee, at in changes:
        if kind == "name":
            what = "name of %s: %s" % (pid, ", ".join(
                "%s %s -> %s" % (k, data["was"].get(k, ""), data[k]) for k in sorted(data)
                if k != "was"))
        elif kind == "sub":
            what = "%s %s (%s) plays instead of %s from round %d" % (
                pid, data["name"], data["latin"], data["for"], rnd)
        elif kind == "drop":
            what = "%s dropped from round %d" % (pid, rnd)
        else:
            what = "%s %s (%s) registered late" % (pid, data["name"], data["latin"])
        out.append({"what": "change", "id": cid, "kind": kind, "player": pid, "round": rnd,
                    "data": data, "reason": reason, "referee": referee, "at": _when(at),
                    "text": "change: %s; by %s: %s" % (what, referee, reason), "t": at})
    for rid, rnd, t, pts, hands, reason, referee, at in papers:
        out.append({"what": "result", "id": rid, "round": rnd, "table": t, "points": pts,
                    "hands": hands, "reason": reason, "referee": referee, "at": _when(at),
                    "text": "result entered by hand: round %d table %d %s (%d hands); by %s: %s"
                    % (rnd, t, " ".join(signed(v) for v in pts), hands, referee, reason),
                    "t": at})
    out.sort(key=lambda r: (r.pop("t"), r["what"], r["id"]))
    return out


def _when(at) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


# --- seating ---

def seating_rows(ev, tables) -> list:
    return [{"table": t, "seats": [dict(_who(ev, pid), wind=WINDS[s])
                                   for s, pid in enumerate(pids)]}
            for t, pids in sorted(tables.items())]


def seating_text(ev, rnd, tables) -> str:
    out = ["%s - round %d seating" % (ev.name, rnd)]
    for t in seating_rows(ev, tables):
        out.append("table %d" % t["table"])
        for s in t["seats"]:
            out.append("  %-9s %-6s %s %s%s" % (s["wind"], s["id"], pad(s["name"], 8),
                                                pad("(%s)" % s["latin"], 20), s["club"]))
    return "\n".join(out) + "\n"


def seating_html(ev, rnd, tables) -> str:
    return _ENV.get_template("seating.html.j2").render(ev=ev, rnd=rnd,
                                                        tables=seating_rows(ev, tables))


# --- standings ---

def standings_data(ev, rnd, matches, rows, corrections) -> dict:
    """The standings after round `rnd` as one dict (the JSON document)."""
    out = []
    for r in rows:
        rounds = {}
        marks: list = []
        for k, mt in sorted(r.rounds.items()):
            s = r.seat[k]
            rounds[str(k)] = {"table": mt.table_no, "seat": WINDS[s].split()[1],
                              "place": mt.place[s], "placement_points": mt.pp[s],
                              "raw_points": mt.raw[s], "table_points": mt.raw_table[s],
                              "hands": len(mt.counted), "marks": match_marks(mt)}
            marks += rounds[str(k)]["marks"]
        out.append(dict(_who(ev, r.pid), rank=r.rank, placement_points=r.pp, raw_points=r.raw,
                        firsts=r.firsts, matches=r.matches, decided_by=r.decided_by,
                        rounds=rounds, marks=marks,
                        corrections=[correction_dict(c)["id"] for c in r.corrected]))
    played = sorted({k[0] for k, m in matches.items() if m.counted})
    accepted = [{"log": log_name(h), "hand_id": h.row, "round": k[0], "table": k[1],
                 "by": h.accepted, "reason": h.reason}
                for k, m in sorted(matches.items()) for h in m.accepted]
    return {"event": ev.eid, "name": ev.name, "dates": ev.dates, "ruleset": ev.rs.name,
            "after_round": rnd, "rounds_played": played,
            "placement_points": ev.placement_points, "tiebreaks": ev.tiebreaks,
            "standings": out, "accepted": accepted,
            "marks": sorted({m for p in out for m in p["marks"]}),
            "corrections": [correction_dict(c) for c in corrections if c[1] <= rnd]}


def standings_text(d) -> str:
    out = ["%s - standings after round %d" % (d["name"], d["after_round"])]
    out.append("%4s  %-8s %-16s %9s %8s %6s  %s" % ("rank", "id", "player", "place pts", "raw",
                                                  "firsts", "decided by"))
    for r in d["standings"]:
        mark = (" *" if r["corrections"] else "") + (" \u2020" if r["marks"] else "") + (
            "  (%s)" % r["status"] if r["status"] else "")
        out.append("%4d  %-8s %s %9s %8s %6d  %s%s" % (
            r["rank"], r["id"], pad(r["name"], 16), num(r["placement_points"]),
            signed(r["raw_points"]),
            r["firsts"], r["decided_by"], mark))
    for m in d["marks"]:
        out.append("\u2020 " + m)
    if d["corrections"]:
        out.append("* corrected: " + "; ".join(
            "#%d round %d %s %s %s (%s, by %s)" % (c["id"], c["round"], c["player"],
                                                    signed(c["points"]), c["kind"],
                                                    c["reason"], c["referee"])
            for c in d["corrections"]))
    return "\n".join(out) + "\n"


def standings_csv(d) -> str:
    """UTF-8 with a BOM (the caller writes the str as UTF-8; the BOM is its
    first character), one row per player, a column group per round."""
    f = io.StringIO()
    w = csv.writer(f)
    rounds = [str(r) for r in range(1, d["after_round"] + 1)]
    head = ["rank", "id", "name", "latin", "club", "placement_points", "raw_points", "firsts",
            "matches", "decided_by", "corrections", "marks", "status"]
    for r in rounds:
        head += ["r%s_table" % r, "r%s_seat" % r, "r%s_place" % r, "r%s_raw" % r,
                 "r%s_points" % r]
    w.writerow(head)
    for p in d["standings"]:
        row = [p["rank"], p["id"], p["name"], p["latin"], p["club"], num(p["placement_points"]),
               p["raw_points"], p["firsts"], p["matches"], p["decided_by"],
               " ".join("#%d" % c for c in p["corrections"]), "; ".join(p["marks"]), p["status"]]
        for r in rounds:
            m = p["rounds"].get(r)
            row += ([m["table"], m["seat"], m["place"] or "", m["raw_points"],
                     num(m["placement_points"])] if m else [""] * 5)
        w.writerow(row)
    return "\ufeff" + f.getvalue()


def standings_html(d) -> str:
    return _ENV.get_template("standings.html.j2").render(d=d)


# --- score sheets ---

def score_sheet_data(ev, mt, ar=None) -> dict:
    """One table's score sheet of one round: names, seats, every hand (its
    archive id, table:log, time, each seat's result), totals, corrections."""
    t_first = mt.hands[0].t0 if mt.hands else 0
    hands = []
    for k, h in enumerate(mt.hands):
        hands.append({"n": k + 1, "hand_id": h.row, "log": log_name(h),
                      "at_ms": (h.t0 - t_first) & 0x3FFFFFFF, "length_ms": h.dur,
                      "points": h.points, "seal": seal_text(h), "counted": h.counted,
                      "accepted": h.accepted})
    seats = []
    for s, pid in enumerate(mt.pids):
        seats.append(dict(_who(ev, pid), wind=WINDS[s], table_points=mt.raw_table[s],
                          raw_points=mt.raw[s], place=mt.place[s], placement_points=mt.pp[s]))
    return {"event": ev.name, "round": mt.rnd, "table": mt.table_no,
            "table_id": table_name(mt.table_id) if mt.table_id else "",
            "started_at": mt.started_at, "ruleset": ev.rs.name, "seats": seats, "hands": hands,
            "pending": mt.pending, "marks": match_marks(mt), "paper": bool(mt.paper),
            "corrections": [correction_dict(c) for c in mt.corrections]}


def score_sheets_html(ev, sheets) -> str:
    return _ENV.get_template("scoresheet.html.j2").render(ev=ev, sheets=sheets)


# --- a player's record ---

def player_record(ev, matches, rows, pid) -> dict:
    row = next(r for r in rows if r.pid == pid)
    out = dict(_who(ev, pid), rank=row.rank, placement_points=row.pp, raw_points=row.raw,
               rounds=[])
    for rnd, mt in sorted(row.rounds.items()):
        s = row.seat[rnd]
        out["rounds"].append({
            "round": rnd, "table": mt.table_no, "seat": WINDS[s].split()[1],
            "opponents": [q for q in mt.pids if q != pid], "place": mt.place[s],
            "placement_points": mt.pp[s], "raw_points": mt.raw[s],
            "table_points": mt.raw_table[s],
            "hands": [{"hand_id": h.row, "log": log_name(h), "points": h.points[s],
                       "counted": h.counted, "accepted": h.accepted} for h in mt.hands],
            "marks": match_marks(mt),
            "corrections": [correction_dict(c) for c in mt.corrections if c[2] == pid]})
    return out


def player_text(rec) -> str:
    out = ["%s %s (%s)%s: rank %d, %s placement points, raw %s" % (
        rec["id"], rec["name"], rec["latin"], " " + rec["club"] if rec["club"] else "",
        rec["rank"], num(rec["placement_points"]), signed(rec["raw_points"]))]
    for r in rec["rounds"]:
        out.append("round %d table %d %s: place %s, %s points, raw %s%s" % (
            r["round"], r["table"], r["seat"], r["place"] or "-", num(r["placement_points"]),
            signed(r["raw_points"]), "" if r["raw_points"] == r["table_points"]
            else " (table %s)" % signed(r["table_points"])))
        for h in r["hands"]:
            note = ("" if h["counted"] else "  not counted") + (
                "  accepted by name (%s)" % h["accepted"] if h["accepted"] else "")
            out.append("    hand %-6d %-22s %6s%s" % (h["hand_id"], h["log"], signed(h["points"]),
                                                      note))
        for c in r["corrections"]:
            out.append("    correction #%d %s %s: %s (by %s, %s)" % (
                c["id"], signed(c["points"]), c["kind"], c["reason"], c["referee"], c["at"]))
    return "\n".join(out) + "\n"
