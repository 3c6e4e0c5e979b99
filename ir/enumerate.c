/* enumerate.c: the action set, every candidate action in a stable order
 * (doc/moves.md, The action set) */
#include "config.h"
#include "ir/moves.h"

#include <stdlib.h>
#include <string.h>

#include "ir/moves_private.h"

struct list_ctx {
	dojo_legality *mv;
	dojo_action_fn fn;
	void *payload;
	bool legal_only;
};

/* Offer "a" to the callback, when legal_only only if it is legal; the
 * reason of a refusal is not wanted then (quiet). */
static int
offer(struct list_ctx *c, const struct dojo_action *a)
{
	enum dojo_result r = DOJO_DONE;
	bool was = quiet;

	if (c->legal_only) {
		quiet = true;
		r = dojo_legality_check(c->mv, a);
		quiet = was;
	}
	switch (r) {
	case DOJO_FAILED:
		return -1;
	case DOJO_REFUSED:
		return 0;
	case DOJO_DONE:
		break;
	}
	return c->fn(a, c->payload);
}

/* Fill the integer arguments from "i" on, then offer. */
static int
offer_numbers(struct list_ctx *c, struct dojo_action *a, int i, int nints)
{
	int64_t vals[256];
	int n, k, r;

	if (i == nints) {
		a->nnum = nints;
		return offer(c, a);
	}
	if (!a->move->values)
		return 0;
	n = a->move->values(c->mv, a, i, vals, 256);
	for (k = 0; k < n; k++) {
		a->num[i] = vals[k];
		if ((r = offer_numbers(c, a, i + 1, nints)) != 0)
			return r;
	}
	return 0;
}

static int
count_ints(const char *args)
{
	int n = 0;

	for (; *args; args++)
		n += *args >= 'a' && *args <= 'z';
	return n;
}

/* The order of "nd" dimensions that moves dimension "d" last, the others
 * keeping theirs, into "q". */
static void
moved_last(int *q, int nd, int d)
{
	int j;

	for (j = 0; j < nd - 1; j++)
		q[j] = j < d ? j : j + 1;
	q[nd - 1] = d;
}

/* The orders of buffer "b" that its move's values name: each value d
 * moves dimension d last, the others keeping their order. */
static int
offer_orders(struct list_ctx *c, struct dojo_action *a, int b)
{
	int64_t vals[DOJO_MAX_DIMS];
	int nd = c->mv->prog->decls->buf[b].ndim, n, k, r;

	if (!a->move->values)
		return 0;
	n = a->move->values(c->mv, a, 0, vals, DOJO_MAX_DIMS);
	a->nperm = nd;
	for (k = 0; k < n; k++) {
		moved_last(a->perm, nd, (int)vals[k]);
		if ((r = offer(c, a)) != 0)
			return r;
	}
	return 0;
}

static int
offer_names(struct list_ctx *c, struct dojo_action *a)
{
	dojo_program *prog = c->mv->prog;
	const char *args = a->move->args;
	int nints = count_ints(args), i, j, r;

	if (strchr(args, 'B') && strchr(args, 'A')) {
		for (i = 0; i < prog->decls->nbuf; i++) {
			if (prog->decls->buf[i].role != DOJO_TEMP)
				continue;
			strcpy(a->buffer, prog->decls->buf[i].name);
			for (j = 0; j < prog->decls->narr; j++) {
				if (prog->decls->arr[j].buffer == i ||
				    prog->decls->buf[prog->decls->arr[j].buffer].role
				    != DOJO_TEMP)
					continue;
				strcpy(a->array, prog->decls->arr[j].name);
				if ((r = offer(c, a)) != 0)
					return r;
			}
		}
		return 0;
	}
	if (strchr(args, 'B')) {
		for (i = 0; i < prog->decls->nbuf; i++) {
			if (prog->decls->buf[i].role != DOJO_TEMP)
				continue;
			strcpy(a->buffer, prog->decls->buf[i].name);
			if (strchr(args, 'P')) {
				if ((r = offer_orders(c, a, i)) != 0)
					return r;
			} else if (strchr(args, 'L')) {
				for (j = 0; j < 4; j++) {
					a->loc = j;
					if ((r = offer(c, a)) != 0)
						return r;
				}
			} else if ((r = offer_numbers(c, a, 0, nints)) != 0) {
				return r;
			}
		}
		return 0;
	}
	if (strchr(args, 'P')) {
		for (i = 0; i < prog->decls->narr; i++) {
			int nd = prog->decls->buf[prog->decls->arr[i].buffer].ndim;
			int k, np, q[DOJO_MAX_DIMS];

			strcpy(a->array, prog->decls->arr[i].name);
			a->nperm = nd;
			/* every order of up to 3 dimensions; else identity,
			 * reversed, and each dimension but the last moved
			 * last (a vector along it: the weights of a
			 * convolution, [o, c, r, s] as [c, r, s, o]) */
			np = nd == 1 ? 1 : nd == 2 ? 2 : nd == 3 ? 6 : nd + 1;
			for (j = 0; j < np; j++) {
				for (k = 0; k < nd; k++)
					q[k] = nd > 3 && j == 1 ? nd - 1 - k : k;
				if (nd > 3 && j >= 2)
					moved_last(q, nd, j - 2);
				if (nd == 2 && j)
					q[0] = 1, q[1] = 0;
				if (nd == 3) {
					static const int p3[6][3] = {
						{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
						{ 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }
					};
					memcpy(q, p3[j], sizeof p3[j]);
				}
				memcpy(a->perm, q, sizeof *q * nd);
				if ((r = offer(c, a)) != 0)
					return r;
			}
		}
		return 0;
	}
	if (strchr(args, 'A')) {
		for (i = 0; i < prog->decls->narr; i++) {
			strcpy(a->array, prog->decls->arr[i].name);
			for (j = DOJO_STACK; j <= DOJO_REG; j++) {
				a->loc = j;
				if ((r = offer(c, a)) != 0)
					return r;
			}
		}
		return 0;
	}
	return offer_numbers(c, a, 0, nints);
}

/* Offer the move at every node of the subtree "node" at "path". */
static int
offer_tree(struct list_ctx *c, struct dojo_action *a, struct dojo_node *node,
    int depth, const int *at, int nat)
{
	int i, r;

	a->npath = depth + 1;
	if ((nat == 0 || (nat == depth + 1 &&
	    memcmp(at, a->path, sizeof *at * nat) == 0)) &&
	    (a->move->args[0] == 'X' || node->kind == DOJO_SCOPE))
		if ((r = offer_names(c, a)) != 0)
			return r;
	if (node->kind != DOJO_SCOPE || depth + 1 >= DOJO_MAX_DEPTH)
		return 0;
	for (i = 0; i < node->n; i++) {
		a->path[depth + 1] = i;
		if ((r = offer_tree(c, a, node->kids[i], depth + 1, at, nat)) != 0)
			return r;
	}
	return 0;
}

static int
enumerate(dojo_legality *mv, const int *at, int nat, dojo_action_fn fn,
    void *payload, bool legal_only)
{
	struct list_ctx c = { mv, fn, payload, legal_only };
	struct dojo_action a;
	int m, i, r;

	for (m = 0; m < n_moves; m++) {
		if (moves[m].gpu && !mv->machine->gpu)
			continue;
		memset(&a, 0, sizeof a);
		a.move = &moves[m];
		if (moves[m].args[0] == 'B') {
			if (nat == 0 && (r = offer_names(&c, &a)) != 0)
				return r;
			continue;
		}
		for (i = 0; i < mv->prog->n; i++) {
			a.path[0] = i;
			r = offer_tree(&c, &a, mv->prog->kids[i], 0, at, nat);
			if (r)
				return r;
		}
	}
	return 0;
}

int
dojo_legality_list(dojo_legality *mv, const int *at, int nat, dojo_action_fn fn,
    void *payload)
{
	return enumerate(mv, at, nat, fn, payload, true);
}

int
dojo_legality_candidates(dojo_legality *mv, const int *at, int nat,
    dojo_action_fn fn, void *payload)
{
	return enumerate(mv, at, nat, fn, payload, false);
}

struct text_list {
	char **v;
	int n, cap;
};

/* An empty list: room for its NULL. */
static int
collect_text_start(struct text_list *l)
{
	l->cap = 64;
	l->v = calloc(l->cap, sizeof *l->v);
	return l->v ? 0 : dojo_error_set("out of memory");
}

static int
collect_text(const struct dojo_action *a, void *payload)
{
	struct text_list *l = payload;
	char text[512], **v;

	if (l->n + 1 >= l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		v = realloc(l->v, l->cap * sizeof *v);
		if (!v)
			return dojo_error_set("out of memory");
		l->v = v;
	}
	dojo_action_format(text, sizeof text, a);
	if (!(l->v[l->n] = strdup(text)))
		return dojo_error_set("out of memory");
	l->v[++l->n] = NULL;
	return 0;
}

int
dojo_legality_texts(dojo_legality *mv, const int *at, int nat, char ***out)
{
	struct text_list l = { NULL, 0, 0 };

	*out = NULL;
	dojo_error_clear();
	if (collect_text_start(&l) < 0 ||
	    (dojo_legality_list(mv, at, nat, collect_text, &l) != 0 &&
	    *dojo_error_last())) {
		dojo_action_texts_free(l.v);
		return -1;
	}
	*out = l.v;
	return l.n;
}

void
dojo_action_texts_free(char **texts)
{
	char **p;

	for (p = texts; p && *p; p++)
		free(*p);
	free(texts);
}
