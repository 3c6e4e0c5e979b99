#!/bin/sh
# bench_tune.sh PERFDOJO TOP: the default tuner (auto) on each example,
# its best state measured again against the example's move file
# (examples/NAME.actions, or NAME.avx2.actions on a CPU with AVX2 and
# no AVX-512) in alternate runs, and against PyTorch eager
# (tests/bench/peers.py); other agents at the same budget beside it.
# Figures are printed, never asserted (doc/evaluation.md).
#   BENCH_KERNELS   the examples (default: every one with a move file)
#   BENCH_AGENTS    the agents (default "auto"; "auto greedy random"
#                   compares them at equal budget)
#   BENCH_BUDGET    measurements per run (default 300)
#   BENCH_SECONDS   wall time per run at most (default 600)
#   BENCH_SEEDS     (default "1 2 3"); a row gives the median over them
#   BENCH_THREADS   (default "1 N", N all cores)
#   BENCH_LOO       1: auto plays each kernel with a model trained on the
#                   other examples (perfdojo train --demos, BENCH_EPISODES
#                   episodes, default 44); 0 (default): the shipped model
#   BENCH_MODELS    a folder that keeps the leave-one-out models
#                   (NAME.model), trained only when missing
#   BENCH_JOBS      compilers at once (default 2)
#   BENCH_DB        the measurement database (default: a new one); one
#                   that knows the examples makes the training quick
#   BENCH_RAW       a file that keeps one line per run (appended):
#                   kernel threads agent seed tuned/moves torch/tuned
#                   seconds revision host moves; agent "auto-loo" is auto
#                   with a leave-one-out model, revision the last
#                   commit that changed the code a run depends on (src,
#                   agents, ir, targets, models, examples), host the
#                   CPU's model name; lines that start with # are notes.
#                   tests/bench/bench-tune.raw keeps the protocol's lines
#                   across sessions (doc/evaluation.md)
#   BENCH_REPORT    1: run nothing, print the table of every line of
#                   BENCH_RAW (runs of several sessions add up to the
#                   3 seeds); BENCH_REV=R keeps the lines of revision R
#   BENCH_PAIRS     1 (with BENCH_REPORT): then time auto's median-seed
#                   state against each other agent's on this host, in
#                   alternate pairs, and count ahead / level / behind
#   BENCH_TRACES    a folder that keeps each run's trace
#                   (KERNEL-THREADS-AGENT-SEED.trace, tune --trace)
# Columns: tuned/moves is the tuned state's speedup against the move
# file's (above 1: the tuner beat the move file), torch/tuned PyTorch's
# time over the tuned state's (above 1: the tuned kernel is faster; a
# run's value the median of 3 pairs, PyTorch and the state measured one
# after the other), each the median over the seeds with the seeds'
# values after it.
set -u
P=${1:?usage: bench_tune.sh PERFDOJO TOP}
top=${2:?usage: bench_tune.sh PERFDOJO TOP}
all=$(nproc)
agents=${BENCH_AGENTS:-auto}
budget=${BENCH_BUDGET:-300}
seconds=${BENCH_SECONDS:-600}
seeds=${BENCH_SEEDS:-1 2 3}
threads=${BENCH_THREADS:-1 $all}
loo=${BENCH_LOO:-0}
episodes=${BENCH_EPISODES:-44}
jobs=${BENCH_JOBS:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-tune.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# one database: every agent sees the same first look of a state
export PERFDOJO_DB="${BENCH_DB:-$tmp/m.db}"
models=${BENCH_MODELS:-$tmp/models}
mkdir -p "$models" ${BENCH_TRACES:+"$BENCH_TRACES"}

. "$top/tests/bench/lib.sh"

# report: the table of the raw lines on stdin (one row for each kernel,
# threads and agent, in the order they first come, the median over the
# seeds), then how often auto (or auto-loo) beat every other agent
report() {
	awk -v rev="${BENCH_REV:-}" '
	function med(s,   a, n, i, j, x) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
			}
		list = ""
		for (i = 1; i <= n; i++)
			list = list (i > 1 ? " " : "") sprintf("%.2f", a[i])
		return n ? a[int((n + 1) / 2)] : 0
	}
	substr($1, 1, 1) == "#" || NF < 7 { next }
	rev != "" && $8 != rev { next }
	{
		# the rows of each host apart: a median over two
		# machines is no figure
		if (!($9 in hostn)) {
			hostn[$9] = ++hosts
			hostname[hosts] = $9
		}
		key = $1 " " $2 " " $3 " " $9
		if (!(key in vs)) {
			order[++rows] = key
			if (!(($1 " " $2 " " $9) in seen)) {
				seen[$1 " " $2 " " $9] = 1
				pairs[++npairs] = $1 " " $2 " " $9
			}
		}
		vs[key] = vs[key] " " $5; ts[key] = ts[key] " " $6
		ss[key] = ss[key] " " $7
		if ($8 != "" && !(($8 " " $9) in from)) {
			from[$8 " " $9] = 1
			origin = origin " " $8 "@" $9
		}
	}
	END {
		if (origin != "" && ENVIRON["REPORT_WINS"] != "")
			print "# revisions@hosts:" origin
		for (o = 1; o <= hosts; o++)
		for (r = 1; r <= rows; r++) {
			key = order[r]
			split(key, h, " ")
			if (h[4] != hostname[o])
				continue
			if (hosts > 1 && shown != o) {
				print "# on " hostname[o]
				shown = o
			}
			v = med(vs[key]); vl = list
			x = med(ts[key]); xl = list
			sc = med(ss[key])
			m[key] = v + 0
			printf "%-15s %3d %-8s %7.2fx %-26s %8.2fx %-26s %.0f\n", \
			    h[1], h[2], h[3], v, "(" vl ")", x, "(" xl ")", sc
		}
		wins = n = 0
		for (p = 1; p <= npairs; p++) {
			mine = ""; loo = ""; other = ""
			for (r = 1; r <= rows; r++) {
				key = order[r]
				split(key, h, " ")
				if (h[1] " " h[2] " " h[4] != pairs[p])
					continue
				# auto-loo, where a row has it, is the
				# player of the leave-one-out comparison
				if (h[3] == "auto-loo")
					loo = m[key]
				else if (h[3] == "auto")
					mine = m[key]
				else if (other == "" || m[key] > other)
					other = m[key]
			}
			if (loo != "")
				mine = loo
			if (mine != "" && other != "") {
				n++
				if (mine > other)
					wins++
			}
		}
		if (n > 0 && ENVIRON["REPORT_WINS"] != "")
			printf "auto beats every other agent on %d of %d rows" \
			    " (median of the seeds, against the move file)\n", \
			    wins, n
	}'
}

# torch_ratio KERNEL THREADS NS: PyTorch's time over the tuned state's,
# the median of 3 pairs taken one after the other (NS the first pair's
# state time): one pair alone is one moment of a host that slows its
# cores down by up to 1.6x for seconds at a time (doc/measure.md)
torch_ratio() (
	ns=$3
	for i in 1 2 3; do
		if [ $i -gt 1 ]; then
			"$P" measure "$tmp/best.dojo" -n "$2" --fresh --json \
			    > "$tmp/t.json" 2> /dev/null
			ns=$(field "$tmp/t.json" median_ns)
		fi
		p=$(torch_ns "$top" "$1" "$2")
		[ -n "$p" ] && [ -n "$ns" ] && ratio "$p" "$ns"
	done | sort -g |
	    awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
)

header() {
	printf '%-15s %3s %-8s %8s %-26s %9s %-26s %s\n' kernel thr agent \
	    tuned/mv "(seeds)" torch/tuned "(seeds)" "s/run"
}

# the CPU's model name, as the raw lines keep it
host=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1 |
    tr -cs 'A-Za-z0-9.\n-' '_')
host=${host:--}

# median_lines: of the raw lines on stdin of this host (and of revision
# BENCH_REV), the median seed's line of each kernel, threads and agent
median_lines() {
	awk -v host="$host" -v rev="${BENCH_REV:-}" '
	substr($1, 1, 1) == "#" || NF < 9 || $9 != host { next }
	rev == "" || $8 == rev' |
	    sort -s -k1,1 -k2,2n -k3,3 -k5,5g |
	    awk 'function flush() { if (n) print line[int((n + 1) / 2)] }
	{
		k = $1 " " $2 " " $3
		if (k != last) {
			flush()
			n = 0
			last = k
		}
		line[++n] = $0
	}
	END { flush() }'
}

# state KERNEL THREADS AGENT NAME: the median seed's state of AGENT
# rebuilt from its line's moves as $tmp/NAME.dojo; says so and fails
# when the moves do not apply
state() {
	awk -v k="$1" -v t="$2" -v a="$3" '
	$1 == k && $2 == t && $3 == a {
		for (i = 10; i <= NF; i++)
			printf "%s%s", $i, (i < NF ? " " : "")
		print ""
	}' "$tmp/median" | tr ';' '\n' | sed '/^ *$/d' > "$tmp/$4.actions"
	"$P" apply "$top/examples/$1.dojo" --actions "$tmp/$4.actions" \
	    -o "$tmp/$4.dojo" 2> /dev/null || {
		echo "# $1 $2 $3: its moves do not apply"
		return 1
	}
}

# pairs: for each kernel and threads of this host with auto (auto-loo
# where there is one) and other agents, the median seed's states timed
# against each other (measure --baseline, alternate pairs): ahead when
# the 95% interval is above 1, behind when under, else level.  Medians of
# two ratios against the move file a percent apart do not say which
# state is faster; this does.
pairs() {
	median_lines < "$BENCH_RAW" > "$tmp/median"
	ahead=0 level=0 rows=0
	for kt in $(awk '{ print $1 ":" $2 }' "$tmp/median" | sort -u); do
		k=${kt%:*} t=${kt#*:}
		mine=auto
		grep -q "^$k $t auto-loo " "$tmp/median" && mine=auto-loo
		grep -q "^$k $t $mine " "$tmp/median" || continue
		state "$k" "$t" "$mine" mine || continue
		worst=2 n=0
		for a in $(awk -v k="$k" -v t="$t" '$1 == k && $2 == t &&
		    $3 != "auto" && $3 != "auto-loo" { print $3 }' \
		    "$tmp/median"); do
			state "$k" "$t" "$a" other || continue
			"$P" measure "$tmp/mine.dojo" \
			    --baseline "$tmp/other.dojo" -n "$t" --fresh \
			    --runs 5 --json > "$tmp/pair.json" 2> /dev/null
			sp=$(field "$tmp/pair.json" speedup)
			lo=$(field "$tmp/pair.json" speedup_low)
			hi=$(field "$tmp/pair.json" speedup_high)
			if [ -z "$sp" ] || [ -z "$lo" ] || [ -z "$hi" ]; then
				echo "# $k $t $mine against $a: not measured"
				continue
			fi
			v=$(echo "$lo $hi" |
			    awk '{ print ($1 > 1) ? 2 : ($2 < 1) ? 0 : 1 }')
			[ "$v" -lt "$worst" ] && worst=$v
			n=$((n + 1))
			printf '%-15s %3d %-8s against %-8s %.3fx [%.3f, %.3f] %s\n' \
			    "$k" "$t" "$mine" "$a" "$sp" "$lo" "$hi" \
			    "$(echo behind level ahead | cut -d' ' -f$((v + 1)))"
		done
		[ "$n" -gt 0 ] || continue
		rows=$((rows + 1))
		[ "$worst" = 2 ] && ahead=$((ahead + 1))
		[ "$worst" = 1 ] && level=$((level + 1))
	done
	echo "timed in pairs: auto ahead of every other agent on $ahead" \
	    "of $rows rows, ahead or level on $((ahead + level))"
}

if [ "${BENCH_REPORT:-0}" = 1 ]; then
	[ -f "${BENCH_RAW:-}" ] || {
		echo "bench-tune: BENCH_REPORT=1 reads BENCH_RAW, a file" >&2
		exit 1
	}
	header
	REPORT_WINS=1 report < "$BENCH_RAW"
	[ "${BENCH_PAIRS:-0}" = 1 ] && pairs
	exit 0
fi
# the revision of the code a run depends on: the last commit that changed
# the tuner, the moves, the code generator, the models or the examples
# (a commit of docs or of this file's results leaves it), "-dirty" when
# those differ from it in the work tree
code="src agents ir targets models examples configure.ac"
# shellcheck disable=SC2086
rev=$(cd "$top" && git log -1 --format=%h -- $code 2> /dev/null)
# shellcheck disable=SC2086
[ -n "$rev" ] && ! (cd "$top" && git diff --quiet HEAD -- $code) &&
    rev=$rev-dirty
rev=${rev:--}
torch=$(torch_peer bench-tune "apt-get install python3-torch; its column is empty")
kernels=${BENCH_KERNELS:-$(examples "$top")}

# model K: the model auto plays K with
model() {
	if [ "$loo" != 1 ]; then
		echo "${PERFDOJO_MODEL:-}"
		return
	fi
	if [ ! -f "$models/$1.model" ]; then
		others=""
		for o in "$top"/examples/*.dojo; do
			[ "$(basename "$o" .dojo)" = "$1" ] || others="$others $o"
		done
		# shellcheck disable=SC2086
		"$P" train --agent maxq --demos $others --episodes "$episodes" \
		    --model "$models/$1.model" > "$tmp/train.out" 2>&1 || {
			echo "bench-tune: training without $1 failed:" \
			    "$(tail -1 "$tmp/train.out")" >&2
			return 1
		}
	fi
	echo "$models/$1.model"
}

header
: > "$tmp/run.raw"
for k in $kernels; do
	"$P" apply "$top/examples/$k.dojo" --actions "$(move_file "$top" "$k")" \
	    -o "$tmp/$k.moves.dojo" 2> "$tmp/err" || {
		echo "$k: the move file does not apply: $(cat "$tmp/err")"
		continue
	}
	m=$(model "$k") || continue
	for t in $threads; do
		for a in $agents; do
			label=$a
			[ "$a" = auto ] && [ "$loo" = 1 ] && label=auto-loo
			for s in $seeds; do
				opt=""
				[ "$a" = auto ] && [ -n "$m" ] && opt="--model $m"
				tf=${BENCH_TRACES:+$BENCH_TRACES/$k-$t-$a-$s.trace}
				[ -n "$tf" ] && opt="$opt --trace $tf"
				# shellcheck disable=SC2086
				"$P" tune "$top/examples/$k.dojo" --agent "$a" \
				    --budget "$budget" --seconds "$seconds" \
				    --seed "$s" --threads "$t" --jobs "$jobs" \
				    --session "$tmp/s-$k-$t-$a-$s" $opt \
				    > "$tmp/tune.out" 2> "$tmp/tune.err" || {
					echo "# $k $a seed $s: $(tail -1 "$tmp/tune.err")"
					continue
				}
				sec=$(sed -n 's/.* measurements in \([0-9.]*\) s$/\1/p' \
				    "$tmp/tune.out")
				sed '/^#/d' "$tmp/tune.out" > "$tmp/best.actions"
				"$P" apply "$top/examples/$k.dojo" \
				    --actions "$tmp/best.actions" \
				    -o "$tmp/best.dojo" 2> /dev/null || continue
				"$P" measure "$tmp/best.dojo" \
				    --baseline "$tmp/$k.moves.dojo" -n "$t" \
				    --fresh --json > "$tmp/vs.json" 2> /dev/null
				v=$(field "$tmp/vs.json" speedup)
				ns=$(field "$tmp/vs.json" median_ns)
				tr=""
				[ "$torch" = yes ] && [ -n "$ns" ] &&
					tr=$(torch_ratio "$k" "$t" "$ns")
				line="$k $t $label $s ${v:-0} ${tr:-0} ${sec:-0} $rev $host"
				line="$line $(tr '\n' ';' < "$tmp/best.actions")"
				echo "$line" >> "$tmp/run.raw"
				echo "$line" >> "${BENCH_RAW:-/dev/null}"
			done
			grep "^$k $t $label " "$tmp/run.raw" | report
		done
	done
done
REPORT_WINS=1 report < "$tmp/run.raw" | grep '^auto beats'
exit 0
