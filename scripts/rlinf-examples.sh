#!/bin/bash
# rlinf-examples.sh RLSOLVE RLINF_DIR: runs `rlsolve check` over every YAML
# file under RLinf's examples/ as a user would (from the file's folder, so
# that Hydra composition finds its config groups) and prints one line per
# file: the exit code, the file, and the error codes reported. Compare the
# output of two builds with diff: a front-end change must add no refusal.
set -u
bin=$(realpath "$1")
root=$2
find "$root/examples" -name '*.yaml' | sort | while read -r f; do
  out=$(cd "$(dirname "$f")" && timeout 60 "$bin" check -o short "$(basename "$f")" --gpus-per-node 8 2>&1)
  rc=$?
  codes=$(printf '%s\n' "$out" | grep -o 'error\[RLS-E[0-9]*\]' | grep -o 'RLS-E[0-9]*' | sort -u | tr '\n' ' ')
  echo "$rc ${f#"$root"/} $codes"
done
