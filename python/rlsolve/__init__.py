"""rlsolve: check and plan GPU-cluster placements for RL training (RLinf,
slime) before the cluster starts.

    import rlsolve
    rlsolve.check_cluster(cfg)          # raises rlsolve.PlacementError when invalid
    result = rlsolve.check_cluster(cfg, strict=False)
    result.ok, result.diagnostics, result.text
    doc = rlsolve.plan(cfg)             # every worker's node, GPUs, environment

    # in a @hydra.main app: diagnostics point at the composed files' lines
    rlsolve.check_cluster(cfg, **rlsolve.hydra_source())

The package runs the rlsolve binary its wheel carries (`rlsolve` on the
command line, or `python -m rlsolve`); it needs no other package.
"""

from rlsolve._api import check_cluster, plan
from rlsolve._binary import binary_path
from rlsolve._hydra import hydra_source
from rlsolve._result import Diagnostic, Edit, Fact, Fix, PlacementError, Position, Result, RlsolveError

__all__ = [
    "check_cluster",
    "plan",
    "binary_path",
    "hydra_source",
    "Diagnostic",
    "Edit",
    "Fact",
    "Fix",
    "PlacementError",
    "Position",
    "Result",
    "RlsolveError",
]
