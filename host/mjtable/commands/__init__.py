"""The command groups of `mjtable`, one module each (cli.py lists them).

A command module parses its arguments, calls the library packages beside it
(link, tableops, logs, archive, rules, referee, event, live, firmware) and
prints; it never imports another command module.
"""
