"""Fold the firmware's public constants into the code that uses them: the
build's link step (docs/decisions.md).

mpy-cross folds a `NAME = const(n)` only inside its own module, and keeps a
public NAME in the module's dictionary so that other modules can read it. On
the board each such name then costs a dictionary slot and an interned name in
the heap, about 260 of them, while only the host and the tests, which read the
source, need them by name. fold() rewrites every use of such a constant, in
its own module and in the firmware modules that import it, to its value, and
its definition to `pass`. Line numbers are kept, so a traceback on the board
points at the source line.

    fold({"sichuan/game.py": source, ...}) -> {path: folded source}

It refuses (FoldError, naming file and line) what it cannot prove right: a
constant's name bound again anywhere, a module alias bound again or naming
two modules, and `import pkg.mod` of a firmware module without `as` (its
uses, `pkg.mod.NAME`, would not be seen). A constant read through anything
else (a module kept in an attribute, say) is not seen either and fails on
the board as an AttributeError: the firmware does not do that, and the
virtual-table tests run the folded build.
"""

import ast


class FoldError(Exception):
    pass


def _module_name(path):
    """'sichuan/game.py' -> 'sichuan.game'; 'sichuan/__init__.py' -> 'sichuan'."""
    parts = path[:-3].replace("\\", "/").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _int(node):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int):
        return -node.operand.value
    return None


def _consts(tree):
    """{NAME: (value, statement)} of the top-level public `NAME = const(int)`."""
    out = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "const"):
            continue
        name = node.targets[0].id
        value = _int(node.value.args[0]) if len(node.value.args) == 1 else None
        if not name.startswith("_") and value is not None:
            out[name] = (value, node)
    return out


def _absolute(modname, is_package, level, module):
    """The module an ImportFrom of `level` dots and `module` names, seen from modname."""
    if not level:
        return module
    base = modname.split(".")
    if not is_package:
        base.pop()
    base = base[:len(base) - level + 1]
    return ".".join(base + ([module] if module else []))


class _Module:
    def __init__(self, path, source):
        self.path = path
        self.name = _module_name(path)
        self.package = path.endswith("__init__.py")
        self.source = source
        self.tree = ast.parse(source, path)
        self.consts = _consts(self.tree)
        self.aliases = {}  # local name -> module it is bound to by an import
        self.imported = {}  # local name -> (module, name) of a `from m import NAME`
        self.bound = set()  # every name bound but by the constants' own definitions

    def where(self, node):
        return "%s:%d" % (self.path, node.lineno)

    def scan(self, modules):
        definitions = {id(stmt.targets[0]) for _, stmt in self.consts.values()}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                src = _absolute(self.name, self.package, node.level, node.module or "")
                for a in node.names:
                    local = a.asname or a.name
                    full = src + "." + a.name if src else a.name
                    if full in modules:
                        self._alias(local, full, node)
                    else:
                        self.imported[local] = (src, a.name)
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self._alias(a.asname, a.name, node)
                    elif a.name in modules and "." in a.name:
                        raise FoldError("%s: import %s: write `from %s import %s`" % (
                            self.where(node), a.name, *a.name.rsplit(".", 1)))
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                if id(node) not in definitions:
                    self.bound.add(node.id)
            elif isinstance(node, ast.arg):
                self.bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.bound.add(node.name)

    def _alias(self, local, full, node):
        if self.aliases.get(local, full) != full:
            raise FoldError("%s: %s names both %s and %s" % (
                self.where(node), local, self.aliases[local], full))
        self.aliases[local] = full


def _literal(value):
    return str(value) if value >= 0 else "(%d)" % value


def _edits(m, modules, public):
    """(line, col, end_line, end_col, text) of every change to module m."""
    out = []
    for node in ast.walk(m.tree):
        if (isinstance(node, ast.Attribute) and node.attr in public
                and isinstance(node.value, ast.Name) and node.value.id in m.aliases):
            alias = node.value.id
            mod = modules[m.aliases[alias]]
            if node.attr not in mod.consts or alias in m.bound:
                raise FoldError("%s: cannot tell that %s.%s is the constant of %s"
                                % (m.where(node), alias, node.attr, mod.name))
            out.append(_span(node, _literal(mod.consts[node.attr][0])))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = _value_of(m, node.id, modules)
            if value is not None:
                if node.id in m.bound:
                    raise FoldError("%s: the constant %s is bound again" % (m.where(node), node.id))
                out.append(_span(node, _literal(value)))
        elif isinstance(node, ast.ImportFrom):
            kept = [a for a in node.names if _value_of(m, a.asname or a.name, modules) is None]
            if len(kept) < len(node.names):
                text = "pass"
                if kept:
                    names = ", ".join(a.name + (" as " + a.asname if a.asname else "")
                                      for a in kept)
                    text = "from %s%s import %s" % ("." * node.level, node.module or "", names)
                text += "\n" * (node.end_lineno - node.lineno)
                out.append(_span(node, text))
    for name, (_, node) in m.consts.items():
        if name in m.bound:
            raise FoldError("%s: the constant %s is bound again" % (m.where(node), name))
        out.append(_span(node, "pass"))
    return out


def _value_of(m, name, modules):
    """The constant a bare `name` in module m stands for, or None."""
    if name in m.consts:
        return m.consts[name][0]
    if name in m.imported:
        src, orig = m.imported[name]
        mod = modules.get(src)
        if mod is not None and orig in mod.consts:
            return mod.consts[orig][0]
    return None


def _span(node, text):
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text)


def _apply(source, edits):
    """source with the edits made; columns are UTF-8 byte offsets, as ast gives them."""
    lines = source.encode().splitlines(keepends=True)
    for line, col, end_line, end_col, text in sorted(edits, reverse=True):
        head = lines[line - 1][:col]
        tail = lines[end_line - 1][end_col:]
        lines[line - 1:end_line] = [head + text.encode() + tail]
    return b"".join(lines).decode()


def fold(sources):
    """{path: source} of a firmware tree -> {path: source with its public
    constants folded}; paths relative to the tree ('table/scan.py')."""
    modules = {}
    for path, source in sources.items():
        m = _Module(path, source)
        modules[m.name] = m
    for m in modules.values():
        m.scan(modules)
    public = {n for m in modules.values() for n in m.consts}
    out = {}
    for m in modules.values():
        edits = _edits(m, modules, public)
        out[m.path] = _apply(m.source, edits) if edits else m.source
        ast.parse(out[m.path], m.path)  # a fold that breaks the syntax is a bug here
    return out
