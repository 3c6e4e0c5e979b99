# lib.sh: what the benchmark scripts share (sourced)

# examples TOP: the names of the examples that have a move file
examples() {
	for a in "$1"/examples/*.actions; do
		n=$(basename "$a" .actions)
		[ -f "$1/examples/$n.dojo" ] && printf ' %s' "$n"
	done
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
