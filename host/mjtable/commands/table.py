"""Table commands over the link: `mjtable info`, `rules push|pull`, `key set`,
`clock set`, `match start|end`.

    mjtable info [--port P] [--json]
    mjtable rules push PRESET|FILE [--port P] [--key HEX] [--wait S]
    mjtable rules pull [-o OUT.bin] [--port P]
    mjtable key set [HEX|--new]     while the key button was held at boot
    mjtable clock set [--port P]    the host's clock to the table
    mjtable match start|end [--port P] [--wait S]
    mjtable match start --event E --round R --table N   (mjtable.event)
Changing anything needs the table key (see mjtable.findport).
"""

from __future__ import annotations

import json
import os
import struct
import sys
import time

from sichuan import ruleset

from mjtable import BadInput, write_file
from mjtable.link import client as L
from mjtable.link import port as findport
from mjtable.rules import rulefile

CMD_LOGS, CMD_ACK, CMD_CLOCK, CMD_MATCH, CMD_WATCH = 0x20, 0x21, 0x22, 0x23, 0x24
MATCH_START, MATCH_END = 1, 2
AUTH = True


def add_parsers(sub):
    p = sub.add_parser("info", help="what the table reports about itself")
    findport.add_arguments(p, key=False)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=info)

    k = sub.add_parser("key", help="give the table its key (key button held at boot)")
    ksub = k.add_subparsers(dest="key_command", metavar="ACTION")
    ksub.required = True
    ks = ksub.add_parser("set", help="set the table key; it is also saved for this host")
    findport.add_arguments(ks, key=False)
    ks.add_argument("hex", nargs="?", metavar="HEX", help="64 hex digits (default: the saved "
                    "key, or a new random one with --new)")
    ks.add_argument("--new", action="store_true", help="make a new random key")
    ks.set_defaults(func=key_set)

    c = sub.add_parser("clock", help="set the table's clock from this host")
    csub = c.add_subparsers(dest="clock_command", metavar="ACTION")
    csub.required = True
    cs = csub.add_parser("set", help="set the table clock to this host's time (UTC)")
    findport.add_arguments(cs)
    cs.set_defaults(func=clock_set)

    m = sub.add_parser(
        "match", help="start or end a match at the table",
        description="start: begin a new match under the table's stored ruleset (the "
                    "last one pushed), the hands and totals counted afresh. end: end the "
                    "match under way (no hand begins until the next start). Neither is "
                    "taken while a hand is in play: --wait waits for it to end.")
    m.add_argument("op", choices=("start", "end"), metavar="start|end",
                   help="start a new match, or end the one under way")
    findport.add_arguments(m)
    m.add_argument("--wait", type=float, default=0.0, metavar="S",
                   help="seconds to wait for a hand in play to end (default 0: refuse at once)")
    from mjtable.commands import event as eventcmd

    eventcmd.add_match_arguments(m)  # match start --event E --round R --table N
    m.set_defaults(func=match)


def add_rules_parsers(rsub):
    """`rules push` and `rules pull`, added to the `rules` group of rulescmd."""
    p = rsub.add_parser("push", help="send a ruleset to the table (activated when whole and valid)")
    p.add_argument("spec", metavar="PRESET|FILE", help="preset, .toml rule file or blob")
    findport.add_arguments(p)
    p.add_argument("--wait", type=float, default=60.0,
                   help="seconds to wait for a hand in play to end (default 60)")
    p.set_defaults(func=rules_push)
    q = rsub.add_parser("pull", help="read the table's active ruleset")
    findport.add_arguments(q, key=False)
    q.add_argument("-o", "--output", metavar="OUT.bin", help="write the blob here")
    q.set_defaults(func=rules_pull)


def _fail(e: L.LinkError, what: str, link: L.Link | None = None):
    why = ""
    if link is not None and e.status in (9, 15):  # E_ARG, E_CHECK: ask the table why
        try:
            why = link.info().get("refused", "")
        except L.LinkError:
            pass
    names = {6: "the key is wrong", 12: "the table has no key yet",
             8: "the table is busy (a hand is in play; --wait S waits for its end)"}
    text = why or names.get(e.status, str(e))
    raise BadInput("%s refused by the table: %s" % (what, text)) from None


# INFO usb=: what the board's USB lets in besides the link (docs/image.md)
USB_STATES = {"locked": "locked (only the link answers)",
              "maint": "maintenance (key button held at boot: REPL and deploy open)",
              "open": "open (no key yet: REPL and deploy open)"}


def info(args):
    link = findport.connect(args)
    try:
        d = link.info()
    except L.LinkError as e:
        _fail(e, "info")
    d["table_id"] = link.table_id.hex()
    d["key_button"] = "1" if link.flags & 2 else "0"
    if args.json:
        print(json.dumps(info_json(d), indent=2, sort_keys=True))
        return 0
    clock = int(d.get("clock", "0"))
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(clock))
    rows = [
        ("table", d["table_id"]),
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
        rows.append(("usb", USB_STATES.get(d["usb"], d["usb"])))
    if d.get("shadowed"):
        rows.append(("ignored", d["shadowed"] + "  (an old deploy's files: the image's own run)"))
    if d.get("hand", "-1").isdigit():
        rows.append(("hand in play", "log %s" % d["hand"]))
    if d.get("refused"):
        rows.append(("last refusal", d["refused"]))
    # what the table's boot found: log id:bytes cut off a torn tail, log id:reason
    if d.get("repaired"):
        rows.append(("repaired", d["repaired"] + "  (power cut: a torn last record cut off)"))
    if d.get("damaged"):
        rows.append(("damaged", d["damaged"] + "  (kept, takes no records)"))
    down = chip_names(d.get("chips", "0"))
    if down:
        rows.append(("not answering", ", ".join(down) + "  (check the seat cables)"))
    if d.get("crashes", "0") != "0":
        rows.append(("task failures", d["crashes"] + "  (each restarted)"))
    if d.get("fault"):
        rows.append(("last fault", d["fault"]))
    if d.get("keys"):
        rows.append(("keys", key_row(d["keys"])))
    if d.get("state"):
        rows.append(("state", state_row(d["state"])))
    for k, v in rows:
        print("%-13s %s" % (k, v))
    return 0


# why a key did nothing (the firmware's table.controller K_*)
KEY_WHY = ("acted", "no hand in play", "the table first (an alert)", "not a key for that moment",
           "a long press that means nothing there", "refused by the rules")


def key_row(v: str) -> str:
    """INFO `keys` (events since boot, what the last did) for people."""
    n, _, why = v.partition(",")
    w = int(why) if why.isdigit() else -1
    return "%s pressed since boot; the last: %s" % (
        n, KEY_WHY[w] if 0 <= w < len(KEY_WHY) else "? (%s)" % why)


# the firmware's table.controller states
STATES = ("waiting for an empty table", "a hand in play", "hand over: clear the table",
          "log store full", "match over", "waiting for the deal")
DEAL_WAIT = 5  # a hand started, its deal not yet begun (the firmware's hostlink.DEAL_WAIT)


def state_index(v: str) -> int:
    """INFO `state` ("controller state,tiles read"): the state, -1 if unreadable."""
    st = v.partition(",")[0]
    return int(st) if st.isdigit() else -1


def state_row(v: str) -> str:
    """INFO `state` (controller state, tiles still read) for people."""
    st, _, n = v.partition(",")
    i = state_index(v)
    return "%s; %s tiles read" % (STATES[i] if 0 <= i < len(STATES) else "? (%s)" % st, n)


def chip_names(mask_hex: str) -> list:
    """The chips of INFO `chips` (hex: bit s reader s, 4 + s display s, 8 + s
    keys s, as the firmware's boards.pico Board.down)."""
    try:
        m = int(mask_hex, 16)
    except ValueError:
        return ["? (%s)" % mask_hex]
    return ["%s%d" % (("reader", "display", "keys")[b >> 2], b & 3) for b in range(12)
            if m >> b & 1]


# INFO values that are counts or flags (the rest are text: names, hex CRCs, lists)
_NUMBERS = ("proto", "free", "logs", "clock", "clock_set", "key", "watch", "key_button",
            "hand", "left", "crashes")


def info_json(d: dict) -> dict:
    """INFO as JSON: counts and flags as numbers, `play` null when no match is
    under way."""
    out: dict = dict(d)
    for k in _NUMBERS:
        v = out.get(k)
        if isinstance(v, str) and v.lstrip("-").isdigit():
            out[k] = int(v)
    if out.get("play") == "":
        out["play"] = None
    return out


def ruleset_rows(d: dict) -> list:
    """`info`'s lines on the rules: the stored ruleset (the next match's) and,
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


def takes_effect(d: dict, rs) -> tuple:
    """(word, when) for a ruleset just stored, from the table's INFO `d`: the
    match under way keeps its rules to its end."""
    crc = "%08x" % rs.crc()
    play = d.get("play")
    if play and d.get("play_crc", "").lower() == crc:
        return "active", "in play"
    if play and d.get("left", "0") != "0":
        return "stored", "from the next match; %s hand(s) left under %s" % (d["left"], play)
    return "active", "the next match plays it"


def _retry_busy(fn, wait: float):
    deadline = time.monotonic() + wait
    said = False
    while True:
        try:
            return fn()
        except L.LinkError as e:
            if e.status != 8 or time.monotonic() > deadline:
                raise
            if not said:
                print("waiting for the hand in play to end ...", file=sys.stderr)
                said = True
            time.sleep(0.1)  # the table is cleared between hands: a short window


def push_rules(link: L.Link, rs, wait: float = 60.0) -> None:
    blob = rs.to_blob()
    try:
        _retry_busy(lambda: link.put_object(L.OBJ_RULES, 0, blob), wait)
    except L.LinkError as e:
        _fail(e, "ruleset %s" % rs.name, link)


def rules_push(args):
    rs = rulefile.load(args.spec)
    # the table refuses with the same words; say it first (this firmware shows
    # the 听用: the 本金 lies face up on the dealer's tray)
    ok, why = ruleset.table_can_run(rs, shows_wild=True)
    if not ok:
        raise BadInput("%s: %s" % (args.spec, why))
    link = findport.connect(args, need_key=True)
    push_rules(link, rs, args.wait)
    d = link.info()
    if d.get("rules_crc", "").lower() != "%08x" % rs.crc():
        raise BadInput("the table took the ruleset but reports CRC %s" % d.get("rules_crc"))
    _remember(rs)
    word, when = takes_effect(d, rs)
    print("table %s: ruleset %s %s (CRC %08X, %d bytes): %s"
          % (link.table_id.hex(), rs.name, word, rs.crc(), len(blob_of(rs)), when))
    return 0


def _remember(rs):
    """Keep a pushed ruleset in the archive: its hands can be replayed later."""
    from mjtable import archive

    try:
        ar = archive.Archive()
        ar.add_ruleset("%08x" % rs.crc(), rs.name, rs.to_blob())
        ar.close()
    except (BadInput, OSError):
        pass


def blob_of(rs):
    return rs.to_blob()


def pull_rules(link: L.Link):
    blob = link.get_object(L.OBJ_RULES, 0)
    try:
        return ruleset.from_blob(blob), blob
    except ValueError as e:
        raise BadInput("the table's ruleset does not decode: %s" % e) from None


def rules_pull(args):
    link = findport.connect(args)
    rs, blob = pull_rules(link)
    if args.output:
        write_file(args.output, blob)
        print("%s: ruleset %s, %d bytes, CRC %08X" % (args.output, rs.name, len(blob), rs.crc()))
    else:
        from mjtable.commands.rules import show_text

        print(show_text(rs))
    return 0


def key_set(args):
    if args.hex and args.new:
        raise BadInput("give a key or --new, not both")
    if args.hex:
        key = findport.parse_key(args.hex, "key")
    elif args.new:
        key = os.urandom(32)
    else:
        key = findport.load_key(None)
        if key is None:
            raise BadInput("no saved key: give one or --new")
    link = findport.connect(args)
    if not link.flags & 2:
        raise BadInput("the table's key button was not held at boot: hold it, power on, retry")
    try:
        link.set_key(key)
    except L.LinkError as e:
        _fail(e, "key")
    path = findport.save_key(key)
    print("table %s: key set; saved in %s" % (link.table_id.hex(), path))
    return 0


def clock_set(args):
    link = findport.connect(args, need_key=True)
    now = int(time.time())
    try:
        link.request(CMD_CLOCK, struct.pack("<I", now), auth=AUTH)
    except L.LinkError as e:
        _fail(e, "clock")
    print("table %s: clock set to %s" % (link.table_id.hex(),
                                          time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                                        time.gmtime(now))))
    return 0


def match(args):
    if args.event is not None:
        from mjtable.commands import event as eventcmd

        return eventcmd.match_start(args)
    link = findport.connect(args, need_key=True)
    op = MATCH_START if args.op == "start" else MATCH_END
    try:
        _retry_busy(lambda: link.request(CMD_MATCH, bytes([op]), auth=AUTH), args.wait)
    except L.LinkError as e:
        _fail(e, "match %s" % args.op, link)
    print("table %s: match %s" % (link.table_id.hex(),
                                  "started" if op == MATCH_START else "ended"))
    return 0
