#!/usr/bin/env bash
# The Python virtual environment of the tests and CI: python/requirements-ci.txt
# (a pinned Ray and the config libraries) installed into ${RLSOLVE_VENV:-.ci/venv}.
# Idempotent: a venv already made from the same requirements is kept as it is.
# Prints `export RLSOLVE_VENV=...`, so `eval "$(scripts/python-venv.sh)"`.
#
# Needs python3 with the venv module (Debian: python3-venv) and a reachable
# package index. PYTHON picks another interpreter.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
req=$root/python/requirements-ci.txt
venv=${RLSOLVE_VENV:-$root/.ci/venv}
python=${PYTHON:-python3}
stamp=$venv/.rlsolve-requirements
want=$(sha256sum "$req" | cut -d' ' -f1)

if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "export RLSOLVE_VENV=$venv"
  exit 0
fi
command -v "$python" >/dev/null || { echo "python-venv: no $python on PATH" >&2; exit 1; }
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python-venv: $python lacks the venv module (Debian: apt-get install python3-venv)" >&2
  exit 1
fi
# A half-made venv (an interrupted run, other requirements) is made again
# rather than patched, so what CI tests is exactly the requirements file.
# Only one this script made: RLSOLVE_VENV may name someone's own venv.
if [ -e "$venv" ] && [ ! -e "$venv/.rlsolve-venv" ] && [ -n "$(ls -A "$venv" 2>/dev/null)" ]; then
  echo "python-venv: $venv exists and was not made by this script; remove it or set RLSOLVE_VENV elsewhere" >&2
  exit 1
fi
rm -f "$stamp"
"$python" -m venv --clear "$venv" >&2
touch "$venv/.rlsolve-venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
echo "$want" >"$stamp"
echo "export RLSOLVE_VENV=$venv"
