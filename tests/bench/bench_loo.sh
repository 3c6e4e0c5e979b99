#!/bin/sh
# bench_loo.sh: Max-Q trained on every kernel but one (leave-one-out),
# then playing the held-out one, against random at the same budget; the
# median of 3 seeds.  Figures, not pass/fail.
#   tests/bench/bench_loo.sh PERFDOJO [BUDGET] [EPISODES] [KERNEL.dojo...]
# (make bench-loo BENCH_BUDGET=N BENCH_EPISODES=E).  Training measures
# too: EPISODES * depth 8 measurements at most, spread over the kernels.
# BENCH_HELD="name ..." holds out only those kernels (each still trained
# on all the others).  All runs share one measurement database
# (PERFDOJO_DB).  BENCH_RAW=FILE appends one line per run: kernel agent
# seed speedup seconds (agent "maxq-trained" with the model; "train" for
# the training, with its seconds).  BENCH_MODELS=DIR keeps each held-out
# kernel's model as DIR/NAME.model and trains again only when it is
# missing.  BENCH_LOO_EPSILON="E ..." adds one column per value: the
# trained model played with --epsilon E.
set -u
perfdojo=${1:?usage: bench_loo.sh PERFDOJO [BUDGET] [EPISODES] [KERNELS...]}
budget=${2:-30}
episodes=${3:-40}
shift; [ $# -gt 0 ] && shift; [ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "$(dirname "$0")"/../../examples/*.dojo
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-loo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PERFDOJO_DB=${PERFDOJO_DB:-$tmp/m.db}
export PERFDOJO_DB
raw=${BENCH_RAW:-/dev/null}

# median KERNEL AGENT LABEL [OPTIONS...]: the median best speedup of 3
# seeds
median() {
	k=$1 a=$2 label=$3
	shift 3
	for seed in 1 2 3; do
		t0=$(date +%s)
		x=$("$perfdojo" tune "$k" --agent "$a" --budget "$budget" \
		    --seed "$seed" --session "$tmp/s-$(basename "$k")" "$@" \
		    2> /dev/null |
		    sed -n 's/^# best: .*, the start (no speedup.*/1/p;s/^# best: .*branch [^,]*, \([0-9.]*\)x.*/\1/p')
		echo "${x:-0}"
		echo "$(basename "$k" .dojo) $label $seed ${x:-failed}" \
		    "$(($(date +%s) - t0))" >> "$raw"
	done | sort -n | sed -n 2p
}

models=${BENCH_MODELS:-$tmp}
mkdir -p "$models"
printf '%-16s %8s %8s %8s' "held out" random "maxq" "trained"
for e in ${BENCH_LOO_EPSILON:-}; do
	printf ' %8s' "eps $e"
done
echo
for held in "$@"; do
	if [ -n "${BENCH_HELD:-}" ]; then
		case " $BENCH_HELD " in
		*" $(basename "$held" .dojo) "*) ;;
		*) continue ;;
		esac
	fi
	others=
	for k in "$@"; do
		[ "$k" = "$held" ] || others="$others $k"
	done
	model=$models/$(basename "$held" .dojo).model
	if [ ! -s "$model" ]; then
		t0=$(date +%s)
		# shellcheck disable=SC2086
		"$perfdojo" train --agent maxq $others --episodes "$episodes" \
		    --model "$model" > /dev/null 2>&1 ||
		    { echo "train failed"; exit 1; }
		echo "$(basename "$held" .dojo) train - -" \
		    "$(($(date +%s) - t0))" >> "$raw"
	fi
	printf '%-16s %7sx %7sx %7sx' "$(basename "$held" .dojo)" \
	    "$(median "$held" random random)" "$(median "$held" maxq maxq)" \
	    "$(median "$held" maxq maxq-trained --model "$model")"
	for e in ${BENCH_LOO_EPSILON:-}; do
		printf ' %7sx' "$(median "$held" maxq "maxq-trained-eps$e" \
		    --model "$model" --epsilon "$e")"
	done
	echo
done
