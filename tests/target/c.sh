# c.sh: the C target in the exact mode computes bit for bit what the
# interpreter computes, on every example kernel and on every golden moved
# kernel (flags as OpenMP loops, caches, packs, folds), and within the
# tolerance in the fast mode (contraction, vector math); each failure is
# an outcome.
. "$top_srcdir/tests/lib.sh"

for f in "$top_srcdir"/tests/ref/*.dojo "$top_srcdir"/tests/moves/cases/*.out; do
	name=${f#"$top_srcdir"/}
	cp "$f" "$tmp/k.dojo"
	"$PERFDOJO" run "$tmp/k.dojo" > "$tmp/interp" 2>&1
	"$PERFDOJO" run --target c --exact "$tmp/k.dojo" > "$tmp/c" 2>&1
	"$PERFDOJO" run --target c --check "$tmp/k.dojo" > "$tmp/fast" 2>&1
	ok $? "$name: the fast mode agrees with the interpreter (tolerance)"
	[ -s "$tmp/fast" ] && grep -q 'wrong answer' "$tmp/fast" &&
	    sed 's/^/# /' "$tmp/fast"
	case $name in
	*reduction*|*rfactor*)
		# a vector reduction sums in lanes: the sums agree closely
		paste -d' ' "$tmp/interp" "$tmp/c" | awk '{
		    split($2, a, "="); split($6, b, "=");
		    d = a[2] - b[2]; if (d < 0) d = -d;
		    m = a[2] < 0 ? -a[2] : a[2];
		    if (NF < 8 || d > 1e-4 * m + 1e-5) bad = 1 }
		    END { exit bad }'
		ok $? "$name: C target agrees with the interpreter (tolerance)"
		;;
	*)
		cmp -s "$tmp/interp" "$tmp/c"
		ok $? "$name: C target agrees with the interpreter"
		;;
	esac
	[ -s "$tmp/c" ] || sed 's/^/# /' "$tmp/c"
done

# the blocked 512 matmul, parallel, against the naive one, both compiled
"$PERFDOJO" apply "$top_srcdir/examples/matmul.dojo" \
    --actions "$top_srcdir/examples/matmul-blocked.actions" > "$tmp/mmb.dojo"
"$PERFDOJO" run --target c -x "$top_srcdir/examples/matmul.dojo" > "$tmp/naive"
"$PERFDOJO" run --target c -x "$tmp/mmb.dojo" > "$tmp/blocked"
cmp -s "$tmp/naive" "$tmp/blocked"
ok $? "the blocked, parallel 512 matmul computes what the naive one computes"

# the code itself: OpenMP loops, a private panel, a vector loop
"$PERFDOJO" emit "$tmp/mmb.dojo" > "$tmp/mmb.c"
grep -q '#pragma omp parallel for' "$tmp/mmb.c" &&
    grep -q '#pragma omp simd' "$tmp/mmb.c"
ok $? "emit: parallel loops, simd loops"
# the register tile C_c written back: a copy loop GCC vectorizes without
# OpenMP simd, so that the tile stays in registers in the k loop (with
# "omp simd" on that loop, GCC 12 loads and stores the tile every k)
[ "$(grep -c '^[[:space:]]*DOJO_SIMD_COPY$' "$tmp/mmb.c")" = 4 ] &&
    grep -A1 DOJO_SIMD_COPY "$tmp/mmb.c" | grep -q 'i3 < 16'
ok $? "emit: the tile's write-back loops are DOJO_SIMD_COPY, the others omp simd"
"${CC:-cc}" -dM -E - < /dev/null > "$tmp/macros" 2> /dev/null
# fast_asm C S: the assembly of generated C, compiled as a measurement
# compiles it in the fast mode
fast_asm() {
	"${CC:-cc}" -O3 -march=native -fopenmp -ffp-contract=fast \
	    -fno-math-errno -S -o "$2" "$1"
}
if grep -q __GNUC__ "$tmp/macros" && ! grep -q __clang__ "$tmp/macros" &&
    [ "$(uname -m)" = x86_64 ] && grep -q ' avx2' /proc/cpuinfo; then
	fast_asm "$tmp/mmb.c" "$tmp/mmb.s"
	# the loop of the multiply-adds: from its first FMA to its branch back
	awk '/vfmadd/ && !f { f = 1 } f && /\(%rsp\)/ { n++ } f && /^\tj/ { exit }
	    END { exit !(f && n == 0) }' "$tmp/mmb.s"
	ok $? "compiled by GCC, the k loop keeps the tile in registers (no stack operand)"
	# the 4x16 tile's rows share each vector of B: tuned generic, GCC
	# loads it once, not once an FMA as a memory operand (codegen 7);
	# a broadcast of one element of A ({1to16}, AVX-512) is not that
	awk '/vfmadd/ && !f { f = 1 } f && /vfmadd.*\(/ && !/\{1to/ { n++ }
	    f && /^\tj/ { exit } END { exit !(f && n == 0) }' "$tmp/mmb.s"
	ok $? "compiled by GCC, no FMA of the tile takes its vector from memory"
else
	skip "the tile in registers" "not GCC on x86-64 with AVX2"
	skip "the tile's vectors loaded once" "not GCC on x86-64 with AVX2"
fi
# a row tile stepped by unrolled taps with no loop around the steps
# (depthwise_conv's move file: 9 taps x 7 vectors of y_c a row): the
# steps are DOJO_SIMD_TILE, and GCC keeps the row in registers; with
# "omp simd" it stored it back after every FMA (63 stores for 63 FMAs)
"$PERFDOJO" apply "$top_srcdir/examples/depthwise_conv.dojo" --actions \
    "$top_srcdir/examples/depthwise_conv.actions" -o "$tmp/dw.dojo" &&
    "$PERFDOJO" emit "$tmp/dw.dojo" > "$tmp/dw.c" &&
    [ "$(grep -c '^[[:space:]]*DOJO_SIMD_TILE$' "$tmp/dw.c")" = 63 ] &&
    [ "$(grep -c '^[[:space:]]*DOJO_SIMD_TILE$' "$tmp/mmb.c")" = 0 ]
ok $? "emit: unrolled tile steps with no loop around them are DOJO_SIMD_TILE, a k loop's not"
if grep -q __GNUC__ "$tmp/macros" && ! grep -q __clang__ "$tmp/macros" &&
    [ "$(uname -m)" = x86_64 ] && grep -q ' avx2' /proc/cpuinfo; then
	fast_asm "$tmp/dw.c" "$tmp/dw.s"
	fma=$(grep -c vfmadd "$tmp/dw.s")
	st=$(grep -c 'vmov[au]ps	%[yz]mm[0-9]*, .*(%r[sb]p)' "$tmp/dw.s")
	# (before: a store an FMA, 63 of 87 with AVX-512, 126 of 126 with
	# AVX2; now 14 of 87 and 28 of 126)
	[ "$fma" -ge 63 ] && [ $((st * 3)) -lt "$fma" ]
	ok $? "compiled by GCC, the row tile stays in registers ($st stack stores, $fma FMAs)"
else
	skip "the row tile in registers" "not GCC on x86-64 with AVX2"
fi
grep -A1 '^DOJO_TILE_TUNE$' "$tmp/mmb.c" | grep -q '^void$'
ok $? "emit: a kernel with a register tile is tuned generic (DOJO_TILE_TUNE)"
"$PERFDOJO" emit "$top_srcdir/examples/softmax.dojo" | grep -q DOJO_TILE_TUNE
same 1 $? "emit: a kernel without one is not"
# a ReLU in a register tile (a kernel tuned generic): GCC inlines max
# into the vector loop; a plain inline helper it called out of line, one
# scalar call an element ("target specific option mismatch")
cat > "$tmp/relu.dojo" << 'EOF2'
x f32 [8, 32] heap in
W f32 [32, 128] heap in
b f32 [128] heap in
h f32 [8, 128] heap out
8 | 128 | h[{0}, {1}] = b[{1}]
  |     | 32 | h[{0}, {1}] += x[{0}, {2}] * W[{2}, {1}]
  |     | h[{0}, {1}] = max(h[{0}, {1}], 0)
EOF2
printf '%s\n' 'split 0 4' 'split 0.0.0 64' 'swap 0.0' 'swap 0' \
    'cache 0.0.0 h stack' 'fission 0.0.0.0 1' 'fission 0.0.0.1 1' \
    'fission 0.0.0 1' 'fission 0.0.1 1' 'swap 0.0.1.0' 'swap 0.0.1' \
    'unroll 0.0.1.0' 'vectorize 0.0.1.0.0' 'unroll 0.0.0' \
    'vectorize 0.0.0.0' 'unroll 0.0.2' 'vectorize 0.0.2.0' 'unroll 0.0.3' \
    'vectorize 0.0.3.0' > "$tmp/relu.actions"
"$PERFDOJO" apply "$tmp/relu.dojo" --actions "$tmp/relu.actions" \
    -o "$tmp/relum.dojo" && "$PERFDOJO" emit "$tmp/relum.dojo" > "$tmp/relu.c" &&
    grep -q '^DOJO_TILE_TUNE$' "$tmp/relu.c" &&
    grep -q '= dojo_maxf(b_h_c\[' "$tmp/relu.c" &&
    "$PERFDOJO" run --target c --check "$tmp/relum.dojo" > /dev/null
ok $? "a ReLU in a register tile: tuned generic, and agrees with the interpreter"
if grep -q __GNUC__ "$tmp/macros" && ! grep -q __clang__ "$tmp/macros" &&
    [ "$(uname -m)" = x86_64 ]; then
	fast_asm "$tmp/relu.c" "$tmp/relu.s"
	! grep -q 'call.*dojo_maxf' "$tmp/relu.s"
	ok $? "compiled by GCC, the ReLU in the tile calls no helper"
else
	skip "the ReLU inlined" "not GCC on x86-64"
fi
# the panel: allocated once a thread, in a parallel region, before the
# loop whose iterations reuse it, and freed after it
awk '/#pragma omp parallel$/ { p = NR } /b_B_p = dojo_alloc\(8192 \* sizeof/ && NR == p + 2 { c = NR }
    /#pragma omp for$/ && c && NR == c + 1 { f = NR }
    /free\(b_B_p\)/ { if (f) ok = 1 } END { exit !ok }' "$tmp/mmb.c"
ok $? "emit: the packed panel allocated once a thread, not once an iteration"

# from here on the exact mode, compared bit for bit
# a temporary of a parallel loop's iterations, the whole array in size:
# once a thread too, and the values are the interpreter's
cat > "$tmp/tp.dojo" << 'EOF2'
x f32 [64, 48] heap in
y f32 [64, 48] heap out
v f32 [64, 48] heap
64:p | 48 | v[{0}, {1}] = x[{0}, {1}] * 3
     | 48 | y[{0}, {1}] = v[{0}, {1}] + v[{0}, 47 - {1}]
EOF2
"$PERFDOJO" emit "$tmp/tp.dojo" > "$tmp/tp.c" 2>&1
[ "$(grep -c 'dojo_alloc(3072 \* sizeof' "$tmp/tp.c")" = 1 ] &&
    grep -A1 'b_v = dojo_alloc' "$tmp/tp.c" | grep -q '#pragma omp for'
ok $? "emit: a parallel loop's private heap temporary, once a thread"
"$PERFDOJO" run "$tmp/tp.dojo" > "$tmp/interp" 2>&1
"$PERFDOJO" run --target c -x "$tmp/tp.dojo" > "$tmp/c" 2>&1
cmp -s "$tmp/interp" "$tmp/c"
ok $? "and the C target agrees with the interpreter"

# a vector loop's invariant reads (A[i, k] in the i, k, j product; the
# row's mean) loaded once before it, the others and every write in it
cat > "$tmp/inv.dojo" << 'EOF2'
A f32 [16, 8] heap in
B f32 [8, 32] heap in
C f32 [16, 32] heap out
m f32 [16] heap in
y f32 [16, 32] heap out
16 | 32   | C[{0}, {1}] = 0
   | 8    | 32:v | C[{0}, {2}] += A[{0}, {1}] * B[{1}, {2}]
   | 32:v | y[{0}, {1}] = C[{0}, {1}] - m[{0}] * m[{0}]
EOF2
"$PERFDOJO" emit "$tmp/inv.dojo" > "$tmp/inv.c" 2>&1
grep -A2 'const float dojo_inv0 = b_A\[8 \* i0 + 1 \* i1\];' "$tmp/inv.c" |
    grep -q '#pragma omp simd' &&
    grep -q 'b_C\[32 \* i0 + 1 \* i2\] = b_C\[32 \* i0 + 1 \* i2\] + (dojo_inv0 \* b_B\[' \
    "$tmp/inv.c" &&
    grep -q 'const float dojo_inv0 = b_m\[1 \* i0\];' "$tmp/inv.c" &&
    grep -q 'const float dojo_inv1 = b_m\[1 \* i0\];' "$tmp/inv.c" &&
    grep -q '= (b_C\[32 \* i0 + 1 \* i1\] - (dojo_inv0 \* dojo_inv1));' "$tmp/inv.c" &&
    ! grep -q 'dojo_inv.* = b_[Cy]' "$tmp/inv.c"
rc=$?
ok $rc "emit: a vector loop's invariant reads loaded once, before it"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/inv.c"
"$PERFDOJO" run "$tmp/inv.dojo" > "$tmp/interp" 2>&1
"$PERFDOJO" run --target c -x "$tmp/inv.dojo" > "$tmp/c" 2>&1
cmp -s "$tmp/interp" "$tmp/c"
ok $? "and the C target agrees with the interpreter"

# the fast mode's vector loop divides by what is invariant in it (a read,
# or an operation on reads: batchnorm's square root) as a multiplication
# by its reciprocal, computed once; the exact mode divides
"$PERFDOJO" apply "$top_srcdir/examples/batchnorm.dojo" --actions \
    "$top_srcdir/examples/batchnorm.actions" -o "$tmp/bn.dojo" &&
    "$PERFDOJO" emit "$tmp/bn.dojo" > "$tmp/bn.c" &&
    "$PERFDOJO" emit --exact "$tmp/bn.dojo" > "$tmp/bnx.c" &&
    grep -q ' - dojo_inv0) \* (1.0f / sqrtf((fabsf(dojo_inv1) + 1e-5f))))' \
    "$tmp/bn.c" &&
    grep -q ' - dojo_inv0) / sqrtf((fabsf(dojo_inv1) + 1e-5f)))' \
    "$tmp/bnx.c" &&
    "$PERFDOJO" run --target c --check "$tmp/bn.dojo" > /dev/null
ok $? "emit: a division by an invariant square root, a multiplication in the fast mode"
if grep -q __GNUC__ "$tmp/macros" && [ "$(uname -m)" = x86_64 ]; then
	fast_asm "$tmp/bn.c" "$tmp/bn.s"
	! grep -q 'vdivp[sd]' "$tmp/bn.s"
	ok $? "compiled, batchnorm's vector loop divides nothing (one scalar division, before it)"
else
	skip "batchnorm's vector loop divides nothing" "not GCC or Clang on x86-64"
fi

# f32 literals: the float the interpreter rounds the double to, not the
# double's decimal (1.0000000596046448 is a tie of two floats as a
# double, and rounds to 1 through it; straight from its decimal, up)
cat > "$tmp/lit.dojo" << 'EOF2'
x f32 [4] heap in
y f32 [4] heap out
z f64 [1] heap out
4 | y[{0}] = x[{0}] * 1.0000000596046448 + 1.0000000596046448
1 | z[{0}] = 1.0000000596046448
EOF2
"$PERFDOJO" run "$tmp/lit.dojo" > "$tmp/interp" 2>&1
"$PERFDOJO" run --target c -x "$tmp/lit.dojo" > "$tmp/c" 2>&1
cmp -s "$tmp/interp" "$tmp/c"
rc=$?
ok $rc "an f32 literal between two floats: the C target agrees with the interpreter"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/interp" "$tmp/c"
"$PERFDOJO" emit "$tmp/lit.dojo" > "$tmp/lit.c" 2>&1
grep -q 'b_y\[1 \* i0\] = ((b_x\[1 \* i0\] \* 1.0f) + 1.0f);' "$tmp/lit.c" &&
    grep -q 'b_z\[1 \* i0\] = 1.0000000596046448;' "$tmp/lit.c"
ok $? "emit: an f32 literal as its float, an f64 one as its double"

# outcomes
m=$top_srcdir/tests/ref/matmul.dojo
PERFDOJO_FAULT=crash "$PERFDOJO" run --target c -x "$m" 2> "$tmp/err"
same 1 $? "a crashing kernel: status 1"
same "perfdojo: $m: crash: Segmentation fault" "$(cat "$tmp/err")" \
    "a crashing kernel is a crash outcome"
PERFDOJO_FAULT=hang "$PERFDOJO" run --target c --timeout 1 "$m" 2> "$tmp/err"
same "perfdojo: $m: timeout: the time limit ran out" "$(cat "$tmp/err")" \
    "a hanging kernel is a timeout outcome"
PERFDOJO_FAULT=wrong "$PERFDOJO" run --target c --check "$m" > /dev/null \
    2> "$tmp/err"
same 1 $? "run --check: a wrong answer is status 1"
grep -q "^perfdojo: $m: wrong answer (fast mode): C\[0\] is .*, expected .*$" \
    "$tmp/err"
ok $? "... naming the first element out of the tolerance"
CC=false "$PERFDOJO" run --target c -x "$m" 2> "$tmp/err"
same "perfdojo: $m: compile error: false failed (status 1)" \
    "$(cat "$tmp/err")" "a failing compiler is a compile error outcome"

# $CC is split on blanks into a command and its arguments, with no shell
CC="env cc" "$PERFDOJO" run --target c -x "$m" > "$tmp/c" 2>&1 &&
    "$PERFDOJO" run "$m" | cmp -s - "$tmp/c"
ok $? "a CC of two words runs the first with the second"
mkdir "$tmp/w"
(cd "$tmp/w" && CC='cc; touch cc-ran; cc' "$PERFDOJO" run --target c -x "$m" \
    > /dev/null 2> "$tmp/err")
grep -q "^perfdojo: $m: compile error: cc; touch cc-ran; cc: timeout: failed to run command .*cc;.*: No such file or directory$" \
    "$tmp/err"
ok $? "a CC with a ';' is words, not a shell command: 'cc;' is not found"
(cd "$tmp/w" && CC='cc; touch cc-ran; cc' PERFDOJO_DB=$tmp/m.db \
    "$PERFDOJO" measure "$m" > /dev/null 2>&1)
[ ! -e "$tmp/w/cc-ran" ]
ok $? "no shell ran CC to compile or to ask its version"
mkdir -p "$tmp/w/q'\$(touch pwned)'x"
(cd "$tmp/w" && TMPDIR=$(echo "$tmp"/w/q*) "$PERFDOJO" run --target c -x "$m" \
    > "$tmp/c" 2>&1) && "$PERFDOJO" run "$m" | cmp -s - "$tmp/c" &&
    [ ! -e "$tmp/w/pwned" ]
ok $? "a run with quotes and \$(...) in TMPDIR works and runs nothing"
done_testing
