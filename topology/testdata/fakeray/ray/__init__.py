"""A stand-in for ray, to test python/probe.py without a cluster.

FAKE_RAY_NODES is a JSON list of nodes: {"id", "ip", "env" (the raylet's environment),
"alive" (default true), "hang" (its task never answers)}. A task runs in this process, on the
node its hard NodeAffinity names, with that node's environment; anything else is refused the way
the probe must never need (soft affinity, CPUs reserved, no ray.init first).
"""

import json
import os

from . import util

_nodes = {n["id"]: n for n in json.loads(os.environ["FAKE_RAY_NODES"])}
_initialised = []


class GetTimeoutError(Exception):
    pass


def init(address=None, **kwargs):
    assert address == "auto", "the probe joins the running cluster"
    _initialised.append(address)


def nodes():
    assert _initialised, "ray.nodes() before ray.init()"
    return [{"NodeID": n["id"], "Alive": n.get("alive", True), "NodeManagerAddress": n["ip"]} for n in _nodes.values()]


class _Ref:
    def __init__(self, value=None, error=None):
        self.value, self.error = value, error


class _Remote:
    def __init__(self, fn, num_cpus, pin=None):
        self.fn, self.num_cpus, self.pin = fn, num_cpus, pin

    def options(self, scheduling_strategy=None):
        return _Remote(self.fn, self.num_cpus, scheduling_strategy)

    def remote(self):
        assert self.num_cpus == 0, "the probe must reserve no CPU"
        assert self.pin is not None and self.pin.soft is False, "the probe must be pinned hard"
        node = _nodes[self.pin.node_id]
        if node.get("hang"):
            return _Ref(error=GetTimeoutError("Get timed out: some object(s) not ready."))
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(node.get("env", {}))
        util._current_ip = node["ip"]
        try:
            return _Ref(value=self.fn())
        finally:
            os.environ.clear()
            os.environ.update(saved)


def remote(num_cpus=None, **kwargs):
    return lambda fn: _Remote(fn, num_cpus)


def get(ref, timeout=None):
    assert timeout is not None, "the probe must not wait forever"
    if ref.error is not None:
        raise ref.error
    return ref.value
