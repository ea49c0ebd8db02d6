"""Entry point of `mjtable`: argument parsing and dispatch only.

Each command group lives in its own module exposing `add_parsers(sub)`,
which registers its subcommands and sets `func` (args -> exit code).
Adding a command group is one import and one entry in COMMAND_MODULES.
"""

import argparse
import sqlite3
import sys

from serial import SerialException

from mjtable import BadInput
from mjtable.archive import sqlite as archive_sqlite
from mjtable.commands import calc as calccmd
from mjtable.commands import deploy as deploycmd
from mjtable.commands import enroll as enrollcmd
from mjtable.commands import event as eventcmd
from mjtable.commands import export as exportcmd
from mjtable.commands import flash as flashcmd
from mjtable.commands import live as livecmd
from mjtable.commands import logs as logscmd
from mjtable.commands import monitor as monitorcmd
from mjtable.commands import replay as replaycmd
from mjtable.commands import rescore as rescorecmd
from mjtable.commands import rules as rulescmd
from mjtable.commands import selftest as selftestcmd
from mjtable.commands import serve as servecmd
from mjtable.commands import settle as settlecmd
from mjtable.commands import sim as simcmd
from mjtable.commands import table as tablecmd
from mjtable.commands import virtual as virtualcmd
from mjtable.link import client as L
from mjtable.link import port as findport

COMMAND_MODULES = (
    calccmd,
    rulescmd,
    simcmd,
    tablecmd,
    logscmd,
    virtualcmd,
    settlecmd,
    replaycmd,
    rescorecmd,
    exportcmd,
    deploycmd,
    flashcmd,
    monitorcmd,
    enrollcmd,
    selftestcmd,
    eventcmd,
    livecmd,
    servecmd,
)


class _Version(argparse.Action):
    """--version: the package's, the firmware's and the image's versions and
    commits (mjtable.firmware.release), read only when asked."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the versions of mjtable, its firmware and image, and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from mjtable.firmware import release

        try:
            print("\n".join(release.describe()))
        except BadInput as e:
            parser.exit(2, "mjtable: error: %s\n" % e)
        parser.exit(0)


def build_parser():
    p = argparse.ArgumentParser(
        prog="mjtable",
        description="Host tool of the Sichuan mahjong table: calculator and rulesets.",
    )
    p.add_argument("--version", action=_Version)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for mod in COMMAND_MODULES:
        mod.add_parsers(sub)
    return p


def main(argv=None):
    """Run one command; returns the exit code (mjtable.EXIT_*: 0 ok, 1 done
    but something refused or missing (or not a win), 2 bad input, 3 the
    table's link failed, 4 the archive's database failed, 5 the table's port
    is in use). Every error is one line on stderr."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help (0) or a usage error (2)
        return e.code if isinstance(e.code, int) else 2
    try:
        return args.func(args)
    except BadInput as e:  # and Trouble: the link, the archive, a busy port
        return _error(e)
    except (L.LinkError, SerialException) as e:
        return _error(findport.trouble(e))
    except sqlite3.DatabaseError as e:
        t = archive_sqlite.trouble(e)
        if t is None:
            raise
        return _error(t)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `mjtable rules show x | head`: the reader left, not an error
        _quiet_stdout()
        return 0


def _error(e: BadInput) -> int:
    sys.stdout.flush()
    print("mjtable: error: %s" % e, file=sys.stderr)
    return e.code


def _quiet_stdout():
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (tests capturing stdout)
        pass


if __name__ == "__main__":
    sys.exit(main())
