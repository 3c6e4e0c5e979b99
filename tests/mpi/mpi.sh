# mpi.sh: perfdojo tune --mpi, on this machine's loopback (mpirun -np 3
# --oversubscribe): with the synthetic cost, the same best state and path
# as the single-process run of the same seed; real measurements kept in
# rank 0's database as they arrive; a measuring rank killed mid-run, then
# --resume: the session and the database are whole and no state is
# measured twice; ranks that measure differently are refused, or kept
# apart with --mixed; the errors.
. "$top_srcdir/tests/lib.sh"

P=$PERFDOJO
cd "$tmp" || exit 1
PERFDOJO_DB=$tmp/m.db
TMPDIR=$tmp/tmp		# where the measuring ranks keep their scratch
mkdir -p "$TMPDIR"
# which rank measured what, and what --resume measures again, on runs the
# host probe does not judge (tests/target/measure.sh tests it): on a
# shared host every state would be measured again
PERFDOJO_HOST_SLOW=off
export PERFDOJO_DB TMPDIR PERFDOJO_HOST_SLOW

if [ -z "$MPIRUN" ] || ! "$P" tune --help | grep -q -- '--mpi '; then
	skip "tune --mpi" "no Open MPI (./bootstrap installs libopenmpi-dev and openmpi-bin)"
	done_testing
	exit
fi
if ! "$P" tune "$top_srcdir/tests/ref/bias_relu.dojo" --mpi --synthetic \
    --budget 1 --session probe.session 2> err && grep -q 'built without Open MPI' err; then
	skip "tune --mpi" "perfdojo was built without Open MPI"
	done_testing
	exit
fi
# Open MPI's own allocations are not this program's to check
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
mpi() {
	n=$1
	shift
	"$MPIRUN" --allow-run-as-root --oversubscribe -np "$n" \
	    --mca btl self,vader,tcp --mca btl_tcp_if_include lo "$@"
}

# the synthetic cost: the path does not depend on who measures
for agent in greedy beam random; do
	cp "$top_srcdir/tests/ref/softmax.dojo" s.dojo
	rm -rf s.dojo.session
	"$P" tune s.dojo --synthetic --budget 24 --agent $agent --seed 5 \
	    --session one.session > one.out 2> err
	ok $? "$agent, one process, the synthetic cost"
	mpi 3 "$P" tune s.dojo --mpi --synthetic --budget 24 --agent $agent \
	    --seed 5 --session mpi.session > mpi.out 2> err
	st=$?
	ok $st "$agent, mpirun -np 3: rank 0 plays, two ranks measure"
	[ $st -eq 0 ] || sed 's/^/# /' err | head -5
	same "$(grep -v '^# perfdojo\|^# mpi' one.out)" \
	    "$(grep -v '^# perfdojo\|^# mpi' mpi.out)" \
	    "... the same best state and path"
	grep -q '^# mpi: 2 ranks measured: [0-9]* on .*, [0-9]* on ' mpi.out
	ok $? "... and says what each rank measured"
	rm -rf one.session mpi.session
done

# real measurements: each kept in rank 0's database as it arrives
cp "$top_srcdir/tests/ref/bias_relu.dojo" r.dojo
mpi 3 "$P" tune r.dojo --mpi --budget 6 --agent greedy --seed 3 \
    --mpi-log log0 > real.out 2> err
st=$?
ok $st "tune --mpi measures for real"
[ $st -eq 0 ] || sed 's/^/# /' err | head -5
grep -q -e 'first looks on the measuring ranks' -e '0 moves, .* the start' real.out
ok $? "... its best is a first look of the measuring ranks (or the start)"
same "$(cut -f1 log0 | sort -u | wc -l | tr -d ' ')" "$(wc -l < log0 | tr -d ' ')" \
    "... each state measured once"
same "$(wc -l < log0 | tr -d ' ')" \
    "$(sqlite3 "$PERFDOJO_DB" "SELECT count(DISTINCT state) FROM runs")" \
    "... and every one of them in rank 0's database"
cut -f2 log0 | sort -u > ranks
same "1
2" "$(cat ranks)" "... by both measuring ranks"
same ok "$(sqlite3 "$PERFDOJO_DB" 'PRAGMA integrity_check')" "... the database is whole"
same "" "$(ls "$TMPDIR")" "... and no scratch database is left on the node"

# a measuring rank killed mid-run, then --resume
cp "$top_srcdir/tests/ref/layernorm.dojo" k.dojo
PERFDOJO_DB=$tmp/k.db
export PERFDOJO_DB
mpi 3 "$P" tune k.dojo --mpi --budget 40 --agent greedy --seed 2 --live \
    --mpi-log log1 > k1.out 2> k1.err &
job=$!
victim=""
# once a new best is on the session's branch (--live) and a few more
# measurements came in
for i in $(seq 1 900); do
	[ -d k.dojo.session ] && [ -s log1 ] && [ "$(wc -l < log1)" -ge 4 ] &&
	    break
	sleep 0.1
done
for pid in $(pgrep -f 'perfdojo tune k.dojo --mpi'); do
	if tr '\0' '\n' < /proc/$pid/environ 2> /dev/null |
	    grep -q '^OMPI_COMM_WORLD_RANK=2$'; then
		victim=$pid
	fi
done
[ -n "$victim" ] && kill -9 "$victim"
ok $? "a measuring rank is killed (kill -9) after $(wc -l < log1) measurements"
wait $job
st=$?
[ $st -ne 0 ]
ok $? "... the job fails ($st)"
before=$(wc -l < log1 | tr -d ' ')
# (a state whose runs were all disturbed is measured again, by design)
sqlite3 "$PERFDOJO_DB" "SELECT state FROM measurements WHERE disturbed = 0" |
    sort > known
same ok "$(sqlite3 "$PERFDOJO_DB" 'PRAGMA integrity_check')" "... the database is whole"
git -C k.dojo.session fsck --no-progress > /dev/null 2>&1 &&
    git -C k.dojo.session rev-parse -q --verify agent/greedy-1 > /dev/null
ok $? "... the session is whole (git fsck), its branch there"
mpi 3 "$P" tune k.dojo --mpi --budget 40 --agent greedy --seed 2 --resume \
    --mpi-log log2 > k2.out 2> err
st=$?
ok $st "--resume finishes the run"
[ $st -eq 0 ] || sed 's/^/# /' err | head -5
same "" "$(cut -f1 log1 | sort | comm -12 - known > a; cut -f1 log2 | sort > b
    comm -12 a b)" \
    "... measuring none of the $before states measured before the kill"
grep -q '[1-9][0-9]* from the database' k2.out
ok $? "... which come from the database"
git -C k.dojo.session rev-parse -q --verify agent/greedy-1 > /dev/null &&
    ! git -C k.dojo.session rev-parse -q --verify agent/greedy-2 > /dev/null
ok $? "... on the agent's branch of the killed run"
same ok "$(sqlite3 "$PERFDOJO_DB" 'PRAGMA integrity_check')" "... the database is whole"
PERFDOJO_DB=$tmp/m.db
export PERFDOJO_DB

# ranks that measure otherwise (here: another thread count)
mpi 2 "$P" tune r.dojo --mpi --threads 1 --budget 2 --session x.session : \
    -np 1 "$P" tune r.dojo --mpi --threads 2 --budget 2 \
    --session x.session > /dev/null 2> err
same 1 $? "a rank whose fingerprint differs is refused"
grep -q 'perfdojo: --mpi: rank 2 (.*) does not measure as rank 0 (.*): another CPU, compiler or flags; --mixed keeps their times apart' err
ok $? "... in one line that names it"
mpi 2 "$P" tune r.dojo --mpi --mixed --threads 1 --budget 3 \
    --session x.session --mpi-log logx : -np 1 "$P" tune r.dojo --mpi \
    --mixed --threads 2 --budget 3 --session x.session --mpi-log logx \
    > /dev/null 2> err
ok $? "--mixed takes it"
same 2 "$(sqlite3 "$PERFDOJO_DB" "SELECT count(DISTINCT fingerprint) FROM runs WHERE state IN ($(cut -f1 logx | sed "s/.*/'&'/" | paste -sd,))")" \
    "... its times kept under its own fingerprint"

# the Slurm job script, under plain bash with mpirun for srun
mkdir job && cp "$top_srcdir/tests/ref/bias_relu.dojo" \
    "$top_srcdir/tests/ref/softmax.dojo" job/
(cd job && PERFDOJO=$P PERFDOJO_BUDGET=3 PERFDOJO_DB=$tmp/job.db \
    LAUNCH="$MPIRUN --allow-run-as-root --oversubscribe -np 3" \
    bash "$top_srcdir/examples/tune.sbatch" bias_relu.dojo softmax.dojo \
    > out 2> err)
st=$?
ok $st "examples/tune.sbatch tunes two kernels and builds their library"
[ $st -eq 0 ] || sed 's/^/# /' job/err | tail -5
same 2 "$(grep -c '^# mpi: 2 ranks measured' job/out)" "... each kernel by the measuring ranks"
[ -f job/tuned-lib/tuned.h ] && grep -q '^tuned_softmax: softmax.dojo.session' job/out &&
    grep -q '^tuned_bias_relu: bias_relu.dojo.session' job/out
st=$?
ok $st "... and the library holds both kernels, from their sessions"
[ $st -eq 0 ] || sed 's/^/# /' job/out | tail -4

# errors
"$P" tune r.dojo --mpi --budget 2 2> err
same 1 $? "--mpi alone (one rank) fails"
grep -q 'one rank: start it with mpirun -np N' err
ok $? "... saying how to start it"
"$P" tune r.dojo --mixed --budget 2 2> /dev/null
same 2 $? "--mixed without --mpi is a usage error"

done_testing
