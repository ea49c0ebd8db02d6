"""Build the release: dist/mjtable-VERSION-py3-none-any.whl (`make dist`).

    python tools/dist.py [--out dist] [--work build/dist] [--uf2 FILE | --no-image]

The wheel is the host tool (mjtable, mjsim, sichuan, as pyproject.toml
names them) carrying the firmware in mjtable/firmware/packaged/, laid out
as mjtable.firmware.tree names its parts:
- src/: the firmware's sources (the virtual table compiles them for the
  user's unix port);
- rp2/: compiled for the board as `make firmware` does (.mpy, main.py);
- rp2.romfs: rp2's .mpy as one ROMFS image, as `mjtable deploy` writes it;
- mjtable-pico.uf2: the table's own image (`make uf2`), which must carry
  this tree's firmware version and commit (--no-image: a wheel without it);
- build.json: the package's version, the firmware's, the commit they were
  built from, the image's mark (mjtable.firmware.release.record).
Everything is staged in --work (a copy of the files git knows, as they are
in the working tree), never in the source tree, and the wheel is built
there by setuptools (pip wheel, no network: the dev venv's pinned
setuptools). Prints the wheel's path, its size and the record.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib

from mjtable import BadInput
from mjtable.firmware import deploy as D
from mjtable.firmware import release, tree
from mjtable.firmware import uf2 as U

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what the wheel is built from (pyproject.toml's packages and their data)
WHEEL_PATHS = ("pyproject.toml", "README.md", "host", "sim", "firmware/sichuan")


def tracked(*paths):
    """The files under paths that git knows or would (not ignored), relative to ROOT."""
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "--"]
                       + list(paths), capture_output=True, text=True, check=True)
    return [p for p in r.stdout.splitlines() if os.path.isfile(os.path.join(ROOT, p))]


def copy_files(files, dst, strip=""):
    for rel in files:
        out = os.path.join(dst, rel[len(strip):])
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, rel), out)


def image_facts(path, firmware, commit):
    """The image's facts for the record; exits unless it carries this tree's
    firmware (a release's image and firmware are one build)."""
    try:
        img = U.read(path)
    except BadInput as e:
        sys.exit("%s (make uf2, or --no-image)" % e)
    if (img["fw"], img["commit"]) != (firmware, commit):
        sys.exit("%s holds firmware %s commit %s, this tree's is %s commit %s: make uf2 "
                 "(or --no-image)" % (path, img["fw"], img["commit"], firmware, commit))
    return {"fw": img["fw"], "commit": img["commit"], "mpy": img["mpy"], "date": img["date"],
            "bytes": img["size"], "sha256": sha256(path)}


def sha256(path):
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def package(packaged, work, uf2):
    """Stage the firmware into folder packaged; the build record."""
    src = os.path.join(packaged, tree.SRC)
    copy_files(tracked("firmware"), src, strip="firmware/")
    rp2 = os.path.join(packaged, tree.RP2)
    try:
        local = D.build(src, rp2)
        image = D.romfs_image(rp2, D.split_rom(local)[1], os.path.join(work, "rp2-rom"))
    except BadInput as e:
        sys.exit(str(e))
    shutil.copyfile(image, os.path.join(packaged, tree.ROMFS))
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        version = tomllib.load(f)["project"]["version"]
    firmware = release.source_version(src)
    fw_commit = release.commit(ROOT)[0]
    rec = {"package": version,
           "commit": release.commit(ROOT, WHEEL_PATHS + release.FIRMWARE_PATHS)[0],
           "firmware": firmware, "firmware_commit": fw_commit,
           "rp2_bytes": sum(os.path.getsize(os.path.join(rp2, p)) for p in local),
           "romfs_bytes": os.path.getsize(image), "image": None}
    if uf2 is not None:
        rec["image"] = image_facts(uf2, firmware, fw_commit)
        shutil.copyfile(uf2, os.path.join(packaged, tree.IMAGE))
    with open(os.path.join(packaged, tree.RECORD), "w", encoding="utf-8") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
        f.write("\n")
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "dist"))
    ap.add_argument("--uf2", default=os.path.join(ROOT, "build", tree.IMAGE))
    ap.add_argument("--no-image", action="store_true", help="a wheel without the image")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    work = os.path.abspath(a.work)
    if os.path.isdir(work):
        shutil.rmtree(work)
    stage = os.path.join(work, "stage")
    copy_files(tracked(*WHEEL_PATHS), stage)
    packaged = os.path.join(stage, os.path.relpath(tree.PACKAGED, ROOT))
    rec = package(packaged, work, None if a.no_image else a.uf2)
    os.makedirs(a.out, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "--no-build-isolation", "--disable-pip-version-check", "-w",
                        os.path.abspath(a.out), stage], capture_output=True, text=True)
    if r.returncode:
        sys.exit("pip wheel failed:\n%s%s" % (r.stdout, r.stderr))
    wheel = os.path.join(os.path.abspath(a.out), "mjtable-%s-py3-none-any.whl" % rec["package"])
    print("%s: %d bytes (%.0f s)" % (wheel, os.path.getsize(wheel), time.monotonic() - t0))
    print(json.dumps(rec, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
