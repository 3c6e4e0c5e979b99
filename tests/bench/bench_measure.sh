# bench_measure.sh: how far measurements can be believed (make
# bench-measure; doc/measure.md).  Figures are printed, never asserted.
#
#   (a) one state measured in BENCH_PROCS separate processes (each with a
#       database of its own, so each runs the whole protocol): the spread
#       of their estimates (max/min - 1), at 1 thread and at all threads,
#       and of those not flagged disturbed;
#   (b) speedups measured quietly, then with a busy loop on one core:
#       the blocked 512 matmul against the naive one, and two states
#       about 10% apart; each busy ratio against its quiet value, and how
#       many were flagged disturbed.  A clean busy ratio more than 5% off
#       its quiet value is an undetected disturbance.
#
# usage: bench_measure.sh PERFDOJO SRCDIR
# Run it on a quiet machine: no build, no test, nothing else.
set -u
perfdojo=$1
src=$2
procs=${BENCH_PROCS:-10}
rounds=${BENCH_ROUNDS:-5}
all=$(nproc)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-bench.XXXXXX")
busy=
trap 'rm -rf "$tmp"; [ -n "$busy" ] && kill $busy 2> /dev/null' EXIT
PERFDOJO_WAIT=${PERFDOJO_WAIT:-1}
export PERFDOJO_WAIT
unset PERFDOJO_THREADS OMP_NUM_THREADS

naive=$src/examples/matmul.dojo
"$perfdojo" apply "$naive" --actions "$src/examples/matmul-blocked.actions" \
    > "$tmp/blocked.dojo" || exit 1
# the same without the packed panel of B: about 10% slower
grep -v '^pack 1.0 B\|^vectorize 1.0.0$' \
    "$src/examples/matmul-blocked.actions" > "$tmp/near.actions"
"$perfdojo" apply "$naive" --actions "$tmp/near.actions" > "$tmp/near.dojo" ||
    exit 1

field() {
	sed -n "s/.*\"$1\": \\([^,}]*\\).*/\\1/p" "$2"
}

echo "# (a) one state (the blocked 512 matmul) in $procs processes"
printf '%-8s %10s %10s %10s %8s %10s %13s\n' threads min_ms median_ms max_ms \
    spread disturbed clean_spread
for t in 1 "$all"; do
	: > "$tmp/a-$t"
	for i in $(seq "$procs"); do
		"$perfdojo" measure --json --threads "$t" \
		    --db "$tmp/a-$t-$i.db" "$tmp/blocked.dojo" > "$tmp/out" \
		    2> /dev/null
		echo "$(field median_ns "$tmp/out") $(field disturbed \
		    "$tmp/out")" >> "$tmp/a-$t"
	done
	# clean_spread: of the estimates not flagged disturbed
	sort -n "$tmp/a-$t" | awk -v t="$t" '
	    { x[NR] = $1; if ($2 == "true") d++
	      else { c[++nc] = $1 } }
	    END { printf "%-8s %10.4f %10.4f %10.4f %7.1f%% %7d/%d", t,
	        x[1] / 1e6, x[int((NR + 1) / 2)] / 1e6, x[NR] / 1e6,
	        100 * (x[NR] / x[1] - 1), d, NR
	        if (nc > 1)
	            printf " %7.1f%% of %d\n", 100 * (c[nc] / c[1] - 1), nc
	        else
	            printf " %12s\n", "-" }'
done

# one speedup: "ratio LABEL THREADS BASE FILE" appends "ratio disturbed"
ratio() {
	"$perfdojo" measure --json --threads "$2" --baseline "$3" \
	    --db "$tmp/b-$1-$2.db" "$4" > "$tmp/out" 2> /dev/null
	# flagged: disturbed, or an interval wider than +-5%
	f=$(field speedup_disturbed "$tmp/out")
	[ "$(field speedup_precise "$tmp/out")" = false ] && f=true
	echo "$(field speedup "$tmp/out") $f" \
	    "$(field speedup_low "$tmp/out") $(field speedup_high "$tmp/out")"
}

echo
echo "# (b) speedups, quiet and with a busy loop on one core ($rounds each)"
printf '%-16s %-7s %8s %-17s %8s %8s %9s %9s\n' pair threads quiet interval \
    busy_min busy_max flagged off_clean
for t in 1 "$all"; do
	for pair in blocked/naive near/blocked; do
		case $pair in
		blocked/naive) base=$naive; file=$tmp/blocked.dojo ;;
		near/blocked) base=$tmp/blocked.dojo; file=$tmp/near.dojo ;;
		esac
		label=$(echo "$pair" | tr / -)
		set -- $(ratio "$label-q" "$t" "$base" "$file")
		quiet=$1
		qint="[$3, $4]"
		taskset -c 0 sh -c 'while :; do :; done' &
		busy=$!
		: > "$tmp/busy"
		for i in $(seq "$rounds"); do
			ratio "$label-b$i" "$t" "$base" "$file" >> "$tmp/busy"
		done
		kill "$busy"
		wait "$busy" 2> /dev/null
		busy=
		# the quiet ratio, inverted for near/blocked (a slowdown)
		awk -v q="$quiet" -v t="$t" -v p="$pair" -v qi="$qint" '
		    { r = $1; if (min == "" || r < min) min = r
		      if (r > max) max = r
		      if ($2 == "true") f++
		      else if (r / q > 1.05 || r / q < 0.95) off++ }
		    END { printf "%-16s %-7s %8.4f %-17s %8.4f %8.4f %6d/%d %6d\n",
		        p, t, q, qi, min, max, f, NR, off }' "$tmp/busy"
	done
done
echo
echo "# flagged: busy ratios marked disturbed or wider than +-5%;"
echo "# off_clean: busy ratios not flagged but more than 5% from the quiet"
echo "# one (want 0)"
