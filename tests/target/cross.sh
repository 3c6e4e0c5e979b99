# cross.sh: the cross targets, aarch64 and riscv64: every example, as
# written, after its move file and after random legal walks, compiled for
# each and run under qemu-user, agrees with the interpreter; the variants;
# a time under qemu is never kept; the runner protocol with a local
# runner that stands for another machine; the errors.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
cd "$tmp" || exit 1
PERFDOJO_DB=$tmp/m.db
PERFDOJO_RUNNERS=$tmp/runners	# no runner of the user's
TMPDIR=$tmp/tmp			# where the runs make their folders
mkdir -p "$TMPDIR"
export PERFDOJO_DB PERFDOJO_RUNNERS TMPDIR

for tool in aarch64-linux-gnu-gcc qemu-aarch64 riscv64-linux-gnu-gcc \
    qemu-riscv64; do
	if ! command -v $tool > /dev/null 2>&1; then
		skip "the cross targets" "$tool is missing (./bootstrap installs gcc-aarch64-linux-gnu, gcc-riscv64-linux-gnu and qemu-user)"
		done_testing
		exit
	fi
done

"$P" targets > out
grep -q '^aarch64 ' out && grep -q 'qemu-aarch64: installed' out &&
    grep -q '^riscv64 ' out && grep -q '^ *riscv64:rvv: ' out
ok $? "perfdojo targets lists the cross targets, installed, with variants"

# every example as written, on both: their small twins (tests/ref, the
# same kernels at small extents); the examples themselves, and every move
# file, with DOJO_CROSS_FULL=1 (make check-long)
for k in "$top_srcdir"/tests/ref/*.dojo; do
	n=$(basename "$k" .dojo)
	for t in aarch64 riscv64; do
		"$P" run --target $t --check "$k" > out 2> err
		ok $? "$n (small) on $t under qemu agrees with the interpreter"
	done
done
grep -q '^# ran on riscv64, ' err
ok $? "the program says where it ran: riscv64"
if [ "${DOJO_CROSS_FULL:-0}" = 1 ]; then
	for k in "$top_srcdir"/examples/*.dojo; do
		n=$(basename "$k" .dojo)
		for t in aarch64 riscv64; do
			"$P" run --target $t --check "$k" > out 2> err
			ok $? "$n on $t under qemu agrees with the interpreter"
		done
	done
	moved=$(ls "$top_srcdir"/examples/*.actions | grep -v '\.cuda\.actions$')
else
	moved=""
	for n in softmax layernorm batchnorm bias_relu bias_gelu \
	    depthwise_conv matmul-blocked softmax.aarch64 \
	    depthwise_conv.aarch64; do
		moved="$moved $top_srcdir/examples/$n.actions"
	done
fi

# move files' kernels (vector, parallel, unrolled, packed code)
for f in $moved; do
	n=$(basename "$f" .actions)
	k=$top_srcdir/examples/${n%%[-.]*}.dojo
	"$P" apply "$k" --actions "$f" -o "$n.m.dojo" 2> err || {
		ok 1 "$n's move file applies"; continue; }
	"$P" run --target aarch64 --check "$n.m.dojo" > /dev/null 2> err
	ok $? "$n after its move file on aarch64 agrees with the interpreter"
done
for t in aarch64:sve aarch64:sve256 riscv64:rvv; do
	"$P" run --target $t --check softmax.m.dojo > /dev/null 2> err &&
	    "$P" run --target $t --check matmul-blocked.m.dojo > /dev/null 2>> err
	ok $? "the variant $t: the tuned softmax and matmul agree"
done

# exp in a vector loop is vector code on aarch64 (the code's own: GCC
# has no vector math library there), checked in the compiled object
"$P" emit --target aarch64 softmax.m.dojo > sm.c &&
    aarch64-linux-gnu-gcc -O3 -fopenmp -fno-math-errno -ffp-contract=fast \
    -c sm.c -o sm.o && aarch64-linux-gnu-objdump -d sm.o |
    awk '/<dojo_kernel._omp_fn.0>:/,/^$/' > sm.dis
grep -q 'fmla' sm.dis && ! grep -q 'bl.*expf' sm.dis
ok $? "softmax's exp on aarch64 is vector code (fmla), no call to expf"

# random legal walks: a seeded choice among the legal moves, step by step
seed=7
for k in "$top_srcdir"/tests/ref/*.dojo; do
	n=$(basename "$k" .dojo)
	cp "$k" w.dojo
	path=""
	for step in 1 2 3 4 5 6; do
		"$P" actions w.dojo > acts 2> /dev/null || break
		count=$(wc -l < acts)
		[ "$count" -gt 0 ] || break
		seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
		a=$(sed -n "$(( seed % count + 1 ))p" acts)
		"$P" apply w.dojo "$a" -o w2.dojo 2> /dev/null || break
		mv w2.dojo w.dojo
		path="$path; $a"
	done
	for t in aarch64 riscv64; do
		"$P" run --target $t --check w.dojo > /dev/null 2> err
		st=$?
		ok $st "$n after a random walk ($path) on $t agrees"
		[ $st -eq 0 ] || sed 's/^/# /' err
	done
done

# a time under qemu is printed, never kept
"$P" measure --target aarch64 "$top_srcdir/examples/softmax.dojo" > out
ok $? "measure --target aarch64 runs under qemu"
grep -q 'emulated by qemu-aarch64: not that machine.s time, and not kept' out
ok $? "... and says the time is emulated and not kept"
same 0 "$(sqlite3 "$PERFDOJO_DB" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)" \
    "... and the database has no run of it"

# the runner protocol: a local runner standing for a board
runner="sh $top_srcdir/tests/target/fake-remote $tmp/board qemu-aarch64"
"$P" run --target aarch64 --check --exact --runner "$runner" \
    "$top_srcdir/examples/layernorm.dojo" > via 2> err
ok $? "run through a runner: the outputs come back and agree"
[ -s board/ran ] && [ -f board/io/x.bin ]
ok $? "... the program and its inputs went to the board"
"$P" run "$top_srcdir/examples/layernorm.dojo" > here
cmp -s via here
ok $? "... the checksums are the interpreter's (the exact mode)"
"$P" measure --target aarch64 --runner "$runner" --json \
    "$top_srcdir/examples/softmax.dojo" > m.json 2> err
ok $? "measure through a runner"
fp=$(sed -n 's/.*"fingerprint": "\([0-9a-f]*\)".*/\1/p' m.json)
grep -q '"stored": true' m.json && [ ${#fp} -eq 40 ]
ok $? "... the time is kept, under a fingerprint"
same 1 "$(sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM runs WHERE fingerprint = '$fp' AND source = 'runner'")" \
    "... as one run from the runner"
"$P" measure --target aarch64 --runner "$runner" \
    "$top_srcdir/examples/softmax.dojo" > out 2> err
grep -q '^on aarch64, ' out && grep -q "kept under fingerprint ${fp%????????????????????????????}" out
ok $? "... the machine is the runner's side's (aarch64), the same fingerprint again"
same 2 "$(sqlite3 "$PERFDOJO_DB" "SELECT runs FROM measurements WHERE fingerprint = '$fp'")" \
    "... and the estimate combines its two runs"
"$P" measure --json "$top_srcdir/examples/softmax.dojo" > c.json 2> /dev/null
! grep -q "$fp" c.json
ok $? "this machine's time has another fingerprint"
FAKE_REMOTE_FAIL=1 "$P" run --target aarch64 --runner "$runner" \
    "$top_srcdir/examples/layernorm.dojo" > /dev/null 2> err
same 1 $? "a failing runner fails the run"
same "perfdojo: $top_srcdir/examples/layernorm.dojo: crash: the runner: fake-remote: the board does not answer" \
    "$(cat err)" "... in one line, the runner's own"
FAKE_REMOTE_LOSE=1 "$P" run --target aarch64 --runner "$runner" \
    "$top_srcdir/examples/layernorm.dojo" > /dev/null 2> err
same 1 $? "a runner that loses the outputs fails"
same "perfdojo: $top_srcdir/examples/layernorm.dojo: crash: the program's outputs: no y.out came back" \
    "$(cat err)" "... in one line"

# tune on the machine a runner reaches: each state timed there, checked,
# kept under its fingerprint; never under qemu-user
cp "$top_srcdir/tests/ref/bias_relu.dojo" relu.dojo
before=$(sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM runs WHERE source = 'runner'")
"$P" tune relu.dojo --target aarch64 --runner "$runner" --budget 4 \
    --agent random --seed 3 > tune.out 2> err
ok $? "tune --target aarch64 --runner plays on the board"
grep -q '^# perfdojo tune relu.dojo --agent random --seed 3: [1-4] measurements' tune.out &&
    git -C relu.dojo.session rev-parse -q --verify agent/random-1 > /dev/null
ok $? "... within its budget, its path on the branch agent/random-1"
after=$(sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM runs WHERE source = 'runner'")
[ $((after - before)) -ge 2 ]
ok $? "... each state's time kept as a run from the runner ($((after - before)))"
"$P" states relu.dojo > /dev/null
ok $? "... and perfdojo states lists what it measured"
"$P" tune relu.dojo --target aarch64 --runner - --budget 2 2> err
same 1 $? "tune under qemu-user is refused"
grep -q "needs a runner" err
ok $? "... saying that qemu's times are the emulator's"

# the runners file: a target's default runner; '-' is qemu-user here
echo "aarch64 sh $top_srcdir/tests/target/fake-remote $tmp/board2 qemu-aarch64  # the board" > runners
"$P" run --target aarch64 "$top_srcdir/examples/layernorm.dojo" > /dev/null 2>&1 &&
    [ -s board2/ran ]
ok $? "the runners file gives aarch64 its runner"
"$P" run --target aarch64:sve "$top_srcdir/examples/layernorm.dojo" > /dev/null 2>&1
rm -rf board2
"$P" run --target aarch64 --runner - "$top_srcdir/examples/layernorm.dojo" > /dev/null 2>&1 &&
    [ ! -e board2 ]
ok $? "--runner - runs it under qemu here"
rm -f runners

# errors, one line each
"$P" run --target aarch64:avx "$top_srcdir/examples/layernorm.dojo" 2> err
same 2 $? "an unknown variant is a usage error"
grep -q "^perfdojo run: target aarch64: unknown variant 'avx' (sve, sve256)" err
ok $? "... that lists the variants"
"$P" run --target c --runner x "$top_srcdir/examples/layernorm.dojo" 2> /dev/null
same 2 $? "--runner with the C target is a usage error"
"$P" run --target riscv64 --cflags -mno-such-flag "$top_srcdir/examples/layernorm.dojo" 2> err
same 1 $? "a program that does not compile fails"
same 1 "$(wc -l < err | tr -d ' ')" "... in one line"
grep -q 'compile error: riscv64-linux-gnu-gcc' err
ok $? "... naming the compiler"
"$P" emit --target aarch64 "$top_srcdir/examples/layernorm.dojo" > prog.c
grep -q '^main(int argc, char \*\*argv)' prog.c && grep -q '^dojo_kernel(void \*\*args)' prog.c
ok $? "emit --target aarch64 writes the standalone program"
same "" "$(ls "$TMPDIR")" "no folder of a run is left behind"

done_testing
