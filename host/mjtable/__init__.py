"""mjtable: the host tool of the Sichuan mahjong table.

The calculator (`mjtable waits`, `mjtable calc`) and the ruleset tools
(`mjtable rules show|compile`) run the firmware's own rules core
(`sichuan`, from firmware/) on CPython, or in the MicroPython unix port
with `--engine micropython`.
"""


class BadInput(Exception):
    """Bad user input: the CLI prints the message on stderr and exits with 2."""
