# lib.sh: what the benchmark scripts share (sourced)

# examples TOP: the names of the examples that have a move file
examples() {
	for a in "$1"/examples/*.actions; do
		n=$(basename "$a" .actions)
		[ -f "$1/examples/$n.dojo" ] && printf ' %s' "$n"
	done
}

# move_file TOP NAME: the example's move file for this machine: on an
# x86-64 CPU with AVX2 and no AVX-512, NAME.avx2.actions where there is
# one (its register tiles sized for 16 registers of 8 floats), else
# NAME.actions
move_file() {
	if [ -f "$1/examples/$2.avx2.actions" ] &&
	    grep -qw avx2 /proc/cpuinfo 2> /dev/null &&
	    ! grep -qw avx512f /proc/cpuinfo; then
		echo "$1/examples/$2.avx2.actions"
	else
		echo "$1/examples/$2.actions"
	fi
}

# field JSON NAME: a number of a perfdojo --json object in the file JSON
field() {
	sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1"
}

# torch_peer NAME WHY: "yes" when Debian's python3 imports torch; else
# "no", and NAME says on stderr that the peer is missing, and WHY
torch_peer() {
	if /usr/bin/python3 -c 'import torch' 2> /dev/null; then
		echo yes
	else
		echo "$1: PEER MISSING: PyTorch ($2)" >&2
		echo no
	fi
}

# torch_ns TOP KERNEL THREADS: PyTorch eager's median time in nanoseconds
# on the example KERNEL (tests/bench/peers.py), empty when it failed
torch_ns() {
	/usr/bin/python3 "$1/tests/bench/peers.py" "$2" "$3" |
	    awk '{ print $3 }'
}

# ratio A B: A / B, 4 decimals, a line
ratio() {
	echo "$1 $2" | awk '{ printf "%.4f\n", $1 / $2 }'
}
