# reliability.sh: what random walks and fuzzing once found (wrong integer
# answers, invalid C, valid files that hang), each kept fixed.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO

# agree FILE DESCRIPTION: the interpreter and the C target (exact) print
# the same
agree() {
	"$P" run "$1" > "$tmp/i" 2>&1 && "$P" run "$1" --target c --exact > "$tmp/c" 2>&1
	ok $? "$2: both run"
	same "$(cat "$tmp/i")" "$(cat "$tmp/c")" "$2: C agrees with the interpreter"
}

# rfactor of integer max= and min=: the partial results start at the
# type's extreme, not at -inf turned into an integer
for t in i32 i64; do
	for u in max min; do
		cat > "$tmp/r.dojo" <<DOJO
x $t [8] heap in
m $t [1] heap out
m[0] = $( [ $u = max ] && echo -100 || echo 100 )
2 | 4 | m[0] $u= x[{0}*4 + {1}] - 20
DOJO
		"$P" apply "$tmp/r.dojo" 'rfactor 1' -o "$tmp/rf.dojo"
		ok $? "rfactor of $t $u= is legal"
		same "$("$P" run "$tmp/r.dojo")" "$("$P" run "$tmp/rf.dojo")" \
		    "rfactor keeps the answer of $t $u="
		agree "$tmp/rf.dojo" "rfactored $t $u="
	done
done

# vector reductions of integers: += and *= through the helpers
for t in i32 i64; do
	for u in '+=' '*=' 'max=' 'min='; do
		cat > "$tmp/v.dojo" <<DOJO
x $t [16] heap in
s $t [1] heap out
s[0] = 1
16 | s[0] $u x[{0}]
DOJO
		"$P" apply "$tmp/v.dojo" 'vectorize 1' -o "$tmp/vv.dojo"
		ok $? "vectorize of a $t $u reduction is legal"
		agree "$tmp/vv.dojo" "vector $t $u"
	done
done

# numbers in integer operations: inf is saturated in C as in the interpreter
cat > "$tmp/n.dojo" <<'DOJO'
a i32 [1] heap out
b i64 [2] heap out
a[0] = -inf
b[0] = inf
b[1] = 2.9 - 1e30
DOJO
agree "$tmp/n.dojo" "infinities and large numbers in integer operations"

# sizes with large prime factors list their moves at once
for n in 1000000000039 4611686018427387904 9223372036854775783; do
	printf 'x f32 [%s] heap out\n%s | x[{0}] = 1\n' $n $n > "$tmp/big.dojo"
	timeout 20 "$P" actions "$tmp/big.dojo" > "$tmp/acts"
	ok $? "actions on a scope of $n ends"
done
n=4611686018427387904
printf 'x f32 [%s] heap out\n%s | x[{0}] = 1\n' $n $n > "$tmp/big.dojo"
same 61 "$("$P" actions "$tmp/big.dojo" | grep -c '^split 0 ')" \
    "a scope of 2^62 splits by its 61 divisors"

# a chain of 160 operations in one scope
{
	echo "t0 f32 [64] heap in"
	i=1
	while [ $i -lt 160 ]; do echo "t$i f32 [64] heap"; i=$((i + 1)); done
	echo "t160 f32 [64] heap out"
	echo "64 | t1[{0}] = t0[{0}] + 1"
	i=2
	while [ $i -le 160 ]; do
		echo "   | t$i[{0}] = t$((i - 1))[{0}] * 2"
		i=$((i + 1))
	done
} > "$tmp/chain.dojo"
timeout 60 "$P" actions "$tmp/chain.dojo" > "$tmp/acts"
ok $? "actions on a chain of 160 operations ends"
grep -q '^fission 0 159$' "$tmp/acts"
ok $? "the chain's fissions are listed"

# a file may unroll more than the moves allow: loops past 256 copies
printf 'x f32 [64] heap out\n64:u | 64:u | 64:u | 64:u | x[{0}] = 1\n' \
    > "$tmp/unrolled.dojo"
timeout 60 "$P" emit "$tmp/unrolled.dojo" > "$tmp/unrolled.c"
ok $? "emit of 64^4 unrolled copies ends"
[ "$(wc -c < "$tmp/unrolled.c")" -lt 1000000 ]
ok $? "... with loops past 256 copies"
agree "$tmp/unrolled.dojo" "four nested unrolled scopes of 64"
"$P" apply "$top_srcdir/examples/matmul.dojo" 'split 0.0.1 64' \
    'unroll 0.0.1.0' 'split 0.0 4' 'unroll 0.0.0' 'split 0 32' \
    'unroll 0.0' 2> "$tmp/err" > /dev/null
grep -q "would copy a body over 256 times" "$tmp/err"
ok $? "unroll refuses 32 x 4 x 64 copies of a body"
"$P" apply "$top_srcdir/examples/matmul.dojo" 'split 0 16' 'unroll 0' \
    'parallelize 0.0' 2> "$tmp/err" > /dev/null
grep -q "parallel scope inside an unrolled one" "$tmp/err"
ok $? "parallelize refuses a scope inside an unrolled one"

# the reference interpreter keeps the time limit
printf 'x f32 [1] heap out\nx[0] = 0\n1000000 | 1000000 | 1000 | x[0] += 1\n' \
    > "$tmp/long.dojo"
timeout 60 "$P" measure "$tmp/long.dojo" --timeout 1 --db "$tmp/m.db" \
    2> "$tmp/err"
same 1 $? "measure of a 10^15-iteration nest fails"
grep -q "the interpreter ran past the time limit of 1 s" "$tmp/err"
ok $? "... because the interpreter ran past the time limit"
timeout 60 "$P" run "$tmp/long.dojo" --timeout 1 2> "$tmp/err"
same 1 $? "run --timeout limits the interpreter too"
# what a file cannot do (doc/security.md): names of libc functions
# own stay names of arrays in the generated code
cat > "$tmp/names.dojo" <<'DOJO'
printf f32 [4] heap in
system f32 [4] heap out
exit f32 [4] heap
abort f32 [4] heap
4 | exit[{0}] = printf[{0}] * 2
  | abort[{0}] = exit[{0}] + 1
  | system[{0}] = abort[{0}]
DOJO
agree "$tmp/names.dojo" "arrays named printf, system, exit and abort"

# a session runs no git hook: libgit2 writes its commits
"$P" apply "$top_srcdir/examples/matmul.dojo" 'split 0.0.1 32' \
    --session "$tmp/s" > /dev/null 2>&1
for h in pre-commit post-commit commit-msg reference-transaction \
    post-checkout; do
	printf '#!/bin/sh\ntouch "%s/hook-ran"\n' "$tmp" > "$tmp/s/hooks/$h"
	chmod +x "$tmp/s/hooks/$h"
done
"$P" apply "$top_srcdir/examples/matmul.dojo" 'split 0.0.1 32' 'swap 0' \
    --session "$tmp/s" > /dev/null 2>&1 &&
    "$P" checkout HEAD~1 --session "$tmp/s" -o "$tmp/prev.dojo" > /dev/null 2>&1
ok $? "steps and a checkout in a session with hooks"
[ ! -e "$tmp/hook-ran" ]
ok $? "no hook of the session ran"
done_testing
