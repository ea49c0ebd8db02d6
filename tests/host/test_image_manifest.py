"""The image's manifest (image/MJTABLE_PICO/manifest.py, which includes
firmware/manifest.py, the one list of what goes on the board) freezes exactly
the firmware the board imports: every module reachable from the image's
main.py through app.main_board, and nothing only the host needs.

The board's imports are read from the source (every `import` and `from ...
import`, at any depth, relative ones too). A module the board imports that
the manifest leaves out fails on the board at import time with ImportError;
one only the host needs costs flash for nothing.
"""

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FW = os.path.join(ROOT, "firmware")
BOARD_DIR = os.path.join(ROOT, "image", "MJTABLE_PICO")
# only the host imports these (the notation for people)
HOST_ONLY = {"sichuan.tiles"}
GENERATED = {"mjbuild"}  # image/build.py writes it beside the staged firmware


def _path(mod):
    """The file of firmware module mod; its folder for a package without
    __init__.py (table/: nothing to freeze); None for any other module."""
    base = os.path.join(FW, *mod.split("."))
    if os.path.isfile(os.path.join(base, "__init__.py")):
        return os.path.join(base, "__init__.py")
    if os.path.isdir(base):
        return base
    return base + ".py" if os.path.isfile(base + ".py") else None


def _imports(mod, path):
    """Firmware modules `mod` (at `path`) names in its imports."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    package = mod if path.endswith("__init__.py") else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module
            names = [base] + [base + "." + a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # a package's __init__ runs first
                if _path(".".join(parts[:i])):
                    out.add(".".join(parts[:i]))
    return out


def board_closure():
    """Every firmware module the board imports, from app (main.py imports it)."""
    seen, todo = set(), ["app"]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        path = _path(mod)
        if os.path.isdir(path):
            continue
        seen.add(mod)
        todo.extend(_imports(mod, path) - seen)
    return seen


def manifest_modules():
    """{module name: manifest base path} of what the manifest freezes, read by
    running it with recording stand-ins of the manifest functions (the real
    ones are MicroPython's tools/manifestfile.py, which the build runs); the
    staged firmware's manifest (fw/, a copy of firmware/manifest.py) is
    followed, its modules based at "$(BOARD_DIR)/fw"."""
    found = {}
    includes = []
    base = ["."]

    def module(path, base_path="."):
        found[path[:-3].replace("/", ".")] = base[0] if base_path == "." else base_path

    def package(name, files=None, base_path="."):
        assert files is not None, "package(%r) without files= freezes whatever is there" % name
        for f in files:
            m = (name + "/" + f)[:-3].replace("/", ".")
            m = m[: -len(".__init__")] if m.endswith(".__init__") else m
            found[m] = base[0] if base_path == "." else base_path

    def include(path):
        includes.append(path)
        if path == "$(BOARD_DIR)/fw/manifest.py":
            base[0] = "$(BOARD_DIR)/fw"
            run(os.path.join(FW, "manifest.py"))
            base[0] = "."

    def run(path):
        with open(path, encoding="utf-8") as f:
            code = f.read()
        exec(code, {"module": module, "package": package, "include": include,
                    "require": includes.append})

    run(os.path.join(BOARD_DIR, "manifest.py"))
    return found, includes


def test_manifest_freezes_what_the_board_imports():
    found, _ = manifest_modules()
    fw = {m for m, base in found.items() if base == "$(BOARD_DIR)/fw"}
    want = board_closure() | GENERATED
    assert sorted(want - fw) == [], "the board imports these, the manifest leaves them out"
    assert sorted(fw - want) == [], "the manifest freezes these, the board never imports them"


def test_nothing_host_only_is_frozen():
    found, _ = manifest_modules()
    assert sorted(m for m in found if m in HOST_ONLY) == []


def test_nothing_of_the_simulation_room_is_in_the_firmware():
    """What the board never runs lives in sim/ (mjsim): firmware/ holds the
    board's modules, main.py, and the manifest naming them."""
    found, _ = manifest_modules()
    fw = {m for m, base in found.items() if base == "$(BOARD_DIR)/fw"}
    files = set()
    for root, dirs, names in os.walk(FW):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in names:
            rel = os.path.relpath(os.path.join(root, n), FW)[:-3].replace(os.sep, ".")
            files.add(rel[: -len(".__init__")] if rel.endswith(".__init__") else rel)
    assert sorted(files - fw - HOST_ONLY - {"main", "manifest"}) == []


def test_the_image_keeps_the_ports_modules_and_its_own_main():
    """asyncio (app runs on it) and neopixel (boards.pico) come from the rp2
    port's own manifest; the image's main.py is frozen from the board folder."""
    found, includes = manifest_modules()
    assert "$(PORT_DIR)/boards/manifest.py" in includes
    assert found.get("main") == "$(BOARD_DIR)"


def test_the_closure_walks_the_boards_imports():
    """The walk itself finds the board's modules (a closure that lost them
    would pass the first test vacuously) and not the host's."""
    c = board_closure()
    assert {"table.hostlink", "table.usbport", "boards.pico", "drivers.buttons",
            "sichuan.game", "table.watchdog"} <= c
    assert not c & HOST_ONLY
