"""Hydra as the judge of composition: every RLinf config under examples/
and every config file a `check`, `plan` or `compose` of the CLI's test
scripts reads (with the same overrides) is composed by the real hydra-core,
and rlsolve's composition (`rlsolve compose`) must hold the same values,
key for key; where Hydra fails, rlsolve must fail too.

Skipped where hydra-core is not installed; RLSOLVE_REQUIRE_HYDRA=1 makes
that a failure (CI).
"""

import json
import pathlib
import re
import shlex
import subprocess

from conftest import ROOT, require_hydra

try:
    import hydra
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
except ImportError:  # pragma: no cover - depends on the environment
    hydra = None

SCRIPTS = ROOT / "cmd" / "rlsolve" / "testdata" / "script"
# Refusals of rlsolve's own where Hydra composes: an empty file or one of
# comments only is an empty config to Hydra, and no config to check to
# rlsolve (RLS-E0101). Any other refusal of a config Hydra composes fails.
OWN_REFUSALS = ("error[RLS-E0101]",)
# check's and plan's flags that take a value (the judge drops them).
VALUE_FLAGS = {"--inventory", "--gpus-per-node", "--output", "-o", "--mode", "--allow", "--deny", "--slime",
               "--solver-budget", "--max-conflicts", "--model-config", "--mem-profile", "--component", "--rank"}


def example_cases():
    """(id, directory, config file, overrides) of every RLinf example (a
    train.yaml, or the primary configs of an entry point's config/)."""
    examples = ROOT / "examples"
    for cfg in sorted(examples.glob("*/train.yaml")) + sorted(examples.glob("*/config/*.yaml")):
        yield str(cfg.relative_to(ROOT)), cfg.parent, cfg.name, []


def txtar(path):
    """A txtar archive: its comment (the script) and its files."""
    text = path.read_text()
    parts = re.split(r"^-- (.+?) --$\n?", text, flags=re.M)
    return parts[0], dict(zip(parts[1::2], parts[2::2]))


def script_cases(tmp_root):
    """(id, directory, config file, overrides) of every `rlsolve check`,
    `plan` or `compose` of a config file in the test scripts."""
    for script in sorted(SCRIPTS.glob("*.txtar")):
        commands, files = txtar(script)
        work = tmp_root / script.stem
        for name, body in files.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(body)
        for n, line in enumerate(commands.splitlines()):
            m = re.match(r"^(?:!\s*)?(?:exec|exits \d+)\s+rlsolve\s+(check|plan|compose)\s+(.*)$", line.strip())
            if not m:
                continue
            case = command_case(m.group(2), work)
            if case is not None:
                cfg, overrides = case
                yield "%s:%d" % (script.name, n + 1), cfg.parent, cfg.name, overrides


def command_case(args, work):
    """The config file and overrides of a command line, None when it reads
    standard input, a --slime layout or no composed config."""
    words, i, positional = shlex.split(args), 0, []
    while i < len(words):
        w = words[i]
        if w in VALUE_FLAGS:
            i += 2
            continue
        if not w.startswith("-") or w == "-":
            positional.append(w)
        i += 1
    if not positional or positional[0] == "-":
        return None
    cfg = work / positional[0] if (work / positional[0]).exists() else ROOT / positional[0]
    if not cfg.is_file():
        return None
    return cfg, positional[1:]


def hydra_compose(directory, name, overrides):
    """Hydra's composition as plain values, or the exception it raised."""
    try:
        with initialize_config_dir(config_dir=str(directory), version_base="1.1", job_name="judge"):
            cfg = compose(config_name=pathlib.Path(name).stem, overrides=overrides)
            return OmegaConf.to_container(cfg, resolve=True), None
    except Exception as e:  # any failure of Hydra's is a verdict
        return None, e


def rlsolve_compose(binary, directory, name, overrides):
    proc = subprocess.run([binary, "compose", name] + overrides, cwd=directory,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return None, proc.stderr
    return json.loads(proc.stdout)["config"], None


def differences(hydra_value, ours, path=""):
    """Where two compositions differ, as key paths with both values."""
    if isinstance(hydra_value, dict) and isinstance(ours, dict):
        out = []
        for k in list(hydra_value) + [k for k in ours if k not in hydra_value]:
            p = "%s.%s" % (path, k) if path else str(k)
            if k not in ours or k not in hydra_value:
                out.append("%s: Hydra %r, rlsolve %r" % (p, hydra_value.get(k, "<absent>"), ours.get(k, "<absent>")))
            else:
                out += differences(hydra_value[k], ours[k], p)
        return out
    if isinstance(hydra_value, list) and isinstance(ours, list) and len(hydra_value) == len(ours):
        return [d for i, (a, b) in enumerate(zip(hydra_value, ours)) for d in differences(a, b, "%s[%d]" % (path, i))]
    same = type(hydra_value) is type(ours) and hydra_value == ours
    same = same or (isinstance(hydra_value, float) and isinstance(ours, float) and repr(hydra_value) == repr(ours))
    return [] if same else ["%s: Hydra %r, rlsolve %r" % (path, hydra_value, ours)]


def binary():
    from rlsolve import binary_path

    return binary_path()


def all_cases(tmp_root):
    return list(example_cases()) + list(script_cases(tmp_root))


def test_hydra_judges_composition(tmp_path, capsys):
    require_hydra()
    rl = binary()
    cases = all_cases(tmp_path)
    failures, agreed, both_failed, own = [], 0, 0, 0
    for case_id, directory, name, overrides in cases:
        want, hydra_error = hydra_compose(directory, name, overrides)
        got, our_error = rlsolve_compose(rl, directory, name, overrides)
        if hydra_error is not None:
            if our_error is None:
                failures.append("%s %s: Hydra failed (%s) but rlsolve composed it" % (case_id, overrides, hydra_error))
            else:
                both_failed += 1
            continue
        if our_error is not None and our_error.startswith(OWN_REFUSALS):
            own += 1
            continue
        if our_error is not None:
            failures.append("%s %s: Hydra composed it but rlsolve failed:\n%s" % (case_id, overrides, our_error))
            continue
        diff = differences(want, got)
        if diff:
            failures.append("%s %s:\n  %s" % (case_id, overrides, "\n  ".join(diff)))
        else:
            agreed += 1
    with capsys.disabled():
        print("\nhydra judge: %d configs compared, %d agree value for value, %d refused by both, %d empty ones refused by rlsolve alone"
              % (len(cases), agreed, both_failed, own))
    assert not failures, "\n".join(failures)
    assert len(cases) >= 20, "the judge found only %d configs" % len(cases)
