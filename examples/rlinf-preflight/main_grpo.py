"""An RLinf entry point (shaped as RLinf's examples/reasoning/main_grpo.py)
with rlsolve's preflight: the marked lines refuse a layout RLinf would fail
on, in milliseconds, before the Cluster starts Ray or touches a GPU.

    python main_grpo.py                                   # ok: RLinf starts
    python main_grpo.py cluster.component_placement.rollout=4-11
"""

import sys

import hydra
import rlsolve  # rlsolve preflight


@hydra.main(version_base="1.1", config_path="config", config_name="grpo")
def main(cfg) -> None:
    # rlsolve preflight: check the layout before anything starts.
    try:
        rlsolve.check_cluster(cfg, **rlsolve.hydra_source())
    except rlsolve.PlacementError as e:
        sys.exit(str(e))  # the report, exit status 1
    # (end of the preflight)

    try:
        from rlinf.config import validate_cfg
        from rlinf.scheduler import Cluster
    except ImportError:
        print("placement ok; RLinf is not installed here, so the run stops before the Cluster")
        return
    cfg = validate_cfg(cfg)
    cluster = Cluster(cluster_cfg=cfg.cluster)
    print("cluster of", cluster.num_nodes, "nodes")  # RLinf's placement and runner follow


if __name__ == "__main__":
    main()
