# refusals.sh: each malformed input is refused with exit status 1 and
# exactly the one-line message of its .err file.
. "$top_srcdir/tests/lib.sh"

cd "$top_srcdir/tests/bad" || exit 1
for f in *.dojo; do
	exp=$(cat "${f%.dojo}.err")
	"$PERFDOJO" check "$f" > "$tmp/out" 2> "$tmp/err"
	st=$?
	same 1 "$st" "$f: refused with status 1"
	same "$exp" "$(cat "$tmp/err")" "$f: message"
	same 0 "$(wc -c < "$tmp/out" | tr -d ' ')" "$f: nothing on stdout"
done
# inputs made here: too large to keep as files, or built from bytes
printf 'A f32 [4] heap out\n4 | A[{0}] = 0%070000d\n' 0 > "$tmp/long.dojo"
"$PERFDOJO" check "$tmp/long.dojo" 2> "$tmp/err"
same "perfdojo: $tmp/long.dojo:2:65537: line longer than 65536 bytes" \
    "$(cat "$tmp/err")" "overlong line"
{
	echo 'A f32 [2] heap out'
	i=0
	while [ $i -lt 65 ]; do printf '1 | '; i=$((i + 1)); done
	echo 'A[0] = 1'
} > "$tmp/deep.dojo"
"$PERFDOJO" check "$tmp/deep.dojo" 2> "$tmp/err"
same "perfdojo: $tmp/deep.dojo:2:257: nesting deeper than 64 scopes" \
    "$(cat "$tmp/err")" "nesting deeper than 64"
head -c 100000 /dev/urandom > "$tmp/noise.dojo"
"$PERFDOJO" check "$tmp/noise.dojo" > /dev/null 2> "$tmp/err"
st=$?
same 1 "$st" "random bytes: refused"
same 1 "$(wc -l < "$tmp/err" | tr -d ' ')" "random bytes: one line"
done_testing
