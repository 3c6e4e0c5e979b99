#!/bin/sh
# bench_unseen.sh PERFDOJO TOP: auto, greedy and random at equal budget
# on kernels that no example resembles closely and the shipped model was
# not trained on (tests/bench/unseen/*.dojo); each agent's best state,
# then auto's against greedy's and random's in alternate runs (measure
# --baseline). Figures are printed, never asserted (doc/evaluation.md).
#   BENCH_KERNELS   names in tests/bench/unseen (default: all)
#   BENCH_BUDGET    measurements per run (default 60)
#   BENCH_SECONDS   wall time per run at most (default 150)
#   BENCH_THREADS   (default 1)
#   BENCH_SEED      (default 1)
#   BENCH_TRACES    a folder: each run's --trace as KERNEL-AGENT.trace
#   BENCH_MODEL2    a second model: auto also plays with it ("auto2"), and
#                   a last column compares the two (auto/auto2)
# Columns: each agent's confirmed speedup against the start (or "start"
# when none was confirmed), then auto/greedy and auto/random with their
# 95% intervals (above 1: auto's kernel is faster).
set -u
P=${1:?usage: bench_unseen.sh PERFDOJO TOP}
top=${2:?usage: bench_unseen.sh PERFDOJO TOP}
budget=${BENCH_BUDGET:-60}
seconds=${BENCH_SECONDS:-150}
threads=${BENCH_THREADS:-1}
seed=${BENCH_SEED:-1}
model2=${BENCH_MODEL2:-}
agents="auto greedy random${model2:+ auto2}"
kernels=${BENCH_KERNELS:-$(cd "$top/tests/bench/unseen" && ls *.dojo |
    sed 's/\.dojo$//')}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-unseen.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p ${BENCH_TRACES:+"$BENCH_TRACES"} || exit 1
PERFDOJO_DB=$tmp/db
export PERFDOJO_DB

# "1.03 [1.02, 1.04]" from measure's speedup line, else "-"
ratio() {
	"$P" measure "$1" --baseline "$2" -n "$threads" --runs 5 2>&1 |
	    sed -n 's/^speedup \([^,]*\), 95% interval \(\[[^]]*\]\).*/\1 \2/p' |
	    grep . || echo -
}

echo "budget $budget, $seconds s, $threads thread(s), seed $seed"
printf '%-8s %9s %9s %9s  %-20s %-20s%s\n' kernel auto greedy random \
    auto/greedy auto/random "${model2:+  auto2      auto/auto2}"
for k in $kernels; do
	src=$top/tests/bench/unseen/$k.dojo
	for a in $agents; do
		set -- ${BENCH_TRACES:+--trace "$BENCH_TRACES/$k-$a.trace"}
		[ "$a" = auto2 ] && set -- "$@" --model "$model2"
		"$P" tune "$src" --agent "${a%2}" --threads "$threads" \
		    --budget "$budget" --seconds "$seconds" --seed "$seed" \
		    --session "$tmp/s.$k.$a" "$@" > "$tmp/$k.$a.out" 2> "$tmp/err" ||
		    { echo "# $k $a: $(tail -n 1 "$tmp/err")"; continue; }
		sed -n '/^[^#]/p' "$tmp/$k.$a.out" > "$tmp/$k.$a.actions"
		"$P" apply "$src" --actions "$tmp/$k.$a.actions" \
		    -o "$tmp/$k.$a.dojo" 2> /dev/null
	done
	sp() {
		sed -n 's/^# best: .*branch [^,]*, \([0-9.]*x\), 95%.*/\1/p
		    s/^# best: .*the start (no speedup.*/start/p' \
		    "$tmp/$k.$1.out" 2> /dev/null | grep . || echo -
	}
	two=""
	[ -n "$model2" ] && two=$(printf '  %9s  %s' "$(sp auto2)" \
	    "$(ratio "$tmp/$k.auto.dojo" "$tmp/$k.auto2.dojo")")
	printf '%-8s %9s %9s %9s  %-20s %-20s%s\n' "$k" "$(sp auto)" \
	    "$(sp greedy)" "$(sp random)" \
	    "$(ratio "$tmp/$k.auto.dojo" "$tmp/$k.greedy.dojo")" \
	    "$(ratio "$tmp/$k.auto.dojo" "$tmp/$k.random.dojo")" "$two"
done
