/* runner.h: generated code compiled and run in a child process */
#ifndef DOJO_RUNNER_H
#define DOJO_RUNNER_H

#include <stdbool.h>
#include <sys/types.h>

#include "ir/data.h"
#include "ir/program.h"

enum dojo_outcome {
	DOJO_OUTCOME_OK,
	DOJO_OUTCOME_COMPILE_ERROR,
	DOJO_OUTCOME_CRASH,
	DOJO_OUTCOME_TIMEOUT,
	DOJO_OUTCOME_WRONG,	/* set by the caller that checks outputs */
};

struct dojo_run_options {
	const char *cc;		/* NULL: $CC or cc */
	const char *cflags;	/* NULL: DOJO_C_CFLAGS */
	double timeout;		/* seconds of wall time for the child */
	uint64_t memory;	/* bytes of address space the child may add
				   (0: no limit; DOJO_RUN_MEMORY by default) */
	/* timing (when "time"): after a warm-up run, repetitions until the
	 * 95% confidence interval of the median is within "precision" of
	 * it, at least "min_reps", at most "max_reps" or "budget" seconds */
	bool time;
	double precision;
	int min_reps, max_reps;
	double budget;
	/* the child's OpenMP threads (0: as the environment says); past 1
	 * they are bound to cores (OMP_PROC_BIND, OMP_PLACES) unless the
	 * environment chose otherwise */
	int threads;
	/* the exact mode (also $PERFDOJO_EXACT): no contraction, scalar
	 * libm calls in vector loops too (doc/measure.md, "Modes") */
	bool exact;
};

#define DOJO_RUN_MAX_REPS 10000
#define DOJO_RUN_MAX_PROBES 4096
#define DOJO_RUN_MEMORY (16ULL << 30)

/* OMP_WAIT_POLICY of the timed child, unless the environment sets it
 * (doc/measure.md says why) */
#define DOJO_RUN_WAIT_POLICY "active"

/* The compiler's flags, after those of the mode (dojo_c_mode_flags), so
 * that --cflags can override them too. */
#define DOJO_C_CFLAGS "-O3 -march=native -fopenmp -fno-math-errno"

/* Whether the test-only fault switch $PERFDOJO_FAULT is "name" (crash,
 * hang, wrong, busy, disturbed, host: doc/measure.md). */
bool dojo_fault_is(const char *name);

/* The host probe (doc/measure.md, "A slowed host"): a run whose probes'
 * third quartile is past DOJO_HOST_SLOW times their best on its
 * fingerprint is disturbed.  dojo_probe_build names the probe's code as
 * this perfdojo was built (a sanitizer's or an unoptimized build's probe
 * is slower, and keeps a best of its own). */
#define DOJO_HOST_SLOW 1.3
const char *dojo_probe_build(void);

/* What --exact does, for the commands' help. */
#define DOJO_EXACT_HELP "the exact mode: no contraction (FMA), no vector " \
	"math; results bit for bit the interpreter's unless a vector loop " \
	"reduces (also $PERFDOJO_EXACT=1)"

/* Whether "opt" (NULL: the defaults) asks for the exact mode, or
 * $PERFDOJO_EXACT does (set, and not "0"). */
bool dojo_c_exact(__dojo_keep const struct dojo_run_options *opt);
/* "exact" or "fast": the mode's name, for fingerprints and messages. */
const char *dojo_c_mode_name(__dojo_keep const struct dojo_run_options *opt);
/* The flags of the mode of "opt", before the compiler flags:
 * -ffp-contract=off (exact) or =fast, and -mprefer-vector-width=512 where
 * the processor has AVX-512 (a static string). */
const char *dojo_c_mode_flags(__dojo_keep const struct dojo_run_options *opt);

struct dojo_run_result {
	enum dojo_outcome outcome;
	char message[512];	/* the compiler's first line, the signal */
	/* with "time": the median and its 95% interval, in nanoseconds */
	double median_ns, ci_low_ns, ci_high_ns;
	int reps;
	/* what the kernel told the child about its timed repetitions
	 * (getrusage): involuntary context switches, CPU seconds of all its
	 * threads, wall seconds, the threads it had, and when they began and
	 * ended (seconds since the epoch) */
	long nivcsw;
	double cpu_s, wall_s;
	int threads;
	double began, ended;
	double delay_s;	/* the longest a thread of the kernel waited,
			   runnable, for a processor (schedstat) */
	/* the host probe of the timed child (doc/measure.md, "A slowed
	 * host"): how many it took, their fastest time and the third
	 * quartile of those during and after the repetitions (0: none, as
	 * in a cross target's or an untimed run) */
	int probes;
	double probe_min_ns, probe_q3_ns;
};

/* The median of the "n" sorted times "t" and its distribution-free 95%
 * confidence interval (order statistics n/2 -+ 0.98 sqrt(n)). */
void dojo_median_ci(const double *t, int n, double *median, double *lo,
    double *hi);

/* Sort the "n" values "x" in increasing order. */
void dojo_sort_doubles(double *x, int n);

const char *dojo_outcome_name(enum dojo_outcome o);

/* In a child just forked from the process "parent" (its getpid() before
 * the fork): die by SIGKILL when the parent dies (Linux's
 * PR_SET_PDEATHSIG, kept across exec), at once when it died already. */
void dojo_child_die_with_parent(pid_t parent);

/* Run "argv" (its first word looked up on $PATH; no shell) in a child
 * that dies with this process, stdin and stdout /dev/null, stderr into the file
 * "err", under timeout(1) when "limit" > 0 (its whole seconds rounded
 * up, then SIGKILL 2 s later); its wait status into "*status".  0, or -1
 * with the last error set (no child). */
int dojo_spawn(const char **argv, const char *err, double limit,
    int *status);

/* Compile "prog" with the C target and run it, in a child process, on the
 * kernel arguments of "data"; the out and inout buffers come back into
 * "data" when the outcome is ok.  -1 (last error set) only when the run
 * could not be attempted; a failing kernel is an outcome in "res". */
int dojo_c_run(__dojo_keep dojo_program *prog, __dojo_keep dojo_data *data,
    __dojo_keep const struct dojo_run_options *opt,
    __dojo_keep struct dojo_run_result *res);

/* The same in two steps, so that one compiled kernel runs in several
 * children: dojo_c_build compiles "prog" into "*out" (NULL, with the
 * outcome in "res", when it does not compile); dojo_c_kernel_run runs it
 * once in a new child, as dojo_c_run does. */
struct dojo_c_kernel;
int dojo_c_build(__dojo_keep dojo_program *prog,
    __dojo_keep const struct dojo_run_options *opt,
    __dojo_give struct dojo_c_kernel **out,
    __dojo_keep struct dojo_run_result *res);
int dojo_c_kernel_run(__dojo_keep struct dojo_c_kernel *k,
    __dojo_keep dojo_data *data,
    __dojo_keep const struct dojo_run_options *opt,
    __dojo_keep struct dojo_run_result *res);
void dojo_c_kernel_free(__dojo_take struct dojo_c_kernel *k);
/* The shared object "k" was compiled into (its function: DOJO_C_KERNEL),
 * valid until dojo_c_kernel_free. */
const char *dojo_c_kernel_object(__dojo_keep struct dojo_c_kernel *k);
/* Two kernels in one child, timed in alternate repetitions (A B A B
 * ..., each on copies of its own arguments, after a warm-up of each), so
 * that a machine whose speed drifts slows both alike: their results into
 * res[0] and res[1], and the median of the ratios tA/tB of the
 * repetitions with its 95% interval into ratio[0..2].  Outputs do not
 * come back (dojo_c_kernel_run checks them). */
int dojo_c_kernel_run_pair(__dojo_keep struct dojo_c_kernel *a,
    __dojo_keep dojo_data *da, __dojo_keep struct dojo_c_kernel *b,
    __dojo_keep dojo_data *db,
    __dojo_keep const struct dojo_run_options *opt,
    struct dojo_run_result res[2], double ratio[3]);

/* The GFLOP/s that independent vector multiply-adds reach on this
 * machine, compiled with the compiler and flags of "opt", in its threads
 * (a child, as a kernel): the peak a kernel's rate is a share of.  0, or
 * -1 with the last error set. */
int dojo_c_peak(__dojo_keep const struct dojo_run_options *opt,
    double *gflops);

/* Compile the kernels of "progs" ahead, "jobs" compilers at a time, so
 * that the dojo_c_run of each (in this process, with the same compiler
 * and flags) only runs it.  Nothing is timed here: timed runs never
 * overlap.  Does nothing for "jobs" < 2.  0, or -1 with the last error
 * set (no temporary folder); a kernel that fails to compile is compiled
 * again by its run, which reports why. */
int dojo_c_prepare(__dojo_keep dojo_program *const *progs, int n, int jobs,
    __dojo_keep const struct dojo_run_options *opt);

#endif
