# screen.sh: what the explorer's screen shows is right: whole addresses in
# the gutter, the code pane opened on the kernel (its border: tmux.sh),
# moves not cut while columns are free, the history after a resize, and
# ':checkout best'.  Headless: keys from a script, screens dumped.
. "$top_srcdir/tests/lib.sh"

PERFDOJO_DB=$tmp/m.db
HOME=$tmp
LANG=C.UTF-8
export PERFDOJO_DB HOME LANG
cp "$top_srcdir/examples/conv2d.dojo" "$top_srcdir/examples/matmul.dojo" \
    "$tmp/"
cd "$tmp" || exit 1

# explore FILE SIZE: run the keys of $tmp/keys on FILE
explore() {
	echo "key q" >> keys
	"$PERFDOJO" explore "$1" --keys keys --size "$2" 2> "$tmp/err"
}

echo "dump $tmp/c0" > keys
explore conv2d.dojo 160x48
ok $? "the explorer runs on conv2d at 160x48"
grep -q '^┃2\.0\.0\.0\.1\.0\.0\.0  ' c0
ok $? "the gutter shows a whole address of 8 parts (2.0.0.0.1.0.0.0)"
grep -q '^┃2\.0\.0\.0\.0  ' c0
ok $? "... and the shorter ones beside it"
grep -q '^│dojo_kernel(void \*\*args) ' c0
ok $? "the code pane opens on the kernel's function"
! grep -q 'dojo_maxf' c0
ok $? "... not on the helpers before it"

# the focused pane has a heavy frame, so that it shows without colour
cat > keys <<EOF
dump $tmp/f0
key Tab
dump $tmp/f1
type :apply
key Enter
dump $tmp/f2
EOF
explore conv2d.dojo 120x40
grep -q '^┏━ program' f0 && grep -q '┌─ moves' f0
ok $? "the program pane, focused, has the heavy frame"
grep -q '^┌─ program' f1 && grep -q '┏━ moves' f1
ok $? "after Tab the moves pane has it"
grep -q 'apply: which move? (apply ACTION, or Enter on a move)' f2 &&
    grep -q 'history main, 1 states' f2
ok $? ":apply with no move takes none and says so"

# a move longer than the pane's width less 10 is shown whole
cat > keys <<EOF
type :apply cache 0.0.0 C stack
key Enter
key Down
key l
key l
dump $tmp/m0
EOF
explore matmul.dojo 80x24
ok $? "the explorer runs on matmul at 80x24"
grep -q '┃│cache 0\.0\.1 C_c stack  *│$' m0
ok $? "an unmeasured move is not cut while its row has room"

# the history after a resize shows every state it has room for
rm -rf matmul.dojo.session
{
	for m in 'split 0 256' 'split 0.0 128' 'split 0.0.0 64' \
	    'split 0.0.0.0 32' 'split 0.0.0.0.0 16' 'split 0.0.0.0.0.0 8' \
	    'split 0.0.0.0.0.0.0 4'; do
		echo "type :apply $m"
		echo "key Enter"
	done
	echo "dump $tmp/h0"
	echo "resize 200 60"
	echo "dump $tmp/h1"
} > keys
explore matmul.dojo 80x24
ok $? "seven moves, then a resize to 200x60"
! grep -q '(start)' h0
ok $? "at 80x24 the start is scrolled out of the history"
grep -q '(start)' h1 && grep -q 'split 0\.0\.0\.0\.0\.0\.0 4' h1
ok $? "after the resize the history shows the start and the newest state"

# an older state of the branch: the status line says how far from its tip
cat > keys <<EOF
type :checkout HEAD~2
key Enter
dump $tmp/t0
EOF
explore matmul.dojo 120x40
grep -q ' on main~2  time' t0
ok $? "after a checkout two states back, the status line says main~2"
cat > keys <<EOF
type :checkout main
key Enter
dump $tmp/t1
EOF
explore matmul.dojo 120x40
grep -q ' on main  time' t1
ok $? "... and main at its tip"

# :agent step: real steps, then the person's moves on a branch of theirs
sed 's/512/128/g' matmul.dojo > mm128.dojo
cat > keys <<EOF
type :agent step 1
key Enter
wait
dump $tmp/a0
type :apply parallelize 0
key Enter
dump $tmp/a1
EOF
explore mm128.dojo 120x40
grep -q 'agent auto (1 step): state [0-9a-f]*, [1-9][0-9]* moves' a0
ok $? ":agent step 1 takes a step (a move, or a register tile's moves)"
grep -q ' on main-2  time' a0
ok $? "after the agent the person is on a branch of theirs, main-2"
agent_tip=$(git -C mm128.dojo.session rev-parse agent/auto-1)
same "$agent_tip" "$(git -C mm128.dojo.session rev-parse main-2~1)" \
    "the person's next move goes onto main-2; the agent's branch stays at its state"

# :agent suggest: labelled speedups, gone once the state changes
cat > keys <<EOF
type :agent suggest 3
key Enter
wait
dump $tmp/g0
type :apply split 0 2
key Enter
dump $tmp/g1
EOF
explore mm128.dojo 120x40
grep -q '# speedup *from *move' g0 && grep -q '[0-9.]*x *predicted *[a-z]' g0
ok $? ":agent suggest labels its scores: a speedup, predicted or measured"
! grep -q 'predicted' g1 && grep -q 'dojo_kernel(void' g1
ok $? "after a move the suggestions of the old state are gone"

# :diff, and d in the history pane: the lower pane shows the diff
rm -rf mm128.dojo.session
cat > keys <<EOF
type :apply swap 0
key Enter
type :apply vectorize 0.0.1
key Enter
type :diff
key Enter
dump $tmp/d0
type :diff --code HEAD~2
key Enter
dump $tmp/d1
key Tab
key Tab
key k
key k
key d
dump $tmp/d2
key j
key j
key d
dump $tmp/d3
EOF
explore mm128.dojo 120x40
grep -q 'diff HEAD~1 HEAD (program)' d0 && grep -q '│+ *| *| k=128:v |' d0
ok $? ":diff compares the parent with the current state in the lower pane"
grep -q 'diff HEAD~2 HEAD (code)' d1 &&
    grep -q '│+ *for (int64_t i0 = 0; i0 < 128; i0++) { /\* j \*/' d1
ok $? ":diff --code A compares their C"
grep -q 'marked [0-9a-f]\{7\}: d on another state compares them' d2
ok $? "d in the history pane marks a state"
grep -q '│-i=128 | j=128 | C\[{0}, {1}\] = 0' d3 && grep -q '│+j=128 | i=128 | C\[{1}, {0}\] = 0' d3
ok $? "d on another state compares the two"

# v previews the selected move; J previews the next; Esc closes; Enter
# takes it
rm -rf mm128.dojo.session
cat > keys <<EOF
key Tab
key v
dump $tmp/p0
key J
dump $tmp/p1
resize 200 60
dump $tmp/p1r
resize 80 24
dump $tmp/p1s
key Esc
dump $tmp/p2
key v
key Enter
dump $tmp/p3
EOF
explore mm128.dojo 120x40
grep -q 'preview split 0 2 (Enter takes it, Esc closes)' p0 &&
    grep -q '│+i.o=64 | i.i=2 | j=128 | C\[{0}\*2 + {1}, {2}\] = 0' p0 &&
    grep -q '│the C of split 0 2:' p0
ok $? "v previews the selected move: the diffs of its program and of its C"
grep -q '^┌─ program after split 0 2  (preview: + a changed line)' p0 &&
    grep -q '^│+ i.o=64 | i.i=2 | j=128 | C\[{0}\*2 + {1}, {2}\] = 0' p0 &&
    grep -q '^│  A f32 \[128, 128\] heap in' p0
ok $? "... and the program pane shows the program it leads to, its changed lines marked +"
grep -q 'preview split 0 4 ' p1
ok $? "selecting the next move previews it"
grep -q 'preview split 0 4 ' p1r && grep -q '│+i.o=32 | i.i=4 | j=128 |' p1r
ok $? "a resize to 200x60 in the middle of a preview keeps it"
grep -q '│the program of split 0 4:' p1s
ok $? "... and so does one to 80x24"
! grep -q 'preview split' p2 && grep -q 'history main, 1 states' p2 &&
    grep -q 'program mm128.dojo  at 0 (i)' p2 && ! grep -q 'program after' p2
ok $? "Esc closes the preview and keeps the state"
! grep -q 'preview split' p3 && grep -q 'history main, 2 states' p3
ok $? "Enter takes the previewed move, and the preview closes"

# the key bar: the keys of the focused pane on its lower border, from the
# table that dispatches them
cat > keys <<EOF
dump $tmp/k0
key Tab
key Tab
dump $tmp/k1
keys $tmp/kc
EOF
explore mm128.dojo 200x60
grep -q '^┗━ k/j move  h/l scope  K/J moves  Enter take' k0
ok $? "the program pane's lower border lists its keys"
grep -q '┗━ k/j move  Tab pane  u/r undo' k1 && ! grep -q '^┗━ k/j' k1
ok $? "the focus on the history: its keys, on its border only"
same "each dispatched as the help and the bar say" \
    "$(sed -n 's/^[0-9]* keys: //p' kc)" \
    "every key in the help and the bar reaches its entry; every entry is in the help"
same 1 "$(wc -l < kc)" "... no key listed for one entry and taken by another"

# E: every move at the cursor measured, each with its speedup against
# this state, the fastest first; still there after going away and back
sed 's/512/32/g' matmul.dojo > mm32.dojo
cat > keys <<EOF
key j
key l
key E
wait
dump $tmp/e0
key Enter
key u
dump $tmp/e1
key E
key Esc
dump $tmp/e2
EOF
explore mm32.dojo 120x40
grep -q 'measuring the moves at 0\.0: [0-9]* measured, the fastest first' e0
ok $? "E measures every legal move at the cursor in the background"
"${PYTHON3:-python3}" -c '
import re, sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = [i for i, r in enumerate(rows) if "moves at 0.0:" in r][0]
legal = int(re.search(r"moves at 0.0: (\d+) legal", rows[top]).group(1))
pc = []
for r in rows[top + 1:top + 1 + legal]:
    m = re.search(r"([-+]\d+)%\s*\S$", r)
    pc.append(int(m.group(1)) if m else None)
sys.exit(0 if None not in pc and pc == sorted(pc, reverse=True) else 1)' e0
ok $? "each legal move shows its change in speed, the fastest first"
grep -q '[-+][0-9]*%' e1
ok $? "back at the state, the moves measured there still show it"
grep -q 'stopped, [0-9]* of [0-9]* measured' e2 || grep -q 'already' e2
ok $? "Esc stops the measuring of the moves"
"$PERFDOJO" measure --moves --at 0.0 mm32.dojo > mv.out 2> "$tmp/err"
ok $? "perfdojo measure --moves --at runs"
same "$("$PERFDOJO" actions mm32.dojo --at 0.0 2> /dev/null | wc -l)" \
    "$(grep -c '	' mv.out)" "... a line a legal move at the address"

# checkout best: the tag best/c
start=$(git -C matmul.dojo.session rev-list --max-parents=0 HEAD)
git -C matmul.dojo.session tag best/c "$start"
cat > keys <<EOF
type :checkout best
key Enter
dump $tmp/b0
EOF
explore matmul.dojo 120x40
grep -q "at $(echo "$start" | cut -c 1-7)" b0
ok $? ":checkout best goes to the tag best/c"
"$PERFDOJO" checkout best --session matmul.dojo.session > /dev/null 2>&1
ok $? "perfdojo checkout best does too"

done_testing
