/* greedy.c: the greedy player: measure the children of the current
 * state (in a seeded random order, so that a small budget sees every kind
 * of move), go to the best when it beats the current state by more than
 * 1%; otherwise restart from a random walk of 1 to "depth" unmeasured
 * steps from the start */
#include "config.h"
#include "agent.h"

#include <math.h>
#include <stdlib.h>

#define MIN_GAIN 0.00995033085	/* log(1.01) */

struct greedy {
	uint64_t rng;
	int cur, depth;
	int idle;			/* steps that measured nothing */
};

static void *
greedy_new(dojo_env *env, const struct dojo_agent_options *opt)
{
	struct greedy *g = calloc(1, sizeof *g);

	(void)env;
	if (!g) {
		dojo_error_set("out of memory");
		return NULL;
	}
	g->rng = opt->seed;
	g->depth = opt->depth > 0 ? opt->depth : 8;
	return g;
}

/* A random walk of 1 to depth steps from the start; its end is
 * measured. */
static int
restart(struct greedy *g, dojo_env *env)
{
	const struct dojo_action *actions;
	const int *children;
	int steps = 1 + (int)dojo_agent_rand(&g->rng, (uint64_t)g->depth);
	int node = 0, n, rc;

	while (steps-- > 0) {
		n = dojo_env_expand(env, node, &actions, &children);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		node = children[dojo_agent_rand(&g->rng, (uint64_t)n)];
	}
	rc = dojo_env_evaluate(env, node, NULL);
	if (rc != 0)
		return rc;
	g->cur = dojo_env_failed(env, node) ? 0 : node;
	return 0;
}

/* Compile the children "children[order[i]]" ahead, in that order. */
static int
prepare(dojo_env *env, const int *children, const int *order, int n)
{
	int *nodes = malloc((n ? n : 1) * sizeof *nodes), i, rc;

	if (!nodes)
		return dojo_error_set("out of memory");
	for (i = 0; i < n; i++)
		nodes[i] = children[order[i]];
	rc = dojo_env_prepare(env, nodes, n);
	free(nodes);
	return rc;
}

static int
greedy_step(void *self, dojo_env *env)
{
	struct greedy *g = self;
	const struct dojo_action *actions;
	const int *children;
	int n, i, *order, best = -1, used = dojo_env_used(env), rc = 0;
	double r, bestr;

	if (dojo_env_spent(env) || g->idle > 1000)
		return 1;
	n = dojo_env_expand(env, g->cur, &actions, &children);
	if (n < 0)
		return -1;
	order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return dojo_error_set("out of memory");
	for (i = 0; i < n; i++)
		order[i] = i;
	dojo_agent_shuffle(order, n, &g->rng);
	bestr = dojo_env_reward(env, g->cur) + MIN_GAIN;
	if (prepare(env, children, order, n) < 0) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		rc = dojo_env_evaluate(env, children[order[i]], &r);
		if (rc < 0)
			goto out;
		if (rc == 1)
			break;
		if (r > bestr) {
			bestr = r;
			best = children[order[i]];
		}
	}
	rc = 0;
	if (best >= 0)
		g->cur = best;
	else if (!dojo_env_spent(env))
		rc = restart(g, env);
	g->idle = dojo_env_used(env) > used ? 0 : g->idle + 1;
out:
	free(order);
	return rc < 0 ? -1 : 0;
}

static int
greedy_score(void *self, dojo_env *env, int node, double *scores, int n)
{
	const struct dojo_action *actions;
	const int *children;
	int i, rc;

	(void)self;
	if (dojo_env_expand(env, node, &actions, &children) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		rc = dojo_env_evaluate(env, children[i], &scores[i]);
		if (rc < 0)
			return -1;
		if (rc == 1)
			scores[i] = -INFINITY;
	}
	return 0;
}

static void
greedy_free(void *self)
{
	free(self);
}

const struct dojo_agent dojo_agent_greedy = {
	.name = "greedy",
	.help = "measure the children of the current state, take the best; "
	    "restart from a random walk when none improves",
	.new = greedy_new,
	.step = greedy_step,
	.score = greedy_score,
	.free = greedy_free,
};
