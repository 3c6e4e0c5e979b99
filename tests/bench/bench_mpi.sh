# bench_mpi.sh PERFDOJO SRCDIR: perfdojo tune --mpi on this machine
# (make bench-mpi; doc/cluster.md).  Run it when nothing else runs.
#   1. measurements per second of a real tune (examples/softmax.dojo,
#      greedy, one thread a kernel) with 1 and with 2 measuring ranks,
#      each on a fresh database, and the best each found at that budget;
#   2. what bounds the scaling: rank 0's own time a candidate (the agent,
#      with instant synthetic measurements, one process), the same
#      through MPI (the messages), and the sizes of the messages.
# BENCH_BUDGET (default 24) measurements a tune, BENCH_REPEAT (3) times.
set -u
P=$1
src=$2
budget=${BENCH_BUDGET:-24}
repeat=${BENCH_REPEAT:-3}
mpirun=$(command -v mpirun) || { echo "bench-mpi: no mpirun (apt-get install openmpi-bin)"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/perfdojo-bench-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
k=$src/examples/softmax.dojo
run() {
	"$mpirun" --allow-run-as-root --oversubscribe -np "$@"
}
now() {
	date +%s.%N
}

echo "# perfdojo tune --mpi on $(nproc) cores: $k, greedy, --budget $budget, --threads 1"
echo "# measuring ranks  run  seconds  measurements/s  best (first look)"
for ranks in 1 2; do
	for r in $(seq 1 "$repeat"); do
		rm -rf "$tmp/s" "$tmp/db"*
		t0=$(now)
		PERFDOJO_DB=$tmp/db run $((ranks + 1)) "$P" tune "$k" --mpi \
		    --agent greedy --seed "$r" --budget "$budget" --threads 1 \
		    --session "$tmp/s" > "$tmp/out" 2> /dev/null
		t1=$(now)
		best=$(sed -n 's/^# best: .*, \([0-9.]*x\).*/\1/p' "$tmp/out")
		awk -v n="$ranks" -v r="$r" -v t0="$t0" -v t1="$t1" \
		    -v m="$budget" -v b="$best" 'BEGIN { printf "%17d  %3d  %7.1f  %14.2f  %s\n", n, r, t1 - t0, m / (t1 - t0), b }'
	done
done

echo "# what bounds it: rank 0's time a candidate, instant measurements"
n=2000
for how in alone mpi; do
	rm -rf "$tmp/s"
	t0=$(now)
	if [ $how = alone ]; then
		"$P" tune "$k" --synthetic --agent greedy --budget $n \
		    --session "$tmp/s" > /dev/null 2>&1
	else
		run 3 "$P" tune "$k" --mpi --synthetic --agent greedy \
		    --budget $n --session "$tmp/s" > /dev/null 2>&1
	fi
	t1=$(now)
	awk -v h="$how" -v n=$n -v t0="$t0" -v t1="$t1" 'BEGIN {
	    printf "%-6s %d candidates in %.2f s: %.3f ms a candidate\n", h, n, t1 - t0, 1000 * (t1 - t0) / n }'
done
bytes=$("$P" show "$k" | wc -c)
echo "# messages: a candidate is its program's text (about $bytes bytes for this kernel); a result 672 bytes and 280 a run (x86-64)"
