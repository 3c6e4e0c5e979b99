/* env.h: the game as an environment for players: states, legal actions,
 * steps and rewards from measurements
 *
 * An environment plays on one kernel, its start.  It numbers every state
 * it meets (0 the start: an index, not to be confused with the nodes of a
 * program's tree) and keeps its program, the first parent it was reached
 * from and that action's text; two actions that reach the same program
 * (the same state id) reach the same state.
 *
 * Rewards.  The reward of a state is log(t_start / t_state), the log of
 * its speedup against the start.  A failed outcome (compile error, crash,
 * timeout, wrong answer) has the reward DOJO_ENV_FAIL_REWARD, log(1/100):
 * worse than any state that works in practice; the episode goes on from
 * the parent.
 *
 * Budget.  The unit is a measurement: the first evaluation of a state in
 * this environment counts 1, whether the measurement database knew it or
 * not (so that a run reads the same budget with a cold or a warm
 * database); evaluating a state again counts 0 (the environment keeps its
 * own cache); the start's measurement, the baseline, counts 0.  Once the
 * budget (or the wall time) is spent, evaluating an unknown state answers
 * 1 and measures nothing.
 */
#ifndef DOJO_ENV_H
#define DOJO_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/program.h"
#include "ir/moves.h"
#include "targets/measure.h"

typedef struct dojo_env dojo_env;

#define DOJO_ENV_FAIL_REWARD (-4.605170185988091)	/* log(1/100) */

/* A stand-in for measurements (unit tests of players): the time of
 * "prog" in nanoseconds, or a negative number for a failed outcome. */
typedef double (*dojo_env_cost_fn)(dojo_program *prog, void *payload);
/* Called after each counted measurement of "state". */
typedef void (*dojo_env_progress_fn)(dojo_env *env, int state, void *payload);

struct dojo_env_options {
	struct dojo_measure_options measure;
	const char *target;		/* "c" */
	int budget;			/* measurements; 0: no limit */
	double seconds;			/* wall time; 0: no limit */
	dojo_env_cost_fn cost;		/* NULL: dojo_measure */
	void *cost_payload;
	/* Measurements made elsewhere (perfdojo tune --mpi): the "n"
	 * programs measured at once, each checked against the start's
	 * outputs, into "out" (kept in the database by the callee).  0, or -1
	 * with the last error set.  NULL: here, one at a time. */
	int (*remote)(dojo_program **progs, int n,
	    struct dojo_measurement *out, void *payload);
	void *remote_payload;
	dojo_env_progress_fn progress;	/* may be NULL */
	void *progress_payload;
	int jobs;			/* compilers at once (dojo_env_prepare) */
	bool no_confirm;		/* a new best is not confirmed in
					   alternate runs (training: the
					   rewards are first looks anyway) */
};

/* Defaults for players: the C target, measurements with a 5% precision,
 * at most 0.3 s and 200 repetitions each, 20 s time limit; no budget. */
void dojo_env_options_init(__dojo_keep struct dojo_env_options *opt);

/* An environment starting at "start"; measures the start (the baseline).
 * NULL with the last error set, also when the start itself fails. */
__dojo_give dojo_env *dojo_env_new(__dojo_keep dojo_program *start,
    __dojo_keep const struct dojo_env_options *opt);
void dojo_env_free(__dojo_take dojo_env *env);

/* A hash of a state id (40 hex digits), for tables keyed by state. */
uint64_t dojo_env_id_hash(const char *id);

/* States. */
int dojo_env_n_states(__dojo_keep dojo_env *env);
/* The program of "state", owned by the environment. */
__dojo_keep dojo_program *dojo_env_program(__dojo_keep dojo_env *env,
    int state);
const char *dojo_env_state_id(__dojo_keep dojo_env *env, int state);
/* The first parent of "state" (-1 for the start). */
int dojo_env_parent(__dojo_keep dojo_env *env, int state);
/* The action that first reached "state" ("" for the start). */
const char *dojo_env_action(__dojo_keep dojo_env *env, int state);
int dojo_env_depth(__dojo_keep dojo_env *env, int state);
/* The states from the start to "state" into "out" (at most "max"); the
 * count.  */
int dojo_env_path(__dojo_keep dojo_env *env, int state, int *out, int max);

/* The legal actions of "state", in the stable order of dojo_legality_list,
 * and the state each one reaches: "*actions" and "*children" (owned by
 * the environment, valid while it lives, new states or not) hold the
 * count returned, or -1 with the last error. */
int dojo_env_expand(__dojo_keep dojo_env *env, int state,
    __dojo_keep const struct dojo_action **actions, const int **children);

/* Follow the action "text" from "state" when it is one of the state's legal
 * actions (dojo_env_expand's set), found without computing the whole set,
 * or a legal action of a move the set does not list (peel: a compound
 * move's step): DOJO_DONE with the state it reaches in "*next";
 * DOJO_REFUSED when it is not one (the reason as the last error);
 * DOJO_FAILED on an error (and when its legality could not be decided). */
enum dojo_result dojo_env_follow(__dojo_keep dojo_env *env, int state,
    const char *text, int *next);

/* Any legal move "text" from "state" (a move file's, with parameters the
 * action set does not list: "fold S 0 8"): DOJO_DONE with the state it
 * reaches, DOJO_REFUSED with the reason as the last error, or
 * DOJO_FAILED. */
enum dojo_result dojo_env_apply(__dojo_keep dojo_env *env, int state,
    const char *text, int *next);

/* Evaluate "state": 0 with its reward in "*reward" (may be NULL), 1 when
 * the budget is spent and the state was not known, -1 on an error (no
 * database).  */
int dojo_env_evaluate(__dojo_keep dojo_env *env, int state, double *reward);
/* Compile the kernels of those of the "n" states that the budget left can
 * still measure, "opt.jobs" at a time, before they are evaluated one by
 * one (timed runs never overlap); with "opt.remote", measure them there,
 * all at once.  0, or -1 with the last error set. */
int dojo_env_prepare(__dojo_keep dojo_env *env, const int *states, int n);
bool dojo_env_measured(__dojo_keep dojo_env *env, int state);
/* measured and failed */
bool dojo_env_failed(__dojo_keep dojo_env *env, int state);
/* measured only */
double dojo_env_reward(__dojo_keep dojo_env *env, int state);
/* The measurement of a measured state (NULL with a cost function). */
const struct dojo_measurement *dojo_env_measurement(__dojo_keep dojo_env *env,
    int state);
double dojo_env_start_ns(__dojo_keep dojo_env *env);

/* Seconds since the environment was made; its time limit (0: none). */
double dojo_env_elapsed(__dojo_keep dojo_env *env);
double dojo_env_seconds(__dojo_keep dojo_env *env);
/* The target whose code is measured ("c", "aarch64:sve", ...). */
const char *dojo_env_target(__dojo_keep dojo_env *env);
/* The OpenMP threads each state runs with (dojo_measure_threads). */
int dojo_env_threads(__dojo_keep dojo_env *env);
/* The budget: counted measurements, whether it is spent. */
int dojo_env_used(__dojo_keep dojo_env *env);
int dojo_env_budget(__dojo_keep dojo_env *env);		/* 0: no limit */
bool dojo_env_spent(__dojo_keep dojo_env *env);
/* The measured state of the best reward (0, the start, when none beats
 * it; the first reached among equals). */
int dojo_env_best(__dojo_keep dojo_env *env);
/* Whether the speedup of "state" against the start was measured in
 * alternate runs (as each new best is, unless a cost function scores the
 * states); the ratio into "out" (may be NULL).  The best state is the
 * start or a state whose confirmed interval is above 1. */
bool dojo_env_confirmed(__dojo_keep dojo_env *env, int state,
    struct dojo_measure_ratio *out);

/* Whether "state" holds a gain over "ref" (both measured): the two
 * timed in alternate runs, at least "pairs" (the database's pairs when
 * it has as many), the ratio t_ref / t_state into "out".  The state's
 * reward becomes the reward of "ref" plus the log of that ratio (its
 * first look, one run, may be the noise of that run), and the ratio is
 * kept (dojo_env_held).  1 when nothing was timed: a cost function, no
 * confirmation (training), measurements made elsewhere, a failed state
 * or the time limit reached; 0, or -1 with the last error. */
int dojo_env_compare(__dojo_keep dojo_env *env, int state, int ref,
    int pairs, struct dojo_measure_ratio *out);
/* The state "state" was compared with (dojo_env_compare), -1 when none;
 * the ratio into "out" (may be NULL). */
int dojo_env_held(__dojo_keep dojo_env *env, int state,
    struct dojo_measure_ratio *out);

/* Whether "state" is faster than "ref" (both measured) on what the two
 * do apart (dojo_program_apart: the top-level nests both have left out
 * of both), timed in alternate runs, at least "pairs"; the ratio of
 * the parts t_ref / t_state into "out", kept (dojo_env_dueled).  Two
 * tiles of one nest are told apart so where the shared nests would
 * hide their difference in the noise.  Two that share no nest (or one
 * all shared) are timed whole.  The rewards do not change.  1 when
 * nothing was timed (as dojo_env_compare, and when their parts cannot
 * run alone); 0, or -1 with the last error. */
int dojo_env_duel(__dojo_keep dojo_env *env, int state, int ref, int pairs,
    struct dojo_measure_ratio *out);
/* The state "state" was last dueled against (dojo_env_duel), -1 when
 * none; the ratio into "out" (may be NULL). */
int dojo_env_dueled(__dojo_keep dojo_env *env, int state,
    struct dojo_measure_ratio *out);

/* A player's note on "state", for the trace of perfdojo tune: why it is
 * measured (a static string: "model", "explore", "exploit", ...) and
 * the value it expected (NAN: none), when it is about to be measured
 * (a note on a state measured already is dropped: its trace line was
 * written).  The last note holds. */
void dojo_env_note(__dojo_keep dojo_env *env, int state, const char *why,
    double predicted);
/* The note of "state" ("-" and NAN when none). */
const char *dojo_env_why(__dojo_keep dojo_env *env, int state,
    double *predicted);

/* The choice at the end of a search: the "k" measured states of the
 * best rewards (first looks, or a climb's paired value:
 * dojo_env_compare; above 0), the search's best state and the one of
 * the highest speedup confirmed against the start are each timed
 * against a leader on the whole kernel in alternate pairs (3; 9 when
 * it looks ahead but its interval is not above 1), the leader at first
 * the search's best (else the best reward); one whose interval is
 * above 1 takes the lead (dojo_env_finalist keeps what each did).  The
 * leader, confirmed against the start (3 pairs) unless it was, becomes
 * the best state when its interval there is above 1; else the search's
 * best, confirmed as it came, while its interval is above 1; else the
 * start.  Two fast states timed against each other are told apart
 * where a slow start's own spread hides a few percent.  The states
 * settled into "*settled".  No pair starts once the time limit is
 * reached, but for one: when the search confirmed nothing, the leader
 * is timed against the start past the limit too (one pair, the
 * measurement's least).  0, or -1 with the last error. */
int dojo_env_settle(__dojo_keep dojo_env *env, int k, int *settled);
/* The leader "state" was timed against by dojo_env_settle, -1 when none;
 * the ratio t_leader / t_state into "out" (may be NULL). */
int dojo_env_finalist(__dojo_keep dojo_env *env, int state,
    struct dojo_measure_ratio *out);

/* One episode at a time: the current state, back to the start, and one
 * step by the "i"th action of the current state.  A step evaluates the
 * state reached; it becomes current unless it failed (the episode goes on
 * from the parent).  0, 1 (budget spent: nothing done) or -1. */
int dojo_env_reset(__dojo_keep dojo_env *env);
int dojo_env_current(__dojo_keep dojo_env *env);
int dojo_env_step(__dojo_keep dojo_env *env, int i, double *reward,
    int *reached);
/* A step to a state known to the environment (a compound move's end, see
 * agents/tile.c): evaluated, current unless it failed.  0, 1 or -1. */
int dojo_env_jump(__dojo_keep dojo_env *env, int state, double *reward);

#endif
