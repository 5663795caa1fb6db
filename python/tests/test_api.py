"""The Python API over the bundled binary: dicts, DictConfigs and paths;
strict raising and returning; key paths for objects, files and lines for
files; the console entry's exit status."""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

GOOD = {"cluster": {"num_nodes": 1, "component_placement": {"actor": "all"}}}
BAD = {"cluster": {"num_nodes": 1, "component_placement": {"actor": "0-8"}}}
EXAMPLES = ROOT / "examples"


def test_valid_dict(rlsolve_module):
    r = rlsolve_module.check_cluster(GOOD)
    assert r.ok and bool(r)
    assert [d.code for d in r.diagnostics] == ["RLS-N0001"]  # no inventory: 8 GPUs assumed
    assert r.diagnostics[0].position.key_path == "cluster.num_nodes"
    assert "ok (1 note)" in r.text


def test_strict_raises_the_report(rlsolve_module):
    with pytest.raises(rlsolve_module.PlacementError) as e:
        rlsolve_module.check_cluster(BAD)
    msg = str(e.value)
    assert "error[RLS-E0203]" in msg
    assert "--> cluster.component_placement.actor" in msg
    assert e.value.result is not None and not e.value.result.ok


def test_not_strict_returns(rlsolve_module):
    r = rlsolve_module.check_cluster(BAD, strict=False)
    assert not r.ok
    (err,) = r.errors
    assert err.code == "RLS-E0203" and err.severity == "error"
    assert err.position.key_path == "cluster.component_placement.actor"
    assert err.position.file is None  # an object has no file
    assert str(err.position) == "cluster.component_placement.actor"
    assert err.fixes and err.fixes[0].edits[0].new_text == "0-7"


def test_dictconfig_is_resolved(rlsolve_module):
    omegaconf = pytest.importorskip("omegaconf", reason="omegaconf is not installed (pip install omegaconf)")
    cfg = omegaconf.OmegaConf.create({"n": 1, "gpus": "0-8", "cluster": {"num_nodes": "${n}", "component_placement": {"actor": "${gpus}"}}})
    r = rlsolve_module.check_cluster(cfg, strict=False)
    assert [d.code for d in r.errors] == ["RLS-E0203"]
    assert r.errors[0].position.key_path == "cluster.component_placement.actor"
    assert rlsolve_module.check_cluster(omegaconf.OmegaConf.create(GOOD)).ok


def test_path_keeps_file_positions(rlsolve_module):
    d = EXAMPLES / "invalid-overlap"
    r = rlsolve_module.check_cluster(str(d / "train.yaml"), inventory=str(d / "inventory.yaml"), strict=False)
    (err,) = r.errors
    assert err.code == "RLS-E0503"
    assert err.position.file.endswith("invalid-overlap/train.yaml") and err.position.line == 8
    assert err.position.key_path is None


def test_inventory_dict(rlsolve_module):
    inv = {"nodes": [{"ranks": "0", "accelerators": {"type": "NV_GPU", "model": "H100", "count": 4}}]}
    r = rlsolve_module.check_cluster(BAD, inventory=inv, strict=False)
    assert [d.code for d in r.errors] == ["RLS-E0203"]
    assert "0-3" in r.errors[0].summary  # the inventory's 4 GPUs, not 8 assumed
    assert "RLS-N0001" not in [d.code for d in r.diagnostics]


def test_bad_mode_is_not_a_placement_error(rlsolve_module):
    with pytest.raises(rlsolve_module.RlsolveError) as e:
        rlsolve_module.check_cluster(GOOD, mode="sideways")
    assert not isinstance(e.value, rlsolve_module.PlacementError)
    assert e.value.exit_code == 2 and "--mode" in str(e.value)


def test_plan(rlsolve_module):
    doc = rlsolve_module.plan(GOOD, args=["--gpus-per-node", "4"])
    assert doc["format_version"] == "1"
    assert len(doc["components"]["actor"]["placements"]) == 4
    with pytest.raises(rlsolve_module.PlacementError) as e:
        rlsolve_module.plan(BAD)
    assert "cluster.component_placement.actor" in str(e.value)


def composed(rlsolve_module, directory, name, overrides):
    """The object Hydra composes (hydra-core when installed, else the same
    values as rlsolve composes them)."""
    try:
        from hydra import compose, initialize_config_dir
        from omegaconf import OmegaConf
    except ImportError:
        out = subprocess.run([rlsolve_module.binary_path(), "compose", name] + overrides, cwd=directory,
                             stdout=subprocess.PIPE, check=True).stdout
        return json.loads(out)["config"]
    with initialize_config_dir(config_dir=str(directory), version_base="1.1"):
        return OmegaConf.to_container(compose(config_name=name[:-5], overrides=overrides), resolve=True)


def test_error_in_a_composed_file(rlsolve_module, tmp_path, monkeypatch):
    (tmp_path / "place").mkdir()
    (tmp_path / "place" / "wide.yaml").write_text("# @package _global_\ncluster:\n  component_placement:\n    actor: 0-15\n")
    (tmp_path / "train.yaml").write_text("defaults:\n  - place: wide\n  - _self_\ncluster:\n  num_nodes: 1\nrunner:\n  seed: 1\n")
    monkeypatch.chdir(tmp_path)
    obj = composed(rlsolve_module, tmp_path, "train.yaml", [])
    # The object is the file as composed: positions are the group file's.
    r = rlsolve_module.check_cluster(obj, config_file="train.yaml", strict=False)
    (err,) = r.errors
    assert (err.position.file, err.position.line) == (os.path.join("place", "wide.yaml"), 4)
    assert "--> place/wide.yaml:4:" in r.text
    # Changed after composition: the changed value has only its key path;
    # the value still as composed keeps its file and line.
    obj["runner"]["seed"] = 2
    r = rlsolve_module.check_cluster(obj, config_file="train.yaml", strict=False)
    (err,) = r.errors
    assert err.position.key_path == "cluster.component_placement.actor"
    assert (err.position.file, err.position.line) == ("place/wide.yaml", 4)
    assert "--> cluster.component_placement.actor (place/wide.yaml:4:12)" in r.text
    obj["cluster"]["component_placement"]["actor"] = "0-9"
    (err,) = rlsolve_module.check_cluster(obj, config_file="train.yaml", strict=False).errors
    assert err.position.key_path == "cluster.component_placement.actor" and err.position.file is None


def test_overrides_with_config_file(rlsolve_module):
    d = EXAMPLES / "composed-defaults"
    obj = composed(rlsolve_module, d, "train.yaml", ["cluster.num_nodes=1"])
    r = rlsolve_module.check_cluster(obj, config_file=str(d / "train.yaml"), overrides=["cluster.num_nodes=1"],
                                     inventory=str(d / "inventory.yaml"), strict=False)
    assert r.ok
    files = {dg.position.file for dg in r.diagnostics if dg.position}
    assert any(f and f.endswith("model/qwen2.5-1.5b.yaml") for f in files), files


@pytest.mark.parametrize("code,config", [(0, "single-node"), (1, "invalid-overlap")])
def test_python_m_passes_the_exit_status(rlsolve_module, code, config):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(rlsolve_module.__file__))
    d = EXAMPLES / config
    proc = subprocess.run([sys.executable, "-m", "rlsolve", "check", "train.yaml", "--inventory", "inventory.yaml"],
                          cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.returncode == code, proc.stderr


def test_hydra_source_outside_an_app(rlsolve_module):
    # Outside @hydra.main there is no file to point at: check_cluster(cfg,
    # **hydra_source()) is check_cluster(cfg).
    assert rlsolve_module.hydra_source() == {}
