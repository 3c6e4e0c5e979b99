/* beam.c: the beam player: the children of the "width" states of a level
 * are measured together (one batch, in a seeded random order), the best
 * "width" of them are the next level; after "depth" levels (0: no limit)
 * or when a level is empty, a new beam starts from the best measured
 * states not yet expanded */
#include "config.h"
#include "agents/agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct beam {
	uint64_t rng;
	int width, depth, level;
	int *frontier, nf;
	struct dojo_state_set expanded;
};

static void *
beam_new(dojo_env *env, const struct dojo_agent_options *opt)
{
	struct beam *b = calloc(1, sizeof *b);

	(void)env;
	if (!b)
		goto out_oom;
	b->rng = opt->seed;
	b->width = opt->width > 0 ? opt->width : 4;
	b->depth = opt->depth > 0 ? opt->depth : 0;
	b->frontier = calloc(b->width, sizeof *b->frontier);
	if (!b->frontier)
		goto out_oom;
	b->nf = 1;			/* the start */
	return b;
out_oom:
	free(b);
	dojo_error_set("out of memory");
	return NULL;
}

/* Keep in "b->frontier" the best "width" of the "n" states of "cand" that
 * are measured, work, and pass "fresh" (not expanded yet, if set). */
static void
keep_best(struct beam *b, dojo_env *env, const int *cand, int n, bool fresh)
{
	int i, j, k;

	b->nf = 0;
	for (i = 0; i < n; i++) {
		k = cand[i];
		if (!dojo_env_measured(env, k) || dojo_env_failed(env, k) ||
		    (fresh && dojo_state_set_has(&b->expanded, k)))
			continue;
		for (j = 0; j < b->nf; j++)
			if (b->frontier[j] == k)
				break;
		if (j < b->nf)
			continue;
		for (j = b->nf; j > 0 && dojo_env_reward(env,
		    b->frontier[j - 1]) < dojo_env_reward(env, k); j--)
			if (j < b->width)
				b->frontier[j] = b->frontier[j - 1];
		if (j < b->width) {
			b->frontier[j] = k;
			if (b->nf < b->width)
				b->nf++;
		}
	}
}

static int
beam_step(void *self, dojo_env *env)
{
	struct beam *b = self;
	const struct dojo_action *actions;
	const int *children;
	int *cand = NULL, nc = 0, cap = 0, i, j, n, rc = 0;

	if (dojo_env_spent(env))
		return 1;
	if (b->nf == 0) {
		/* a new beam from the best measured states not expanded */
		int all = dojo_env_n_states(env);

		cand = malloc(all * sizeof *cand);
		if (!cand)
			return dojo_error_set("out of memory");
		for (i = 0; i < all; i++)
			cand[i] = i;
		keep_best(b, env, cand, all, true);
		free(cand);
		cand = NULL;
		b->level = 0;
		if (b->nf == 0)
			return 1;
	}
	/* the batch: every child of the level, once */
	for (i = 0; i < b->nf; i++) {
		if (dojo_state_set_add(&b->expanded, b->frontier[i]) < 0)
			return -1;
		n = dojo_env_expand(env, b->frontier[i], &actions, &children);
		if (n < 0)
			goto out_fail;
		if (nc + n > cap) {
			int *c = realloc(cand, (cap = 2 * (nc + n)) *
			    sizeof *c);

			if (!c) {
				dojo_error_set("out of memory");
				goto out_fail;
			}
			cand = c;
		}
		for (j = 0; j < n; j++)
			cand[nc++] = children[j];
	}
	dojo_agent_shuffle(cand, nc, &b->rng);
	/* the level's kernels compiled ahead, --jobs at a time */
	if (dojo_env_prepare(env, cand, nc) < 0)
		goto out_fail;
	for (i = 0; i < nc; i++) {
		dojo_env_note(env, cand[i], "level", NAN);
		rc = dojo_env_evaluate(env, cand[i], NULL);
		if (rc < 0)
			goto out_fail;
		if (rc == 1)
			break;
	}
	keep_best(b, env, cand, nc, false);
	b->level++;
	if (b->depth > 0 && b->level >= b->depth)
		b->nf = 0;
	free(cand);
	return 0;
out_fail:
	free(cand);
	return -1;
}

static void
beam_free(void *self)
{
	struct beam *b = self;

	free(b->frontier);
	dojo_state_set_release(&b->expanded);
	free(b);
}

const struct dojo_agent dojo_agent_beam = {
	.name = "beam",
	.help = "beam search: the children of --width states measured as one "
	    "batch, the best --width kept, for --depth levels",
	.new = beam_new,
	.step = beam_step,
	.free = beam_free,
};
