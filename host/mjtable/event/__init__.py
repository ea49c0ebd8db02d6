"""A 竞技 (competition) event on the hand archive (`mjtable event`: its
command line is mjtable.commands.event).

One room, one job per module:
  eventfile  the event file (TOML): name, dates, ruleset, match length,
             rounds, placement points, tie-breaks, players
  store      the event's tables beside the archive's logs (same database:
             SQLite, or PostgreSQL for several referees' laptops)
  seating    the draw of each round's tables and seats (pure: ids in, tables out)
  draw       a round's draw as asked: random, swiss or a manual file; stand-ins,
             club-mates apart
  people     late registrations, drops, substitutes, names corrected
  paper      a broken table's result entered by hand
  clock      the round's clock for the hall
  standings  per match, per round and over the event; corrections applied
  sheets     seating sheets, score sheets and standings (HTML, CSV, JSON)
  pdf        the score sheet as PDF (fpdf2, the CJK font embedded)
  sync       an offline laptop's SQLite archive into the event database
  importer   log files from a folder (a table's flash copied) into the archive
  tablematch an event's match started at a table (`match start --event`)
The table's signed record (the archived logs) is never edited: referees'
corrections live in their own append-only table, beside it.
"""
