"""check_cluster and plan: the bundled binary, the config on its standard
input, its JSON read back. Nothing is written to disk."""

import json
import os
import re

from rlsolve import _binary
from rlsolve._result import PlacementError, Position, Result, RlsolveError, diagnostics_from
from rlsolve._source import key_path, to_source

STDIN = "<stdin>"


def check_cluster(cfg, *, inventory=None, mode=None, strict=True, config_file=None, overrides=(), args=()):
    """Checks a config's placement as `rlsolve check` does.

    cfg is a dict, an OmegaConf DictConfig (resolved first) or a path.
    inventory is a path, a dict (an inventory file's content) or a ray://
    address. mode is check's --mode (hybrid, model-parallel, ...). With
    strict, an invalid placement raises PlacementError, whose message is the
    report; otherwise the Result says so. config_file and overrides name the
    file and Hydra overrides an object was composed from: positions then
    point into that file where the object's value is the composed one.
    args are more of check's flags (["--gpus-per-node", "4"]).
    """
    req = _Request(cfg, inventory, mode, config_file, overrides, args)
    code, out, err = req.run("check", ["--output", "json"])
    if code not in (0, 1):
        raise RlsolveError(req.relabel(err or out).strip(), code)
    envelope = json.loads(out)
    _, _, text = req.run("check", [])
    text = req.relabel(text)
    result = Result(ok=bool(envelope.get("valid")), diagnostics=diagnostics_from(envelope, req.locate), text=text)
    if strict and not result.ok:
        raise PlacementError(text.rstrip(), code, result)
    return result


def plan(cfg, *, inventory=None, mode=None, config_file=None, overrides=(), args=()):
    """The plan document (`rlsolve plan --output json`) as a dict: every
    worker's node, GPUs and environment. An invalid placement has no plan:
    it raises PlacementError with the report. Arguments as check_cluster's.
    """
    req = _Request(cfg, inventory, mode, config_file, overrides, args)
    code, out, err = req.run("plan", ["--output", "json"])
    if code == 1:
        raise PlacementError(req.relabel(err).rstrip(), code)
    if code != 0:
        raise RlsolveError(req.relabel(err or out).strip(), code)
    return json.loads(out)


class _Request(object):
    """One config to judge: the command line and standard input that give it
    to rlsolve, and how to turn rlsolve's positions into the caller's."""

    def __init__(self, cfg, inventory, mode, config_file, overrides, args):
        self.flags = list(args)
        if mode is not None:
            self.flags += ["--mode", str(mode)]
        self.overrides = [str(o) for o in overrides]
        self.source = None  # the object's YAML, when cfg is one
        self.stdin = None
        self.composed = None  # rlsolve's composition of config_file
        obj = _plain(cfg)
        if isinstance(inventory, dict):
            if obj is None:
                raise TypeError("an inventory given as a dict needs the config as an object, not a path")
            obj = dict(obj)
            obj["inventory"] = inventory.get("inventory", inventory)
        elif inventory is not None:
            self.flags += ["--inventory", os.fspath(inventory)]
        if obj is None:
            self.target = [os.fspath(cfg)] + self.overrides
            return
        if config_file is not None:
            self.composed = _compose(os.fspath(config_file), self.overrides)
            if _same(self.composed.config, obj):
                # The object is the file as composed: check the file, whose
                # positions, frames and fixes are the user's own.
                self.target = [os.fspath(config_file)] + self.overrides
                return
        self.source = to_source(obj)
        self.stdin = self.source.text
        self.flat = _flatten(obj)
        self.target = ["-"]

    def run(self, command, output):
        return _binary.run([command] + self.target + self.flags + output, stdin=self.stdin)

    def locate(self, rng):
        """A JSON range as a Position: in the object's case, its key path,
        and the composed file's position where the value came from there."""
        if not rng:
            return None
        start, end = rng.get("start") or {}, rng.get("end") or {}
        pos = Position(rng.get("filename"), start.get("line"), start.get("column"), end.get("line"), end.get("column"))
        if self.source is None or pos.file != STDIN:
            return pos
        path = self.source.path_at(pos.line)
        if path is None:
            return Position(key_path=None, file=STDIN, line=pos.line, column=pos.column)
        origin = self._origin(path)
        if origin is not None:
            return Position(origin.file, origin.line, origin.column, origin.end_line, origin.end_column, key_path=path)
        return Position(key_path=path)

    def _origin(self, path):
        c = self.composed
        if c is None or path not in c.positions or path not in c.flat or path not in self.flat:
            return None
        if not _same(c.flat[path], self.flat[path]):
            return None  # changed after composition: the file does not hold it
        return c.positions[path]

    def relabel(self, text):
        """The report with each `--> <stdin>:L:C` naming the key path (and
        the composed file's position, where known)."""
        if self.source is None:
            return text

        def repl(m):
            pos = self.locate({"filename": STDIN, "start": {"line": int(m.group(2)), "column": int(m.group(3))}})
            return "%s--> %s" % (m.group(1), pos) if pos and pos.key_path else m.group(0)

        return _ARROW.sub(repl, text)


_ARROW = re.compile(r"^( *)--> " + re.escape(STDIN) + r":(\d+):(\d+)", re.M)


class _Composed(object):
    def __init__(self, doc):
        self.config = doc.get("config") or {}
        self.flat = _flatten(self.config)
        self.positions = {}
        for path, rng in (doc.get("positions") or {}).items():
            start, end = rng.get("start") or {}, rng.get("end") or {}
            self.positions[path] = Position(rng.get("filename"), start.get("line"), start.get("column"),
                                            end.get("line"), end.get("column"))


def _compose(config_file, overrides):
    code, out, err = _binary.run(["compose", config_file] + overrides)
    if code != 0:
        raise RlsolveError(err.strip(), code)
    return _Composed(json.loads(out))


def _plain(cfg):
    """cfg as plain Python values, or None for a path."""
    if isinstance(cfg, (str, bytes, os.PathLike)):
        return None
    if type(cfg).__module__.split(".")[0] == "omegaconf":
        from omegaconf import OmegaConf  # only for an object OmegaConf made

        cfg = OmegaConf.to_container(cfg, resolve=True)
    if not isinstance(cfg, dict):
        raise TypeError("cfg must be a dict, an OmegaConf DictConfig or a path, not %s" % type(cfg).__name__)
    return cfg


def _flatten(value, path="", out=None):
    """Every value of a config by its key path (containers too)."""
    out = {} if out is None else out
    if path:
        out[path] = value
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(v, key_path(path, str(k)), out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flatten(v, key_path(path, i), out)
    return out


def _same(a, b):
    """Equal as Python values, where True is not 1 and keys are strings."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(str(k) in _strkeys(b) and _same(v, _strkeys(b)[str(k)]) for k, v in a.items())
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, list, tuple)) or isinstance(b, (dict, list, tuple)):
        return False
    return a == b


def _strkeys(d):
    return {str(k): v for k, v in d.items()}
