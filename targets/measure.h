/* measure.h: measurements of kernels, checked and kept in SQLite */
#ifndef DOJO_MEASURE_H
#define DOJO_MEASURE_H

#include <stdbool.h>

#include "ir/data.h"
#include "ir/program.h"
#include "targets/runner.h"

/* The schema of the measurement database this code writes. */
#define DOJO_MEASURE_SCHEMA 4

/* How the speedups' alternate pairs are timed: 1, each kernel on its own
 * copy of the arguments; 2, one copy of each argument the two share
 * (targets/runner.c, same_argument).  A speedup of another protocol in
 * the database is not taken again. */
#define DOJO_PAIR_PROTOCOL 2

struct dojo_measure_options {
	const char *db;		/* NULL: $PERFDOJO_DB or
				   ~/.cache/perfdojo/measurements.db */
	bool fresh;		/* add runs even when the state has enough */
	int runs;		/* clean runs (each a child) that make a
				   state known (default 3) */
	bool stable;		/* the estimate of the first "runs" clean
				   runs recorded only, not of all: the same
				   answer for a state however many runs
				   later measurements add (a search's first
				   looks, so that it replays); and a speedup
				   of alternate pairs kept only where none
				   clean is known */
	int retries;		/* runs at most in place of disturbed ones,
				   per measurement (default 2) */
	double wait;		/* seconds a run waits for idle cores
				   (default 10; $PERFDOJO_WAIT) */
	double deadline;	/* dojo_clock_seconds() past which no run
				   or pair starts once the measurement has
				   one (0: none; tune --seconds) */
	/* what the measurement has to say while it runs (waiting for
	 * another process, a database it cannot use); NULL: a line on
	 * standard error */
	void (*say)(const char *line, void *payload);
	void *say_payload;
	struct dojo_run_options run;	/* of each run */
};

/* One timed run: a child with its warm-up and repetitions. */
struct dojo_measure_run {
	double began, ended;	/* of the repetitions, seconds since 1970 */
	double median_ns, ci_low_ns, ci_high_ns;
	int reps, threads;
	int load_before, load_after;	/* other runnable threads seen */
	long nivcsw;
	double cpu_s, wall_s, delay_s;
	double child_s;		/* the child's whole life, seconds */
	double stolen_s;	/* taken by the hypervisor meanwhile, all
				   processors together */
	double host;		/* the host probe's third quartile in the
				   run over its best time on this
				   fingerprint (0: not probed) */
	bool disturbed;
	char why[160];		/* why it is disturbed */
	char source[12];	/* "run", or "migrated" from schema 1 */
};

struct dojo_measurement {
	char state[41];
	char fingerprint[41];
	enum dojo_outcome outcome;
	char message[512];
	/* the estimate: the median of the run medians (of the clean runs,
	 * of all when none is clean) and its 95% interval from their
	 * spread */
	double median_ns, ci_low_ns, ci_high_ns;
	int reps;		/* repetitions of those runs */
	int runs;		/* those runs */
	int new_runs;		/* runs this call made, disturbed included */
	double spread;		/* max/min of their medians, minus 1 */
	bool disturbed;		/* no clean run: measure again when it
				   matters */
	bool cached;		/* this call ran nothing */
	bool stored;		/* the database has it */
};

/* A time measured on another machine (a cross target's --runner): one
 * run of "res", kept in the database as a run of "prog" under the
 * fingerprint of "target", the "machine" as the runner's side reported
 * it and the "build" (compiler and flags), so that it never mixes with
 * this machine's times; the estimate of every run of that fingerprint
 * into "m".  0 (a database that cannot be written is said, as for
 * dojo_measure). */
struct dojo_run_result;
int dojo_measure_record_remote(__dojo_keep dojo_program *prog,
    const char *target, const char *machine, const char *build,
    __dojo_keep const struct dojo_run_result *res,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *m);

/* The fingerprint "opt" measures under on this machine: the target and
 * its code generator, the CPU, the compiler, the mode, the flags and the
 * threads (40 hex digits). */
void dojo_measure_fingerprint(char out[41],
    __dojo_keep const struct dojo_measure_options *opt);
/* Whether the database of "opt" knows "prog" under this machine's
 * fingerprint (enough clean runs, or a failed outcome): 1 with its
 * estimate in "m", 0 when it would be measured, -1 with the last error
 * set. */
int dojo_measure_known(__dojo_keep dojo_program *prog,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *m);
/* The runs the database of "opt" has of the state and fingerprint of
 * "m", oldest first, into "*runs" (malloc'd): their number, or -1 with
 * the last error set. */
int dojo_measure_runs(__dojo_keep const struct dojo_measurement *m,
    __dojo_keep const struct dojo_measure_options *opt,
    struct dojo_measure_run **runs);
/* Keep "m" (made elsewhere: its state, fingerprint, outcome and message)
 * and its "n" runs in the database of "opt"; "m" becomes the estimate of
 * every run of that state and fingerprint there (perfdojo tune --mpi:
 * rank 0 keeps what the other ranks measured). */
void dojo_measure_keep(__dojo_keep struct dojo_measurement *m,
    __dojo_keep const struct dojo_measure_run *runs, int n,
    __dojo_keep const struct dojo_measure_options *opt);
/* "prog" on the cross target "t" ("target", with its variant) through
 * "runner" (NULL: the runners file's, else qemu-user; "-": qemu-user):
 * run on the seed-1 inputs, its outputs checked against "want" (those of
 * "ref"), then "reps" repetitions timed.  Through a runner the time is
 * kept (dojo_measure_record_remote); under qemu-user it is only
 * reported.  The outcome and estimate into "m", the run and the machine
 * into "xr".  0, or -1 with the last error set when it could not be
 * attempted. */
struct dojo_target;
struct dojo_cross_result;
int dojo_measure_cross(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_program *ref, __dojo_keep dojo_data *want,
    __dojo_keep const struct dojo_target *t, const char *target,
    const char *runner, int reps,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *m,
    __dojo_keep struct dojo_cross_result *xr);

/* A speedup measured as a ratio: the reference and the kernel timed in
 * alternate runs (ABAB...), the ratio of each pair, their geometric mean
 * and its 95% interval. */
struct dojo_measure_ratio {
	double speedup, low, high;
	int pairs;
	bool disturbed;		/* fewer than two clean pairs */
	bool precise;		/* the interval within DOJO_RATIO_PRECISION */
	bool cached;		/* from the database: measured before */
};

/* A speedup's pairs go on past "runs" clean ones, up to
 * DOJO_RATIO_MAX_PAIRS, until its interval is within DOJO_RATIO_PRECISION
 * of it (either way): on a machine whose speed moves, a speedup that
 * cannot rank states 5% apart says so (precise false). */
#define DOJO_RATIO_PRECISION 0.05
#define DOJO_RATIO_MAX_PAIRS 9

/* Default options: C target, 1% precision in a run, 3 runs of at most
 * 2/3 s, a 60 s limit, $OMP_NUM_THREADS or all cores. */
/* The tolerance of doc/measure.md: whether an element "got" agrees with
 * the expected "want" of an array of type "t" whose expected values have
 * the root mean square "rms" (dojo_buffer_rms): f32 within 1e-4 (|want| +
 * rms) + 1e-5, f64 within 1e-10 (|want| + rms) + 1e-12, NaN where NaN,
 * integers exactly.  The rms term covers sums whose partial results are
 * far larger than the result. */
bool dojo_close_enough(enum dojo_dtype t, double want, double got,
    double rms);
/* The root mean square of the finite values of buffer "b" (of type "t")
 * of "data" (their largest magnitude when the squares overflow); 0 for
 * integers. */
double dojo_buffer_rms(__dojo_keep dojo_data *data, int b, enum dojo_dtype t);

/* Whether the out and inout arrays of "got" (kernel "prog") agree with
 * those of "want" (kernel "ref", the same arrays by name) within the
 * tolerance (dojo_close_enough).  false with the first element that does
 * not, "y[3] is 1.5, expected 1.25", into "msg". */
bool dojo_outputs_agree(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_data *got, __dojo_keep dojo_program *ref,
    __dojo_keep dojo_data *want, char *msg, size_t size);

void dojo_measure_options_init(__dojo_keep struct dojo_measure_options *opt);

/* The CPU's model name of /proc/cpuinfo ("" when there is none). */
void dojo_cpu_model(char *out, size_t len);

/* The processors online (at least 1). */
int dojo_measure_cores(void);

/* The threads a measurement with "opt" gives the kernel. */
int dojo_measure_threads(__dojo_keep const struct dojo_measure_options *opt);

/* Measure "prog"; its outputs must agree with the interpreter's outputs
 * of "reference" (NULL: of "prog") on the seeded inputs, within the
 * tolerance of doc/measure.md.  A state with enough clean runs on this
 * fingerprint is not run again (unless "fresh").  -1 with the last error
 * only when nothing could be measured (no memory, no temporary folder);
 * a failing kernel is an outcome, and a database that cannot be used is
 * said and measured without. */
int dojo_measure(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_program *reference,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *out);
/* The same, for callers that measure many kernels against one reference:
 * "*want" keeps the interpreter's outputs of "reference" between calls
 * (NULL at first: computed when a kernel is measured, not looked up; the
 * caller frees it with dojo_data_free).  Interpreting a large kernel
 * takes far longer than running its compiled code. */
int dojo_measure_against(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_program *reference, __dojo_keep dojo_data **want,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *out);

/* "*want" (when NULL) set to the interpreter's outputs of "reference"
 * on the inputs every measurement uses, for dojo_measure_against and
 * dojo_measure_speedup.  0, or -1 with the last error. */
int dojo_measure_want(__dojo_keep dojo_program *reference,
    __dojo_keep dojo_data **want,
    __dojo_keep const struct dojo_measure_options *opt);

/* The speedup of "prog" against "reference" (whose outputs are the
 * reference): "opt->runs" clean pairs of alternate runs, disturbed pairs
 * replaced (at most max(opt->retries, opt->runs) of them).  A speedup
 * measured so before, of at least "opt->runs" pairs, is taken from the
 * database (with its flags) unless "opt->fresh".  Both states'
 * measurements (all their runs, these included) go to "mprog" and
 * "mref"; "ratio" is zero unless both are ok.  -1 as dojo_measure. */
int dojo_measure_speedup(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_program *reference, __dojo_keep dojo_data **want,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *mprog,
    __dojo_keep struct dojo_measurement *mref,
    __dojo_keep struct dojo_measure_ratio *ratio);

/* Call "fn" on each run recorded for "prog" on the fingerprint of "opt",
 * oldest first; the fingerprint into "fingerprint".  0, or -1 with the
 * last error set (no database). */
int dojo_measure_history(__dojo_keep dojo_program *prog,
    __dojo_keep const struct dojo_measure_options *opt,
    char fingerprint[41],
    int (*fn)(const struct dojo_measure_run *run, void *payload),
    void *payload);

/* This machine's peak GFLOP/s for the fingerprint of "opt"
 * (dojo_c_peak), measured once and kept in the database.  0, or -1 with
 * the last error set. */
int dojo_measure_peak(__dojo_keep const struct dojo_measure_options *opt,
    double *gflops);

/* The 97.5% quantile of Student's t with "df" degrees of freedom. */
double dojo_t975(int df);

#endif
