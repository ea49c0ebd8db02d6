"""Sichuan mahjong rules core: pure, integer-encoded, no I/O.

Runs unchanged on CPython and MicroPython. Modules: tiles (encoding and
notation), shape (win shapes, waits), meld (meld encoding), fan (patterns
and value of a win), ruleset (parameters and blobs), presets (named rule
sets citing the seeds), calc (the referee's calculator).
"""
