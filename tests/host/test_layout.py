"""The layout's rules, checked on the tree (docs/decisions.md, "The layout"):
no import circle and no private name across modules anywhere in firmware/,
host/ and sim/ (tools/importgraph.py); imports point one way between the
packages; nothing on the import path is set from inside a package; the
wheel's package list is the tree's."""

import ast
import os
import tomllib

import importgraph

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRMWARE_TOP = {"app", "main", "boards", "drivers", "sichuan", "table"}


def _edges():
    edges, _ = importgraph.scan(importgraph.modules())
    return edges


def test_no_import_circle_and_no_private_name_across_modules():
    assert importgraph.problems() == []


def test_the_checker_finds_a_circle_and_a_private_name(tmp_path):
    pkg = tmp_path / "host" / "p"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from p import b  # a late import closes it too\n")
    (pkg / "b.py").write_text("from p import a\nfrom p.a import _hidden\n")
    found = importgraph.problems(("host",), str(tmp_path))
    assert found == ["import circle: p.a <-> p.b",
                     "private name across modules: p.b:2: from p.a import _hidden"]


def test_commands_never_import_each_other_and_nothing_below_imports_them():
    for mod, deps in _edges().items():
        cmds = {d for d in deps if d.startswith("mjtable.commands.")}
        if mod == "mjtable.cli":
            continue
        assert not cmds, (mod, sorted(cmds))


def test_imports_point_one_way_between_firmware_host_and_simulation():
    for mod, deps in _edges().items():
        top = mod.split(".")[0]
        tops = {d.split(".")[0] for d in deps}
        if top in FIRMWARE_TOP:  # the board's: nothing of the host or the simulation
            assert not tops & {"mjtable", "mjsim"}, (mod, sorted(deps))
        if top == "sichuan":  # the rules core: itself alone
            assert tops <= {"sichuan"}, (mod, sorted(deps))
        if top == "mjtable":  # the host imports the rules core, never the controller
            assert not tops & (FIRMWARE_TOP - {"sichuan"}), (mod, sorted(deps))
            assert "mjsim" not in tops or mod.startswith("mjtable.commands."), mod


def _python_files(folder):
    for root, _, files in os.walk(os.path.join(ROOT, folder)):
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(root, f)


def test_no_package_sets_its_own_import_path():
    """The dev venv's .pth (tools/devpath.py), conftest.py and MICROPYPATH do
    that from outside; a module that edits sys.path hides where code comes from."""
    for path in list(_python_files("host")) + list(_python_files("sim")):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr == "path"
                    and isinstance(node.value, ast.Name) and node.value.id == "sys"):
                raise AssertionError("%s:%d uses sys.path" % (os.path.relpath(path, ROOT),
                                                              node.lineno))


def test_the_wheels_packages_are_the_trees():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        conf = tomllib.load(f)["tool"]["setuptools"]
    declared = set(conf["packages"])
    found = set()
    for name, folder in conf["package-dir"].items():
        base = os.path.join(ROOT, folder)
        for root, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                rel = os.path.relpath(root, base)
                found.add(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    assert declared == found
