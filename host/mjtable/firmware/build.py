"""Compile the firmware with mpy-cross into build/firmware/ and print sizes.

    python -m mjtable.firmware.build firmware build/firmware

The modules firmware/manifest.py names (what goes on the board) each become
a .mpy (bytecode, and machine code for the viper functions, for the RP2040's
Cortex-M0+, armv6m; `native_arch` names this machine's unix port's for builds
that run here); main.py and boot.py, which the board runs as source, are
copied (main.py only imports app, so compiling it at boot costs next to
nothing). First the public constants are folded into the code that uses them
(constfold): the board keeps no name for them. Code only CPython runs (`if
sys.implementation.name != "micropython":`) is left out (`board_only`).
Exits non-zero, naming the file, if any file fails to fold or to compile.
"""

import ast
import os
import shutil
import subprocess
import sys
import tempfile

from mjtable.firmware import constfold, tree

AS_SOURCE = ("main.py", "boot.py")
MANIFEST = "manifest.py"
# the native emitter's architecture names, by sys.implementation._mpy >> 10
_ARCHS = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
          "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")


def mpy_cross():
    return tree.tool("mpy-cross")


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


def manifest(src):
    """The relative paths of the modules src/manifest.py names, in its order
    (MicroPython's manifest functions module() and package(); a package
    without `files` is every .py under it)."""
    out = []

    def module(path, base_path=".", opt=None):
        out.append(os.path.normpath(path))

    def package(name, files=None, base_path=".", opt=None):
        if files is None:
            files = sorted(os.path.relpath(os.path.join(d, f), os.path.join(src, name))
                           for d, _, fs in os.walk(os.path.join(src, name))
                           for f in fs if f.endswith(".py"))
        out.extend(os.path.normpath(os.path.join(name, f)) for f in files)

    path = os.path.join(src, MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            code = compile(f.read(), path, "exec")
        exec(code, {"module": module, "package": package})
    except OSError as e:
        sys.exit("%s: no firmware manifest (%s)" % (path, e.strerror))
    except (NameError, TypeError, SyntaxError) as e:
        sys.exit("%s: %s (module() and package() only)" % (path, e))
    return out


def _sources(src, names):
    """{relative path: text} of src's files of names that exist."""
    out = {}
    for rel in names:
        path = os.path.join(src, rel)
        if not os.path.exists(path) and rel in AS_SOURCE:
            continue
        try:
            with open(path, encoding="utf-8") as f:
                out[rel] = f.read()
        except OSError as e:
            sys.exit("%s: named in %s but %s" % (rel, MANIFEST, e.strerror))
    return out


def board_sources(src, extra=None):
    """{relative path: text} of what the board gets: the modules of src's
    manifest and main.py, with their constants folded and their CPython
    branches emptied. extra ({relative path: text}) is folded with them: the
    simulation room's modules the unix port runs beside the firmware. Both
    builds start here: build() compiles it with mpy-cross, the image
    (image/build.py) freezes it through its manifest."""
    sources = _sources(src, list(AS_SOURCE) + manifest(src))
    sources.update(extra or {})
    try:
        folded = constfold.fold(sources)
    except (constfold.FoldError, SyntaxError) as e:
        sys.exit("constant folding failed: %s" % e)
    return {rel: board_only(text) for rel, text in folded.items()}


def build(src, dst, arch="armv6m", as_source=AS_SOURCE, extra=None):
    """Compile the firmware of src (and extra, as board_sources) into dst for
    mpy-cross's -march=arch, copying the top-level files named in as_source;
    returns {package: bytes}."""
    folded = board_sources(src, extra)
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
