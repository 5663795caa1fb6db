"""examples/rlinf-preflight: the entry point runs on a good layout and
stops with rlsolve's report, pointing into the composed files and the
command line, on a bad one. Needs hydra-core."""

import os
import subprocess
import sys

from conftest import ROOT, require_hydra

EXAMPLE = ROOT / "examples" / "rlinf-preflight"


def run(rlsolve_module, *overrides):
    require_hydra()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(rlsolve_module.__file__))
    return subprocess.run([sys.executable, "-W", "ignore", "main_grpo.py"] + list(overrides), cwd=EXAMPLE, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_good_layout_starts(rlsolve_module):
    proc = run(rlsolve_module)
    assert proc.returncode == 0, proc.stderr
    assert "placement ok" in proc.stdout


def test_bad_layout_stops_with_the_report(rlsolve_module):
    proc = run(rlsolve_module, "cluster.component_placement.rollout=4-11")
    assert proc.returncode == 1, proc.stderr
    assert "error[RLS-E0503]" in proc.stderr
    assert "--> <command line>:1:37" in proc.stderr
    assert os.path.join("config", "grpo.yaml") + ":16:12" in proc.stderr
    assert not (EXAMPLE / "main_grpo.log").exists()  # nothing written beside the example
