"""An object's YAML: rlsolve reads back the very values Python holds
(strings never retyped by YAML 1.1), and each line names its key path."""

import json
import subprocess

import pytest

from rlsolve._api import _flatten
from rlsolve._source import scalar, to_source

TRICKY = {
    "strings": {"sexagesimal": "1:0", "octal": "010", "switch": "on", "yes": "yes", "null": "null", "empty": "",
                "quote": 'say "hi"\n\ttab', "unicode": "GPU \u2014 \u00e9", "number": "12", "float": "1.5"},
    "numbers": {"int": 7, "neg": -3, "big": 2 ** 70, "float": 1e-05, "whole": 2.0, "exp": 1.5e300},
    "switches": {"t": True, "f": False, "none": None},
    "keys": {"on": 1, "a b": 2, "x.y": 3, "1": 4, "with:colon": 5},
    "lists": [[1, 2], [], {}, {"a": 1, "b": [{"c": "d"}]}, "s"],
    "empty": {},
}


def test_round_trip(rlsolve_module):
    src = to_source(TRICKY)
    proc = subprocess.run([rlsolve_module.binary_path(), "compose", "-"], input=src.text.encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.returncode == 0, proc.stderr.decode() + src.text
    got = json.loads(proc.stdout)["config"]
    want = json.loads(json.dumps(TRICKY))  # keys as strings, as both read them
    assert got == want, src.text
    # Each value's line, as rlsolve reports it, is the line the source says
    # holds its key path (a container's span starts at its first item).
    flat = _flatten(want)
    for path, rng in json.loads(proc.stdout)["positions"].items():
        if not isinstance(flat[path], (dict, list)):
            assert src.path_at(rng["start"]["line"]) == path, (path, rng)


def test_paths():
    src = to_source({"cluster": {"node_groups": [{"label": "a", "node_ranks": "0-1"}], "component_placement": {"actor": "all"}}})
    assert src.text.splitlines()[2] == '    - label: "a"'
    assert [src.path_at(i) for i in range(1, 7)] == [
        "cluster", "cluster.node_groups", "cluster.node_groups[0].label", "cluster.node_groups[0].node_ranks",
        "cluster.component_placement", "cluster.component_placement.actor"]
    assert src.path_at(0) is None and src.path_at(7) is None


@pytest.mark.parametrize("value,text", [(1e-05, "1.0e-05"), (float("inf"), ".inf"), (True, "true"), ("1:0", '"1:0"')])
def test_scalars(value, text):
    assert scalar(value) == text


def test_refused():
    with pytest.raises(TypeError):
        to_source([1, 2])
    loop = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="deeper than"):
        to_source(loop)
