"""mjtable.firmware.constfold: the build folds public constants into their uses."""

import os
import re
import tempfile

import pytest
from mjtable.firmware import build as build_firmware
from mjtable.firmware import constfold

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PKG = {
    "pkg/__init__.py": "",
    "pkg/a.py": (
        "from micropython import const\n"
        "X = const(5)  # five\n"
        "NEG = const(-2)\n"
        "_Y = const(1)\n"
        "def twice():\n"
        "    return X * 2 + NEG\n"
    ),
    "pkg/b.py": (
        "from pkg import a as A\n"
        "from pkg.a import (X,\n"
        "                   twice)\n"
        "def f(obj):\n"
        "    return A.X + X + obj.X + twice()\n"
    ),
}


def _twice(source):
    ns = {}
    exec(source.replace("from micropython import const", "const = int"), ns)
    return ns["twice"]()


def test_uses_become_values_and_definitions_go():
    out = constfold.fold(PKG)
    a, b = out["pkg/a.py"], out["pkg/b.py"]
    assert "X = const" not in a and "NEG = const" not in a
    assert "pass  # five" in a  # the comment stays with its line
    assert "_Y = const(1)" in a  # private ones are mpy-cross's own business
    assert "return 5 * 2 + (-2)" in a
    assert "return 5 + 5 + obj.X + twice()" in b  # obj.X is not the module's constant
    assert "from pkg.a import twice" in b and "X," not in b
    assert _twice(a) == _twice(PKG["pkg/a.py"]) == 8
    for path in PKG:
        assert out[path].count("\n") == PKG[path].count("\n"), path  # tracebacks keep lines


def test_refuses_a_constant_bound_again():
    src = dict(PKG)
    src["pkg/a.py"] += "def g(X):\n    return X\n"
    with pytest.raises(constfold.FoldError, match=r"pkg/a.py:\d+: the constant X"):
        constfold.fold(src)


def test_refuses_a_module_alias_used_for_something_else():
    src = dict(PKG)
    src["pkg/b.py"] += "def h(A):\n    return A.X\n"
    with pytest.raises(constfold.FoldError, match=r"pkg/b.py:7: cannot tell that A.X"):
        constfold.fold(src)


def test_refuses_one_alias_for_two_modules():
    src = dict(PKG)
    src["pkg/c.py"] = "def h():\n    return 1\n"
    src["pkg/b.py"] += "def k():\n    from pkg import c as A\n    return A.h()\n"
    with pytest.raises(constfold.FoldError, match="A names both"):
        constfold.fold(src)


def test_refuses_a_dotted_import_whose_uses_it_would_not_see():
    src = dict(PKG)
    src["pkg/c.py"] = "import pkg.a\ndef h():\n    return pkg.a.X\n"
    with pytest.raises(constfold.FoldError, match="import pkg.a: write `from pkg import a`"):
        constfold.fold(src)


def _board_files():
    """{relative path: source} of what the board gets (the manifest's modules, main.py)."""
    src = os.path.join(ROOT, "firmware")
    out = {}
    for rel in ["main.py"] + build_firmware.manifest(src):
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            out[rel] = f.read()
    return out


def test_the_firmware_folds_keeping_its_lines_and_no_public_constant():
    fw = _board_files()
    out = constfold.fold(fw)
    public = re.compile(r"^[A-Z][A-Z0-9_]* = const\(", re.M)
    assert sum(len(public.findall(s)) for s in fw.values()) > 200  # what there was to fold
    for path, text in out.items():
        assert not public.findall(text), path
        assert text.count("\n") == fw[path].count("\n"), path
    assert "G.PH_" in fw["table/controller.py"]
    assert "G.PH_" not in out["table/controller.py"]


def test_board_only_empties_the_cpython_branches_and_keeps_the_lines():
    src = (
        "import sys\n"
        "if sys.implementation.name == \"micropython\":\n"
        "    import micropython\n"
        "\n"
        "    @micropython.viper\n"
        "    def f(x: int) -> int:\n"
        "        return x\n"
        "else:\n"
        "    T = (1, 2)  # CPython's table\n"
        "\n"
        "    def f(x):\n"
        "        return T[x]\n"
        "if sys.implementation.name != \"micropython\":\n"
        "    def ptr8(b):\n"
        "        return b\n"
        "if sys.platform == \"linux\":\n"
        "    K = 1\n"
        "def g():\n"
        "    if sys.implementation.name == \"micropython\":\n"
        "        return 1\n"
        "    else:\n"
        "        return 2\n"
    )
    out = build_firmware.board_only(src)
    assert out.count("\n") == src.count("\n")
    assert "T = (1, 2)" not in out and "T[x]" not in out and "ptr8" not in out
    assert "@micropython.viper" in out and "K = 1" in out
    assert "return 2" in out  # only top-level tests are folded
    ns = {}
    exec(compile(out, "m.py", "exec"), ns)  # still Python; on CPython the branches left are empty
    assert "T" not in ns and "ptr8" not in ns


def test_the_board_build_keeps_no_cpython_branch():
    fw = _board_files()
    for path, text in fw.items():
        out = build_firmware.board_only(text)
        assert out.count("\n") == text.count("\n"), path
        compile(out, path, "exec")
    shape = build_firmware.board_only(fw["sichuan/shape.py"])
    assert "_STEP = tuple(" in fw["sichuan/shape.py"]
    assert "_STEP = tuple(" not in shape and "t = _STEP" not in shape  # comments stay
    assert "def ptr8" not in shape and "@micropython.viper" in shape
    assert "from .shape import ptr8" not in build_firmware.board_only(fw["sichuan/wild.py"])


HOST_ONLY = (os.path.join("sichuan", "tiles.py"),)  # the notation, for people


def test_the_board_build_leaves_out_what_only_the_host_imports():
    fw = _board_files()
    for rel in HOST_ONLY:
        name = rel[:-3].replace(os.sep, ".")
        short = name.rsplit(".", 1)[1]
        for path, text in fw.items():
            if path == rel:
                continue
            for line in text.splitlines():
                words = line.replace(",", " ").split()
                if words[:1] in (["import"], ["from"]):
                    assert name not in words and "." + short not in words and not (
                        words[1] in ("sichuan", ".") and short in words), (path, line)
    with tempfile.TemporaryDirectory() as out:
        build_firmware.build(os.path.join(ROOT, "firmware"), out)
        assert os.path.exists(os.path.join(out, "sichuan", "shape.mpy"))
        for rel in HOST_ONLY:
            assert not os.path.exists(os.path.join(out, rel[:-3] + ".mpy")), rel

