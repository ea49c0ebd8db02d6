"""The standings the event page shows, from the archive the referees pull into.

The interface (small on purpose, so the event room can fill it):
    standings(archive) -> {"title": str, "columns": [str], "rows": [[cell, ...]]}
When the event room (mjtable.event, issue 23) offers
`mjtable.event.standings.for_live(archive)` gives that result for the
archive's newest event (players, placement points, tie-breaks); an archive
with no event shows the per-table-seat totals of `mjtable export`
(mjtable.logs.summary.standings). None when there is no archive yet.
"""

from __future__ import annotations

import os


def standings(archive):
    if not archive or (not archive.startswith("postgresql:") and not os.path.exists(archive)):
        return None
    from mjtable.event.standings import for_live

    ev = for_live(archive)
    if ev is not None:
        return ev
    from mjtable.logs import summary

    hs = summary.collect([archive])
    return {"title": "Standings (table seats, archived hands)",
            "columns": ["place", "table seat", "points", "hands"],
            "rows": [list(r) for r in summary.standings(hs)]}
