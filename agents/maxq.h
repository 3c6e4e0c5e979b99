/* maxq.h: the Max-Q learner (doc/agents.md), shared by the maxq agent
 * and perfdojo train: a Q-network over encodings of (state, action),
 * epsilon-greedy play, a replay buffer over any number of environments,
 * a target network, and the target y = max(r(s'), gamma * max_a'
 * Q_target(s', a')): the value of a path is the best state on it
 */
#ifndef DOJO_MAXQ_H
#define DOJO_MAXQ_H

#include <stdbool.h>
#include <stdint.h>

#include "src/core/env.h"

struct dojo_maxq_options {
	uint64_t seed;
	const char *model;		/* start from this model (NULL: fresh) */
	const char *encoder_cmd;	/* NULL: the built-in encoder */
	double gamma;			/* 0.5 */
	double lr;			/* Adam's rate, 1e-3 */
	int hidden;			/* units per hidden layer, 64 */
	int batch;			/* transitions per update, 32 */
	int replay;			/* transitions kept, 10000 */
	int sync;			/* updates between target copies, 50 */
	int updates;			/* updates per step, 8 */
	bool double_q;			/* the online network picks a' of the
					   target, the target network values
					   it (true) */
	double floor;			/* targets below it learn it: a
					   failure or a state e times slower
					   teach the same, -1 */
};

void dojo_maxq_options_init(__dojo_keep struct dojo_maxq_options *opt);
/* The defaults, then what a player's options set (agents/agent.h): its
 * seed, model, encoder, gamma and updates. */
struct dojo_agent_options;
void dojo_maxq_options_from(__dojo_keep struct dojo_maxq_options *opt,
    __dojo_keep const struct dojo_agent_options *aopt);

typedef struct dojo_maxq dojo_maxq;

__dojo_give dojo_maxq *dojo_maxq_new(
    __dojo_keep const struct dojo_maxq_options *opt);
void dojo_maxq_free(__dojo_take dojo_maxq *mq);

/* Q of every action of "state" into "q" ("n" of them, as
 * dojo_env_expand lists them); an action whose state was measured in
 * this run is valued by its target, max(r, gamma * v), v the network's
 * value of that state shrunk towards the best reward measured below it
 * (doc/agents.md).  0 or -1. */
int dojo_maxq_scores(__dojo_keep dojo_maxq *mq, __dojo_keep dojo_env *env,
    int state, double *q, int n);
/* One step of "env" from its current state: an epsilon-greedy action,
 * the transition into the replay buffer, and (when "learn") one update
 * whose loss goes into "*loss" (may be NULL).  0, 1 (budget spent, or no
 * action anywhere) or -1. */
int dojo_maxq_step(__dojo_keep dojo_maxq *mq, __dojo_keep dojo_env *env,
    double epsilon, bool learn, double *loss);
/* What another player measured: the evaluated state "next", reached
 * from its first parent by its action, as a transition of the replay
 * buffer ("fresh": measured first now), then "learn"ing updates.  So a
 * search that is not Max-Q's own play (the auto player) teaches the
 * network what this kernel pays.  0 or -1. */
int dojo_maxq_observe(__dojo_keep dojo_maxq *mq, __dojo_keep dojo_env *env,
    int next, bool fresh, bool learn);
/* The value of a compound move (a tile, agents/tile.c) ending at "end":
 * the value of its last move, from its first parent; measured: its
 * target.  0 or -1. */
int dojo_maxq_tile_score(__dojo_keep dojo_maxq *mq, __dojo_keep dojo_env *env,
    int end, double *q);
/* One update on a batch of the replay buffer; the loss. */
int dojo_maxq_update(__dojo_keep dojo_maxq *mq, double *loss);
int dojo_maxq_save(__dojo_keep dojo_maxq *mq, const char *path);
/* The environments of the replay buffer are about to go: forget them
 * and what was measured in them. */
void dojo_maxq_forget(__dojo_keep dojo_maxq *mq);

#endif
