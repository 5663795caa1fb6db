"""Unit tests of python/driver.py against the stand-in ray package in
fakeray/ (driver_test.go runs them with both on PYTHONPATH)."""

import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import ray
import driver

NODES = [  # the cluster as Ray lists it; RLinf's order is by RLINF_NODE_RANK
    {"NodeID": "n-a", "ip": "10.0.0.10", "gpus": 2, "env": {"RLINF_NODE_RANK": "1"}},
    {"NodeID": "n-b", "ip": "10.0.0.9", "gpus": 2, "env": {"RLINF_NODE_RANK": "0"}},
]
# The plan's nodes in RLinf's order, with the node ids rlsolve's preflight found.
PLAN_NODES = [{"node_id": "n-b", "ip": "10.0.0.9", "gpus": 2}, {"node_id": "n-a", "ip": "10.0.0.10", "gpus": 2}]

# A worker that prints what the launch contract promises it.
SHOW = ["sh", "-c", 'echo "rank=$RANK cvd=$CUDA_VISIBLE_DEVICES master=$MASTER_ADDR:$MASTER_PORT noset=$RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"; echo err >&2']


def plan(workers, grace=2.0, mode="rlinf", **extra):
    p = {"launch_id": "L1", "namespace": "rlsolve-L1", "mode": mode, "grace_s": grace, "nodes": PLAN_NODES,
         "components": [{"name": "actor", "workers": workers}]}
    p.update(extra)
    return p


def worker(rank, node, argv, **env):
    e = {"RANK": str(rank), "CUDA_VISIBLE_DEVICES": str(rank % 2)}
    e.update(env)
    return {"rank": rank, "node": node, "argv": argv, "env": e}


def signal_when(path, control, timeout=60):
    """Ctrl-C to control once path exists (or after timeout)."""
    end = time.monotonic() + timeout
    while not os.path.exists(path) and time.monotonic() < end:
        time.sleep(0.02)
    control.on_signal(signal.SIGINT, None)


def run(p, control=None):
    out = io.StringIO()
    d = driver.Driver(ray, p, out)
    try:
        d.start()
        d.supervise(control)
    except driver.LaunchError as e:
        d.error = str(e)
    finally:
        d.cleanup()
    code = d.report()
    lines = out.getvalue().splitlines()
    events = [json.loads(l[len(driver.MARK):]) for l in lines if l.startswith(driver.MARK)]
    return code, [l for l in lines if not l.startswith(driver.MARK)], events


class NodesTest(unittest.TestCase):
    def test_check_nodes(self):
        ray_nodes = [{"NodeID": "n-a", "Alive": True, "NodeManagerAddress": "10.0.0.10", "Resources": {"GPU": 2.0}},
                     {"NodeID": "n-b", "Alive": False, "NodeManagerAddress": "10.0.0.9", "Resources": {"GPU": 2.0}}]
        plan_nodes = [{"node_id": "n-b", "ip": "10.0.0.9", "gpus": 2}, {"node_id": "n-a", "ip": "10.0.0.10", "gpus": 2}]
        driver.check_nodes(ray_nodes, plan_nodes, {1})  # only the nodes workers use
        cases = {
            "dead": ({0, 1}, plan_nodes, "node 0 (10.0.0.9) is no longer alive (Ray node n-b)"),
            "gpus": ({0}, [{"node_id": "n-a", "ip": "10.0.0.10", "gpus": 4}], "node 0 (10.0.0.10) has 2 GPU(s), the plan's 4"),
            "moved": ({0}, [{"node_id": "n-a", "ip": "10.0.0.11", "gpus": 2}], "Ray node n-a is at 10.0.0.10, the plan's node at 10.0.0.11"),
            "no id": ({0}, [{"ip": "10.0.0.10", "gpus": 2}], "Ray node unknown"),
        }
        for name, (used, nodes, want) in cases.items():
            with self.subTest(name), self.assertRaises(driver.LaunchError) as e:
                driver.check_nodes(ray_nodes, nodes, used)
            self.assertIn(want, str(e.exception))

    def test_no_order_rule(self):
        """The order is rlsolve's (topology's rules, in Go): the driver has none."""
        for name in ("order_nodes", "check_order"):
            self.assertFalse(hasattr(driver, name), name)


class BundleTest(unittest.TestCase):
    def test_bundle_sort(self):
        probes = [("10.0.0.10", 1), ("10.0.0.9", 1), ("10.0.0.10", 0), ("10.0.0.9", 0), ("10.0.0.100", 0)]
        self.assertEqual(driver.sort_bundles(probes), [3, 1, 2, 0, 4])


class DriverTest(unittest.TestCase):
    def setUp(self):
        ray.STATE.reset([dict(n) for n in NODES], "10.0.0.9")

    def test_rlinf_launch(self):
        code, lines, events = run(plan([worker(0, 1, SHOW), worker(1, 0, SHOW)]))
        self.assertEqual(code, 0, lines)
        opts = [o for o, _ in ray.STATE.actors if "name" in o]
        self.assertEqual([o["name"] for o in opts], ["actor:0", "actor:1"])
        for o, node in zip(opts, ["n-a", "n-b"]):  # worker 0 on plan node 1 = 10.0.0.10 = n-a
            self.assertEqual((o["num_cpus"], o["num_gpus"], o["namespace"]), (0, 0, "rlsolve-L1"))
            self.assertEqual((o["scheduling_strategy"].node_id, o["scheduling_strategy"].soft), (node, False))
            self.assertEqual(o["runtime_env"]["env_vars"]["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"], "1")
        self.assertEqual(opts[1]["runtime_env"]["env_vars"]["RANK"], "1")
        shown = sorted(l for l in lines if "rank=" in l)
        self.assertEqual(len(shown), 2, lines)
        ports = {l.split("master=")[1].split(" ")[0] for l in shown}
        self.assertEqual(len(ports), 1, "one MASTER_ADDR:MASTER_PORT for the component: %s" % shown)
        self.assertTrue(ports.pop().startswith("10.0.0.10:"), "rank 0's node is the master: %s" % shown)
        self.assertIn("actor/1: rank=1 cvd=1", shown[1])
        self.assertTrue(shown[1].endswith("noset=1"))
        self.assertIn("actor/0: err", lines)
        rep = events[-1]["report"]
        self.assertEqual((rep["first"], rep["error"]), (None, ""))
        self.assertEqual([w["exit_code"] for w in rep["workers"]], [0, 0])
        self.assertEqual(len(ray.STATE.killed), 2, "every actor is ray.kill'ed")
        self.assertTrue(all(no_restart for _, no_restart in ray.STATE.killed))

    def test_node_mismatch_starts_no_program(self):
        ray.STATE.nodes[0]["gpus"] = 1
        code, _, events = run(plan([worker(0, 1, ["true"])]))
        self.assertEqual(code, 1)
        self.assertIn("node 1 (10.0.0.10) has 1 GPU(s), the plan's 2", events[-1]["report"]["error"])
        self.assertFalse(any(w["started"] for w in events[-1]["report"]["workers"]), "no program started")
        self.assertEqual(len(ray.STATE.killed), len([o for o, _ in ray.STATE.actors if "name" in o]), "every actor made is killed")

    def test_plan_node_not_alive(self):
        ray.STATE.nodes[0]["alive"] = False
        code, _, events = run(plan([worker(0, 1, ["true"])]))
        self.assertEqual(code, 1)
        self.assertIn("node 1 (10.0.0.10) is no longer alive", events[-1]["report"]["error"])
        self.assertFalse([o for o, _ in ray.STATE.actors if "name" in o], "no worker actor")

    def test_first_failure_stops_the_rest(self):
        ws = [worker(0, 0, ["sh", "-c", "sleep 0.3; exit 3"]), worker(1, 1, ["sleep", "30"]), worker(2, 1, ["sleep", "30"])]
        t = time.monotonic()
        code, _, events = run(plan(ws))
        self.assertLess(time.monotonic() - t, 20)
        self.assertEqual(code, 3)
        rep = events[-1]["report"]
        self.assertEqual(rep["first"], "actor/0")
        self.assertEqual([(w["exit_code"], w["signal"], w["stopped"]) for w in rep["workers"]],
                         [(3, 0, False), (-1, signal.SIGTERM, True), (-1, signal.SIGTERM, True)])

    def test_program_missing(self):
        code, _, events = run(plan([worker(0, 0, ["/nonexistent/prog"]), worker(1, 0, ["sleep", "30"])]))
        self.assertEqual(code, 127)
        rep = events[-1]["report"]
        self.assertEqual(rep["first"], "actor/0")
        self.assertFalse(rep["workers"][0]["started"])
        self.assertIn("nonexistent", rep["workers"][0]["err"])

    def test_stop_forwards_the_asked_signal(self):
        ray.STATE.kv["stop"] = b'{"signal": "SIGTERM"}'
        c = driver.Control(driver._kv_get, "stop", "kill")
        trap = ["sh", "-c", 'trap "echo got-term; exit 9" TERM; echo up; while :; do sleep 0.1; done']
        t0 = time.monotonic()

        def control():  # Ray's SIGINT arrives once the worker has set its trap
            if not c.signalled and time.monotonic() - t0 > 1:
                c.on_signal(signal.SIGINT, None)
            return c()

        code, lines, events = run(plan([worker(0, 0, trap)]), control)
        rep = events[-1]["report"]
        self.assertTrue(rep["interrupted"])
        self.assertEqual(rep["workers"][0]["exit_code"], 9, lines)
        self.assertEqual(code, 130)  # a stopped worker is no failure: the interruption decides

    def test_kill_key_kills_at_once(self):
        ray.STATE.kv["kill"] = b"{}"
        c = driver.Control(driver._kv_get, "stop", "kill")
        c.on_signal(signal.SIGINT, None)
        stubborn = ["sh", "-c", 'trap "" INT TERM; while :; do sleep 0.1; done']
        t = time.monotonic()
        _, _, events = run(plan([worker(0, 0, stubborn)], grace=30), c)
        self.assertLess(time.monotonic() - t, 15, "grace is 30s: the kill key did not cut it")
        w = events[-1]["report"]["workers"][0]
        self.assertEqual((w["signal"], w["killed"]), (signal.SIGKILL, True))

    def test_grace_ran_out(self):
        """A worker that outlives the grace is SIGKILLed and reported killed;
        one that ends within it is not."""
        c = driver.Control(driver._kv_get, "stop", "kill")
        with tempfile.TemporaryDirectory() as d:
            ready = os.path.join(d, "ready")
            # The stop comes once the stubborn worker ignores it: a signal
            # sent before its trap (a loaded machine) would simply end it.
            stubborn = ["sh", "-c", 'trap "" INT TERM; : > %s; while :; do sleep 0.1; done' % ready]
            threading.Thread(target=signal_when, args=(ready, c), daemon=True).start()
            _, _, events = run(plan([worker(0, 0, stubborn), worker(1, 1, ["sleep", "30"])], grace=0.5), c)
        ws = events[-1]["report"]["workers"]
        self.assertEqual([(w["signal"], w["stopped"], w["killed"]) for w in ws],
                         [(signal.SIGKILL, True, True), (signal.SIGINT, True, False)])

    def test_slime_bundles(self):
        ray.STATE.bundles = [("10.0.0.10", 1), ("10.0.0.9", 1), ("10.0.0.10", 0), ("10.0.0.9", 0)]
        show = ["sh", "-c", 'echo "$RLSOLVE_RAY_BUNDLE_IP/$RLSOLVE_RAY_BUNDLE_GPU"']
        ws = [dict(worker(r, 0, show), bundle=r, gpu_fraction=0.4 if r < 2 else 0.2) for r in range(4)]
        code, lines, events = run(plan(ws, mode="slime", bundles=4))
        self.assertEqual(code, 0, lines)
        self.assertEqual(sorted(lines), ["actor/0: 10.0.0.9/0", "actor/1: 10.0.0.9/1", "actor/2: 10.0.0.10/0", "actor/3: 10.0.0.10/1"])
        pg = ray.STATE.pgs[0]
        self.assertEqual((pg.bundles, pg.strategy, pg.name), ([{"GPU": 1, "CPU": 1}] * 4, "PACK", "rlsolve-L1"))
        self.assertEqual(ray.STATE.removed, [pg])
        opts = [o for o, _ in ray.STATE.actors if "name" in o]
        self.assertEqual([(o["num_gpus"], o["scheduling_strategy"].placement_group_bundle_index) for o in opts],
                         [(0.4, 3), (0.4, 1), (0.2, 2), (0.2, 0)])
        self.assertEqual([b["bundle"] for b in events[0]["bundles"]], [3, 1, 2, 0])


class RunnerTest(unittest.TestCase):
    def test_stop_group_grace_kill(self):
        """stop signals the whole group, waits the grace, kills it: a
        grandchild that ignores SIGTERM does not survive."""
        with tempfile.TemporaryDirectory() as d:
            pidfile = os.path.join(d, "pid")
            r = driver.Runner("a/0")
            prog = 'trap "" TERM; (trap "" TERM; echo $$ > %s; exec sleep 60) & while :; do sleep 0.1; done' % pidfile
            r.start(["sh", "-c", prog], {})
            for _ in range(100):
                if os.path.exists(pidfile) and open(pidfile).read().strip():
                    break
                time.sleep(0.05)
            t = time.monotonic()
            self.assertTrue(r.stop(signal.SIGTERM, 0.5), "needed SIGKILL")
            self.assertGreaterEqual(time.monotonic() - t, 0.5)
            _, status = r.read(5)
            while status is None:
                _, status = r.read(5)
            self.assertEqual(status, -signal.SIGKILL)
            grandchild = int(open(pidfile).read())
            time.sleep(0.2)
            with self.assertRaises(ProcessLookupError):
                os.kill(grandchild, 0)

    def test_lines_and_status(self):
        r = driver.Runner("a/0")
        r.start(["sh", "-c", "echo one; echo two >&2; exit 4"], {"X": "1"})
        lines, status = [], None
        while status is None:
            got, status = r.read(5)
            lines += got
        self.assertEqual(sorted(lines), ["one", "two"])
        self.assertEqual(status, 4)


if __name__ == "__main__":
    unittest.main()
