# script.sh: perfdojo script: (command-line), the module in-process,
# errors as one line with FILE:LINE:COL and status 1, (exit N).
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB
cd "$tmp" || exit 1

"$P" --help | grep -q '^  script '
ok $? "--help lists script"
"$P" script --help | grep -q '^usage: perfdojo script FILE.scm \[ARGS...\]'
ok $? "script --help prints its usage"
"$P" script 2> err
same 2 $? "no FILE is a usage error"
"$P" script missing.scm 2> err
same 1 $? "a missing script exits 1"
same "perfdojo: missing.scm: No such file or directory" "$(cat err)" \
    "a missing script's message"

# success; ARGS pass through, options among them
cat > args.scm <<'EOS'
(write (command-line))
(newline)
EOS
"$P" script args.scm a "b c" --seed 3 > out 2> err
ok $? "a script succeeds"
same '("args.scm" "a" "b c" "--seed" "3")' "$(cat out)" \
    "(command-line) is FILE and ARGS"
same "" "$(cat err)" "nothing on stderr"
"$P" script -- args.scm x > out
same '("args.scm" "x")' "$(cat out)" "-- before FILE"

# the module, in-process, without anything installed or on the path
cat > use.scm <<EOS
(use-modules (perfdojo))
(define p (load-program "$top_srcdir/examples/matmul.dojo"))
(display (program-id p))
(newline)
(display (length (legal-actions p)))
(newline)
EOS
env -u GUILE_LOAD_PATH -u GUILE_LOAD_COMPILED_PATH -u GUILE_EXTENSIONS_PATH \
    -u LTDL_LIBRARY_PATH "$P" script use.scm > out 2> err
ok $? "(use-modules (perfdojo)) in a script"
"$P" actions "$top_srcdir/examples/matmul.dojo" | wc -l | tr -d ' ' > n
same "$(sed -n 2p out)" "$(cat n)" "legal-actions counts what perfdojo actions prints"
same 40 "$(sed -n 1p out | tr -d '\n' | wc -c | tr -d ' ')" "program-id in a script"

# errors: one line on stderr, FILE:LINE:COL, status 1, stdout flushed first
check_error() {	# NAME EXPECTED-STDERR
	st=$1
	same 1 "$st" "$2: exits 1"
	same "$3" "$(cat err)" "$2: one line with its place"
}
cat > e1.scm <<'EOS'
(define (g x) (vector-ref x 9))
(define (h) (+ 1 (g (vector 1))))
(display "before")
(h)
(display "after")
EOS
"$P" script e1.scm > out 2> err
check_error $? "an error in a procedure" \
    "perfdojo: e1.scm:1:15: Value out of range: 9"
same "before" "$(cat out)" "the output before the error, not after"

printf '(display 1)\n\n   (error "boom" 42)\n' > e2.scm
"$P" script e2.scm > out 2> err
check_error $? "error at the top level" "perfdojo: e2.scm:3:4: boom 42"

printf '(define x 1)\n(display (+ x y))\n' > e3.scm
"$P" script e3.scm > out 2> err
check_error $? "an unbound variable" "perfdojo: e3.scm:2:15: Unbound variable: y"

printf '(define x 1)\n(display (+ x 1)\n' > e4.scm
"$P" script e4.scm > out 2> err
check_error $? "a read error" \
    "perfdojo: e4.scm:3:1: unexpected end of input while searching for: )"

printf '(define x 1)\n  (let ((y)) y)\n' > e5.scm
"$P" script e5.scm > out 2> err
check_error $? "a syntax error" "perfdojo: e5.scm:2:3: let: bad let in (let ((y)) y)"

cat > e6.scm <<EOS
(use-modules (perfdojo))
(define p (load-program "$top_srcdir/examples/matmul.dojo"))
(define q
  (apply-action p "split 0 3"))
EOS
"$P" script e6.scm > out 2> err
check_error $? "an illegal move" \
    "perfdojo: e6.scm:4:3: split 0 3: 3 does not divide the size 512"

printf '(use-modules (perfdojo))\n(load-program "nope.dojo")\n' > e7.scm
"$P" script e7.scm > out 2> err
check_error $? "a perfdojo-error" \
    "perfdojo: e7.scm:2:1: nope.dojo: No such file or directory"

printf "(throw 'my-key 1 2)\n" > e8.scm
"$P" script e8.scm > out 2> err
check_error $? "a throw to another key" \
    "perfdojo: e8.scm:1:1: uncaught throw to my-key: (1 2)"

printf "(raise-exception 'oops)\n" > e9.scm
"$P" script e9.scm > out 2> err
check_error $? "a raised object" "perfdojo: e9.scm:1:1: uncaught exception: oops"

# (exit N)
printf '(display "x")\n(exit 3)\n(display "no")\n' > exit.scm
"$P" script exit.scm > out 2> err
same 3 $? "(exit 3) exits 3"
same "x" "$(cat out)" "(exit) flushes the output"
same "" "$(cat err)" "(exit) prints no error"
printf '(exit #f)\n' > exitf.scm
"$P" script exitf.scm 2> err
same 1 $? "(exit #f) exits 1"
printf '(exit)\n' > exit0.scm
"$P" script exit0.scm 2> err
same 0 $? "(exit) exits 0"

# the SRFI-64 files run in-process as well as in plain guile
for t in api errors agents; do
	GUILE_LOAD_PATH=$top_srcdir/tests/guile GUILE_AUTO_COMPILE=0 \
	    "$P" script "$top_srcdir/tests/guile/$t.scm" > out 2> err
	st=$?
	same 0 "$st" "tests/guile/$t.scm in perfdojo script: exits 0"
	grep -q '^not ok' out
	same 1 $? "tests/guile/$t.scm in perfdojo script: every test passes"
	grep -A4 '^not ok' out | sed 's/^/# /' | head -n 40
done

done_testing
