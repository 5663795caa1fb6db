#!/bin/sh
# Runs the scaling benchmarks of proptest/scale_bench_test.go and prints a
# table: median time, memory and allocations per size, with the growth of
# time between consecutive sizes beside the growth of the worker count.
# Needs only Go. Run from anywhere: bench/run.sh
#
#   COUNT=5 bench/run.sh              runs per benchmark (default 3)
#   BENCHTIME=2s bench/run.sh         -benchtime (default 1s)
#   BENCH='^BenchmarkPlan$' bench/run.sh   another -bench pattern
#   RAW=out.txt bench/run.sh          also keep the raw go test output
#
# Exits non-zero when a benchmark fails. About one minute on 2 cores.
set -u
cd "$(dirname "$0")/.." || exit 2

count=${COUNT:-3}
benchtime=${BENCHTIME:-1s}
bench=${BENCH:-'^Benchmark(Check|Document|Plan|Explain|CPUPool100k)$'}

raw=$(mktemp) || exit 2
trap 'rm -f "$raw"' EXIT INT TERM

echo "go test ./proptest -run '^\$' -bench '$bench' -benchmem -count $count -benchtime $benchtime" >&2
go test ./proptest -run '^$' -bench "$bench" -benchmem -count "$count" -benchtime "$benchtime" >"$raw" 2>&1
status=$?
if [ -n "${RAW:-}" ]; then
	cp "$raw" "$RAW"
fi
if [ "$status" -ne 0 ]; then
	cat "$raw" >&2
	echo "bench/run.sh: go test failed (exit $status)" >&2
	exit 1
fi
go run ./bench/benchtable <"$raw" || {
	cat "$raw" >&2
	exit 1
}
