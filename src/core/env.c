/* env.c: the game as an environment for players */
#include "config.h"
#include "src/core/env.h"
#include "targets/runner.h"
#include "targets/target.h"
#include "src/util/clock.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct env_state {
	dojo_program *prog;
	char id[41];
	int parent, depth;
	char *action;			/* from the parent */
	/* expanded: the legal actions and the states they reach */
	bool expanded;
	int nactions;
	struct dojo_action *actions;
	int *children;
	/* evaluated; "m" set before that: measured elsewhere in a batch */
	bool measured, failed;
	double reward, ns;
	struct dojo_measurement *m;
	struct dojo_measure_ratio ratio;	/* confirmed against the start */
	/* against the state "held_ref" in alternate runs, before a player
	 * climbed from that one to this (dojo_env_compare); -1: never */
	struct dojo_measure_ratio held;
	int held_ref;
	/* against the state "duel_ref" on what the two do apart
	 * (dojo_env_duel); -1: never */
	struct dojo_measure_ratio duel;
	int duel_ref;
	/* against the state "final_ref", the leader when dojo_env_settle
	 * timed this one against it; -1: never */
	struct dojo_measure_ratio final;
	int final_ref;
	/* the player's note: why it is measured, what it expected */
	const char *why;
	double predicted;
};

struct dojo_env {
	struct dojo_env_options opt;
	struct env_state *states;
	int n, cap;
	int *slots;			/* open addressing: state + 1, 0 empty */
	size_t nslots;
	double start_ns;
	dojo_data *want;		/* the start's outputs, once */
	/* the outputs of the last reference part of a duel, and its id:
	 * a tile meets its rivals on the same part */
	dojo_data *duel_want;
	char duel_id[41];
	int used, best, current;
	struct timespec t0;
};

void
dojo_env_options_init(struct dojo_env_options *opt)
{
	memset(opt, 0, sizeof *opt);
	dojo_measure_options_init(&opt->measure);
	opt->measure.run.precision = 0.05;
	opt->measure.run.budget = 0.3;
	opt->measure.run.max_reps = 200;
	opt->measure.run.min_reps = 3;
	opt->measure.run.timeout = 20;
	/* one clean run a state in the search; a new best is confirmed by
	 * alternate runs against the start (confirm) */
	opt->measure.runs = 1;
	/* a state's first look is its first clean run, whatever runs its
	 * confirmations add: a search replays from the database */
	opt->measure.stable = true;
	opt->target = DOJO_TARGET_HOST;
}

uint64_t
dojo_env_id_hash(const char *id)
{
	uint64_t h = 0;
	int i;

	for (i = 0; i < 16; i++)
		h = h * 16 + (uint64_t)(id[i] <= '9' ? id[i] - '0' :
		    id[i] - 'a' + 10);
	return h;
}

/* The state whose id is "id", or -1. */
static int
find(dojo_env *env, const char *id)
{
	size_t i;

	if (!env->nslots)
		return -1;
	i = dojo_env_id_hash(id) & (env->nslots - 1);
	for (; env->slots[i]; i = (i + 1) & (env->nslots - 1))
		if (strcmp(env->states[env->slots[i] - 1].id, id) == 0)
			return env->slots[i] - 1;
	return -1;
}

static int
rehash(dojo_env *env, size_t nslots)
{
	int *slots = calloc(nslots, sizeof *slots);
	size_t i;
	int k;

	if (!slots)
		return dojo_error_set("out of memory");
	free(env->slots);
	env->slots = slots;
	env->nslots = nslots;
	for (k = 0; k < env->n; k++) {
		i = dojo_env_id_hash(env->states[k].id) & (nslots - 1);
		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = k + 1;
	}
	return 0;
}

/* The state of "prog" (taken), reached from "parent" by "action"; a new
 * one when the state is new.  -1 on no memory. */
static int
add_node(dojo_env *env, dojo_program *prog, int parent, const char *action)
{
	struct env_state *nd;
	char id[41];
	size_t i;
	int k;

	dojo_program_id(id, prog);
	k = find(env, id);
	if (k >= 0) {
		dojo_program_free(prog);
		return k;
	}
	if (env->n == env->cap) {
		int cap = env->cap ? 2 * env->cap : 64;
		struct env_state *states = realloc(env->states,
		    cap * sizeof *states);

		if (!states)
			goto out_oom;
		env->states = states;
		env->cap = cap;
	}
	if ((size_t)(env->n + 1) * 2 > env->nslots &&
	    rehash(env, env->nslots ? 2 * env->nslots : 128) < 0)
		goto out_free;
	nd = &env->states[env->n];
	memset(nd, 0, sizeof *nd);
	nd->prog = prog;
	memcpy(nd->id, id, sizeof id);
	nd->parent = parent;
	nd->held_ref = -1;
	nd->duel_ref = -1;
	nd->final_ref = -1;
	nd->depth = parent >= 0 ? env->states[parent].depth + 1 : 0;
	nd->action = strdup(action);
	if (!nd->action)
		goto out_oom;
	i = dojo_env_id_hash(id) & (env->nslots - 1);
	while (env->slots[i])
		i = (i + 1) & (env->nslots - 1);
	env->slots[i] = env->n + 1;
	return env->n++;
out_oom:
	dojo_error_set("out of memory");
out_free:
	dojo_program_free(prog);
	return -1;
}

static double
elapsed(dojo_env *env)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - env->t0.tv_sec) +
	    (double)(t.tv_nsec - env->t0.tv_nsec) / 1e9;
}

/* Measure "state" (not counted); its time or < 0 when it failed. */
static int
measure(dojo_env *env, int state)
{
	struct env_state *nd = &env->states[state];
	struct dojo_measurement *m;

	if (env->opt.cost) {
		nd->ns = env->opt.cost(nd->prog, env->opt.cost_payload);
		return 0;
	}
	if (nd->m)		/* measured elsewhere, with its batch */
		goto done;
	m = malloc(sizeof *m);
	if (!m)
		return dojo_error_set("out of memory");
	if ((env->opt.remote ? env->opt.remote(&nd->prog, 1, m,
	    env->opt.remote_payload) : dojo_measure_against(nd->prog,
	    env->states[0].prog, &env->want, &env->opt.measure, m)) < 0) {
		free(m);
		return -1;
	}
	nd->m = m;
done:
	nd->ns = nd->m->outcome == DOJO_OUTCOME_OK && nd->m->median_ns > 0 ?
	    nd->m->median_ns : -1;
	return 0;
}

/* Confirm the gain of "state", which beats the best: its speedup against
 * the start measured in alternate runs (at least "pairs", 3 unless
 * dojo_env_settle asks for more).  Its reward
 * stays its estimate, so that an agent's path depends on the database
 * only.  Not with a cost function, which needs none. */
static int
confirm(dojo_env *env, int state, int pairs)
{
	struct env_state *nd = &env->states[state];
	struct dojo_measure_options opt = env->opt.measure;
	struct dojo_measurement mp, ms;

	if (env->opt.cost || env->opt.no_confirm || nd->failed)
		return 0;
	if (opt.runs < pairs)
		opt.runs = pairs;
	if (dojo_measure_speedup(nd->prog, env->states[0].prog, &env->want,
	    &opt, &mp, &ms, &nd->ratio) < 0)
		return -1;
	return 0;
}

static bool out_of_time(dojo_env *env);

/* Whether "state" and "ref" can be timed against each other here: both
 * measured and working, no cost function, no training, measurements
 * made here, time left. */
static bool
timeable(dojo_env *env, int state, int ref)
{
	const struct env_state *a = &env->states[state];
	const struct env_state *b = &env->states[ref];

	return !env->opt.cost && !env->opt.no_confirm && !env->opt.remote &&
	    a->measured && !a->failed && b->measured && !b->failed &&
	    !out_of_time(env);
}

/* "state" timed against "ref" in alternate pairs (at least "pairs"),
 * both checked against the start's outputs: the ratio t_ref / t_state
 * into "out".  1 when nothing was timed (timeable), 0, or -1. */
static int
time_pair(dojo_env *env, int state, int ref, int pairs,
    struct dojo_measure_ratio *out)
{
	struct dojo_measure_options opt = env->opt.measure;
	struct dojo_measurement mp, mr;

	memset(out, 0, sizeof *out);
	if (!timeable(env, state, ref))
		return 1;
	if (opt.runs < pairs)
		opt.runs = pairs;
	if (dojo_measure_want(env->states[0].prog, &env->want, &opt) < 0 ||
	    dojo_measure_speedup(env->states[state].prog,
	    env->states[ref].prog, &env->want, &opt, &mp, &mr, out) < 0)
		return -1;
	return out->speedup > 0 ? 0 : 1;
}

int
dojo_env_compare(dojo_env *env, int state, int ref, int pairs,
    struct dojo_measure_ratio *out)
{
	struct env_state *nd = &env->states[state];
	int rc = time_pair(env, state, ref, pairs, out);

	if (rc != 0)
		return rc;
	nd->held = *out;
	nd->held_ref = ref;
	nd->reward = env->states[ref].reward + log(out->speedup);
	return 0;
}

int
dojo_env_duel(dojo_env *env, int state, int ref, int pairs,
    struct dojo_measure_ratio *out)
{
	struct env_state *nd = &env->states[state];
	struct dojo_measure_options opt = env->opt.measure;
	struct dojo_measurement mp, mr;
	dojo_program *pa, *pr;
	char id[41];
	int rc;

	memset(out, 0, sizeof *out);
	if (!timeable(env, state, ref))
		return 1;
	rc = dojo_program_apart(nd->prog, env->states[ref].prog, &pa, &pr);
	if (rc == 1) {
		/* nothing in common to leave out: the whole of both */
		rc = time_pair(env, state, ref, pairs, out);
		if (rc == 0) {
			nd->duel = *out;
			nd->duel_ref = ref;
		}
		return rc;
	}
	if (rc != 0)
		return rc;
	/* the parts run alone only where they keep the rules (a nest that
	 * accumulates into what a shared nest set cannot); the reference's
	 * part, the last one's again, was checked then */
	rc = 1;
	dojo_program_id(id, pr);
	if (dojo_program_validate(pa) < 0 || (strcmp(id, env->duel_id) != 0 &&
	    dojo_program_validate(pr) < 0))
		goto out;
	if (opt.runs < pairs)
		opt.runs = pairs;
	/* the reference's part gives the outputs both are checked against */
	if (strcmp(id, env->duel_id) != 0) {
		dojo_data_free(env->duel_want);
		env->duel_want = NULL;
		memcpy(env->duel_id, id, sizeof id);
	}
	rc = -1;
	if (dojo_measure_want(pr, &env->duel_want, &opt) < 0 ||
	    dojo_measure_speedup(pa, pr, &env->duel_want, &opt, &mp, &mr,
	    out) < 0)
		goto out;
	rc = 1;
	if (out->speedup <= 0)
		goto out;
	nd->duel = *out;
	nd->duel_ref = ref;
	rc = 0;
out:
	if (rc == 1)
		dojo_error_clear();
	dojo_program_free(pa);
	dojo_program_free(pr);
	return rc;
}

int
dojo_env_dueled(dojo_env *env, int state, struct dojo_measure_ratio *out)
{
	const struct env_state *nd = &env->states[state];

	if (out)
		*out = nd->duel;
	return nd->duel_ref;
}

int
dojo_env_held(dojo_env *env, int state, struct dojo_measure_ratio *out)
{
	const struct env_state *nd = &env->states[state];

	if (out)
		*out = nd->held;
	return nd->held_ref;
}

int
dojo_env_finalist(dojo_env *env, int state, struct dojo_measure_ratio *out)
{
	const struct env_state *nd = &env->states[state];

	if (out)
		*out = nd->final;
	return nd->final_ref;
}

void
dojo_env_note(dojo_env *env, int state, const char *why, double predicted)
{
	if (state < 0 || state >= env->n || env->states[state].measured)
		return;
	env->states[state].why = why;
	env->states[state].predicted = predicted;
}

const char *
dojo_env_why(dojo_env *env, int state, double *predicted)
{
	const struct env_state *nd = &env->states[state];

	*predicted = nd->why ? nd->predicted : NAN;
	return nd->why ? nd->why : "-";
}

bool
dojo_env_confirmed(dojo_env *env, int state, struct dojo_measure_ratio *out)
{
	const struct env_state *nd = &env->states[state];

	if (out)
		*out = nd->ratio;
	return nd->ratio.speedup > 0;
}

dojo_env *
dojo_env_new(dojo_program *start, const struct dojo_env_options *opt)
{
	dojo_env *env = calloc(1, sizeof *env);

	if (!env) {
		dojo_error_set("out of memory");
		return NULL;
	}
	env->opt = *opt;
	if (!env->opt.target)
		env->opt.target = DOJO_TARGET_HOST;
	clock_gettime(CLOCK_MONOTONIC, &env->t0);
	/* no run or pair starts past the time limit (each measurement has
	 * one at least) */
	if (env->opt.seconds > 0)
		env->opt.measure.deadline = dojo_clock_seconds() +
		    env->opt.seconds;
	if (add_node(env, dojo_program_copy(start), -1, "") < 0 ||
	    measure(env, 0) < 0)
		goto out_free;
	if (env->states[0].ns <= 0) {
		dojo_error_set("%s: the start does not run: %s",
		    dojo_program_file(start) ? dojo_program_file(start) :
		    "kernel", env->states[0].m ? dojo_outcome_name(
		    env->states[0].m->outcome) : "failed");
		goto out_free;
	}
	env->start_ns = env->states[0].ns;
	env->states[0].measured = true;
	env->states[0].reward = 0;
	return env;
out_free:
	dojo_env_free(env);
	return NULL;
}

void
dojo_env_free(dojo_env *env)
{
	int i;

	if (!env)
		return;
	for (i = 0; i < env->n; i++) {
		dojo_program_free(env->states[i].prog);
		free(env->states[i].action);
		free(env->states[i].actions);
		free(env->states[i].children);
		free(env->states[i].m);
	}
	free(env->states);
	free(env->slots);
	dojo_data_free(env->want);
	dojo_data_free(env->duel_want);
	free(env);
}

int
dojo_env_n_states(dojo_env *env)
{
	return env->n;
}

dojo_program *
dojo_env_program(dojo_env *env, int state)
{
	return env->states[state].prog;
}

const char *
dojo_env_state_id(dojo_env *env, int state)
{
	return env->states[state].id;
}

int
dojo_env_parent(dojo_env *env, int state)
{
	return env->states[state].parent;
}

const char *
dojo_env_action(dojo_env *env, int state)
{
	return env->states[state].action;
}

int
dojo_env_depth(dojo_env *env, int state)
{
	return env->states[state].depth;
}

int
dojo_env_path(dojo_env *env, int state, int *out, int max)
{
	int n = env->states[state].depth + 1, i, k;

	for (i = n - 1, k = state; k >= 0; i--, k = env->states[k].parent)
		if (i < max)
			out[i] = k;
	return n < max ? n : max;
}

struct collect {
	struct dojo_action *a;
	int n, cap;
};

static int
collect_action(const struct dojo_action *a, void *payload)
{
	struct collect *c = payload;

	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 64;
		struct dojo_action *na = realloc(c->a, cap * sizeof *na);

		if (!na)
			return dojo_error_set("out of memory");
		c->a = na;
		c->cap = cap;
	}
	c->a[c->n++] = *a;
	return 0;
}

int
dojo_env_expand(dojo_env *env, int state, const struct dojo_action **actions,
    const int **children)
{
	struct collect c = { NULL, 0, 0 };
	dojo_legality *mv;
	dojo_program *next;
	char text[256];
	int *kids = NULL, i, k;

	if (env->states[state].expanded)
		goto out;
	mv = dojo_legality_new(env->states[state].prog,
	    dojo_target_machine(env->opt.target));
	if (!mv)
		return -1;
	if (dojo_legality_list(mv, NULL, 0, collect_action, &c) < 0)
		goto out_free;
	kids = malloc((c.n ? c.n : 1) * sizeof *kids);
	if (!kids) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	for (i = 0; i < c.n; i++) {
		next = dojo_legality_apply_unchecked(mv, &c.a[i]);
		if (!next)
			goto out_free;
		dojo_action_format(text, sizeof text, &c.a[i]);
		/* add_node may move the states */
		k = add_node(env, next, state, text);
		if (k < 0)
			goto out_free;
		kids[i] = k;
	}
	dojo_legality_free(mv);
	env->states[state].expanded = true;
	env->states[state].nactions = c.n;
	env->states[state].actions = c.a;
	env->states[state].children = kids;
out:
	*actions = env->states[state].actions;
	*children = env->states[state].children;
	return env->states[state].nactions;
out_free:
	dojo_legality_free(mv);
	free(c.a);
	free(kids);
	return -1;
}

struct offered {
	const char *text;
	bool found;
	struct dojo_action a;		/* the candidate found */
};

static int
is_offered(const struct dojo_action *a, void *payload)
{
	struct offered *o = payload;
	char text[256];

	dojo_action_format(text, sizeof text, a);
	o->found = strcmp(text, o->text) == 0;
	if (o->found)
		o->a = *a;
	return o->found;
}

enum dojo_result
dojo_env_follow(dojo_env *env, int state, const char *text, int *next)
{
	const struct dojo_action *actions;
	const int *children;
	struct offered o = { .text = text };
	struct dojo_action a;
	dojo_legality *mv;
	dojo_program *p;
	enum dojo_result r = DOJO_FAILED;
	bool listed;
	int n, i, k;

	if (dojo_action_parse(&a, text) < 0)
		return DOJO_FAILED;
	listed = dojo_move_listed(dojo_action_move_index(&a));
	if (listed && env->states[state].expanded) {
		n = dojo_env_expand(env, state, &actions, &children);
		for (i = 0; i < n; i++)
			if (is_offered(&actions[i], &o)) {
				*next = children[i];
				return DOJO_DONE;
			}
		dojo_error_set("%s: not a legal move here", text);
		return DOJO_REFUSED;
	}
	mv = dojo_legality_new(env->states[state].prog,
	    dojo_target_machine(env->opt.target));
	if (!mv)
		return DOJO_FAILED;
	/* a legal action of the set: a candidate of the set that passes
	 * its check; of a move it does not list, the action itself */
	if (!listed) {
		o.a = a;
		o.found = true;
	} else if (dojo_legality_candidates(mv, a.path, a.npath, is_offered,
	    &o) < 0)
		goto out;
	if (!o.found) {
		dojo_error_set("%s: not a move of the action set", text);
		r = DOJO_REFUSED;
	} else if ((r = dojo_legality_check(mv, &o.a)) == DOJO_DONE) {
		p = dojo_legality_apply_unchecked(mv, &o.a);
		k = p ? add_node(env, p, state, text) : -1;
		if (k >= 0)
			*next = k;
		else
			r = DOJO_FAILED;
	}
out:
	dojo_legality_free(mv);
	return r;
}

enum dojo_result
dojo_env_apply(dojo_env *env, int state, const char *text, int *next)
{
	dojo_program *p = dojo_program_apply_text(env->states[state].prog,
	    text, dojo_target_machine(env->opt.target));
	int k;

	if (!p)
		return DOJO_REFUSED;
	k = add_node(env, p, state, text);
	if (k < 0)
		return DOJO_FAILED;
	*next = k;
	return DOJO_DONE;
}

static bool
out_of_time(dojo_env *env)
{
	return env->opt.seconds > 0 && elapsed(env) >= env->opt.seconds;
}

const char *
dojo_env_target(dojo_env *env)
{
	return env->opt.target;
}

int
dojo_env_threads(dojo_env *env)
{
	return dojo_measure_threads(&env->opt.measure);
}

double
dojo_env_elapsed(dojo_env *env)
{
	return elapsed(env);
}

double
dojo_env_seconds(dojo_env *env)
{
	return env->opt.seconds;
}

bool
dojo_env_spent(dojo_env *env)
{
	return (env->opt.budget > 0 && env->used >= env->opt.budget) ||
	    out_of_time(env);
}

int
dojo_env_evaluate(dojo_env *env, int state, double *reward)
{
	struct env_state *nd = &env->states[state];

	if (!nd->measured) {
		if (dojo_env_spent(env))
			return 1;
		if (measure(env, state) < 0)
			return -1;
		nd->measured = true;
		nd->failed = nd->ns <= 0;
		nd->reward = nd->failed ? DOJO_ENV_FAIL_REWARD :
		    log(env->start_ns / nd->ns);
		env->used++;
		if (nd->reward > env->states[env->best].reward &&
		    confirm(env, state, 3) < 0)
			return -1;
		if (nd->reward > env->states[env->best].reward &&
		    (env->opt.cost || env->opt.no_confirm ||
		    nd->ratio.low > 1))
			env->best = state;
		if (env->opt.progress)
			env->opt.progress(env, state, env->opt.progress_payload);
	}
	if (reward)
		*reward = nd->reward;
	return 0;
}

/* The measured states that work, best first reward first (the start
 * left out). */
static int
compare_reward(const void *a, const void *b, void *payload)
{
	const dojo_env *env = payload;
	double x = env->states[*(const int *)a].reward;
	double y = env->states[*(const int *)b].reward;

	if (x != y)
		return x < y ? 1 : -1;
	return *(const int *)a - *(const int *)b;
}

/* Whether "state" is among the "n" of "top". */
static bool
listed(const int *top, int n, int state)
{
	int i;

	for (i = 0; i < n; i++)
		if (top[i] == state)
			return true;
	return false;
}

/* "state" timed against the leader "ref" for dojo_env_settle: 3 pairs,
 * again in 9 when it looks ahead but its interval is not above 1.  Whether
 * it takes the lead (1 or 0), or -1. */
static int
challenge(dojo_env *env, int state, int ref)
{
	struct env_state *nd = &env->states[state];
	struct dojo_measure_ratio r;
	int rc = time_pair(env, state, ref, 3, &r);

	if (rc == 0 && r.speedup > 1 && r.low <= 1)
		rc = time_pair(env, state, ref, 9, &r);
	if (rc < 0)
		return -1;
	if (rc == 1)
		return 0;
	nd->final = r;
	nd->final_ref = ref;
	return r.low > 1 && r.speedup > 1;
}

int
dojo_env_settle(dojo_env *env, int k, int *settled)
{
	int *top, n = 0, i, lead, best = 0, most = 0, rc;

	*settled = 0;
	if (env->opt.cost || env->opt.no_confirm)
		return 0;
	top = malloc((env->n ? env->n : 1) * sizeof *top);
	if (!top)
		return dojo_error_set("out of memory");
	for (i = 1; i < env->n; i++)
		if (env->states[i].measured && !env->states[i].failed &&
		    env->states[i].reward > 0)
			top[n++] = i;
	qsort_r(top, n, sizeof *top, compare_reward, env);
	if (n > k)
		n = k;
	/* the search's best and the highest speedup confirmed against the
	 * start join the best rewards */
	for (i = 1; i < env->n; i++)
		if (env->states[i].ratio.low > 1 && (most == 0 ||
		    env->states[i].ratio.speedup >
		    env->states[most].ratio.speedup))
			most = i;
	if (env->best != 0 && !listed(top, n, env->best))
		top[n++] = env->best;
	if (most != 0 && !listed(top, n, most))
		top[n++] = most;
	*settled = n;
	/* each timed against the leader (the search's best, else the best
	 * reward) on the whole kernel; one ahead takes the lead */
	lead = env->best != 0 ? env->best : n > 0 ? top[0] : 0;
	for (i = 0; i < n && !out_of_time(env); i++) {
		if (top[i] == lead)
			continue;
		if ((rc = challenge(env, top[i], lead)) < 0) {
			free(top);
			return -1;
		}
		if (rc == 1)
			lead = top[i];
	}
	free(top);
	/* the leader's speedup against the start, for the record (3 pairs
	 * of runs); past the time limit too when the search confirmed
	 * nothing, where the deadline leaves one pair: a leader never timed
	 * against the start is not dropped for the start because the limit
	 * came first */
	if (lead != 0 && env->states[lead].ratio.pairs < 3 &&
	    (!out_of_time(env) || env->best == 0 ||
	    env->states[env->best].ratio.low <= 1) &&
	    confirm(env, lead, 3) < 0)
		return -1;
	if (lead != 0 && env->states[lead].ratio.low > 1 &&
	    env->states[lead].ratio.speedup > 1)
		best = lead;
	/* the leader's interval not above 1 (a gain that small, or the time
	 * limit reached before it was confirmed): the search's best,
	 * confirmed when it came, while its interval is above 1, not the
	 * start */
	else if (env->best != 0 && env->states[env->best].ratio.low > 1)
		best = env->best;
	env->best = best;
	return 0;
}

/* Measure the states of "states" that the budget left can still measure
 * elsewhere, at once (each once, however often it is listed); their
 * evaluations take the results. */
static int
prepare_remote(dojo_env *env, const int *states, int n)
{
	struct dojo_measurement *ms;
	dojo_program **progs;
	int *which, i, j, k = 0, rc, left;

	left = env->opt.budget > 0 ? env->opt.budget - env->used : n;
	if (dojo_env_spent(env) || left <= 0)
		return 0;
	progs = malloc(n * sizeof *progs);
	which = malloc(n * sizeof *which);
	ms = calloc(n, sizeof *ms);
	if (!progs || !which || !ms) {
		rc = dojo_error_set("out of memory");
		goto out;
	}
	for (i = 0; i < n && k < left; i++) {
		struct env_state *nd = &env->states[states[i]];

		for (j = 0; j < k && which[j] != states[i]; j++)
			;
		if (nd->measured || nd->m || j < k)
			continue;
		which[k] = states[i];
		progs[k++] = nd->prog;
	}
	rc = k ? env->opt.remote(progs, k, ms, env->opt.remote_payload) : 0;
	for (i = 0; rc == 0 && i < k; i++) {
		struct env_state *nd = &env->states[which[i]];

		nd->m = malloc(sizeof *nd->m);
		if (!nd->m) {
			rc = dojo_error_set("out of memory");
			break;
		}
		*nd->m = ms[i];
	}
out:
	free(progs);
	free(which);
	free(ms);
	return rc;
}

int
dojo_env_prepare(dojo_env *env, const int *states, int n)
{
	dojo_program **progs;
	int i, k = 0, left;

	if (env->opt.remote)
		return prepare_remote(env, states, n);
	/* nothing compiled that the limits will not let be measured */
	if (env->opt.jobs < 2 || env->opt.cost || n < 2 ||
	    dojo_env_spent(env))
		return 0;
	left = env->opt.budget > 0 ? env->opt.budget - env->used : n;
	progs = malloc(n * sizeof *progs);
	if (!progs)
		return dojo_error_set("out of memory");
	for (i = 0; i < n && k < left; i++)
		if (!env->states[states[i]].measured)
			progs[k++] = env->states[states[i]].prog;
	i = dojo_c_prepare(progs, k, env->opt.jobs, &env->opt.measure.run);
	free(progs);
	return i;
}

bool
dojo_env_measured(dojo_env *env, int state)
{
	return env->states[state].measured;
}

bool
dojo_env_failed(dojo_env *env, int state)
{
	return env->states[state].measured && env->states[state].failed;
}

double
dojo_env_reward(dojo_env *env, int state)
{
	return env->states[state].reward;
}

const struct dojo_measurement *
dojo_env_measurement(dojo_env *env, int state)
{
	/* not one of a batch that is still to be evaluated */
	return env->states[state].measured ? env->states[state].m : NULL;
}

double
dojo_env_start_ns(dojo_env *env)
{
	return env->start_ns;
}

int
dojo_env_used(dojo_env *env)
{
	return env->used;
}

int
dojo_env_budget(dojo_env *env)
{
	return env->opt.budget;
}

int
dojo_env_best(dojo_env *env)
{
	return env->best;
}

int
dojo_env_reset(dojo_env *env)
{
	env->current = 0;
	return 0;
}

int
dojo_env_current(dojo_env *env)
{
	return env->current;
}

int
dojo_env_step(dojo_env *env, int i, double *reward, int *reached)
{
	const struct dojo_action *actions;
	const int *children;
	int n, rc;

	n = dojo_env_expand(env, env->current, &actions, &children);
	if (n < 0)
		return -1;
	if (i < 0 || i >= n)
		return dojo_error_set("no action %d here (%d legal)", i, n);
	rc = dojo_env_evaluate(env, children[i], reward);
	if (rc != 0)
		return rc;
	if (reached)
		*reached = children[i];
	if (!env->states[children[i]].failed)
		env->current = children[i];
	return 0;
}

int
dojo_env_jump(dojo_env *env, int state, double *reward)
{
	int rc;

	if (state < 0 || state >= env->n)
		return dojo_error_set("no state %d (%d known)", state,
		    env->n);
	rc = dojo_env_evaluate(env, state, reward);
	if (rc != 0)
		return rc;
	if (!env->states[state].failed)
		env->current = state;
	return 0;
}
