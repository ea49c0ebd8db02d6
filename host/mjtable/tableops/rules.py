"""Rulesets over the link: push (the table activates one when it is whole
and valid), pull, and when a pushed one takes effect."""

from __future__ import annotations

import sys
import time

from sichuan import ruleset

from mjtable import BadInput, archive
from mjtable.link import client as L
from mjtable.link import protocol as P

# what a refusal means, when the table does not say more
REFUSALS = {P.E_AUTH: "the key is wrong", P.E_NOKEY: "the table has no key yet",
            P.E_BUSY: "the table is busy (a hand is in play; --wait S waits for its end)"}


def refused(e: L.LinkError, what: str, link: L.Link | None = None):
    """Raise BadInput saying why the table refused `what`: its own words
    (INFO `refused`) for a bad argument or a failed check, else the status's."""
    why = ""
    if link is not None and e.status in (P.E_ARG, P.E_CHECK):  # ask the table why
        try:
            why = link.info().get("refused", "")
        except L.LinkError:
            pass
    raise BadInput("%s refused by the table: %s" % (what, why or REFUSALS.get(e.status, str(e))))


def retry_busy(fn, wait: float):
    """fn(), again every 0.1 s while the table answers E_BUSY (a hand in
    play), for at most `wait` seconds."""
    deadline = time.monotonic() + wait
    said = False
    while True:
        try:
            return fn()
        except L.LinkError as e:
            if e.status != P.E_BUSY or time.monotonic() > deadline:
                raise
            if not said:
                print("waiting for the hand in play to end ...", file=sys.stderr)
                said = True
            time.sleep(0.1)  # the table is cleared between hands: a short window


def push(link: L.Link, rs, wait: float = 60.0) -> None:
    """Store ruleset rs on the table (BadInput if it refuses)."""
    blob = rs.to_blob()
    try:
        retry_busy(lambda: link.put_object(P.OBJ_RULES, 0, blob), wait)
    except L.LinkError as e:
        refused(e, "ruleset %s" % rs.name, link)


def pull(link: L.Link):
    """(Ruleset, blob) of the table's stored ruleset."""
    blob = link.get_object(P.OBJ_RULES, 0)
    try:
        return ruleset.from_blob(blob), blob
    except ValueError as e:
        raise BadInput("the table's ruleset does not decode: %s" % e) from None


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


def remember(rs, path: str | None = None) -> None:
    """Keep a pushed ruleset in the archive, so its hands can be replayed
    later; an archive that cannot be opened is no reason to fail the push."""
    try:
        ar = archive.open_archive(path)
        ar.add_ruleset("%08x" % rs.crc(), rs.name, rs.to_blob())
        ar.close()
    except (BadInput, OSError):
        pass
