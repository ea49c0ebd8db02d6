"""The table's self-test (link command SELFTEST, firmware table/selftest.py):
ask it over a link, and judge each seat's report: `ok`, or each problem with
what to check. `mjtable selftest` (mjtable.commands.selftest) prints it.

The judgement is here, not on the table:
- a reader that does not answer: its cable (or supply);
- a field that does not come on, on either antenna: that antenna, its
  matching circuit, the reader's TX supply;
- an AGC reading outside the range a tuned antenna gives (AGC_RANGE, or
  --agc LO:HI with the figures of a table known to be good): the antenna's
  tuning. See hardware/chips.md for where the range comes from;
- a display or key expander that does not answer: the cable or its address
  jumpers (displays 0x70 + seat, expanders 0x20 + seat: hardware/pinmap.md);
- a key that reads pressed when nobody holds it: a short in its wiring.
Tags seen on each antenna and the LED chain (lit white: check by eye) are
reported, not judged.
"""

from __future__ import annotations

from mjtable import BadInput
from mjtable.link import protocol as P

# RF_STATUS AGC (10 bits, 0..1023): the band a tuned antenna of the table's
# design reads in (hardware/chips.md: provisional, until a built table's
# figures replace it; the rails 0 and 1023 mean no usable signal at all)
AGC_RANGE = (100, 800)
KEY_NAMES = ("hu", "peng", "gang", "guo", "wan", "tong", "tiao")  # drivers.buttons order
DISPLAY_ADDR, EXPANDER_ADDR = 0x70, 0x20  # + seat (hardware/pinmap.md)
ANTENNAS = ("rack", "tray")
TIMEOUT = 30.0  # seconds: re-initialising and scanning every chip takes a while


def agc_range(text: str | None) -> tuple:
    """--agc's "LO:HI" as (lo, hi), AGC_RANGE when not given."""
    if text is None:
        return AGC_RANGE
    try:
        lo, hi = (int(v) for v in text.split(":"))
    except ValueError:
        raise BadInput("--agc: LO:HI, two integers (0..1023)") from None
    if not 0 <= lo < hi <= 1023:
        raise BadInput("--agc: need 0 <= LO < HI <= 1023")
    return lo, hi


def _version(v: str) -> str:
    n = int(v, 16)
    return "%d.%d" % (n >> 8, n & 0xFF)


def parse_line(line: str) -> dict:
    """One report line (table/selftest.py's format) as a dict of raw fields."""
    f = dict(kv.split("=", 1) for kv in line.split())
    seat = int(f["seat"])
    reader = {"answering": f["reader"] == "1"}
    if reader["answering"]:
        for k in ("product", "firmware", "eeprom"):
            reader[k] = _version(f[k])
    for ant in ANTENNAS:
        on, agc, tags = (int(v) for v in f[ant].split(","))
        reader[ant] = {"field": {1: "on", 0: "off"}.get(on, "not tried"), "agc": agc,
                       "tags": tags}
    pressed = int(f["pressed"], 16)
    keys = {"answering": f["keys"] == "1", "address": "0x%02x" % (EXPANDER_ADDR + seat)}
    if keys["answering"]:
        keys["pressed"] = [KEY_NAMES[i] for i in range(len(KEY_NAMES)) if pressed >> i & 1]
    return {"seat": seat, "reader": reader,
            "display": {"answering": f["display"] == "1",
                        "address": "0x%02x" % (DISPLAY_ADDR + seat)},
            "keys": keys, "leds": int(f["leds"])}


def problems(s: dict, agc: tuple) -> list:
    """What is wrong at seat s, each with what to check."""
    out = []
    r = s["reader"]
    if not r["answering"]:
        out.append("reader not answering: check the seat cable (SPI, NSS, BUSY, RST wires) "
                   "and the reader's supply")
    else:
        for ant in ANTENNAS:
            a = r[ant]
            if a["field"] == "off":
                out.append("%s antenna: RF field did not come on: check the antenna and its "
                           "matching circuit (open or short), the reader's 5 V TX supply" % ant)
            elif a["field"] != "on":
                out.append("%s antenna: the reader failed during its scan: check the seat "
                           "cable" % ant)
            elif not agc[0] <= a["agc"] <= agc[1]:
                out.append("%s antenna: AGC %d outside %d..%d: check the antenna's tuning "
                           "(hardware/bringup.md)" % (ant, a["agc"], agc[0], agc[1]))
    d = s["display"]
    if not d["answering"]:
        out.append("display not answering at %s: check the seat cable and the display's "
                   "address jumpers" % d["address"])
    k = s["keys"]
    if not k["answering"]:
        out.append("key expander not answering at %s: check the seat cable and its address "
                   "jumpers" % k["address"])
    else:
        for name in k["pressed"]:
            out.append("key %s reads pressed: release it; if nobody holds it, check its "
                       "wiring for a short to ground" % name)
    return out


def report(text: str, agc: tuple) -> list:
    """The seats of a SELFTEST reply, each with its verdict."""
    seats = []
    for line in text.splitlines():
        s = parse_line(line)
        s["problems"] = problems(s, agc)
        s["ok"] = not s["problems"]
        seats.append(s)
    return seats


def describe(seats: list) -> list:
    """The seats' reports and verdicts for people, one line a list item."""
    out = []
    for s in seats:
        r = s["reader"]
        out.append("seat %d: %s" % (s["seat"], "ok" if s["ok"] else "PROBLEMS"))
        if r["answering"]:
            out.append("  reader   PN5180 product %s, firmware %s, EEPROM %s"
                       % (r["product"], r["firmware"], r["eeprom"]))
            for ant in ANTENNAS:
                a = r[ant]
                out.append("  %-8s field %s, AGC %d, %d tags"
                           % (ant, a["field"], a["agc"], a["tags"]))
        else:
            out.append("  reader   not answering")
        d, k = s["display"], s["keys"]
        out.append("  display  %s (%s)" % ("8.8.8.8. and colon shown" if d["answering"]
                                           else "not answering", d["address"]))
        if k["answering"]:
            out.append("  keys     %s (%s)" % ("pressed: " + ", ".join(k["pressed"])
                                               if k["pressed"] else "all released",
                                               k["address"]))
        else:
            out.append("  keys     not answering (%s)" % k["address"])
        out.append("  leds     %d lit white: check by eye" % s["leds"])
        out.extend("  - " + p for p in s["problems"])
    return out


def all_ok(seats: list) -> bool:
    """True when the table reported seats and every one is ok."""
    return bool(seats) and all(s["ok"] for s in seats)


def ask(link, agc: tuple) -> list:
    """Run the self-test over link: its seats, each judged against agc.
    A table in a hand refuses: LinkError with status P.E_BUSY."""
    link.timeout = max(link.timeout, TIMEOUT)
    return report(link.request(P.CMD_SELFTEST).decode(), agc)
