#!/bin/sh
# Times `rlsolve solve` at cluster scale beside `check` of the file it
# writes (same run, same machine), and prints a table: solve's wall time,
# CPU time (user + system) and peak memory, check's CPU time and memory,
# the ratios of the wall and of the CPU times (CPU is steadier on a shared
# machine; it is read in 10 ms steps), whether solve proved its placement
# optimal (no RLS-N1101 note), and solve's --stats. Each case runs
# under a memory cap (LIMIT_KB, default 6 GB) and a time cap (TIMEOUT, 120
# s), so a case that blows up prints its exit code, not a crashed machine.
# Needs Go and GNU time (/usr/bin/time).
#
#   CASES="pack8192 spread512" bench/scale.sh    only these cases
#   BIN=/tmp/old/rlsolve bench/scale.sh          time another build (before/after)
set -u
cd "$(dirname "$0")/.." || exit 2
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT INT TERM
limit=${LIMIT_KB:-6000000}
tmo=${TIMEOUT:-120}
bin=${BIN:-}
if [ -z "$bin" ]; then
	bin=$dir/rlsolve
	go build -o "$bin" ./cmd/rlsolve || exit 1
fi
all="pack1024 pack8192 pack65536 spread512 spread4096 spread8192 keep1024 keep4096 keep8192 comp12 comp50"
cases=${CASES:-$all}

# timed OUT ARGS...: runs rlsolve ARGS under the caps, stdout to OUT; sets
# code, secs (wall), cpu (user + system), kb.
timed() {
	out=$1
	shift
	(ulimit -v "$limit" && exec timeout "$tmo" /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$bin" "$@") >"$out" 2>"$dir/err"
	code=$?
	last=$(tail -n 1 "$dir/time" 2>/dev/null)
	set -- $last
	secs=${1:-0} cpu=$(awk -v u="${2:-0}" -v s="${3:-0}" 'BEGIN { printf "%.2f", u + s }') kb=${4:-0}
}

# spec FILE NODES [solvespec flags]: writes a requirement file.
spec() {
	f=$1
	shift
	go run ./bench/solvespec "$@" >"$f" || exit 1
}

# row NAME FILE ARGS...: solve FILE ARGS, then check what it wrote.
row() {
	name=$1 file=$2
	shift 2
	timed "$dir/solved.yaml" solve "$file" --gpus-per-node 8 --stats "$@"
	scode=$code ssecs=$secs scpu=$cpu skb=$kb
	stats=$(sed -n 's/^solve: \(.*\)$/\1/p' "$dir/err" | head -n 1)
	if [ "$scode" -ne 0 ]; then
		reason=$(grep -m 1 -E '^(error|fatal|panic|runtime)' "$dir/err" | cut -c1-70)
		printf '%-12s %5s %7s %7s %7s  %7s %7s %7s  %7s %7s %4s  %s\n' "$name" "$scode" "$ssecs" "$scpu" "$((skb / 1024))M" - - - - - - "$reason"
		return
	fi
	opt=yes
	grep -q 'RLS-N1101' "$dir/err" && opt=no
	timed /dev/null check "$dir/solved.yaml" --gpus-per-node 8
	wratio=$(awk -v a="$ssecs" -v b="$secs" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
	ratio=$(awk -v a="$scpu" -v b="$cpu" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
	printf '%-12s %5s %7s %7s %7s  %7s %7s %7s  %7s %7s %4s  %s\n' "$name" "$scode" "$ssecs" "$scpu" "$((skb / 1024))M" "$secs" "$cpu" "$((kb / 1024))M" "$wratio" "$ratio" "$opt" "$stats"
}

printf '%-12s %5s %7s %7s %7s  %7s %7s %7s  %7s %7s %4s  %s\n' case exit "wall s" "cpu s" memory "check s" "cpu s" memory "wall x" "cpu x" opt "--stats"
for c in $cases; do
	case $c in
	pack*)
		gpus=${c#pack}
		spec "$dir/$c.yaml" -nodes $((gpus / 8))
		row "$c" "$dir/$c.yaml"
		;;
	spread*)
		gpus=${c#spread}
		spec "$dir/$c.yaml" -nodes $((gpus / 8))
		row "$c" "$dir/$c.yaml" --objective spread
		;;
	keep*)
		gpus=${c#keep}
		spec "$dir/$c.yaml" -nodes $((gpus / 8))
		"$bin" solve "$dir/$c.yaml" --gpus-per-node 8 --output plan >"$dir/$c.json" 2>/dev/null || {
			echo "$c: no plan to keep" >&2
			continue
		}
		row "$c" "$dir/$c.yaml" --from "$dir/$c.json" --without-node 10
		;;
	comp*)
		spec "$dir/$c.yaml" -nodes 1024 -components "${c#comp}" -gpus 512
		row "$c" "$dir/$c.yaml"
		;;
	esac
done
