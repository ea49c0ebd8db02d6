"""`mjtable enroll`: teach the table its 108 tiles.

For each tile in turn (1m copy 1 .. 9s copy 4) the tool asks you to lay that
tile on the enrolment antenna, reads its tag (table/hostcmds.py TAG), and asks
you to confirm (Enter) or skip (s). A tag already given to another tile is
refused on the spot. At the end it lists missing tiles and sends the map
(authenticated) to the table, which checks it again and stores it atomically.

    mjtable enroll [--port P] [--yes] [--from-tile N]
    mjtable enroll --check [--port P]     the table's map: missing and duplicates
--yes confirms every tile without asking (a tray of tiles laid in order).
"""

from __future__ import annotations

import struct
import sys
import time

from sichuan import tiles

from mjtable import BadInput, seconds
from mjtable.link import client as L
from mjtable.link import port as findport
from mjtable.link import protocol as P
from mjtable.tableops.rules import retry_busy

TILES = 108
UID = 8
ZERO = bytes(UID)


def add_parsers(sub):
    p = sub.add_parser("enroll", help="enrol the tiles' tags, or check the table's map")
    findport.add_arguments(p)
    p.add_argument("--check", action="store_true", help="only report missing/duplicate tiles")
    p.add_argument("--yes", action="store_true", help="confirm each tile without asking")
    p.add_argument("--from-tile", type=int, default=0, help="start at this tile (0..107)")
    p.add_argument("--wait", type=seconds, default=60.0, help="seconds to wait for each tile")
    p.set_defaults(func=enroll)


def tile_name(t: int) -> str:
    return "%s copy %d" % (tiles.name(t // 4), t % 4 + 1)


def problems(blob: bytes):
    """(missing tiles, [(tile, earlier tile)] sharing a UID)."""
    missing, dups, seen = [], [], {}
    for t in range(TILES):
        u = blob[t * UID : (t + 1) * UID]
        if u == ZERO:
            missing.append(t)
        elif u in seen:
            dups.append((t, seen[u]))
        else:
            seen[u] = t
    return missing, dups


def report(blob: bytes) -> int:
    missing, dups = problems(blob)
    print("%d of %d tiles enrolled" % (TILES - len(missing), TILES))
    if missing:
        print("missing: " + ", ".join(tile_name(t) for t in missing))
    for t, first in dups:
        print("DUPLICATE: %s has the tag of %s" % (tile_name(t), tile_name(first)))
    return 1 if missing or dups else 0


def read_tag(link, last_seq: int, wait: float):
    deadline = time.monotonic() + wait
    while True:
        data = link.request(P.CMD_TAG)
        seq, uid = struct.unpack_from("<I", data)[0], bytes(data[4:12])
        if seq != last_seq and uid != ZERO:
            return seq, uid
        if time.monotonic() > deadline:
            raise BadInput("no new tile on the antenna within %.0f s" % wait)
        time.sleep(0.2)


def enroll(args):
    link = findport.connect(args, need_key=not args.check)
    try:
        current = link.get_object(P.OBJ_ENROLL, 0)
    except L.LinkError:
        current = bytes(TILES * UID)
    if len(current) != TILES * UID:
        current = bytes(TILES * UID)
    if args.check:
        return report(current)
    if not 0 <= args.from_tile < TILES:
        raise BadInput("--from-tile must be 0..107")
    m = bytearray(current)
    owner = {bytes(m[t * UID : (t + 1) * UID]): t for t in range(TILES)}
    owner.pop(ZERO, None)
    seq = 0
    t = args.from_tile
    while t < TILES:
        print("lay %s on the enrolment antenna" % tile_name(t), flush=True)
        seq, uid = read_tag(link, seq, args.wait)
        prev = owner.get(uid)
        if prev is not None and prev != t:
            print("  tag %s is already %s: present another tile" % (uid.hex(), tile_name(prev)))
            continue
        if not args.yes:
            ans = input("  tag %s -> %s? [Enter = yes, s = skip, q = stop] " % (
                uid.hex(), tile_name(t))).strip().lower()
            if ans == "q":
                break
            if ans == "s":
                t += 1
                continue
        old = bytes(m[t * UID : (t + 1) * UID])
        owner.pop(old, None)
        m[t * UID : (t + 1) * UID] = uid
        owner[uid] = t
        t += 1
    bad = report(bytes(m))
    try:
        retry_busy(lambda: link.put_object(P.OBJ_ENROLL, 0, bytes(m)), args.wait)
    except L.LinkError as e:
        why = link.info().get("refused", str(e))
        raise BadInput("the table refused the map: %s" % why) from None
    print("map sent to table %s" % findport.table_name(link))
    sys.stdout.flush()
    return bad
