# cuda.sh: the CUDA target: grid, block and warp scopes and shared memory
# emitted as CUDA; every example as written, after its move file and
# after random walks among the GPU moves, run on the CPU emulation
# (cuda:emu) agrees with the interpreter; the GPU move files compile with
# nvcc for sm_90; without a GPU, run says so in one line; an emulated
# time is never kept; the runner protocol with a local runner.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
cd "$tmp" || exit 1
PERFDOJO_DB=$tmp/m.db
PERFDOJO_RUNNERS=$tmp/runners	# no runner of the user's
TMPDIR=$tmp/tmp
mkdir -p "$TMPDIR"
export PERFDOJO_DB PERFDOJO_RUNNERS TMPDIR
ex=$top_srcdir/examples

"$P" targets > out
grep -q '^cuda ' out && grep -q '^ *cuda:emu: ' out && grep -q '^ *cuda:sm_80: ' out
ok $? "perfdojo targets lists cuda and its variants"

if ! command -v c++ > /dev/null 2>&1; then
	skip "the CUDA emulation" "no C++ compiler (./bootstrap installs g++)"
	done_testing
	exit
fi

# every example as written: its code in kernels of one thread
for k in "$top_srcdir"/tests/ref/*.dojo; do
	n=$(basename "$k" .dojo)
	"$P" run --target cuda:emu --check "$k" > /dev/null 2> err
	st=$?
	ok $st "$n (small), no GPU scope, on cuda:emu agrees with the interpreter"
	[ $st -eq 0 ] || sed 's/^/# /' err
done
grep -q '^# ran on .* (emulated by cuda:emu)$' err
ok $? "the run says it was emulated"

# the GPU move files
for n in softmax depthwise_conv matmul; do
	"$P" apply "$ex/$n.dojo" --target cuda --actions "$ex/$n.cuda.actions" \
	    -o "$n.cu.dojo" 2> err
	ok $? "$n.cuda.actions applies"
	grep -q ':g ' "$n.cu.dojo" && grep -q ':b ' "$n.cu.dojo"
	ok $? "... into grid and block scopes"
	"$P" emit --target cuda "$n.cu.dojo" > "$n.cu" 2> err
	ok $? "... and emit --target cuda writes its program"
done
for n in softmax depthwise_conv; do
	"$P" run --target cuda:emu --check "$n.cu.dojo" > /dev/null 2> err
	st=$?
	ok $st "$n after its GPU move file on cuda:emu agrees with the interpreter"
	[ $st -eq 0 ] || sed 's/^/# /' err
done
if [ "${DOJO_CROSS_FULL:-0}" = 1 ]; then
	"$P" run --target cuda:emu --check matmul.cu.dojo > /dev/null 2> err
	ok $? "matmul (shared-memory tiles) on cuda:emu agrees with the interpreter"
else
	skip "matmul's GPU move file on cuda:emu" "about 20 s: make check-long"
fi
grep -q '__shared__ float dojo_sh_A_c\[256\];' matmul.cu &&
    grep -q '__shared__ float dojo_sh_m_r\[32\];' softmax.cu
ok $? "shared buffers are __shared__ arrays of the kernel"
same 2 "$(sed -n '/^dojo_k1(/,/^}/p' matmul.cu | grep -c '__syncthreads')" \
    "matmul's tile loop has two barriers: none between the two copies, one before the products, one before the next copies"
same 0 "$(sed -n '/^dojo_k0(/,/^}/p' depthwise_conv.cu | grep -c '__syncthreads')" \
    "a kernel whose threads share nothing has no barrier"
grep -q '^	DOJO_LAUNCH(dojo_k1, 1024, 256, ' matmul.cu
ok $? "matmul's product: 1024 blocks of 256 threads"

nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
if [ -x "$nvcc" ]; then
	for n in softmax depthwise_conv matmul; do
		"$nvcc" -arch=sm_90 -O3 -o "$n.bin" "$n.cu" > err 2>&1
		st=$?
		ok $st "$n's CUDA compiles with nvcc for sm_90"
		[ $st -eq 0 ] || head -5 err | sed 's/^/# /'
	done
else
	skip "nvcc for sm_90" "nvcc is missing (CUDA_HOME=${CUDA_HOME:-unset})"
fi

# random walks that favour the GPU moves, each run on the emulation
seed=13
for k in "$top_srcdir"/tests/ref/*.dojo; do
	n=$(basename "$k" .dojo)
	cp "$k" w.dojo
	path=""
	for step in 1 2 3 4 5 6 7 8 9; do
		"$P" actions --target cuda w.dojo > acts 2> /dev/null || break
		grep -E '^(gpu-|move .* shared|split|fission|swap)' acts > gpu
		seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
		from=acts
		[ -s gpu ] && [ $((seed % 3)) -ne 0 ] && from=gpu
		count=$(wc -l < $from)
		[ "$count" -gt 0 ] || break
		seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
		a=$(sed -n "$(( seed % count + 1 ))p" $from)
		"$P" apply --target cuda w.dojo "$a" -o w2.dojo 2> /dev/null || break
		mv w2.dojo w.dojo
		path="$path; $a"
	done
	"$P" run --target cuda:emu --check w.dojo > /dev/null 2> err
	st=$?
	ok $st "$n after a GPU walk ($path) on cuda:emu agrees"
	[ $st -eq 0 ] || sed 's/^/# /' err
done

# without a GPU here: one line, and emit still works
if [ -e /dev/nvidiactl ]; then
	"$P" run --target cuda --check softmax.cu.dojo > /dev/null 2> err
	ok $? "softmax on this machine's GPU agrees with the interpreter"
else
	"$P" run --target cuda "$ex/softmax.dojo" > /dev/null 2> err
	same 1 $? "run --target cuda without a GPU fails"
	same 1 "$(wc -l < err | tr -d ' ')" "... in one line"
	grep -q 'target cuda: no device here (no /dev/nvidiactl)' err
	ok $? "... saying there is no GPU here"
fi

# an emulated time is printed, never kept
"$P" measure --target cuda:emu "$ex/softmax.dojo" > out 2> err
ok $? "measure --target cuda:emu runs"
grep -q 'emulated by cuda:emu: not that machine.s time, and not kept' out
ok $? "... and says the time is emulated and not kept"
same 0 "$(sqlite3 "$PERFDOJO_DB" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)" \
    "... and the database has no run of it"
"$P" tune "$top_srcdir/tests/ref/bias_relu.dojo" --target cuda:emu \
    --runner "sh $top_srcdir/tests/target/fake-remote $tmp/gpu env" \
    --budget 2 2> err
same 1 $? "tune on the emulation is refused"
grep -q "an emulation's times are not the machine's" err
ok $? "... saying why"

# the runner protocol: the program and its inputs there, outputs back
runner="sh $top_srcdir/tests/target/fake-remote $tmp/gpu env"
"$P" run --target cuda:emu --check --runner "$runner" softmax.cu.dojo \
    > /dev/null 2> err
ok $? "cuda:emu through a runner: the outputs come back and agree"
[ -s gpu/ran ] && [ -f gpu/io/x.bin ]
ok $? "... the program and its inputs went to the runner's side"
if [ -x "$nvcc" ] && [ ! -e /dev/nvidiactl ]; then
	"$P" run --target cuda --runner "$runner" softmax.cu.dojo \
	    > /dev/null 2> err
	same 1 $? "an nvcc program on a side without a GPU fails"
	grep -q "crash: the runner: no CUDA GPU here (" err &&
	    [ "$(wc -l < err)" -eq 1 ]
	ok $? "... in one line, the program's own"
fi

# the target's limits
printf 't f32 [16384] heap\ny f32 [4] heap out\n16384 | t[{0}] = 1\n4 | y[{0}] = t[{0}]\n' > big.dojo
"$P" apply --target cuda big.dojo 'move t shared' 2> err
same 1 $? "a shared buffer past 48 KB is refused"
grep -q 'bytes of shared buffers are over the shared memory of a block, 49152' err
ok $? "... saying the budget"
"$P" apply big.dojo 'move t shared' 2> err
grep -q 'shared memory exists on GPU targets only' err
ok $? "shared memory on the C target is refused"

same "" "$(ls "$TMPDIR")" "no folder of a run is left behind"
done_testing
