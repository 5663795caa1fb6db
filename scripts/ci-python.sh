#!/usr/bin/env bash
# CI for the Python package: builds the wheel for this machine, checks that
# a second build gives the same bytes, installs it offline (pip install
# --no-index) into a fresh virtual environment without system packages,
# runs the binary through the console script and `python -m rlsolve`
# (exit statuses 0 and 1 passed through), calls the API where no Go is on
# PATH, and runs python/tests with pytest (the Hydra judge included:
# RLSOLVE_REQUIRE_HYDRA=1 makes a missing hydra-core a failure).
#
# The tests' own packages (pytest, omegaconf, hydra-core) come from
# RLSOLVE_WHEELHOUSE (a folder of wheels, installed with --no-index) when
# set, else from the package index.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target=linux/$(go env GOARCH)

echo "== wheel ($target)"
start=$(date +%s)
RLSOLVE_WHEEL_TARGETS=$target scripts/wheel.sh "$work/dist" >/dev/null
took=$(( $(date +%s) - start ))
wheel=$(ls "$work"/dist/*.whl)
size=$(stat -c %s "$wheel")
echo "  $(basename "$wheel"): $size bytes, built in ${took}s"
if (( size >= 15 * 1024 * 1024 )); then echo "the wheel is over 15 MB" >&2; exit 1; fi
RLSOLVE_WHEEL_TARGETS=$target scripts/wheel.sh "$work/again" >/dev/null
cmp "$wheel" "$work/again/$(basename "$wheel")" && echo "  a second build gives the same bytes"

echo "== install offline into a fresh virtual environment"
if ! "$python" -m venv "$work/venv" 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  "$python" -m venv "$work/venv"
fi
venv=$work/venv/bin
"$venv/pip" install -q --no-index "$wheel"
if [ -n "${RLSOLVE_WHEELHOUSE:-}" ]; then
  "$venv/pip" install -q --no-index --find-links "$RLSOLVE_WHEELHOUSE" pytest omegaconf hydra-core
else
  "$venv/pip" install -q pytest==8.3.4 omegaconf==2.3.1 hydra-core==1.3.8
fi
unset RLSOLVE_BINARY

echo "== the console script and python -m rlsolve"
"$venv/rlsolve" version
status() { set +e; "$@" >/dev/null 2>&1; echo $?; set -e; }
ok=$(cd examples/single-node && status "$venv/python" -m rlsolve check train.yaml --inventory inventory.yaml)
bad=$(cd examples/invalid-overlap && status "$venv/python" -m rlsolve check train.yaml --inventory inventory.yaml)
echo "  python -m rlsolve check: single-node exits $ok, invalid-overlap exits $bad"
[ "$ok" = 0 ] && [ "$bad" = 1 ]

echo "== the API where no Go is on PATH"
# PATH holds the virtual environment alone: the binary is the wheel's.
(cd "$work" && env PATH="$venv" "$venv/python" - <<'PY'
import shutil
import rlsolve
assert shutil.which("go") is None, shutil.which("go")
r = rlsolve.check_cluster({"cluster": {"num_nodes": 1, "component_placement": {"actor": "0-8"}}}, strict=False)
assert not r.ok and r.errors[0].position.key_path == "cluster.component_placement.actor", r.text
print("  check_cluster from", rlsolve.__file__, "->", r.errors[0].code, "at", r.errors[0].position)
PY
)

echo "== pytest python/tests"
if ! RLSOLVE_REQUIRE_HYDRA=1 "$venv/python" -m pytest -p no:cacheprovider -q -W ignore::UserWarning python/tests >"$work/pytest.log" 2>&1; then
  cat "$work/pytest.log"; exit 1
fi
grep -E '^hydra judge:' "$work/pytest.log" | sed 's/^/  /'
tail -n 1 "$work/pytest.log" | sed 's/^/  pytest: /'
echo "== Python CI passed"
