"""A stand-in for the parts of Ray that rlsolve's driver uses, for its unit
tests: remote functions run at once in the caller, "on" the node their
scheduling strategy names (its IP and environment); actors run their
methods on threads, as a threaded actor does. Everything the driver asks
for is recorded in STATE for the tests to check."""

import concurrent.futures
import os
import threading

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=256)
_local = threading.local()


class _State:
    def reset(self, nodes, driver_ip, bundles=None):
        # nodes: [{"NodeID", "ip", "env": {...}, "gpus"}]; bundles: [(ip, gpu)]
        self.nodes = nodes
        self.driver_ip = driver_ip
        self.bundles = bundles or []
        self.actors = []  # (options, handle)
        self.killed = []
        self.pgs = []
        self.removed = []
        self.kv = {}
        self.init = None


STATE = _State()
STATE.reset([], "127.0.0.1")


class ObjectRef:
    def __init__(self, fut):
        self.fut = fut


def _done(value=None, exc=None):
    f = concurrent.futures.Future()
    if exc is not None:
        f.set_exception(exc)
    else:
        f.set_result(value)
    return ObjectRef(f)


def _where(opts):
    """The node (ip, env, gpu) a strategy puts work on."""
    s = opts.get("scheduling_strategy")
    if s is None:
        return STATE.driver_ip, {}, None
    if hasattr(s, "node_id"):
        n = next(n for n in STATE.nodes if n["NodeID"] == s.node_id)
        return n["ip"], n.get("env", {}), None
    ip, gpu = STATE.bundles[s.placement_group_bundle_index]
    return ip, {}, gpu


def _run_on(where, fn, *args):
    ip, env, gpu = where
    prev = getattr(_local, "where", None)
    _local.where = (ip, env, gpu)
    try:
        return fn(*args)
    finally:
        _local.where = prev


def current_ip():
    w = getattr(_local, "where", None)
    return w[0] if w else STATE.driver_ip


def get_gpu_ids():
    w = getattr(_local, "where", None)
    return [w[2]] if w and w[2] is not None else []


class _RemoteFunction:
    def __init__(self, fn, opts):
        self.fn, self.opts = fn, opts

    def options(self, **kw):
        return _RemoteFunction(self.fn, {**self.opts, **kw})

    def remote(self, *args):
        where = _where(self.opts)
        saved = dict(os.environ)
        os.environ.update(where[1])
        try:
            return _done(_run_on(where, self.fn, *args))
        except Exception as e:
            return _done(exc=e)
        finally:
            os.environ.clear()
            os.environ.update(saved)


class _Method:
    def __init__(self, handle, name):
        self.handle, self.name = handle, name

    def remote(self, *args):
        h = self.handle
        if h.dead:
            return _done(exc=RuntimeError("the actor is dead"))
        return ObjectRef(_pool.submit(_run_on, h.where, getattr(h.obj, self.name), *args))


class ActorHandle:
    def __init__(self, cls, opts, args):
        self.opts = opts
        self.where = _where(opts)
        self.obj = _run_on(self.where, cls, *args)
        self.dead = False

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Method(self, name)


class _ActorClass:
    def __init__(self, cls, opts):
        self.cls, self.opts = cls, opts

    def options(self, **kw):
        return _ActorClass(self.cls, {**self.opts, **kw})

    def remote(self, *args):
        h = ActorHandle(self.cls, self.opts, args)
        STATE.actors.append((self.opts, h))
        return h


def remote(*args, **kw):
    def wrap(x):
        return _ActorClass(x, kw) if isinstance(x, type) else _RemoteFunction(x, kw)

    if len(args) == 1 and not kw and callable(args[0]):
        return wrap(args[0])
    return wrap


def init(**kw):
    STATE.init = kw


def nodes():
    return [{"NodeID": n["NodeID"], "Alive": n.get("alive", True), "NodeManagerAddress": n["ip"],
             "Resources": {"GPU": float(n.get("gpus", 0))}} for n in STATE.nodes]


def get(ref, timeout=None):
    if isinstance(ref, list):
        return [get(r, timeout) for r in ref]
    return ref.fut.result(timeout)


def wait(refs, num_returns=1, timeout=None):
    done, _ = concurrent.futures.wait([r.fut for r in refs], timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED)
    ready = [r for r in refs if r.fut in done][:num_returns]
    return ready, [r for r in refs if r not in ready]


def kill(actor, no_restart=True):
    STATE.killed.append((actor, no_restart))
    actor.dead = True


class _Context:
    def get_job_id(self):
        return "01000000"


def get_runtime_context():
    return _Context()


from . import util  # noqa: E402  (util needs the names above)
