# golden.sh: each move on a small kernel gives the expected canonical text
# (CASE.out) or is refused with the expected sentence (CASE.err); a moved
# kernel computes exactly what the original computes.
. "$top_srcdir/tests/lib.sh"

cd "$top_srcdir/tests/moves/cases" || exit 1
for actions in *.actions; do
	case=${actions%.actions}
	input=${case##*-}.dojo
	target=$(sed -n 's/^# target: *//p' "$actions")
	"$PERFDOJO" apply --actions "$actions" --target "${target:-c}" \
	    "$input" > "$tmp/out" 2> "$tmp/err"
	st=$?
	if [ -f "$case.out" ]; then
		same 0 "$st" "$case: applies"
		diff -u "$case.out" "$tmp/out" > "$tmp/diff"
		ok $? "$case: expected text"
		sed 's/^/# /' "$tmp/diff" "$tmp/err" | head -n 20
		"$PERFDOJO" check "$tmp/out" > /dev/null
		ok $? "$case: the result is valid"
		"$PERFDOJO" run "$input" > "$tmp/before"
		"$PERFDOJO" run "$tmp/out" > "$tmp/after"
		if grep -q '^rfactor' "$actions"; then
			# partial sums reassociate: the sums agree closely
			paste -d' ' "$tmp/before" "$tmp/after" | awk '{
			    split($2, a, "="); split($6, b, "=");
			    d = a[2] - b[2]; if (d < 0) d = -d;
			    m = a[2] < 0 ? -a[2] : a[2];
			    if (d > 1e-4 * m + 1e-5) bad = 1 }
			    END { exit bad }'
			ok $? "$case: computes the same outputs within the tolerance"
		else
			cmp -s "$tmp/before" "$tmp/after"
			ok $? "$case: computes the same outputs"
		fi
	else
		same 1 "$st" "$case: refused"
		same "$(cat "$case.err")" "$(cat "$tmp/err")" "$case: reason"
	fi
done

# the example sequence that blocks the 512 matmul
"$PERFDOJO" apply "$top_srcdir/examples/matmul.dojo" \
    --actions "$top_srcdir/examples/matmul-blocked.actions" > "$tmp/mmb.dojo"
ok $? "matmul-blocked.actions applies to the 512 matmul"
grep -q '^B_p f32 \[512, 16\] heap$' "$tmp/mmb.dojo" &&
    grep -q '^C_c f32 \[4, 16\] stack$' "$tmp/mmb.dojo" &&
    grep -q '| 512  | 4:u  | 16:v | C_c\[{3}, {4}\] += ' "$tmp/mmb.dojo" &&
    grep -Eq '^32:p +\| 512 +\| 16:v \| B_p' "$tmp/mmb.dojo"
ok $? "matmul-blocked: packed B panel, C tile, k outside the unrolled rows and vector columns, column blocks parallel"
"$PERFDOJO" run "$top_srcdir/examples/matmul.dojo" > "$tmp/before"
"$PERFDOJO" run "$tmp/mmb.dojo" > "$tmp/after"
cmp -s "$tmp/before" "$tmp/after"
ok $? "matmul-blocked computes exactly what the naive matmul computes"
done_testing
