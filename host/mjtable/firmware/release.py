"""The firmware's versions: as its source states them, as a build records
them, and as `mjtable --version` prints them.

A build is marked with the git commit of the tree it was built from
(`commit`): HEAD's, "-dirty" when the firmware's files differ from it. The
table's image freezes that as its mjbuild module (`mjbuild`: INFO's commit
line, and the mark `mjtable flash` reads from the UF2); a release records it
with the package's version in its build record (`record`, tree.RECORD).
"""

from __future__ import annotations

import json
import os
import re
import subprocess

from mjtable import BadInput
from mjtable.firmware import tree, uf2

# what the built firmware is made of: a change here is a new commit's build
FIRMWARE_PATHS = ("firmware", "image", "host/mjtable/firmware/build.py",
                  "host/mjtable/firmware/constfold.py")
_FW_VERSION = re.compile(r'^FW_VERSION = "([^"]+)"', re.M)


def source_version(src: str) -> str:
    """FW_VERSION of the firmware in folder src (its table/hostcmds.py); "?"
    when it does not say."""
    try:
        with open(os.path.join(src, "table", "hostcmds.py"), encoding="utf-8") as f:
            m = _FW_VERSION.search(f.read())
    except OSError:
        return "?"
    return m.group(1) if m else "?"


def _git(root: str, *args: str) -> str:
    try:
        r = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)
    except OSError:  # no git
        return ""
    return r.stdout.strip() if r.returncode == 0 else ""


def commit(root: str, paths=FIRMWARE_PATHS) -> tuple:
    """(commit id, unix time) a build of the checkout at root is made from:
    HEAD's 12 digits, marked "-dirty" when the files under paths differ from
    it (the time stays HEAD's, so an uncommitted tree still builds the same
    image twice; $SOURCE_DATE_EPOCH overrides it); ("unknown", 0) outside git."""
    head = _git(root, "rev-parse", "--short=12", "HEAD") or "unknown"
    when = int(os.environ.get("SOURCE_DATE_EPOCH") or _git(root, "log", "-1", "--format=%ct")
               or 0)
    if head != "unknown" and _git(root, "status", "--porcelain", "--", *paths):
        head += "-dirty"
    return head, when


def mjbuild(version: str, commit_id: str) -> str:
    """The module of a build's facts, frozen into the table's image (and
    compiled into a release's virtual table): table.hostcmds INFO reads it.
    MARK is one string constant, so the UF2 holds it as one run of bytes:
    `mjtable flash` reads the image's version from the file."""
    return ('"""The build\'s facts (mjtable.firmware.release.mjbuild)."""\n'
            'MARK = "mjtable-fw %s %s"\n'
            'FW = "%s"\n'
            'COMMIT = "%s"\n'
            'shadowed = ""  # main.py: files on flash the frozen firmware overrides\n'
            % (version, commit_id, version, commit_id))


def package_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("mjtable")
    except metadata.PackageNotFoundError:
        return "?"


def record() -> dict | None:
    """The release's build record (tree.RECORD): {"package", "commit",
    "firmware", "firmware_commit", "image": {"fw", "commit", "mpy", "date",
    "sha256", "bytes"} or None}; None in a checkout. BadInput if a release's
    record is missing or unreadable (a wheel not made by `make dist`)."""
    if tree.CHECKOUT is not None:
        return None
    path = tree.packaged(tree.RECORD)
    if path is None:
        raise BadInput("this mjtable carries no firmware (%s has no %s): install a wheel "
                       "made by `make dist`" % (tree.PACKAGED, tree.RECORD))
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput("%s: unreadable build record (%s)" % (path, e)) from None


def describe() -> list:
    """The lines of `mjtable --version`: the package, the firmware and the
    image, each with the commit it was built from."""
    rec = record()
    if rec is not None:
        img = rec.get("image")
        lines = ["mjtable %s (commit %s)" % (rec["package"], rec["commit"]),
                 "firmware %s (commit %s): compiled for the rp2 port, with its ROMFS image"
                 % (rec["firmware"], rec["firmware_commit"])]
        if img is None:
            lines.append("image: none (this wheel was built without mjtable-pico.uf2)")
        else:
            lines.append("image mjtable-pico.uf2: firmware %s (commit %s), MicroPython %s"
                         % (img["fw"], img["commit"], img["mpy"]))
        return lines
    cid = commit(tree.CHECKOUT)[0]
    lines = ["mjtable %s (checkout %s, commit %s)" % (package_version(), tree.CHECKOUT, cid),
             "firmware %s (the checkout's firmware/)" % source_version(tree.source())]
    try:
        img = uf2.read(tree.image())
    except BadInput:
        lines.append("image: none built (make uf2)")
    else:
        lines.append("image %s: firmware %s (commit %s), MicroPython %s"
                     % (tree.image(), img["fw"], img["commit"], img["mpy"]))
    return lines
