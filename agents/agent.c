/* agent.c: the table of agents and the players that run them */
#include "config.h"
#include "agents/agent.h"
#include "ir/data.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct dojo_agent *const agents[] = {
	&dojo_agent_random,
	&dojo_agent_greedy,
	&dojo_agent_beam,
	&dojo_agent_maxq,
	&dojo_agent_auto,
	NULL
};

struct dojo_player {
	const struct dojo_agent *agent;
	dojo_env *env;
	void *self;
	bool done;
};

void
dojo_agent_options_init(struct dojo_agent_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->seed = 1;
	opt->width = 4;
	opt->depth = 8;
	opt->epsilon = -1;
	opt->gamma = -1;
	opt->learn = true;
}

const char *
dojo_agent_default_model(void)
{
	static const char *const places[] = {
		DOJO_MODEL_INSTALLED, DOJO_MODEL_SOURCE
	};
	const char *env = getenv("PERFDOJO_MODEL");
	size_t i;

	if (env)
		return *env && strcmp(env, "none") != 0 ? env : NULL;
	for (i = 0; i < sizeof places / sizeof *places; i++)
		if (access(places[i], R_OK) == 0)
			return places[i];
	return NULL;
}

const struct dojo_agent *
dojo_agent_at(int i)
{
	if (i < 0 || i >= (int)(sizeof agents / sizeof *agents))
		return NULL;
	return agents[i];
}

const struct dojo_agent *
dojo_agent_find(const char *name)
{
	int i;

	for (i = 0; agents[i]; i++)
		if (strcmp(agents[i]->name, name) == 0)
			return agents[i];
	dojo_error_set("unknown agent '%s' (random, greedy, beam or maxq)",
	    name);
	return NULL;
}

uint64_t
dojo_agent_rand(uint64_t *state, uint64_t n)
{
	return n ? dojo_splitmix64(state) % n : 0;
}

void
dojo_agent_shuffle(int *a, int n, uint64_t *state)
{
	int i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = (int)dojo_agent_rand(state, (uint64_t)i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

dojo_player *
dojo_player_new(const struct dojo_agent *agent, dojo_env *env,
    const struct dojo_agent_options *opt)
{
	dojo_player *p = calloc(1, sizeof *p);

	if (!p) {
		dojo_error_set("out of memory");
		return NULL;
	}
	p->agent = agent;
	p->env = env;
	p->self = agent->new(env, opt);
	if (!p->self) {
		free(p);
		return NULL;
	}
	return p;
}

void
dojo_player_free(dojo_player *p)
{
	if (!p)
		return;
	p->agent->free(p->self);
	free(p);
}

const struct dojo_agent *
dojo_player_agent(dojo_player *p)
{
	return p->agent;
}

int
dojo_player_step(dojo_player *p)
{
	int rc;

	if (p->done)
		return 1;
	rc = p->agent->step(p->self, p->env);
	if (rc == 1)
		p->done = true;
	return rc;
}

int
dojo_player_run(dojo_player *p)
{
	int rc;

	while ((rc = dojo_player_step(p)) == 0)
		;
	return rc < 0 ? -1 : 0;
}

int
dojo_player_suggest(dojo_player *p, int state, int k,
    struct dojo_suggestion *out)
{
	const struct dojo_action *actions;
	const int *children;
	double *scores;
	int n, i, j, *order, m = 0;

	n = dojo_env_expand(p->env, state, &actions, &children);
	if (n < 0)
		return -1;
	scores = calloc(n + 1, sizeof *scores);
	order = calloc(n + 1, sizeof *order);
	if (!scores || !order) {
		free(scores);
		free(order);
		return dojo_error_set("out of memory");
	}
	if (p->agent->score) {
		if (p->agent->score(p->self, p->env, state, scores, n) < 0) {
			m = -1;
			goto out;
		}
	} else {
		for (i = 0; i < n; i++)
			scores[i] = dojo_env_measured(p->env, children[i]) ?
			    dojo_env_reward(p->env, children[i]) : 0;
	}
	/* the best first; among equals, the action list's order */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && scores[order[j - 1]] < scores[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (m = 0; m < k && m < n; m++) {
		i = order[m];
		dojo_action_format(out[m].action, sizeof out[m].action,
		    &actions[i]);
		out[m].index = i;
		out[m].state = children[i];
		out[m].score = scores[i];
	}
out:
	free(scores);
	free(order);
	return m;
}

int
dojo_player_save(dojo_player *p, const char *path)
{
	if (!p->agent->save)
		return dojo_error_set("agent '%s' learns no model to save",
		    p->agent->name);
	return p->agent->save(p->self, path);
}

int
dojo_state_set_add(struct dojo_state_set *set, int state)
{
	if (state >= set->n) {
		int n = 2 * state + 64;
		unsigned char *in = realloc(set->in, n);

		if (!in)
			return dojo_error_set("out of memory");
		memset(in + set->n, 0, n - set->n);
		set->in = in;
		set->n = n;
	}
	set->in[state] = 1;
	return 0;
}

bool
dojo_state_set_has(const struct dojo_state_set *set, int state)
{
	return state < set->n && set->in[state];
}

void
dojo_state_set_release(struct dojo_state_set *set)
{
	free(set->in);
	set->in = NULL;
	set->n = 0;
}
