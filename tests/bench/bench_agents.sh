#!/bin/sh
# bench_agents.sh: every agent on every kernel with the same budget of
# measurements; the median speedup of 3 seeds, as a table.  Figures, not
# pass/fail.
#   tests/bench/bench_agents.sh PERFDOJO [BUDGET] [KERNEL.dojo...]
# (make bench-agents BENCH_BUDGET=N).  Each measurement compiles C: a
# budget of 30 on the 11 examples takes about an hour.
set -u
perfdojo=${1:?usage: bench_agents.sh PERFDOJO [BUDGET] [KERNELS...]}
budget=${2:-30}
shift; [ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "$(dirname "$0")"/../../examples/*.dojo
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PERFDOJO_DB=${PERFDOJO_DB:-$tmp/m.db}
export PERFDOJO_DB
agents="random greedy beam maxq"
printf '%-16s' "kernel (budget $budget)"
for a in $agents; do printf ' %8s' "$a"; done
printf '\n'
for k in "$@"; do
	printf '%-16s' "$(basename "$k" .dojo)"
	for a in $agents; do
		for seed in 1 2 3; do
			"$perfdojo" tune "$k" --agent "$a" --budget "$budget" \
			    --seed "$seed" --session "$tmp/s-$(basename "$k")" \
			    2> /dev/null | sed -n 's/^# best: \([0-9.]*\)x.*/\1/p'
		done | sort -n | sed -n 2p > "$tmp/median"
		printf ' %7sx' "$(cat "$tmp/median")"
	done
	printf '\n'
done
