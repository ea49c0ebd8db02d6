"""The table's INFO reply for people and as JSON."""

from __future__ import annotations

import time

from mjtable.link import protocol as P
from mjtable.logs import logfmt

# INFO values that are counts or flags (the rest are text: names, hex CRCs, lists)
NUMBERS = ("proto", "free", "logs", "clock", "clock_set", "key", "watch", "key_button",
           "hand", "left", "crashes")


def state_index(v: str) -> int:
    """INFO `state` ("controller state,tiles read"): the state, -1 if unreadable."""
    st = v.partition(",")[0]
    return int(st) if st.isdigit() else -1


def state_row(v: str) -> str:
    """INFO `state` (controller state, tiles still read) for people."""
    st, _, n = v.partition(",")
    i = state_index(v)
    return "%s; %s tiles read" % (P.STATES[i] if 0 <= i < len(P.STATES) else "? (%s)" % st, n)


def key_row(v: str) -> str:
    """INFO `keys` (events since boot, what the last did) for people."""
    n, _, why = v.partition(",")
    w = int(why) if why.isdigit() else -1
    return "%s pressed since boot; the last: %s" % (
        n, P.KEY_WHY[w] if 0 <= w < len(P.KEY_WHY) else "? (%s)" % why)


def chip_names(mask_hex: str) -> list:
    """The chips of INFO `chips` (hex: bit s reader s, 4 + s display s, 8 + s
    keys s, as the firmware's boards.pico Board.down)."""
    try:
        m = int(mask_hex, 16)
    except ValueError:
        return ["? (%s)" % mask_hex]
    return ["%s%d" % (("reader", "display", "keys")[b >> 2], b & 3) for b in range(12)
            if m >> b & 1]


def as_json(d: dict) -> dict:
    """INFO as JSON: counts and flags as numbers, `play` null when no match is
    under way."""
    out: dict = dict(d)
    for k in NUMBERS:
        v = out.get(k)
        if isinstance(v, str) and v.lstrip("-").isdigit():
            out[k] = int(v)
    if out.get("play") == "":
        out["play"] = None
    return out


def ruleset_rows(d: dict) -> list:
    """The lines on the rules: the stored ruleset (the next match's) and,
    where it differs, the one the match under way plays to its end."""
    stored = "%s (CRC %s)" % (d.get("rules", "?"), d.get("rules_crc", "?").upper())
    if "play" not in d:  # a firmware that does not say
        return [("ruleset", stored)]
    if not d["play"]:
        return [("ruleset", stored + ": no match under way; the next match plays it")]
    left = "%s hand(s) left in the match" % d.get("left", "?")
    if d.get("play_crc", "").lower() == d.get("rules_crc", "").lower():
        return [("ruleset", "%s, in play: %s" % (stored, left))]
    return [("in play", "%s (CRC %s): %s" % (d["play"], d.get("play_crc", "?").upper(), left)),
            ("waiting", stored + ": from the next match")]


def _named(tid: str) -> str:
    """TBLA0001 (5442...) for a printable id, else the hex alone."""
    name = logfmt.table_name(tid)
    return tid if name == tid else "%s (%s)" % (name, tid)


def rows(d: dict) -> list:
    """[(label, text)] of INFO `d` (with "table_id" added) for people."""
    clock = int(d.get("clock", "0"))
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(clock))
    out = [
        ("table", _named(d["table_id"])),
        ("firmware", d.get("fw", "?") + (" (commit %s)" % d["commit"] if "commit" in d else "")),
        ("micropython", d.get("mpy", "?")),
        ("protocol", d.get("proto", "?")),
        *ruleset_rows(d),
        ("free flash", "%s bytes" % d.get("free", "?")),
        ("logs waiting", d.get("logs", "?")),
        ("clock", when + ("" if d.get("clock_set") == "1" else "  (never set)")),
        ("key", "set" if d.get("key") == "1" else "not set"),
    ]
    if d.get("usb"):
        out.append(("usb", P.USB_STATES.get(d["usb"], d["usb"])))
    if d.get("shadowed"):
        out.append(("ignored", d["shadowed"] + "  (an old deploy's files: the image's own run)"))
    if d.get("hand", "-1").isdigit():
        out.append(("hand in play", "log %s" % d["hand"]))
    if d.get("refused"):
        out.append(("last refusal", d["refused"]))
    # what the table's boot found: log id:bytes cut off a torn tail, log id:reason
    if d.get("repaired"):
        out.append(("repaired", d["repaired"] + "  (power cut: a torn last record cut off)"))
    if d.get("damaged"):
        out.append(("damaged", d["damaged"] + "  (kept, takes no records)"))
    down = chip_names(d.get("chips", "0"))
    if down:
        # a reader is down when it does not answer or its field does not come
        # on; INFO does not tell the two apart, selftest does
        out.append(("chips down", ", ".join(down) + "  (check the seat cables; "
                    "`mjtable selftest` says what each one lacks)"))
    if d.get("crashes", "0") != "0":
        out.append(("task failures", d["crashes"] + "  (each restarted)"))
    if d.get("fault"):
        out.append(("last fault", d["fault"]))
    if d.get("keys"):
        out.append(("keys", key_row(d["keys"])))
    if d.get("state"):
        out.append(("state", state_row(d["state"])))
    return out
