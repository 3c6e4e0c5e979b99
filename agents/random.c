/* random.c: the random player: random legal walks from the start, each
 * state on a walk measured, back to the start after "depth" steps */
#include "config.h"
#include "agents/agent.h"

#include <math.h>
#include <stdlib.h>

struct walker {
	uint64_t rng;
	int cur, len, depth;
	int idle;			/* steps that measured nothing */
};

static void *
random_new(dojo_env *env, const struct dojo_agent_options *opt)
{
	struct walker *w = calloc(1, sizeof *w);

	(void)env;
	if (!w) {
		dojo_error_set("out of memory");
		return NULL;
	}
	w->rng = opt->seed;
	w->depth = opt->depth > 0 ? opt->depth : 8;
	return w;
}

static int
random_step(void *self, dojo_env *env)
{
	struct walker *w = self;
	const struct dojo_action *actions;
	const int *children;
	int n, child, used = dojo_env_used(env), rc;

	if (dojo_env_spent(env) || w->idle > 10000)
		return 1;
	if (w->len >= w->depth) {
		w->cur = 0;
		w->len = 0;
	}
	n = dojo_env_expand(env, w->cur, &actions, &children);
	if (n < 0)
		return -1;
	if (n == 0) {
		if (w->cur == 0)
			return 1;
		w->len = w->depth;
		w->idle++;
		return 0;
	}
	child = children[dojo_agent_rand(&w->rng, (uint64_t)n)];
	dojo_env_note(env, child, "walk", NAN);
	rc = dojo_env_evaluate(env, child, NULL);
	if (rc != 0)
		return rc;
	w->idle = dojo_env_used(env) > used ? 0 : w->idle + 1;
	if (!dojo_env_failed(env, child))
		w->cur = child;
	w->len++;
	return 0;
}

static void
random_free(void *self)
{
	free(self);
}

const struct dojo_agent dojo_agent_random = {
	.name = "random",
	.help = "random legal walks of --depth steps from the start, every "
	    "state measured",
	.new = random_new,
	.step = random_step,
	.free = random_free,
};
