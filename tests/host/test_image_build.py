"""The image's build facts (mjtable.firmware.release, which image/build.py
uses), without building it (make uf2 does; make uf2-check compares two
builds byte for byte, in CI)."""

import os
import subprocess

from mjtable.firmware import release
from mjtable.firmware import uf2 as U

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_date_and_commit_are_the_commits():
    """The version string's date is the commit's (SOURCE_DATE_EPOCH), not
    the build's: what makes two builds of one tree the same bytes."""
    cid, when = release.commit(ROOT)
    git = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct %H"], text=True,
                         capture_output=True).stdout.split()
    assert when == int(git[0]) and cid.split("-")[0] == git[1][:12]


def test_mjtable_flash_reads_the_mark_the_build_freezes():
    ns = {}
    exec(release.mjbuild("0.5.0", "0123456789ab-dirty"), ns)
    m = U.MARK.search(ns["MARK"].encode())
    assert m and m.groups() == (b"0.5.0", b"0123456789ab-dirty")
    assert (ns["FW"], ns["COMMIT"], ns["shadowed"]) == ("0.5.0", "0123456789ab-dirty", "")
