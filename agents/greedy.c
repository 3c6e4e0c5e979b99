/* greedy.c: the greedy player, a hill climber with sideways moves and
 * restarts near the best state
 *
 * A climb measures the children of the current state in a seeded random
 * order, a batch at a time (each batch compiled ahead, --jobs at a time),
 * and goes to the best child measured as soon as a batch has one that
 * beats the current state by more than 1% and holds that gain when the
 * two are timed in alternate pairs (hold()).
 *
 * Moves that made a state faster tend to make its children faster too
 * (two independent moves commute), so the climber remembers the gain of
 * every action it measured, by its text.  A climb measures first the
 * children by actions that gained before, best first, as its first
 * batch; the others follow only when none of those beats the current
 * state, those by moves of the kinds (split, cache, pack, ...) that
 * gained more often first.  A kernel has tens to hundreds of children:
 * this is what lets a budget of a few hundred measurements climb more
 * than a few steps.
 *
 * When no child beats the current state, the climb may go sideways, at
 * most SIDEWAYS times in a row, to a child not yet climbed from that is
 * at most 3% slower: a move that pays only with the next one, such as a
 * fission before a swap, is not faster by itself.  What such a move does
 * is enable other moves, so the sideways child is the one with the most
 * new legal moves (actions whose text its parent did not have; the best
 * measured among equals), and a climb measures the moves that its state's
 * last move enabled before the others.  Then it restarts: a random walk
 * of 1 to 2 steps from the best state found so far, or, every third
 * restart, of 1 to "depth" steps from the start.
 */
#include "config.h"
#include "agents/agent.h"
#include "agents/maxq.h"
#include "ir/flag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_GAIN 0.00995033085	/* log(1.01) */
#define SIDE_LOSS 0.03045920748	/* log(1.03) */
#define SIDEWAYS 2
#define BATCH 32		/* children measured between decisions, at most:
				   a tenth of the budget, at least 8 */
#define KINDS 64		/* moves in the table, at most, and tiles */
#define TILE (KINDS - 1)	/* the kind of the tiles */
#define MAX_TILES 24		/* tiles of a state, at most */
#define MAX_SWAPS 8		/* and swaps outward of a parallel scope */
#define MODEL 9		/* auto: the group of a child the model's
				   order brought */
#define HINT_OUTER 1		/* parallelize of an outer scope */
#define HINT_INNER 2		/* vectorize of an innermost scope */
#define HINT_LAYOUT 3		/* pad of a temporary's rows */
#define HINT_LOCAL 4		/* cache of an output reused along a scope */
#define HINT_GATHER 5		/* a vector or tile that gathers (gathers()) */
#define HINT_BLOCK 6		/* blocks for the cache (a tile's block) */
#define GATHER_COST 1.0	/* that child's sort keys lowered by this */
#define MODEL_RATE 0.25	/* auto: the weight of a kind's rate of gains
				   against the model's value */
#define SETTLE 4		/* auto: the states of the best rewards
				   timed against the leader at the end */
#define MODEL_BATCH 16	/* auto with a model: a batch, at most (a
				   twentieth of the budget, at least 6) */
#define SEARCH_SHARE 0.8	/* auto: the share of --seconds searched */
#define OUTER_TRIES 4		/* parallelize of outer scopes measured
				   that never gained before they fall back
				   among the others */
#define INNER_TRIES 4		/* likewise vectorize of innermost scopes */
#define LAYOUT_TRIES 2		/* and pads of rows */
#define LOCAL_TRIES 2		/* and local copies of outputs */
#define LOCAL_BYTES 32768	/* the largest such copy: an L1 cache */
#define TILE_TRIES 8		/* tiles measured that never gained before
				   they come after the other children */
#define HOLD_PAIRS 3		/* the alternate pairs of that check */
#define HOLD_TRIES 3		/* children checked a step, at most */
#define HOLD_RIVALS 2		/* children held a step, at most */
#define DUEL_RANGE 0.0953101798	/* log(1.1): the tiles whose first looks
				   are this close to the chosen tile's are
				   timed against it on their nest alone */
#define DUEL_RIVALS 3		/* those tiles, at most */

/* The last gain (reward of the child less that of its parent) measured
 * for an action, by its text. */
struct gain {
	char *action;
	double gain;
};

struct greedy {
	uint64_t rng;
	int cur, depth;
	int batch;			/* children measured between decisions */
	int idle;			/* steps that measured nothing */
	int sideways;			/* sideways moves in a row */
	int restarts;
	struct dojo_state_set climbed;	/* the states climbed from */
	struct gain *gains;
	int ngains, capgains;
	/* by move: children measured, and how many beat their parent */
	int tried[KINDS], gained[KINDS];
	/* and of the local copies of outputs (local_reuse) */
	int local_tried, local_gained;
	/* auto: the model that ranks the children before any is measured
	 * (NULL: none), learning from what the climbs measure */
	dojo_maxq *mq;
	bool learn;
	bool settle;			/* auto: settle the best at the end */
};

/* Whether auto's share of a time limit for the search (SEARCH_SHARE)
 * is spent. */
static bool
searched(const struct greedy *g, dojo_env *env)
{
	return g->settle && dojo_env_seconds(env) > 0 &&
	    dojo_env_elapsed(env) >= SEARCH_SHARE * dojo_env_seconds(env);
}

/* The share of a move's children measured that beat their parent, with
 * one success and one failure assumed before any (a move never tried
 * comes at 1/2, between those that pay and those that do not). */
static double
kind_rate(const struct greedy *g, int kind)
{
	return (g->gained[kind] + 1.0) / (g->tried[kind] + 2.0);
}

static void
kind_count(struct greedy *g, int kind, bool gain)
{
	g->tried[kind]++;
	g->gained[kind] += gain;
}

static void *
greedy_new(dojo_env *env, const struct dojo_agent_options *opt)
{
	struct greedy *g = calloc(1, sizeof *g);

	if (!g) {
		dojo_error_set("out of memory");
		return NULL;
	}
	g->batch = dojo_env_budget(env) / 10;
	if (g->batch > BATCH || dojo_env_budget(env) == 0)
		g->batch = BATCH;
	if (g->batch < 8)
		g->batch = 8;
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

/* The texts of the legal actions of a state, sorted, to ask whether an
 * action is new in a child. */
struct texts {
	char **s;
	int n;
};

static int
compare_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
texts_release(struct texts *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	t->s = NULL;
	t->n = 0;
}

/* The texts of the actions of "state"; none for -1.  0 or -1. */
static int
texts_of(dojo_env *env, int state, struct texts *t)
{
	const struct dojo_action *actions;
	const int *children;
	char text[256];
	int n, i;

	t->s = NULL;
	t->n = 0;
	if (state < 0)
		return 0;
	n = dojo_env_expand(env, state, &actions, &children);
	if (n < 0)
		return -1;
	t->s = calloc(n ? n : 1, sizeof *t->s);
	if (!t->s)
		return dojo_error_set("out of memory");
	for (i = 0; i < n; i++) {
		dojo_action_format(text, sizeof text, &actions[i]);
		t->s[i] = strdup(text);
		if (!t->s[i]) {
			texts_release(t);
			return dojo_error_set("out of memory");
		}
		t->n++;
	}
	qsort(t->s, t->n, sizeof *t->s, compare_text);
	return 0;
}

static bool
texts_have(const struct texts *t, const char *text)
{
	return t->n > 0 && bsearch(&text, t->s, t->n, sizeof *t->s,
	    compare_text) != NULL;
}

/* How many legal actions of "state" its parent "parent" (texts "pt") did
 * not have: the moves that the move to "state" enabled.  -1 on error. */
static int
enabled(dojo_env *env, int state, const struct texts *pt)
{
	const struct dojo_action *actions;
	const int *children;
	char text[256];
	int n, i, count = 0;

	n = dojo_env_expand(env, state, &actions, &children);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		dojo_action_format(text, sizeof text, &actions[i]);
		if (!texts_have(pt, text))
			count++;
	}
	return count;
}

/* A random walk of 1 to "steps" steps from "from"; its end is
 * measured and becomes the current state unless it failed. */
static int
walk(struct greedy *g, dojo_env *env, int from, int steps)
{
	const struct dojo_action *actions;
	const int *children;
	int state = from, n, rc;

	steps = 1 + (int)dojo_agent_rand(&g->rng, (uint64_t)steps);
	while (steps-- > 0) {
		n = dojo_env_expand(env, state, &actions, &children);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		state = children[dojo_agent_rand(&g->rng, (uint64_t)n)];
	}
	dojo_env_note(env, state, "restart", NAN);
	rc = dojo_env_evaluate(env, state, NULL);
	if (rc != 0)
		return rc;
	g->cur = dojo_env_failed(env, state) ? from : state;
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

/* One climb's view of the children of the current state: those by the
 * legal actions, then the register tiles (agents/tile.c). */
struct climb {
	int n;
	int *state;			/* by index: the child */
	char **text;			/* its action (a tile's moves) */
	int *kind;			/* its move, TILE for a tile */
	unsigned char *hint;		/* HINT_OUTER, HINT_INNER or 0 */
	int *order;			/* indices, in measuring order */
	double *known;			/* by index: the sort key of
					   order_children */
	int *group;			/* by index: its group there */
	double *pred;			/* by index: the speedup against the
					   start it is expected to lead to
					   (the trace's), NAN: none */
	int promising;			/* order[0 .. promising - 1] gained */
	int best;			/* state, -1: none */
	double cr, bestr;
};

static void
climb_release(struct climb *c)
{
	int i;

	for (i = 0; c->text && i < c->n; i++)
		free(c->text[i]);
	free(c->text);
	free(c->state);
	free(c->kind);
	free(c->hint);
	free(c->order);
	free(c->known);
	free(c->group);
	free(c->pred);
}

/* Whether a scope "node" or one below it runs on threads. */
static bool
has_parallel(dojo_node *node)
{
	int i;

	if (dojo_node_kind(node) != DOJO_SCOPE)
		return false;
	if (dojo_node_flag(node) == DOJO_FLAG_PARALLEL)
		return true;
	for (i = 0; i < dojo_node_n_children(node); i++)
		if (has_parallel(dojo_node_child(node, i)))
			return true;
	return false;
}

/* Whether "a", legal at "state", puts on threads an outer scope (a
 * top-level one, or one below top-level scopes of one iteration only: a
 * batch of one image) of at least as many iterations as the run has
 * threads, none of whose scopes does yet: on a run of several threads
 * the move that pays on nearly every kernel (its work divided among the
 * cores), which a climb then measures first of the new moves, whatever
 * the model or the rates of the moves say (a model trained on other
 * kernels ranked it low on a transpose, and 40 measurements never timed
 * it). */
static bool
outer_parallel(dojo_env *env, int state, const struct dojo_action *a)
{
	dojo_program *prog;
	dojo_node *node;
	int threads = dojo_env_threads(env), d;

	if (threads < 2 || a->npath < 1 ||
	    strcmp(dojo_move_name(dojo_action_move_index(a)),
	    "parallelize") != 0)
		return false;
	prog = dojo_env_program(env, state);
	if (!prog || a->path[0] >= dojo_program_n_children(prog))
		return false;
	node = dojo_program_child(prog, a->path[0]);
	for (d = 1; d < a->npath; d++) {
		if (dojo_node_kind(node) != DOJO_SCOPE ||
		    dojo_node_size(node) != 1 ||
		    a->path[d] >= dojo_node_n_children(node))
			return false;
		node = dojo_node_child(node, a->path[d]);
	}
	return dojo_node_kind(node) == DOJO_SCOPE &&
	    dojo_node_size(node) >= threads && !has_parallel(node);
}

/* Follow "VERB ADDRESS" (the scope at "path", "np" deep), or "VERB
 * ADDRESS BY" when "by" > 0 (a split's factor), from "*state", into
 * "*state" when done; the move then appended to "text" (of "len"; NULL:
 * not kept), after a "; ". */
static enum dojo_result
follow_at(dojo_env *env, int *state, const char *verb, const int *path,
    int np, int64_t by, char *text, size_t len)
{
	char at[128], move[160];
	enum dojo_result r;
	int k;

	dojo_address_format(at, sizeof at, path, np);
	if (by > 0)
		snprintf(move, sizeof move, "%s %s %lld", verb, at,
		    (long long)by);
	else
		snprintf(move, sizeof move, "%s %s", verb, at);
	r = dojo_env_follow(env, *state, move, &k);
	if (r == DOJO_DONE) {
		*state = k;
		if (text)
			snprintf(text + strlen(text), len - strlen(text),
			    "%s%s", *text ? "; " : "", move);
	}
	return r;
}

/* The outer scope "node" at "path" ("np" deep) that cannot go on
 * threads, its only child scope split in as many blocks as the run has
 * threads, the blocks swapped outward and on threads, into "out": where
 * the child indexes the contiguous rows that the outer scope walks
 * (y[{1}] += A[{0}, {1}] * x[{0}], the rows of A outermost), swapped
 * whole it strides them; in blocks, each thread reads its half of every
 * row.  DOJO_DONE, another result when there is none. */
static enum dojo_result
split_outward(dojo_env *env, int state, int *path, int np, dojo_node *node,
    struct dojo_tile *out)
{
	int threads = dojo_env_threads(env), s = state;
	dojo_node *child;
	int64_t size;
	enum dojo_result r;

	if (dojo_node_n_children(node) != 1 ||
	    dojo_node_kind(dojo_node_child(node, 0)) != DOJO_SCOPE)
		return DOJO_REFUSED;
	child = dojo_node_child(node, 0);
	size = dojo_node_size(child);
	if (dojo_node_flag(child) || size % threads || size / threads < 16)
		return DOJO_REFUSED;
	path[np] = 0;
	out->text[0] = '\0';
	r = follow_at(env, &s, "split", path, np + 1, size / threads,
	    out->text, sizeof out->text);
	if (r == DOJO_DONE)
		r = follow_at(env, &s, "swap", path, np, 0, out->text,
		    sizeof out->text);
	if (r == DOJO_DONE)
		r = follow_at(env, &s, "parallelize", path, np, 0, out->text,
		    sizeof out->text);
	if (r == DOJO_DONE)
		out->state = s;
	return r;
}

/* The outer scopes that cannot go on threads where they are (a
 * reduction outermost: C += A[k, i] * B[k, j] with k first) but whose
 * only child scope, or its only child, can once swapped outward: the
 * swaps and the parallelize as one candidate each, at most "max" into
 * "out" (each alone is no gain a climb would take: the swap moves the
 * reduction inward, and only then are the rows free to split among the
 * threads).  Their count, or -1. */
static int
outer_swaps(dojo_env *env, int state, struct dojo_tile *out, int max)
{
	dojo_program *prog = dojo_env_program(env, state);
	dojo_node *node, *inner;
	int path[DOJO_MAX_DEPTH], threads = dojo_env_threads(env);
	int i, d, j, n = 0, np, s;
	enum dojo_result r;

	if (!prog || threads < 2)
		return 0;
	for (i = 0; i < dojo_program_n_children(prog) && n < max; i++) {
		node = dojo_program_child(prog, i);
		path[0] = i;
		np = 1;
		/* below scopes of one iteration (a batch of one) */
		while (dojo_node_kind(node) == DOJO_SCOPE &&
		    dojo_node_size(node) == 1 && dojo_node_n_children(node) == 1 &&
		    np < DOJO_MAX_DEPTH - 3) {
			node = dojo_node_child(node, 0);
			path[np++] = 0;
		}
		if (dojo_node_kind(node) != DOJO_SCOPE || has_parallel(node))
			continue;
		s = state;
		r = follow_at(env, &s, "parallelize", path, np, 0, NULL, 0);
		if (r == DOJO_FAILED)
			return -1;
		if (r == DOJO_DONE)
			continue;	/* one of the plain children */
		/* the scope "d" levels down a chain of only children */
		inner = node;
		for (d = 1; d <= 2 && n < max; d++) {
			if (dojo_node_n_children(inner) != 1 ||
			    dojo_node_kind(dojo_node_child(inner, 0)) !=
			    DOJO_SCOPE)
				break;
			inner = dojo_node_child(inner, 0);
			if (dojo_node_size(inner) < threads)
				continue;
			s = state;
			out[n].text[0] = '\0';
			r = DOJO_DONE;
			for (j = d - 1; j >= 0 && r == DOJO_DONE; j--) {
				path[np + j] = 0;
				r = follow_at(env, &s, "swap", path, np + j, 0,
				    out[n].text, sizeof out[n].text);
			}
			if (r == DOJO_DONE)
				r = follow_at(env, &s, "parallelize", path,
				    np, 0, out[n].text, sizeof out[n].text);
			if (r == DOJO_FAILED)
				return -1;
			if (r == DOJO_DONE)
				out[n++].state = s;
		}
		if (n < max && (r = split_outward(env, state, path, np,
		    node, &out[n])) == DOJO_FAILED)
			return -1;
		n += n < max && r == DOJO_DONE;
	}
	return n;
}

/* Whether the access "acc" (under "depth" scopes) reads or writes
 * contiguous elements along the scope at depth "v": its iterator in no
 * index but the last, there with coefficient 1. */
static bool
contiguous(const dojo_access *acc, int v)
{
	int depth[DOJO_MAX_DEPTH], n, i, t, nidx = dojo_access_n_indices(acc);
	int64_t coef[DOJO_MAX_DEPTH], c;

	for (i = 0; i < nidx; i++) {
		n = dojo_access_index(acc, i, &c, depth, coef);
		for (t = 0; t < n; t++)
			if (depth[t] == v && coef[t] != 0 &&
			    (i != nidx - 1 || coef[t] != 1))
				return false;
	}
	return true;
}

/* Whether every access of "e" is contiguous along depth "v". */
static bool
expr_contiguous(const dojo_expr *e, int v)
{
	int i;

	switch (dojo_expr_kind(e)) {
	case DOJO_E_NUM:
		return true;
	case DOJO_E_ACCESS:
		return contiguous(dojo_expr_access(e), v);
	default:
		for (i = 0; i < 2 && dojo_expr_arg(e, i); i++)
			if (!expr_contiguous(dojo_expr_arg(e, i), v))
				return false;
		return true;
	}
}

/* Of the subtree "node" (at depth "d", run "times" times, under a
 * vector scope at depth "v", the innermost; -1: none): the executions
 * of its operations into "*all", and into "*gathered" those of the
 * operations that read or write along the vector elements that are not
 * contiguous, each a gather or a scatter, a load a lane, slower than
 * the scalar loop it replaces. */
static void
gathers(dojo_node *node, int d, int v, double times, double *all,
    double *gathered)
{
	int i;

	if (dojo_node_kind(node) == DOJO_OP) {
		*all += times;
		if (v >= 0 && (!contiguous(dojo_op_lhs(node), v) ||
		    !expr_contiguous(dojo_op_rhs(node), v)))
			*gathered += times;
		return;
	}
	if (dojo_node_kind(node) != DOJO_SCOPE)
		return;
	if (dojo_node_flag(node) == DOJO_FLAG_VECTOR)
		v = d;
	times *= (double)dojo_node_size(node);
	for (i = 0; i < dojo_node_n_children(node); i++)
		gathers(dojo_node_child(node, i), d + 1, v, times, all,
		    gathered);
}

/* The share of the executions of the operations of the kernel at
 * "state" that gather (gathers()); 0 when its program cannot be had. */
static double
state_gathers(dojo_env *env, int state)
{
	dojo_program *prog = dojo_env_program(env, state);
	double all = 0, gathered = 0;
	int i;

	for (i = 0; prog && i < dojo_program_n_children(prog); i++)
		gathers(dojo_program_child(prog, i), 0, -1, 1, &all,
		    &gathered);
	return all > 0 ? gathered / all : 0;
}

/* Whether "a", legal at "state", vectorizes an innermost scope (one that
 * holds operations only) along which every access is contiguous: the
 * move a person makes first on a softmax's rows or an elementwise loop,
 * which pays on nearly every kernel that has one; a climb measures these
 * right after the outer scopes and the tiles. */
static bool
inner_vector(dojo_env *env, int state, const struct dojo_action *a)
{
	dojo_program *prog;
	dojo_node *node, *op;
	int i;

	if (strcmp(dojo_move_name(dojo_action_move_index(a)), "vectorize"))
		return false;
	prog = dojo_env_program(env, state);
	node = prog ? dojo_program_lookup(prog, a->path, a->npath) : NULL;
	if (!node || dojo_node_kind(node) != DOJO_SCOPE ||
	    dojo_node_flag(node) != 0)
		return false;
	for (i = 0; i < dojo_node_n_children(node); i++) {
		op = dojo_node_child(node, i);
		if (dojo_node_kind(op) != DOJO_OP ||
		    !contiguous(dojo_op_lhs(op), a->npath - 1) ||
		    !expr_contiguous(dojo_op_rhs(op), a->npath - 1))
			return false;
	}
	return true;
}

/* Whether an index of "acc" has a term in the iterator at depth "v". */
static bool
uses_depth(const dojo_access *acc, int v)
{
	int depth[DOJO_MAX_DEPTH], n, i, t;
	int64_t coef[DOJO_MAX_DEPTH], c;

	for (i = 0; i < dojo_access_n_indices(acc); i++) {
		n = dojo_access_index(acc, i, &c, depth, coef);
		for (t = 0; t < n; t++)
			if (depth[t] == v && coef[t] != 0)
				return true;
	}
	return false;
}

/* Whether some access of "e" to array "a" has a term in depth "v". */
static bool
expr_uses(const dojo_expr *e, int a, int v)
{
	int i;

	switch (dojo_expr_kind(e)) {
	case DOJO_E_NUM:
		return false;
	case DOJO_E_ACCESS:
		return dojo_access_array(dojo_expr_access(e)) == a &&
		    uses_depth(dojo_expr_access(e), v);
	default:
		for (i = 0; i < 2 && dojo_expr_arg(e, i); i++)
			if (expr_uses(dojo_expr_arg(e, i), a, v))
				return true;
		return false;
	}
}

/* Of the subtree "node": whether an operation writes array "a" (into
 * "*writes") and whether an access to "a" moves with the iterator at
 * depth "v" (the return value). */
static bool
moves_with(dojo_node *node, int a, int v, bool *writes)
{
	const dojo_access *lhs;
	int i;

	if (dojo_node_kind(node) == DOJO_OP) {
		lhs = dojo_op_lhs(node);
		if (dojo_access_array(lhs) == a) {
			*writes = true;
			if (uses_depth(lhs, v))
				return true;
		}
		return expr_uses(dojo_op_rhs(node), a, v);
	}
	for (i = 0; i < dojo_node_n_children(node); i++)
		if (moves_with(dojo_node_child(node, i), a, v, writes))
			return true;
	return false;
}

/* Whether a scope child of "node" (at depth "v") writes array "a" and
 * touches the same elements of it at each of its iterations: a
 * reduction into "a" directly inside "node". */
static bool
reduces_in(dojo_node *node, int a, int v)
{
	dojo_node *c;
	bool writes;
	int i;

	for (i = 0; i < dojo_node_n_children(node); i++) {
		c = dojo_node_child(node, i);
		writes = false;
		if (dojo_node_kind(c) == DOJO_SCOPE &&
		    !moves_with(c, a, v + 1, &writes) && writes)
			return true;
	}
	return false;
}

/* Whether "a", legal at "state" to child "child", copies into a local
 * temporary (cache, stack or reg) a box of an array in memory that the
 * scope it names writes and either touches again at every iteration
 * (the scope's iterator in none of the array's indices there) or
 * reduces into in a scope directly inside, a box of at most
 * LOCAL_BYTES: the accumulators of a reduction that runs outside the
 * output's loop, such as the column sums of a matrix read row by row,
 * or the row of outputs that a reduction inside fills (the columns a
 * register tile leaves over, 11 of 75: their row in a local made the
 * whole product 1.9x faster, one accumulator at a time 1.3x), which
 * the compiler then keeps aligned, apart from every other array and in
 * the L1 cache or registers.  A climb measures these after
 * the contiguous vectorizations and the pads. */
static bool
local_reuse(dojo_env *env, int state, int child,
    const struct dojo_action *a)
{
	dojo_program *prog, *cp;
	dojo_node *node;
	int arr, b;
	bool writes = false;
	uint64_t bytes;

	if (strcmp(dojo_move_name(dojo_action_move_index(a)), "cache") ||
	    a->npath < 1)
		return false;
	prog = dojo_env_program(env, state);
	cp = dojo_env_program(env, child);
	node = prog ? dojo_program_lookup(prog, a->path, a->npath) : NULL;
	arr = prog ? dojo_program_find_array(prog, a->array) : -1;
	if (!node || !cp || arr < 0 || dojo_node_kind(node) != DOJO_SCOPE ||
	    dojo_buffer_loc(prog, dojo_array_buffer(prog, arr)) !=
	    DOJO_HEAP)
		return false;
	if ((moves_with(node, arr, a->npath - 1, &writes) || !writes) &&
	    !reduces_in(node, arr, a->npath - 1))
		return false;
	/* the copy: the buffer the cache declared last */
	b = dojo_program_n_buffers(cp) - 1;
	if (b < dojo_program_n_buffers(prog))
		return false;
	bytes = dojo_buffer_elements(cp, b) *
	    dojo_dtype_size(dojo_buffer_dtype(cp, b));
	return bytes <= LOCAL_BYTES;
}

/* The move "name" in the table (its kind), -1 if none. */
static int
move_kind(const char *name)
{
	int i;

	for (i = 0; i < dojo_move_count(); i++)
		if (strcmp(dojo_move_name(i), name) == 0)
			return i < TILE ? i : TILE - 1;
	return -1;
}

/* The tiles of the climb "c" (its children from "n" on) and its
 * vectorizes whose gathers (gathers()) are an eighth of the kernel's
 * executions more than at "state": HINT_GATHER, measured after the
 * others of their group.  On a sum of squared differences (D[i, j] +=
 * (P[i, k] - Q[j, k])^2), the tiles whose vector runs along j read Q a
 * row a lane, 2x the start, where the same tiles with Q packed were 16x
 * (the packing's copy gathers too, once per element of Q); a climb
 * that measured eight of the first kind never measured a tile again. */
static void
mark_gathers(dojo_env *env, int state, struct climb *c, int n)
{
	int i, vec = move_kind("vectorize");
	double here = -1;

	for (i = 0; i < c->n; i++) {
		if (c->hint[i] || (i < n && c->kind[i] != vec))
			continue;
		if (here < 0)
			here = state_gathers(env, state);
		if (state_gathers(env, c->state[i]) > here + 0.125)
			c->hint[i] = HINT_GATHER;
	}
}

/* The children of the current state, and its tiles.  0 or -1. */
static int
climb_init(struct greedy *g, dojo_env *env, struct climb *c)
{
	const struct dojo_action *actions;
	const int *children;
	struct dojo_tile tiles[MAX_TILES + MAX_SWAPS];
	char text[256];
	int n, nt, no, i, size, pad = move_kind("pad");

	memset(c, 0, sizeof *c);
	n = dojo_env_expand(env, g->cur, &actions, &children);
	if (n < 0)
		return -1;
	nt = dojo_agent_tiles(env, g->cur, tiles, MAX_TILES);
	if (nt < 0)
		return -1;
	no = outer_swaps(env, g->cur, tiles + nt, MAX_TILES + MAX_SWAPS - nt);
	if (no < 0)
		return -1;
	size = n + nt + no ? n + nt + no : 1;
	c->state = malloc(size * sizeof *c->state);
	c->text = calloc(size, sizeof *c->text);
	c->kind = malloc(size * sizeof *c->kind);
	c->hint = calloc(size, 1);
	c->order = malloc(size * sizeof *c->order);
	c->known = malloc(size * sizeof *c->known);
	if (!c->state || !c->text || !c->kind || !c->hint || !c->order ||
	    !c->known)
		return dojo_error_set("out of memory");
	for (i = 0; i < n + nt + no; i++) {
		if (i >= n + nt) {
			c->state[i] = tiles[i - n].state;
			c->kind[i] = move_kind("parallelize");
			c->hint[i] = HINT_OUTER;
			c->text[i] = strdup(tiles[i - n].text);
		} else if (i < n) {
			dojo_action_format(text, sizeof text, &actions[i]);
			c->state[i] = children[i];
			c->kind[i] = dojo_action_move_index(&actions[i]);
			if (c->kind[i] >= TILE)
				c->kind[i] = TILE - 1;
			c->hint[i] = outer_parallel(env, g->cur, &actions[i]) ?
			    HINT_OUTER : inner_vector(env, g->cur, &actions[i]) ?
			    HINT_INNER : local_reuse(env, g->cur, children[i],
			    &actions[i]) ? HINT_LOCAL : c->kind[i] == pad ?
			    HINT_LAYOUT : 0;
			c->text[i] = strdup(text);
		} else {
			c->state[i] = tiles[i - n].state;
			c->kind[i] = TILE;
			c->hint[i] = tiles[i - n].block ? HINT_BLOCK : 0;
			c->text[i] = strdup(tiles[i - n].text);
		}
		if (!c->text[i])
			return dojo_error_set("out of memory");
		c->n++;
	}
	mark_gathers(env, g->cur, c, n);
	return 0;
}

/* Measure the children order[from .. to - 1] (compiled ahead), keeping
 * the best; their gains remembered.  0, 1
 * (budget spent) or -1. */
static int
measure_children(struct greedy *g, dojo_env *env, struct climb *c,
    int from, int to)
{
	int *states, i, k, rc = 0;
	double r;

	/* nothing compiled ahead either once the search's time is over
	 * (conv2d's batches, compiled and never measured, took 440 s past
	 * a limit of 120) */
	if (to <= from || searched(g, env))
		return 0;
	states = calloc((size_t)(to - from), sizeof *states);
	if (!states)
		return dojo_error_set("out of memory");
	for (i = from; i < to; i++)
		states[i - from] = c->state[c->order[i]];
	rc = dojo_env_prepare(env, states, to - from);
	free(states);
	for (i = from; rc == 0 && i < to; i++) {
		static const char *const why[] = {
			"gained", "outer", "tile", "inner", "block", "layout",
			"local", "enabled", "other", "model"
		};
		int used = dojo_env_used(env), x = c->order[i];

		/* auto's share of the time for the search is over: the
		 * rest is the settling's (a batch and its checks took up
		 * to a fifth of 240 s on batched_matmul) */
		if (searched(g, env))
			break;
		k = c->state[x];
		dojo_env_note(env, k, why[c->group[x]], c->pred[x]);
		rc = dojo_env_evaluate(env, k, &r);
		if (rc != 0)
			break;
		if (g->mq && dojo_maxq_observe(g->mq, env, k,
		    dojo_env_used(env) > used, g->learn) < 0)
			return -1;
		if (set_gain(g, c->text[c->order[i]], dojo_env_failed(env, k) ?
		    -INFINITY : r - c->cr) < 0)
			return -1;
		kind_count(g, c->kind[c->order[i]],
		    !dojo_env_failed(env, k) && r > c->cr + MIN_GAIN);
		if (c->hint[x] == HINT_LOCAL) {
			g->local_tried++;
			g->local_gained += !dojo_env_failed(env, k) &&
			    r > c->cr + MIN_GAIN;
		}
		if (dojo_env_failed(env, k))
			continue;
		if (r > c->bestr) {
			c->bestr = r;
			c->best = k;
		}
	}
	return rc;
}

/* The best child of the climb measured and not yet compared with the
 * current state, whose reward is above "floor": into c->best and
 * c->bestr (-1: none). */
static void
next_best(struct greedy *g, dojo_env *env, struct climb *c, double floor)
{
	int i, k;
	double r;

	c->best = -1;
	c->bestr = floor;
	for (i = 0; i < c->n; i++) {
		k = c->state[i];
		if (!dojo_env_measured(env, k) || dojo_env_failed(env, k) ||
		    dojo_env_held(env, k, NULL) == g->cur)
			continue;
		r = dojo_env_reward(env, k);
		if (r > c->bestr) {
			c->bestr = r;
			c->best = k;
		}
	}
}

/* Two children that both held their gains timed against each other
 * (dojo_env_duel: on what they do apart, else whole): each was timed
 * against the current state, and when that is far slower (the start is
 * the naive kernel, 30-300 times slower) its own spread between the two
 * checks moves their paired values by more than what parts them: on
 * batched_matmul a fused tile and an isolated one held 37.8x and 49.0x.
 * 3 pairs, 9 when "state" looks ahead but its interval is not above 1.
 * 2 when "state" is faster (its interval above 1), 0 when not, 1 when
 * nothing was timed (the paired values decide); -1 on an error. */
static int
rival(dojo_env *env, int state, int chosen)
{
	struct dojo_measure_ratio r;
	int rc = dojo_env_duel(env, state, chosen, HOLD_PAIRS, &r);

	if (rc == 0 && r.speedup > 1 && r.low <= 1)
		rc = dojo_env_duel(env, state, chosen, 3 * HOLD_PAIRS, &r);
	if (rc != 0)
		return rc;
	return r.low > 1 && r.speedup > 1 ? 2 : 0;
}

/* Whether the climb's best child holds its gain: its first look is one
 * run against another, and on a shared machine that noise alone can be
 * tens of percent (a neighbour on the core's other hardware thread:
 * doc/evaluation.md), so the two are timed in alternate pairs
 * (dojo_env_compare) before every climb.  A gain
 * whose interval is not above 1 is refuted: the child's reward (and its
 * move's gain) becomes the paired value, and the best of the other
 * children measured is checked next, HOLD_TRIES a step at most (then
 * none is climbed to).  A gain that holds is not climbed to at once:
 * the next best first look that beat the current state is timed in
 * pairs too (HOLD_RIVALS held at most), and the climb goes to the held
 * child of the best paired value, since a first look that is the
 * second best may be the best child (a first look lifted by a quiet
 * moment of the machine beats one taken in a busy moment).  Without
 * pairs (a cost function, training, the time limit), the first look
 * decides.  0 or -1. */
static int
hold(struct greedy *g, dojo_env *env, struct climb *c)
{
	struct dojo_measure_ratio ratio;
	int tries = 0, held = 0, chosen = -1, x, i, rc;
	double floor = c->cr + MIN_GAIN, best = -INFINITY;

	while (c->best >= 0 && tries++ < HOLD_TRIES) {
		rc = dojo_env_compare(env, c->best, g->cur, HOLD_PAIRS,
		    &ratio);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			if (chosen < 0)
				return 0;	/* the first look decides */
			break;
		}
		if (ratio.low > 1) {
			rc = chosen < 0 ? 1 : rival(env, c->best, chosen);
			if (rc < 0)
				return -1;
			if (chosen < 0 || (rc == 2 || (rc == 1 &&
			    dojo_env_reward(env, c->best) > best))) {
				best = dojo_env_reward(env, c->best);
				chosen = c->best;
			}
			if (++held == HOLD_RIVALS)
				break;
		} else {
			for (i = 0, x = -1; i < c->n; i++)
				if (c->state[i] == c->best)
					x = i;
			if (x >= 0 && set_gain(g, c->text[x],
			    dojo_env_reward(env, c->best) - c->cr) < 0)
				return -1;
		}
		/* the best of the others measured, none compared yet */
		next_best(g, env, c, floor);
	}
	c->best = chosen;
	c->bestr = chosen >= 0 ? best : floor;
	return 0;
}

/* When the climb chose a tile: the other tiles measured whose first
 * looks are close to its value (DUEL_RANGE; DUEL_RIVALS of them, best
 * first) are timed against it on what they do apart (dojo_env_duel:
 * the nests the two share left out), and one whose interval there is
 * above 1 takes its place.  Two tiles of one nest are as far apart as
 * their nest's share of the time lets them be: on the perceptron, two
 * tiles of the second layer 20% apart were a few percent apart whole
 * while the first layer was naive, and the first look chose the one
 * that sweeps all of W2 for every block of rows (doc/agents.md).  0 or
 * -1. */
static int
duel(dojo_env *env, struct climb *c)
{
	struct dojo_measure_ratio ratio;
	int rival[DUEL_RIVALS], n = 0, i, j, k, x = -1, rc;
	double floor;

	for (i = 0; i < c->n; i++)
		if (c->state[i] == c->best)
			x = i;
	if (x < 0 || c->kind[x] != TILE)
		return 0;
	floor = c->bestr - DUEL_RANGE;
	/* the rivals, the best first looks first */
	for (n = 0; n < DUEL_RIVALS; n++) {
		rival[n] = -1;
		for (i = 0; i < c->n; i++) {
			k = c->state[i];
			if (c->kind[i] != TILE || k == c->best ||
			    !dojo_env_measured(env, k) ||
			    dojo_env_failed(env, k) ||
			    dojo_env_reward(env, k) <= floor)
				continue;
			for (j = 0; j < n && rival[j] != k; j++)
				;
			if (j == n && (rival[n] < 0 || dojo_env_reward(env, k) >
			    dojo_env_reward(env, rival[n])))
				rival[n] = k;
		}
		if (rival[n] < 0)
			break;
	}
	for (i = 0; i < n; i++) {
		rc = dojo_env_duel(env, rival[i], c->best, HOLD_PAIRS, &ratio);
		if (rc < 0)
			return -1;
		if (rc == 0 && ratio.low > 1) {
			c->best = rival[i];
			c->bestr = dojo_env_reward(env, rival[i]);
		}
	}
	return 0;
}

/* After a batch: whether a child holds its gain (hold()), then, for a
 * tile, its rivals (duel()).  0 or -1. */
static int
decide(struct greedy *g, dojo_env *env, struct climb *c)
{
	int rc = hold(g, env, c);

	if (rc == 0 && c->best >= 0)
		rc = duel(env, c);
	return rc;
}

/* auto: the model's value of each child into "key" (a tile valued as
 * its last move).  0 or -1. */
static int
model_keys(struct greedy *g, dojo_env *env, struct climb *c, double *key)
{
	const struct dojo_action *actions;
	const int *children;
	int n, i;

	n = dojo_env_expand(env, g->cur, &actions, &children);
	if (n < 0 || dojo_maxq_scores(g->mq, env, g->cur, key, n) < 0)
		return -1;
	for (i = n; i < c->n; i++)
		if (dojo_maxq_tile_score(g->mq, env, c->state[i],
		    &key[i]) < 0)
			return -1;
	return 0;
}

/* Whether child "x" comes before child "y": by group, then by key,
 * largest first. */
static bool
before(const int *group, const double *key, int x, int y)
{
	if (group[x] != group[y])
		return group[x] < group[y];
	return key[x] > key[y];
}

/* A stable sort of "order" (a seeded shuffle: equals stay in a random
 * order) by group and key. */
static void
sort_children(int *order, int n, const int *group, const double *key)
{
	int i, j, x;

	for (i = 1; i < n; i++) {
		x = order[i];
		for (j = i; j > 0 && before(group, key, x, order[j - 1]); j--)
			order[j] = order[j - 1];
		order[j] = x;
	}
}

/* auto: the model's order "model" and greedy's "mine" taken in turn,
 * each child once, after the children that gained before (first in
 * both); those the model's order brought are of group MODEL. */
static void
merge_orders(struct climb *c, const int *model, const int *mine,
    unsigned char *taken)
{
	int i, a = 0, b = 0, x;

	for (i = 0; i < c->n; i++) {
		const int *from = i < c->promising ||
		    (i - c->promising) % 2 == 0 ? model : mine;
		int *at = from == model ? &a : &b;

		while (taken[from[*at]])
			(*at)++;
		x = from[(*at)++];
		taken[x] = 1;
		c->order[i] = x;
		if (from == model && c->group[x] != 0)
			c->group[x] = MODEL;
	}
}

/* The children by actions that gained before first, best gain first;
 * then parallelize of the outer scopes (outer_parallel), unless
 * measured OUTER_TRIES times and never gained (a few moves, each the
 * largest gain of a run on threads: after the tiles, mlp's climbs at 2
 * threads spent 29 measurements on tiles and never timed one); then the
 * tiles, unless tiles were measured TILE_TRIES times and never gained;
 * then the contiguous
 * innermost vectors (inner_vector), the blocks of a transpose (tiles
 * too), the pads of rows and the local
 * copies of outputs (local_reuse), each until measured a few times
 * without a gain; then those by actions
 * that the last move enabled (not legal at
 * the parent "prev"); then the others.  Each group after the first is in
 * a seeded random order, sorted by how often its move gained
 * (kind_rate); in every group the children that gather
 * (mark_gathers()) come last.  With a model (auto), that order and the
 * model's take
 * turns: the model's best guess, greedy's next, and so on, so that a
 * model that is wrong about a kernel costs at most half the batches. */
static int
order_children(struct greedy *g, dojo_env *env, struct climb *c,
    const struct texts *prev)
{
	struct gain *k;
	size_t n = c->n ? c->n : 1;
	int *group = malloc(n * sizeof *group);
	int *mgroup = NULL, *model = NULL, *mine = NULL, i, rc = -1;
	double *mkey = NULL;
	unsigned char *taken = NULL;
	bool tiles = g->gained[TILE] > 0 || g->tried[TILE] < TILE_TRIES;
	int par = move_kind("parallelize");
	bool outer = par >= 0 && (g->gained[par] > 0 ||
	    g->tried[par] < OUTER_TRIES);
	int vec = move_kind("vectorize");
	bool inner = vec >= 0 && (g->gained[vec] > 0 ||
	    g->tried[vec] < INNER_TRIES);
	int pad = move_kind("pad");
	bool layout = pad >= 0 && (g->gained[pad] > 0 ||
	    g->tried[pad] < LAYOUT_TRIES);
	bool local = g->local_gained > 0 || g->local_tried < LOCAL_TRIES;

	c->group = group;
	c->pred = malloc(n * sizeof *c->pred);
	if (!group || !c->pred)
		return dojo_error_set("out of memory");
	if (g->mq) {
		mgroup = malloc(n * sizeof *mgroup);
		model = malloc(n * sizeof *model);
		mine = malloc(n * sizeof *mine);
		mkey = malloc(n * sizeof *mkey);
		taken = calloc(n, 1);
		if (!mgroup || !model || !mine || !mkey || !taken) {
			dojo_error_set("out of memory");
			goto out;
		}
		if (model_keys(g, env, c, mkey) < 0)
			goto out;
	}
	c->promising = 0;
	for (i = 0; i < c->n; i++) {
		k = find_gain(g, c->text[i]);
		if (k && k->gain > MIN_GAIN) {
			group[i] = 0;
			c->known[i] = k->gain;
			c->pred[i] = exp(c->cr + k->gain);
			c->promising++;
		} else {
			if (c->hint[i] == HINT_OUTER && outer)
				group[i] = 1;
			else if (c->kind[i] == TILE && c->hint[i] !=
			    HINT_BLOCK && tiles)
				group[i] = 2;
			else if (c->hint[i] == HINT_INNER && inner)
				group[i] = 3;
			else if (c->hint[i] == HINT_BLOCK && tiles)
				group[i] = 4;
			else if (c->hint[i] == HINT_LAYOUT && layout)
				group[i] = 5;
			else if (c->hint[i] == HINT_LOCAL && local)
				group[i] = 6;
			else if (prev->n > 0 && !texts_have(prev, c->text[i]))
				group[i] = 7;
			else
				group[i] = 8;
			c->known[i] = kind_rate(g, c->kind[i]);
			c->pred[i] = g->mq ? exp(mkey[i]) : NAN;
		}
		if (g->mq) {
			/* the model's value, and what this kernel showed of
			 * the move's kind */
			mgroup[i] = group[i] == 0 ? 0 : 1;
			if (group[i] == 0)
				mkey[i] = c->known[i];
			else
				mkey[i] += MODEL_RATE * (kind_rate(g,
				    c->kind[i]) - 0.5);
		}
		if (group[i] != 0 && c->hint[i] == HINT_GATHER) {
			c->known[i] -= GATHER_COST;
			if (g->mq)
				mkey[i] -= GATHER_COST;
		}
	}
	for (i = 0; i < c->n; i++)
		c->order[i] = i;
	dojo_agent_shuffle(c->order, c->n, &g->rng);
	if (g->mq) {
		memcpy(model, c->order, c->n * sizeof *model);
		memcpy(mine, c->order, c->n * sizeof *mine);
		sort_children(model, c->n, mgroup, mkey);
		sort_children(mine, c->n, group, c->known);
		merge_orders(c, model, mine, taken);
	} else {
		sort_children(c->order, c->n, group, c->known);
	}
	rc = 0;
out:
	free(mgroup);
	free(model);
	free(mine);
	free(mkey);
	free(taken);
	return rc;
}

/* On a plateau: of the children measured at most SIDE_LOSS slower than
 * the current state and never climbed from, the one that enables the
 * most moves, the best measured among equals; -1 for none. */
static int
sideways_child(struct greedy *g, dojo_env *env, const struct climb *c)
{
	struct texts here;
	int i, k, e, side = -1, most = -1;
	double r, sider = -INFINITY;

	if (texts_of(env, g->cur, &here) < 0)
		return -2;
	for (i = 0; i < c->n; i++) {
		k = c->state[i];
		if (!dojo_env_measured(env, k) || dojo_env_failed(env, k) ||
		    dojo_state_set_has(&g->climbed, k))
			continue;
		r = dojo_env_reward(env, k);
		if (r <= c->cr - SIDE_LOSS)
			continue;
		e = enabled(env, k, &here);
		if (e < 0) {
			side = -2;
			break;
		}
		if (e > most || (e == most && r > sider)) {
			most = e;
			sider = r;
			side = k;
		}
	}
	texts_release(&here);
	return side;
}

/* The search is over: auto settles its best state (dojo_env_settle),
 * once.  1, or -1. */
static int
finish(struct greedy *g, dojo_env *env)
{
	int settled;

	if (g->settle) {
		g->settle = false;
		if (dojo_env_settle(env, SETTLE, &settled) < 0)
			return -1;
	}
	return 1;
}

static int
greedy_step(void *self, dojo_env *env)
{
	struct greedy *g = self;
	struct texts prev = { NULL, 0 };
	struct climb c;
	int used = dojo_env_used(env), rc, i, to, side;

	/* auto keeps the last fifth of a time limit for settling */
	if (dojo_env_spent(env) || g->idle > 1000 || searched(g, env))
		return finish(g, env);
	if (dojo_state_set_add(&g->climbed, g->cur) < 0)
		return -1;
	if (texts_of(env, dojo_env_parent(env, g->cur), &prev) < 0)
		return -1;
	if (climb_init(g, env, &c) < 0) {
		rc = -1;
		goto out;
	}
	c.cr = dojo_env_reward(env, g->cur);
	if (order_children(g, env, &c, &prev) < 0) {
		rc = -1;
		goto out;
	}
	c.bestr = c.cr + MIN_GAIN;
	c.best = -1;
	rc = measure_children(g, env, &c, 0, c.promising);
	if (rc == 0)
		rc = decide(g, env, &c);
	for (i = c.promising; rc == 0 && c.best < 0 && i < c.n;
	    i += g->batch) {
		to = i + g->batch < c.n ? i + g->batch : c.n;
		rc = measure_children(g, env, &c, i, to);
		if (rc == 0)
			rc = decide(g, env, &c);
	}
	if (rc < 0)
		goto out;
	rc = 0;
	if (c.best >= 0) {
		g->cur = c.best;
		g->sideways = 0;
	} else if (g->sideways < SIDEWAYS &&
	    (side = sideways_child(g, env, &c)) != -1) {
		if (side < -1) {
			rc = -1;
			goto out;
		}
		g->cur = side;
		g->sideways++;
	} else if (!dojo_env_spent(env))
		rc = restart(g, env);
	g->idle = dojo_env_used(env) > used ? 0 : g->idle + 1;
out:
	texts_release(&prev);
	climb_release(&c);
	return rc < 0 ? -1 : 0;
}

static int
greedy_score(void *self, dojo_env *env, int state, double *scores, int n)
{
	const struct dojo_action *actions;
	const int *children;
	int i, rc;

	(void)self;
	if (dojo_env_expand(env, state, &actions, &children) < 0)
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

	dojo_maxq_free(g->mq);
	for (i = 0; i < g->ngains; i++)
		free(g->gains[i].action);
	free(g->gains);
	dojo_state_set_release(&g->climbed);
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

/* auto: greedy's climbs, the children ranked by a model (the shipped one
 * unless --model says otherwise) that learns from every measurement, and
 * the finalists timed against each other at the end. */
static void *
auto_new(dojo_env *env, const struct dojo_agent_options *opt)
{
	struct dojo_maxq_options mo;
	struct greedy *g = greedy_new(env, opt);

	if (!g)
		return NULL;
	g->settle = true;
	g->learn = opt->learn;
	if (opt->model) {
		dojo_maxq_options_from(&mo, opt);
		g->mq = dojo_maxq_new(&mo);
		if (!g->mq) {
			greedy_free(g);
			return NULL;
		}
		/* ranked children: fewer measured before a decision */
		g->batch = dojo_env_budget(env) / 20;
		if (g->batch > MODEL_BATCH || dojo_env_budget(env) == 0)
			g->batch = MODEL_BATCH;
		if (g->batch < 6)
			g->batch = 6;
	}
	return g;
}

static int
auto_score(void *self, dojo_env *env, int state, double *scores, int n)
{
	struct greedy *g = self;

	if (!g->mq)
		return greedy_score(self, env, state, scores, n);
	return dojo_maxq_scores(g->mq, env, state, scores, n);
}

static int
auto_save(void *self, const char *path)
{
	struct greedy *g = self;

	if (!g->mq)
		return dojo_error_set("%s: auto played without a model",
		    path);
	return dojo_maxq_save(g->mq, path);
}

const struct dojo_agent dojo_agent_auto = {
	.name = "auto",
	.help = "the default: greedy's climbs with the children ranked by "
	    "a model that learns as it measures, the finalists timed "
	    "against each other",
	.new = auto_new,
	.step = greedy_step,
	.score = auto_score,
	.save = auto_save,
	.free = greedy_free,
};
