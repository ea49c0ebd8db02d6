"""Where each key of a TOML text is: line and column, for messages.

tomllib gives a position only for a syntax error; a rule file's key or value
error should name its line too. `positions(text)` walks a text tomllib has
already accepted and maps every key path (a tuple of keys, as the parsed
dict nests them) to (line, column of the key, column of its value), 1-based;
a table header `[a.b]` maps ("a", "b") to its own line. Array tables
(`[[x]]`) count their entries: ("x", 0, ...).
"""

import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_SPACE = re.compile(r"[ \t]*")
_BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_ML_BASIC = re.compile(r'"""(?:[^\\]|\\.)*?"""("{0,2})', re.S)
_ML_LITERAL = re.compile(r"'''.*?'''('{0,2})", re.S)
_SCALAR = re.compile(r"[^,\]\}\s#]+")
_ESCAPES = {'"': '"', "\\": "\\", "b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}


class _Scan:
    def __init__(self, text):
        self.t = text
        self.i = 0
        self.starts = [m.end() for m in re.finditer("\n", text)]
        self.out = {}
        self.arrays = {}

    def where(self, i):
        """(line, column) of offset i, 1-based."""
        lo, hi = 0, len(self.starts)
        while lo < hi:  # the newlines before i
            mid = (lo + hi) // 2
            if self.starts[mid] <= i:
                lo = mid + 1
            else:
                hi = mid
        return lo + 1, i - (self.starts[lo - 1] if lo else 0) + 1

    def blank(self, newlines=True):
        """Skip spaces, comments and (if newlines) line ends."""
        t = self.t
        while self.i < len(t):
            c = t[self.i]
            if c in " \t\r" or (newlines and c == "\n"):
                self.i += 1
            elif c == "#":
                end = t.find("\n", self.i)
                self.i = len(t) if end < 0 else end
            else:
                return

    def key(self):
        """A dotted key at the cursor: a tuple of its parts."""
        parts = []
        while True:
            self.i = _SPACE.match(self.t, self.i).end()
            c = self.t[self.i:self.i + 1]
            m = (_BASIC if c == '"' else _LITERAL if c == "'" else _BARE).match(self.t, self.i)
            if m is None:
                raise ValueError("no key at %d:%d" % self.where(self.i))
            s = m.group()
            parts.append(_unquote(s) if c == '"' else s[1:-1] if c == "'" else s)
            self.i = _SPACE.match(self.t, m.end()).end()
            if self.t[self.i:self.i + 1] != ".":
                return tuple(parts)
            self.i += 1

    def value(self, path):
        """Skip a value, noting the keys of inline tables inside it."""
        t = self.t
        c = t[self.i:self.i + 1]
        for pat in (_ML_BASIC, _ML_LITERAL, _BASIC, _LITERAL):
            m = pat.match(t, self.i)
            if m:
                self.i = m.end()
                return
        if c == "[":
            self.i += 1
            n = 0
            while True:
                self.blank()
                if t[self.i:self.i + 1] == "]":
                    self.i += 1
                    return
                self.value(path + (n,))
                n += 1
                self.blank()
                if t[self.i:self.i + 1] == ",":
                    self.i += 1
        elif c == "{":
            self.i += 1
            while True:
                self.blank(False)
                if t[self.i:self.i + 1] == "}":
                    self.i += 1
                    return
                self.pair(path)
                self.blank(False)
                if t[self.i:self.i + 1] == ",":
                    self.i += 1
        else:
            m = _SCALAR.match(t, self.i)
            self.i = m.end() if m else self.i + 1

    def pair(self, table):
        """key = value, noting where both are."""
        at = self.i
        path = table + self.key()
        self.i += 1  # "="
        self.i = _SPACE.match(self.t, self.i).end()
        line, col = self.where(at)
        self.out[path] = (line, col, self.where(self.i)[1])
        self.value(path)

    def run(self):
        t = self.t
        table = ()
        while True:
            self.blank()
            if self.i >= len(t):
                return self.out
            at = self.i
            if t.startswith("[[", self.i):
                self.i += 2
                name = self.key()
                n = self.arrays.get(name, -1) + 1
                self.arrays[name] = n
                table = name + (n,)
                self.i += 2
            elif t[self.i] == "[":
                self.i += 1
                table = self.key()
                self.i += 1
            else:
                self.pair(table)
                continue
            line, col = self.where(at)
            self.out.setdefault(table, (line, col, col))


def _unquote(s):
    """The text of a basic string key."""
    out = []
    i = 1
    while i < len(s) - 1:
        c = s[i]
        if c == "\\":
            e = s[i + 1]
            if e in "uU":
                n = 4 if e == "u" else 8
                out.append(chr(int(s[i + 2:i + 2 + n], 16)))
                i += 2 + n
                continue
            out.append(_ESCAPES.get(e, e))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def positions(text):
    """{key path: (line, key column, value column)} of a TOML text tomllib
    accepted; {} if this walk cannot follow it (then messages go without)."""
    try:
        return _Scan(text).run()
    except (ValueError, IndexError):
        return {}
