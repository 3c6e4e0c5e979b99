# kill.sh: a session survives kill -9 at any moment: after each kill the
# repository is sound (git fsck), the next command opens it, and every
# step the killed process reported is there.
. "$top_srcdir/tests/lib.sh"

k=$tmp/k.dojo
cp "$top_srcdir/examples/matmul.dojo" "$k"
s=$tmp/s
rounds=${DOJO_KILL_ROUNDS:-12}

# 100 steps: split and join, so that every round can start from the
# kernel again, walk the steps recorded before and go on
i=0
while [ $i -lt 50 ]; do
	echo 'split 0.0 2'
	echo 'join 0.0'
	i=$((i + 1))
done > "$tmp/actions"

# kill times in milliseconds, spread over a run (about 0.1-0.3 s here)
awk -v n="$rounds" 'BEGIN { srand(42); for (i = 0; i < n; i++)
    printf "%d\n", int(rand() * 250) }' > "$tmp/delays"

round=0
reported=0
missing=0
unsound=0
unopened=0
while read -r ms; do
	round=$((round + 1))
	"$PERFDOJO" apply "$k" --actions "$tmp/actions" --session "$s" \
	    > /dev/null 2> "$tmp/err.$round" &
	pid=$!
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid" 2> /dev/null
	wait "$pid" 2> /dev/null
	[ -d "$s" ] || continue		# killed before the session was made
	git -C "$s" fsck --no-progress > "$tmp/fsck" 2>&1 ||
	    { unsound=$((unsound + 1)); sed 's/^/# /' "$tmp/fsck" | head -5; }
	"$PERFDOJO" log --session "$s" > /dev/null 2> "$tmp/logerr" ||
	    { unopened=$((unopened + 1)); sed 's/^/# /' "$tmp/logerr"; }
	# each complete line "COMMIT ACTION..." is a step reported done
	while read -r commit rest; do
		case $commit in
		[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
		*) continue ;;
		esac
		reported=$((reported + 1))
		git -C "$s" rev-list --all | grep -q "^$commit" ||
		    { missing=$((missing + 1)); echo "# lost: $commit $rest"; }
	done < "$tmp/err.$round"
done < "$tmp/delays"

same 0 "$unsound" "git fsck finds the session sound after every kill"
same 0 "$unopened" "the next command opens the session after every kill"
same 0 "$missing" "every step a killed process reported is in the session"
[ "$reported" -gt 0 ]
ok $? "the killed processes reported steps ($reported)"

# a last, whole run goes on from the current state (the kernel's state
# nearest on the current path): 100 steps, all on the current path
"$PERFDOJO" apply "$k" --actions "$tmp/actions" --session "$s" > /dev/null \
    2> "$tmp/err.last"
ok $? "a run after the kills completes"
git -C "$s" rev-list HEAD > "$tmp/path"
same 100 "$(awk 'NR == FNR { on[substr($1, 1, 7)] = 1; next }
    $1 in on { n++ } END { print n + 0 }' "$tmp/path" "$tmp/err.last")" \
    "its 100 steps are on the current path"
git -C "$s" fsck --strict --no-progress > /dev/null 2>&1
ok $? "and git fsck --strict finds it sound"

done_testing
