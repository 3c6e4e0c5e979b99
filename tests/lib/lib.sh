# lib.sh: perfdojo lib end to end: a library of a tuned session, a naive
# kernel and a family of two shapes builds with its own Makefile, passes its
# self-test, installs (DESTDIR), links from C with pkg-config and from
# CMake, runs from Python with NumPy, and is rebuilt byte for byte from its
# manifest; bad inputs leave nothing behind.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
w=$tmp/work
mkdir -p "$w"
cp "$top_srcdir/examples/bias_relu.dojo" "$top_srcdir/examples/layernorm.dojo" \
    "$w/"

# softmax KERNEL ROWS COLS: a softmax of ROWS x COLS, the family's shape
softmax() {
	cat > "$w/$1.dojo" <<EOF
# $1: softmax of each row of x [$2, $3], f32
x f32 [$2, $3] heap in
y f32 [$2, $3] heap out
m f32 [$2] heap
s f32 [$2] heap
$2 | m[{0}] = -inf
   | $3 | m[{0}] max= x[{0}, {1}]
   | s[{0}] = 0
   | $3 | y[{0}, {1}] = exp(x[{0}, {1}] - m[{0}])
   |    | s[{0}] += y[{0}, {1}]
   | $3 | y[{0}, {1}] = y[{0}, {1}] / s[{0}]
EOF
}
softmax sm_32x128 32 128
softmax sm_16x64 16 64
softmax sm_5x7 5 7

# a python3 with NumPy, if there is one
py=
for p in ${PYTHON3:-python3} python3 /usr/bin/python3; do
	if "$p" -c 'import numpy' 2> /dev/null; then
		py=$p
		break
	fi
done

cd "$w" || exit 1

# the tuned session: one move of bias_relu, measured
"$P" apply --session bias_relu.dojo.session --measure bias_relu.dojo \
    'split 0 2' > /dev/null 2> "$tmp/err"
ok $? "a measured session of bias_relu"

"$P" lib --name k out/k bias_relu.dojo layernorm.dojo sm_32x128.dojo \
    sm_16x64.dojo > "$tmp/out" 2> "$tmp/err"
ok $? "lib writes a library of four kernels"
cat "$tmp/err" | sed 's/^/# /'
grep -q '^k_bias_relu: bias_relu.dojo.session, tuned (1 move)' "$tmp/out"
ok $? "the session's state is the tuned one, said in the output"
grep -q '^k_layernorm: layernorm.dojo, the naive form (no tuned state)' \
    "$tmp/out"
ok $? "a kernel with no session is its naive form, said in the output"
grep -q '^k_sm: the family of k_sm_32x128, k_sm_16x64' "$tmp/out"
ok $? "two shapes of one operation make the family k_sm"
for f in k.h k.pc kConfig.cmake kConfigVersion.cmake k.py Makefile \
    manifest.json k_test.c k_bench.c k_bias_relu.c k_sm.c \
    data/sm_16x64.in.x.npy data/sm_16x64.out.y.npy; do
	[ -f out/k/$f ]
	ok $? "the library holds $f"
done
grep -q 'void k_bias_relu(const float \*x, const float \*b, float \*y);' \
    out/k/k.h
ok $? "the header declares each kernel with its typed arrays"
grep -q 'int k_sm(const float \*x, float \*y, int64_t x_dim0, int64_t x_dim1);' \
    out/k/k.h
ok $? "the header declares the family's entry point with its extents"
grep -q 'y\[i, j\] = max(x\[i, j\] + b\[j\], 0)' out/k/k.h
ok $? "the header gives the kernel's formula from its comment"
grep -q 'Tuned by PerfDojo: 1 move to state' out/k/k.h
ok $? "the header says the tuned state"
grep -q '^ \* [0-9.]*x the naive kernel (' out/k/k.h &&
    grep -q '^ \* on .*, [0-9]* threads\?\.$' out/k/k.h
ok $? "the header gives the measured speedup and the machine"
grep -q '^ \* x: const float\[1024\]\[1024\], in$' out/k/k.h &&
    grep -q '^ \* y: float\[1024\]\[1024\], out$' out/k/k.h
ok $? "the header gives each array's type, shape and role"
! ls -d out/k.tmp-* out/k.old-* > /dev/null 2>&1
ok $? "no temporary folder is left"

# its own Makefile: the libraries, the self-test, the benchmark
make -s -C out/k > "$tmp/make" 2>&1
ok $? "the library builds with its Makefile"
sed 's/^/# /' "$tmp/make" | head -n 20
[ -f out/k/libk.a ] && [ -f out/k/libk.so.1 ] && [ -L out/k/libk.so ]
ok $? "libk.a, libk.so.1 and the link libk.so"
objdump -p out/k/libk.so.1 2> /dev/null | grep -q 'SONAME *libk.so.1'
ok $? "the shared library has the soname libk.so.1"
make -s -C out/k check > "$tmp/check" 2>&1
ok $? "make check: the self-test passes"
same "16 passed, 0 failed" "$(grep -v "^make" "$tmp/check" | tail -n 1)" \
    "the self-test runs the kernels and the family both ways, alone and two threads at once"
make -s -C out/k bench > "$tmp/bench" 2>&1
ok $? "make bench runs"
same 4 "$(grep -c '^k_[a-z_0-9]* .*x$' "$tmp/bench")" \
    "the benchmark prints a row a kernel with its speedup"

# installed into a temporary root, used from C through pkg-config
make -s -C out/k install DESTDIR="$w/root" PREFIX=/usr > /dev/null 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr"
for f in include/k.h lib/libk.a lib/libk.so.1 lib/pkgconfig/k.pc \
    lib/cmake/k/kConfig.cmake share/k/k.py share/k/manifest.json; do
	[ -e "root/usr/$f" ]
	ok $? "installed: $f"
done
cat > use.c <<'EOF'
#include <stdio.h>
#include <k.h>
/* read x, run the kernel, write y: the arrays as raw floats */
static float x[1024 * 768], g[768], s[768], y[1024 * 768];
int main(void) {
	FILE *in = fopen("ln.in", "rb"), *out = fopen("ln.out", "wb");
	if (!in || fread(x, 4, 1024 * 768, in) != 1024 * 768 ||
	    fread(g, 4, 768, in) != 768 || fread(s, 4, 768, in) != 768)
		return 1;
	k_layernorm(x, g, s, y);
	return fwrite(y, 4, 1024 * 768, out) != 1024 * 768 || fclose(out);
}
EOF
PKG_CONFIG_PATH=$w/root/usr/lib/pkgconfig
export PKG_CONFIG_PATH
cc -o use use.c $(pkg-config --cflags --libs k) 2> "$tmp/err"
ok $? "a C program builds with pkg-config --cflags --libs k"
"$P" run layernorm.dojo --outputs ref > /dev/null
ok $? "the interpreter's outputs of layernorm"
if [ -n "$py" ]; then
	"$py" -c '
import numpy as np
with open("ln.in", "wb") as f:
    for a in "x", "gain", "shift":
        np.load("out/k/data/layernorm.in.%s.npy" % a).tofile(f)
' && LD_LIBRARY_PATH=$w/root/usr/lib ./use
	ok $? "the C program runs against the installed copy"
	"$py" -c '
import numpy as np, sys
want = np.load("ref/y.npy")
got = np.fromfile("ln.out", dtype=np.float32).reshape(want.shape)
rms = np.sqrt(np.mean(want.astype(np.float64) ** 2))
sys.exit(0 if np.all(np.abs(got - want) <= 1e-4 * (np.abs(want) + rms) + 1e-5) else 1)
'
	ok $? "the C program gets the interpreter's results"
else
	skip "the C program runs against the installed copy" "no NumPy"
	skip "the C program gets the interpreter's results" "no NumPy"
fi

# from Python, the installed module
"$P" run sm_32x128.dojo --outputs ref32 > /dev/null &&
    "$P" run sm_5x7.dojo --outputs ref5 > /dev/null
ok $? "the interpreter's outputs of two softmax shapes"
if [ -n "$py" ]; then
	cat > use.py <<'EOF'
import sys
import numpy as np
import k

def close(got, want):
    rms = np.sqrt(np.mean(want.astype(np.float64) ** 2))
    return np.all(np.abs(got - want) <= 1e-4 * (np.abs(want) + rms) + 1e-5)

what = sys.argv[1]
if what == "tuned":
    x = np.load("out/k/data/sm_32x128.in.x.npy")
    sys.exit(0 if close(k.sm_32x128(x), np.load("ref32/y.npy")) else 1)
if what == "family":
    x = np.load("out/k/data/sm_32x128.in.x.npy")
    sys.exit(0 if close(k.sm(x), np.load("ref32/y.npy")) else 1)
if what == "fallback":
    # a shape no input covered: the naive form, from the family's entry
    x = np.load("out/k/data/sm_32x128.in.x.npy")[:5, :7].copy()
    e = np.exp(x - x.max(axis=1, keepdims=True))
    sys.exit(0 if close(k.sm(x), e / e.sum(axis=1, keepdims=True)) else 1)
if what == "out":
    x = np.load("out/k/data/sm_32x128.in.x.npy")
    y = np.empty((32, 128), dtype=np.float32)
    r = k.sm_32x128(x, out=y)
    sys.exit(0 if r is y and close(y, np.load("ref32/y.npy")) else 1)
if what == "several":
    x = np.load("out/k/data/layernorm.in.x.npy")
    g = np.load("out/k/data/layernorm.in.gain.npy")
    s = np.load("out/k/data/layernorm.in.shift.npy")
    sys.exit(0 if close(k.layernorm(x, g, s), np.load("ref/y.npy")) else 1)
try:
    if what == "shape":
        k.sm_32x128(np.zeros((32, 127), dtype=np.float32))
    elif what == "dtype":
        k.sm_32x128(np.zeros((32, 128)))
    elif what == "count":
        k.layernorm(np.zeros((1024, 768), dtype=np.float32))
    elif what == "strided":
        k.sm_32x128(np.zeros((128, 32), dtype=np.float32).T)
except (TypeError, ValueError) as e:
    print(type(e).__name__ + ": " + str(e))
    sys.exit(0)
sys.exit(1)
EOF
	for c in tuned family fallback out several; do
		PYTHONPATH=$w/root/usr/share/k "$py" use.py $c 2> "$tmp/err"
		ok $? "python: $c gets the interpreter's results"
		sed 's/^/# /' "$tmp/err" | tail -n 3
	done
	PYTHONPATH=$w/root/usr/share/k "$py" use.py shape > "$tmp/py"
	same "ValueError: sm_32x128: array x must have shape (32, 128), not (32, 127)" \
	    "$(cat "$tmp/py")" "python: a wrong shape is a ValueError"
	PYTHONPATH=$w/root/usr/share/k "$py" use.py dtype > "$tmp/py"
	same "TypeError: sm_32x128: array x must be float32, not float64" \
	    "$(cat "$tmp/py")" "python: a wrong dtype is a TypeError"
	PYTHONPATH=$w/root/usr/share/k "$py" use.py count > "$tmp/py"
	same "TypeError: layernorm() takes 3 array(s) (x, gain, shift), got 1" \
	    "$(cat "$tmp/py")" "python: a missing array is a TypeError"
	PYTHONPATH=$w/root/usr/share/k "$py" use.py strided > "$tmp/py"
	same "ValueError: sm_32x128: array x must be C-contiguous (numpy.ascontiguousarray)" \
	    "$(cat "$tmp/py")" "python: a strided array is a ValueError"
else
	skip "python: the module" "no NumPy"
fi

# several outputs: a tuple, in the order of the declarations
cat > two.dojo <<'EOF'
# two: y = 2x and z = x + 1
x f32 [4, 3] heap in
y f32 [4, 3] heap out
z f32 [4, 3] heap out
4 | 3 | y[{0}, {1}] = x[{0}, {1}] * 2
  |   | z[{0}, {1}] = x[{0}, {1}] + 1
EOF
"$P" lib out/two two.dojo > /dev/null 2>&1 && make -s -C out/two > /dev/null 2>&1
ok $? "a library of a kernel with two outputs builds"
if [ -n "$py" ]; then
	PYTHONPATH=$w/out/two "$py" -c '
import sys, numpy as np, two
x = np.arange(12, dtype=np.float32).reshape(4, 3)
r = two.two(x)
sys.exit(0 if isinstance(r, tuple) and len(r) == 2 and
         np.array_equal(r[0], 2 * x) and np.array_equal(r[1], x + 1) else 1)'
	ok $? "python: two outputs come back as a tuple (y, z)"
else
	skip "python: two outputs come back as a tuple" "no NumPy"
fi

# CMake's find_package
if command -v cmake > /dev/null 2>&1; then
	mkdir -p cm
	cat > cm/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(use C)
find_package(k 1.0 REQUIRED)
add_executable(use ../use.c)
target_link_libraries(use k::k)
EOF
	cmake -S cm -B cm/build -DCMAKE_PREFIX_PATH="$w/root/usr" \
	    > "$tmp/cmake" 2>&1 && cmake --build cm/build > "$tmp/cmake" 2>&1
	ok $? "CMake: find_package(k) and k::k build the C program"
	sed 's/^/# /' "$tmp/cmake" | tail -n 5
else
	skip "CMake: find_package(k)" "no cmake"
fi

# the manifest rebuilds the same bytes
make -s -C out/k clean > /dev/null
"$P" lib out/k2 --from out/k/manifest.json > /dev/null 2> "$tmp/err"
ok $? "lib --from manifest.json rebuilds the library"
diff -r out/k out/k2 > "$tmp/diff"
ok $? "the rebuilt library is byte for byte the same"
head -n 10 "$tmp/diff" | sed 's/^/# /'
grep -q '"moves": \[' out/k/manifest.json &&
    grep -q '"split 0 2"' out/k/manifest.json
ok $? "the manifest holds each function's moves"
if [ -n "$py" ]; then
	"$py" -c '
import json, sys
m = json.load(open("out/k/manifest.json"))
f = {x["kernel"]: x for x in m["functions"]}
b = f["bias_relu"]
sys.exit(0 if m["perfdojo"] and m["format"] == 1 and
         len(b["state"]) == 40 and b["moves"] == ["split 0 2"] and
         b["speedup"] > 0 and len(b["fingerprint"]) == 40 and
         f["layernorm"]["tuned"] is False and f["layernorm"]["moves"] == []
         else 1)'
	ok $? "the manifest: version, state, moves, speedup, fingerprint a function"
else
	skip "the manifest's fields" "no python3"
fi

# --tune: tune, then write (the session is made and resumed)
"$P" lib out/t --tune --budget 2 --threads 1 sm_16x64.dojo > "$tmp/out" 2>&1
ok $? "lib --tune --budget 2 tunes and writes the library"
[ -d sm_16x64.dojo.session ] && [ -f out/t/t_sm_16x64.c ]
ok $? "--tune made the kernel's session and the library used it"
grep -q '^t_sm_16x64: sm_16x64.dojo.session' "$tmp/out"
ok $? "--tune's library takes the kernel from its session"

# bad input: one line, nothing written
cp -r out/k out/k.before
mkdir -p two
cp sm_5x7.dojo two/
"$P" lib out/k --name k sm_5x7.dojo two/sm_5x7.dojo 2> "$tmp/err"
same 1 $? "two inputs with one function name fail"
same "perfdojo: two/sm_5x7.dojo: two inputs make the function 'k_sm_5x7' (the other is sm_5x7.dojo)" \
    "$(cat "$tmp/err")" "... naming both"
diff -r out/k out/k.before > /dev/null
ok $? "... and the library there is left as it was"
cp sm_16x64.dojo 'bad-name.dojo'
"$P" lib out/b --name b bad-name.dojo 2> "$tmp/err"
same "perfdojo: bad-name.dojo: kernel name 'bad-name' is not a C identifier once prefixed ('b_bad-name')" \
    "$(cat "$tmp/err")" "a kernel name that is not a C identifier"
[ ! -e out/b ] && ! ls -d out/b.tmp-* > /dev/null 2>&1
ok $? "... and nothing is written"
"$P" lib /dev/null/lib --name b sm_16x64.dojo 2> "$tmp/err"
same 1 $? "an OUTDIR that cannot be written fails"
same 1 "$(wc -l < "$tmp/err")" "... with one line"
mkdir -p busy
echo mine > busy/notes.txt
"$P" lib busy sm_16x64.dojo 2> "$tmp/err"
same "perfdojo: busy: holds files and no manifest.json: not a library of perfdojo lib, not replaced" \
    "$(cat "$tmp/err")" "a folder that is not a library is not replaced"
same mine "$(cat busy/notes.txt)" "... and its files are kept"
cp sm_16x64.dojo unmeasured.dojo
"$P" apply --session unmeasured.dojo.session unmeasured.dojo 'split 0 2' \
    > /dev/null 2>&1
"$P" lib out/u --name u unmeasured.dojo 2> "$tmp/err"
same "perfdojo: unmeasured.dojo: no state for target c in the session unmeasured.dojo.session (no tag best/c, and its current state is not measured for c): name one, unmeasured.dojo=STATE" \
    "$(cat "$tmp/err")" "a session with no state for the target"
"$P" lib out/u --name u unmeasured.dojo=HEAD > /dev/null 2>&1 &&
    grep -q 'Tuned by PerfDojo: 1 move to state [0-9a-f]*; not measured' \
    out/u/u.h
ok $? "KERNEL.dojo=STATE names the state (tuned, not measured)"
state=$(sed -n 's/.*"state": "\([0-9a-f]\{12\}\).*/\1/p' out/u/manifest.json)
"$P" lib out/u2 --name u unmeasured.dojo="$state" > /dev/null 2>&1 &&
    grep -q "\"state\": \"$state" out/u2/manifest.json
ok $? "KERNEL.dojo=STATE takes a state id's first digits, as the header prints them"
sed 's/s\[{0}\] = 0$/s[{0}] = 0.5/' unmeasured.dojo > changed.dojo
cp -r unmeasured.dojo.session changed.dojo.session
"$P" lib out/ch --name ch changed.dojo=HEAD > /dev/null 2> "$tmp/err"
same "perfdojo: changed.dojo: not a state of the session changed.dojo.session (changed since?): the session's start is taken" \
    "$(cat "$tmp/err")" "a kernel file changed since its session was made is said"
grep -q '"program": ".*s\[{0}\] = 0\\n' out/ch/manifest.json &&
    ! grep -q '= 0\.5' out/ch/manifest.json
ok $? "... and the library is the session's kernel"
softmax sm_36x64 36 64
"$P" lib out/f --name f sm_32x128.dojo sm_36x64.dojo > "$tmp/out" 2>&1
grep -q '^f_sm: the family of f_sm_32x128, f_sm_36x64' "$tmp/out"
ok $? "a family's name is cut back to a word (f_sm, not f_sm_3)"
"$P" lib out/u --name u unmeasured.dojo=nosuch 2> "$tmp/err"
same "perfdojo: unmeasured.dojo=nosuch: no state or revision 'nosuch' in the session unmeasured.dojo.session" \
    "$(cat "$tmp/err")" "a state the session does not hold"
"$P" lib out/c --target cuda sm_16x64.dojo 2> "$tmp/err"
same "perfdojo: target 'cuda' cannot make a library yet (c can)" \
    "$(cat "$tmp/err")" "a target with no library"
printf '{\n  "format": 1,\n  "name": "k",\n  oops\n}\n' > bad.json
"$P" lib out/m --from bad.json 2> "$tmp/err"
grep -q '^perfdojo: bad.json:4:[0-9]*: ' "$tmp/err"
ok $? "a malformed manifest: FILE:LINE:COL"
sed 's/"split 0 2"/"split 0 4"/' out/k/manifest.json > tampered.json
"$P" lib out/m --from tampered.json 2> "$tmp/err"
grep -q "the moves of k_bias_relu reach state .*, not " "$tmp/err"
ok $? "a manifest whose moves do not reach its state is refused"
[ ! -e out/m ]
ok $? "... and nothing is written"

done_testing
