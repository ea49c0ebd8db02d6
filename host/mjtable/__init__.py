"""mjtable: the host tool of the Sichuan mahjong table.

Every command (mjtable.commands, one module per group) runs on the
firmware's own rules core (`sichuan`) and the library packages beside it:
link (the table's link), tableops (what the host does over it), logs,
archive, rules, referee, event, live, firmware (docs/decisions.md, "The
layout"). This module holds what all of them share: the error a user's bad
input raises, and writing a file whole or not at all.
"""


# exit codes of every command (docs/hostcmds.md, "Exit codes")
EXIT_OK = 0
EXIT_REPORTED = 1  # done, but something was refused or found missing (said above)
EXIT_BAD_INPUT = 2
EXIT_LINK = 3  # the table's link failed: no reply, an error status, the cable
EXIT_ARCHIVE = 4  # the archive's database failed: gone mid-way, locked, unreadable
EXIT_PORT_BUSY = 5  # another program has the table's port


class BadInput(Exception):
    """Bad user input: the CLI prints the message on stderr and exits with 2."""

    code = EXIT_BAD_INPUT


class Trouble(BadInput):
    """Something outside the user's input failed (the table's link, the
    archive's database): one line on stderr, saying what happened, that
    nothing was lost and what to run next; `code` is the exit code. A
    BadInput, so callers that retry on one retry on this too."""

    code = EXIT_LINK


class LinkTrouble(Trouble):
    code = EXIT_LINK


class ArchiveTrouble(Trouble):
    code = EXIT_ARCHIVE


class PortBusy(Trouble):
    code = EXIT_PORT_BUSY


def number(text: str) -> float:
    """argparse type: a finite number (not nan, not inf)."""
    import argparse
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text) from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError("%r is not a finite number" % text)
    return v


def seconds(text: str) -> float:
    """argparse type: seconds, 0 to a day."""
    import argparse

    v = number(text)
    if not 0 <= v <= 86400:
        raise argparse.ArgumentTypeError("%s seconds: give 0 to 86400" % text)
    return v


def check_target(path, also=()):
    """BadInput unless path can take a new file: not a folder nor another
    kind of node (a device, say), in a folder that exists, and none of
    `also` (files that must not be overwritten, as an archive)."""
    import os

    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise BadInput("%s: is a folder, not a file to write" % path)
    if os.path.exists(real) and not os.path.isfile(real):
        raise BadInput("%s: not a regular file; refusing to replace it" % path)
    if not os.path.isdir(os.path.dirname(real)):
        raise BadInput("%s: no folder %s" % (path, os.path.dirname(real)))
    for other in also:
        if other and (real == os.path.realpath(other) or os.path.exists(real)
                      and os.path.exists(other) and os.path.samefile(real, other)):
            raise BadInput("%s: that is %s itself; refusing to overwrite it" % (path, other))


def write_file(path, data, also=()):
    """Write data (bytes, or str as UTF-8) to path through a temp file and a
    rename, so a cut write leaves no half file; BadInput, with nothing left
    behind, if check_target refuses path or the write fails. "-" is
    standard output (a page or a PDF piped on), as most tools read it."""
    import os
    import sys

    if isinstance(data, str):
        data = data.encode("utf-8")
    if path == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    check_target(path, also)
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise BadInput("%s: cannot write: %s" % (path, e.strerror or e)) from None
