#!/bin/sh
# bench_agents.sh: every agent on every kernel with the same budget of
# measurements; the median speedup of 3 seeds, as a table.  Figures, not
# pass/fail.
#   tests/bench/bench_agents.sh PERFDOJO [BUDGET] [KERNEL.dojo...]
# (make bench-agents BENCH_BUDGET=N).
#
# Columns: the median best speedup of each agent over seeds 1-3; "best/rnd",
# the best agent's median over random's; "hand", the speedup of a
# hand-written move sequence KERNEL-*.actions beside the kernel when there
# is one (measured last, against the same baseline, from the same
# database), and "best/hand".  All runs share one measurement database
# (a state is measured once, so every agent sees the same time for it);
# PERFDOJO_DB chooses it.  BENCH_JOBS (default 2) compilers at once
# (tune --jobs); timed runs never overlap.  BENCH_RAW=FILE appends one
# line per run: kernel agent seed speedup seconds moves.  BENCH_AGENTS
# chooses the agents (default: random greedy beam maxq).
set -u
perfdojo=${1:?usage: bench_agents.sh PERFDOJO [BUDGET] [KERNELS...]}
budget=${2:-30}
shift; [ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "$(dirname "$0")"/../../examples/*.dojo
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PERFDOJO_DB=${PERFDOJO_DB:-$tmp/m.db}
export PERFDOJO_DB
jobs=${BENCH_JOBS:-2}
raw=${BENCH_RAW:-/dev/null}
agents=${BENCH_AGENTS:-random greedy beam maxq}
printf '%-16s' "kernel (budget $budget)"
for a in $agents; do printf ' %8s' "$a"; done
printf ' %8s %8s %9s\n' best/rnd hand best/hand
for k in "$@"; do
	name=$(basename "$k" .dojo)
	printf '%-16s' "$name"
	: > "$tmp/medians"
	for a in $agents; do
		for seed in 1 2 3; do
			t0=$(date +%s)
			"$perfdojo" tune "$k" --agent "$a" --budget "$budget" \
			    --seed "$seed" --jobs "$jobs" \
			    --session "$tmp/s-$name" > "$tmp/out" 2> /dev/null
			x=$(sed -n 's/^# best: .*, the start (no speedup.*/1/p;s/^# best: .*branch [^,]*, \([0-9.]*\)x.*/\1/p' "$tmp/out")
			echo "${x:-0}"
			printf '%s %s %s %s %s %s\n' "$name" "$a" "$seed" \
			    "${x:-failed}" "$(($(date +%s) - t0))" \
			    "$(grep -v '^#' "$tmp/out" | paste -sd';' -)" \
			    >> "$raw"
		done | sort -n | sed -n 2p > "$tmp/median"
		m=$(cat "$tmp/median")
		echo "$a $m" >> "$tmp/medians"
		printf ' %7sx' "$m"
	done
	# the best agent's median over random's
	printf ' %8s' "$(awk '$1 == "random" { r = $2 }
	    $1 != "random" && $2 > b { b = $2 }
	    END { if (r > 0) printf "%.2f", b / r; else print "-" }' \
	    "$tmp/medians")"
	hand=
	for f in "${k%.dojo}"-*.actions; do
		[ -f "$f" ] || continue
		"$perfdojo" apply "$k" --actions "$f" > "$tmp/hand.dojo" \
		    2> /dev/null &&
		    hand=$("$perfdojo" measure "$tmp/hand.dojo" --baseline "$k" \
		    --json 2> /dev/null |
		    sed -n 's/.*"speedup": \([0-9.]*\).*/\1/p')
		break
	done
	if [ -n "$hand" ]; then
		printf ' %7sx %9s\n' "$hand" "$(awk -v h="$hand" \
		    '$1 != "random" && $2 > b { b = $2 }
		    END { printf "%.2f", b / h }' "$tmp/medians")"
	else
		printf ' %8s %9s\n' - -
	fi
done
