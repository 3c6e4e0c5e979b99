# failclosed.sh: legality fails closed.  Under a sweep of memory limits
# around the least that "actions" needs, each run either lists the whole
# action set or exits non-zero with a one-line reason, and never lists a
# move that is not legal (isl's errors are refusals, not "no dependence").
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
k0=$top_srcdir/examples/conv2d.dojo

if [ "$ENABLE_ASAN" = yes ]; then
	# the sanitizers reserve terabytes of address space: no ulimit -v
	echo "1..0 # SKIP memory limits under AddressSanitizer"
	exit 0
fi
# the convolution with its channels and rows split: indices such as
# {1}*8 + {2}, which only isl answers (the kernel as it is is answered
# mostly in plain C, and its peak of memory is not in isl)
k=$tmp/conv2d-split.dojo
"$P" apply "$k0" 'split 2.0.0 8' 'split 1.0.0 8' 'split 0.0.0 2' > "$k"
"$P" actions "$k" > "$tmp/full"
ok $? "the action set without a limit"

# actions_at KB: run under a limit of KB KiB of address space; 0 if whole
actions_at() {
	(ulimit -v "$1" && exec "$P" actions "$k") > "$tmp/out" 2> "$tmp/err"
}

# the least limit that lists the whole set (to 64 KiB)
lo=8192
hi=1048576
while [ $((hi - lo)) -gt 64 ]; do
	mid=$(((lo + hi) / 2))
	if actions_at "$mid" && cmp -s "$tmp/out" "$tmp/full"; then
		hi=$mid
	else
		lo=$mid
	fi
done
echo "# whole at ${hi} KiB"

extra=0 lost=0 undecided=0 bad=0 runs=0
v=$((hi - 3000))
while [ "$v" -le "$((hi + 200))" ]; do
	runs=$((runs + 1))
	if actions_at "$v"; then
		cmp -s "$tmp/out" "$tmp/full" || lost=$((lost + 1))
	else
		grep -q 'legality could not be decided' "$tmp/err" &&
		    undecided=$((undecided + 1))
		# one line, or GMP's own abort on memory
		[ "$(wc -l < "$tmp/err")" -le 1 ] || bad=$((bad + 1))
	fi
	sort "$tmp/out" > "$tmp/out.sorted"
	n=$(sort "$tmp/full" | comm -13 - "$tmp/out.sorted" | wc -l)
	extra=$((extra + n))
	v=$((v + 40))
done
echo "# $runs runs, $undecided undecided"
same 0 "$extra" "no run lists a move the whole set does not have"
same 0 "$lost" "a run that succeeds lists the whole set"
same 0 "$bad" "a failed run says why in one line"
[ "$undecided" -gt 0 ]
ok $? "some runs met isl's errors and said legality could not be decided"

# the same for one move's check: refused with the reason, exit 1
a='parallelize 2.0.0.0.1'
"$P" actions "$k0" --why "$a" > "$tmp/why"
grep -q "carries the dependence" "$tmp/why"
ok $? "$a is refused for a dependence"
v=$((hi - 3000)) legal=0
while [ "$v" -le "$hi" ]; do
	(ulimit -v "$v" && exec "$P" actions "$k0" --why "$a") \
	    > "$tmp/out" 2> /dev/null
	grep -q "is legal" "$tmp/out" && legal=$((legal + 1))
	v=$((v + 100))
done
same 0 "$legal" "no memory limit makes $a legal"
done_testing
