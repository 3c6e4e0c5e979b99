/* session.h: the exploration history, a git repository (libgit2)
 *
 * A session is a bare git repository.  Each state of the kernel is a
 * commit whose tree holds "program.dojo" (the canonical text: its blob id
 * is the state id) and "measurement"; the message is the action text with
 * trailers (Action:, Speedup:, Target:).  The first commit holds the start
 * state.  Branches are refs/heads/NAME; the best state per target is the
 * tag best/TARGET; measurements taken after a step are git notes
 * (refs/notes/commits, shown by plain git log).  The current state is
 * HEAD: attached to the current branch at its tip, detached elsewhere.
 *
 * Every write is on disk (fsync) before the call returns; the session is
 * locked (flock) while a call writes, and lock files left by a killed
 * process are removed.  Errors: -1 or NULL with the last error set.
 *
 * The module's files: session.c the git history, session_measure.c what
 * is measured in it, session_rows.c the tree as rows of text to draw;
 * session_private.h is what they share.
 */
#ifndef DOJO_SESSION_H
#define DOJO_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/program.h"
#include "targets/measure.h"

typedef struct dojo_session dojo_session;

/* What a session knows of one state's measurement. */
struct dojo_session_measurement {
	bool measured;
	char target[16];		/* "c", "cuda", ... */
	char fingerprint[41];
	char outcome[32];		/* "ok", "crash", "wrong answer", ... */
	double median_ns, ci_low_ns, ci_high_ns;
	int runs;			/* timed runs in the estimate */
	double spread;			/* max/min of their medians, minus 1 */
	bool disturbed;			/* measured on a busy machine */
	double speedup;			/* against the start state; 0: unknown */
	/* the speedup confirmed by alternate runs against the start, with
	 * its 95% interval (the tag best/TARGET needs low > 1) */
	bool confirmed;
	double speedup_low, speedup_high;
	double ops;			/* arithmetic of one run (0: unknown) */
	double peak_gflops;		/* the machine's (0: unknown) */
	char when[32];			/* ISO 8601, UTC */
};

/* One commit of the session. */
struct dojo_session_entry {
	char commit[41];
	char parent[41];		/* "" for the start */
	char state[41];			/* the state id */
	char action[256];		/* "" for the start */
	int depth;			/* steps from the start */
	int nchildren;
	bool current;
	char branches[256];		/* names of the branches whose tip this
					   is, space separated */
	struct dojo_session_measurement m;
};

/* The default session directory of a kernel file: "FILE.session" for
 * "FILE" (examples/matmul.dojo -> examples/matmul.dojo.session). */
void dojo_session_default_dir(char *out, size_t len, const char *file);

/* The revision "rev" means: "rev" itself, or for "best" the tag
 * best/TARGET ("target" NULL: c), written into "buf" then. */
const char *dojo_session_rev(char buf[64], const char *rev,
    const char *target);

/* Open the session in "dir". */
__dojo_give dojo_session *dojo_session_open(const char *dir);
/* Create a session in "dir" (which must not hold one) starting at
 * "start"; "source" (may be NULL) names the kernel file in the first
 * commit's message. */
__dojo_give dojo_session *dojo_session_create(const char *dir,
    __dojo_keep dojo_program *start, const char *source);
void dojo_session_free(__dojo_take dojo_session *s);

const char *dojo_session_dir(__dojo_keep dojo_session *s);
/* The current state's program (owned by the session; valid until the
 * next call that moves the session). */
__dojo_keep dojo_program *dojo_session_program(__dojo_keep dojo_session *s);
/* The current commit, the current branch ("" if none), the start's
 * program (owned by the session). */
const char *dojo_session_head(__dojo_keep dojo_session *s);
const char *dojo_session_branch(__dojo_keep dojo_session *s);
__dojo_keep dojo_program *dojo_session_start(__dojo_keep dojo_session *s);

/* What a step did. */
struct dojo_session_step {
	char commit[41];
	char branch[64];		/* the branch the step is on */
	bool new_branch;		/* a branch was created for it */
	bool existing;			/* the state was reached before: moved
					   to that child, nothing written */
	char seen[41];			/* another commit with the same state,
					   or "" */
};

/* Record "next", reached from the current state by "action", as a new
 * commit and move there.  When the current commit is not the tip of the
 * current branch (it has children), a new branch is created ("NAME-2",
 * "NAME-3", ... after the current branch's name).  When a child of the
 * current commit already holds that state, the session moves to it.
 * "m" (may be NULL) is the new state's measurement. */
int dojo_session_step(__dojo_keep dojo_session *s, const char *action,
    __dojo_keep dojo_program *next,
    __dojo_keep const struct dojo_session_measurement *m,
    __dojo_keep struct dojo_session_step *out);
/* Parse, check and apply "action" to the current state for "target"
 * ("c"), then record it as above: DOJO_REFUSED when the action does not
 * parse or is not legal, DOJO_FAILED when it could not be decided or
 * recorded (the reason as the last error either way). */
enum dojo_result dojo_session_apply(__dojo_keep dojo_session *s,
    const char *action, const char *target,
    __dojo_keep struct dojo_session_step *out);

/* Move to the parent (the child stays reachable); to the child towards
 * the current branch's tip; to any revision ("HEAD~2", a branch, a tag,
 * a commit id or its prefix).  A branch name makes it current.
 * DOJO_REFUSED when there is nowhere to go (the start, no child or
 * several, no such state), DOJO_FAILED when git failed. */
enum dojo_result dojo_session_undo(__dojo_keep dojo_session *s);
enum dojo_result dojo_session_redo(__dojo_keep dojo_session *s);
enum dojo_result dojo_session_jump(__dojo_keep dojo_session *s,
    const char *rev);
/* Start a branch "name" at the current commit and make it current:
 * DOJO_REFUSED for a name that is not valid or taken. */
enum dojo_result dojo_session_branch_create(__dojo_keep dojo_session *s,
    const char *name);
/* Point the branch "name" (made if missing) at the current commit and
 * make it current (players use it to keep their branch on their path
 * when a step reaches a commit made before). */
enum dojo_result dojo_session_branch_set(__dojo_keep dojo_session *s,
    const char *name);

/* Attach measurement "m" to "commit" (NULL: the current one), and move
 * the tag best/TARGET when its speedup beats the best so far. */
int dojo_session_record(__dojo_keep dojo_session *s, const char *commit,
    __dojo_keep const struct dojo_session_measurement *m);
/* Measure "commit" (NULL: current) and the start for opt->run.target,
 * through the measurement database, and record it.  "out" may be NULL. */
int dojo_session_measure(__dojo_keep dojo_session *s, const char *commit,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_session_measurement *out);
/* Measure the start for opt->run.target through the database; record it
 * on the first commit (speedup 1) if that has no measurement yet.  The
 * start's median into "start_ns" (0 when it failed). */
int dojo_session_measure_start(__dojo_keep dojo_session *s,
    __dojo_keep const struct dojo_measure_options *opt, double *start_ns);
/* The same with "m", the start's measurement made already (tune's, by
 * its environment). */
int dojo_session_record_start(__dojo_keep dojo_session *s,
    __dojo_keep const struct dojo_measurement *m, double *start_ns);
/* Fill "out" from a measurement of the database, with speedup
 * "start_ns / m->median_ns" when the start's time is known. */
void dojo_session_measurement_from(
    __dojo_keep struct dojo_session_measurement *out,
    __dojo_keep const struct dojo_measurement *m, const char *target,
    double start_ns);
/* Mark "out" confirmed with the speedup "r" measured in alternate runs
 * (nothing when "r" is unknown).  A disturbed "r" counts: both kernels
 * of a pair ran in one child, repetition by repetition, so load slows
 * both alike and widens the interval rather than moving it. */
void dojo_session_measurement_confirm(
    __dojo_keep struct dojo_session_measurement *out,
    __dojo_keep const struct dojo_measure_ratio *r);
/* When "sm", the measurement of "prog", beats the start and the tag
 * best/TARGET, confirm its speedup by alternate runs against the start
 * (dojo_measure_speedup); only a confirmed speedup whose interval is
 * above 1 moves the tag.  0, or -1 with the last error set. */
int dojo_session_confirm(__dojo_keep dojo_session *s,
    __dojo_keep dojo_program *prog,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_session_measurement *sm);

/* Every commit of the session, parents before children, children in the
 * order they were made; "fn" stops the walk with a non-zero return. */
typedef int (*dojo_session_fn)(const struct dojo_session_entry *e,
    void *payload);
int dojo_session_walk(__dojo_keep dojo_session *s, dojo_session_fn fn,
    void *payload);
/* The tree of states as rows to draw, depth first from the start,
 * children in the order they were made: each row an entry and the
 * ASCII drawing before it ("|-", "`-" before a child, "| " and "  " for
 * the levels above).  "*out" (to free) holds "*n" rows. */
struct dojo_session_row {
	struct dojo_session_entry e;
	char prefix[2 * 48 + 1];	/* deeper levels are cut */
};
int dojo_session_rows(__dojo_keep dojo_session *s,
    __dojo_keep struct dojo_session_row **out, int *n);
/* One commit ("rev" as for jump; NULL: current). */
int dojo_session_entry(__dojo_keep dojo_session *s, const char *rev,
    __dojo_keep struct dojo_session_entry *out);
/* The program of a revision. */
__dojo_give dojo_program *dojo_session_program_at(__dojo_keep dojo_session *s,
    const char *rev);
/* The actions from the start to "rev", in order: a NULL-terminated array
 * of strings to free with dojo_session_path_free. */
char **dojo_session_path(__dojo_keep dojo_session *s, const char *rev);
void dojo_session_path_free(char **path);
/* The commit holding state "state" ("" if none), preferring the current
 * commit, then its ancestors. */
int dojo_session_find_state(__dojo_keep dojo_session *s, const char *state,
    char commit[41]);
/* The best commit for "target" (tag best/TARGET), or -1 if none. */
int dojo_session_best(__dojo_keep dojo_session *s, const char *target,
    char commit[41]);

/*
 * The states of an agent's run (session_runs.c).  perfdojo tune keeps
 * every state its run measured in the file runs/BRANCH.tsv of the session
 * (runs/agent/auto-1.tsv for the branch agent/auto-1): one row a state,
 * with its moves from the start, so that any of them can be taken into
 * the history later, not only the best one the branch holds.
 */
struct dojo_run_state {
	char state[41];
	char outcome[32];		/* "ok", "crash", "wrong answer" ... */
	double speedup;			/* against the start: confirmed when
					   "confirmed", else the first look */
	bool confirmed;
	double low, high;		/* its 95% interval, when confirmed */
	bool disturbed;
	int nmoves;
	char *moves;			/* "split 0 2; swap 0" (malloc'ed) */
};
/* Write the "n" rows of run "run" (a branch name), replacing what it had
 * (written whole, then renamed into place). */
int dojo_session_write_run(__dojo_keep dojo_session *s, const char *run,
    __dojo_keep const struct dojo_run_state *rows, int n);
/* The rows of run "run", best first (the speedup, the confirmed first
 * among equals, then the fewer moves; failed states last): their count,
 * "*out" to free with dojo_run_states_free; -1 with the last error. */
int dojo_session_read_run(__dojo_keep dojo_session *s, const char *run,
    __dojo_give struct dojo_run_state **out);
void dojo_run_states_free(__dojo_take struct dojo_run_state *rows, int n);
/* The run to show: the current branch's when it has states, else the one
 * written last. */
int dojo_session_last_run(__dojo_keep dojo_session *s, char *out,
    size_t len);
/* Go to the state of "row" (number "rank" of run "run"): its commit when
 * the history has it, else its moves played from the start (checked and
 * recorded for "target") on the new branch RUN.RANK, whose name goes into
 * "branch" ("" when none was made). */
enum dojo_result dojo_session_take_run_state(__dojo_keep dojo_session *s,
    const char *run, __dojo_keep const struct dojo_run_state *row, int rank,
    const char *target, char *branch, size_t len);
/* The rows as a table, one a line under a header, ranked from 1
 * (perfdojo states, the explorer's :states); '!' marks a disturbed
 * first look. */
struct dojo_strbuf;
void dojo_run_states_format(__dojo_keep struct dojo_strbuf *sb,
    const char *run, __dojo_keep const struct dojo_run_state *rows, int n);

#endif
