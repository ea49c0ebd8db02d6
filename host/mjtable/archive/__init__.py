"""The host's archive of hand logs pulled from tables, on SQLite (a file:
archive.sqlite) or PostgreSQL (a postgresql://... address, which several
laptops share: archive.postgres). open_archive() gives either; both have the
same methods and tables (archive.sqlite's docstring). What a log must be to
get in, by any way, is archive.admit's one policy.

Default: $MJTABLE_ARCHIVE, else ~/.local/share/mjtable/archive.sqlite; every
command that uses it takes `--archive PATH|URL`.
"""

from __future__ import annotations

import os

from mjtable.archive.postgres import PgArchive
from mjtable.archive.sqlite import Archive

HELP = "the archive: a SQLite file or a postgresql:// address (default %s)"


def default_path() -> str:
    env = os.environ.get("MJTABLE_ARCHIVE")
    if env:
        return env
    return os.path.join(os.path.expanduser("~"), ".local", "share", "mjtable", "archive.sqlite")


def is_url(path) -> bool:
    return bool(path) and path.startswith(("postgresql://", "postgres://"))


def add_argument(p) -> None:
    p.add_argument("--archive", metavar="PATH|URL", default=None,
                   help=HELP % default_path().replace("%", "%%"))


def open_archive(path: str | None = None, create: bool = True) -> Archive:
    """The archive at path (default_path() when None): a PostgreSQL one for a
    postgresql:// address, else a SQLite file. create=False: only read an
    archive that exists (opened read-only, so a command that reads never
    changes the file); else make it if need be. Either way a file that is
    not an mjtable archive (another program's SQLite, a text file) is
    refused as it is (BadInput)."""
    path = path or default_path()
    if is_url(path):
        return PgArchive(path, create)
    return Archive(path, create)
