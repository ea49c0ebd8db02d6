"""The project's import graph, checked: no circle, no private name across modules.

    python tools/importgraph.py            problems, one a line; exit 1 if any
    python tools/importgraph.py --edges    every edge, "a -> b"

Every `import` counts, at the top of a module or inside a function: an import
put in a function to dodge a circle still closes it. The modules are those of
ROOTS (each folder a root of the import names, as the interpreter sees it);
an import of anything else (the standard library, a dependency) is no edge.
A private name is one that starts with "_" and is not a dunder: `from m import
_x`, or `m._x` where `m` names another module of ours.
"""

from __future__ import annotations

import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# folder -> what its modules are checked against
ROOTS = ("firmware", "host", "sim")


def modules(roots=ROOTS, top=ROOT) -> dict:
    """{module name: file path} of every .py under the roots."""
    out = {}
    for r in roots:
        base = os.path.join(top, r)
        for dirpath, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
            for f in sorted(files):
                if not f.endswith(".py"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), base)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                if rel:
                    out[".".join(rel)] = os.path.join(dirpath, f)
    return out


def _is_package(path: str) -> bool:
    return os.path.basename(path) == "__init__.py"


def _resolve(mod: str, path: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = mod.split(".")
    if not _is_package(path):
        parts = parts[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def scan(index: dict):
    """(edges {module: set of modules}, private uses [(module, line, text)])."""
    edges: dict = {m: set() for m in index}
    private = []
    for mod, path in index.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        bound = {}  # local name -> our module it names
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in index:
                        edges[mod].add(a.name)
                        if a.asname:
                            bound[a.asname] = a.name
                    # `import a.b` binds a; a.b's attributes are reached through it
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, path, node)
                for a in node.names:
                    full = base + "." + a.name if base else a.name
                    if full in index:
                        edges[mod].add(full)
                        bound[a.asname or a.name] = full
                    elif base in index:
                        edges[mod].add(base)
                        if _private(a.name):
                            private.append((mod, node.lineno, "from %s import %s"
                                            % (base, a.name)))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and _private(node.attr)):
                target = bound[node.value.id]
                if target != mod:
                    private.append((mod, node.lineno, "%s.%s (%s)"
                                    % (node.value.id, node.attr, target)))
        edges[mod].discard(mod)
    return edges, private


def cycles(edges: dict) -> list:
    """Strongly connected components of more than one module (Tarjan), sorted."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on: set = set()
    out = []
    counter = [0]

    def visit(v):
        # iterative: the graph is deep enough to matter for recursion
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def problems(roots=ROOTS, top=ROOT) -> list:
    index = modules(roots, top)
    edges, private = scan(index)
    out = ["import circle: " + " <-> ".join(c) for c in cycles(edges)]
    out += ["private name across modules: %s:%d: %s" % p for p in sorted(private)]
    return out


def main(argv):
    if "--edges" in argv:
        edges, _ = scan(modules())
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print("%s -> %s" % (a, b))
        return 0
    found = problems()
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
