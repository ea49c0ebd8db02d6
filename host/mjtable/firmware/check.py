"""After a deploy or a flash: the table's firmware on the link is the one
just written (INFO's fw and, for the table's own image, commit)."""

from __future__ import annotations

import time

from mjtable import BadInput
from mjtable.link import client as L
from mjtable.link import port as findport


def wait_info(args, seconds: float, after: str) -> dict:
    """The INFO of the table on args' link (findport.connect: args.port, else
    found by USB id), asked once a second for up to `seconds` while the board
    restarts (its USB re-enumerating, the firmware booting); BadInput saying
    it did not answer `after` (what was done)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            link = findport.connect(args)
            try:
                return link.info()
            finally:
                link.stream.close()
        except (BadInput, L.LinkError):
            if time.monotonic() > deadline:
                raise BadInput("the table did not answer on the link within %.0f s %s"
                               % (seconds, after)) from None
            time.sleep(1)


def expect(info: dict, fw: str, commit: str | None, written: str) -> None:
    """BadInput unless INFO names firmware fw (and commit, unless None): the
    firmware that was `written` ("the image", "this deploy")."""
    got = (info.get("fw"), info.get("commit")) if commit else (info.get("fw"),)
    want = (fw, commit) if commit else (fw,)
    if got != want:
        raise BadInput("the table answers firmware %s, %s holds %s"
                       % (" commit ".join(map(str, got)), written, " commit ".join(want)))
