/* agent.h: players of the game, one table entry each
 *
 * A player plays on an environment (src/core/env.h) until its budget is spent:
 * each call of dojo_player_step makes one step of the agent's own kind (a
 * move of a walk, a climb of greedy, a level of beam, an environment step
 * of Max-Q).  Players are deterministic for a given seed: the same seed
 * and the same measurements give the same path.
 */
#ifndef DOJO_AGENT_H
#define DOJO_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/moves.h"
#include "src/core/env.h"

struct dojo_agent_options {
	uint64_t seed;
	int width;			/* beam: states kept per level */
	int depth;			/* random, maxq: steps of a walk or an
					   episode; greedy: steps of a restart
					   walk; beam: levels (0: no limit) */
	const char *model;		/* maxq: the model to start from */
	const char *encoder_cmd;	/* maxq: NULL for the built-in one */
	double epsilon;			/* maxq: < 0 for the default */
	double gamma;			/* maxq: < 0 for the default */
	int updates;			/* maxq: updates per step, 0: the
					   default */
	bool learn;			/* maxq: learn while playing */
};

void dojo_agent_options_init(__dojo_keep struct dojo_agent_options *opt);

/* One suggestion: an action of a state, its score, the state it
 * reaches. */
struct dojo_suggestion {
	char action[256];
	int index;			/* in the state's action list */
	int state;
	double score;
};

struct dojo_agent {
	const char *name;
	const char *help;		/* one line */
	/* a player's state, or NULL with the last error set */
	void *(*new)(dojo_env *env, const struct dojo_agent_options *opt);
	/* 0: more to do; 1: done (budget spent, nothing left); -1 */
	int (*step)(void *self, dojo_env *env);
	/* the scores of the "n" actions of "state" into "scores" (may
	 * measure); NULL: the rewards measured so far */
	int (*score)(void *self, dojo_env *env, int state, double *scores,
	    int n);
	/* write the learned model (NULL: the agent learns nothing) */
	int (*save)(void *self, const char *path);
	void (*free)(void *self);
};

extern const struct dojo_agent dojo_agent_random;
extern const struct dojo_agent dojo_agent_greedy;
extern const struct dojo_agent dojo_agent_beam;
extern const struct dojo_agent dojo_agent_maxq;
extern const struct dojo_agent dojo_agent_auto;

/* The player of perfdojo tune without --agent. */
#define DOJO_AGENT_DEFAULT "auto"
/* The model a player starts from when none is given: $PERFDOJO_MODEL
 * ("" or "none": none), else the installed model
 * (PKGDATADIR/models/default.model), else the source tree's (a build
 * run before make install); NULL when there is none. */
const char *dojo_agent_default_model(void);

/* The table, in order; NULL after the last. */
const struct dojo_agent *dojo_agent_at(int i);
/* The agent called "name", or NULL with the last error set. */
const struct dojo_agent *dojo_agent_find(const char *name);

/* Register tiles (agents/tile.c): compound moves of legal moves that
 * isolate a reduction's nest, split two of the scopes that index the
 * written array and sink the inner ones below the reduction.  A tile is
 * the state it reaches (none of its moves measured) and its moves. */
#define DOJO_TILE_TEXT 2048
struct dojo_tile {
	int state;
	char text[DOJO_TILE_TEXT];	/* "split 1 4; swap 1.0; ..." */
	bool block;			/* blocks for the cache (no register
					   tile): a transpose's */
};

/* The tiles of "state", at most "max" into "out", after its fusions
 * (a temporary between top-level nests: the nests fused, the temporary
 * folded and on the stack; doc/agents.md): their count, or -1 with the
 * last error set. */
int dojo_agent_tiles(__dojo_keep dojo_env *env, int state,
    __dojo_keep struct dojo_tile *out, int max);

typedef struct dojo_player dojo_player;

__dojo_give dojo_player *dojo_player_new(
    __dojo_keep const struct dojo_agent *agent, __dojo_keep dojo_env *env,
    __dojo_keep const struct dojo_agent_options *opt);
void dojo_player_free(__dojo_take dojo_player *p);
const struct dojo_agent *dojo_player_agent(__dojo_keep dojo_player *p);
/* One step: 0 (more to do), 1 (done) or -1 with the last error. */
int dojo_player_step(__dojo_keep dojo_player *p);
/* Steps until done. */
int dojo_player_run(__dojo_keep dojo_player *p);
/* The "k" best actions of "state" by the agent's scores, best first, into
 * "out": their count, or -1. */
int dojo_player_suggest(__dojo_keep dojo_player *p, int state, int k,
    __dojo_keep struct dojo_suggestion *out);
/* Save the learned model; -1 with an error for agents that learn
 * nothing. */
int dojo_player_save(__dojo_keep dojo_player *p, const char *path);

/* Helpers for agents: a uniform number below "n" from "*state", and a
 * seeded shuffle of "a". */
uint64_t dojo_agent_rand(uint64_t *state, uint64_t n);
void dojo_agent_shuffle(int *a, int n, uint64_t *state);

/* A set of states of an environment (expanded, climbed from), zeroed to
 * start empty. */
struct dojo_state_set {
	unsigned char *in;		/* by state */
	int n;
};

/* 0, -1 */
int dojo_state_set_add(__dojo_keep struct dojo_state_set *set, int state);
bool dojo_state_set_has(__dojo_keep const struct dojo_state_set *set, int state);
void dojo_state_set_release(__dojo_keep struct dojo_state_set *set);

#endif
