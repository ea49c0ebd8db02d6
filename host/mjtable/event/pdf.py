"""Score sheets as PDF (fpdf2): one A4 page per table, from the same dicts
as the HTML (sheets.score_sheet_data). The font is Noto Sans CJK (Debian's
fonts-noto-cjk), embedded as a subset, so 汉字 names print on any printer;
another font with CJK glyphs can be named by $MJTABLE_CJK_FONT (a .ttf,
.otf or .ttc file). No CJK font: BadInput saying which package to install."""

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


def score_sheets(ev, sheets) -> bytes:
    from fpdf import FPDF

    path = font_path()
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=12)
    pdf.add_font("cjk", fname=path, collection_font_number=_SC if path.endswith(".ttc") else 0)
    pdf.set_title("%s: score sheets" % ev.name)
    for s in sheets:
        _page(pdf, s)
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
    _row(pdf, w, ["table total"] + blank + [signed(p["table_points"]) for p in s["seats"]] + [""],
         bold=True, span=4)
    if s["corrections"]:
        _row(pdf, w, ["corrected"] + blank + [signed(p["raw_points"]) for p in s["seats"]] + [""],
             bold=True, span=4)
    _row(pdf, w, ["place / points"] + blank
         + ["%s / %s" % (p["place"] or "-", num(p["placement_points"])) for p in s["seats"]]
         + [""], bold=True, span=4)
    pdf.ln(2)
    if any(not h["counted"] for h in s["hands"]):
        pdf.cell(0, 5, "* past the match length: not counted", new_x="LMARGIN", new_y="NEXT")
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
