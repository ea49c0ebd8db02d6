"""The event's sheets: standings as HTML, CSV (UTF-8 with a BOM) and JSON;
score sheets to sign as HTML and PDF; the seating sheet. The HTML is looked
at in headless Chromium (Debian's /usr/bin/chromium, through playwright):
what a referee prints is what the page shows, its numbers add up, and it
loads nothing from outside."""

import contextlib
import csv
import io
import json
import os
import re
import zlib

import pytest
from mjtable import cli
from test_event_standings import HANDS, KEY, ROUNDS, TABLES, start_round  # noqa: F401

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("no /usr/bin/chromium (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _open(browser, path):
    page = browser.new_page()
    outside = []
    page.on("request", lambda r: None if r.url.startswith("file://") else outside.append(r.url))
    page.goto("file://" + str(path))
    return page, outside


def _run(*argv):
    """(exit code, stdout) of `mjtable ARGV...` in this process."""
    f = io.StringIO()
    with contextlib.redirect_stdout(f), contextlib.redirect_stderr(f):
        code = cli.main(list(argv))
    return code, f.getvalue()


@pytest.fixture(scope="module")
def sheets(tmp_path_factory, generated):
    """Every sheet of round 1 of the generated event, made once for the module."""
    path, logs = generated
    env = tmp_path_factory.mktemp("sheets")
    arch = str(env / "archive.sqlite")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MJTABLE_ARCHIVE", arch)
        assert _run("event", "create", path)[0] == 0
        assert _run("event", "draw", "--round", "1")[0] == 0
        start_round(arch, "gen2", 1)
        assert _run("event", "import", logs, "--key", KEY.hex())[0] == 0
        assert _run("event", "draw", "--round", "2")[0] == 0
        start_round(arch, "gen2", 2)
        code, o = _run("event", "correct", "--round", "1", "--player", "P0002", "--points", "-8",
                       "--reason", "错和 false win", "--by", "张裁判")
        assert code == 0, o
        out = {k: env / ("s." + k) for k in ("html", "csv", "json")}
        code, o = _run("event", "standings", "--html", str(out["html"]), "--csv",
                       str(out["csv"]), "--json", str(out["json"]))
        assert code == 0, o
        code, o = _run("event", "sheet", "--round", "1", "--html", str(env / "sheet.html"),
                       "--pdf", str(env / "sheet.pdf"))
        assert code == 0 and "%d score sheet(s)" % TABLES in o, o
        assert _run("event", "seating", "--round", "1", "--html", str(env / "seat.html"))[0] == 0
    out.update(sheet=env / "sheet.html", pdf=env / "sheet.pdf", seat=env / "seat.html")
    return out


def test_the_standings_page_shows_every_player_and_the_correction(sheets, browser):
    data = json.loads(sheets["json"].read_text(encoding="utf-8"))
    page, outside = _open(browser, sheets["html"])
    rows = page.locator("#standings tr[data-id]")
    assert rows.count() == len(data["standings"]) == 4 * TABLES
    assert rows.nth(0).get_attribute("data-id") == data["standings"][0]["id"]
    names = page.locator("#standings td.name").all_inner_texts()
    assert names == [p["name"] for p in data["standings"]]
    # the 汉字 are drawn in a CJK font, not as missing-glyph boxes
    assert page.evaluate("document.fonts.check('16px \"Noto Sans CJK SC\"', '张')")
    corrected = page.locator("#standings tr.corr")
    assert corrected.count() == 1 and corrected.get_attribute("data-id") == "P0002"
    assert "错和 false win" in page.locator("#corrections").inner_text()
    assert page.locator("#corrections").is_visible() and outside == []
    page.close()


def test_the_score_sheets_add_up_as_the_browser_shows_them(sheets, browser):
    page, outside = _open(browser, sheets["sheet"])
    sections = page.locator("section.sheet")
    assert sections.count() == TABLES and outside == []
    for i in range(TABLES):
        s = sections.nth(i)
        hands = s.locator("table.hands tr:has(td)").all()
        per_hand = [r for r in hands if re.match(r"^\d+$", r.locator("td").nth(0).inner_text())]
        assert len(per_hand) == HANDS
        cols = [[int(c) for c in r.locator("td.n").all_inner_texts()[2:6]] for r in per_hand]
        total = s.locator("tr.total td.n").all_inner_texts()
        assert [int(v) for v in total] == [sum(c[k] for c in cols) for k in range(4)]
        assert s.locator("table.sign tr").count() == 1 + 4 + 1  # head, 4 players, referee
        assert s.locator("table.hands").is_visible()
    text = page.locator("body").inner_text()
    assert "错和 false win" in text and "corrected total" in text
    page.close()


def test_the_seating_sheet_in_the_browser(sheets, browser):
    page, outside = _open(browser, sheets["seat"])
    assert page.locator("section.table").count() == TABLES
    assert page.locator("section.table td.name").count() == 4 * TABLES and outside == []
    page.close()


def test_the_csv_has_a_bom_and_says_what_the_json_says(sheets):
    raw = sheets["csv"].read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    data = json.loads(sheets["json"].read_text(encoding="utf-8"))
    assert [r["id"] for r in rows] == [p["id"] for p in data["standings"]]
    assert [r["name"] for r in rows] == [p["name"] for p in data["standings"]]
    assert [float(r["placement_points"]) for r in rows] == \
        [p["placement_points"] for p in data["standings"]]
    assert next(r for r in rows if r["id"] == "P0002")["corrections"] == "#1"
    assert data["corrections"][0]["referee"] == "张裁判"


def test_the_pdf_has_a_page_per_table_and_embeds_the_cjk_font(sheets):
    pdf = sheets["pdf"].read_bytes()
    assert pdf.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type /Page\b", pdf)) == TABLES
    assert re.search(rb"/BaseFont /[A-Z]{6}\+NotoSansCJK", pdf)
    cmaps = b""
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            cmaps += zlib.decompress(m.group(1))
        except zlib.error:
            cmaps += m.group(1)  # not compressed
    data = json.loads(sheets["json"].read_text(encoding="utf-8"))
    for p in data["standings"]:  # every name's 汉字 is in the embedded subset
        for ch in p["name"]:
            assert b"<%04X>" % ord(ch) in cmaps, ch
