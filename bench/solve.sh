#!/bin/sh
# Times `rlsolve solve` as a user runs it (the whole process: read, check
# the rest, place, write back, check the result) on internal/benchspec's
# requirement files, and prints a table: the median wall time of RUNS runs
# and the SAT instance's size from --stats. Needs only Go.
#
#   RUNS=9 bench/solve.sh        runs per case (default 5)
set -u
cd "$(dirname "$0")/.." || exit 2
runs=${RUNS:-5}
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM

go build -o "$dir/rlsolve" ./cmd/rlsolve || exit 1
go run ./bench/solvespec -nodes 128 >"$dir/s1024.yaml" || exit 1
go run ./bench/solvespec -nodes 1024 >"$dir/s8192.yaml" || exit 1
go run ./bench/solvespec -nodes 128 -impossible >"$dir/x1024.yaml" || exit 1
"$dir/rlsolve" solve "$dir/s1024.yaml" --gpus-per-node 8 --output plan >"$dir/plan1024.json" || exit 1

# run NAME WANT_EXIT ARGS...: times the command RUNS times.
run() {
	name=$1 want=$2
	shift 2
	times=""
	i=0
	while [ "$i" -lt "$runs" ]; do
		start=$(date +%s%N)
		"$dir/rlsolve" "$@" --stats >/dev/null 2>"$dir/err"
		code=$?
		end=$(date +%s%N)
		if [ "$code" -ne "$want" ]; then
			cat "$dir/err" >&2
			echo "bench/solve.sh: $name exited $code, not $want" >&2
			exit 1
		fi
		times="$times $(((end - start) / 1000000))"
		i=$((i + 1))
	done
	median=$(echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	stats=$(sed -n 's/^solve: \([0-9]*\) variables, \([0-9]*\) clauses, \([0-9]*\) solver calls.*value \([0-9]*\)[,)].*$/\1 \2 \3 \4/p' "$dir/err")
	printf '%-30s %8s ms  %s\n' "$name" "$median" "$stats"
}

printf '%-30s %11s  %s\n' "case" "wall" "variables clauses calls value"
run "pack, 1,024 GPUs" 0 solve "$dir/s1024.yaml" --gpus-per-node 8
run "pack, 8,192 GPUs" 0 solve "$dir/s8192.yaml" --gpus-per-node 8
run "impossible, 1,024 GPUs" 1 solve "$dir/x1024.yaml" --gpus-per-node 8
run "keep, 1,024 GPUs, node 10 out" 0 solve "$dir/s1024.yaml" --gpus-per-node 8 --from "$dir/plan1024.json" --without-node 10
