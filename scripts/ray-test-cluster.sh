#!/usr/bin/env bash
# A real 4-node Ray cluster on this one machine, 2 fake GPUs per node, for
# the Ray tests (recipe: ../shared/spec/ray.md section 5). Each node is its
# own `ray start --block` in its own network namespace, so every raylet has
# its own IP; without namespaces (not root, no `ip netns`) the nodes get
# loopback addresses (127.0.0.9-100) and ports of their own instead. Needs
# the venv of scripts/python-venv.sh (or RLSOLVE_VENV naming one with ray).
# Every node runs with token auth, a random token made at start (kept in
# $RAY_TEST_BASE/token); start's exports carry it as RAY_AUTH_TOKEN, and
# RAY_AUTH_MODE=token, without which Ray's own clients send no token.
# docs/test-clusters.md says more.
#
#   scripts/ray-test-cluster.sh start    # prints the exports the tests read
#   scripts/ray-test-cluster.sh status   # the nodes as the State API sees them
#   scripts/ray-test-cluster.sh stop     # kills what start started; idempotent
#
# In both modes the IPs end in .10 .9 .100 .11, so that string order
# (.10 .100 .11 .9), numeric order (.9 .10 .11 .100) and RLINF_NODE_RANK
# order (.10 .11 .9 .100) all differ: a test that sorts the wrong way sees it. Everything lives under
# $RAY_TEST_BASE (default /tmp/rlsolve-ray); the namespaces and the bridge are
# named after $RAY_TEST_NAME (default rlsray) in $RAY_TEST_NET.0/24 (default
# 10.77.0): a second cluster on the machine needs all three of its own.
# stop never touches a process or an interface that start did not make.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${RAY_TEST_BASE:-/tmp/rlsolve-ray}
venv=${RLSOLVE_VENV:-$root/.ci/venv}
py=$venv/bin/python
timeout=${RAY_TEST_TIMEOUT:-240}
name=${RAY_TEST_NAME:-rlsray}
net=${RAY_TEST_NET:-10.77.0}
# Interface names hold 15 bytes: NAME plus "h3" must fit.
[[ $name =~ ^[a-z][a-z0-9]{0,7}$ ]] || { echo "RAY_TEST_NAME=$name: 1-8 of a-z0-9, a letter first" >&2; exit 2; }
[[ $net =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || { echo "RAY_TEST_NET=$net: the first three numbers of a /24" >&2; exit 2; }
bridge=${name}0
# node k: its namespace address and its RLINF_NODE_RANK; node 0 is the head.
net_ips=("$net.10" "$net.9" "$net.100" "$net.11")
lo_ips=(127.0.0.10 127.0.0.9 127.0.0.100 127.0.0.11)
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
  ip netns add "$name-probe" 2>/dev/null || return 1
  ip netns del "$name-probe"
}

setup_netns() {
  # Names already taken belong to another cluster: refuse, touch nothing.
  if ip link show "$bridge" >/dev/null 2>&1; then
    say "interface $bridge exists: another test cluster? (RAY_TEST_NAME and RAY_TEST_NET choose others)"
    exit 1
  fi
  echo netns >"$base/mode"
  ip link add "$bridge" type bridge
  ip addr add "$net.1/24" dev "$bridge"
  ip link set "$bridge" up
  local k
  for k in 0 1 2 3; do
    ip netns add "$name-n$k"
    ip link add "${name}h$k" type veth peer name "${name}p$k"
    ip link set "${name}p$k" netns "$name-n$k"
    ip link set "${name}h$k" master "$bridge" up
    nsenter --net="/run/netns/$name-n$k" sh -c "
      ip link set lo up &&
      ip link set ${name}p$k name eth0 &&
      ip addr add ${net_ips[$k]}/24 dev eth0 &&
      ip link set eth0 up"
  done
}

teardown_netns() {
  local k
  for k in 0 1 2 3; do
    ip link del "${name}h$k" 2>/dev/null || true
    ip netns del "$name-n$k" 2>/dev/null || true
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
    echo "--head --port $lo_gcs --dashboard-host $ip --dashboard-port $lo_dash --ray-client-server-port $((p + 90))"
  else
    echo "--address $head:$lo_gcs"
  fi
  echo "--node-manager-port $p --object-manager-port $((p + 1)) --metrics-export-port $((p + 2))"
  echo "--dashboard-agent-listen-port $((p + 3)) --dashboard-agent-grpc-port $((p + 4)) --runtime-env-agent-port $((p + 5))"
  echo "--min-worker-port $((p + 10)) --max-worker-port $((p + 89))"
}

# start_node starts node k in a session of its own (setsid: its pid is the
# session that stop kills) and records that session. Ray puts every node
# of a machine in the head's temp dir, where the last node to start owns
# node_ip_address.json, and a job's driver on the head then takes that
# node's raylet for its own (it failed to bind its port). Real nodes do not
# share a disk: each node here gets its own mount namespace, with its own
# directory bound over the temp dir.
start_node() {
  local k=$1 mode=$2 ip=$3 head=$4 enter=()
  [ "$mode" = netns ] && enter=(nsenter "--net=/run/netns/$name-n$k")
  mkdir -p "$base/n$k"
  if [ "$(cat "$base/private" 2>/dev/null)" = yes ]; then
    enter+=(unshare --mount --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$base/n$k" "$base/t")
  fi
  # The dashboard's 9 modules are Python processes that must answer within
  # 30 s by default; on 2 loaded cores they did not (load 16: MetricsHead).
  # shellcheck disable=SC2046 # node_args is a list of words
  setsid "${enter[@]}" env RLINF_NODE_RANK="${ranks[$k]}" RAY_prestart_worker_first_driver=0 \
    RAY_AUTH_MODE=token RAY_AUTH_TOKEN="$(cat "$base/token")" \
    RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT=300 \
    "$venv/bin/ray" start --block --node-ip-address "$ip" --num-cpus 4 --num-gpus 2 \
    --object-store-memory 100000000 --disable-usage-stats --temp-dir "$base/t" \
    $(node_args "$k" "$mode" "$ip" "$head") </dev/null >"$base/log/node$k.log" 2>&1 &
  echo $! >>"$base/pgids"
}

# can_private says whether nodes can have their own mount namespace.
can_private() {
  unshare --mount --propagation private true 2>/dev/null
}

# nodes prints the State API's nodes, one "IP STATE head|- GPUS" line
# each. The venv's Python asks, so the script needs no curl; the token
# comes in the environment, never on a command line that ps shows.
nodes() { # url
  RAY_TEST_TOKEN=$(cat "$base/token") "$py" - "$1" <<'PY'
import json, os, sys, urllib.request
req = urllib.request.Request(sys.argv[1] + "/api/v0/nodes?limit=100",
                             headers={"Authorization": "Bearer " + os.environ["RAY_TEST_TOKEN"]})
with urllib.request.urlopen(req, timeout=5) as r:
    for n in json.load(r)["data"]["result"]["result"]:
        gpus = n.get("resources_total", {}).get("GPU", 0)
        print(n["node_ip"], n["state"], "head" if n.get("is_head_node") else "-", gpus)
PY
}

# alive prints how many nodes are ALIVE (0 while the dashboard is not up).
alive() {
  { nodes "$1" 2>/dev/null || true; } | awk '$2 == "ALIVE"' | wc -l
}

start() {
  [ -x "$venv/bin/ray" ] || { say "no ray in $venv (run: eval \$(scripts/python-venv.sh))"; exit 1; }
  if running; then say "already running (state in $base; stop it first: $0 stop)"; exit 1; fi
  stop_quiet
  mkdir -p "$base/log" "$base/t"
  rm -f "$base"/log/node*.log
  if can_private; then echo yes >"$base/private"; else
    echo no >"$base/private"
    say "no mount namespaces: the nodes share one temp dir, and a job's driver may take another node's raylet for its own"
  fi
  : >"$base/pgids"
  new_token
  local mode=loopback ips=("${lo_ips[@]}") t0=$SECONDS k
  if can_netns; then mode=netns; ips=("${net_ips[@]}"); setup_netns; else echo loopback >"$base/mode"; fi
  local head=${ips[0]} url
  if [ "$mode" = netns ]; then url=http://$head:8265; else url=http://$head:$lo_dash; fi
  # One node at a time, the head first: workers started before the head's
  # GCS answers only retry, and on 2 cores raylets starting together miss
  # Ray's fixed 30 s registration deadline.
  for k in 0 1 2 3; do bring_up "$k" "$mode" "${ips[$k]}" "$head" "$url"; done
  for k in 0 1 2 3; do echo "${ips[$k]} ${ranks[$k]}"; done >"$base/nodes"
  say "4 nodes ALIVE in $((SECONDS - t0))s (mode $mode)"
  cat >"$base/env" <<ENV
export RLSOLVE_RAY_ADDRESS=$url
export RLSOLVE_RAY_NODES=4
export RLSOLVE_RAY_STATE=$base
export RLSOLVE_RAY_MODE=$mode
export RLSOLVE_RAY_PYTHON=$venv/bin/python
export RAY_AUTH_TOKEN=$(cat "$base/token")
export RAY_AUTH_MODE=token
ENV
  cat "$base/env"
}

# new_token makes the cluster's token: every node starts with token auth
# (RAY_AUTH_MODE=token), so that the tests meet a dashboard that answers
# 401 without it and 403 to a wrong one, as a real cluster may. Like Ray's
# own generator: 32 random bytes in hex.
new_token() {
  (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$base/token")
}

# bring_up starts node k and waits until the State API lists k+1 nodes
# ALIVE. A node whose `ray start` gives up (Ray's own startup deadlines,
# missed on a loaded machine) is started again, twice at most.
bring_up() { # k mode ip head url
  local k=$1 attempt pid p deadline=$((SECONDS + timeout))
  for attempt in 1 2 3; do
    start_node "$k" "$2" "$3" "$4"
    pid=$(tail -n 1 "$base/pgids")
    while [ "$SECONDS" -lt "$deadline" ]; do
      [ "$(alive "$5")" -gt "$k" ] && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    [ "$SECONDS" -lt "$deadline" ] || fail "node $k ($3) did not become ALIVE"
    say "node $k ($3) exited while starting (attempt $attempt; $base/log/node$k.log): starting it again"
    cp "$base/log/node$k.log" "$base/log/node$k.attempt$attempt.log"
    for p in $(members "$pid"); do kill -KILL "$p" 2>/dev/null || true; done
  done
  fail "node $k ($3) exited while starting, three times"
}

fail() {
  say "$1 within ${timeout}s; logs under $base/log and $base/n*/session_latest/logs (the last lines of each node's follow)"
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
  py=$RLSOLVE_RAY_PYTHON nodes "$RLSOLVE_RAY_ADDRESS"
}

# members prints the live processes of the sessions start made (Ray's
# workers stay in their node's session; zombies need no signal).
members() {
  ps -eo pid=,sid=,stat= | awk -v list=" $* " 'index(list, " " $2 " ") && $3 !~ /^Z/ {print $1}'
}

stop_quiet() {
  local pg k p sids=()
  if [ -f "$base/pgids" ]; then
    while read -r pg; do [ -n "$pg" ] && sids+=("$pg"); done <"$base/pgids"
  fi
  if [ ${#sids[@]} -gt 0 ]; then
    # SIGTERM first: `ray start --block` then stops its node's processes.
    # One scan of the process table, then waiting on those pids: a scan
    # takes seconds on a machine with thousands of processes.
    local procs left
    procs=$(members "${sids[@]}")
    for p in $procs; do kill -TERM "$p" 2>/dev/null || true; done
    for _ in $(seq 1 50); do
      left=""
      for p in $procs; do [ -d "/proc/$p" ] && ! grep -q '^State:.Z' "/proc/$p/status" 2>/dev/null && left="$left $p"; done
      procs=$left
      [ -z "$procs" ] && break
      sleep 0.2
    done
    # Whatever is left, and anything a node started while stopping.
    for p in $procs $(members "${sids[@]}"); do kill -KILL "$p" 2>/dev/null || true; done
  fi
  # Anything still inside one of our namespaces was started by us (ours:
  # this base's start made them; another base may use the same names).
  if [ "$(cat "$base/mode" 2>/dev/null)" = netns ]; then
    for k in 0 1 2 3; do
      [ -e "/run/netns/$name-n$k" ] || continue
      for pg in $(ip netns pids "$name-n$k" 2>/dev/null); do kill -KILL "$pg" 2>/dev/null || true; done
    done
    teardown_netns
  fi
  rm -f "$base/pgids" "$base/env" "$base/nodes" "$base/mode" "$base/private" "$base/token"
}

stop() {
  stop_quiet
  rm -rf "$base/t" "$base"/n[0-9]
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
