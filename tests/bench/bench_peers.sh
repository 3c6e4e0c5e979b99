#!/bin/sh
# bench_peers.sh PERFDOJO TOP: every example naive, after its move file
# (examples/NAME.actions, or NAME.avx2.actions on a CPU with AVX2 and no
# AVX-512), and PyTorch eager on the same formulas and
# shapes (tests/bench/peers.py), at 1 thread and at all threads, in one
# run; the 512 matmul also against OpenBLAS (bench_gemm).  Figures are
# printed, never asserted (doc/evaluation.md).
#   BENCH_KERNELS   the examples (default: every one with a move file)
#   BENCH_REPEAT    alternate rounds of move file and PyTorch (default 3)
#   BENCH_RAW       a file that keeps each row's raw times (appended)
# The ratio torch/moves is the median of the rounds' ratios, with their
# smallest and largest: above 1, the move file is faster.
set -u
P=${1:?usage: bench_peers.sh PERFDOJO TOP}
top=${2:?usage: bench_peers.sh PERFDOJO TOP}
repeat=${BENCH_REPEAT:-3}
all=$(nproc)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-peers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export PERFDOJO_DB="$tmp/m.db"

# PyTorch as the build installs its packages: Debian's, with apt-get
py=/usr/bin/python3
if ! "$py" -c 'import torch' 2> /dev/null; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "bench-peers: installing python3-torch" >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	    --no-install-recommends python3-torch >&2 || true
fi
. "$top/tests/bench/lib.sh"
# OpenBLAS picks its kernels by the processor's model: a virtual machine
# that hides it ("Intel(R) Xeon(R) Processor") gets the generic Prescott
# ones, 4 to 5 times slower than its AVX-512 ones (checked with
# openblas_get_corename); name them, for torch's too
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -q '\<avx512f\>' /proc/cpuinfo; then
	OPENBLAS_CORETYPE=SkylakeX
	export OPENBLAS_CORETYPE
	echo "bench-peers: OPENBLAS_CORETYPE=SkylakeX (AVX-512 here)" >&2
fi
torch=$(torch_peer bench-peers "python3-torch could not be installed; its columns are empty")
kernels=${BENCH_KERNELS:-$(examples "$top")}
avx2=""
for k in $kernels; do
	case $(move_file "$top" "$k") in
	*.avx2.actions) avx2="$avx2 $k" ;;
	esac
done
[ -z "$avx2" ] ||
    echo "# AVX2 and no AVX-512 here: NAME.avx2.actions for$avx2"

# measure FILE THREADS OUT: the median in ns (empty when it failed)
measure() {
	"$P" measure "$1" -n "$2" --fresh --json > "$3" 2> "$3.err" || true
	field "$3" median_ns
}

printf '%-15s %3s %11s %11s %11s %8s %8s %-11s %s\n' kernel thr "naive_us" \
    "moves_us" "torch_us" "GFLOP/s" "naive/mv" "torch/mv" "(min-max)"
for k in $kernels; do
	"$P" apply "$top/examples/$k.dojo" --actions "$(move_file "$top" "$k")" \
	    -o "$tmp/$k.dojo" 2> "$tmp/err" || {
		echo "$k: the move file does not apply: $(cat "$tmp/err")"
		continue
	}
	for t in 1 $all; do
		[ "$t" = 1 ] || [ "$all" != 1 ] || continue
		naive=$(measure "$top/examples/$k.dojo" "$t" "$tmp/naive.json")
		ratios="" moves="" torches=""
		r=0
		while [ $r -lt "$repeat" ]; do
			r=$((r + 1))
			m=$(measure "$tmp/$k.dojo" "$t" "$tmp/moves.json")
			[ -n "$m" ] || { sed 's/^/# /' "$tmp/moves.json.err"; break; }
			moves="$moves $m"
			[ $torch = yes ] || continue
			p=$(torch_ns "$top" "$k" "$t")
			[ -n "$p" ] || continue
			torches="$torches $p"
			ratios="$ratios $(ratio "$p" "$m")"
		done
		ops=$(field "$tmp/moves.json" ops)
		echo "$k $t ${naive:-0} ${ops:-0} |$moves |$torches |$ratios" |
		    tee -a "${BENCH_RAW:-/dev/null}" | awk '
		# the median of the numbers of "s", their least into lo and
		# their largest into hi
		function med(s,   a, n, i, j, x) {
			n = split(s, a, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
					x = a[j]; a[j] = a[j - 1]; a[j - 1] = x
				}
			lo = a[1]; hi = a[n]; cnt = n
			return n ? a[int((n + 1) / 2)] : ""
		}
		{
			split($0, part, "|")
			split(part[1], h, " ")
			m = med(part[2]); t = med(part[3]); r = med(part[4])
			gf = 0; nm = 0
			if (m > 0) { gf = h[4] / m; nm = h[3] / m }
			ts = "-"; rs = "-"; rr = ""
			if (t != "") ts = sprintf("%.1f", t / 1e3)
			if (r != "") {
				rs = sprintf("%.2fx", r)
				rr = sprintf("(%.2f-%.2f, %d rounds)", lo, hi, cnt)
			}
			printf "%-15s %3d %11.1f %11.1f %11s %8.2f %8.2f %-11s %s\n", \
			    h[1], h[2], h[3] / 1e3, m / 1e3, ts, gf, nm, rs, rr
		}'

	done
done

# the 512 matmul against OpenBLAS, with the matmul's move file
gemm=$(dirname "$P")/tests/bench/bench_gemm
if [ -x "$gemm" ] && [ -f "$top/examples/matmul.actions" ]; then
	echo
	echo "the 512 matmul against OpenBLAS cblas_sgemm (bench_gemm," \
	    "$(basename "$(move_file "$top" matmul)")):"
	"$gemm" "$top/examples/matmul.dojo" "$(move_file "$top" matmul)"
else
	echo "bench-peers: PEER MISSING: OpenBLAS (bench_gemm is not built:" \
	    "libopenblas-dev, make bench-peers builds it)" >&2
fi
