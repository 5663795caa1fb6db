"""rlsolve's Ray launch driver.

`rlsolve launch --backend ray` submits this file, with the launch's plan as
plan.json beside it, as a Ray job (docs/ray.md). It does on Ray what the
local backend does on one machine: start one actor per worker where the
plan says, run the worker's program as the actor's child, forward its lines
prefixed "component/rank: ", stop everything when one worker fails or the
job is stopped, and print one report line. RLinf mode pins named actors to
nodes as RLinf's Cluster does; slime mode places them on the bundles of one
PACK placement group as slime does.

Lines that start with MARK are the driver's events for rlsolve; every other
line is a worker's (prefixed) or Ray's own.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

MARK = "rlsolve-ray-event: "
# How many lines one read hands back, so that a chatty worker cannot make
# one reply unbounded.
READ_BATCH = 2000
# The longest line forwarded whole; longer ones are cut into pieces.
MAX_LINE = 64 * 1024
PR_SET_PDEATHSIG = 1


class LaunchError(Exception):
    """The launch cannot go on (the cluster is not the plan's): no worker starts."""


def emit(kind, out=None, **fields):
    """Prints one event line for rlsolve."""
    fields["event"] = kind
    out = out or sys.stdout
    out.write(MARK + json.dumps(fields, sort_keys=True) + "\n")
    out.flush()


# ---- the cluster's nodes, and slime's bundle order ----


def check_nodes(ray_nodes, plan_nodes, used):
    """Raises LaunchError unless every plan node a worker is pinned to
    (indices in used) is an alive Ray node with the plan's IP and GPU count.
    rlsolve matched the plan's nodes to these node ids, in RLinf's order,
    before it submitted the job (its preflight, with topology's rules over
    each raylet's RLINF_NODE_RANK); this only sees that they are still
    there. ray_nodes is what ray.nodes() returns."""
    by_id = {n["NodeID"]: n for n in ray_nodes if n.get("Alive")}
    problems = []
    for i in sorted(used):
        want = plan_nodes[i]
        n = by_id.get(want.get("node_id"))
        gpus = int(n.get("Resources", {}).get("GPU", 0)) if n else 0
        if n is None:
            problems.append("node %d (%s) is no longer alive (Ray node %s)" % (i, want["ip"], want.get("node_id") or "unknown"))
        elif n.get("NodeManagerAddress") != want["ip"]:
            problems.append("node %d: Ray node %s is at %s, the plan's node at %s" % (i, want["node_id"], n.get("NodeManagerAddress"), want["ip"]))
        elif gpus != want["gpus"]:
            problems.append("node %d (%s) has %d GPU(s), the plan's %d" % (i, want["ip"], gpus, want["gpus"]))
    if problems:
        raise LaunchError("the cluster changed since rlsolve checked it: %s; launch again" % "; ".join(problems))


def ip_key(ip):
    """slime's bundle sort key for an address: its IPv4 octets as integers
    (anything else sorts after, as a string)."""
    parts = ip.split(".")
    if len(parts) == 4 and all(p.isdigit() for p in parts):
        return (0, tuple(int(p) for p in parts), "")
    return (1, (), ip)


def sort_bundles(probes):
    """slime's order of a placement group's bundles: probes[i] is bundle i's
    (node IP, GPU id); the result lists bundle indices by (IP octets, GPU id)."""
    return sorted(range(len(probes)), key=lambda i: (ip_key(probes[i][0]), probes[i][1]))


def worker_env(plan_env, extra=None):
    """A worker's variables: the plan's, with Ray told to leave
    CUDA_VISIBLE_DEVICES alone (the plan chose the GPUs), and extra."""
    env = dict(plan_env)
    env["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] = "1"
    env.update(extra or {})
    return env


def set_master(workers, addr, port):
    """Gives every worker of a component rank 0's address and port."""
    for w in workers:
        w["env"]["MASTER_ADDR"] = addr
        w["env"]["MASTER_PORT"] = str(port)


# ---- the actor: one worker's program ----


def _child_setup():
    """In the child, before exec: take SIGINT and SIGQUIT again (Ray's
    workers ignore and block them, and both are inherited: a forwarded
    Ctrl-C would never arrive), and die with the thread that started it, so
    a killed actor cannot leave its program running."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGQUIT})
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for sig in (signal.SIGINT, signal.SIGQUIT):
            libc.signal(int(sig), ctypes.c_void_p(0))  # SIG_DFL
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except Exception:
        pass


class Runner:
    """Runs one worker's program as its child, in a session of its own, and
    hands its lines and exit status to the driver through read."""

    def __init__(self, name):
        self.name = name
        self.proc = None
        self.lines = []
        self.cond = threading.Condition()
        self.open_streams = 0
        self.status = None

    def node(self):
        """This actor's node address and a free port on it (rank 0's
        rendezvous; RLinf binds one the same way)."""
        import ray

        s = socket.socket()
        s.bind(("", 0))
        port = s.getsockname()[1]
        s.close()
        return ray.util.get_node_ip_address(), port

    def start(self, argv, env):
        """Starts the program; returns its pid, or raises when it cannot run."""
        full = dict(os.environ)
        full.update(env)
        self.proc = subprocess.Popen(argv, env=full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_child_setup)
        self.open_streams = 2
        for stream in (self.proc.stdout, self.proc.stderr):
            threading.Thread(target=self._pump, args=(stream,), daemon=True).start()
        threading.Thread(target=self._reap, daemon=True).start()
        return self.proc.pid

    def _pump(self, stream):
        for raw in iter(lambda: stream.readline(MAX_LINE), b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        stream.close()
        with self.cond:
            self.open_streams -= 1
            self.cond.notify_all()

    def _reap(self):
        rc = self.proc.wait()
        # What the program left in its group goes with it.
        _killpg(self.proc.pid, signal.SIGKILL)
        with self.cond:
            self.status = rc
            self.cond.notify_all()

    def read(self, timeout):
        """Waits up to timeout for lines or the end; returns (lines, status):
        status is None until the program ended and every line was read,
        then its return code (negative: killed by that signal)."""
        with self.cond:
            self.cond.wait_for(lambda: self.lines or self._over(), timeout)
            lines, self.lines = self.lines[:READ_BATCH], self.lines[READ_BATCH:]
            done = self._over() and not self.lines
            return lines, (self.status if done else None)

    def _over(self):
        return self.status is not None and self.open_streams == 0

    def stop(self, sig, grace):
        """Signals the program's group, waits grace, then kills the group.
        Returns whether it needed SIGKILL."""
        if self.proc is None or self.status is not None:
            return False
        _killpg(self.proc.pid, sig)
        with self.cond:
            if self.cond.wait_for(lambda: self.status is not None, grace):
                return False
        _killpg(self.proc.pid, signal.SIGKILL)
        return True

    def kill(self):
        """Kills the program's group at once."""
        if self.proc is not None:
            _killpg(self.proc.pid, signal.SIGKILL)


def _killpg(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# ---- the driver ----


class Worker:
    """The driver's view of one worker."""

    def __init__(self, comp, spec):
        self.comp = comp
        self.rank = spec["rank"]
        self.spec = spec
        self.name = "%s/%d" % (comp, self.rank)
        self.actor = None
        self.started = False
        self.err = ""
        self.code = None  # return code once ended
        self.stopped = False
        self.killed = False
        self.ip = ""
        self.pending = None  # the outstanding read
        self.stop_ref = None  # the outstanding stop: whether it needed SIGKILL
        self.ended = 0.0  # seconds from the driver's start to its end

    def result(self):
        r = {"component": self.comp, "rank": self.rank, "host": self.ip, "started": self.started,
             "stopped": self.stopped, "killed": self.killed, "err": self.err}
        if self.code is not None:
            r["exit_code"], r["signal"] = (self.code, 0) if self.code >= 0 else (-1, -self.code)
            r["ended_s"] = round(self.ended, 3)
        return r


class Driver:
    """One launch on Ray: start, supervise, stop, report."""

    def __init__(self, ray, plan, out=None):
        self.ray = ray
        self.plan = plan
        self.out = out or sys.stdout
        self.grace = float(plan.get("grace_s", 10))
        self.workers = [Worker(c["name"], w) for c in plan["components"] for w in c["workers"]]
        self.first = None
        self.stopping = False
        self.kill_now = False
        self.interrupted = False
        self.stop_sig = signal.SIGTERM
        self.pg = None
        self.error = ""
        self.t0 = time.monotonic()

    # -- placement --

    def pinned_nodes(self):
        """RLinf mode: the Ray node id of each plan node, as rlsolve found
        them; checks that those the workers use are still alive as planned
        (LaunchError: nothing has started)."""
        nodes = self.plan["nodes"]
        check_nodes(self.ray.nodes(), nodes, {w.spec["node"] for w in self.workers})
        return [n.get("node_id") for n in nodes]

    def rlinf_options(self, node_ids):
        """Each worker's actor options: named, pinned hard to its node, no
        Ray resources, the plan's env."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        opts = []
        for w in self.workers:
            opts.append(dict(name="%s:%d" % (w.comp, w.rank), namespace=self.plan["namespace"], num_cpus=0, num_gpus=0,
                             max_concurrency=4, runtime_env={"env_vars": worker_env(w.spec["env"])},
                             scheduling_strategy=NodeAffinitySchedulingStrategy(node_ids[w.spec["node"]], soft=False)))
        return opts

    def slime_options(self):
        """slime mode: one PACK placement group of a GPU and a CPU per
        bundle, its bundles sorted by (IP octets, GPU id) as slime sorts
        them; worker k runs on sorted bundle spec["bundle"] with the
        fraction slime asks (0.4 training, 0.2 rollout)."""
        ray = self.ray
        from ray.util.placement_group import placement_group
        from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

        n = int(self.plan["bundles"])
        self.pg = placement_group([{"GPU": 1, "CPU": 1}] * n, strategy="PACK", name="rlsolve-" + self.plan["launch_id"])
        ready, _ = ray.wait([self.pg.ready()], timeout=float(self.plan.get("pg_timeout_s", 60)))
        if not ready:
            raise LaunchError("the placement group of %d bundles ({GPU: 1, CPU: 1} each) was not ready in %ss: "
                              "does the cluster have %d free GPUs?" % (n, self.plan.get("pg_timeout_s", 60), n))

        @ray.remote(num_gpus=1, num_cpus=1)
        def probe():
            return ray.util.get_node_ip_address(), int(ray.get_gpu_ids()[0])

        refs = [probe.options(scheduling_strategy=PlacementGroupSchedulingStrategy(self.pg, placement_group_bundle_index=i)).remote()
                for i in range(n)]
        probes = ray.get(refs)
        order = sort_bundles(probes)
        emit("bundles", self.out, bundles=[{"bundle": i, "ip": probes[i][0], "gpu": probes[i][1]} for i in order])
        opts = []
        for w in self.workers:
            b = order[w.spec["bundle"]]
            frac = float(w.spec.get("gpu_fraction", 0.4))
            w.spec["env"]["RLSOLVE_RAY_BUNDLE_IP"] = probes[b][0]
            w.spec["env"]["RLSOLVE_RAY_BUNDLE_GPU"] = str(probes[b][1])
            opts.append(dict(name="%s:%d" % (w.comp, w.rank), namespace=self.plan["namespace"], num_cpus=frac, num_gpus=frac,
                             max_concurrency=4, runtime_env={"env_vars": worker_env(w.spec["env"])},
                             scheduling_strategy=PlacementGroupSchedulingStrategy(self.pg, placement_group_bundle_index=b)))
        return opts

    # -- starting --

    def start(self):
        """Creates every actor, binds each component's rank 0 port first,
        then starts every program."""
        ray = self.ray
        runner = ray.remote(Runner)
        if self.plan.get("mode") == "slime":
            opts = self.slime_options()
        else:
            opts = self.rlinf_options(self.pinned_nodes())
        for w, o in zip(self.workers, opts):
            w.actor = runner.options(**o).remote(w.name)
        nodes = [w.actor.node.remote() for w in self.workers]
        # Only each component's rank 0 is waited for (its port is the
        # component's MASTER_PORT); the other starts queue behind their
        # actors' creation.
        for c in self.plan["components"]:
            ws = [w for w in self.workers if w.comp == c["name"]]
            if ws and self.plan.get("mode") != "slime":
                rank0 = next((w for w in ws if w.rank == 0), ws[0])
                ip, port = ray.get(nodes[self.workers.index(rank0)])
                set_master([w.spec for w in ws], ip, port)
        # The program gets the actor's runtime env again, over the Ray
        # worker's own variables, with rank 0's rendezvous added.
        refs = [w.actor.start.remote(w.spec["argv"], worker_env(w.spec["env"])) for w in self.workers]
        for w, (ip, _) in zip(self.workers, ray.get(nodes)):
            w.ip = ip
        for w, ref in zip(self.workers, refs):
            try:
                ray.get(ref)
                w.started = True
                emit("started", self.out, worker=w.name, ip=w.ip)
            except Exception as e:  # the program could not run: that worker failed
                w.err = _short(e)
        emit("all", self.out)
        # Only now, with every program running, may one that could not
        # start stop the others.
        for w in self.workers:
            if not w.started:
                self.failed(w)

    # -- supervising --

    def failed(self, w):
        """A worker failed: the first one decides the launch, the rest stop."""
        if not self.stopping:
            self.first = w
            self.stop(signal.SIGTERM)

    def stop(self, sig):
        self.stopping = True
        self.stop_sig = sig
        for w in self.workers:
            if w.started and w.code is None:
                w.stopped = True
                w.stop_ref = w.actor.stop.remote(int(sig), self.grace)
        self.stop_at = time.monotonic()

    def kill(self):
        self.kill_now = True
        for w in self.workers:
            if w.started and w.code is None:
                w.killed = True
                w.actor.kill.remote()

    def supervise(self, control=None):
        """Forwards lines until every started worker ended. control() is
        asked now and then whether rlsolve asked to stop (a signal) or to
        kill at once."""
        ray = self.ray
        live = [w for w in self.workers if w.started]
        for w in live:
            w.pending = w.actor.read.remote(0.5)
        while live:
            self.poll_control(control)
            refs = [w.pending for w in live]
            ready, _ = ray.wait(refs, num_returns=1, timeout=0.5)
            for ref in ready:
                w = live[refs.index(ref)]
                try:
                    lines, status = ray.get(ref)
                except Exception as e:  # the actor died under its program
                    lines, status = [], -signal.SIGKILL
                    w.err = _short(e)
                for line in lines:
                    self.out.write("%s: %s\n" % (w.name, line))
                self.out.flush()
                if status is None:
                    w.pending = w.actor.read.remote(0.5)
                    continue
                w.code, w.ended = status, time.monotonic() - self.t0
                w.killed = w.killed or self.needed_kill(w)
                live.remove(w)
                if status != 0:
                    self.failed(w)
            self.overdue(live)

    def needed_kill(self, w):
        """Whether stopping w took SIGKILL after the grace: its actor's stop
        says so when it returns, which it does as the program ends (the
        summary must say the grace ran out, not that the workers stopped)."""
        if w.stop_ref is None:
            return False
        try:
            ready, _ = self.ray.wait([w.stop_ref], timeout=1.0)
            return bool(ready) and self.ray.get(ready[0]) is True
        except Exception:  # the actor died: its program went with it
            return False

    def poll_control(self, control):
        if control is None:
            return
        ask = control()
        if ask == "kill" and not self.kill_now:
            self.interrupted = True
            if not self.stopping:
                self.stop(signal.SIGKILL)
            self.kill()
        elif ask and not self.stopping:
            self.interrupted = True
            self.stop(ask)

    def overdue(self, live):
        """Workers that outlive grace plus a margin after a stop are ended
        with their actors (the actor itself is stuck)."""
        if not self.stopping or time.monotonic() - self.stop_at < self.grace + 10:
            return
        for w in list(live):
            self.ray.kill(w.actor, no_restart=True)
            w.code, w.killed, w.err = -signal.SIGKILL, True, "its actor did not answer after the grace period; killed with it"
            w.ended = time.monotonic() - self.t0
            live.remove(w)

    # -- ending --

    def cleanup(self):
        """Ends every actor (their programs have ended) and the placement
        group: nothing of the launch outlives it."""
        for w in self.workers:
            if w.actor is not None:
                try:
                    self.ray.kill(w.actor, no_restart=True)
                except Exception:
                    pass
        if self.pg is not None:
            from ray.util.placement_group import remove_placement_group

            remove_placement_group(self.pg)

    def report(self):
        """The report line and the launch's exit status (as local's)."""
        rep = {"workers": [w.result() for w in self.workers], "first": self.first.name if self.first else None,
               "interrupted": self.interrupted, "error": self.error, "launch_id": self.plan["launch_id"]}
        emit("report", self.out, report=rep)
        return exit_status(rep)


def exit_status(rep):
    """The launch's status from its report: the first failure's status,
    else 130 when interrupted, else 0; 1 for a driver-level error."""
    if rep["error"]:
        return 1
    for r in rep["workers"]:
        if "%s/%d" % (r["component"], r["rank"]) == rep["first"]:
            if not r["started"]:
                return 127
            return r["exit_code"] if r["exit_code"] >= 0 else 128 + r["signal"]
    return 130 if rep["interrupted"] else 0


def _short(e):
    s = str(e).strip().splitlines()
    return s[-1][:500] if s else type(e).__name__


class Control:
    """What rlsolve asks of a running launch: the job's stop (Ray sends the
    driver SIGINT) and, through two keys rlsolve uploads as packages, which
    signal the workers get and whether to kill at once."""

    def __init__(self, kv_get, stop_key, kill_key):
        self.kv_get = kv_get
        self.stop_key, self.kill_key = stop_key, kill_key
        self.signalled = 0
        self.last = 0.0

    def on_signal(self, signum, frame):
        self.signalled += 1

    def __call__(self):
        if not self.signalled:
            return None
        now = time.monotonic()
        if self.signalled > 1:
            return "kill"
        if now - self.last < 0.5:
            return signal.SIGINT
        self.last = now
        if self.kill_key and self.kv_get(self.kill_key):
            return "kill"
        asked = self.kv_get(self.stop_key) if self.stop_key else None
        if asked:
            try:
                name = json.loads(asked).get("signal", "SIGINT")
                return {"SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT}.get(name, signal.SIGINT)
            except ValueError:
                pass
        return signal.SIGINT


def _kv_get(key):
    from ray.experimental.internal_kv import _internal_kv_get

    try:
        return _internal_kv_get(key)
    except Exception:
        return None


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    path = argv[1] if len(argv) > 1 else os.path.join(here, "plan.json")
    with open(path) as f:
        plan = json.load(f)
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    import ray

    ray.init(address="auto", namespace=plan["namespace"], log_to_driver=False)
    control = Control(_kv_get, plan.get("stop_key"), plan.get("kill_key"))
    signal.signal(signal.SIGINT, control.on_signal)
    signal.signal(signal.SIGTERM, control.on_signal)
    d = Driver(ray, plan)
    emit("job", job_id=ray.get_runtime_context().get_job_id(), namespace=plan["namespace"])
    try:
        d.start()
        d.supervise(control)
    except LaunchError as e:
        d.error = str(e)
    except Exception as e:  # Ray failed under the driver: still end everything and report
        d.error = "the driver failed: %s: %s" % (type(e).__name__, _short(e))
    finally:
        d.cleanup()
    return d.report()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
