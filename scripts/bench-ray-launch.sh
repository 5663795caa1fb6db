#!/usr/bin/env bash
# Times `rlsolve launch --backend ray` against `ray job submit` of a plain
# driver that starts the same actors with Ray's Python API (named, pinned
# with hard node affinity, num_cpus=0, each with its own env_vars, each
# running one program as a child), and prints a table: time from the
# command's start until every worker's program has started. The goal is
# rlsolve <= 1.2x the plain driver. A measurement, not a test: nothing
# asserts on wall time.
#
#   eval "$(scripts/ray-test-cluster.sh start)"   # or any cluster: RLSOLVE_RAY_ADDRESS=http://HEAD:8265
#   scripts/bench-ray-launch.sh [WORKERS...]      # default: 8 32
#
# RLSOLVE_RAY_PYTHON is the cluster's Python (its bin/ holds the ray CLI);
# RAY_AUTH_TOKEN, for a cluster with token auth (the test cluster's start
# exports it), reaches both rlsolve and the ray CLI; BENCH_RUNS (default 1)
# runs each case that many times and keeps the best.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
addr=${RLSOLVE_RAY_ADDRESS:?set RLSOLVE_RAY_ADDRESS to the dashboard (eval \"\$(scripts/ray-test-cluster.sh start)\")}
py=${RLSOLVE_RAY_PYTHON:-python3}
ray=${RAY_CLI:-$(dirname "$(command -v "$py")")/ray}
runs=${BENCH_RUNS:-1}
# Ray's CLI sends its token only when RAY_AUTH_MODE says token auth is on.
[ -z "${RAY_AUTH_TOKEN:-}" ] || export RAY_AUTH_MODE=${RAY_AUTH_MODE:-token}
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(8 32)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/rlsolve" "$root/cmd/rlsolve"
"$work/rlsolve" topology --ray "$addr" >"$work/inventory.yaml" 2>/dev/null
nodes=$(grep -c -- '- rank:' "$work/inventory.yaml")

# The worker: prints when it started (seconds since the epoch).
stamp='python3 -c "import time; print(\"started\", time.time())"'

# The plain driver: the same actors, by hand.
mkdir -p "$work/plain"
cat >"$work/plain/plain.py" <<'EOF'
import subprocess, sys, ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

@ray.remote(num_cpus=0)
class Worker:
    def run(self, argv):
        return subprocess.run(argv, capture_output=True, text=True, start_new_session=True).stdout

n = int(sys.argv[1])
ray.init(address="auto", namespace="bench-plain")
alive = sorted((x for x in ray.nodes() if x["Alive"]), key=lambda x: x["NodeManagerAddress"])
actors = [Worker.options(name="w:%d" % i, scheduling_strategy=NodeAffinitySchedulingStrategy(alive[i % len(alive)]["NodeID"], soft=False),
                         runtime_env={"env_vars": {"RANK": str(i), "WORLD_SIZE": str(n)}}).remote() for i in range(n)]
for out in ray.get([a.run.remote(["python3", "-c", "import time; print('started', time.time())"]) for a in actors]):
    print(out.strip(), flush=True)
for a in actors:
    ray.kill(a, no_restart=True)
EOF

# last_start prints the latest "started T" minus t0.
last_start() { awk -v t0="$1" '/started [0-9.]+$/ { if ($NF > m) m = $NF } END { if (m == 0) exit 1; printf "%.1f", m - t0 }'; }

best() { sort -n | head -1; }

printf '| workers | nodes | rlsolve launch (s) | ray job submit, plain driver (s) | ratio |\n|---|---|---|---|---|\n'
for n in "${counts[@]}"; do
  per=$(( (n + nodes - 1) / nodes )) # workers per node: a node group "node" placement spreads them evenly
  total=$(( per * nodes ))
  cat >"$work/bench.yaml" <<EOF
cluster:
  num_nodes: $nodes
  component_placement:
    agent:
      node_group: node
      placement: "0-$((nodes - 1)):0-$((total - 1))"
EOF
  ours=() theirs=()
  for _ in $(seq "$runs"); do
    t0=$(date +%s.%N)
    out=$("$work/rlsolve" launch "$work/bench.yaml" --inventory "$work/inventory.yaml" --backend ray --ray-address "$addr" \
      ${RLSOLVE_RAY_PYTHON:+--ray-python "$RLSOLVE_RAY_PYTHON"} --log-dir "$work/logs" --run "agent=sh -c '$stamp'" 2>"$work/err") ||
      { echo "bench: rlsolve launch of $total workers failed:" >&2; cat "$work/err" >&2; exit 1; }
    ours+=("$(last_start "$t0" <<<"$out")")
    t0=$(date +%s.%N)
    out=$(RAY_API_SERVER_ADDRESS=$addr "$ray" job submit --working-dir "$work/plain" -- "$py" plain.py "$total" 2>"$work/err") ||
      { echo "bench: ray job submit of $total workers failed:" >&2; cat "$work/err" >&2; exit 1; }
    theirs+=("$(last_start "$t0" <<<"$out")")
  done
  a=$(printf '%s\n' "${ours[@]}" | best)
  b=$(printf '%s\n' "${theirs[@]}" | best)
  printf '| %d | %d | %s | %s | %s |\n' "$total" "$nodes" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", a / b }')"
done
