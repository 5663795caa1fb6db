"""A config object as YAML text for rlsolve's standard input, and which key
path each line of that text holds.

The text is what rlsolve reads; the key paths are what a user of a dict or
an OmegaConf object knows, since such an object has no file and no lines.
Strings are always double-quoted (JSON's escapes are YAML's), so that none
is read as YAML 1.1 reads plain text (`1:0` as 60, `on` as True): the
object's values reach rlsolve as Python holds them.
"""

import json
import math
import re

# Deeper than any config; a dict that holds itself would never end.
MAX_DEPTH = 64

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
# Words YAML 1.1 reads as booleans or null even as keys.
_Y11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


class Source(object):
    """YAML text and, for each line (from 1), the key path it holds."""

    def __init__(self, text, paths):
        self.text = text
        self.paths = paths

    def path_at(self, line):
        """The key path of a 1-based line, or None outside the text."""
        if line is None or line < 1 or line > len(self.paths):
            return None
        return self.paths[line - 1]


def to_source(cfg):
    """YAML for a mapping of plain Python values (dict, list, str, int,
    float, bool, None); other leaves are written as their str()."""
    if not isinstance(cfg, dict):
        raise TypeError("a config must be a mapping, not %s" % type(cfg).__name__)
    lines = []
    _mapping(cfg, "", 0, lines, 0)
    text = "".join(line + "\n" for line, _ in lines)
    return Source(text, [path for _, path in lines])


def key_path(parent, key):
    """OmegaConf's form of a key path: a.b for keys, a[0] for list items."""
    if isinstance(key, int) and not isinstance(key, bool):
        return "%s[%d]" % (parent, key)
    return "%s.%s" % (parent, key) if parent else str(key)


def _mapping(d, path, indent, lines, depth):
    _deep(depth, path)
    pad = " " * indent
    for k, v in d.items():
        p = key_path(path, str(k))
        head = pad + _key(k) + ":"
        if isinstance(v, dict) and v:
            lines.append((head, p))
            _mapping(v, p, indent + 2, lines, depth + 1)
        elif isinstance(v, (list, tuple)) and v:
            lines.append((head, p))
            _sequence(v, p, indent + 2, lines, depth + 1)
        else:
            lines.append((head + " " + scalar(v), p))


def _sequence(items, path, indent, lines, depth):
    _deep(depth, path)
    pad = " " * indent
    for i, v in enumerate(items):
        p = key_path(path, i)
        if isinstance(v, dict) and v:
            # The first key shares the dash's line: "- a: 1".
            first = len(lines)
            _mapping(v, p, indent + 2, lines, depth + 1)
            lines[first] = (pad + "- " + lines[first][0][indent + 2:], lines[first][1])
        elif isinstance(v, (list, tuple)) and v:
            lines.append((pad + "-", p))
            _sequence(v, p, indent + 2, lines, depth + 1)
        else:
            lines.append((pad + "- " + scalar(v), p))


def _deep(depth, path):
    if depth > MAX_DEPTH:
        raise ValueError("the config nests deeper than %d levels at %s (does it hold itself?)" % (MAX_DEPTH, path))


def _key(k):
    s = str(k)
    if _PLAIN_KEY.match(s) and s.lower() not in _Y11_WORDS:
        return s
    return json.dumps(s, ensure_ascii=False)


def scalar(v):
    """A leaf as YAML 1.1 text that PyYAML reads back as the same value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, (list, tuple)):
        return "[]"
    return json.dumps(str(v), ensure_ascii=False)


def _float(f):
    if math.isnan(f):
        return ".nan"
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    r = repr(f)
    # YAML 1.1 reads a float only with a dot: 1e-05 would be a string.
    mant, e, exp = r.partition("e")
    if "." not in mant:
        mant += ".0"
    if e and exp[0] not in "+-":
        exp = "+" + exp
    return mant + e + exp
