#!/usr/bin/env bash
# A real 4-node Ray cluster on this one machine, 2 fake GPUs per node, for
# the Ray tests (recipe: ../shared/spec/ray.md section 5). Each node is its
# own `ray start --block` in its own network namespace, so every raylet has
# its own IP; without namespaces (not root, no `ip netns`) the nodes get
# 127.0.0.2-5 and ports of their own instead. Needs the venv of
# scripts/python-venv.sh (or RLSOLVE_VENV pointing at one with ray).
#
#   scripts/ray-test-cluster.sh start    # prints the exports the tests read
#   scripts/ray-test-cluster.sh status   # the nodes as the State API sees them
#   scripts/ray-test-cluster.sh stop     # kills what start started; idempotent
#
# The IPs are chosen so that string order (.10 .100 .11 .9), numeric order
# (.9 .10 .11 .100) and RLINF_NODE_RANK order (.10 .11 .9 .100) all differ:
# a test that sorts the wrong way sees it. Everything lives under
# $RAY_TEST_BASE (default /tmp/rlsolve-ray); the namespaces and the bridge are
# named rlsray-*, so stop never touches anything it did not make.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${RAY_TEST_BASE:-/tmp/rlsolve-ray}
venv=${RLSOLVE_VENV:-$root/.ci/venv}
timeout=${RAY_TEST_TIMEOUT:-240}
bridge=rlsray0
bridge_ip=10.77.0.1
# node k: its namespace address and its RLINF_NODE_RANK; node 0 is the head.
net_ips=(10.77.0.10 10.77.0.9 10.77.0.100 10.77.0.11)
lo_ips=(127.0.0.2 127.0.0.3 127.0.0.5 127.0.0.4)
ranks=(0 2 3 1)
# Loopback mode shares the host's ports with other Rays: the head's GCS and
# dashboard, and each node's block of ports, sit far above the 6000-9000
# that single-node Rays use.
lo_gcs=47379
lo_dash=47265
lo_port_base=47400 # node k uses lo_port_base + 100*k .. +99

say() { echo "ray-test-cluster: $*" >&2; }

running() {
  [ -f "$base/pgids" ] || return 1
  local pg
  while read -r pg; do
    kill -0 -- "-$pg" 2>/dev/null && return 0
  done <"$base/pgids"
  return 1
}

# can_netns says whether this process may make namespaces and a bridge.
can_netns() {
  [ "${RAY_TEST_MODE:-}" = loopback ] && return 1
  [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v nsenter >/dev/null || return 1
  ip netns add rlsray-probe 2>/dev/null || return 1
  ip netns del rlsray-probe
}

setup_netns() {
  ip link add "$bridge" type bridge
  ip addr add "$bridge_ip/24" dev "$bridge"
  ip link set "$bridge" up
  local k
  for k in 0 1 2 3; do
    ip netns add "rlsray-n$k"
    ip link add "rlsrayh$k" type veth peer name "rlsrayp$k"
    ip link set "rlsrayp$k" netns "rlsray-n$k"
    ip link set "rlsrayh$k" master "$bridge" up
    nsenter --net="/run/netns/rlsray-n$k" sh -c "
      ip link set lo up &&
      ip link set rlsrayp$k name eth0 &&
      ip addr add ${net_ips[$k]}/24 dev eth0 &&
      ip link set eth0 up"
  done
  echo netns >"$base/mode"
}

teardown_netns() {
  local k
  for k in 0 1 2 3; do
    ip link del "rlsrayh$k" 2>/dev/null || true
    ip netns del "rlsray-n$k" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
}

# node_args prints node k's `ray start` arguments after the common ones.
node_args() {
  local k=$1 mode=$2 ip=$3 head=$4
  if [ "$mode" = netns ]; then
    if [ "$k" = 0 ]; then echo "--head --dashboard-host 0.0.0.0"; else echo "--address $head:6379"; fi
    return
  fi
  local p=$((lo_port_base + 100 * k))
  if [ "$k" = 0 ]; then
    echo "--head --port $lo_gcs --dashboard-host $ip --dashboard-port $lo_dash --ray-client-server-port $((p + 90)) --dashboard-grpc-port $((p + 91))"
  else
    echo "--address $head:$lo_gcs"
  fi
  echo "--node-manager-port $p --object-manager-port $((p + 1)) --metrics-export-port $((p + 2))"
  echo "--dashboard-agent-listen-port $((p + 3)) --dashboard-agent-grpc-port $((p + 4)) --runtime-env-agent-port $((p + 5))"
  echo "--min-worker-port $((p + 10)) --max-worker-port $((p + 89))"
}

# start_node starts node k in a session of its own (setsid: its pid is the
# group that stop kills) and records that group.
start_node() {
  local k=$1 mode=$2 ip=$3 head=$4 enter=()
  [ "$mode" = netns ] && enter=(nsenter "--net=/run/netns/rlsray-n$k")
  # shellcheck disable=SC2046 # node_args is a list of words
  setsid "${enter[@]}" env RLINF_NODE_RANK="${ranks[$k]}" RAY_prestart_worker_first_driver=0 \
    "$venv/bin/ray" start --block --node-ip-address "$ip" --num-cpus 4 --num-gpus 2 \
    --object-store-memory 100000000 --disable-usage-stats --temp-dir "$base/t" \
    $(node_args "$k" "$mode" "$ip" "$head") </dev/null >"$base/log/node$k.log" 2>&1 &
  echo $! >>"$base/pgids"
  echo "$ip ${ranks[$k]}" >>"$base/nodes"
}

# alive prints how many nodes the State API reports ALIVE (0 while the
# dashboard is not up yet).
alive() {
  curl -fsS --max-time 5 "$1/api/v0/nodes?limit=100" 2>/dev/null |
    "$venv/bin/python" -c 'import json,sys; print(sum(n.get("state")=="ALIVE" for n in json.load(sys.stdin)["data"]["result"]["result"]))' 2>/dev/null ||
    echo 0
}

start() {
  [ -x "$venv/bin/ray" ] || { say "no ray in $venv (run: eval \$(scripts/python-venv.sh))"; exit 1; }
  if running; then say "already running (state in $base; stop it first: $0 stop)"; exit 1; fi
  stop_quiet
  mkdir -p "$base/log"
  rm -f "$base"/log/node*.log
  : >"$base/pgids"
  : >"$base/nodes"
  local mode=loopback ips=("${lo_ips[@]}") t0=$SECONDS k
  if can_netns; then mode=netns; ips=("${net_ips[@]}"); setup_netns; else echo loopback >"$base/mode"; fi
  local head=${ips[0]} url
  if [ "$mode" = netns ]; then url=http://$head:8265; else url=http://$head:$lo_dash; fi
  start_node 0 "$mode" "$head" "$head"
  # The workers join once the head's GCS answers; starting them earlier only
  # makes them retry on 2 cores.
  wait_for "$url" 1 || fail "the head did not come up"
  # One at a time: the nodes share the head's session directory, and
  # raylets starting together race for its files (two of four timed out).
  for k in 1 2 3; do
    start_node "$k" "$mode" "${ips[$k]}" "$head"
    wait_for "$url" $((k + 1)) || fail "node $k (${ips[$k]}) did not become ALIVE"
  done
  say "4 nodes ALIVE in $((SECONDS - t0))s (mode $mode)"
  cat >"$base/env" <<ENV
export RLSOLVE_RAY_ADDRESS=$url
export RLSOLVE_RAY_NODES=4
export RLSOLVE_RAY_STATE=$base
export RLSOLVE_RAY_MODE=$mode
export RLSOLVE_RAY_PYTHON=$venv/bin/python
ENV
  cat "$base/env"
}

wait_for() { # url count
  local deadline=$((SECONDS + timeout))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(alive "$1")" -ge "$2" ] && return 0
    running || return 1
    sleep 1
  done
  return 1
}

fail() {
  say "$1 within ${timeout}s; logs under $base/log (the last lines of each follow)"
  local f
  for f in "$base"/log/node*.log; do echo "== $f" >&2; tail -n 15 "$f" >&2; done
  stop_quiet
  exit 1
}

status() {
  [ -f "$base/env" ] && running || { say "not running"; exit 1; }
  # shellcheck disable=SC1091
  . "$base/env"
  echo "mode $RLSOLVE_RAY_MODE, $RLSOLVE_RAY_ADDRESS"
  curl -fsS --max-time 5 "$RLSOLVE_RAY_ADDRESS/api/v0/nodes?limit=100" |
    "$venv/bin/python" -c 'import json,sys
for n in json.load(sys.stdin)["data"]["result"]["result"]:
    print(n["node_ip"], n["state"], "head" if n.get("is_head_node") else "", n["resources_total"].get("GPU"))'
}

# kill_group signals every process of a session start made: the group
# first, then any member that left it (Ray's workers keep the session).
kill_group() { # signal sid
  kill "-$1" -- "-$2" 2>/dev/null || true
  local p
  for p in $(ps -eo pid=,sid= | awk -v s="$2" '$2 == s {print $1}'); do
    kill "-$1" "$p" 2>/dev/null || true
  done
}

stop_quiet() {
  local pg k sids=()
  if [ -f "$base/pgids" ]; then
    while read -r pg; do [ -n "$pg" ] && sids+=("$pg"); done <"$base/pgids"
  fi
  for pg in "${sids[@]}"; do kill_group TERM "$pg"; done
  for _ in $(seq 1 100); do
    local left=0
    for pg in "${sids[@]}"; do [ -n "$(ps -eo sid= | awk -v s="$pg" '$1 == s')" ] && left=1; done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for pg in "${sids[@]}"; do kill_group KILL "$pg"; done
  # Anything still inside one of our namespaces was started by us.
  for k in 0 1 2 3; do
    [ -e "/run/netns/rlsray-n$k" ] || continue
    for pg in $(ip netns pids "rlsray-n$k" 2>/dev/null); do kill -KILL "$pg" 2>/dev/null || true; done
  done
  if [ "$(id -u)" = 0 ] && command -v ip >/dev/null; then teardown_netns; fi
  rm -f "$base/pgids" "$base/env" "$base/nodes" "$base/mode"
}

stop() {
  stop_quiet
  rm -rf "$base/t"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
