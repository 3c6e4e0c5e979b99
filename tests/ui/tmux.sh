# tmux.sh: the explorer in a real terminal: tmux runs the binary, keys go
# in with send-keys, the screen comes back with capture-pane.
. "$top_srcdir/tests/lib.sh"

if ! command -v tmux > /dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed"
	exit 0
fi

k=$tmp/matmul.dojo
cp "$top_srcdir/examples/matmul.dojo" "$k"
sock=perfdojo-test-$$
PERFDOJO_DB=$tmp/m.db
HOME=$tmp
export PERFDOJO_DB HOME
t() {
	tmux -L "$sock" -f /dev/null "$@"
}
trap 't kill-server 2> /dev/null; rm -rf "$tmp"' EXIT
# a session that outlives the explorer's: killing "explore" must not end
# the server, or the next new-session races the server's exit
t new-session -d -s keep "sleep 3600"

# screen: the pane as text
screen() {
	t capture-pane -p -t explore
}

# wait_grep OPTION PATTERN: until "grep OPTION" finds PATTERN on the
# screen (20 s at most: the suite runs beside other tests on a loaded
# machine)
wait_grep() {
	i=0
	while [ $i -lt 200 ]; do
		screen | grep -q "$1" -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	screen | sed 's/^/# /'
	return 1
}

# wait_for TEXT: until the screen shows TEXT
wait_for() {
	wait_grep -F "$1"
}

# wait_for_re RE: the same for an extended regular expression (a pane's
# lines can reach the terminal a little after its title)
wait_for_re() {
	wait_grep -E "$1"
}

start() {
	t new-session -d -s explore -x "${2:-100}" -y "${3:-30}" \
	    "cd $tmp && LANG=$1 PERFDOJO_DB=$PERFDOJO_DB HOME=$HOME $PERFDOJO explore matmul.dojo; echo EXPLORER-EXITED \$?; sleep 60"
}

start C.UTF-8
wait_for "C[{0}, {1}] += A[{0}, {2}]"
ok $? "the explorer shows the program"
wait_for "moves at 0: "
ok $? "the moves pane lists the moves at the cursor"
screen | grep -q "┏━ program"
ok $? "box drawing in UTF-8"
screen | grep -q "matmul.dojo  target c"
ok $? "the status line names the kernel and the target"

# the mouse (xterm's protocol, as a terminal sends it): a click selects
# the node under it, a double click on a move takes it
click() {
	"$PYTHON3" -c '
import subprocess, sys
x, y, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
one = "\x1b[M" + chr(32) + chr(33 + x) + chr(33 + y) + \
    "\x1b[M" + chr(35) + chr(33 + x) + chr(33 + y)
subprocess.run(["tmux", "-L", sys.argv[4], "-f", "/dev/null", "send-keys",
    "-t", "explore", "-l", one * n], check=True)' "$1" "$2" "$3" "$sock"
}
click 27 5 1
wait_for "program matmul.dojo  at 0.0.1 "
ok $? "a click on a cell selects its scope"
wait_for "moves at 0.0.1: "
ok $? "and the moves pane follows"
click 80 2 2
wait_for "split 0.0.1 4: "
ok $? "a double click on a move takes it"
t send-keys -t explore u
wait_for "undo: at "
click 14 5 1
wait_for "program matmul.dojo  at 0 "
ok $? "a click on the first cell selects the outer scope"

# a move by key: down to the reduction, right to its inner scope, Enter
t send-keys -t explore j l
wait_for "at 0.0"
ok $? "the cursor moves in the tree"
t send-keys -t explore Enter
wait_for "split 0.0 2: "
ok $? "Enter takes the selected move"
wait_for "└─* "
ok $? "the history pane shows the new state as the current one"

# a move by the command line
t send-keys -t explore ':apply swap 0.0' Enter
wait_for "swap 0.0: "
ok $? ":apply takes a move"

# an illegal move: its reason, and the explorer goes on
t send-keys -t explore ':apply swap 0.0.0.1' Enter
wait_for "swap 0.0.0.1: "
ok $? "an illegal move shows why on the message line"
screen | grep -q "swap 0.0: " && ok 1 "the message changed" ||
    ok 0 "the message changed"

# undo, redo
t send-keys -t explore u
wait_for "undo: at "
ok $? "u undoes"
t send-keys -t explore r
wait_for "redo: at "
ok $? "r redoes"

# tab completion on the command line
t send-keys -t explore ':chec' Tab
wait_for ":checkout"
ok $? "Tab completes a command"
t send-keys -t explore Escape
sleep 0.3
# the first Tab on an ambiguous word lists the candidates
t send-keys -t explore ':checkout ' Tab
wait_for "best  best/c"
ok $? "Tab on an ambiguous word lists the candidates at once"
t send-keys -t explore Escape
sleep 0.3
t send-keys -t explore ':checkout bes' Tab
wait_for ":checkout best"
t send-keys -t explore Tab
wait_for "best  best/c"
ok $? "Tab completes what the candidates share, and the next Tab lists them"
t send-keys -t explore Escape
sleep 0.3
# a commit id completes
head7=$(git -C "$tmp/matmul.dojo.session" rev-parse --short=7 HEAD)
t send-keys -t explore ":checkout $(echo "$head7" | cut -c 1-4)" Tab
wait_for ":checkout $head7"
ok $? "Tab completes a commit id"
t send-keys -t explore Escape
sleep 0.3

# resize
t resize-window -t explore -x 60 -y 20
wait_for "needs 80x24"
ok $? "a small terminal says what it needs"
t resize-window -t explore -x 120 -y 40
wait_for "C f32 [512, 512] heap out"
ok $? "a larger terminal shows the explorer again"
[ "$(screen | awk '{ if (length($0) > m) m = length($0) } END { print m }')" -gt 100 ]
ok $? "and uses the width"

# at 200x60: each loop's name in the program pane; the preview of the
# selected move in the program pane, its changed lines marked
t resize-window -t explore -x 200 -y 60
wait_for "i=512"
ok $? "at 200x60 the program pane names each loop (i=512)"
t send-keys -t explore v
wait_for "(preview: + a changed line)"
ok $? "v shows the program the selected move leads to"
wait_for_re "^(┃|│)\+ "
ok $? "... its changed lines marked +"
t send-keys -t explore Escape
wait_for "program matmul.dojo  at "
ok $? "Esc closes the preview"
t resize-window -t explore -x 120 -y 40
wait_for "C f32 [512, 512] heap out"

# the graph view: Graphviz's layout drawn in the terminal
t send-keys -t explore g
wait_for "graph: dependences around the cursor"
ok $? "g shows the dependence graph around the cursor"
screen | awk '/graph: dependences/ { on = 1 } on' > "$tmp/gpane"
grep -q "0\.0\.1\.0" "$tmp/gpane" && grep -q "[CA]" "$tmp/gpane"
ok $? "the graph shows an operation's node and an array"
grep -q "(=,=" "$tmp/gpane"
ok $? "and a dependence edge with its direction vector"
t send-keys -t explore n n
wait_for "graph: session tree"
ok $? "n cycles to the session's tree"
t send-keys -t explore g
sleep 0.3

# Scheme: a value, and a loop that C-c interrupts
t send-keys -t explore ':scheme (+ 40 2)' Enter
wait_for "=> 42"
ok $? ":scheme shows the value"
t send-keys -t explore ':scheme (let loop () (loop))' Enter
sleep 1
t send-keys -t explore C-c
wait_for "interrupted (C-c)"
ok $? "C-c interrupts a Scheme loop"
t send-keys -t explore u
wait_for "undo: at "
ok $? "and the explorer goes on"

# help
t send-keys -t explore '?'
wait_for "take the selected move"
ok $? "? shows the keys"
t send-keys -t explore x
sleep 0.3

# quit: the terminal is restored
t send-keys -t explore q
wait_for "EXPLORER-EXITED 0"
ok $? "q quits with status 0"
screen | grep -q "program matmul" && ok 1 "the terminal is restored" ||
    ok 0 "the terminal is restored"
t kill-session -t explore

# reopen: the same state
head=$(git -C "$k.session" rev-parse --short=7 HEAD)
start C
wait_for "$head on main"
ok $? "reopening returns to the state it was left in"
screen | grep -q "#= program"
ok $? "ASCII box drawing when the locale is not UTF-8"
t send-keys -t explore q
wait_for "EXPLORER-EXITED 0"
ok $? "and quits"
t kill-session -t explore

# the code pane in a real terminal: a tab is expanded by the explorer,
# so that no line of the code runs over the pane's border
cp "$top_srcdir/examples/conv2d.dojo" "$tmp/conv2d.dojo"
t new-session -d -s explore -x 160 -y 48 \
    "cd $tmp && LANG=C.UTF-8 PERFDOJO_DB=$PERFDOJO_DB HOME=$HOME $PERFDOJO explore conv2d.dojo; echo EXPLORER-EXITED \$?; sleep 60"
wait_for "conv2d.dojo  target c"
t send-keys -t explore Tab Tab Tab
for i in $(seq 24); do
	t send-keys -t explore j
done
wait_for "for (int64_t i6 = 0; i6 < 3; i6++) {"
screen > "$tmp/code"
"$PYTHON3" -c '
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = [i for i, r in enumerate(rows) if r.startswith("┏━ code")][0]
right = rows[top].index("┓")
bottom = [i for i in range(top + 1, len(rows)) if rows[i].startswith("┗")][0]
sys.exit(1 if [i for i in range(top + 1, bottom)
               if len(rows[i]) <= right or rows[i][right] != "┃"] else 0)' \
    "$tmp/code"
ok $? "no line of the code pane runs over its border (conv2d at 160x48)"
t send-keys -t explore q
wait_for "EXPLORER-EXITED 0"
t kill-session -t explore

# kill -9 of the explorer: the measuring child and the kernel it runs
# (hanging on purpose) go with it; their command lines name the job's
# file in $tmp/jobs
cp "$top_srcdir/tests/ref/bias_relu.dojo" "$tmp/relu.dojo"
mkdir "$tmp/jobs"
t new-session -d -s explore -x 100 -y 30 \
    "cd $tmp && echo \$\$ > $tmp/ex.pid && exec env TMPDIR=$tmp/jobs PERFDOJO_FAULT=hang PERFDOJO_DB=$PERFDOJO_DB HOME=$HOME $PERFDOJO explore relu.dojo"
wait_for "relu.dojo  target c"
t send-keys -t explore m
job_procs() {	# perfdojo processes only: the compiler runs in $tmp/jobs too
	pgrep -f -c "perfdojo measure $tmp/jobs/perfdojo-"
}
i=0
while [ $i -lt 200 ] && [ "$(job_procs)" -lt 2 ]; do
	sleep 0.1
	i=$((i + 1))
done
same 2 "$(job_procs)" "a measurement runs: the explorer's child and the kernel it runs"
kill -9 "$(cat "$tmp/ex.pid")"
i=0
while [ $i -lt 50 ] && [ "$(job_procs)" -gt 0 ]; do
	sleep 0.1
	i=$((i + 1))
done
same 0 "$(job_procs)" "kill -9 of the explorer leaves no measuring process"
for p in $(pgrep -f "$tmp/jobs/perfdojo-"); do
	kill -9 "$p"
done
t kill-session -t explore 2> /dev/null

# monochrome and NO_COLOR run too (vt100: ncurses-base's terminfo)
if ! infocmp vt100 > /dev/null 2>&1; then
	tap_n=$((tap_n + 2))
	echo "ok $((tap_n - 1)) # SKIP no terminfo for vt100"
	echo "ok $tap_n # SKIP no terminfo for vt100"
	done_testing
	exit
fi
t new-session -d -s explore -x 100 -y 30 \
    "cd $tmp && TERM=vt100 NO_COLOR=1 PERFDOJO_DB=$PERFDOJO_DB HOME=$HOME $PERFDOJO explore matmul.dojo; echo EXPLORER-EXITED \$?; sleep 60"
wait_for "C f32 [512, 512] heap out"
ok $? "a monochrome terminal with NO_COLOR shows the program"
t send-keys -t explore q
wait_for "EXPLORER-EXITED 0"
ok $? "and quits"

done_testing
