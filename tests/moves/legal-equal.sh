#!/bin/sh
# legal-equal.sh: whether two builds of perfdojo give byte-identical action
# sets and refusals.  A developer's check, not part of make check: run it
# before and after a change to the legality code.
#
#   tests/moves/legal-equal.sh REF NEW DIR [WALKS [STEPS]]
#
# REF and NEW are perfdojo binaries, DIR a scratch folder.  The states are
# every examples/*.dojo and every tests/**/*.dojo, and for each kernel
# that reads, WALKS (default 2) random walks of STEPS (default 4) legal
# actions drawn with REF (seeded, so the same each run; odd walks on the
# cuda target), every state of a walk kept.  For each state and each
# target (c, cuda), the output and exit status of "actions" and
# "actions --why" of REF and NEW are compared.  Prints one line per
# difference and a summary; exits 1 when any differ.
set -u
ref=$1 new=$2 dir=$3 walks=${4:-2} steps=${5:-4}
top=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$dir/states" "$dir/ref" "$dir/new" || exit 1
rm -f "$dir"/states/* "$dir"/ref/* "$dir"/new/*

n=0
for k in "$top"/examples/*.dojo $(cd "$top" && find tests -name '*.dojo' |
    sort | sed "s|^|$top/|"); do
	n=$((n + 1))
	name=$(printf '%03d' "$n")-$(basename "$k" .dojo)
	cp "$k" "$dir/states/$name.dojo"
	"$ref" show "$k" > /dev/null 2>&1 || continue
	w=0
	while [ "$w" -lt "$walks" ]; do
		t=c
		[ $((w % 2)) -eq 1 ] && t=cuda
		cur=$k
		s=0
		while [ "$s" -lt "$steps" ]; do
			"$ref" actions --target "$t" "$cur" > "$dir/list" \
			    2> /dev/null || break
			act=$(awk -v seed="$n$w$s" 'BEGIN { srand(seed) }
			    { line[NR] = $0 }
			    END { if (NR) print line[int(rand() * NR) + 1] }' \
			    "$dir/list")
			[ -n "$act" ] || break
			out=$dir/states/$name-w$w-s$s.dojo
			"$ref" apply --target "$t" "$cur" "$act" > "$out" \
			    2> /dev/null || { rm -f "$out"; break; }
			cur=$out
			s=$((s + 1))
		done
		w=$((w + 1))
	done
done

# run BIN OUTDIR: every command on every state
run() {
	for f in "$dir"/states/*.dojo; do
		b=$(basename "$f" .dojo)
		for t in c cuda; do
			"$1" actions --target "$t" "$f" > "$2/$b.$t.list" 2>&1
			echo "rc=$?" >> "$2/$b.$t.list"
			"$1" actions --why --target "$t" "$f" \
			    > "$2/$b.$t.why" 2>&1
			echo "rc=$?" >> "$2/$b.$t.why"
		done
	done
}
run "$ref" "$dir/ref"
run "$new" "$dir/new"

states=$(ls "$dir"/states | wc -l)
outputs=$(ls "$dir"/ref | wc -l)
diffs=0
for f in "$dir"/ref/*; do
	if ! cmp -s "$f" "$dir/new/$(basename "$f")"; then
		echo "differs: $(basename "$f")"
		diffs=$((diffs + 1))
	fi
done
echo "$states states, $outputs outputs compared, $diffs differ"
[ "$diffs" -eq 0 ]
