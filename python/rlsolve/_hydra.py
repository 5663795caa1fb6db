"""Where a Hydra app's config came from, so that check_cluster can point at
its files and lines."""

import os


def hydra_source():
    """check_cluster's config_file and overrides for the config of the
    running @hydra.main app: its primary config file and the command line's
    overrides. Empty outside a Hydra app (or without hydra-core), so that
    `check_cluster(cfg, **hydra_source())` works anywhere."""
    try:
        from hydra.core.hydra_config import HydraConfig
    except ImportError:
        return {}
    if not HydraConfig.initialized():
        return {}
    hc = HydraConfig.get()
    for src in hc.runtime.config_sources:
        # The app's own config folder; a pkg:// source has no file to point at.
        if src.provider != "main" or getattr(src, "schema", "file") != "file":
            continue
        folder = src.path[len("file://"):] if src.path.startswith("file://") else src.path
        path = os.path.join(folder, hc.job.config_name + ".yaml")
        if os.path.isfile(path):
            return {"config_file": path, "overrides": list(hc.overrides.task)}
    return {}
