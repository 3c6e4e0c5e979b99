# scripts.sh: the scripts of scripts/ run to the end, with tiny budgets
# (nothing here depends on the measured times).
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
S=$top_srcdir/scripts
PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB

# tutorial: the naive matmul to the blocked one of matmul-blocked.actions
"$P" script "$S/tutorial.scm" > "$tmp/out" 2> "$tmp/err"
ok $? "tutorial.scm runs"
same "" "$(cat "$tmp/err")" "tutorial.scm: nothing on stderr"
grep -q '^Step 7\. ' "$tmp/out"
ok $? "tutorial.scm takes every step"
grep -q '^The naive kernel' "$tmp/out" &&
    grep -q 'parallelize 0.0.1: the scope carries' "$tmp/out"
ok $? "tutorial.scm shows a refusal"
"$P" apply "$top_srcdir/examples/matmul.dojo" --addresses \
    --actions "$top_srcdir/examples/matmul-blocked.actions" > "$tmp/blocked"
grep -Fq "$(tail -n 1 "$tmp/blocked")" "$tmp/out"
ok $? "tutorial.scm ends at the blocked kernel"
# the interpreter on the 512^3 product takes seconds, many more under
# the sanitizers
if [ "$ENABLE_ASAN" != yes ]; then
	"$P" script "$S/tutorial.scm" --run > "$tmp/out" 2> "$tmp/err"
	ok $? "tutorial.scm --run"
	grep -q '^  naive   ((sum' "$tmp/out" && grep -q '^  blocked ((sum' "$tmp/out"
	ok $? "tutorial.scm --run prints both checksums"
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - tutorial.scm --run # SKIP slow under the sanitizers"
fi

# random-search: a budget of 3, walks of 2
k=$top_srcdir/tests/ref/matmul.dojo
"$P" script "$S/random-search.scm" "$k" 3 2 > "$tmp/out" 2> "$tmp/err"
ok $? "random-search.scm runs"
same 3 "$(grep -c '^walk [0-9]* step [0-9]*: ' "$tmp/out")" \
    "random-search.scm measures three states"
grep -q '^best: ' "$tmp/out"
ok $? "random-search.scm names the best state"
sed -n '/^best: /,$p' "$tmp/out" | sed 1d > "$tmp/best.dojo"
"$P" check "$tmp/best.dojo" > /dev/null
ok $? "random-search.scm prints a valid kernel"
"$P" script "$S/random-search.scm" "$k" 3 2 > "$tmp/again" 2> /dev/null
same "$(grep '^walk' "$tmp/out" | cut -d'>' -f1)" \
    "$(grep '^walk' "$tmp/again" | cut -d'>' -f1)" \
    "random-search.scm walks the same way with the same seed"
"$P" script "$S/random-search.scm" 2> "$tmp/err"
same 2 $? "random-search.scm without a kernel exits 2"
grep -q '^usage: ' "$tmp/err"
ok $? "random-search.scm without a kernel prints its usage"

# tune-all: two kernels, one move each
mkdir "$tmp/k"
cp "$top_srcdir/tests/ref/matmul.dojo" "$top_srcdir/tests/ref/softmax.dojo" "$tmp/k"
"$P" script "$S/tune-all.scm" "$tmp/k" 1 > "$tmp/out" 2> "$tmp/err"
ok $? "tune-all.scm runs"
same "kernel start ms best ms speedup moves kept" \
    "$(head -n 1 "$tmp/out" | tr -s ' ')" "tune-all.scm's table header"
same "matmul softmax" "$(sed 1d "$tmp/out" | cut -d' ' -f1 | tr '\n' ' ' |
    sed 's/ $//')" "tune-all.scm: one row per kernel"

done_testing
