/* maxq.c: the Max-Q learner and the maxq agent */
#include "config.h"
#include "agents/maxq.h"
#include "agents/agent.h"
#include "agents/encode.h"
#include "agents/qnet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXQ_TILES 16		/* tiles of a state, at most */

struct transition {
	dojo_env *env;
	int s, next;			/* state, state reached */
	struct dojo_action a;		/* the action from s to next */
	double r;
	bool failed;
	long epoch;			/* target copies + 1 when "qmax" was
					   computed; 0: never */
	double qmax;
	int nnext;			/* actions of "next" */
};

/* What was measured below each state of an environment in this run: how
 * many states, and the best reward among them. */
struct below {
	dojo_env *env;
	int *count;
	double *best;
	int cap;
};

struct dojo_maxq {
	struct dojo_maxq_options opt;
	struct below *below;
	int nbelow;
	uint64_t rng;			/* play's draws */
	uint64_t rng_replay;		/* the batches' draws: how much was
					   learned does not change what is
					   explored */
	dojo_encoder *enc;
	dojo_qnet *q;
	struct transition *rep;
	int nrep, head;			/* ring of opt.replay */
	long epoch;			/* target copies made */
	float *x;			/* pair encodings of a batch */
	size_t xcap;
	float *row;			/* one pair encoding */
};

void
dojo_maxq_options_init(struct dojo_maxq_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->seed = 1;
	opt->gamma = 0.5;
	opt->lr = 1e-3;
	opt->hidden = 64;
	opt->batch = 32;
	opt->replay = 10000;
	opt->sync = 50;
	opt->updates = 8;
	opt->double_q = true;
	opt->floor = -1;
}

void
dojo_maxq_options_from(struct dojo_maxq_options *opt,
    const struct dojo_agent_options *aopt)
{
	dojo_maxq_options_init(opt);
	opt->seed = aopt->seed;
	opt->model = aopt->model;
	opt->encoder_cmd = aopt->encoder_cmd;
	if (aopt->gamma >= 0)
		opt->gamma = aopt->gamma;
	if (aopt->updates > 0)
		opt->updates = aopt->updates;
}

/* The network, made or loaded when the encoder's dimension is known. */
static int
ensure_net(dojo_maxq *mq, dojo_env *env, int state)
{
	int dim;

	if (mq->q)
		return 0;
	if (!dojo_encoder_state_dim(mq->enc) && !dojo_encoder_state(mq->enc,
	    dojo_env_program(env, state), dojo_env_state_id(env, state)))
		return -1;
	mq->q = dojo_qnet_new(dojo_encoder_pair_dim(mq->enc),
	    mq->opt.hidden, mq->opt.seed ^ 0x9e3779b97f4a7c15ULL);
	dim = dojo_encoder_pair_dim(mq->enc);
	return mq->q && dojo_qnet_dim(mq->q) == dim ? 0 : -1;
}

dojo_maxq *
dojo_maxq_new(const struct dojo_maxq_options *opt)
{
	dojo_maxq *mq = calloc(1, sizeof *mq);
	int edim = 0;

	if (!mq) {
		dojo_error_set("out of memory");
		return NULL;
	}
	mq->opt = *opt;
	mq->rng = opt->seed;
	mq->rng_replay = opt->seed ^ 0x5bd1e9955bd1e995ULL;
	mq->rep = calloc(opt->replay > 0 ? opt->replay : 1, sizeof *mq->rep);
	mq->enc = dojo_encoder_new(opt->encoder_cmd);
	if (!mq->rep || !mq->enc) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	if (opt->model) {
		mq->q = dojo_qnet_load(opt->model, dojo_encoder_name(mq->enc),
		    dojo_encoder_state_dim(mq->enc), &edim);
		if (!mq->q || dojo_encoder_expect_dim(mq->enc, edim) < 0)
			goto out_free;
		if (dojo_qnet_dim(mq->q) != dojo_encoder_pair_dim(mq->enc)) {
			dojo_error_set("%s: %d inputs, the encoder makes %d",
			    opt->model, dojo_qnet_dim(mq->q),
			    dojo_encoder_pair_dim(mq->enc));
			goto out_free;
		}
	}
	return mq;
out_free:
	dojo_maxq_free(mq);
	return NULL;
}

void
dojo_maxq_free(dojo_maxq *mq)
{
	if (!mq)
		return;
	dojo_maxq_forget(mq);
	free(mq->below);
	dojo_encoder_free(mq->enc);
	dojo_qnet_free(mq->q);
	free(mq->rep);
	free(mq->x);
	free(mq->row);
	free(mq);
}

void
dojo_maxq_forget(dojo_maxq *mq)
{
	int i;

	mq->nrep = 0;
	mq->head = 0;
	for (i = 0; i < mq->nbelow; i++) {
		free(mq->below[i].count);
		free(mq->below[i].best);
	}
	mq->nbelow = 0;
}

/* Room for "n" pair encodings in mq->x. */
static int
scratch(dojo_maxq *mq, int n)
{
	size_t need = (size_t)n * dojo_encoder_pair_dim(mq->enc);

	if (need > mq->xcap) {
		float *x = realloc(mq->x, need * sizeof *x);

		if (!x)
			return dojo_error_set("out of memory");
		mq->x = x;
		mq->xcap = need;
	}
	return 0;
}

/* Q of the action "a" of "state", reaching "child", by the online or the
 * target network, into "*q". */
static int
edge_value(dojo_maxq *mq, dojo_env *env, int state, const struct dojo_action *a,
    int child, bool target, double *q)
{
	if (ensure_net(mq, env, state) < 0)
		return -1;
	if (!mq->row) {
		mq->row = malloc(dojo_encoder_pair_dim(mq->enc) *
		    sizeof *mq->row);
		if (!mq->row)
			return dojo_error_set("out of memory");
	}
	if (dojo_encoder_pair(mq->enc, dojo_env_program(env, state),
	    dojo_env_state_id(env, state), a, dojo_env_program(env, child),
	    dojo_env_state_id(env, child), mq->row) < 0)
		return -1;
	*q = dojo_qnet_eval(mq->q, mq->row, target);
	return 0;
}

/* Q of the "i"th action of "state". */
static int
value(dojo_maxq *mq, dojo_env *env, int state, int i, bool target, double *q)
{
	const struct dojo_action *actions;
	const int *children;

	if (dojo_env_expand(env, state, &actions, &children) < 0)
		return -1;
	return edge_value(mq, env, state, &actions[i], children[i], target, q);
}

/* Q of the "n" actions of "state". */
static int
values(dojo_maxq *mq, dojo_env *env, int state, double *q, int n, bool target)
{
	int i;

	for (i = 0; i < n; i++)
		if (value(mq, env, state, i, target, &q[i]) < 0)
			return -1;
	return 0;
}


/* The value of a transition's next state (its "n" actions) into its
 * qmax: with double Q (the default), the target network's value of the
 * action the online network ranks first; without, max_a' Q_target(s',
 * a').  "q" has room for 2n. */
static int
next_value(dojo_maxq *mq, struct transition *t, double *q, int n)
{
	if (values(mq, t->env, t->next, q, n, true) < 0)
		return -1;
	if (!mq->opt.double_q) {
		t->qmax = dojo_maxq_target(-INFINITY, false, 1.0, q, n);
		return 0;
	}
	if (values(mq, t->env, t->next, q + n, n, false) < 0)
		return -1;
	t->qmax = dojo_maxq_target_double(-INFINITY, false, 1.0, q, q + n, n);
	return 0;
}

/* "x" as the learner takes it: no lower than its floor. */
static double
floored(const dojo_maxq *mq, double x)
{
	return x < mq->opt.floor ? mq->opt.floor : x;
}

int
dojo_maxq_update(dojo_maxq *mq, double *loss)
{
	const struct dojo_action *actions;
	const int *children;
	struct transition *t;
	double *ys, *qn = NULL, l;
	int b, k, n, d, rc = -1;

	if (loss)
		*loss = 0;
	if (mq->nrep == 0 || !mq->q)
		return 0;
	b = mq->nrep < mq->opt.batch ? mq->nrep : mq->opt.batch;
	if (scratch(mq, b) < 0)
		return -1;
	d = dojo_encoder_pair_dim(mq->enc);
	ys = calloc(b, sizeof *ys);
	if (!ys)
		return dojo_error_set("out of memory");
	for (k = 0; k < b; k++) {
		t = &mq->rep[dojo_agent_rand(&mq->rng_replay,
		    (uint64_t)mq->nrep)];
		if (dojo_encoder_pair(mq->enc, dojo_env_program(t->env, t->s),
		    dojo_env_state_id(t->env, t->s), &t->a,
		    dojo_env_program(t->env, t->next),
		    dojo_env_state_id(t->env, t->next),
		    mq->x + (size_t)k * d) < 0)
			goto out;
		if (t->epoch != mq->epoch + 1) {
			/* the value of s', once per target copy */
			n = t->failed ? 0 : dojo_env_expand(t->env, t->next,
			    &actions, &children);
			if (n < 0)
				goto out;
			t->nnext = n;
			t->qmax = 0;
			if (n > 0) {
				double *nq = realloc(qn, 2 * n * sizeof *nq);

				if (!nq) {
					dojo_error_set("out of memory");
					goto out;
				}
				qn = nq;
				if (next_value(mq, t, qn, n) < 0)
					goto out;
			}
			t->epoch = mq->epoch + 1;
		}
		ys[k] = floored(mq, dojo_maxq_target(t->r, t->failed,
		    mq->opt.gamma, &t->qmax, t->nnext > 0 ? 1 : 0));
	}
	l = dojo_qnet_train(mq->q, mq->x, ys, b, mq->opt.lr);
	if (loss)
		*loss = l;
	if (dojo_qnet_updates(mq->q) % mq->opt.sync == 0) {
		dojo_qnet_sync(mq->q);
		mq->epoch++;
	}
	rc = 0;
out:
	free(ys);
	free(qn);
	return rc;
}

/* The record of what was measured below the states of "env". */
static struct below *
below_of(dojo_maxq *mq, dojo_env *env)
{
	struct below *b;
	int i;

	for (i = 0; i < mq->nbelow; i++)
		if (mq->below[i].env == env)
			return &mq->below[i];
	b = realloc(mq->below, (mq->nbelow + 1) * sizeof *b);
	if (!b) {
		dojo_error_set("out of memory");
		return NULL;
	}
	mq->below = b;
	b = &mq->below[mq->nbelow++];
	memset(b, 0, sizeof *b);
	b->env = env;
	return b;
}

/* "state" was measured (first in this run): count it below each of its
 * ancestors, its reward floored as the targets are. */
static int
below_add(dojo_maxq *mq, dojo_env *env, int state)
{
	struct below *b = below_of(mq, env);
	double r = floored(mq, dojo_env_reward(env, state));
	int n = dojo_env_n_states(env), a;

	if (!b)
		return -1;
	if (n > b->cap) {
		int *c = realloc(b->count, n * sizeof *c);
		double *x = c ? realloc(b->best, n * sizeof *x) : NULL;

		if (c)
			b->count = c;
		if (!x)
			return dojo_error_set("out of memory");
		b->best = x;
		memset(b->count + b->cap, 0, (n - b->cap) * sizeof *c);
		b->cap = n;
	}
	for (a = dojo_env_parent(env, state); a >= 0;
	    a = dojo_env_parent(env, a)) {
		if (b->count[a] == 0 || r > b->best[a])
			b->best[a] = r;
		b->count[a]++;
	}
	return 0;
}

/* The value of the move from "s" to "next" when "next" was measured in
 * this run, into "*q": max(r, gamma * v), with v the network's value of
 * the best move of "next" as the last update computed it, shrunk towards
 * the best reward measured below "next" as those measurements add up
 * (the network's guess weighs as one of them).  What was measured
 * outweighs what the network guesses from other kernels: a move the model
 * values high that lost, and whose states lost too, is not played again
 * for the guess.  1 when found, 0 if not. */
static int
measured_value(dojo_maxq *mq, dojo_env *env, int s, int next, double *q)
{
	const struct transition *t;
	const struct below *b;
	double v;
	int k, c;
	bool guess;

	if (!dojo_env_measured(env, next))
		return 0;
	for (k = 0; k < mq->nrep; k++) {
		t = &mq->rep[k];
		if (t->env != env || t->s != s || t->next != next)
			continue;
		guess = t->epoch && t->nnext > 0;
		v = t->qmax;
		b = below_of(mq, env);
		c = b && next < b->cap ? b->count[next] : 0;
		if (c > 0)
			v = guess ? (v + c * b->best[next]) / (1 + c) :
			    b->best[next];
		*q = floored(mq, dojo_maxq_target(t->r, t->failed,
		    mq->opt.gamma, &v, guess || c > 0 ? 1 : 0));
		return 1;
	}
	return 0;
}

int
dojo_maxq_scores(dojo_maxq *mq, dojo_env *env, int state, double *q, int n)
{
	const struct dojo_action *actions;
	const int *children;
	int i;

	if (values(mq, env, state, q, n, false) < 0 ||
	    dojo_env_expand(env, state, &actions, &children) < 0)
		return -1;
	for (i = 0; i < n; i++)
		measured_value(mq, env, state, children[i], &q[i]);
	return 0;
}

/* The tiles of "s" (agents/tile.c) as the last move of each: the state
 * before its end and that move, into "from" and "last"; their ends into
 * "end".  The count, or -1. */
static int
tile_moves(dojo_env *env, int s, int *from, struct dojo_action *last,
    int *end)
{
	struct dojo_tile tiles[MAXQ_TILES];
	int nt, k, m = 0;

	nt = dojo_agent_tiles(env, s, tiles, MAXQ_TILES);
	for (k = 0; k < nt; k++) {
		from[m] = dojo_env_parent(env, tiles[k].state);
		end[m] = tiles[k].state;
		if (dojo_action_parse(&last[m],
		    dojo_env_action(env, tiles[k].state)) < 0)
			return -1;
		m++;
	}
	return nt < 0 ? -1 : m;
}

/* An exploring draw among the "n" actions of a state and its "nt" tiles:
 * a kind of move first (the tiles are one kind), then one of that kind,
 * so that a kind with few places (parallelize, a tile) is tried as often
 * as one with many (split). */
static int
explore(dojo_maxq *mq, const struct dojo_action *actions, int n, int nt)
{
	int nkinds = dojo_move_count() + 1;	/* the last: the tiles */
	int *count = calloc(nkinds, sizeof *count);
	int nk = 0, kind, i, pick;

	if (!count)
		return dojo_error_set("out of memory");
	for (i = 0; i < n; i++)
		count[dojo_action_move_index(&actions[i])]++;
	count[nkinds - 1] = nt;
	for (kind = 0; kind < nkinds; kind++)
		nk += count[kind] > 0;
	pick = (int)dojo_agent_rand(&mq->rng, (uint64_t)nk);
	for (kind = 0; count[kind] == 0 || pick-- > 0; kind++)
		;
	pick = (int)dojo_agent_rand(&mq->rng, (uint64_t)count[kind]);
	free(count);
	if (kind == nkinds - 1)
		return n + pick;
	for (i = 0; i < n; i++)
		if (dojo_action_move_index(&actions[i]) == kind && pick-- == 0)
			break;
	return i;
}

/* The transition from "s" by "a" to the evaluated state "next" into the
 * replay buffer ("fresh": measured first now, counted below its
 * ancestors), then "learn"ing updates, their mean loss into "*loss" (may
 * be NULL).  0 or -1. */
static int
record(dojo_maxq *mq, dojo_env *env, int s, const struct dojo_action *a,
    int next, bool fresh, bool learn, double *loss)
{
	struct transition *t;
	int i;

	if (fresh && below_add(mq, env, next) < 0)
		return -1;
	t = &mq->rep[mq->head];
	memset(t, 0, sizeof *t);
	t->env = env;
	t->s = s;
	t->a = *a;
	t->next = next;
	t->r = dojo_env_reward(env, next);
	t->failed = dojo_env_failed(env, next);
	mq->head = (mq->head + 1) % mq->opt.replay;
	if (mq->nrep < mq->opt.replay)
		mq->nrep++;
	for (i = 0; learn && i < mq->opt.updates; i++) {
		double l;

		if (dojo_maxq_update(mq, &l) < 0)
			return -1;
		if (loss)
			*loss += l / mq->opt.updates;
	}
	return 0;
}

int
dojo_maxq_step(dojo_maxq *mq, dojo_env *env, double epsilon, bool learn,
    double *loss)
{
	const struct dojo_action *actions;
	const int *children;
	double *q, r, qt, qbest, tmax, tq[MAXQ_TILES];
	bool tmeasured[MAXQ_TILES];
	int s = dojo_env_current(env), n, nt, i, best, next, rc, tfrom;
	int used = dojo_env_used(env);
	int from[MAXQ_TILES], end[MAXQ_TILES];
	bool explored;
	struct dojo_action last[MAXQ_TILES], ta;

	if (loss)
		*loss = 0;
	if (dojo_env_spent(env))
		return 1;
	n = dojo_env_expand(env, s, &actions, &children);
	if (n == 0 && s != 0) {
		dojo_env_reset(env);
		s = 0;
		n = dojo_env_expand(env, s, &actions, &children);
	}
	if (n <= 0)
		return n < 0 ? -1 : 1;
	/* the network from the first step, so that exploring steps learn
	 * too */
	if (ensure_net(mq, env, s) < 0)
		return -1;
	nt = tile_moves(env, s, from, last, end);
	if (nt < 0)
		return -1;
	explored = dojo_splitmix64_unit(&mq->rng) < epsilon;
	qbest = NAN;
	if (explored) {
		if ((best = explore(mq, actions, n, nt)) < 0)
			return -1;
	} else {
		q = calloc(n, sizeof *q);
		if (!q)
			return dojo_error_set("out of memory");
		if (dojo_maxq_scores(mq, env, s, q, n) < 0) {
			free(q);
			return -1;
		}
		/* the moves of "s", then its tiles, each valued as its
		 * last move */
		best = 0;
		for (i = 1; i < n; i++)
			if (q[i] > q[best])
				best = i;
		qbest = q[best];
		free(q);
		/* the tiles of a state differ in their sizes only: once
		 * some were measured, the others are worth no more than
		 * the best of those */
		tmax = -INFINITY;
		for (i = 0; i < nt; i++) {
			tmeasured[i] = measured_value(mq, env, from[i], end[i],
			    &tq[i]);
			if (tmeasured[i] && tq[i] > tmax)
				tmax = tq[i];
		}
		for (i = 0; i < nt; i++) {
			qt = tq[i];
			if (!tmeasured[i]) {
				if (edge_value(mq, env, from[i], &last[i],
				    end[i], false, &qt) < 0)
					return -1;
				if (qt > tmax && tmax > -INFINITY)
					qt = tmax;
			}
			if (qt > qbest) {
				qbest = qt;
				best = n + i;
			}
		}
	}
	next = best < n ? children[best] : end[best - n];
	dojo_env_note(env, next, explored ? "explore" : "exploit",
	    explored ? NAN : exp(qbest));
	if (best < n) {
		ta = actions[best];
		rc = dojo_env_step(env, best, &r, &next);
		tfrom = s;
	} else {
		next = end[best - n];
		rc = dojo_env_jump(env, next, &r);
		tfrom = from[best - n];
		ta = last[best - n];
	}
	if (rc != 0)
		return rc;
	return record(mq, env, tfrom, &ta, next, dojo_env_used(env) > used,
	    learn, loss);
}

int
dojo_maxq_observe(dojo_maxq *mq, dojo_env *env, int next, bool fresh,
    bool learn)
{
	struct dojo_action a;
	int s = dojo_env_parent(env, next);

	if (s < 0 || !dojo_env_measured(env, next))
		return 0;
	if (dojo_action_parse(&a, dojo_env_action(env, next)) < 0 ||
	    ensure_net(mq, env, s) < 0)
		return -1;
	return record(mq, env, s, &a, next, fresh, learn, NULL);
}

int
dojo_maxq_tile_score(dojo_maxq *mq, dojo_env *env, int end, double *q)
{
	struct dojo_action a;
	int s = dojo_env_parent(env, end);

	if (measured_value(mq, env, s, end, q))
		return 0;
	if (dojo_action_parse(&a, dojo_env_action(env, end)) < 0)
		return -1;
	return edge_value(mq, env, s, &a, end, false, q);
}

int
dojo_maxq_save(dojo_maxq *mq, const char *path)
{
	if (!mq->q)
		return dojo_error_set("%s: nothing learned yet", path);
	return dojo_qnet_save(mq->q, path, dojo_encoder_name(mq->enc),
	    dojo_encoder_state_dim(mq->enc));
}

/* The agent: episodes of "depth" steps from the start. */

struct maxq_agent {
	dojo_maxq *mq;
	int depth, len, idle;
	double epsilon;			/* < 0: decays over the budget */
	bool learn, model;
};

static void *
maxq_new(dojo_env *env, const struct dojo_agent_options *opt)
{
	struct dojo_maxq_options mo;
	struct maxq_agent *a = calloc(1, sizeof *a);

	(void)env;
	if (!a) {
		dojo_error_set("out of memory");
		return NULL;
	}
	dojo_maxq_options_from(&mo, opt);
	a->mq = dojo_maxq_new(&mo);
	if (!a->mq) {
		free(a);
		return NULL;
	}
	a->depth = opt->depth > 0 ? opt->depth : 8;
	a->epsilon = opt->epsilon;
	a->learn = opt->learn;
	a->model = opt->model != NULL;
	dojo_env_reset(env);
	return a;
}

static int
maxq_agent_step(void *self, dojo_env *env)
{
	struct maxq_agent *a = self;
	int used = dojo_env_used(env), rc;
	double eps = a->epsilon;

	if (a->idle > 1000)
		return 1;
	if (eps < 0) {
		/* from exploring draws (half of them with a model) to
		 * mostly learned choices over the first 2/3 of the budget
		 * (over 100 steps when there is no budget) */
		int horizon = dojo_env_budget(env) > 0 ?
		    dojo_env_budget(env) : 100;
		double e0 = a->model ? 0.5 : 1.0;

		eps = e0 - (e0 - 0.1) * used / (2.0 * horizon / 3);
		if (eps < 0.1)
			eps = 0.1;
	}
	if (a->len >= a->depth) {
		dojo_env_reset(env);
		a->len = 0;
	}
	rc = dojo_maxq_step(a->mq, env, eps, a->learn, NULL);
	if (rc != 0)
		return rc;
	a->len++;
	a->idle = dojo_env_used(env) > used ? 0 : a->idle + 1;
	return 0;
}

static int
maxq_score(void *self, dojo_env *env, int state, double *scores, int n)
{
	struct maxq_agent *a = self;

	return dojo_maxq_scores(a->mq, env, state, scores, n);
}

static int
maxq_save(void *self, const char *path)
{
	struct maxq_agent *a = self;

	return dojo_maxq_save(a->mq, path);
}

static void
maxq_free(void *self)
{
	struct maxq_agent *a = self;

	dojo_maxq_free(a->mq);
	free(a);
}

const struct dojo_agent dojo_agent_maxq = {
	.name = "maxq",
	.help = "Max-Q learning: a Q-network over (state, action) encodings, "
	    "epsilon-greedy episodes of --depth steps (--model M to start "
	    "from a trained model)",
	.new = maxq_new,
	.step = maxq_agent_step,
	.score = maxq_score,
	.save = maxq_save,
	.free = maxq_free,
};
