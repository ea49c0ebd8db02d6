"""Rule files (TOML) and the `--rules PRESET|FILE` argument, to a Ruleset.

A rule file starts from a preset and overrides parameters by name:

    base = "chengdu"          # required: the preset to start from
    name = "chengdu-16"       # optional: ruleset name (default: the file's stem)
    cap = 4                   # any parameter of sichuan.ruleset by name
    [fan]                     # pattern values in doublings (or fan.qingyise = 3)
    qingyise = 3
    menqing = "none"          # the pattern does not exist in this ruleset

    [pattern.yitiaolong]      # a house pattern of the file's own (housepat,
    name = "一条龙"            #   docs/patterns.md)
    fan = 1
    straight = true

Values are integers; a 0/1 parameter also takes true/false; a fan value also
takes "none" (no such pattern) or "cap" (满格: worth the cap itself); `cap`
also takes "none" (no cap). An unknown key or a bad value is a BadInput
error naming the file, the line and column (tomlpos) and the key (with the
nearest names for a typo); a long value is cut in the message. `base` may
also name another rule file (relative to this one). Preset names match
case-insensitively, `-` and `_` alike. A file may start with a UTF-8 BOM.
Warnings (a pattern above the cap, or one the cap makes worthless) go to
stderr as `mjtable: warning: FILE:LINE:COL: ...` and change nothing.

Every ruleset `load` returns is playable (the core's ruleset.playable, the
check the table makes when a ruleset is pushed): one check for every command.
"""

import difflib
import os
import re
import sys
import tomllib

from sichuan import ruleset

from mjtable import BadInput
from mjtable.rules import housepat, tomlpos
from mjtable.rules.housepat import short

# Reserved top-level keys; everything else must be a parameter name.
_META = ("base", "name", "pattern")


def _presets():
    from sichuan import presets  # late: lets `rules` errors point at a missing core

    return presets


def _fold(name):
    """A preset name as it is matched: case and `-`/`_` do not matter."""
    return name.lower().replace("_", "-")


def _did_you_mean(word, choices, cutoff=0.6):
    """` (did you mean 'x'?)` for the choices near word, else ``."""
    near = difflib.get_close_matches(word, choices, n=3, cutoff=cutoff)
    return " (did you mean %s?)" % " or ".join(repr(c) for c in near) if near else ""


def preset_name(name):
    """The preset's own spelling of a name (`TFMJ_2024` -> `tfmj-2024`), or None."""
    for n in _presets().names():
        if _fold(n) == _fold(name):
            return n
    return None


def preset(name):
    """Ruleset of a preset name; BadInput listing the names if unknown."""
    p = _presets()
    real = preset_name(name)
    if real is None:
        folded = {_fold(n): n for n in p.names()}
        near = difflib.get_close_matches(_fold(name), list(folded), n=3, cutoff=0.6)
        raise BadInput("unknown preset %r%s (presets: %s)" % (
            name, _did_you_mean(name, [folded[n] for n in near], 0), ", ".join(p.names())))
    return p.get(real)


def _all_keys():
    keys = [ruleset.param_name(pid) for pid in range(ruleset.P_FAN0)]
    return keys + ["fan." + pat for pat in ruleset.PATTERNS] + list(_META)


def _value(where, pid, v):
    """Integer value of TOML value v for parameter pid; BadInput naming `where`."""
    lo, hi = ruleset.bounds(pid)
    if isinstance(v, bool):
        if (lo, hi) != (0, 1):
            raise BadInput("%s: true/false is only for 0/1 parameters (range %d..%d)"
                           % (where, lo, hi))
        return int(v)
    if isinstance(v, str):
        word = v.strip().lower()
        if (lo, hi) == (0, 1) and word in ("yes", "no", "on", "off", "true", "false"):
            raise BadInput("%s: %s is a string; write true or false (no quotes), or 1 or 0"
                           % (where, short(v)))
        if pid >= ruleset.P_FAN0 and word == "none":
            return ruleset.NONE
        if pid >= ruleset.P_FAN0 and word == "cap":
            return ruleset.AT_CAP
        if pid == ruleset.P_CAP and word == "none":
            return -1
        raise BadInput("%s: %s is not a valid value (expected an integer %d..%d)"
                       % (where, short(v), lo, hi))
    if isinstance(v, (list, dict)):
        raise BadInput("%s: %s: one value, not a %s (expected an integer %d..%d)"
                       % (where, short(v), "list" if isinstance(v, list) else "table", lo, hi))
    if not isinstance(v, int):
        raise BadInput("%s: %s is not an integer" % (where, short(v)))
    if v < lo or v > hi:
        raise BadInput("%s: %s is out of range %d..%d" % (where, short(v), lo, hi))
    return v


def _unknown(key):
    """The message for a key that is no parameter."""
    if key.startswith("fan."):
        pat = key[4:]
        return ("unknown key %s%s: no built-in pattern has that id (built-in: %s); a pattern"
                " of your own goes in its own table, [pattern.%s] (docs/patterns.md)" % (
                    short(key), _did_you_mean(key, ["fan." + p for p in ruleset.PATTERNS]),
                    " ".join(ruleset.PATTERNS), short(pat, 20).strip("'")))
    return "unknown key %s%s" % (short(key), _did_you_mean(key, _all_keys()))


class _Where:
    """Message prefixes naming where a key is: `FILE:LINE:COL: ` (the value's
    column; the key's for a key that is wrong), else `FILE: `."""

    def __init__(self, source, text):
        self.source = source
        self.text = text
        self.pos = None
        self.warnings = []

    def __call__(self, path, of_key=False):
        if self.pos is None:
            self.pos = tomlpos.positions(self.text) if self.text is not None else {}
        for n in range(len(path), 0, -1):  # the key, else the table it is in
            at = self.pos.get(tuple(path[:n]))
            if at is not None:
                col = at[1] if of_key or n < len(path) else at[2]
                return "%s:%d:%d: " % (self.source, at[0], col)
        return "%s: " % self.source

    def error(self, path, msg, of_key=False):
        raise BadInput(self(path, of_key) + msg)

    def warn(self, path, msg):
        self.warnings.append(self(path, True) + msg)


def _flatten(table, prefix=""):
    """[(dotted key, value)] of a TOML table, nested tables flattened."""
    out = []
    for k, v in table.items():
        key = prefix + k
        if isinstance(v, dict):
            out.extend(_flatten(v, key + "."))
        else:
            out.append((key, v))
    return out


def _base(data, source, chain, at=None):
    """The ruleset `base =` names: a preset, or a rule file relative to `source`."""
    base = data.get("base")
    if base is None:
        raise BadInput('%s: missing key "base" (the preset to start from, e.g. base = "xuezhan")'
                       % source)
    if not isinstance(base, str):
        raise BadInput("%sbase: expected a preset name or a rule file, got %s"
                       % (at(("base",)) if at else source + ": ", short(base)))
    path = os.path.join(os.path.dirname(source), base) if chain else base
    if preset_name(base) is None and (base.endswith(".toml") or os.path.isfile(path)):
        real = os.path.realpath(path)
        if real in chain:
            raise BadInput("%s: base: %s is a loop (%s)" % (
                source, base, " -> ".join(list(chain.values()) + [path])))
        chain[real] = path
        return _load_toml(path, chain)
    try:
        return preset(base)
    except BadInput as e:
        raise BadInput("%sbase: %s" % (at(("base",)) if at else source + ": ", e)) from None


def from_toml(data, source="<rules>", default_name=None, chain=None, text=None,
              warnings=None):
    """Ruleset of a parsed TOML document (dict). `source` names it in errors;
    text: the document's text, so that errors name the line; chain: {real
    path: path} of the rule files being read (`base =` loops); warnings: a
    list that gets the warnings' texts."""
    at = _Where(source, text)
    rs = _base(data, source, chain if chain is not None else {}, at).copy()
    if "fan" in data and not isinstance(data["fan"], dict):
        at.error(("fan",), "fan: expected a table of pattern values ([fan] then qingyise = 2,"
                 " or fan.qingyise = 2), got %s" % short(data["fan"]))
    name = data.get("name", default_name or rs.name)
    if not isinstance(name, str) or not 1 <= len(name.encode()) <= 32:
        at.error(("name",), "name: expected a string of 1..32 bytes, got %s" % short(name))
    rs.name = name
    set_keys = set()
    for key, v in _flatten({k: v for k, v in data.items() if k not in _META}):
        path = tuple(key.split("."))
        try:
            pid = ruleset.param_id(key)
        except KeyError:
            pid = None
        if pid is None:
            at.error(path, _unknown(key), of_key=True)
        rs.set(pid, _value(at(path) + key, pid, v))
        set_keys.add(pid)
    if "pattern" in data:
        housepat.Compiler(rs, at.error, at.warn, set_keys).compile(data["pattern"])
    _cap_warnings(rs, at, set_keys)
    if warnings is not None:
        warnings.extend(at.warnings)
    return rs


def _cap_warnings(rs, at, set_keys):
    """A built-in the file values above the cap, or a cap the file sets below one."""
    cap = rs[ruleset.P_CAP]
    if cap < 0:
        return
    for i, pat in enumerate(ruleset.PATTERNS):
        pid = ruleset.P_FAN0 + i
        v = rs[pid]
        if v == ruleset.NONE or v == ruleset.AT_CAP or v <= cap:
            continue
        if pid in set_keys:
            at.warn(("fan", pat), "fan.%s = %d is above cap = %d: a win of it pays %d"
                    % (pat, v, cap, cap))
        elif ruleset.P_CAP in set_keys:
            at.warn(("cap",), "cap = %d is below fan.%s = %d: a win of it pays %d"
                    % (cap, pat, v, cap))


def _read_toml(path):
    """(parsed dict, text) of a rule file."""
    try:
        with open(path, "rb") as f:
            # utf-8-sig: Windows Notepad starts a UTF-8 file with a BOM
            text = f.read().decode("utf-8-sig")
        return tomllib.loads(text), text
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput(_syntax(path, str(e))) from None
    except UnicodeDecodeError as e:  # a GBK file from a Chinese editor, say
        raise BadInput("%s: not UTF-8 text (byte %d); save it as UTF-8" % (path, e.start)) from None


def _syntax(path, msg):
    """`FILE:LINE:COL: not valid TOML: ...` of tomllib's `... (at line L, column C)`."""
    m = re.search(r" \(at line (\d+), column (\d+)\)$", msg)
    if m:
        return "%s:%s:%s: not valid TOML: %s" % (path, m.group(1), m.group(2), msg[:m.start()])
    return "%s: not valid TOML: %s" % (path, msg)


def _load_toml(path, chain):
    if not os.path.isfile(path):
        raise BadInput("rule file %r not found" % path)
    chain.setdefault(os.path.realpath(path), path)
    stem = os.path.splitext(os.path.basename(path))[0]
    data, text = _read_toml(path)
    warnings = []
    rs = from_toml(data, path, stem.encode()[:32].decode("utf-8", "ignore") or None, chain,
                   text, warnings)
    for w in warnings:
        _warn(w)
    return rs


_said = set()


def _warn(text):
    """A warning on stderr, once per run (a batch loads a file once, a base
    file may be read by several)."""
    if text not in _said:
        _said.add(text)
        print("mjtable: warning: " + text, file=sys.stderr)


def load_toml(path):
    """Ruleset of a TOML rule file; BadInput naming the file, line and key."""
    return _load_toml(path, {})


def load_blob(path):
    """Ruleset of a compiled blob (`rules compile` output)."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    try:
        return ruleset.from_blob(blob)
    except ValueError as e:
        raise BadInput("%s: %s" % (path, e)) from None


def _load_any(spec):
    if os.path.isdir(spec):
        raise BadInput("%s is a directory; --rules takes a preset name, a .toml rule file or"
                       " a compiled blob" % spec)
    if os.path.isfile(spec):
        with open(spec, "rb") as f:
            magic = f.read(2)
        return load_blob(spec) if magic == b"SR" else load_toml(spec)
    if spec.endswith((".toml", ".bin")) or os.sep in spec:
        raise BadInput("rule file %r not found" % spec)
    return preset(spec)


def load(spec):
    """Ruleset of `--rules SPEC`: a preset name, a .toml file or a compiled blob.
    BadInput if no hand can be played under it (the reason `rules push` gives)."""
    if spec is None:
        spec = "xuezhan"
    rs = _load_any(spec)
    ok, why = ruleset.playable(rs)
    if not ok:
        raise BadInput("%s: %s" % (spec, why))
    return rs


def base_of(spec):
    """The ruleset a rule file starts from (its `base`), or None for a preset or a blob."""
    if spec is None or not os.path.isfile(spec):
        return None
    with open(spec, "rb") as f:
        if f.read(2) == b"SR":
            return None
    return _base(_read_toml(spec)[0], spec, {os.path.realpath(spec): spec})
