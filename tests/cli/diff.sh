# diff.sh: perfdojo diff: two states of a session, or kernel files, as a
# unified diff or side by side, of their programs, their C and their
# assembly; and its errors.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
cd "$tmp" || exit 1
cat > mm.dojo <<'EOF'
A f32 [16, 16] heap in
B f32 [16, 16] heap in
C f32 [16, 16] heap out
16 | 16 | C[{0}, {1}] = 0
   |    | 16 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]
EOF
"$P" apply mm.dojo 'swap 0' 'vectorize 0.0.1' --session s > /dev/null
ok $? "a session of two moves"

"$P" diff main~2 main --session s > out 2> err
ok $? "diff of two revisions succeeds"
cat > want <<'EOF'
--- main~2 (program)
+++ main (program)
@@ -1,5 +1,5 @@
 A f32 [16, 16] heap in
 B f32 [16, 16] heap in
 C f32 [16, 16] heap out
-i=16 | j=16 | C[{0}, {1}] = 0
-     |      | k=16 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]
+j=16 | i=16 | C[{1}, {0}] = 0
+     |      | k=16:v | C[{1}, {0}] += A[{1}, {2}] * B[{2}, {0}]
EOF
diff want out > /dev/null
ok $? "the unified diff of the programs, as diff -u writes it"
diff want out | sed 's/^/# /'

"$P" diff main~1 --session s > out
grep -q '^+++ HEAD (program)$' out && grep -q '^+ *| *| k=16:v |' out
ok $? "B left out is the current state"

"$P" diff --code main~1 main --session s > out
grep -q '^+.*#pragma omp simd reduction(+:dojo_acc0)' out &&
    grep -q '^-.*for (int64_t i2 = 0; i2 < 16; i2++) {' out
ok $? "--code compares the generated C"
! grep -q '^[-+].*dojo_maxf' out
ok $? "... the helpers, the same in both, are no change"

if command -v objdump > /dev/null 2>&1; then
	"$P" diff --asm main~1 main --session s > out 2> err
	ok $? "--asm compares the assembly"
	grep -q '^--- main~1 (asm)' out && grep -q '^[-+]	[a-z]' out
	ok $? "... instructions, one a line"
	! grep -q '^[-+] *[0-9a-f]*:	' out
	ok $? "... without their addresses"
else
	skip "--asm compares the assembly" "no objdump"
fi

"$P" diff -y --width 100 main~1 main --session s > out
ok $? "--side-by-side succeeds"
same 100 "$(awk '{ if (length($0) > n) n = length($0) } END { print n }' out)" \
    "side by side in 100 columns"
grep -q ' | ' out
ok $? "a changed line is marked |"

"$P" show mm.dojo > same.dojo
"$P" diff same.dojo mm.dojo > out 2> err
ok $? "two kernel files compare without a session"
[ ! -s out ] && grep -q 'the same program' err
ok $? "the same program: nothing on stdout, said on stderr"

"$P" diff mm.dojo main --session s > out
grep -q '^+.*16:v' out
ok $? "a kernel file against a revision"

"$P" diff nosuch main --session s 2> err
same 1 $? "an unknown revision fails"
same "perfdojo: s: unknown revision 'nosuch'" "$(cat err)" "... in one line"
"$P" diff 2> err
same 2 $? "no state is a usage error"
"$P" diff -y --width 5 main~1 main --session s 2> err
same 2 $? "a width below 20 is a usage error"

done_testing
