# roundtrip.sh: every example and golden input prints canonically, the
# canonical text is a fixed point, and matches its golden file.
. "$top_srcdir/tests/lib.sh"

for f in "$top_srcdir"/examples/*.dojo "$top_srcdir"/tests/golden/*.dojo \
    "$top_srcdir"/tests/ref/*.dojo; do
	name=${f#"$top_srcdir"/}
	"$PERFDOJO" show "$f" > "$tmp/once" 2> "$tmp/err"
	ok $? "$name: parses and prints"
	"$PERFDOJO" show "$tmp/once" > "$tmp/twice" 2>> "$tmp/err"
	cmp -s "$tmp/once" "$tmp/twice"
	ok $? "$name: canonical text is a fixed point"
	id1=$("$PERFDOJO" check "$f" | sed 's/.*state //')
	id2=$(git hash-object "$tmp/once")
	same "$id2" "$id1" "$name: state id is the git blob id of the canonical text"
	exp=${f%.dojo}.canon
	if [ -f "$exp" ]; then
		diff -u "$exp" "$tmp/once" > "$tmp/diff"
		ok $? "$name: matches $(basename "$exp")"
		sed 's/^/# /' "$tmp/diff" | head -n 20
	fi
	exp=${f%.dojo}.addr
	if [ -f "$exp" ]; then
		"$PERFDOJO" show --addresses "$f" > "$tmp/addr"
		diff -u "$exp" "$tmp/addr" > "$tmp/diff"
		ok $? "$name: addresses match $(basename "$exp")"
		sed 's/^/# /' "$tmp/diff" | head -n 20
	fi
	[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
done
done_testing
