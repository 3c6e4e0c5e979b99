# measure.sh: measurements of the C target: timed, checked against the
# interpreter, kept in the database, each failure an outcome.
. "$top_srcdir/tests/lib.sh"

PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB
k=$top_srcdir/tests/ref/softmax.dojo

"$PERFDOJO" measure --json "$k" > "$tmp/a"
ok $? "measure succeeds"
for field in median_ns ci_low_ns ci_high_ns reps runs spread disturbed \
    outcome fingerprint; do
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
# known once it has three clean runs: a busy machine may have spoilt some
clean=$(sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM runs WHERE disturbed = 0")
"$PERFDOJO" measure --json "$k" > "$tmp/b"
if [ "$clean" -ge 3 ]; then
	grep -q '"cached": true' "$tmp/b"
else
	grep -q '"cached": false' "$tmp/b"
fi
ok $? "a second measurement comes from the database ($clean clean runs)"
same "$(sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM runs")" \
    "$(awk -F'"new_runs": ' '{ split($2, a, ","); n += a[1] } END { print n }' \
    "$tmp/a" "$tmp/b")" "the database keeps every run"

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

# a disturbed run: retried, flagged, never cached as clean, measured
# again the next time
PERFDOJO_DB=$tmp/d.db PERFDOJO_FAULT=disturbed "$PERFDOJO" measure --json "$k" \
    > "$tmp/d1"
ok $? "a disturbed measurement still gives a time"
grep -q '"disturbed": true' "$tmp/d1" && grep -q '"new_runs": 3,' "$tmp/d1"
ok $? "it is flagged, after two more runs in place of the first"
same "3 3" "$(sqlite3 -separator ' ' "$tmp/d.db" "SELECT count(*), sum(disturbed) FROM runs")" \
    "every run is kept, each marked disturbed"
same 0 "$(sqlite3 "$tmp/d.db" "SELECT count(*) FROM runs WHERE why = ''")" \
    "each with why" 
PERFDOJO_DB=$tmp/d.db "$PERFDOJO" measure --history "$k" | grep -c ' yes: ' |
    grep -qx 3
ok $? "measure --history lists the runs and marks the disturbed ones"
PERFDOJO_DB=$tmp/d.db "$PERFDOJO" measure --json "$k" > "$tmp/d2"
grep -q '"cached": false' "$tmp/d2" && ! grep -q '"new_runs": 0,' "$tmp/d2"
ok $? "a disturbed state is measured again the next time"
PERFDOJO_DB=$tmp/d4.db PERFDOJO_FAULT=disturbed "$PERFDOJO" measure "$k" \
    > "$tmp/d4"
grep -q 'DISTURBED' "$tmp/d4"
ok $? "the text output marks a disturbed result"
# a host that slows the core down (the probes after the first 16 three
# times slower): flagged as such, its ratio kept with the run
PERFDOJO_DB=$tmp/h.db PERFDOJO_FAULT=host "$PERFDOJO" measure --json "$k" \
    > "$tmp/h1"
grep -q '"disturbed": true' "$tmp/h1" &&
    awk -F'"new_runs": ' '{ split($2, a, ","); exit !(a[1] >= 3) }' "$tmp/h1"
ok $? "a run on a slowed host is disturbed, and retried"
# (a run disturbed by this machine's own load says that first)
same 1 "$(sqlite3 "$tmp/h.db" "SELECT count(*) = count(host) AND min(host) > 1.3
    AND sum(why LIKE 'the host slowed the core down: a reference loop took %x'
    || ' its best time%') >= 1 FROM runs")" "... saying so, with the probe's ratio"
same 1 "$(sqlite3 "$tmp/h.db" "SELECT count(*) FROM hosts WHERE best_ns > 0")" \
    "the probe's best is kept for the fingerprint"
PERFDOJO_DB=$tmp/h.db "$PERFDOJO" measure --history "$k" > "$tmp/h2"
awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "host") c = i; next }
    c && $c + 0 > 1.3 { n++ } END { exit n != 3 }' "$tmp/h2"
ok $? "measure --history shows the host column"
PERFDOJO_DB=$tmp/h.db "$PERFDOJO" measure --json --fresh "$k" > "$tmp/h3"
sqlite3 "$tmp/h.db" "SELECT count(*) >= 6 AND count(*) = count(host) AND
    min(host) > 0 FROM runs" | grep -qx 1
ok $? "every timed run is probed"
PERFDOJO_DB=$tmp/h.db PERFDOJO_FAULT=host PERFDOJO_HOST_SLOW=off \
    "$PERFDOJO" measure --json --fresh "$k" > "$tmp/h4"
same 1 "$(sqlite3 "$tmp/h.db" "SELECT count(*) >= 3 FROM runs WHERE host > 2
    AND why NOT LIKE 'the host slowed%'")" \
    "PERFDOJO_HOST_SLOW=off: the ratio is kept, not judged"

# the real detector: a process spinning on the kernel's processor
st=$top_srcdir/tests/target/strided.dojo
PERFDOJO_DB=$tmp/busy.db PERFDOJO_FAULT=busy "$PERFDOJO" measure --json \
    --runs 1 "$st" > "$tmp/busy"
grep -q '"disturbed": true' "$tmp/busy"
ok $? "a competing process on the kernel's processor is detected"
sqlite3 "$tmp/busy.db" "SELECT why FROM runs" |
    grep -q 'waited .* for a processor\|of the processor time\|runnable before'
ok $? "by the scheduler's account (of the kernel's threads, or of the machine's)"

# the speedup of alternate runs: a kernel against itself is 1 within
# its interval
cp "$st" "$tmp/same.dojo"
"$PERFDOJO" measure --json --baseline "$st" "$tmp/same.dojo" > "$tmp/self"
awk '{ match($0, /"speedup_low": [0-9.]+/); lo = substr($0, RSTART + 15, RLENGTH - 15);
    match($0, /"speedup_high": [0-9.]+/); hi = substr($0, RSTART + 16, RLENGTH - 16);
    match($0, /"speedup": [0-9.]+/); r = substr($0, RSTART + 11, RLENGTH - 11);
    exit !(lo + 0 > 0 && (lo + 0 <= 1 && hi + 0 >= 1 || (r > 0.9 && r < 1.1))) }' \
    "$tmp/self" || grep -q '"speedup_disturbed": true' "$tmp/self"
rc=$?
# (within 10%: the strided copy against itself came out 1.08, [1.04,
# 1.13], in 6 clean pairs under make -j2 check, and 1.05-1.07 three times
# beside another test suite: a bias of the pairs on this kernel that
# swapping the kernels' copies of the arguments did not remove)
ok $rc "a kernel against itself: 1 within its interval, or within 10% (or flagged)"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/self"
"$PERFDOJO" apply "$st" 'swap 0' > "$tmp/fast.dojo"
"$PERFDOJO" measure --json --baseline "$st" "$tmp/fast.dojo" > "$tmp/fast"
awk '{ match($0, /"speedup_low": [0-9.]+/); lo = substr($0, RSTART + 15, RLENGTH - 15);
    exit !(lo + 0 > 1) }' "$tmp/fast"
ok $? "a large gain (swap 0 on a strided copy) has its interval above 1"
grep -q '"pairs": [3-9]' "$tmp/fast" ||
    grep -q '"speedup_disturbed": true' "$tmp/fast"
rc=$?
ok $rc "from at least three clean alternate pairs (or flagged)"
[ $rc = 0 ] || sed 's/^/# /' "$tmp/fast"

# a database of schema 1 is migrated on open, losing nothing
old=$tmp/old.db
sqlite3 "$old" "CREATE TABLE measurements (state TEXT NOT NULL,
    fingerprint TEXT NOT NULL, outcome TEXT NOT NULL, message TEXT,
    median_ns REAL, ci_low_ns REAL, ci_high_ns REAL, reps INTEGER,
    measured_at TEXT NOT NULL, PRIMARY KEY (state, fingerprint))"
fp=$(awk -F'"fingerprint": "' '{ print substr($2, 1, 40) }' "$tmp/a")
state=$(awk -F'"state": "' '{ print substr($2, 1, 40) }' "$tmp/a")
sqlite3 "$old" "INSERT INTO measurements VALUES ('$state', '$fp', 'ok', '',
    12345, 12000, 12600, 50, '2026-01-01T00:00:00Z');
    INSERT INTO measurements VALUES ('other', 'x', 'crash', 'Segmentation fault',
    0, 0, 0, 0, '2026-01-01T00:00:00Z')"
"$PERFDOJO" measure --json --db "$old" "$k" > "$tmp/m1"
ok $? "measure on a database of schema 1"
same "4" "$(sqlite3 "$old" "PRAGMA user_version")" "it is now of schema 4"
same "2" "$(sqlite3 "$old" "SELECT count(*) FROM measurements")" \
    "its measurements are all there"
same "12345 migrated" "$(sqlite3 "$old" "SELECT median_ns, source FROM runs
    ORDER BY id LIMIT 1" | tr '|' ' ' | sed 's/\.0 / /')" \
    "the old measurement is the state's first run"
same 1 "$(sqlite3 "$old" "SELECT sum(disturbed = 0 AND source = 'run') = 2
    OR sum(disturbed) > 0 FROM runs")" \
    "two more clean runs make three (more in place of disturbed ones)" 
"$PERFDOJO" measure --history --db "$old" "$k" | grep -q '(migrated)'
ok $? "the history shows the migrated run"

# databases it cannot use: measured without, said in one line
printf 'this is not a database at all, only text\n%.0s' $(seq 200) > "$tmp/bad.db"
cp "$tmp/bad.db" "$tmp/bad.orig"
"$PERFDOJO" measure --json --db "$tmp/bad.db" "$k" > "$tmp/c1" 2> "$tmp/c1.err"
ok $? "a corrupt database: the kernel is still measured"
same 1 "$(grep -c "^perfdojo: $tmp/bad.db: .*; measuring without the database$" \
    "$tmp/c1.err")" 
    "... and says so in one line"
grep -q '"stored": false' "$tmp/c1" && cmp -s "$tmp/bad.db" "$tmp/bad.orig"
ok $? "... and leaves the file as it was"
sqlite3 "$tmp/new.db" "PRAGMA user_version = 99; CREATE TABLE t (x)"
"$PERFDOJO" measure --db "$tmp/new.db" "$k" > /dev/null 2> "$tmp/n.err"
ok $? "a database of a newer schema: measured without it"
grep -q "schema 99 is newer than this perfdojo's (4); measuring without the database" \
    "$tmp/n.err"
ok $? "... saying why"
same "99" "$(sqlite3 "$tmp/new.db" "PRAGMA user_version")" "... and not touched"
# a database of schema 2: the runs' host column and the hosts table
# added, its runs all there
s2=$tmp/s2.db
sqlite3 "$s2" "PRAGMA user_version = 2;
    CREATE TABLE measurements (state TEXT NOT NULL, fingerprint TEXT NOT NULL,
    outcome TEXT NOT NULL, message TEXT, median_ns REAL, ci_low_ns REAL,
    ci_high_ns REAL, reps INTEGER, measured_at TEXT NOT NULL, runs INTEGER,
    spread REAL, disturbed INTEGER, PRIMARY KEY (state, fingerprint));
    CREATE TABLE runs (id INTEGER PRIMARY KEY, state TEXT NOT NULL,
    fingerprint TEXT NOT NULL, began REAL, ended REAL, median_ns REAL NOT NULL,
    ci_low_ns REAL, ci_high_ns REAL, reps INTEGER, threads INTEGER,
    load_before INTEGER, load_after INTEGER, nivcsw INTEGER, cpu_s REAL,
    wall_s REAL, delay_s REAL, disturbed INTEGER NOT NULL, why TEXT,
    source TEXT NOT NULL, stolen_s REAL);
    CREATE TABLE peaks (fingerprint TEXT PRIMARY KEY, gflops REAL NOT NULL,
    measured_at TEXT NOT NULL);
    CREATE TABLE speedups (state TEXT NOT NULL, reference TEXT NOT NULL,
    fingerprint TEXT NOT NULL, speedup REAL NOT NULL, low REAL, high REAL,
    pairs INTEGER, disturbed INTEGER NOT NULL, measured_at TEXT NOT NULL,
    PRIMARY KEY (state, reference, fingerprint));
    INSERT INTO runs (state, fingerprint, median_ns, disturbed, why, source)
    VALUES ('$state', '$fp', 23456, 0, '', 'run'),
    ('other', 'x', 777, 1, 'a thread of the kernel waited', 'run')"
"$PERFDOJO" measure --json --db "$s2" "$k" > "$tmp/s2"
ok $? "measure on a database of schema 2"
same "4 1" "$(sqlite3 "$s2" "SELECT (SELECT user_version FROM pragma_user_version),
    (SELECT count(*) FROM hosts)" | tr '|' ' ')" \
    "it is now of schema 4, with the probe's best"
same "23456 777" "$(sqlite3 "$s2" "SELECT median_ns FROM runs WHERE host IS NULL
    ORDER BY id" | sed 's/\.0$//' | tr '\n' ' ' | sed 's/ $//')" \
    "its runs are all there, without a host ratio"
same 1 "$(sqlite3 "$s2" "SELECT count(*) >= 2 FROM runs WHERE host > 0")" \
    "the new runs have one"
# a database of schema 3: its speedups (each kernel of a pair on its own
# copy of the arguments) kept, marked protocol 1, and not taken again
s3=$tmp/s3.db
pstate=$("$PERFDOJO" check "$tmp/p.dojo" | awk '{ print $NF }')
sqlite3 "$s3" "PRAGMA user_version = 3;
    CREATE TABLE speedups (state TEXT NOT NULL, reference TEXT NOT NULL,
    fingerprint TEXT NOT NULL, speedup REAL NOT NULL, low REAL, high REAL,
    pairs INTEGER, disturbed INTEGER NOT NULL, measured_at TEXT NOT NULL,
    PRIMARY KEY (state, reference, fingerprint));
    INSERT INTO speedups VALUES ('$pstate', '$state', '$fp', 0.123, 0.12,
    0.126, 9, 0, '2026-01-01T00:00:00Z'), ('x', 'y', 'z', 2, 1.9, 2.1, 3, 0,
    '2026-01-01T00:00:00Z')"
"$PERFDOJO" measure --json --db "$s3" --baseline "$k" "$tmp/p.dojo" > "$tmp/s3"
ok $? "measure --baseline on a database of schema 3"
same "4 1" "$(sqlite3 "$s3" "SELECT (SELECT user_version FROM pragma_user_version),
    (SELECT protocol FROM speedups WHERE state = 'x')" | tr '|' ' ')" \
    "it is now of schema 4, its speedups kept as protocol 1"
grep -q '"cached": false' "$tmp/s3" && ! grep -q '"speedup": 0.123' "$tmp/s3"
ok $? "a speedup of protocol 1 is measured again"
same "2" "$(sqlite3 "$s3" "SELECT protocol FROM speedups WHERE state = '$pstate'")" \
    "... and replaced by one of protocol 2"
# schema 4 by its number, without a column (a development build's file)
sqlite3 "$tmp/dev.db" "PRAGMA user_version = 4; CREATE TABLE measurements (state,
    fingerprint, outcome, message, median_ns, ci_low_ns, ci_high_ns, reps,
    measured_at, runs, spread, disturbed); CREATE TABLE runs (id, state,
    fingerprint, median_ns); CREATE TABLE peaks (fingerprint, gflops,
    measured_at); CREATE TABLE speedups (state, reference, fingerprint,
    speedup, low, high, pairs, disturbed, measured_at)"
"$PERFDOJO" measure --json --db "$tmp/dev.db" "$k" > "$tmp/d" 2> "$tmp/d.err"
ok $? "a schema-4 database without a column: measured without it"
grep -q "not the tables of schema 4 (no such column: .*); measuring without the database" \
    "$tmp/d.err" && grep -q '"stored": false' "$tmp/d"
ok $? "... saying why, in one line"
cp "$PERFDOJO_DB" "$tmp/ro.db"
chmod a-w "$tmp/ro.db"
if [ "$(id -u)" -ne 0 ]; then
	"$PERFDOJO" measure --json --fresh --db "$tmp/ro.db" "$k" > "$tmp/ro" \
	    2> "$tmp/ro.err"
	ok $? "a read-only database: measured"
	grep -q "measuring without the database" "$tmp/ro.err" &&
	    grep -q '"stored": false' "$tmp/ro"
	ok $? "... and said that the runs are not kept"
fi

# two writers at once, on one database
m=$top_srcdir/tests/ref/matmul.dojo
b=$top_srcdir/tests/ref/bias_relu.dojo
"$PERFDOJO" measure --fresh "$m" > /dev/null & p1=$!
"$PERFDOJO" measure --fresh "$b" > /dev/null & p2=$!
wait $p1; s1=$?
wait $p2; s2=$?
same "0 0" "$s1 $s2" "two concurrent measurements succeed"
# their timed runs never overlap (the lock beside the database; the
# two runs of a pair of alternate repetitions are one child)
sqlite3 "$PERFDOJO_DB" "SELECT DISTINCT began, ended FROM runs ORDER BY began" |
    awk -F'|' 'NR > 1 && $1 < end { bad = 1 } { end = $2 } END { exit bad }'
ok $? "no two timed runs overlap"
same 2 "$(sqlite3 "$PERFDOJO_DB" "SELECT count(*) FROM measurements
    WHERE state IN ('$("$PERFDOJO" check "$m" | sed 's/.*state //')',
    '$("$PERFDOJO" check "$b" | sed 's/.*state //')')")" \
    "both are in the database" 
done_testing
