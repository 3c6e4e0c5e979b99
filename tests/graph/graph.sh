# graph.sh: perfdojo graph: DOT that reads back with a node per operation
# and array for every example, pinned dependence edges for small kernels,
# SVG, PNG, text, --at, --around, and the errors.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
g=$top_srcdir/tests/graph
py=${PYTHON3:-python3}

have() {
	command -v "$1" > /dev/null 2>&1
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# The dependence edges of a DOT file, one a line: TAIL -> HEAD KIND LABEL
deps() {
	gvpr 'E [class!="read" && class!="write"] {
	    print(tail.name, " -> ", head.name, " ", class, " ", label); }' \
	    "$1" | LC_ALL=C sort
}

# One line on stderr, "perfdojo: ...", and exit status "$1"
fails() {
	status=$1
	desc=$2
	shift 2
	"$P" graph "$@" > "$tmp/out" 2> "$tmp/err"
	same "$status" $? "$desc: exit $status"
	same "1 perfdojo" "$(wc -l < "$tmp/err" | tr -d ' ') \
$(cut -d: -f1 "$tmp/err" | cut -d' ' -f1)" "$desc: one line, perfdojo: ..."
}

for f in "$top_srcdir"/examples/*.dojo; do
	name=$(basename "$f" .dojo)
	"$P" graph "$f" > "$tmp/$name.dot" 2> "$tmp/err"
	ok $? "$name: graph writes DOT"
	same "" "$(cat "$tmp/err")" "$name: nothing on stderr"
	if have dot; then
		dot -Tcanon "$tmp/$name.dot" > /dev/null 2>&1
		ok $? "$name: the DOT reads back (dot -Tcanon)"
	else
		skip "$name: the DOT reads back" "no dot"
	fi
	# counted from the canonical text: operations are the lines with an
	# '=', declarations the others, each backing one array or its list
	"$P" show "$f" > "$tmp/$name.txt"
	ops=$(grep -c '=' "$tmp/$name.txt")
	arrays=$(grep -v '=' "$tmp/$name.txt" | awk 'NF {
		i = index($0, "->")
		if (i) n += split(substr($0, i + 2), a, ",")
		else n++
	} END { print n + 0 }')
	if have gc; then
		same $((ops + arrays)) "$(gc -n "$tmp/$name.dot" |
		    awk '{ print $1 }')" \
		    "$name: a node per operation and array ($ops + $arrays)"
	else
		skip "$name: a node per operation and array" "no gc"
	fi
	missing=0
	sed 's/.*| //' "$tmp/$name.txt" | grep '=' > "$tmp/ops"
	# DOT may continue a long string on the next line after a backslash
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$tmp/$name.dot" > "$tmp/joined"
	while IFS= read -r op; do
		grep -qF -- "$op" "$tmp/joined" || missing=$((missing + 1))
	done < "$tmp/ops"
	same 0 "$missing" "$name: every operation's text is a label"
	# a neighbourhood deletes nodes and empty clusters, then lays out
	"$P" show --addresses "$f" | sed -n 's/^\([0-9][0-9.]*\) .*=.*/\1/p' |
	    head -n 1 > "$tmp/first"
	"$P" graph --at "$(cat "$tmp/first")" --around 1 --text "$f" \
	    > "$tmp/around.txt" 2> "$tmp/err"
	ok $? "$name: --around 1 --text of its first operation"
done

# exact dependence edges of small kernels
for f in "$g"/*.dojo; do
	name=$(basename "$f" .dojo)
	"$P" graph "$f" > "$tmp/$name.dot"
	ok $? "$name: graph writes DOT"
	if have gvpr; then
		same "$(LC_ALL=C sort "$g/$name.edges")" \
		    "$(deps "$tmp/$name.dot")" "$name: the dependence edges"
	else
		skip "$name: the dependence edges" "no gvpr"
	fi
done

# matmul: the initialisation feeds the accumulation, and the accumulation
# depends on itself through C, carried by the reduction loop
mm=$top_srcdir/examples/matmul.dojo
"$P" graph "$mm" > "$tmp/mm.dot"
if have gvpr; then
	deps "$tmp/mm.dot" > "$tmp/mm.deps"
	for e in "0.0.0 -> 0.0.1.0 flow C (=,=)" \
	    "0.0.0 -> 0.0.1.0 output C (=,=)" \
	    "0.0.1.0 -> 0.0.1.0 flow C (=,=,<)" \
	    "0.0.1.0 -> 0.0.1.0 output C (=,=,<)"; do
		grep -qxF "$e" "$tmp/mm.deps"
		ok $? "matmul: edge $e"
	done
	gvpr 'E [class=="read"] { print(tail.name, " -> ", head.name); }' \
	    "$tmp/mm.dot" | LC_ALL=C sort > "$tmp/reads"
	same "A -> 0.0.1.0
B -> 0.0.1.0" "$(cat "$tmp/reads")" "matmul: the reads of A and B"
fi
grep -q 'subgraph "cluster_0.0.1"' "$tmp/mm.dot"
ok $? "matmul: scopes are nested clusters"
grep -q 'label="0.0.1: 512"' "$tmp/mm.dot"
ok $? "matmul: a cluster's label has its address and size"

# --at: the operations under a node; --around: and their neighbours
"$P" graph --at 0.0.1 "$mm" > "$tmp/at.dot"
ok $? "--at succeeds"
if have gc; then
	same 4 "$(gc -n "$tmp/at.dot" | awk '{ print $1 }')" \
	    "--at 0.0.1: the accumulation and A, B, C"
	same 6 "$(gc -e "$tmp/at.dot" | awk '{ print $1 }')" \
	    "--at 0.0.1: its 3 dependences on itself and 3 accesses"
	"$P" graph --no-arrays "$mm" > "$tmp/na.dot"
	same 2 "$(gc -n "$tmp/na.dot" | awk '{ print $1 }')" \
	    "--no-arrays: operations only"
	"$P" graph --no-arrays --at 0.0.1.0 --around 1 "$mm" > "$tmp/ar.dot"
	same 2 "$(gc -n "$tmp/ar.dot" | awk '{ print $1 }')" \
	    "--around 1: the operation and its neighbour"
fi
"$P" graph --at 0.0.1.0 --around 1 "$mm" > "$tmp/ar.dot"
grep -q 'highlight=true' "$tmp/ar.dot"
ok $? "--around highlights the operations at the address"

# SVG and PNG
"$P" graph -o "$tmp/mm.svg" "$mm" 2> "$tmp/err"
ok $? "-o OUT.svg succeeds"
same "" "$(cat "$tmp/err")" "SVG: nothing on stderr"
if have "$py"; then
	"$py" -c 'import xml.dom.minidom, sys
d = xml.dom.minidom.parse(sys.argv[1])
sys.exit(d.documentElement.tagName != "svg")' "$tmp/mm.svg"
	ok $? "the SVG is well-formed XML with an svg root"
else
	skip "the SVG is well-formed XML" "no python3"
fi
"$P" graph --format svg "$mm" > "$tmp/stdout.svg"
grep -q '<svg' "$tmp/stdout.svg"
ok $? "--format svg writes SVG on stdout"
"$P" graph -o "$tmp/mm.png" "$mm"
ok $? "-o OUT.png succeeds"
same "89504e470d0a1a0a" "$(od -An -tx1 -N8 "$tmp/mm.png" | tr -d ' \n')" \
    "the PNG starts with the PNG signature"
if have file; then
	file "$tmp/mm.png" | grep -q 'PNG image data'
	ok $? "file(1) says it is a PNG"
fi
"$P" graph -o "$tmp/mm.gv" "$mm"
cmp -s "$tmp/mm.gv" "$tmp/mm.dot"
ok $? "-o OUT.gv writes the same DOT as stdout"
"$P" graph --format dot -o "$tmp/mm.out" "$mm"
cmp -s "$tmp/mm.out" "$tmp/mm.dot"
ok $? "--format wins over the extension"

# text
"$P" graph --text "$mm" > "$tmp/mm.txt"
ok $? "--text succeeds"
grep -qF 'C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]' "$tmp/mm.txt"
ok $? "--text shows an operation's label"
grep -qF '0.0.1: 512' "$tmp/mm.txt"
ok $? "--text shows a scope's label"
grep -q '┌' "$tmp/mm.txt"
ok $? "--text draws boxes"
"$P" graph --text --ascii --width 60 --height 20 "$mm" > "$tmp/small.txt"
ok $? "--text --ascii --width --height succeeds"
LC_ALL=C grep -q '[^ -~]' "$tmp/small.txt"
same 1 $? "--ascii: ASCII only"
same 0 "$(awk 'length($0) > 60 { n++ } END { print n + 0 }' \
    "$tmp/small.txt")" "--width 60: no line wider"
[ "$(wc -l < "$tmp/small.txt")" -le 20 ]
ok $? "--height 20: no more lines"
grep -q '0\.0\.0' "$tmp/small.txt"
ok $? "fitted, the addresses still show"

# errors: one line, exit 1 for the work, 2 for the usage
fails 1 "a malformed file" "$top_srcdir/tests/bad/02-unknown-array-lhs.dojo"
fails 1 "a missing file" "$tmp/none.dojo"
fails 1 "no node at the address" --at 0.5 "$mm"
fails 1 "a malformed address" --at 0.x "$mm"
fails 1 "an unknown extension" -o "$tmp/g.bmp" "$mm"
fails 1 "no extension" -o "$tmp/g" "$mm"
fails 1 "an unknown --format" --format jpeg "$mm"
fails 1 "an unwritable output" -o "$tmp/no/such/dir/g.svg" "$mm"
grep -q "no/such/dir/g.svg: No such file or directory" "$tmp/err"
ok $? "the unwritable output is named with the reason"
fails 2 "no FILE"
fails 2 "two FILEs" "$mm" "$mm"
fails 2 "an unknown option" --bogus "$mm"
fails 2 "--around 0" --at 0 --around 0 "$mm"
fails 2 "--around without --at" --around 1 "$mm"
fails 2 "--width without --text" --width 10 "$mm"
fails 2 "--session without --history" --session "$tmp/s" "$mm"
# the exploration tree of a session
"$P" apply "$mm" 'split 0.0 4' 'swap 0.0' --session "$tmp/s" > /dev/null 2>&1
"$P" checkout HEAD~1 --session "$tmp/s" > /dev/null 2>&1
"$P" undo --session "$tmp/s" 2> /dev/null
"$P" apply "$mm" 'split 0.0 8' --session "$tmp/s" > /dev/null 2>&1
"$P" graph --history --session "$tmp/s" > "$tmp/h.dot"
ok $? "graph --history"
same 4 "$(dot -Tcanon "$tmp/h.dot" | grep -c 'class=')" \
    "a node per state of the session"
same 3 "$(dot -Tcanon "$tmp/h.dot" | grep -c -- '->')" \
    "an edge from each parent to its child"
dot -Tcanon "$tmp/h.dot" | grep -q 'highlight=true'
ok $? "the current state is highlighted"
grep -q 'swap 0.0' "$tmp/h.dot" && grep -q '(start)' "$tmp/h.dot"
ok $? "states are labelled with their actions"
"$P" graph --history --session "$tmp/s" -o "$tmp/h.svg" &&
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/h.svg"
ok $? "the tree as SVG is well-formed XML"
"$P" graph --history --session "$tmp/s" --text --ascii | grep -q 'split 0.0 8'
ok $? "the tree as text"
fails 1 "--history of a missing session" --history --session "$tmp/nope"
fails 2 "--history with --at" --history --at 0 --session "$tmp/s"
"$P" graph --help | grep -q 'usage: perfdojo graph'
ok $? "graph --help prints its usage"
"$P" --help | grep -q '^  graph '
ok $? "--help lists graph"

done_testing
