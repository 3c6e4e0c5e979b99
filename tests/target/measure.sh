# measure.sh: measurements of the C target: timed, checked against the
# interpreter, kept in the database, each failure an outcome.
. "$top_srcdir/tests/lib.sh"

PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB
k=$top_srcdir/tests/ref/softmax.dojo

"$PERFDOJO" measure --json "$k" > "$tmp/a"
ok $? "measure succeeds"
for field in median_ns ci_low_ns ci_high_ns reps outcome fingerprint; do
	grep -q "\"$field\": " "$tmp/a"
	ok $? "the JSON object has $field"
done
grep -q '"outcome": "ok"' "$tmp/a" && grep -q '"cached": false' "$tmp/a"
ok $? "a first measurement is ok and measured"
awk -F'"reps": ' '{ split($2, a, ","); exit !(a[1] >= 5) }' "$tmp/a"
ok $? "at least five repetitions"
awk '{ match($0, /"median_ns": [0-9]+/); m = substr($0, RSTART + 13, RLENGTH - 13);
    match($0, /"ci_low_ns": [0-9]+/); lo = substr($0, RSTART + 13, RLENGTH - 13);
    match($0, /"ci_high_ns": [0-9]+/); hi = substr($0, RSTART + 14, RLENGTH - 14);
    exit !(lo + 0 <= m + 0 && m + 0 <= hi + 0 && m + 0 > 0) }' "$tmp/a"
ok $? "the interval holds the median"
"$PERFDOJO" measure --json "$k" | grep -q '"cached": true'
ok $? "a second measurement comes from the database"
"$PERFDOJO" measure --json --fresh "$k" | grep -q '"cached": false'
ok $? "--fresh measures again"

# the speedup of a moved kernel against its start
"$PERFDOJO" apply "$k" 'parallelize 0' > "$tmp/p.dojo"
"$PERFDOJO" measure --json --baseline "$k" "$tmp/p.dojo" | grep -q '"speedup": '
ok $? "--baseline gives a speedup"

# outcomes
PERFDOJO_FAULT=wrong "$PERFDOJO" measure --fresh "$k" > "$tmp/out"
same 1 $? "a wrong answer exits 1"
grep -q "wrong answer: y\[0\] is .*, expected " "$tmp/out"
ok $? "a wrong answer names the first differing element and both values"
PERFDOJO_FAULT=crash "$PERFDOJO" measure --json --fresh "$k" > "$tmp/out"
grep -q '"outcome": "crash"' "$tmp/out"
ok $? "a crash is recorded as a crash"
"$PERFDOJO" measure --json "$k" | grep -q '"outcome": "crash"'
ok $? "the database keeps the failed outcome"
CC=false "$PERFDOJO" measure --json --fresh "$k" | grep -q '"outcome": "compile error"'
ok $? "a failing compiler is a compile error outcome"
# a compiler that does not end: the run's time limit bounds it too
printf '#!/bin/sh\n[ "$1" = --version ] && { echo slow 1; exit 0; }\nsleep 60\n' \
    > "$tmp/slowcc"
chmod +x "$tmp/slowcc"
t0=$(date +%s)
CC=$tmp/slowcc "$PERFDOJO" measure --fresh --timeout 2 "$k" > "$tmp/slow" 2>&1
same 1 $? "a compiler past the time limit fails the measurement"
[ $(($(date +%s) - t0)) -lt 30 ]
ok $? "... without waiting for the compiler"
grep -q "timeout: $tmp/slowcc ran past the time limit (2 s) compiling the kernel" \
    "$tmp/slow"
ok $? "... and says so, as a timeout"

# two writers at once, on one database
m=$top_srcdir/tests/ref/matmul.dojo
b=$top_srcdir/tests/ref/bias_relu.dojo
"$PERFDOJO" measure --fresh "$m" > /dev/null & p1=$!
"$PERFDOJO" measure --fresh "$b" > /dev/null & p2=$!
wait $p1; s1=$?
wait $p2; s2=$?
same "0 0" "$s1 $s2" "two concurrent measurements succeed"
"$PERFDOJO" measure --json "$m" | grep -q '"cached": true' &&
    "$PERFDOJO" measure --json "$b" | grep -q '"cached": true'
ok $? "both are in the database"
done_testing
