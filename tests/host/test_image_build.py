"""image/build.py's facts about the image, without building it (make uf2
does; make uf2-check compares two builds byte for byte, in CI)."""

import importlib.util
import os
import subprocess

from mjtable.commands import flash as flashcmd

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _build():
    spec = importlib.util.spec_from_file_location("image_build",
                                                  os.path.join(ROOT, "image", "build.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_date_and_commit_are_the_commits():
    """The version string's date is the commit's (SOURCE_DATE_EPOCH), not
    the build's: what makes two builds of one tree the same bytes."""
    b = _build()
    cid, when = b.commit()
    git = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct %H"], text=True,
                         capture_output=True).stdout.split()
    assert when == int(git[0]) and cid.split("-")[0] == git[1][:12]


def test_mjtable_flash_reads_the_mark_the_build_freezes():
    b = _build()
    ns = {}
    exec(b.mjbuild("0.5.0", "0123456789ab-dirty"), ns)
    m = flashcmd._MARK.search(ns["MARK"].encode())
    assert m and m.groups() == (b"0.5.0", b"0123456789ab-dirty")
    assert (ns["FW"], ns["COMMIT"], ns["shadowed"]) == ("0.5.0", "0123456789ab-dirty", "")
