# session.sh: the exploration history: a git repository that perfdojo
# writes and plain git reads; undo, redo, branches, replay, checkout.
. "$top_srcdir/tests/lib.sh"

k=$tmp/matmul.dojo
cp "$top_srcdir/examples/matmul.dojo" "$k"
s=$tmp/s
PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB
# plain git needs no identity to read; commits made by perfdojo use one
# from the environment when git has none
GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL

"$PERFDOJO" apply "$k" 'split 0.0 4' 'swap 0.0' --session "$s" \
    > "$tmp/out.dojo" 2> "$tmp/err"
ok $? "apply --session records the moves"
same 2 "$(wc -l < "$tmp/err" | tr -d ' ')" "one line on stderr per recorded step"
same 3 "$(git -C "$s" rev-list --all | wc -l | tr -d ' ')" \
    "the session holds the start and two steps"
same "swap 0.0" "$(git -C "$s" log -1 --format=%s)" \
    "a commit's subject is its action"
git -C "$s" log -1 --format='%(trailers:key=Action,valueonly)' |
    grep -qx 'swap 0.0'
ok $? "the action is a trailer that git reads"
state=$("$PERFDOJO" check "$tmp/out.dojo" | sed 's/.*state //')
same "$state" "$(git -C "$s" rev-parse HEAD:program.dojo)" \
    "program.dojo's blob id is the state id"
git -C "$s" show HEAD:program.dojo > "$tmp/head.dojo"
cmp -s "$tmp/head.dojo" "$tmp/out.dojo"
ok $? "program.dojo holds the canonical text of the state"
git -C "$s" show HEAD:measurement | grep -q '^outcome: unmeasured'
ok $? "an unmeasured step says so in its measurement file"
git -C "$s" diff HEAD~2 HEAD -- program.dojo | grep -q '^[-+]'
ok $? "git diff between two states shows the change"
git -C "$s" fsck --strict > /dev/null 2>&1
ok $? "git fsck finds the session sound"

# log
"$PERFDOJO" log --session "$s" > "$tmp/log"
ok $? "log runs"
same 3 "$(wc -l < "$tmp/log" | tr -d ' ')" "log shows one line per state"
grep -q '^\* .*swap 0.0.*\[main\]' "$tmp/log"
ok $? "log marks the current state and its branch"
cp -r "$s" "$k.session"
"$PERFDOJO" log "$k" > "$tmp/log2" && cmp -s "$tmp/log" "$tmp/log2"
ok $? "a kernel's default session is FILE.session"
(cd "$s" && "$PERFDOJO" log) > "$tmp/log3" && cmp -s "$tmp/log" "$tmp/log3"
ok $? "inside a session, log needs no --session"

# undo, redo
"$PERFDOJO" undo --session "$s" 2> "$tmp/err"
ok $? "undo"
grep -q '^at [0-9a-f]\{7\} split 0.0 4 on main' "$tmp/err"
ok $? "undo says where it went"
same "$(git -C "$s" rev-parse main~1)" "$(git -C "$s" rev-parse HEAD)" \
    "undo moves HEAD to the parent"
same 3 "$(git -C "$s" rev-list --all | wc -l | tr -d ' ')" \
    "undo keeps the child"
"$PERFDOJO" redo --session "$s" 2> /dev/null
same "$(git -C "$s" rev-parse main)" "$(git -C "$s" rev-parse HEAD)" \
    "redo goes back to the child"
"$PERFDOJO" redo --session "$s" 2> "$tmp/err"
same 1 $? "redo at the tip fails"
grep -q "^perfdojo: nothing to redo" "$tmp/err"
ok $? "and says there is nothing to redo"
"$PERFDOJO" undo --session "$s" 2> /dev/null &&
"$PERFDOJO" undo --session "$s" 2> /dev/null
"$PERFDOJO" undo --session "$s" 2> "$tmp/err"
same 1 $? "undo at the start fails"
grep -q "^perfdojo: nothing to undo: at the start" "$tmp/err"
ok $? "and says why"

# a step from a state with children starts a branch
"$PERFDOJO" apply "$k" 'split 0.0 8' --session "$s" > /dev/null 2> "$tmp/err"
ok $? "a step from the start after undo"
grep -q 'new branch main-2' "$tmp/err"
ok $? "stepping where a child exists starts a new branch"
same 4 "$(git -C "$s" rev-list --all | wc -l | tr -d ' ')" \
    "the old path stays in the session"
same "split 0.0 8" "$(git -C "$s" log -1 --format=%s main-2)" \
    "the new branch holds the new step"
same "swap 0.0" "$(git -C "$s" log -1 --format=%s main)" \
    "the old branch is untouched"

# the same state again: recognised, nothing written
"$PERFDOJO" apply "$k" 'split 0.0 4' --session "$s" > /dev/null 2> "$tmp/err"
grep -q 'reached before' "$tmp/err"
ok $? "re-reaching a child's state moves there"
same 4 "$(git -C "$s" rev-list --all | wc -l | tr -d ' ')" \
    "and writes no commit"
same "$(git -C "$s" rev-parse main~1)" "$(git -C "$s" rev-parse HEAD)" \
    "the session is at that child"

# checkout
"$PERFDOJO" checkout main --session "$s" -o "$tmp/c.dojo" 2> /dev/null
ok $? "checkout a branch"
cmp -s "$tmp/c.dojo" "$tmp/out.dojo"
ok $? "checkout writes that state's kernel"
same "refs/heads/main" "$(git -C "$s" symbolic-ref -q HEAD)" \
    "checkout of a branch's tip attaches HEAD to it"
"$PERFDOJO" checkout HEAD~2 --session "$s" > "$tmp/c0.dojo" 2> /dev/null
cmp -s "$tmp/c0.dojo" "$k" || "$PERFDOJO" show "$k" | cmp -s - "$tmp/c0.dojo"
ok $? "checkout HEAD~2 writes the start to stdout"
"$PERFDOJO" checkout nosuchthing --session "$s" 2> "$tmp/err"
same 1 $? "checkout of an unknown revision fails"
grep -q "unknown revision 'nosuchthing'" "$tmp/err"
ok $? "and names it"
if [ -w /dev/full ]; then
	"$PERFDOJO" log --session "$s" > /dev/full 2> "$tmp/err"
	same 1 $? "log > /dev/full exits 1"
	same "perfdojo: write error: No space left on device" \
	    "$(cat "$tmp/err")" "log > /dev/full says why"
	"$PERFDOJO" checkout HEAD --session "$s" > /dev/full 2> "$tmp/err"
	same 1 $? "checkout > /dev/full exits 1"
	grep -qx "perfdojo: write error: No space left on device" "$tmp/err"
	ok $? "checkout > /dev/full says why"
fi

# branch
"$PERFDOJO" checkout main --session "$s" > /dev/null 2>&1
"$PERFDOJO" branch try --session "$s" 2> /dev/null
ok $? "branch NAME"
"$PERFDOJO" branch --session "$s" > "$tmp/br"
grep -q '^\* try ' "$tmp/br" && grep -q '^  main ' "$tmp/br" &&
    grep -q '^  main-2 ' "$tmp/br"
ok $? "branch lists the branches, the current one starred"
"$PERFDOJO" branch try --session "$s" 2> "$tmp/err"
same 1 $? "a branch that exists is refused"
"$PERFDOJO" branch 'bad..name' --session "$s" 2> "$tmp/err"
grep -q "not a valid branch name" "$tmp/err"
ok $? "an invalid branch name is refused"
for n in HEAD -x @ ORIG_HEAD refs/heads/x cafe0123 best/c; do
	"$PERFDOJO" branch --session "$s" -- "$n" 2> "$tmp/err"
	same 1 $? "branch '$n' is refused"
	grep -q "^perfdojo: '$n' is not a valid branch name" "$tmp/err"
	ok $? "branch '$n': the reason is one line"
done
same "" "$(git -C "$s" for-each-ref --format='%(refname)' refs/heads/HEAD \
    refs/heads/-x 'refs/heads/@' refs/heads/refs)" \
    "and no such branch is made"
"$PERFDOJO" checkout try --session "$s" -o "$tmp/t.dojo" 2> /dev/null
"$PERFDOJO" apply "$tmp/t.dojo" 'split 0.0.0 2' --session "$s" > /dev/null \
    2> "$tmp/err"
same "split 0.0.0 2" "$(git -C "$s" log -1 --format=%s try)" \
    "a step on a named branch advances it"
same "swap 0.0" "$(git -C "$s" log -1 --format=%s main)" \
    "and leaves the branch it started from"

# log --graph draws the tree
"$PERFDOJO" log --graph --session "$s" > "$tmp/g"
ok $? "log --graph"
same 5 "$(wc -l < "$tmp/g" | tr -d ' ')" "one line per state"
grep -q '^o [0-9a-f]\{7\}  (start)' "$tmp/g" && grep -q '^|-o ' "$tmp/g" &&
    grep -q '^`-o ' "$tmp/g"
ok $? "the start has two children, drawn as branches"

# replay
sed 's/512/256/g' "$k" > "$tmp/m256.dojo"
"$PERFDOJO" replay try "$tmp/m256.dojo" --session "$s" -o "$tmp/r.dojo" \
    > "$tmp/rep"
ok $? "replay on a kernel of another size"
same "3 of 3 moves replayed on $tmp/m256.dojo" "$(tail -n 1 "$tmp/rep")" \
    "replay counts the moves"
"$PERFDOJO" apply "$tmp/m256.dojo" 'split 0.0 4' 'swap 0.0' 'split 0.0.0 2' |
    cmp -s - "$tmp/r.dojo"
ok $? "replay writes what applying the path gives"
sed 's/512/6/g' "$k" > "$tmp/m6.dojo"
"$PERFDOJO" replay try "$tmp/m6.dojo" --session "$s" > "$tmp/rep"
same 1 $? "replay exits 1 when a move no longer applies"
grep -q '^step 1: split 0.0 4: ' "$tmp/rep" && ! grep -q '^step 1:.*: ok$' "$tmp/rep"
ok $? "and reports the step and why"

# measurements: the trailer, the note, the best tag
small=$tmp/strided.dojo
cp "$top_srcdir/tests/target/strided.dojo" "$small"
"$PERFDOJO" apply "$small" 'swap 0' --measure \
    --session "$tmp/m" > /dev/null 2> "$tmp/err"
ok $? "apply --measure"
git -C "$tmp/m" log -1 --format='%(trailers:key=Speedup,valueonly)' |
    grep -q '^[0-9.e+-]*$'
ok $? "a measured step has a Speedup trailer"
git -C "$tmp/m" show HEAD:measurement | grep -q '^median_ns: '
ok $? "and its measurement file holds the median"
git -C "$tmp/m" rev-parse -q --verify refs/tags/best/c > /dev/null
ok $? "the best state is tagged best/c"
git -C "$tmp/m" show best/c:measurement | awk -F': ' '
    $1 == "speedup_low" { low = $2 } $1 == "speedup_high" { high = $2 }
    $1 == "speedup" { s = $2 }
    END { exit !(low > 1 && low <= s && s <= high) }'
ok $? "its speedup was confirmed in alternate runs, the interval above 1"
grep -q '^[0-9a-f]\{7\} swap 0 .*x \[.*\]$' "$tmp/err"
ok $? "apply --measure prints the confirmed speedup with its interval"
"$PERFDOJO" log --session "$tmp/m" | grep -q 'x .*best/c\|x  best/c'
ok $? "log shows speedups and the best state"
# every step is checked against the start's outputs, computed once
PERFDOJO_DB=$tmp/mw.db PERFDOJO_FAULT=wrong "$PERFDOJO" apply \
    "$top_srcdir/tests/ref/softmax.dojo" 'fission 0 4' 'parallelize 0' \
    --measure --session "$tmp/mw" > /dev/null 2> "$tmp/err"
same 2 "$(grep -c ' wrong answer$' "$tmp/err")" \
    "apply --measure: each step of a wrong kernel is a wrong answer"

"$PERFDOJO" apply "$small" 'swap 0' --session "$tmp/m" -o "$tmp/sw.dojo" \
    2> /dev/null
sw=$(git -C "$tmp/m" rev-parse HEAD)
"$PERFDOJO" checkout HEAD~1 --session "$tmp/m" > /dev/null 2>&1
head=$(git -C "$tmp/m" rev-parse HEAD)
"$PERFDOJO" measure "$tmp/sw.dojo" --session "$tmp/m" > /dev/null
ok $? "measure --session"
git -C "$tmp/m" log -1 --format=%N "$sw" | grep -q '^median_ns: '
ok $? "records the measurement as a git note on the state's commit"
same "$head" "$(git -C "$tmp/m" rev-parse HEAD)" \
    "measure leaves the session where it was"
git -C "$tmp/m" log --format=%N "$(git -C "$tmp/m" rev-list --max-parents=0 HEAD)" |
    grep -qx 'speedup: 1'
ok $? "the start is measured too, with speedup 1"

# errors: not a session, a foreign repository, a corrupt one
"$PERFDOJO" log --session "$tmp/none" 2> "$tmp/err"
same 1 $? "a missing session is an error"
grep -q "^perfdojo: $tmp/none: no session here" "$tmp/err"
ok $? "that names the directory"
git init -q "$tmp/foreign" && echo hi > "$tmp/foreign/README" &&
    git -C "$tmp/foreign" add README &&
    git -C "$tmp/foreign" -c user.name=t -c user.email=t@e commit -qm x
"$PERFDOJO" log --session "$tmp/foreign" 2> "$tmp/err"
same 1 $? "a foreign git repository is refused"
grep -q "not a perfdojo session" "$tmp/err"
ok $? "as not a perfdojo session"
cp -r "$s" "$tmp/corrupt"
for f in $(find "$tmp/corrupt/objects" -type f); do
	chmod u+w "$f"; printf 'garbage' > "$f"
done
"$PERFDOJO" log --session "$tmp/corrupt" 2> "$tmp/err"
same 1 $? "a corrupt session is an error"
same 1 "$(wc -l < "$tmp/err" | tr -d ' ')" "of one line"
# a HEAD commit whose program.dojo is a directory: a one-line refusal,
# and the repository as it was
cp -r "$s" "$tmp/treehead"
blob=$(echo x | git -C "$tmp/treehead" hash-object -w --stdin)
sub=$(printf '100644 blob %s\tx\n' "$blob" | git -C "$tmp/treehead" mktree)
tree=$(printf '040000 tree %s\tprogram.dojo\n' "$sub" |
    git -C "$tmp/treehead" mktree)
bad=$(git -C "$tmp/treehead" -c user.name=t -c user.email=t@e commit-tree \
    "$tree" -p HEAD -m 'not a state')
git -C "$tmp/treehead" update-ref HEAD "$bad"
git -C "$tmp/treehead" for-each-ref > "$tmp/refs.before"
for c in log undo "checkout HEAD"; do
	"$PERFDOJO" $c --session "$tmp/treehead" > /dev/null 2> "$tmp/err"
	same 1 $? "$c with a directory at HEAD's program.dojo fails"
	same "perfdojo: $tmp/treehead: commit ${bad%"${bad#???????}"} has a directory at program.dojo, not a file: not a perfdojo session" \
	    "$(cat "$tmp/err")" "$c says what is wrong, in one line"
done
git -C "$tmp/treehead" for-each-ref | cmp -s - "$tmp/refs.before" &&
    [ "$(git -C "$tmp/treehead" rev-parse HEAD)" = "$bad" ] &&
    [ -z "$(find "$tmp/treehead" -name '*.lock' ! -name perfdojo.lock)" ]
ok $? "and the repository is left as it was"
"$PERFDOJO" apply "$top_srcdir/examples/softmax.dojo" 'swap 0' \
    --session "$s" 2> "$tmp/err" > /dev/null
same 1 $? "a kernel that is not a state of the session is refused"
grep -q "is not in the session" "$tmp/err"
ok $? "with a reason"

# plain git: clone the session and read it
git clone -q "$s" "$tmp/clone" 2> /dev/null
ok $? "git clone of a session"
"$PERFDOJO" log --session "$tmp/clone" > /dev/null
ok $? "perfdojo reads the clone"

done_testing
