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
#   SERIES=keep bench/scale.sh                   keep64, keep128 ... keep65536, with
#                                                each row's times over the row before's
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
all="pack1024 pack8192 pack65536 spread512 spread4096 spread8192 keep1024 keep4096 keep8192 keep16384 keep32768 comp12 comp50"
cases=${CASES:-$all}
# A series doubles the GPUs from 64 to 65,536 (SERIES=keep, spread or
# pack); its rows also say how much each doubling cost (wall and CPU, over
# the row before: "-" where either took under 10 ms).
series=${SERIES:-}
if [ -n "$series" ]; then
	cases=
	g=64
	while [ "$g" -le 65536 ]; do
		cases="$cases $series$g"
		g=$((g * 2))
	done
fi
pwall= pcpu=

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
		printf '%-12s %5s %7s %7s %7s  %7s %7s %7s  %7s %7s %4s  %s%s\n' "$name" "$scode" "$ssecs" "$scpu" "$((skb / 1024))M" - - - - - - "$(growth)" "$reason"
		pwall= pcpu=
		return
	fi
	opt=yes
	grep -q 'RLS-N1101' "$dir/err" && opt=no
	timed /dev/null check "$dir/solved.yaml" --gpus-per-node 8
	wratio=$(awk -v a="$ssecs" -v b="$secs" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
	ratio=$(awk -v a="$scpu" -v b="$cpu" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
	printf '%-12s %5s %7s %7s %7s  %7s %7s %7s  %7s %7s %4s  %s%s\n' "$name" "$scode" "$ssecs" "$scpu" "$((skb / 1024))M" "$secs" "$cpu" "$((kb / 1024))M" "$wratio" "$ratio" "$opt" "$(growth)" "$stats"
	pwall=$ssecs pcpu=$scpu
}

# growth: in a series, solve's wall and CPU time over the row before's
# (two columns and a gap), else nothing.
growth() {
	[ -n "$series" ] || return 0
	awk -v a="$ssecs" -v pa="$pwall" -v b="$scpu" -v pb="$pcpu" 'function r(x, y) { return (y != "" && y > 0.009 && x > 0.009) ? sprintf("%.2fx", x / y) : "-" }
		BEGIN { printf "%7s %7s  ", r(a, pa), r(b, pb) }'
}

head=
[ -n "$series" ] && head=$(printf '%7s %7s  ' "wall/2x" "cpu/2x")
printf '%-12s %5s %7s %7s %7s  %7s %7s %7s  %7s %7s %4s  %s%s\n' case exit "wall s" "cpu s" memory "check s" "cpu s" memory "wall x" "cpu x" opt "$head" "--stats"
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
		# node 10 fails (node 4 of the 8 of keep64)
		down=$((gpus / 8 > 10 ? 10 : gpus / 16))
		row "$c" "$dir/$c.yaml" --from "$dir/$c.json" --without-node "$down"
		;;
	comp*)
		spec "$dir/$c.yaml" -nodes 1024 -components "${c#comp}" -gpus 512
		row "$c" "$dir/$c.yaml"
		;;
	esac
done
