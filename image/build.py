"""Build the table's own MicroPython image: build/mjtable-pico.uf2 (`make uf2`).

    python image/build.py [--out build/mjtable-pico.uf2] [--work build/image]
                          [--check-repro]

MicroPython v1.28.0's rp2 port with the board image/MJTABLE_PICO (a Pico,
the firmware frozen in through its manifest.py), cross-compiled by Debian's
arm-none-eabi toolchain. Steps, each skipped when its output is there
(the source, mpy-cross and picotool are built once and kept in --work):

1. the source. MPY_SRC names an archive laid out as
   ../shared/micropython/micropython-1.28.0-rp2.tar.xz (its README): it is
   extracted into --work. With MPY_SRC=git (or no archive at hand) the
   source is a clone of MicroPython at tag v1.28.0 with the submodules the
   rp2 port needs, and picotool 2.2.0 (the Pico SDK 2.2.0's); that path
   needs a network and is not exercised here (no network on this machine);
2. mpy-cross and picotool (picotool without USB: the SDK runs it to make
   the UF2 only);
3. the board: image/MJTABLE_PICO copied into --work, the firmware's board
   sources (mjtable.firmware.build's board_sources: constants folded,
   CPython branches emptied) staged beside it in fw/, with mjbuild.py, the
   image's build facts (firmware version, git commit);
4. the port's make with BOARD_DIR there and SOURCE_DATE_EPOCH the commit's
   time, so the version string's "on DATE" is the commit's date and the
   same tree gives the same image byte for byte (--check-repro builds it a
   second time in a fresh build folder and compares).

Prints the image's size, its SHA-256 and the wall time.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time

from mjtable.firmware import build as B
from mjtable.firmware import release

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = "MJTABLE_PICO"
MPY_TAG = "v1.28.0"
MPY_GIT = "https://github.com/micropython/micropython.git"
PICOTOOL_TAG = "2.2.0"
PICOTOOL_GIT = "https://github.com/raspberrypi/picotool.git"
# MPY_SRC's default: shared/ beside the checkout (or beside its worktrees' folder)
ARCHIVE = os.path.join("shared", "micropython", "micropython-1.28.0-rp2.tar.xz")
DEFAULT_SRCS = (os.path.join(ROOT, "..", ARCHIVE), os.path.join(ROOT, "..", "..", ARCHIVE))


def run(cmd, log, env=None, cwd=None):
    """Run cmd with its output into the file log; exit naming the log on failure."""
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    if r.returncode:
        with open(log) as f:
            tail = f.read()[-3000:]
        sys.exit("%s\nfailed: %s (whole log: %s)" % (tail, " ".join(cmd), log))


def jobs():
    return str(max(1, min(os.cpu_count() or 1, 2)))


def source(work, log):
    """(micropython dir, picotool source dir), extracted or cloned into work."""
    mp = os.path.join(work, "micropython-1.28.0")
    pt = os.path.join(work, "picotool-2.2.0")
    src = os.environ.get("MPY_SRC") or next(
        (p for p in DEFAULT_SRCS if os.path.isfile(p)), DEFAULT_SRCS[0])
    stamp = os.path.join(work, "source.stamp")
    archive = src != "git" and os.path.isfile(src)
    what = "archive %s\n" % sha256(src) if archive else "git %s\n" % MPY_TAG
    try:
        with open(stamp) as f:
            if f.read() == what and os.path.isdir(mp) and os.path.isdir(pt):
                return mp, pt
        os.remove(stamp)
    except OSError:
        pass
    for d in (mp, pt):
        if os.path.isdir(d):
            shutil.rmtree(d)
    if archive:
        run(["tar", "xJf", os.path.abspath(src), "-C", work], log)
    else:
        if src != "git":
            print("no archive at %s: cloning MicroPython %s (needs a network)" % (src, MPY_TAG))
        run(["git", "clone", "--depth", "1", "--branch", MPY_TAG, MPY_GIT, mp], log)
        # the submodules v1.28.0 pins for the rp2 port (pico-sdk, tinyusb, ...)
        run(["make", "-C", os.path.join(mp, "ports", "rp2"), "BOARD=RPI_PICO", "submodules"], log)
        run(["git", "-C", mp, "submodule", "update", "--init", "lib/micropython-lib"], log)
        run(["git", "clone", "--depth", "1", "--branch", PICOTOOL_TAG, PICOTOOL_GIT, pt], log)
    with open(stamp, "w") as f:
        f.write(what)
    return mp, pt


def tools(work, mp, pt, log):
    """Build mpy-cross and picotool once; the picotool_DIR the SDK wants."""
    if not os.path.exists(os.path.join(mp, "mpy-cross", "build", "mpy-cross")):
        run(["make", "-C", os.path.join(mp, "mpy-cross"), "-j" + jobs()], log)
    inst = os.path.join(work, "picotool")
    cfg = os.path.join(inst, "lib", "cmake", "picotool")
    if not os.path.isdir(cfg):
        bld = os.path.join(work, "picotool-build")
        env = dict(os.environ, PICO_SDK_PATH=os.path.join(mp, "lib", "pico-sdk"))
        run(["cmake", "-S", pt, "-B", bld, "-DPICOTOOL_NO_LIBUSB=1",
             "-DCMAKE_INSTALL_PREFIX=" + inst], log, env=env)
        run(["make", "-C", bld, "-j" + jobs(), "install"], log)
    return cfg


def stage(work, version, commit_id):
    """The board folder the port builds: image/MJTABLE_PICO and, in its fw/,
    the firmware's board sources and mjbuild.py. Files are rewritten only
    when they change, so make rebuilds only what did."""
    board = os.path.join(work, BOARD)
    want = {}
    here = os.path.join(ROOT, "image", BOARD)
    for name in sorted(os.listdir(here)):
        if os.path.isfile(os.path.join(here, name)):
            with open(os.path.join(here, name), encoding="utf-8") as f:
                want[name] = f.read()
    src = os.path.join(ROOT, "firmware")
    for rel, text in B.board_sources(src).items():
        want[os.path.join("fw", rel)] = text
    with open(os.path.join(src, B.MANIFEST), encoding="utf-8") as f:
        want[os.path.join("fw", B.MANIFEST)] = f.read()  # what the image's manifest includes
    want[os.path.join("fw", "mjbuild.py")] = release.mjbuild(version, commit_id)
    for rel, text in want.items():
        path = os.path.join(board, rel)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    for dirpath, _dirs, files in os.walk(board):  # a module removed from the tree
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), board)
            if rel not in want:
                os.remove(os.path.join(dirpath, name))
    return board


def port_make(mp, board, build, picotool_dir, when, log):
    """The rp2 port's make for the board; the built firmware.uf2."""
    env = dict(os.environ, picotool_DIR=picotool_dir, SOURCE_DATE_EPOCH=str(when),
               # the extract sits inside this project's git checkout: without
               # these, makeversionhdr.py's `git describe` would name its commit
               MICROPY_GIT_TAG=MPY_TAG, GIT_CEILING_DIRECTORIES=os.path.dirname(mp))
    env.pop("MICROPY_GIT_HASH", None)
    run(["make", "-C", os.path.join(mp, "ports", "rp2"), "BOARD_DIR=" + board,
         "BUILD=" + build, "-j" + jobs()], log, env=env)
    return os.path.join(build, "firmware.uf2")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "mjtable-pico.uf2"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "image"))
    ap.add_argument("--check-repro", action="store_true",
                    help="build again in a fresh folder and compare byte for byte")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "build.log")
    open(log, "w").close()
    mp, pt = source(work, log)
    picotool_dir = tools(work, mp, pt, log)
    version = release.source_version(os.path.join(ROOT, "firmware"))
    commit_id = release.commit(ROOT)
    board = stage(work, version, commit_id[0])
    uf2 = port_make(mp, board, os.path.join(work, "build-" + BOARD), picotool_dir,
                    commit_id[1], log)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    shutil.copyfile(uf2, a.out)
    print("%s: %d bytes, sha256 %s (firmware %s, commit %s, MicroPython %s, dated %s)"
          % (a.out, os.path.getsize(a.out), sha256(a.out), version, commit_id[0], MPY_TAG,
             time.strftime("%Y-%m-%d", time.gmtime(commit_id[1]))))
    print("built in %.0f s (log: %s)" % (time.monotonic() - t0, log))
    if a.check_repro:
        again = os.path.join(work, "build-repro")
        if os.path.isdir(again):
            shutil.rmtree(again)
        t1 = time.monotonic()
        uf2b = port_make(mp, board, again, picotool_dir, commit_id[1], log)
        same = sha256(uf2b) == sha256(a.out)
        print("second build in a fresh folder (%.0f s): %s"
              % (time.monotonic() - t1, "identical" if same else "DIFFERS: " + sha256(uf2b)))
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
