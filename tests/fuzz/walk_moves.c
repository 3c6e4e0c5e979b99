/* walk_moves.c: a differential fuzzer of the moves.
 *
 * usage: walk_moves [--walks N] [--min-moves N] [--max-moves N] [--seed S]
 *            [--walk-seed S] [--no-c] [--timeout S] [--save DIR]
 *            [--target c|cuda] [--verbose] FILE.dojo...
 *
 * Each walk takes a kernel (the files in turn) and applies random legal
 * moves to it: a move kind drawn uniformly among those that have a legal
 * action in the state (dojo_legality_list), then one of its actions.  Each
 * action is applied by its text, as `perfdojo apply` does.  After every
 * move its inverse, when it has one, must give the state before back; the
 * new state must print to a text that reads back (validated) and prints
 * the same; and the interpreter must compute the original kernel's
 * outputs: bitwise, or within the tolerance of doc/moves.md when an
 * earlier move reassociated a floating-point reduction (integers are
 * always bitwise).  After the walk the final state is compiled and run by
 * the C target, with a time limit, and its outputs compared with the
 * interpreter's.
 *
 * Each walk runs in a child process: a crash of the core is reported with
 * the actions that led to it, and a listing, a move or an interpretation
 * that takes more than the time limit is a hang.  Failures:
 *
 *   wrong answer        the interpreter's (or the C code's) outputs differ,
 *                       or the generated code crashed
 *   C compile failure   the C compiler refused the generated code
 *   hang                a step, the compiler or the kernel ran past the limit
 *   refusal             the core refused what it offered: a listed action
 *                       refused when applied, an inverse refused or not
 *                       giving the state back, a moved state that does
 *                       not read back or that the interpreter refuses
 *   crash               the walk's process died (a signal in the core)
 *
 * Output is TAP, one line per walk; each failure is followed by the kernel,
 * the seed of the walk (`--walk-seed S FILE` replays it alone) and the
 * actions, as a `perfdojo apply` command line.  With --save DIR the failing
 * state and its actions go to DIR/KERNEL-SEED.dojo and .actions;
 * --verbose prints the actions of every walk.  The last line sums up.  Exit status 1 when a walk failed, 2 on bad usage. */
#include "config.h"

#include "ir/data.h"
#include "ir/interp.h"
#include "ir/program.h"
#include "ir/moves.h"
#include "targets/runner.h"
#include "tests/unit/walk.h"
#include "targets/target.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define INPUT_SEED 1		/* perfdojo run's default seed */
#define DATA_LIMIT (1ULL << 30)
#define MAX_ACTIONS 256
#define ACTION_LEN 256

enum failure {
	FAIL_NONE, FAIL_WRONG, FAIL_COMPILE, FAIL_HANG, FAIL_REFUSAL,
	FAIL_CRASH, FAIL_COUNT
};

static const char *const failure_names[FAIL_COUNT] = {
	"ok", "wrong answer", "C compile failure", "hang", "refusal", "crash"
};

struct options {
	int walks;		/* -1: one per file with --walk-seed, else 40 */
	int min_moves, max_moves;
	uint64_t seed;
	uint64_t walk_seed;
	bool have_walk_seed;
	bool c;
	bool verbose;
	double timeout;
	const char *save;
	const char *target;
};

struct kernel {
	const char *path;
	dojo_program *prog;
	dojo_data *out;		/* the interpreter's run on seeded inputs */
};

/* What the parent learns of one walk. */
struct walk_report {
	char actions[MAX_ACTIONS][ACTION_LEN];
	int nactions;		/* the last may be pending */
	int moves;		/* actions applied and checked */
	char phase[64];
	enum failure failure;
	char message[1024];
};

/* A walk in the child: the report stream, the walk's random state. */
struct walk {
	const struct options *opt;
	struct kernel *k;
	uint64_t seed, rng;
	FILE *report;
	char actions[MAX_ACTIONS][ACTION_LEN];
	int nactions;
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: walk_moves [--walks N] [--min-moves N] "
	    "[--max-moves N] [--seed S]\n"
	    "           [--walk-seed S] [--no-c] [--timeout S] [--save DIR]\n"
	    "           [--target c|cuda] [--verbose] FILE.dojo...\n");
}

static uint64_t
walk_rng(struct walk *w)
{
	return dojo_splitmix64(&w->rng);
}

/* Tell the parent one line: "tag" and the rest of the line, "text". */
static void
walk_tell(struct walk *w, char tag, const char *text)
{
	fprintf(w->report, "%c %s\n", tag, text);
	fflush(w->report);
}

static void
walk_phase(struct walk *w, const char *phase, unsigned seconds)
{
	walk_tell(w, 'p', phase);
	alarm(seconds);
}

/* The file stem of "path": "tests/fuzz/kernels/mm.dojo" gives "mm". */
static void
kernel_stem(char *out, size_t len, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".dojo"))
		n -= 5;
	snprintf(out, len, "%.*s", (int)n, base);
}

/* Write "text" (a state, or NULL) and the "n" "actions" of the walk of
 * seed "seed" on "kpath" under the folder "dir". */
static void
save_failure(const char *dir, const char *kpath, uint64_t seed,
    const char *text, char actions[][ACTION_LEN], int n)
{
	char stem[128], path[4096];
	FILE *f;
	int i;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return;
	kernel_stem(stem, sizeof stem, kpath);
	if (text) {
		snprintf(path, sizeof path, "%s/%s-%016" PRIx64 ".dojo", dir,
		    stem, seed);
		if ((f = fopen(path, "w"))) {
			fputs(text, f);
			fclose(f);
		}
	}
	snprintf(path, sizeof path, "%s/%s-%016" PRIx64 ".actions", dir, stem,
	    seed);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "# walk 0x%016" PRIx64 " of walk_moves on %s\n"
		    "# replay: perfdojo apply %s --actions %s\n", seed, kpath,
		    kpath, path);
		for (i = 0; i < n; i++)
			fprintf(f, "%s\n", actions[i]);
		fclose(f);
	}
}

/* End the walk in the child with failure "f": tell the parent and save
 * the state "p" (or the text "text"). */
static void
walk_fail(struct walk *w, enum failure f, dojo_program *p, const char *text,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
walk_fail(struct walk *w, enum failure f, dojo_program *p, const char *text,
    const char *fmt, ...)
{
	char msg[1024], line[1100], *t = NULL, *nl;
	va_list ap;

	alarm(0);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	while ((nl = strchr(msg, '\n')))
		*nl = ' ';
	snprintf(line, sizeof line, "%d %s", (int)f, msg);
	walk_tell(w, 'f', line);
	if (w->opt->save) {
		if (!text && p)
			text = t = dojo_program_print(p, false);
		save_failure(w->opt->save, w->k->path, w->seed, text,
		    w->actions, w->nactions);
		free(t);
	}
}

/* The interpreter's run of "p" on the seeded inputs, or NULL. */
static dojo_data *
interpret(dojo_program *p)
{
	dojo_data *d = dojo_data_new(p, DATA_LIMIT);

	if (!d)
		return NULL;
	dojo_data_randomize(d, INPUT_SEED);
	if (dojo_interp_run(p, d) < 0) {
		dojo_data_free(d);
		return NULL;
	}
	return d;
}

/* Whether the move of "a" only changes what the C target computes (a
 * vector reduction; the interpreter ignores flags). */
static bool
flag_only(const struct dojo_action *a)
{
	return !strcmp(dojo_move_name(dojo_action_move_index(a)),
	    "vectorize");
}

/* Draw a legal action of "p" into "out": a move kind uniformly among
 * those with a legal action, then one of its actions.  1 when drawn, 0
 * when no move is legal. */
static int
draw_action(struct walk *w, dojo_legality *mv, struct dojo_action *out)
{
	struct walk_actions acts = { 0 };
	int kinds[64], nk, m, first, count, r = 0;

	dojo_legality_list(mv, NULL, 0, walk_actions_add, &acts);
	nk = walk_actions_moves(&acts, kinds, 64);
	if (nk > 0) {
		m = kinds[walk_rng(w) % (uint64_t)nk];
		for (first = 0; acts.v[first].move != m; first++)
			;
		for (count = 0; first + count < acts.n &&
		    acts.v[first + count].move == m; count++)
			;
		*out = acts.v[first + (int)(walk_rng(w) % (uint64_t)count)].a;
		r = 1;
	}
	walk_actions_release(&acts);
	return r;
}

/* Whether the text of "p" reads back, valid, to the same text; "why"
 * otherwise.  "*text" gets the printed text (caller frees). */
static bool
reads_back(dojo_program *p, char **text, char *why, size_t len)
{
	dojo_program *q;
	char *again;
	bool ok;

	*text = dojo_program_print(p, false);
	if (!*text) {
		snprintf(why, len, "out of memory printing the state");
		return false;
	}
	q = dojo_program_parse("moved", *text, strlen(*text));
	if (!q) {
		snprintf(why, len, "the moved state does not read back: %s",
		    dojo_error_last());
		return false;
	}
	again = dojo_program_print(q, false);
	ok = again && !strcmp(*text, again);
	if (!ok)
		snprintf(why, len, "the moved state prints differently after "
		    "reading back");
	free(again);
	dojo_program_free(q);
	return ok;
}

/* The C target on the final state "p", whose interpreted outputs are
 * "d"; 0, or -1 after reporting the failure. */
static int
walk_c(struct walk *w, dojo_program *p, dojo_data *d, bool tolerant)
{
	struct dojo_run_options ro = { NULL, NULL, w->opt->timeout,
		DOJO_RUN_MEMORY, false, 0, 0, 0, 0 };
	struct dojo_run_result res;
	dojo_data *c = dojo_data_new(p, DATA_LIMIT);
	char why[1024];
	int r = -1;

	/* the compiler and the kernel each have the run's time limit */
	walk_phase(w, "the C target", (unsigned)(2 * w->opt->timeout) + 30);
	if (!c) {
		walk_fail(w, FAIL_REFUSAL, p, NULL, "no storage for the C run: "
		    "%s", dojo_error_last());
		return -1;
	}
	dojo_data_randomize(c, INPUT_SEED);
	ro.exact = true;	/* bit for bit, unless a sum is reassociated */
	if (dojo_c_run(p, c, &ro, &res) < 0) {
		walk_fail(w, FAIL_COMPILE, p, NULL, "the C run could not be "
		    "attempted: %s", dojo_error_last());
		goto out;
	}
	switch (res.outcome) {
	case DOJO_OUTCOME_OK:
		break;
	case DOJO_OUTCOME_COMPILE_ERROR:
		walk_fail(w, FAIL_COMPILE, p, NULL, "C: %s", res.message);
		goto out;
	case DOJO_OUTCOME_TIMEOUT:
		walk_fail(w, FAIL_HANG, p, NULL, "C: %s", res.message);
		goto out;
	default:
		walk_fail(w, FAIL_WRONG, p, NULL, "C: %s: %s",
		    dojo_outcome_name(res.outcome), res.message);
		goto out;
	}
	if (!walk_outputs_agree(p, d, p, c, tolerant, why, sizeof why)) {
		walk_fail(w, FAIL_WRONG, p, NULL, "C against the interpreter: "
		    "%s", why);
		goto out;
	}
	r = 0;
out:
	dojo_data_free(c);
	return r;
}

/* Whether the inverse of "a" (from "p", whose moves are "mv", to "next",
 * whose moves are "mvn") fails to give "p" back; reported.  A move
 * without an inverse passes. */
static bool
inverse_fails(struct walk *w, dojo_program *p, dojo_legality *mv,
    dojo_program *next, dojo_legality *mvn, const struct dojo_action *a)
{
	struct dojo_action inv;
	dojo_program *back;
	bool bad;

	if (dojo_legality_inverse(&inv, mv, a) < 0) {
		dojo_error_clear();
		return false;
	}
	dojo_action_format(w->actions[w->nactions], ACTION_LEN, &inv);
	back = dojo_legality_apply(mvn, &inv);
	bad = !back || !dojo_program_equal(back, p);
	if (bad) {
		walk_tell(w, 'a', w->actions[w->nactions++]);
		if (back)
			walk_fail(w, FAIL_REFUSAL, back, NULL, "the inverse '%s' "
			    "does not give the state before '%s' back",
			    w->actions[w->nactions - 1],
			    w->actions[w->nactions - 2]);
		else
			walk_fail(w, FAIL_REFUSAL, next, NULL, "the inverse "
			    "is refused: %s", dojo_error_last());
	}
	dojo_program_free(back);
	return bad;
}

/* One walk, in the child. */
static void
walk_run(struct walk *w)
{
	const struct options *o = w->opt;
	unsigned limit = (unsigned)(o->timeout + 0.999);
	dojo_program *p = dojo_program_copy(w->k->prog), *next;
	dojo_data *d = NULL, *dn;
	struct dojo_action a;
	dojo_legality *mv, *mvn;
	bool tol_interp = false, tol_c = false, reassoc;
	char why[1024], *text;
	int len, i;

	len = o->min_moves + (int)(walk_rng(w) %
	    (uint64_t)(o->max_moves - o->min_moves + 1));
	mv = dojo_legality_new(p, dojo_target_machine(o->target));
	for (i = 0; i < len && i < MAX_ACTIONS - 1; i++) {
		walk_phase(w, "listing the legal moves", limit);
		if (!draw_action(w, mv, &a))
			break;
		dojo_action_format(w->actions[w->nactions], ACTION_LEN, &a);
		walk_tell(w, 'a', w->actions[w->nactions++]);
		walk_phase(w, "applying the move", limit);
		reassoc = dojo_legality_reassociates(mv, &a);
		tol_c |= reassoc;
		tol_interp |= reassoc && !flag_only(&a);
		next = dojo_program_apply_text(p, w->actions[w->nactions - 1],
		    dojo_target_machine(o->target));
		if (!next) {
			walk_fail(w, FAIL_REFUSAL, p, NULL, "listed but refused: "
			    "%s", dojo_error_last());
			goto out;
		}
		walk_phase(w, "undoing the move", limit);
		mvn = dojo_legality_new(next, dojo_target_machine(o->target));
		if (inverse_fails(w, p, mv, next, mvn, &a)) {
			dojo_legality_free(mvn);
			dojo_program_free(next);
			goto out;
		}
		dojo_legality_free(mv);
		mv = mvn;
		dojo_program_free(p);
		p = next;
		walk_phase(w, "reading the state back", limit);
		if (!reads_back(p, &text, why, sizeof why)) {
			walk_fail(w, FAIL_REFUSAL, p, text, "%s", why);
			free(text);
			goto out;
		}
		free(text);
		walk_phase(w, "interpreting the state", limit);
		dn = interpret(p);
		if (!dn) {
			walk_fail(w, FAIL_REFUSAL, p, NULL, "the interpreter "
			    "refuses the moved state: %s", dojo_error_last());
			goto out;
		}
		dojo_data_free(d);
		d = dn;
		if (!walk_outputs_agree(w->k->prog, w->k->out, p, d, tol_interp,
		    why, sizeof why)) {
			walk_fail(w, FAIL_WRONG, p, NULL, "interpreter against the "
			    "original: %s", why);
			goto out;
		}
		walk_tell(w, 'm', "");
	}
	alarm(0);
	if (o->c) {
		if (!d && !(d = interpret(p))) {
			walk_fail(w, FAIL_REFUSAL, p, NULL, "the interpreter "
			    "refuses the state: %s", dojo_error_last());
			goto out;
		}
		walk_c(w, p, d, tol_c);
	}
out:
	alarm(0);
	dojo_legality_free(mv);
	dojo_data_free(d);
	dojo_program_free(p);
}

/* Copy "s" into "out" of "len" bytes, cut short if need be. */
static void
set_text(char *out, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* Read the child's lines from "in" into "r". */
static void
read_report(FILE *in, struct walk_report *r)
{
	char line[2048], *nl;
	int f;

	while (fgets(line, sizeof line, in)) {
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (strlen(line) < 2)
			continue;
		switch (line[0]) {
		case 'a':
			if (r->nactions < MAX_ACTIONS)
				set_text(r->actions[r->nactions++], ACTION_LEN,
				    line + 2);
			break;
		case 'm':
			r->moves++;
			break;
		case 'p':
			set_text(r->phase, sizeof r->phase, line + 2);
			break;
		case 'f':
			f = atoi(line + 2);
			r->failure = f > FAIL_NONE && f < FAIL_COUNT ? f :
			    FAIL_CRASH;
			set_text(r->message, sizeof r->message,
			    strchr(line + 2, ' ') ? strchr(line + 2, ' ') + 1 :
			    "");
			break;
		}
	}
}

/* The state reached by the first "n" actions of "r" on "k" (for --save
 * after a crash or a hang: those actions completed in the child). */
static char *
replay_text(struct kernel *k, struct walk_report *r, int n,
    const char *target)
{
	dojo_program *p = dojo_program_copy(k->prog), *next;
	char *text;
	int i;

	for (i = 0; i < n && p; i++) {
		next = dojo_program_apply_text(p, r->actions[i],
		    dojo_target_machine(target));
		dojo_program_free(p);
		p = next;
	}
	text = p ? dojo_program_print(p, false) : NULL;
	dojo_program_free(p);
	return text;
}

/* Run the walk of seed "seed" on "k" in a child; fill "r". */
static void
walk_fork(struct kernel *k, uint64_t seed, const struct options *o,
    struct walk_report *r)
{
	struct walk w = { 0 };
	int fd[2], st;
	pid_t pid;
	FILE *in;
	char *text;

	memset(r, 0, sizeof *r);
	fflush(stdout);
	fflush(stderr);
	if (pipe(fd) < 0 || (pid = fork()) < 0) {
		r->failure = FAIL_CRASH;
		snprintf(r->message, sizeof r->message, "pipe or fork: %s",
		    strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fd[0]);
		signal(SIGALRM, SIG_DFL);
		w.opt = o;
		w.k = k;
		w.seed = w.rng = seed;
		w.report = fdopen(fd[1], "w");
		if (!w.report)
			_exit(1);
		walk_run(&w);
		fclose(w.report);
		/* exit, not _exit: a leak checker runs at exit */
		exit(0);
	}
	close(fd[1]);
	in = fdopen(fd[0], "r");
	if (in) {
		read_report(in, r);
		fclose(in);
	} else {
		close(fd[0]);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (r->failure != FAIL_NONE)
		return;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
		r->failure = FAIL_HANG;
		snprintf(r->message, sizeof r->message, "%s: over the time "
		    "limit of %g s", r->phase, o->timeout);
	} else if (WIFSIGNALED(st)) {
		r->failure = FAIL_CRASH;
		snprintf(r->message, sizeof r->message, "%s: killed by signal "
		    "%d (%s)", r->phase, WTERMSIG(st), strsignal(WTERMSIG(st)));
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		r->failure = FAIL_CRASH;
		snprintf(r->message, sizeof r->message, "%s: exit status %d",
		    r->phase, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	} else {
		return;
	}
	if (o->save) {
		/* the actions the child completed lead to the failing state */
		text = replay_text(k, r, r->moves, o->target);
		save_failure(o->save, k->path, seed, text, r->actions,
		    r->nactions);
		free(text);
	}
}

/* The walk's actions as a perfdojo apply command, a TAP comment. */
static void
print_actions(struct kernel *k, const struct options *o,
    struct walk_report *r)
{
	int i;

	printf("#   replay: perfdojo apply%s%s %s", strcmp(o->target, "c") ?
	    " --target " : "", strcmp(o->target, "c") ? o->target : "",
	    k->path);
	for (i = 0; i < r->nactions; i++)
		printf(" '%s'", r->actions[i]);
	printf("\n");
}

/* The TAP diagnostics of a failed walk. */
static void
print_failure(struct kernel *k, uint64_t seed, const struct options *o,
    struct walk_report *r)
{
	printf("#   kernel: %s\n", k->path);
	printf("#   seed: walk_moves --walk-seed 0x%016" PRIx64
	    " --min-moves %d --max-moves %d%s%s%s %s\n", seed, o->min_moves,
	    o->max_moves, o->c ? "" : " --no-c",
	    strcmp(o->target, "c") ? " --target " : "",
	    strcmp(o->target, "c") ? o->target : "", k->path);
	if (r->failure == FAIL_HANG || r->failure == FAIL_CRASH)
		printf("#   while %s, after %d moves\n", r->phase, r->moves);
	print_actions(k, o, r);
}

static int
parse_count(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1000000000)
		return -1;
	*out = (int)v;
	return 0;
}

static int
parse_options(struct options *o, int argc, char **argv, int *first)
{
	int i;
	char *end;
	const char *arg;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			return *first = i + 1, 0;
		if (!strcmp(argv[i], "--no-c")) {
			o->c = false;
			continue;
		}
		if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
			o->verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			exit(0);
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "walk_moves: %s needs a value\n",
			    argv[i]);
			return -1;
		}
		arg = argv[i + 1];
		errno = 0;
		if (!strcmp(argv[i], "--walks")) {
			if (parse_count(arg, &o->walks) < 0)
				goto bad;
		} else if (!strcmp(argv[i], "--min-moves")) {
			if (parse_count(arg, &o->min_moves) < 0)
				goto bad;
		} else if (!strcmp(argv[i], "--max-moves")) {
			if (parse_count(arg, &o->max_moves) < 0)
				goto bad;
		} else if (!strcmp(argv[i], "--seed")) {
			o->seed = strtoull(arg, &end, 0);
			if (errno || *end || !*arg)
				goto bad;
		} else if (!strcmp(argv[i], "--walk-seed")) {
			o->walk_seed = strtoull(arg, &end, 0);
			if (errno || *end || !*arg)
				goto bad;
			o->have_walk_seed = true;
		} else if (!strcmp(argv[i], "--timeout")) {
			o->timeout = strtod(arg, &end);
			if (errno || *end || !(o->timeout >= 1) ||
			    o->timeout > 3600)
				goto bad;
		} else if (!strcmp(argv[i], "--save")) {
			o->save = arg;
		} else if (!strcmp(argv[i], "--target")) {
			if (strcmp(arg, "c") && strcmp(arg, "cuda"))
				goto bad;
			o->target = arg;
		} else {
			fprintf(stderr, "walk_moves: unknown option '%s'\n",
			    argv[i]);
			return -1;
		}
		i++;
	}
	*first = i;
	if (o->min_moves > o->max_moves || o->max_moves > MAX_ACTIONS) {
		fprintf(stderr, "walk_moves: the moves of a walk must be "
		    "min <= max <= %d\n", MAX_ACTIONS);
		return -1;
	}
	/* the GPU flags have no C code */
	if (!strcmp(o->target, "cuda"))
		o->c = false;
	return 0;
bad:
	fprintf(stderr, "walk_moves: bad value '%s' for %s\n", arg, argv[i]);
	return -1;
}

int
main(int argc, char **argv)
{
	struct options o = { -1, 10, 20, 1, 0, false, true, false, 10, NULL,
	    "c" };
	int counts[FAIL_COUNT] = { 0 }, first, nk, i, w, moves = 0;
	struct walk_report *r;
	struct kernel *k;
	uint64_t state, seed;
	struct timespec t0, t1;

	if (parse_options(&o, argc, argv, &first) < 0) {
		usage(stderr);
		return 2;
	}
	nk = argc - first;
	if (nk <= 0) {
		usage(stderr);
		return 2;
	}
	if (o.walks < 0)
		o.walks = o.have_walk_seed ? nk : 40;
	setvbuf(stdout, NULL, _IOLBF, 0);
	k = calloc(nk, sizeof *k);
	r = malloc(sizeof *r);
	if (!k || !r)
		return 2;
	for (i = 0; i < nk; i++) {
		k[i].path = argv[first + i];
		k[i].prog = dojo_program_read_file(k[i].path);
		if (!k[i].prog || !(k[i].out = interpret(k[i].prog))) {
			fprintf(stderr, "walk_moves: %s\n", dojo_error_last());
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	state = o.seed;
	for (w = 0; w < o.walks; w++) {
		struct kernel *kw = &k[w % nk];

		seed = o.have_walk_seed ? o.walk_seed : dojo_splitmix64(&state);
		walk_fork(kw, seed, &o, r);
		moves += r->moves;
		counts[r->failure]++;
		if (r->failure == FAIL_NONE) {
			printf("ok %d - %s: %d moves%s (walk 0x%016" PRIx64 ")\n",
			    w + 1, kw->path, r->moves, o.c ? ", C agrees" : "",
			    seed);
			if (o.verbose)
				print_actions(kw, &o, r);
			continue;
		}
		printf("not ok %d - %s: %s: %s\n", w + 1, kw->path,
		    failure_names[r->failure], r->message);
		print_failure(kw, seed, &o, r);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("1..%d\n", o.walks);
	printf("# walks %d, moves %d, wrong answers %d, C compile failures %d, "
	    "hangs %d, refusals %d, crashes %d (%.1f s)\n", o.walks, moves,
	    counts[FAIL_WRONG], counts[FAIL_COMPILE], counts[FAIL_HANG],
	    counts[FAIL_REFUSAL], counts[FAIL_CRASH],
	    (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
	for (i = 0; i < nk; i++) {
		dojo_data_free(k[i].out);
		dojo_program_free(k[i].prog);
	}
	free(k);
	free(r);
	return counts[FAIL_NONE] == o.walks ? 0 : 1;
}
