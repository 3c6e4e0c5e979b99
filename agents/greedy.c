/* greedy.c: the greedy player, a hill climber with sideways moves and
 * restarts near the best state
 *
 * A climb measures the children of the current state in a seeded random
 * order, BATCH at a time (each batch compiled ahead, --jobs at a time),
 * and goes to the best child measured as soon as a batch has one that
 * beats the current state by more than 1%.
 *
 * Moves that made a state faster tend to make its children faster too
 * (two independent moves commute), so the climber remembers the gain of
 * every action it measured, by its text.  A climb measures first the
 * children by actions that gained before, best first, as its first
 * batch; the others follow only when none of those beats the current
 * state.  A kernel has tens to hundreds of children: this is what lets a
 * budget of a few hundred measurements climb more than a few steps.
 *
 * When no child beats the current state, the climb may go sideways: to
 * the best child not yet climbed from that is at most 3% slower, at most
 * SIDEWAYS times in a row (a move that pays only with the next one, such
 * as a fission before a swap, is not faster by itself).  Then it
 * restarts: a random walk of 1 to 2 steps from the best state found so
 * far, or, every third restart, of 1 to "depth" steps from the start.
 */
#include "config.h"
#include "agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_GAIN 0.00995033085	/* log(1.01) */
#define SIDE_LOSS 0.03045920748	/* log(1.03) */
#define SIDEWAYS 2
#define BATCH 32		/* children measured between decisions */

/* The last gain (reward of the child less that of its parent) measured
 * for an action, by its text. */
struct gain {
	char *action;
	double gain;
};

struct greedy {
	uint64_t rng;
	int cur, depth;
	int idle;			/* steps that measured nothing */
	int sideways;			/* sideways moves in a row */
	int restarts;
	struct dojo_node_set climbed;	/* the nodes climbed from */
	struct gain *gains;
	int ngains, capgains;
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

static struct gain *
find_gain(struct greedy *g, const char *action)
{
	int i;

	for (i = 0; i < g->ngains; i++)
		if (strcmp(g->gains[i].action, action) == 0)
			return &g->gains[i];
	return NULL;
}

static int
set_gain(struct greedy *g, const char *action, double gain)
{
	struct gain *k = find_gain(g, action);

	if (!k) {
		if (g->ngains == g->capgains) {
			int cap = g->capgains ? 2 * g->capgains : 64;
			struct gain *a = realloc(g->gains, cap * sizeof *a);

			if (!a)
				return dojo_error_set("out of memory");
			g->gains = a;
			g->capgains = cap;
		}
		k = &g->gains[g->ngains];
		k->action = strdup(action);
		if (!k->action)
			return dojo_error_set("out of memory");
		g->ngains++;
	}
	k->gain = gain;
	return 0;
}

/* A random walk of 1 to "steps" steps from "from"; its end is
 * measured and becomes the current state unless it failed. */
static int
walk(struct greedy *g, dojo_env *env, int from, int steps)
{
	const struct dojo_action *actions;
	const int *children;
	int node = from, n, rc;

	steps = 1 + (int)dojo_agent_rand(&g->rng, (uint64_t)steps);
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
	g->cur = dojo_env_failed(env, node) ? from : node;
	g->sideways = 0;
	return 0;
}

static int
restart(struct greedy *g, dojo_env *env)
{
	g->restarts++;
	if (g->restarts % 3 == 0)
		return walk(g, env, 0, g->depth);
	return walk(g, env, dojo_env_best(env), 2);
}

/* One climb's view of the children of the current state. */
struct climb {
	int *order;			/* child indices, in measuring order */
	double *known;			/* by index: the last gain of its
					   action, or -INFINITY */
	int n, promising;		/* order[0 .. promising - 1] gained */
	int best, side;			/* nodes, -1: none */
	double cr, bestr, sider;
};

/* Measure the children order[from .. to - 1] (compiled ahead), keeping
 * the best and the sideways candidate; their gains remembered.  0, 1
 * (budget spent) or -1. */
static int
measure_children(struct greedy *g, dojo_env *env, struct climb *c,
    const struct dojo_action *actions, const int *children, int from,
    int to)
{
	char text[256];
	int *nodes, i, k, rc = 0;
	double r;

	if (to <= from)
		return 0;
	nodes = calloc((size_t)(to - from), sizeof *nodes);
	if (!nodes)
		return dojo_error_set("out of memory");
	for (i = from; i < to; i++)
		nodes[i - from] = children[c->order[i]];
	rc = dojo_env_prepare(env, nodes, to - from);
	free(nodes);
	for (i = from; rc == 0 && i < to; i++) {
		k = children[c->order[i]];
		rc = dojo_env_evaluate(env, k, &r);
		if (rc != 0)
			break;
		dojo_action_format(text, sizeof text, &actions[c->order[i]]);
		if (set_gain(g, text, dojo_env_failed(env, k) ? -INFINITY :
		    r - c->cr) < 0)
			return -1;
		if (dojo_env_failed(env, k))
			continue;
		if (r > c->bestr) {
			c->bestr = r;
			c->best = k;
		}
		if (r > c->sider && r > c->cr - SIDE_LOSS &&
		    !dojo_node_set_has(&g->climbed, k)) {
			c->sider = r;
			c->side = k;
		}
	}
	return rc;
}

/* The children by actions that gained before first, best gain first;
 * the others in a seeded random order. */
static int
order_children(struct greedy *g, struct climb *c,
    const struct dojo_action *actions)
{
	char text[256];
	struct gain *k;
	int i, j, x;

	for (i = 0; i < c->n; i++)
		c->order[i] = i;
	dojo_agent_shuffle(c->order, c->n, &g->rng);
	c->promising = 0;
	for (i = 0; i < c->n; i++) {
		dojo_action_format(text, sizeof text, &actions[c->order[i]]);
		k = find_gain(g, text);
		c->known[c->order[i]] = k ? k->gain : -INFINITY;
		if (c->known[c->order[i]] <= MIN_GAIN)
			continue;
		/* insert into the sorted prefix */
		x = c->order[i];
		for (j = i; j > c->promising; j--)
			c->order[j] = c->order[j - 1];
		for (j = c->promising; j > 0 &&
		    c->known[c->order[j - 1]] < c->known[x]; j--)
			c->order[j] = c->order[j - 1];
		c->order[j] = x;
		c->promising++;
	}
	return 0;
}

static int
greedy_step(void *self, dojo_env *env)
{
	struct greedy *g = self;
	const struct dojo_action *actions;
	const int *children;
	struct climb c;
	int used = dojo_env_used(env), rc, i;

	if (dojo_env_spent(env) || g->idle > 1000)
		return 1;
	if (dojo_node_set_add(&g->climbed, g->cur) < 0)
		return -1;
	c.n = dojo_env_expand(env, g->cur, &actions, &children);
	if (c.n < 0)
		return -1;
	c.order = malloc((c.n ? c.n : 1) * sizeof *c.order);
	c.known = malloc((c.n ? c.n : 1) * sizeof *c.known);
	if (!c.order || !c.known) {
		rc = dojo_error_set("out of memory");
		goto out;
	}
	order_children(g, &c, actions);
	c.cr = dojo_env_reward(env, g->cur);
	c.bestr = c.cr + MIN_GAIN;
	c.sider = -INFINITY;
	c.best = c.side = -1;
	rc = measure_children(g, env, &c, actions, children, 0, c.promising);
	for (i = c.promising; rc == 0 && c.best < 0 && i < c.n; i += BATCH)
		rc = measure_children(g, env, &c, actions, children, i,
		    i + BATCH < c.n ? i + BATCH : c.n);
	if (rc < 0)
		goto out;
	rc = 0;
	if (c.best >= 0) {
		g->cur = c.best;
		g->sideways = 0;
	} else if (c.side >= 0 && g->sideways < SIDEWAYS) {
		g->cur = c.side;
		g->sideways++;
	} else if (!dojo_env_spent(env))
		rc = restart(g, env);
	g->idle = dojo_env_used(env) > used ? 0 : g->idle + 1;
out:
	free(c.order);
	free(c.known);
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
	struct greedy *g = self;
	int i;

	for (i = 0; i < g->ngains; i++)
		free(g->gains[i].action);
	free(g->gains);
	dojo_node_set_release(&g->climbed);
	free(g);
}

const struct dojo_agent dojo_agent_greedy = {
	.name = "greedy",
	.help = "measure the children of the current state, take the best; "
	    "sideways moves on a plateau, restarts near the best state",
	.new = greedy_new,
	.step = greedy_step,
	.score = greedy_score,
	.free = greedy_free,
};
