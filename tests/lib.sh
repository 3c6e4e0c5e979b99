# lib.sh: TAP helpers for the shell tests.  Source it; then call
#   ok COND_STATUS DESCRIPTION    ("ok" when the status is 0)
#   same EXPECTED ACTUAL DESCRIPTION
# and finally done, which prints the plan.
: "${PERFDOJO:?PERFDOJO must name the perfdojo binary}"
: "${top_srcdir:?top_srcdir must be set}"
tap_n=0
tap_failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

same() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '#   expected: %s\n#   actual:   %s\n' "$1" "$2" |
		    head -n 40
	fi
}

# skip DESCRIPTION REASON: a case that cannot be judged here (TAP SKIP)
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
