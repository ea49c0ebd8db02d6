"""Rule files (TOML) and the `--rules PRESET|FILE` argument, to a Ruleset.

A rule file starts from a preset and overrides parameters by name:

    base = "chengdu"          # required: the preset to start from
    name = "chengdu-16"       # optional: ruleset name (default: the file's stem)
    cap = 4                   # any parameter of sichuan.ruleset by name
    [fan]                     # pattern values in doublings (or fan.qingyise = 3)
    qingyise = 3
    menqing = "none"          # the pattern does not exist in this ruleset

Values are integers; a 0/1 parameter also takes true/false; a fan value also
takes "none" (no such pattern) or "cap" (满格: worth the cap itself); `cap`
also takes "none" (no cap). An unknown key or a bad value is a BadInput
error naming the file and the key (with the nearest names for a typo).
`base` may also name another rule file (relative to this one). Preset names
match case-insensitively, `-` and `_` alike. A file may start with a UTF-8 BOM.

Every ruleset `load` returns is playable (the core's ruleset.playable, the
check the table makes when a ruleset is pushed): one check for every command.
"""

import difflib
import os
import tomllib

from sichuan import ruleset

from mjtable import BadInput

# Reserved top-level keys; everything else must be a parameter name.
_META = ("base", "name")


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
            raise BadInput("%s: %r is a string; write true or false (no quotes), or 1 or 0"
                           % (where, v))
        if pid >= ruleset.P_FAN0 and word == "none":
            return ruleset.NONE
        if pid >= ruleset.P_FAN0 and word == "cap":
            return ruleset.AT_CAP
        if pid == ruleset.P_CAP and word == "none":
            return -1
        raise BadInput("%s: %r is not a valid value (expected an integer %d..%d)"
                       % (where, v, lo, hi))
    if isinstance(v, (list, dict)):
        raise BadInput("%s: %r: one value, not a %s (expected an integer %d..%d)"
                       % (where, v, "list" if isinstance(v, list) else "table", lo, hi))
    if not isinstance(v, int):
        raise BadInput("%s: %r is not an integer" % (where, v))
    if v < lo or v > hi:
        raise BadInput("%s: %d is out of range %d..%d" % (where, v, lo, hi))
    return v


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


def _base(data, source, chain):
    """The ruleset `base =` names: a preset, or a rule file relative to `source`."""
    base = data.get("base")
    if base is None:
        raise BadInput('%s: missing key "base" (the preset to start from, e.g. base = "xuezhan")'
                       % source)
    if not isinstance(base, str):
        raise BadInput("%s: base: expected a preset name or a rule file, got %r" % (source, base))
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
        raise BadInput("%s: base: %s" % (source, e)) from None


def from_toml(data, source="<rules>", default_name=None, chain=None):
    """Ruleset of a parsed TOML document (dict). `source` names it in errors;
    chain: {real path: path} of the rule files being read (`base =` loops)."""
    rs = _base(data, source, chain if chain is not None else {}).copy()
    if "fan" in data and not isinstance(data["fan"], dict):
        raise BadInput("%s: fan: expected a table of pattern values ([fan] then qingyise = 2,"
                       " or fan.qingyise = 2), got %r" % (source, data["fan"]))
    name = data.get("name", default_name or rs.name)
    if not isinstance(name, str) or not 1 <= len(name.encode()) <= 32:
        raise BadInput("%s: name: expected a string of 1..32 bytes, got %r" % (source, name))
    rs.name = name
    for key, v in _flatten({k: v for k, v in data.items() if k not in _META}):
        try:
            pid = ruleset.param_id(key)
        except KeyError:
            raise BadInput("%s: unknown key %r%s" % (source, key, _did_you_mean(
                key, _all_keys()))) from None
        rs.set(pid, _value("%s: %s" % (source, key), pid, v))
    return rs


def _read_toml(path):
    try:
        with open(path, "rb") as f:
            # utf-8-sig: Windows Notepad starts a UTF-8 file with a BOM
            return tomllib.loads(f.read().decode("utf-8-sig"))
    except OSError as e:
        raise BadInput("%s: cannot read: %s" % (path, e.strerror or e)) from None
    except tomllib.TOMLDecodeError as e:
        raise BadInput("%s: not valid TOML: %s" % (path, e)) from None
    except UnicodeDecodeError as e:  # a GBK file from a Chinese editor, say
        raise BadInput("%s: not UTF-8 text (byte %d); save it as UTF-8" % (path, e.start)) from None


def _load_toml(path, chain):
    if not os.path.isfile(path):
        raise BadInput("rule file %r not found" % path)
    chain.setdefault(os.path.realpath(path), path)
    stem = os.path.splitext(os.path.basename(path))[0]
    return from_toml(_read_toml(path), path, stem.encode()[:32].decode("utf-8", "ignore") or None,
                     chain)


def load_toml(path):
    """Ruleset of a TOML rule file; BadInput naming the file and the key."""
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
    return _base(_read_toml(spec), spec, {os.path.realpath(spec): spec})
