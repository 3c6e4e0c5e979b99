# headless.sh: the explorer without a terminal: keys from a script, the
# screen dumped to files.
. "$top_srcdir/tests/lib.sh"

k=$tmp/relu.dojo
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$k"
PERFDOJO_DB=$tmp/m.db
HOME=$tmp
LANG=C
# the display of a clean measurement (on a shared host the host probe
# would flag most; a flagged one is checked below)
PERFDOJO_HOST_SLOW=off
export PERFDOJO_DB HOME LANG PERFDOJO_HOST_SLOW

cat > "$tmp/keys" <<EOF
dump $tmp/s0
key l
dump $tmp/s1
key Enter
dump $tmp/s2
type :apply parallelize 0
key Enter
dump $tmp/s3
key m
wait
dump $tmp/s4
type :apply swap 0.0.0
key Enter
dump $tmp/s5
key J
key J
key J
key J
key J
key J
key J
key J
key J
key J
dump $tmp/s6
key u
dump $tmp/s7
key Tab
key Tab
key Up
key Enter
dump $tmp/s8
resize 120 40
dump $tmp/s9
key g
dump $tmp/g0
type :graph history
key Enter
dump $tmp/g1
key q
EOF
"$PERFDOJO" explore "$k" --keys "$tmp/keys" --size 80x24
ok $? "a headless run ends with status 0"
same 24 "$(wc -l < "$tmp/s0" | tr -d ' ')" "a dump has one line per row"
grep -q "^|0.0.0 *i=6 | j=10 | y\[{0}, {1}\] = max(x\[{0}" "$tmp/s0"
ok $? "the program pane shows the kernel, each loop named"
grep -q "program relu.dojo  at 0 (i) " "$tmp/s0" && grep -q "at 0.0 (j) " "$tmp/s1"
ok $? "the pane's title names the loop at the cursor"
grep -q "#= program relu.dojo  at 0 " "$tmp/s0"
ok $? "the cursor starts on the outer scope"
grep -q "moves at 0: " "$tmp/s0" && grep -q "^|.*||split 0 2 " "$tmp/s0"
ok $? "the moves pane lists the moves at the cursor"
grep -q "at 0.0 " "$tmp/s1" && grep -q "split 0.0 2" "$tmp/s1"
ok $? "the cursor moves into the inner scope and its moves follow"
grep -q "^split 0.0 2: [0-9a-f]\{7\}" "$tmp/s2"
ok $? "Enter takes the selected move"
grep -q "i=6 | j.o=5 | j.i=2 | y" "$tmp/s2"
ok $? "the program pane shows the moved kernel"
grep -q "^parallelize 0: " "$tmp/s3" && grep -q "6:p |" "$tmp/s3"
ok $? ":apply takes a move, its flag shows"
grep -q "^measured [0-9a-f]\{7\}: .*x the start" "$tmp/s4"
ok $? "a background measurement reports its result"
grep -q "speedup [0-9.e+-]*x" "$tmp/s4"
ok $? "the status line shows the speedup"
grep -q "time [0-9.]* [num]*s!* +-[0-9.]*% x[1-9]" "$tmp/s4"
ok $? "and the time as median +- spread and its runs"
grep -q "^measured [0-9a-f]\{7\}: .* in [0-9]* runs" "$tmp/s4"
ok $? "and the message its runs"
# a measurement on a slowed host: flagged, the time still on the line
printf 'key m\nwait\ndump %s\nkey q\n' "$tmp/b1" > "$tmp/kb"
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/busy.dojo"
PERFDOJO_HOST_SLOW= PERFDOJO_FAULT=host PERFDOJO_DB=$tmp/b.db \
    "$PERFDOJO" explore "$tmp/busy.dojo" --keys "$tmp/kb" --size 80x24
grep -q " BUSY  .* time [0-9.]* [num]*s! +-[0-9.]*% x[1-9]" "$tmp/b1"
ok $? "a disturbed measurement: BUSY, and its time marked '!'"
grep -q "^measured [0-9a-f]\{7\}: .*DISTURBED" "$tmp/b1"
ok $? "and the message says so"
# m measures a known state no more; M adds runs
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/mm.dojo"
printf 'key m\nwait\nkey q\n' > "$tmp/km"
printf 'key M\nwait\ndump %s\nkey q\n' "$tmp/mm1" > "$tmp/kM"
runs() { sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM runs"; }
"$PERFDOJO" explore "$tmp/mm.dojo" --keys "$tmp/km" > /dev/null
n1=$(runs)
"$PERFDOJO" explore "$tmp/mm.dojo" --keys "$tmp/km" > /dev/null
n2=$(runs)
"$PERFDOJO" explore "$tmp/mm.dojo" --keys "$tmp/kM" > /dev/null
n3=$(runs)
[ "$n3" -gt "$n2" ]
ok $? "M measures the state again, adding runs ($n1, $n2, $n3)"
grep -q "^measured [0-9a-f]\{7\}: " "$tmp/mm1"
ok $? "and reports it"
grep -q "^swap 0.0.0: " "$tmp/s5"
ok $? "an illegal move shows its reason"
grep -q "^refused: " "$tmp/s6"
ok $? "selecting a refused move shows why it is refused"
grep -q "^undo: at " "$tmp/s7"
ok $? "u undoes"
grep -q "^checkout: at " "$tmp/s8"
ok $? "Enter in the history pane goes to the selected state"
same 40 "$(wc -l < "$tmp/s9" | tr -d ' ')" "a resize takes the new size"
grep -q "graph: dependences around the cursor" "$tmp/g0" &&
    grep -q "max(x" "$tmp/g0"
ok $? "g draws the dependence graph around the cursor"
grep -q "graph: session tree" "$tmp/g1" && grep -q "(start)" "$tmp/g1"
ok $? ":graph history draws the session's tree"
git -C "$k.session" fsck > /dev/null 2>&1
ok $? "the session is sound"

# reopening returns to the same state
printf 'dump %s\nkey q\n' "$tmp/r0" > "$tmp/keys2"
"$PERFDOJO" explore "$k" --keys "$tmp/keys2"
grep -q "$(git -C "$k.session" rev-parse --short=7 HEAD) on main" "$tmp/r0"
ok $? "a second run starts where the first one left"

# Scheme: an init file with a move and key bindings, :scheme, :move
mkdir -p "$tmp/cfg/perfdojo"
cat > "$tmp/cfg/perfdojo/init.scm" <<'EOF'
(use-modules (perfdojo))
(define-move "split2" (lambda (p) (apply-action p "split 0.0 2")))
(define-move "forge" (lambda (p) (parse-program "x f32 [4] heap out\n4 | x[{0}] = 0\n")))
(define-move "wander" (lambda (p) (apply-actions p '("swap 0.0" "swap 0.0" "swap 0.0"))))
(bind-key "x" "apply swap 0")
(bind-key "y" (lambda (p) (string-append "apply " (car (legal-actions p "0")))))
EOF
cat > "$tmp/keys3" <<EOF
dump $tmp/i0
type :scheme (display "hello") (+ 1 2)
key Enter
dump $tmp/i1
type :move split2
key Enter
dump $tmp/i2
type :move forge
key Enter
dump $tmp/i6
key x
dump $tmp/i3
type :scheme (session-step! (explorer-session) "parallelize 0") (program-id explorer-program)
key Enter
dump $tmp/i4
type :scheme (car 1)
key Enter
dump $tmp/i5
type :move wander
key Enter
dump $tmp/i7
key q
EOF
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/s.dojo"
XDG_CONFIG_HOME=$tmp/cfg "$PERFDOJO" explore "$tmp/s.dojo" --keys "$tmp/keys3"
ok $? "a headless run with an init file"
grep -q "^loaded $tmp/cfg/perfdojo/init.scm" "$tmp/i0"
ok $? "the init file is loaded"
grep -q "^|hello" "$tmp/i1" && grep -q "^=> 3" "$tmp/i1"
ok $? ":scheme shows the output and the value"
grep -q "^move split2: 1 move, [0-9a-f]\{7\}" "$tmp/i2"
ok $? ":move takes a move defined in Scheme, recorded in the session"
grep -q "^move 'forge': its program is not reached from the state by legal moves" "$tmp/i6"
ok $? ":move refuses a program that legal moves do not reach"
grep -q "^swap 0: " "$tmp/i3"
ok $? "a key bound in Scheme runs its command"
grep -q "parallelize 0" "$tmp/i4" && grep -q "^=> \"" "$tmp/i4"
ok $? "Scheme steps the explorer's session, which the explorer shows"
grep -q "^car: Wrong type" "$tmp/i5"
ok $? "a Scheme error is a message, and the explorer goes on"
same "split 0.0 2" "$(git -C "$tmp/s.dojo.session" log --format=%s -1 HEAD~3)" \
    "the Scheme move's legal move is a commit of the session"
grep -q "^move wander: 1 move, " "$tmp/i7"
ok $? "a Scheme move that comes back to a state counts its moves once"
same "swap 0.0" "$(git -C "$tmp/s.dojo.session" log --format=%s -1 HEAD)" \
    "a Scheme move's detour is left out"
"$PERFDOJO" replay HEAD "$tmp/s.dojo" --session "$tmp/s.dojo.session" \
    > "$tmp/rp" 2>&1
ok $? "a session with Scheme moves replays"

# an agent plays from the current state, live in the history pane
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/a.dojo"
cat > "$tmp/keys4" <<EOF
type :agent run random 3
key Enter
dump $tmp/a0
wait
dump $tmp/a1
type :agent suggest random 2
key Enter
wait
dump $tmp/a2
type :agent run greedy 40
key Enter
key p
dump $tmp/a3
key p
key s
dump $tmp/a4
key q
EOF
"$PERFDOJO" explore "$tmp/a.dojo" --keys "$tmp/keys4"
ok $? "a headless run with agents"
grep -q "^agent random (budget 3) plays from " "$tmp/a0" &&
    grep -q "agent playing" "$tmp/a0"
ok $? ":agent run starts an agent in the background"
grep -q "^agent random (budget 3): .*branch agent/random-1" "$tmp/a1"
ok $? "its result when it ends"
grep -q "history main\(-2\)\?, " "$tmp/a1"
ok $? "after it the person is on a branch of theirs (main, or main-2 at the agent's state)"
grep -q "agent random suggest " "$tmp/a2" && grep -q "split 0 2" "$tmp/a2"
ok $? ":agent suggest lists moves in the lower pane"
grep -q "agent paused" "$tmp/a3" && grep -q "paused (p again goes on)" "$tmp/a3"
ok $? "p pauses the agent"
grep -q "^agent stopped at [0-9a-f]\{7\}: your turn" "$tmp/a4"
ok $? "s stops it: the person takes over"
git -C "$tmp/a.dojo.session" rev-parse -q --verify agent/greedy-1 > /dev/null
ok $? "the stopped agent's best path is its branch"

# a measured state's speedup beside the move that leads to it
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/m.dojo"
cat > "$tmp/keys5" <<EOF
key l
key Enter
key m
wait
key u
key PgUp
key PgUp
dump $tmp/m0
key q
EOF
"$PERFDOJO" explore "$tmp/m.dojo" --keys "$tmp/keys5"
grep -q "||split 0.0 2  *[0-9.e+-]*x|" "$tmp/m0"
ok $? "the moves pane shows the measured speedup of the state a move leads to"

# the toggle to every move, the search of moves, a branch by key
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/t.dojo"
cat > "$tmp/keys6" <<EOF
key a
dump $tmp/t0
key a
key /
type split
key Enter
dump $tmp/t1
key Esc
key b
type try
key Enter
dump $tmp/t2
key q
EOF
"$PERFDOJO" explore "$tmp/t.dojo" --keys "$tmp/keys6"
grep -q "moves everywhere: " "$tmp/t0" && grep -q "^every legal move" "$tmp/t0"
ok $? "a lists every legal move of the program"
grep -q "^[1-9][0-9]* moves match 'split'" "$tmp/t1" &&
    grep -q "||split 0 2 " "$tmp/t1" &&
    ! grep -q "||\(swap\|unroll\|parallelize\|cache\|pack\) " "$tmp/t1"
ok $? "/ keeps the moves that match the search"
grep -q "^on the new branch try" "$tmp/t2" && grep -q "history try" "$tmp/t2"
ok $? "b starts a branch"

# the graph view highlights the dependence that refuses the selected
# move, and only it; with a legal move, the cursor's dependences
cp "$top_srcdir/tests/ref/layernorm.dojo" "$tmp/ln.dojo"
cat > "$tmp/keys7" <<EOF
key l
key /
type reorder 0.0
key Enter
dump $tmp/r0
key g
edges $tmp/e0
key Esc
key /
type split
key Enter
edges $tmp/e1
EOF
"$PERFDOJO" explore "$tmp/ln.dojo" --keys "$tmp/keys7" --size 100x30
ok $? "the graph of a refused move"
grep -q "refused here" "$tmp/r0" && grep -q "||reorder 0.0  *|" "$tmp/r0"
ok $? "the search leaves the one refused move, selected"
same "0.0 -> 0.1.0 flow highlighted" "$(grep highlighted "$tmp/e0")" \
    "the refusing dependence is the one edge highlighted"
[ "$(grep -c highlighted "$tmp/e1")" -gt 1 ]
ok $? "with a legal move selected, the cursor's dependences are"
printf 'edges %s\n' "$tmp/e2" > "$tmp/keys8"
"$PERFDOJO" explore "$tmp/ln.dojo" --keys "$tmp/keys8" 2> "$tmp/err"
same 1 $? "edges without the graph view fails"
grep -q "keys8:1: no graph on the screen" "$tmp/err"
ok $? "and says why"

# errors
printf 'key q\n' > "$tmp/q"
"$PERFDOJO" explore "$k" < /dev/null > /dev/null 2> "$tmp/err"
same 1 $? "explore without a terminal fails"
grep -q "^perfdojo: explore needs a terminal" "$tmp/err"
ok $? "and says so"
printf 'dump %s\nfly away\n' "$tmp/x" > "$tmp/bad"
"$PERFDOJO" explore "$k" --keys "$tmp/bad" 2> "$tmp/err"
same 1 $? "a bad key script fails"
grep -q "^perfdojo: $tmp/bad:2: unknown script command" "$tmp/err"
ok $? "naming the script's line"
printf 'x f32 [4] heap in\n4 | y[{0}] = x[{0}]\n' > "$tmp/broken.dojo"
"$PERFDOJO" explore "$tmp/broken.dojo" --keys "$tmp/q" 2> "$tmp/err"
same 1 $? "a malformed kernel is refused"
grep -q "^perfdojo: $tmp/broken.dojo:2:[0-9]*: " "$tmp/err"
ok $? "with its file, line and column"
sed 's/6, 10/6, 12/g; s/\[10\]/[12]/; s/| 10 |/| 12 |/' "$k" > "$tmp/k2"
cp "$tmp/k2" "$k"
"$PERFDOJO" explore "$k" --keys "$tmp/q" 2> "$tmp/err"
same 1 $? "a kernel changed since its session began is refused"
grep -q "is not in the session" "$tmp/err"
ok $? "with the reason"
"$PERFDOJO" explore "$k" --session "$tmp/new" --keys "$tmp/q"
ok $? "a new session for it with --session"

# the target that timed a state is named when it is not the explorer's:
# cuda has no code to time, so m times its C, shown as (c)
printf 'key m\nwait\ndump %s\nkey q\n' "$tmp/cu" > "$tmp/cukeys"
"$PERFDOJO" explore "$k" --session "$tmp/cu.s" --target cuda \
    --keys "$tmp/cukeys" --size 120x30
grep -q 'target cuda .* time (c) [0-9.]* [nmu]*s' "$tmp/cu" &&
    grep -q 'measured [0-9a-f]*: ' "$tmp/cu"
ok $? "with --target cuda the time is labelled with the target that timed it, c"

done_testing
