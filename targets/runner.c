/* runner.c: generated code compiled and run in a child process */
#include "config.h"
#include "targets/runner.h"
#include "targets/c.h"
#include "ir/program.h"
#include "src/util/strbuf.h"
#include "src/util/sha1.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

void
dojo_median_ci(const double *t, int n, double *median, double *lo, double *hi)
{
	double h = 0.98 * sqrt((double)n);
	int j = (int)floor(n / 2.0 - h), k = (int)ceil(n / 2.0 + h);

	if (n == 0) {
		*median = *lo = *hi = 0;
		return;
	}
	*median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	*lo = t[j < 0 ? 0 : j];
	*hi = t[k > n - 1 ? n - 1 : k];
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
dojo_sort_doubles(double *x, int n)
{
	qsort(x, n, sizeof *x, cmp_double);
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Whether the "n" values "x" (times or ratios) of repetitions begun at
 * "start" are enough: at least opt->min_reps, and the budget spent or
 * the 95% interval of their median within opt->precision of it
 * ("sorted" has room for a copy). */
static bool
enough(const double *x, int n, double *sorted, double start,
    const struct dojo_run_options *opt)
{
	double med, lo, hi;

	if (n < opt->min_reps)
		return false;
	if (now_ns() - start > opt->budget * 1e9)
		return true;
	memcpy(sorted, x, sizeof *x * n);
	qsort(sorted, n, sizeof *sorted, cmp_double);
	dojo_median_ci(sorted, n, &med, &lo, &hi);
	return med > 0 && (hi - lo) / med <= opt->precision;
}

/*
 * The host probe (doc/measure.md, "A slowed host"): a fixed loop of
 * loads, multiply-adds and stores on 16 KB that stay in the first-level
 * cache.  It needs the ports of its core and nothing else, so its time
 * moves only when something else takes them: above all another virtual
 * machine on the other hardware thread of the same physical core, which
 * no counter of this machine shows.  Its best time here is the measure;
 * the timed child probes before and between its repetitions.
 */
typedef float dojo_probe_vec __attribute__((vector_size(16)));
#define PROBE_WORDS 1024
#define PROBE_PASSES 16
#define PROBE_EVERY_NS 1e6	/* at most one probe a millisecond of
				   repetitions: under 1% of the time */
#define PROBE_FIRST 16		/* before the repetitions (0.1 ms): the
				   best of the run when nothing else is
				   known */
#define PROBE_LAST 4		/* after them */

static dojo_probe_vec probe_x[PROBE_WORDS] __attribute__((aligned(64)));
static dojo_probe_vec probe_y[PROBE_WORDS] __attribute__((aligned(64)));

/* The probe in the VEX encoding where the processor has AVX: a kernel
 * compiled for it (-march=native) may leave the upper halves of the
 * vector registers dirty, and the legacy SSE encoding then pays for
 * every instruction (on a Sapphire Rapids guest, 1.4x on the probe
 * after nearly every kernel, a host that was quiet). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define PROBE_VEX 1
#endif

static bool
probe_vex(void)
{
#ifdef PROBE_VEX
	static int vex = -1;

	if (vex < 0) {
		__builtin_cpu_init();
		vex = __builtin_cpu_supports("avx") != 0;
	}
	return vex;
#else
	return false;
#endif
}

const char *
dojo_probe_build(void)
{
	bool vex = probe_vex();

#if defined(__SANITIZE_ADDRESS__)
	return vex ? "vex-16k asan" : "sse-16k asan";
#elif !defined(__OPTIMIZE__)
	return vex ? "vex-16k O0" : "sse-16k O0";
#else
	return vex ? "vex-16k" : "sse-16k";
#endif
}

/* One probe: its time, in nanoseconds.  The first pass brings the
 * buffers back to the cache (the kernel has just run), untimed.  Inlined
 * into the two encodings' functions below. */
static inline __attribute__((always_inline)) double
probe_body(void)
{
	const dojo_probe_vec a = { 0.999f, 0.999f, 0.999f, 0.999f };
	double t0 = 0;
	int p, i;

	for (p = -1; p < PROBE_PASSES; p++) {
		if (p == 0)
			t0 = now_ns();
		for (i = 0; i < PROBE_WORDS; i++)
			probe_y[i] = probe_y[i] * a + probe_x[i];
		__asm__ volatile ("" : : : "memory");
	}
	return now_ns() - t0;
}

static __attribute__((noinline)) double
probe_once_sse(void)
{
	return probe_body();
}

#ifdef PROBE_VEX
static __attribute__((noinline, target("avx"))) double
probe_once_vex(void)
{
	return probe_body();
}
#endif

static double
probe_once(void)
{
#ifdef PROBE_VEX
	if (probe_vex())
		return probe_once_vex();
#endif
	return probe_once_sse();
}

/* Probes taken by a timed child: their times, at most
 * DOJO_RUN_MAX_PROBES. */
struct probes {
	int n, first;		/* all of them, and those before the
				   repetitions */
	double last;		/* when the last one ended (now_ns) */
	double t[DOJO_RUN_MAX_PROBES];
};

static void
probe(struct probes *pr)
{
	double t;

	if (pr->n >= DOJO_RUN_MAX_PROBES)
		return;
	t = probe_once();
	/* the test-only fault "host": a host that slows the core down
	 * once the repetitions begin */
	if (pr->n >= PROBE_FIRST && dojo_fault_is("host"))
		t *= 3;
	pr->t[pr->n++] = t;
	pr->last = now_ns();
}

/* The probes before the repetitions. */
static void
probes_begin(struct probes *pr)
{
	int i;

	for (i = 0; i < PROBE_FIRST; i++)
		probe(pr);
	pr->first = pr->n;
}

/* After a repetition that ended at "now" (now_ns): a probe when a
 * millisecond of repetitions has passed since the last one. */
static void
probe_due(struct probes *pr, double now)
{
	if (now - pr->last >= PROBE_EVERY_NS)
		probe(pr);
}

/* The probes after the repetitions. */
static void
probes_end(struct probes *pr)
{
	int i;

	for (i = 0; i < PROBE_LAST; i++)
		probe(pr);
}

/* In the child: time "kernel" on "args" (the inout buffers put back before
 * each run), probing the host before and between the repetitions (into
 * "pr"); the times go to "times", their count is returned. */
static int
time_kernel(void (*kernel)(void **), void **args, void **pristine,
    const size_t *bytes, int nargs, const struct dojo_run_options *opt,
    double *times, struct probes *pr)
{
	double start = now_ns(), t0, t1, *sorted;
	int n = 0, a;

	sorted = malloc(sizeof *sorted * DOJO_RUN_MAX_REPS);
	if (!sorted)
		return 0;
	probes_begin(pr);
	while (n < opt->max_reps && n < DOJO_RUN_MAX_REPS) {
		for (a = 0; a < nargs; a++)
			if (pristine[a])
				memcpy(args[a], pristine[a], bytes[a]);
		t0 = now_ns();
		kernel(args);
		t1 = now_ns();
		times[n++] = t1 - t0;
		probe_due(pr, t1);
		if (enough(times, n, sorted, start, opt))
			break;
	}
	probes_end(pr);
	free(sorted);
	return n;
}

const char *
dojo_outcome_name(enum dojo_outcome o)
{
	static const char *const names[] = {
		"ok", "compile error", "crash", "timeout", "wrong answer"
	};

	return names[o];
}

void
dojo_child_die_with_parent(pid_t parent)
{
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	/* the parent died before the line above: no signal will come */
	if (getppid() != parent)
		_exit(127);
}

static int
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		return dojo_error_set("%s: %s", path, strerror(errno));
	return 0;
}

bool
dojo_c_exact(const struct dojo_run_options *opt)
{
	const char *env = getenv("PERFDOJO_EXACT");

	return (opt && opt->exact) || (env && *env && strcmp(env, "0") != 0);
}

const char *
dojo_c_mode_name(const struct dojo_run_options *opt)
{
	return dojo_c_exact(opt) ? "exact" : "fast";
}

const char *
dojo_c_mode_flags(const struct dojo_run_options *opt)
{
	bool wide = false;

#if defined(__x86_64__) && defined(__GNUC__)
	wide = __builtin_cpu_supports("avx512f");
#endif
	if (dojo_c_exact(opt))
		return wide ? "-ffp-contract=off -mprefer-vector-width=512" :
		    "-ffp-contract=off";
	return wide ? "-ffp-contract=fast -mprefer-vector-width=512" :
	    "-ffp-contract=fast";
}

/* The compiler and its flags for "opt": the mode's, then the others. */
static void
compiler(const char **cc, const char **mode, const char **flags,
    const struct dojo_run_options *opt)
{
	*cc = opt && opt->cc ? opt->cc : getenv("CC");
	*mode = dojo_c_mode_flags(opt);
	*flags = opt && opt->cflags ? opt->cflags : DOJO_C_CFLAGS;
	if (!*cc || !**cc)
		*cc = "cc";
}

/* The compiler's time limit (0: none): the run's plus 0.499, so that
 * "%.0f" prints it as whole seconds rounded up. */
static double
compile_limit(const struct dojo_run_options *opt)
{
	return opt && opt->timeout > 0 ? opt->timeout + 0.499 : 0;
}

int
dojo_spawn(const char **argv, const char *err, double limit, int *status)
{
	const char **full;
	char secs[32];
	pid_t pid, self = getpid();
	int n = 0, i, fd;

	for (i = 0; argv[i]; i++)
		;
	full = calloc(i + 6, sizeof *full);
	if (!full)
		return dojo_error_set("out of memory");
	if (limit > 0) {
		snprintf(secs, sizeof secs, "%.0f", limit + 0.499);
		full[n++] = "timeout";
		full[n++] = "-k";
		full[n++] = "2";
		full[n++] = secs;
	}
	for (i = 0; argv[i]; i++)
		full[n++] = argv[i];
	full[n] = NULL;
	pid = fork();
	if (pid < 0) {
		free(full);
		return dojo_error_set("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dojo_child_die_with_parent(self);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0 && fd != 2) {
			dup2(fd, 2);
			close(fd);
		}
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			close(fd);
		}
		execvp(full[0], (char *const *)full);
		/* the words the message readers look for */
		dprintf(2, "%s: %s\n", full[0], errno == ENOENT ? "not found" :
		    strerror(errno));
		_exit(127);
	}
	free(full);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return dojo_error_set("waitpid: %s", strerror(errno));
	return 0;
}

/* Run the compiler on "src" into "so", its complaints into the file
 * "err", and wait for it; the run's time limit bounds it too (a kernel
 * unrolled into megabytes of C can keep it busy for many minutes).  No
 * shell: $CC and the flags are split on blanks into words, with no
 * quoting.  0 with the compiler's wait status in "status", or -1 with
 * the last error set (no compiler started). */
static int
run_compiler(int *status, const char *src, const char *so, const char *err,
    const struct dojo_run_options *opt)
{
	const char *cc, *mode, *flags, **argv = NULL;
	char **ccw, **mw, **fw;
	int ncc = 0, nm = 0, nf = 0, n = 0, i, rc = -1;

	compiler(&cc, &mode, &flags, opt);
	ccw = dojo_split_words(cc, &ncc);
	mw = dojo_split_words(mode, &nm);
	fw = dojo_split_words(flags, &nf);
	if (ccw)
		argv = malloc((ncc + nm + nf + 8) * sizeof *argv);
	if (!ccw || !mw || !fw || !argv) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	if (ncc == 0)
		argv[n++] = "cc";
	for (i = 0; i < ncc; i++)
		argv[n++] = ccw[i];
	for (i = 0; i < nm; i++)
		argv[n++] = mw[i];
	for (i = 0; i < nf; i++)
		argv[n++] = fw[i];
	argv[n++] = "-fPIC";
	argv[n++] = "-shared";
	argv[n++] = "-o";
	argv[n++] = so;
	argv[n++] = src;
	argv[n++] = "-lm";
	argv[n] = NULL;
	rc = dojo_spawn(argv, err, opt ? opt->timeout : 0, status);
out_free:
	free(argv);
	free(ccw);
	free(mw);
	free(fw);
	return rc;
}

/* Whether the status "st" of a compile command says that the time limit
 * stopped it (timeout's statuses). */
static bool
compile_timed_out(int st, const struct dojo_run_options *opt)
{
	return compile_limit(opt) > 0 && WIFEXITED(st) &&
	    (WEXITSTATUS(st) == 124 || WEXITSTATUS(st) == 137);
}

static void
compile_timeout_result(struct dojo_run_result *res,
    const struct dojo_run_options *opt)
{
	const char *cc, *mode, *flags;

	compiler(&cc, &mode, &flags, opt);
	res->outcome = DOJO_OUTCOME_TIMEOUT;
	snprintf(res->message, sizeof res->message,
	    "%s ran past the time limit (%.0f s) compiling the kernel", cc,
	    compile_limit(opt));
}

/*
 * Compiled kernels made ahead (dojo_c_prepare): a folder of this
 * process, KEY.so for the source and compiler of KEY, taken (renamed) by
 * the run that needs it; removed at exit.
 */
static char prepared_dir[256];

static void
remove_prepared(void)
{
	DIR *d = opendir(prepared_dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", prepared_dir,
			    e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	rmdir(prepared_dir);
}

/* The key of "source" compiled for "opt". */
static void
prepared_key(char out[41], const char *source,
    const struct dojo_run_options *opt)
{
	const char *cc, *mode, *flags;
	char prefix[1024];
	int n;

	compiler(&cc, &mode, &flags, opt);
	n = snprintf(prefix, sizeof prefix, "%s%c%s%c%s%c", cc, 0, mode, 0,
	    flags, 0);
	dojo_sha1_hex(out, prefix, n < (int)sizeof prefix ? n :
	    (int)sizeof prefix - 1, source, strlen(source));
}

/* The path of the prepared file KEY.EXT. */
static void
prepared_path(char *out, size_t n, const char *key, const char *ext)
{
	snprintf(out, n, "%s/%s.%s", prepared_dir, key, ext);
}

int
dojo_c_prepare(dojo_program *const *progs, int n, int jobs,
    const struct dojo_run_options *opt)
{
	const char *tmpdir = getenv("TMPDIR");
	char key[41], src[512], so[512], tmp[520], err[512];
	struct dojo_strbuf sb;
	int i, running = 0, st;
	pid_t pid, self = getpid();

	if (jobs < 2 || n < 2)
		return 0;
	if (!prepared_dir[0]) {
		snprintf(prepared_dir, sizeof prepared_dir,
		    "%s/perfdojo-cc-XXXXXX", tmpdir && *tmpdir ? tmpdir :
		    "/tmp");
		if (!mkdtemp(prepared_dir)) {
			prepared_dir[0] = '\0';
			return dojo_error_set("%s: %s", tmpdir ? tmpdir : "/tmp",
			    strerror(errno));
		}
		atexit(remove_prepared);
	}
	fflush(NULL);
	for (i = 0; i < n; i++) {
		dojo_strbuf_init(&sb);
		if (dojo_c_emit(&sb, progs[i], dojo_c_exact(opt)) < 0 ||
		    !sb.s) {
			dojo_strbuf_release(&sb);
			continue;	/* dojo_c_run says why */
		}
		prepared_key(key, sb.s, opt);
		prepared_path(so, sizeof so, key, "so");
		prepared_path(src, sizeof src, key, "c");
		prepared_path(tmp, sizeof tmp, key, "slow");
		if (access(so, F_OK) == 0 || access(tmp, F_OK) == 0 ||
		    write_file(src, sb.s) < 0) {
			dojo_strbuf_release(&sb);
			continue;
		}
		dojo_strbuf_release(&sb);
		/* at most "jobs" compilers at once */
		while (running >= jobs && wait(&st) > 0)
			running--;
		snprintf(tmp, sizeof tmp, "%s.tmp", so);
		prepared_path(err, sizeof err, key, "err");
		pid = fork();
		if (pid == 0) {
			dojo_child_die_with_parent(self);
			/* a failed compile leaves nothing: the run compiles
			 * again and reports the compiler's words; one that
			 * ran past the time limit leaves KEY.slow, so that
			 * the run does not wait for it twice */
			if (run_compiler(&st, src, tmp, err, opt) < 0)
				_exit(1);
			if (compile_timed_out(st, opt)) {
				prepared_path(tmp, sizeof tmp, key, "slow");
				close(open(tmp, O_WRONLY | O_CREAT, 0600));
				_exit(1);
			}
			_exit(st == 0 && rename(tmp, so) == 0 ? 0 : 1);
		}
		if (pid > 0)
			running++;
	}
	while (running > 0 && wait(&st) > 0)
		running--;
	return 0;
}

/* Move a kernel prepared for "source" to "so": 1 when there was one, 2
 * when its compiler ran past the time limit, 0 otherwise. */
static int
take_prepared(const char *source, const char *so,
    const struct dojo_run_options *opt)
{
	char key[41], path[512];

	if (!prepared_dir[0])
		return 0;
	prepared_key(key, source, opt);
	prepared_path(path, sizeof path, key, "slow");
	if (access(path, F_OK) == 0)
		return 2;
	prepared_path(path, sizeof path, key, "so");
	return rename(path, so) == 0;
}

/* Compile "dir"/k.c into "dir"/k.so: 0, or 1 with the compiler's first
 * line of complaint in "res" when it fails, or -1 with the last error
 * set when no compiler ran. */
static int
compile(const char *dir, const struct dojo_run_options *opt,
    struct dojo_run_result *res)
{
	const char *cc, *mode, *flags;
	char line[400], path[1100], src[1100], so[1100];
	FILE *f;
	int st;

	compiler(&cc, &mode, &flags, opt);
	snprintf(src, sizeof src, "%s/k.c", dir);
	snprintf(so, sizeof so, "%s/k.so", dir);
	snprintf(path, sizeof path, "%s/cc.err", dir);
	if (run_compiler(&st, src, so, path, opt) < 0)
		return -1;
	if (st == 0)
		return 0;
	if (compile_timed_out(st, opt)) {
		compile_timeout_result(res, opt);
		return 1;
	}
	res->outcome = DOJO_OUTCOME_COMPILE_ERROR;
	snprintf(res->message, sizeof res->message, "%s failed (status %d)",
	    cc, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		/* the compiler's, or timeout's when it found no compiler */
		if (!strstr(line, "error") && !strstr(line, "not found") &&
		    !strstr(line, "failed to run"))
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* the compiler's line, named once */
		if (strncmp(line, cc, strlen(cc)) == 0)
			snprintf(res->message, sizeof res->message, "%s", line);
		else
			snprintf(res->message, sizeof res->message, "%s: %s",
			    cc, line);
		break;
	}
	if (f)
		fclose(f);
	return 1;
}

struct dojo_c_kernel {
	char dir[1024];		/* the temporary folder: k.c, k.so, cc.err */
	int nb;
	enum dojo_role *roles;	/* of the program's buffers */
	size_t *sizes;		/* of their elements */
};

const char *
dojo_c_kernel_object(struct dojo_c_kernel *k)
{
	static __thread char path[1100];

	snprintf(path, sizeof path, "%s/k.so", k->dir);
	return path;
}

void
dojo_c_kernel_free(struct dojo_c_kernel *k)
{
	char path[1100];
	int i;

	if (!k)
		return;
	/* the temporary folder and the three files it may hold */
	for (i = 0; k->dir[0] && i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", k->dir,
		    (const char *[]){ "k.c", "k.so", "cc.err" }[i]);
		unlink(path);
	}
	if (k->dir[0])
		rmdir(k->dir);
	free(k->roles);
	free(k->sizes);
	free(k);
}

int
dojo_c_build(dojo_program *prog, const struct dojo_run_options *opt,
    struct dojo_c_kernel **out, struct dojo_run_result *res)
{
	const char *tmpdir = getenv("TMPDIR");
	struct dojo_c_kernel *k;
	struct dojo_strbuf sb;
	char path[1100];
	int b, st;

	*out = NULL;
	memset(res, 0, sizeof *res);
	k = calloc(1, sizeof *k);
	if (k) {
		k->nb = dojo_program_n_buffers(prog);
		k->roles = calloc(k->nb + 1, sizeof *k->roles);
		k->sizes = calloc(k->nb + 1, sizeof *k->sizes);
	}
	if (!k || !k->roles || !k->sizes) {
		if (k) {
			free(k->roles);
			free(k->sizes);
		}
		free(k);
		return dojo_error_set("out of memory");
	}
	for (b = 0; b < k->nb; b++) {
		k->roles[b] = dojo_buffer_role(prog, b);
		k->sizes[b] = dojo_dtype_size(dojo_buffer_dtype(prog, b));
	}
	snprintf(k->dir, sizeof k->dir, "%s/perfdojo-XXXXXX",
	    tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(k->dir)) {
		dojo_error_set("%s: %s", k->dir, strerror(errno));
		k->dir[0] = '\0';
		dojo_c_kernel_free(k);
		return -1;
	}
	dojo_strbuf_init(&sb);
	snprintf(path, sizeof path, "%s/k.c", k->dir);
	if (dojo_c_emit(&sb, prog, dojo_c_exact(opt)) < 0 ||
	    write_file(path, sb.s) < 0)
		goto fail;
	snprintf(path, sizeof path, "%s/k.so", k->dir);
	switch (take_prepared(sb.s, path, opt)) {
	case 1:
		break;
	case 2:
		compile_timeout_result(res, opt);
		dojo_strbuf_release(&sb);
		dojo_c_kernel_free(k);
		return 0;
	default:
		st = compile(k->dir, opt, res);
		if (st != 0) {
			dojo_strbuf_release(&sb);
			dojo_c_kernel_free(k);
			return st > 0 ? 0 : -1;
		}
	}
	dojo_strbuf_release(&sb);
	*out = k;
	return 0;
fail:
	dojo_strbuf_release(&sb);
	dojo_c_kernel_free(k);
	return -1;
}

int
dojo_c_run(dojo_program *prog, dojo_data *data,
    const struct dojo_run_options *opt, struct dojo_run_result *res)
{
	struct dojo_c_kernel *k;
	int rc = dojo_c_build(prog, opt, &k, res);

	if (rc < 0 || !k)
		return rc;
	rc = dojo_c_kernel_run(k, data, opt, res);
	dojo_c_kernel_free(k);
	return rc;
}

/* What the child tells its parent, in memory they share. */
struct child_report {
	int ntimes, threads;
	long nivcsw;
	double cpu_s, wall_s, began, ended, delay_s;
	double times[DOJO_RUN_MAX_REPS];
	struct probes probes;
};

/* The scheduler's account of this process's threads
 * (/proc/self/task/TID/schedstat: nanoseconds on a processor, nanoseconds
 * runnable but waiting for one). */
#define MAX_THREADS 512
struct sched_snapshot {
	int n;
	long tid[MAX_THREADS];
	double waited[MAX_THREADS];
};

static void
sched_snapshot(struct sched_snapshot *snap)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned long long ran, waited;
	char path[300];
	FILE *f;

	snap->n = 0;
	while (d && (e = readdir(d)) && snap->n < MAX_THREADS) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/schedstat",
		    e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fscanf(f, "%llu %llu", &ran, &waited) == 2) {
			snap->tid[snap->n] = atol(e->d_name);
			snap->waited[snap->n++] = waited * 1e-9;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
}

/* The longest time one thread waited for a processor between "a" and
 * "b". */
static double
sched_delay(const struct sched_snapshot *a, const struct sched_snapshot *b)
{
	double worst = 0;
	int i, j;

	for (i = 0; i < b->n; i++)
		for (j = 0; j < a->n; j++)
			if (a->tid[j] == b->tid[i] &&
			    b->waited[i] - a->waited[j] > worst)
				worst = b->waited[i] - a->waited[j];
	return worst;
}

static double
now_unix(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
cpu_seconds(const struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_utime.tv_usec * 1e-6 +
	    ru->ru_stime.tv_sec + ru->ru_stime.tv_usec * 1e-6;
}

/* The threads of this process. */
static int
count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n > 0 ? n : 1;
}

/* In the child, before the kernel's code loads (and with it OpenMP): its
 * threads, bound to cores when there are several and the environment
 * does not say otherwise. */
static void
child_threads(const struct dojo_run_options *opt)
{
	char n[16];

	if (!opt || opt->threads <= 0)
		return;
	snprintf(n, sizeof n, "%d", opt->threads);
	setenv("OMP_NUM_THREADS", n, 1);
	if (opt->threads > 1) {
		setenv("OMP_PROC_BIND", "close", 0);
		setenv("OMP_PLACES", "cores", 0);
	}
	setenv("OMP_WAIT_POLICY", DOJO_RUN_WAIT_POLICY, 0);
}

bool
dojo_fault_is(const char *name)
{
	const char *fault = getenv("PERFDOJO_FAULT");

	return fault && strcmp(fault, name) == 0;
}

/* The test-only fault "wrong": the first bytes of the last of the "n"
 * arguments "args" (an output) garbled after a run. */
static void
fault_wrong(void **args, int n)
{
	if (n > 0 && dojo_fault_is("wrong"))
		memset(args[n - 1], 0x55, 4);
}

/* The test-only fault "busy": a process that spins on the processor of
 * the calling thread, which stays there; its pid, or -1. */
static pid_t
start_competitor(void)
{
#ifdef __linux__
	cpu_set_t set;
	int cpu = sched_getcpu();
	pid_t pid, self = getpid();

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		volatile unsigned long spin = 0;

		dojo_child_die_with_parent(self);
		for (;;)
			spin++;
	}
	return pid;
#else
	return -1;
#endif
}

/* In the child: the copy of argument "a" a kernel is timed on, of
 * "bytes", at an address that depends on "a" only: its own pages, at
 * 256 bytes times "a" (modulo 16) into the first.  NULL when there is no
 * memory.  From malloc, the copies' addresses depended on what the
 * parent had freed before it forked (glibc serves a large block from
 * its own pages until a free raises its threshold): in one tune, every
 * child of a 5-point stencil timed 12% slower than the start, the
 * start timed first and alone just as fast as those children; at fixed
 * offsets, each row of the copies starts on a cache line, and two
 * arguments read at the same index never fall 4 KiB apart (the loads
 * of one would wait on the stores to the other). */
static void *
scratch_alloc(size_t bytes, int a)
{
	size_t off = (size_t)(a % 16) * 256;
	char *p = mmap(NULL, bytes + off + 1, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p + off;
}

/* In the child: the timed repetitions of "kernel" on copies of the
 * arguments "args" (of "bytes" each; "inout" marks those it changes),
 * after the warm-up run whose outputs are the ones checked, with what
 * the kernel saw of the machine in "rep". */
static void
child_time(void (*kernel)(void **), void **args, const size_t *bytes,
    const int *inout, int n, const struct dojo_run_options *opt,
    struct child_report *rep)
{
	void **pristine = calloc(n + 1, sizeof *pristine);
	void **scratch = calloc(n + 1, sizeof *scratch);
	struct rusage r0, r1;
	struct sched_snapshot *s0 = malloc(sizeof *s0), *s1 = malloc(sizeof *s1);
	double w0;
	pid_t busy = -1;
	int a;

	for (a = 0; pristine && a < n; a++)
		if (inout[a] && (pristine[a] = malloc(bytes[a])))
			memcpy(pristine[a], args[a], bytes[a]);
	kernel(args);
	fault_wrong(args, n);
	/* time on scratch copies of the outputs */
	for (a = 0; scratch && a < n; a++) {
		scratch[a] = scratch_alloc(bytes[a], a);
		if (scratch[a])
			memcpy(scratch[a], pristine[a] ? pristine[a] : args[a],
			    bytes[a]);
		else
			scratch[a] = args[a];
	}
	rep->threads = count_threads();
	if (dojo_fault_is("busy"))
		busy = start_competitor();
	if (s0)
		sched_snapshot(s0);
	getrusage(RUSAGE_SELF, &r0);
	w0 = now_ns();
	rep->began = now_unix();
	rep->ntimes = time_kernel(kernel, scratch ? scratch : args, pristine,
	    bytes, n, opt, rep->times, &rep->probes);
	rep->ended = now_unix();
	rep->wall_s = (now_ns() - w0) * 1e-9;
	getrusage(RUSAGE_SELF, &r1);
	rep->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	rep->cpu_s = cpu_seconds(&r1) - cpu_seconds(&r0);
	if (s0 && s1) {
		sched_snapshot(s1);
		rep->delay_s = sched_delay(s0, s1);
	}
	if (busy > 0)
		kill(busy, SIGKILL);
}

/* The arguments of one kernel in memory the child shares. */
struct marshal {
	void **args, **shared;
	size_t *bytes, *argbytes;
	int *inout;
	int *role;			/* of each argument */
	int nb, n;
};

static void
marshal_free(struct marshal *m)
{
	int b;

	for (b = 0; m->shared && b < m->nb; b++)
		if (m->shared[b])
			munmap(m->shared[b], m->bytes[b] ? m->bytes[b] : 1);
	free(m->shared);
	free(m->args);
	free(m->bytes);
	free(m->argbytes);
	free(m->inout);
	free(m->role);
	memset(m, 0, sizeof *m);
}

static int
marshal_init(struct marshal *m, const struct dojo_c_kernel *k,
    dojo_data *data)
{
	int b, nb = k->nb;

	memset(m, 0, sizeof *m);
	m->nb = nb;
	m->args = calloc(nb + 1, sizeof *m->args);
	m->shared = calloc(nb + 1, sizeof *m->shared);
	m->bytes = calloc(nb + 1, sizeof *m->bytes);
	m->argbytes = calloc(nb + 1, sizeof *m->argbytes);
	m->inout = calloc(nb + 1, sizeof *m->inout);
	m->role = calloc(nb + 1, sizeof *m->role);
	if (!m->args || !m->shared || !m->bytes || !m->argbytes || !m->inout ||
	    !m->role)
		goto fail;
	for (b = 0; b < nb; b++) {
		if (k->roles[b] == DOJO_TEMP)
			continue;
		m->bytes[b] = dojo_data_count(data, b) * k->sizes[b];
		m->shared[b] = mmap(NULL, m->bytes[b] ? m->bytes[b] : 1,
		    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m->shared[b] == MAP_FAILED) {
			m->shared[b] = NULL;
			goto fail;
		}
		memcpy(m->shared[b], dojo_data_buffer(data, b), m->bytes[b]);
		m->inout[m->n] = k->roles[b] == DOJO_INOUT;
		m->role[m->n] = k->roles[b];
		m->argbytes[m->n] = m->bytes[b];
		m->args[m->n++] = m->shared[b];
	}
	return 0;
fail:
	marshal_free(m);
	return dojo_error_set("out of memory for the kernel's arguments");
}

/* Whether the second kernel of a pair may work on the first one's copy
 * of argument "a": the same role, size and contents.  Then each kernel
 * finds its inputs where the other left them, in the caches and the
 * translation buffers, as a kernel timed alone finds them after its own
 * last repetition: with a copy each, a kernel of 4 MB of inputs timed
 * after another (the start) measured 3 to 4 times its time alone
 * (doc/measure.md, "Speedups"). */
static bool
same_argument(const struct marshal *m, int a)
{
	return a < m[0].n && a < m[1].n && m[0].role[a] == m[1].role[a] &&
	    m[0].argbytes[a] == m[1].argbytes[a] &&
	    memcmp(m[0].args[a], m[1].args[a], m[0].argbytes[a]) == 0;
}

/* In the child: two kernels timed in alternate repetitions (A B B A A B
 * ..., each after its warm-up, on copies of its arguments, one copy for
 * both where they are the same: same_argument), until the 95%
 * interval of the median of the ratios tA/tB is within "precision" of it
 * (or the repetitions or the budget end); A's times, B's times and the
 * ratios into "rep", "rep2" and "ratios". */
static void
child_time_pair(void (**kernel)(void **), struct marshal *m,
    const struct dojo_run_options *opt, struct child_report *rep,
    struct child_report *rep2, double *ratios)
{
	void **pristine[2], **scratch[2];
	struct rusage r0, r1;
	struct sched_snapshot *s0 = malloc(sizeof *s0), *s1 = malloc(sizeof *s1);
	double w0, start, t0, *sorted;
	int a, j, k, n = 0;

	for (j = 0; j < 2; j++) {
		pristine[j] = calloc(m[j].n + 1, sizeof **pristine);
		scratch[j] = calloc(m[j].n + 1, sizeof **scratch);
		for (a = 0; pristine[j] && scratch[j] && a < m[j].n; a++) {
			if (m[j].inout[a] &&
			    (pristine[j][a] = malloc(m[j].argbytes[a])))
				memcpy(pristine[j][a], m[j].args[a],
				    m[j].argbytes[a]);
			if (j == 1 && same_argument(m, a)) {
				scratch[j][a] = scratch[0][a];
				continue;
			}
			scratch[j][a] = scratch_alloc(m[j].argbytes[a], a);
			if (scratch[j][a])
				memcpy(scratch[j][a], m[j].args[a],
				    m[j].argbytes[a]);
			else
				scratch[j][a] = m[j].args[a];
		}
		if (!pristine[j] || !scratch[j])
			return;
		kernel[j](scratch[j]);	/* the warm-up */
	}
	sorted = malloc(sizeof *sorted * DOJO_RUN_MAX_REPS);
	if (!sorted)
		return;
	rep->threads = rep2->threads = count_threads();
	if (s0)
		sched_snapshot(s0);
	getrusage(RUSAGE_SELF, &r0);
	w0 = start = now_ns();
	rep->began = now_unix();
	probes_begin(&rep->probes);
	while (n < opt->max_reps && n < DOJO_RUN_MAX_REPS) {
		/* A B, then B A: neither always runs after the other */
		for (k = 0; k < 2; k++) {
			j = k ^ (n & 1);
			for (a = 0; a < m[j].n; a++)
				if (pristine[j][a])
					memcpy(scratch[j][a], pristine[j][a],
					    m[j].argbytes[a]);
			t0 = now_ns();
			kernel[j](scratch[j]);
			(j ? rep2 : rep)->times[n] = now_ns() - t0;
		}
		ratios[n] = rep2->times[n] > 0 ? rep->times[n] /
		    rep2->times[n] : 0;
		probe_due(&rep->probes, now_ns());
		if (enough(ratios, ++n, sorted, start, opt))
			break;
	}
	probes_end(&rep->probes);
	rep2->probes = rep->probes;
	free(sorted);
	rep->ended = rep2->ended = now_unix();
	rep2->began = rep->began;
	rep->wall_s = rep2->wall_s = (now_ns() - w0) * 1e-9;
	getrusage(RUSAGE_SELF, &r1);
	rep->nivcsw = rep2->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	rep->cpu_s = rep2->cpu_s = cpu_seconds(&r1) - cpu_seconds(&r0);
	if (s0 && s1) {
		sched_snapshot(s1);
		rep->delay_s = rep2->delay_s = sched_delay(s0, s1);
	}
	rep->ntimes = rep2->ntimes = n;
}

static void
report_result(struct dojo_run_result *res, struct child_report *rep)
{
	res->reps = rep->ntimes;
	qsort(rep->times, rep->ntimes, sizeof *rep->times, cmp_double);
	dojo_median_ci(rep->times, rep->ntimes, &res->median_ns,
	    &res->ci_low_ns, &res->ci_high_ns);
	res->nivcsw = rep->nivcsw;
	res->cpu_s = rep->cpu_s;
	res->wall_s = rep->wall_s;
	res->threads = rep->threads;
	res->delay_s = rep->delay_s;
	res->began = rep->began;
	res->ended = rep->ended;
	res->probes = rep->probes.n;
	if (rep->probes.n > rep->probes.first) {
		/* the third quartile of those taken during and after the
		 * repetitions; the best of all */
		struct probes *pr = &rep->probes;
		double *during = pr->t + pr->first;
		int nd = pr->n - pr->first;

		qsort(during, nd, sizeof *during, cmp_double);
		res->probe_q3_ns = during[(3 * nd) / 4];
		qsort(pr->t, pr->n, sizeof *pr->t, cmp_double);
		res->probe_min_ns = pr->t[0];
	}
}

/* Run the "nk" (1 or 2) kernels "k" in one child: one, as dojo_c_run
 * does; two, timed in alternate repetitions (child_time_pair), their
 * ratio into "ratio" (median, low, high). */
static int
run_kernels(struct dojo_c_kernel **k, dojo_data **data, int nk,
    const struct dojo_run_options *opt, struct dojo_run_result *res,
    double *ratio)
{
	char path[1100];
	struct marshal m[2];
	struct child_report *rep = MAP_FAILED;
	double *ratios = MAP_FAILED;
	size_t size = sizeof *rep * 2;
	int b, j, st, rc = -1;
	pid_t pid, self = getpid();

	memset(m, 0, sizeof m);
	for (j = 0; j < nk; j++)
		memset(&res[j], 0, sizeof res[j]);
	for (j = 0; j < nk; j++)
		if (marshal_init(&m[j], k[j], data[j]) < 0)
			goto out_clean;
	rep = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (nk == 2)
		ratios = mmap(NULL, sizeof *ratios * DOJO_RUN_MAX_REPS,
		    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED || (nk == 2 && ratios == MAP_FAILED)) {
		dojo_error_set("out of memory");
		goto out_clean;
	}
	rep[0].ntimes = rep[1].ntimes = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		dojo_error_set("fork: %s", strerror(errno));
		goto out_clean;
	}
	if (pid == 0) {
		void (*kernel[2])(void **);
		void *h;
		struct rlimit lim;

		dojo_child_die_with_parent(self);
		if (opt && opt->memory) {
			/* "memory" more than the child holds already (a
			 * sanitizer's shadow is large) */
			unsigned long long pages = 0;
			FILE *f = fopen("/proc/self/statm", "r");

			if (f) {
				if (fscanf(f, "%llu", &pages) != 1)
					pages = 0;
				fclose(f);
			}
			lim.rlim_cur = lim.rlim_max = opt->memory +
			    pages * (unsigned long long)sysconf(_SC_PAGESIZE);
			setrlimit(RLIMIT_AS, &lim);
		}
		/* a fault of the kernel ends the child with its signal,
		 * whatever handlers the caller (or a sanitizer) installed */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGFPE, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		alarm(opt && opt->timeout > 0 ? (unsigned)(opt->timeout + 0.999) :
		    60);
		child_threads(opt);
		/* a kernel's heap temporaries from a heap that keeps what
		 * they free: after the warm-up, each call finds its blocks
		 * where the last one left them, whatever the parent's
		 * allocator had done before the fork (glibc's thresholds,
		 * raised by the parent's frees, are inherited: one state of
		 * three f32 nests through two 1 MiB temporaries timed 0.14
		 * ms in one child, 5.5 ms in the next, each call of the
		 * slow ones trimming the heap and faulting its pages in
		 * again) */
		if (opt && opt->time) {
			mallopt(M_MMAP_MAX, 0);
			mallopt(M_TRIM_THRESHOLD, INT_MAX);
		}
		for (j = 0; j < nk; j++) {
			snprintf(path, sizeof path, "%s/k.so", k[j]->dir);
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
			if (!h)
				_exit(3);
			*(void **)&kernel[j] = dlsym(h, DOJO_C_KERNEL);
			if (!kernel[j])
				_exit(4);
		}
		/* the test-only fault switch: a crash or a hang on demand */
		if (dojo_fault_is("crash"))
			raise(SIGSEGV);
		if (dojo_fault_is("hang"))
			for (;;)
				pause();
		if (nk == 2 && opt && opt->time)
			child_time_pair(kernel, m, opt, &rep[0], &rep[1],
			    ratios);
		else if (opt && opt->time)
			child_time(kernel[0], m[0].args, m[0].argbytes,
			    m[0].inout, m[0].n, opt, &rep[0]);
		else {
			kernel[0](m[0].args);
			fault_wrong(m[0].args, m[0].n);
		}
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			dojo_error_set("waitpid: %s", strerror(errno));
			goto out_clean;
		}
	if (WIFSIGNALED(st)) {
		res->outcome = WTERMSIG(st) == SIGALRM ? DOJO_OUTCOME_TIMEOUT :
		    DOJO_OUTCOME_CRASH;
		snprintf(res->message, sizeof res->message, "%s",
		    WTERMSIG(st) == SIGALRM ? "the time limit ran out" :
		    strsignal(WTERMSIG(st)));
	} else if (WEXITSTATUS(st) != 0) {
		res->outcome = DOJO_OUTCOME_CRASH;
		snprintf(res->message, sizeof res->message, "the child exited "
		    "with status %d%s", WEXITSTATUS(st), WEXITSTATUS(st) == 3 ?
		    " (the code did not load)" : "");
	} else {
		for (b = 0; nk == 1 && b < k[0]->nb; b++)
			if (k[0]->roles[b] == DOJO_OUT ||
			    k[0]->roles[b] == DOJO_INOUT)
				memcpy(dojo_data_buffer(data[0], b),
				    m[0].shared[b], m[0].bytes[b]);
		for (j = 0; opt && opt->time && j < nk; j++)
			if (rep[j].ntimes > 0)
				report_result(&res[j], &rep[j]);
		if (nk == 2 && ratio && rep[0].ntimes > 0) {
			qsort(ratios, rep[0].ntimes, sizeof *ratios,
			    cmp_double);
			dojo_median_ci(ratios, rep[0].ntimes, &ratio[0],
			    &ratio[1], &ratio[2]);
		}
	}
	if (nk == 2)
		res[1].outcome = res[0].outcome;
	rc = 0;
out_clean:
	for (j = 0; j < 2; j++)
		marshal_free(&m[j]);
	if (rep != MAP_FAILED)
		munmap(rep, size);
	if (ratios != MAP_FAILED)
		munmap(ratios, sizeof *ratios * DOJO_RUN_MAX_REPS);
	return rc;
}

int
dojo_c_kernel_run(struct dojo_c_kernel *k, dojo_data *data,
    const struct dojo_run_options *opt, struct dojo_run_result *res)
{
	return run_kernels(&k, &data, 1, opt, res, NULL);
}

int
dojo_c_kernel_run_pair(struct dojo_c_kernel *a, dojo_data *da,
    struct dojo_c_kernel *b, dojo_data *db,
    const struct dojo_run_options *opt, struct dojo_run_result res[2],
    double ratio[3])
{
	struct dojo_c_kernel *k[2] = { a, b };
	dojo_data *data[2] = { da, db };

	return run_kernels(k, data, 2, opt, res, ratio);
}

/*
 * The machine's peak for this compiler and flags: independent chains of
 * multiply-adds on vectors, in every thread, the best of five rounds.
 */
static const char peak_source[] =
	"#include <time.h>\n"
	"#define CHAINS 12\n"
	"#define LANES 16\n"
	"static double now(void)\n"
	"{\n"
	"	struct timespec t;\n"
	"	clock_gettime(CLOCK_MONOTONIC, &t);\n"
	"	return t.tv_sec + t.tv_nsec * 1e-9;\n"
	"}\n"
	"volatile float dojo_peak_sink;\n"
	"double dojo_peak(long n)\n"
	"{\n"
	"	double best = 0;\n"
	"	for (int round = 0; round < 5; round++) {\n"
	"		double t0 = now(), ops = 0;\n"
	"#pragma omp parallel reduction(+:ops)\n"
	"		{\n"
	"			float a[CHAINS][LANES], m = 0.9999999f, "
	"k = 1e-7f;\n"
	"			for (int c = 0; c < CHAINS; c++)\n"
	"				for (int l = 0; l < LANES; l++)\n"
	"					a[c][l] = (float)(c + l);\n"
	"			for (long i = 0; i < n; i++)\n"
	"				for (int c = 0; c < CHAINS; c++)\n"
	"#pragma omp simd\n"
	"					for (int l = 0; l < LANES; l++)\n"
	"						a[c][l] = a[c][l] * m + k;\n"
	"			float s = 0;\n"
	"			for (int c = 0; c < CHAINS; c++)\n"
	"				for (int l = 0; l < LANES; l++)\n"
	"					s += a[c][l];\n"
	"			dojo_peak_sink = s;\n"
	"			ops += 2.0 * n * CHAINS * LANES;\n"
	"		}\n"
	"		double g = ops / (now() - t0) * 1e-9;\n"
	"		if (g > best)\n"
	"			best = g;\n"
	"	}\n"
	"	return best;\n"
	"}\n";

int
dojo_c_peak(const struct dojo_run_options *opt, double *gflops)
{
	const char *tmpdir = getenv("TMPDIR");
	char dir[1024], src[1100], so[1100], err[1100];
	double *shared = MAP_FAILED;
	int st, rc = -1;
	pid_t pid, self = getpid();

	*gflops = 0;
	snprintf(dir, sizeof dir, "%s/perfdojo-peak-XXXXXX",
	    tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir))
		return dojo_error_set("%s: %s", dir, strerror(errno));
	snprintf(src, sizeof src, "%s/peak.c", dir);
	snprintf(so, sizeof so, "%s/peak.so", dir);
	snprintf(err, sizeof err, "%s/cc.err", dir);
	if (write_file(src, peak_source) < 0)
		goto out;
	if (run_compiler(&st, src, so, err, opt) < 0)
		goto out;
	if (st != 0) {
		dojo_error_set("the compiler failed on the peak kernel");
		goto out;
	}
	shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		dojo_error_set("out of memory");
		goto out;
	}
	*shared = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		dojo_error_set("fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		double (*peak)(long);
		void *h;

		dojo_child_die_with_parent(self);
		alarm(60);
		child_threads(opt);
		h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			_exit(3);
		*(void **)&peak = dlsym(h, "dojo_peak");
		if (!peak)
			_exit(4);
		*shared = peak(1L << 22);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			dojo_error_set("waitpid: %s", strerror(errno));
			goto out;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !(*shared > 0)) {
		dojo_error_set("the peak kernel did not run");
		goto out;
	}
	*gflops = *shared;
	rc = 0;
out:
	if (shared != MAP_FAILED)
		munmap(shared, sizeof *shared);
	unlink(src);
	unlink(so);
	unlink(err);
	rmdir(dir);
	return rc;
}
