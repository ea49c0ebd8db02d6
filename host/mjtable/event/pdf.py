"""The event's sheets as PDF (fpdf2), from the same dicts as the HTML: score
sheets (one A4 page a table, sheets.score_sheet_data), the standings (A4
landscape, sheets.standings_data) and a round's seating (sheets.seating_rows).
The font is Noto Sans CJK (Debian's fonts-noto-cjk), embedded as a subset,
so 汉字 names print on any printer; another font with CJK glyphs can be
named by $MJTABLE_CJK_FONT (a .ttf, .otf or .ttc file). No CJK font:
BadInput saying which package to install."""

from __future__ import annotations

import os

from mjtable import BadInput
from mjtable.event.sheets import mmss, num, signed, utc

FONTS = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
         "/usr/share/fonts/opentype/noto-cjk/NotoSansCJK-Regular.ttc",
         "/usr/share/fonts/truetype/noto/NotoSansCJK-Regular.ttc")
_SC = 2  # the collection's Simplified Chinese face (NotoSansCJK-Regular.ttc: JP KR SC TC HK)


def font_path() -> str:
    env = os.environ.get("MJTABLE_CJK_FONT")
    for p in ([env] if env else []) + list(FONTS):
        if p and os.path.isfile(p):
            return p
    raise BadInput("no CJK font for the PDF: install Debian's fonts-noto-cjk, or name a font "
                   "file in $MJTABLE_CJK_FONT")


def _new(title: str, landscape: bool = False):
    from fpdf import FPDF

    path = font_path()
    pdf = FPDF(orientation="L" if landscape else "P", format="A4")
    pdf.set_auto_page_break(True, margin=12)
    pdf.add_font("cjk", fname=path, collection_font_number=_SC if path.endswith(".ttc") else 0)
    pdf.set_title(title)
    return pdf


def score_sheets(ev, sheets) -> bytes:
    pdf = _new("%s: score sheets" % ev.name)
    for s in sheets:
        _page(pdf, s)
    return bytes(pdf.output())


def seating(ev, rnd: int, tables) -> bytes:
    """A round's seating (sheets.seating_rows), the tables one after another."""
    pdf = _new("%s: round %d seating" % (ev.name, rnd))
    pdf.add_page()
    pdf.set_font("cjk", size=14)
    pdf.cell(0, 8, ev.name, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("cjk", size=11)
    pdf.cell(0, 7, "Round %d: seating 座位表" % rnd, new_x="LMARGIN", new_y="NEXT")
    w = [28, 22, 40, 50, 46]
    for t in tables:
        pdf.set_font("cjk", size=11)
        pdf.cell(0, 8, "Table %d" % t["table"], new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("cjk", size=9)
        _row(pdf, w, ["seat", "id", "name", "latin", "club"], bold=True)
        for p in t["seats"]:
            _row(pdf, w, [p["wind"], p["id"], p["name"], p["latin"], p["club"]])
    return bytes(pdf.output())


def standings(d) -> bytes:
    """The standings (sheets.standings_data) on A4 landscape: the last nine
    rounds' places beside the totals, then the marks and corrections."""
    pdf = _new("%s: standings after round %d" % (d["name"], d["after_round"]), landscape=True)
    pdf.add_page()
    pdf.set_font("cjk", size=14)
    pdf.cell(0, 8, d["name"], new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("cjk", size=11)
    pdf.cell(0, 7, "Standings after round %d 排名" % d["after_round"], new_x="LMARGIN",
             new_y="NEXT")
    pdf.set_font("cjk", size=8)
    pdf.cell(0, 5, "Placement points %s; ties broken by %s, then the player id" % (
        "-".join(num(v) for v in d["placement_points"]),
        ", ".join(["placement points"] + d["tiebreaks"])), new_x="LMARGIN", new_y="NEXT")
    rounds = [str(r) for r in range(max(1, d["after_round"] - 8), d["after_round"] + 1)]
    w = [10, 16, 24, 32, 26, 16, 14, 8] + [12] * len(rounds)
    w.append(277 - sum(w))
    _row(pdf, w, ["#", "id", "name", "latin", "club", "place pts", "raw", "1st"]
         + ["R" + r for r in rounds] + ["decided by"], bold=True)
    for p in d["standings"]:
        mark = ("*" if p["corrections"] else "") + ("\u2020" if p["marks"] else "")
        _row(pdf, w, [str(p["rank"]), p["id"], p["name"], p["latin"], p["club"],
                      num(p["placement_points"]), signed(p["raw_points"]), str(p["firsts"])]
             + ["%s/%s" % (m["place"] or "-", num(m["placement_points"])) if m else ""
                for m in (p["rounds"].get(r) for r in rounds)]
             + [(p["decided_by"] + " " + mark).strip()])
    pdf.ln(2)
    pdf.cell(0, 5, "Rn: place / placement points in round n; * corrected; \u2020 not from "
             "sealed logs alone (below)", new_x="LMARGIN", new_y="NEXT")
    for p in d["standings"]:
        if p["status"]:
            pdf.cell(0, 5, "%s %s: %s" % (p["id"], p["name"], p["status"]), new_x="LMARGIN",
                     new_y="NEXT")
    for m in d["marks"]:
        pdf.multi_cell(0, 5, "\u2020 " + m, new_x="LMARGIN", new_y="NEXT")
    for c in d["corrections"]:
        pdf.multi_cell(0, 5, "* #%d round %d %s %s %s: %s (by %s, %s)" % (
            c["id"], c["round"], c["player"], signed(c["points"]), c["kind"], c["reason"],
            c["referee"], c["at"]), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _page(pdf, s) -> None:
    pdf.add_page()
    pdf.set_font("cjk", size=14)
    pdf.cell(0, 8, s["event"], new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("cjk", size=11)
    pdf.cell(0, 7, "Round %d, table %d: score sheet 计分表" % (s["round"], s["table"]),
             new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("cjk", size=8)
    pdf.cell(0, 5, "Table %s; ruleset %s; started %s" % (s["table_id"] or "not started",
                                                         s["ruleset"], utc(s["started_at"])),
             new_x="LMARGIN", new_y="NEXT")
    np = len(s["seats"])
    w = [8, 14, 38, 24] + [(186 - 84 - 16) / np] * np + [16]
    head = ["#", "hand", "log", "time"] + ["%s %s" % (p["wind"].split()[0], p["name"])
                                          for p in s["seats"]] + ["seal"]
    _row(pdf, w, head, bold=True)
    for h in s["hands"]:
        _row(pdf, w, [str(h["n"]), str(h["hand_id"]), h["log"],
                      "+%s (%s)" % (mmss(h["at_ms"]), mmss(h["length_ms"]))]
             + [signed(v) for v in h["points"]]
             + [("by name \u2020" if h["accepted"] else h["seal"])
                + ("" if h["counted"] else " *")])
    blank = [""] * 3
    _row(pdf, w, ["entered by hand \u2020" if s["paper"] else "table total"] + blank
         + [signed(p["table_points"]) for p in s["seats"]] + [""], bold=True, span=4)
    if s["corrections"]:
        _row(pdf, w, ["corrected"] + blank + [signed(p["raw_points"]) for p in s["seats"]] + [""],
             bold=True, span=4)
    _row(pdf, w, ["place / points"] + blank
         + ["%s / %s" % (p["place"] or "-", num(p["placement_points"])) for p in s["seats"]]
         + [""], bold=True, span=4)
    pdf.ln(2)
    if any(not h["counted"] for h in s["hands"]):
        pdf.cell(0, 5, "* not counted: %s" % ("the result entered by hand stands" if s["paper"]
                                              else "past the match length"),
                 new_x="LMARGIN", new_y="NEXT")
    if s["pending"]:
        pdf.multi_cell(0, 5, "%d hand(s) without a result that counts (in play when pulled, cut "
                       "short, or unsealed and not accepted by name): not counted" % s["pending"],
                       new_x="LMARGIN", new_y="NEXT")
    for m in s["marks"]:
        pdf.multi_cell(0, 5, "\u2020 " + m, new_x="LMARGIN", new_y="NEXT")
    for c in s["corrections"]:
        pdf.multi_cell(0, 5, "Correction #%d %s %s %s: %s (by %s, %s)" % (
            c["id"], c["player"], signed(c["points"]), c["kind"], c["reason"], c["referee"],
            c["at"]), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.set_font("cjk", size=10)
    for p in s["seats"]:
        pdf.cell(70, 10, "%s  %s %s (%s)" % (p["wind"], p["id"], p["name"], p["latin"]),
                 border="B")
        pdf.cell(0, 10, "signature 签名:", border="B", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(70, 10, "table referee 裁判", border="B")
    pdf.cell(0, 10, "signature 签名:", border="B", new_x="LMARGIN", new_y="NEXT")


def _row(pdf, widths, cells, bold=False, span=1) -> None:
    """One table row; span: the first cell takes that many columns."""
    if bold:
        pdf.set_fill_color(235, 235, 235)
    if span > 1:
        widths = [sum(widths[:span])] + widths[span:]
        cells = [cells[0]] + cells[span:]
    for wd, text in zip(widths, cells, strict=True):
        pdf.cell(wd, 6, text, border=1, fill=bold)
    pdf.ln(6)
