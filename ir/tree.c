/* tree.c: surgery on the shared tree and the algebra of indices, for the
 * moves */
#include "config.h"
#include "ir/moves_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Looking up, copying and replacing nodes.
 */

void
fresh_name(char *out, dojo_program *prog, const char *base,
    const char *suffix, int keep1, int keep)
{
	int k;

	for (k = 1;; k++) {
		if (k == 1)
			snprintf(out, DOJO_MAX_NAME + 1, "%.*s_%s", keep1, base,
			    suffix);
		else
			snprintf(out, DOJO_MAX_NAME + 1, "%.*s_%s%d", keep, base,
			    suffix, k % 10000);
		if (dojo_program_find_buffer(prog, out) < 0 &&
		    dojo_program_find_array(prog, out) < 0)
			return;
	}
}

struct dojo_node *
node_at(dojo_program *prog, const int *path, int n)
{
	struct dojo_node **kids = prog->kids, *node = NULL;
	int nkids = prog->n, i;

	for (i = 0; i < n; i++) {
		if (path[i] < 0 || path[i] >= nkids)
			return NULL;
		node = kids[path[i]];
		kids = node->kids;
		nkids = node->n;
	}
	return node;
}

/* The children of the parent of the node at "path" ("n" >= 1). */
struct dojo_node **
siblings(dojo_program *prog, const int *path, int n, int *count)
{
	struct dojo_node *parent;

	if (n == 1) {
		*count = prog->n;
		return prog->kids;
	}
	parent = node_at(prog, path, n - 1);
	*count = parent->n;
	return parent->kids;
}

int
aff_copy(struct dojo_aff *out, const struct dojo_aff *in)
{
	*out = *in;
	out->t = NULL;
	if (in->n) {
		out->t = malloc(sizeof *out->t * in->n);
		if (!out->t)
			return -1;
		memcpy(out->t, in->t, sizeof *out->t * in->n);
	}
	return 0;
}

int
access_copy(struct dojo_access *out, const struct dojo_access *in)
{
	int i;

	*out = *in;
	out->idx = NULL;
	out->nidx = 0;
	if (!in->nidx)
		return 0;
	out->idx = calloc(in->nidx, sizeof *out->idx);
	if (!out->idx)
		return -1;
	for (i = 0; i < in->nidx; i++) {
		if (aff_copy(&out->idx[i], &in->idx[i]) < 0)
			return -1;
		out->nidx++;
	}
	return 0;
}

static struct dojo_expr *
expr_copy(const struct dojo_expr *e)
{
	struct dojo_expr *c;

	if (!e)
		return NULL;
	c = dojo_expr_new(e->kind);
	if (!c)
		return NULL;
	*c = *e;
	c->a = c->b = NULL;
	c->acc.idx = NULL;
	c->acc.nidx = 0;
	if ((e->kind == DOJO_E_ACCESS && access_copy(&c->acc, &e->acc) < 0) ||
	    (e->a && !(c->a = expr_copy(e->a))) ||
	    (e->b && !(c->b = expr_copy(e->b)))) {
		dojo_expr_free(c);
		return NULL;
	}
	return c;
}

/* A new node like "src": a deep copy of an operation, or a scope holding
 * references to the same children. */
struct dojo_node *
node_dup(const struct dojo_node *src)
{
	struct dojo_node *n;
	int i;

	if (src->kind == DOJO_SCOPE) {
		n = dojo_node_new_scope(src->size, src->flag);
		if (!n)
			return NULL;
		n->pos = src->pos;
		memcpy(n->name, src->name, sizeof n->name);
		for (i = 0; i < src->n; i++)
			if (dojo_node_append(n, dojo_node_ref(src->kids[i])) < 0) {
				dojo_node_unref(n);
				return NULL;
			}
		return n;
	}
	n = dojo_node_new_op();
	if (!n)
		return NULL;
	n->pos = src->pos;
	n->update = src->update;
	if (access_copy(&n->lhs, &src->lhs) < 0 ||
	    !(n->rhs = expr_copy(src->rhs))) {
		dojo_node_unref(n);
		return NULL;
	}
	return n;
}

/* Replace the children of the node at "path" ("n" = 0: the root) by the
 * "count" nodes of "kids" (taken), sharing everything else.  The result
 * has the declarations "decls" (NULL: the same). */
dojo_program *
replace_children(dojo_program *prog, const int *path, int n,
    struct dojo_node **kids, int count, struct dojo_decls *decls)
{
	struct dojo_node *chain[DOJO_MAX_DEPTH + 1], *copy, *child = NULL;
	dojo_program *p;
	int i, j;

	for (i = 0; i < n; i++)
		chain[i] = node_at(prog, path, i + 1);
	p = program_with(prog, decls);
	if (!p)
		goto out_free_kids;
	for (i = n - 1; i >= -1; i--) {
		struct dojo_node **src = i >= 0 ? chain[i]->kids : prog->kids;
		int nsrc = i >= 0 ? chain[i]->n : prog->n;
		struct dojo_node ***dst;
		int *ndst;

		copy = NULL;
		if (i >= 0) {
			copy = dojo_node_new_scope(chain[i]->size, chain[i]->flag);
			if (!copy)
				goto out_free;
			copy->pos = chain[i]->pos;
			memcpy(copy->name, chain[i]->name, sizeof copy->name);
			dst = &copy->kids;
			ndst = &copy->n;
		} else {
			dst = &p->kids;
			ndst = &p->n;
		}
		if (i == n - 1) {
			for (j = 0; j < count; j++)
				if (dojo_kids_append(dst, ndst, kids[j]) < 0) {
					kids[j] = NULL;
					goto out_free_copy;
				} else {
					kids[j] = NULL;
				}
		} else {
			for (j = 0; j < nsrc; j++)
				if (dojo_kids_append(dst, ndst, j == path[i + 1] ?
				    child : dojo_node_ref(src[j])) < 0)
					goto out_free_copy;
				else if (j == path[i + 1])
					child = NULL;
		}
		child = copy;
	}
	return p;
out_free_copy:
	dojo_node_unref(copy);
out_free:
	dojo_node_unref(child);
	dojo_program_free(p);
out_free_kids:
	for (j = 0; j < count; j++)
		dojo_node_unref(kids[j]);
	dojo_error_set("out of memory");
	return NULL;
}

/* Replace the node at "path" by the "count" nodes "repl" (taken). */
dojo_program *
replace_node(dojo_program *prog, const int *path, int n,
    struct dojo_node **repl, int count)
{
	struct dojo_node **sib, **kids;
	dojo_program *p;
	int nsib, i, k = 0;

	sib = siblings(prog, path, n, &nsib);
	kids = malloc(sizeof *kids * (nsib + count));
	if (!kids)
		return NULL;
	for (i = 0; i < nsib; i++) {
		if (i == path[n - 1]) {
			memcpy(kids + k, repl, sizeof *kids * count);
			k += count;
		} else {
			kids[k++] = dojo_node_ref(sib[i]);
		}
	}
	p = replace_children(prog, path, n - 1, kids, k, NULL);
	free(kids);
	return p;
}

/*
 * Rewriting the indices of every operation of a subtree.
 */

static int
rewrite_access(struct dojo_access *acc, const struct rewrite *rw)
{
	int i;

	if (rw->acc && rw->acc(acc, rw->payload) < 0)
		return -1;
	for (i = 0; rw->aff && i < acc->nidx; i++)
		if (rw->aff(&acc->idx[i], rw->payload) < 0)
			return -1;
	return 0;
}

static int
rewrite_expr(struct dojo_expr *e, const struct rewrite *rw)
{
	if (!e)
		return 0;
	if (e->kind == DOJO_E_ACCESS && rewrite_access(&e->acc, rw) < 0)
		return -1;
	if (rewrite_expr(e->a, rw) < 0 || rewrite_expr(e->b, rw) < 0)
		return -1;
	return 0;
}

/* A copy of the subtree "node" with every access rewritten. */
struct dojo_node *
rewrite_tree(const struct dojo_node *node, const struct rewrite *rw)
{
	struct dojo_node *n;
	int i;

	if (node->kind == DOJO_OP) {
		n = node_dup(node);
		if (!n || rewrite_access(&n->lhs, rw) < 0 ||
		    rewrite_expr(n->rhs, rw) < 0) {
			dojo_node_unref(n);
			return NULL;
		}
		return n;
	}
	n = dojo_node_new_scope(node->size, node->flag);
	if (!n)
		return NULL;
	n->pos = node->pos;
	memcpy(n->name, node->name, sizeof n->name);
	for (i = 0; i < node->n; i++) {
		struct dojo_node *k = rewrite_tree(node->kids[i], rw);

		if (!k || dojo_node_append(n, k) < 0) {
			dojo_node_unref(n);
			return NULL;
		}
	}
	return n;
}

/* Sort the terms of "aff" by depth, merging and dropping zeros. */
void
aff_normalize(struct dojo_aff *aff)
{
	struct dojo_term t;
	int i, j, k;

	for (i = 1; i < aff->n; i++)
		for (j = i; j > 0 && aff->t[j - 1].d > aff->t[j].d; j--) {
			t = aff->t[j];
			aff->t[j] = aff->t[j - 1];
			aff->t[j - 1] = t;
		}
	for (i = 0, k = 0; i < aff->n; i++) {
		if (k > 0 && aff->t[k - 1].d == aff->t[i].d)
			aff->t[k - 1].k += aff->t[i].k;
		else
			aff->t[k++] = aff->t[i];
		if (aff->t[k - 1].k == 0)
			k--;
	}
	aff->n = k;
}

int64_t
aff_coef(const struct dojo_aff *aff, int d)
{
	int i;

	for (i = 0; i < aff->n; i++)
		if (aff->t[i].d == d)
			return aff->t[i].k;
	return 0;
}

/* Add "k * {d}" to "aff" (re-normalized). */
int
aff_add_term(struct dojo_aff *aff, int d, int64_t k)
{
	struct dojo_term *g = realloc(aff->t, sizeof *g * (aff->n + 1));

	if (!g)
		return -1;
	aff->t = g;
	aff->t[aff->n].d = d;
	aff->t[aff->n].k = k;
	aff->n++;
	aff_normalize(aff);
	return 0;
}

/*
 * Walking every access of a subtree, with the scopes around it.
 */

static int
scan_access(struct dojo_access *acc, bool write, void *payload)
{
	struct scan *sc = payload;

	return sc->fn(sc, acc, write);
}

int
scan_tree(struct scan *sc, struct dojo_node *node)
{
	int i, r;

	if (node->kind == DOJO_OP) {
		sc->op = node;
		return dojo_op_foreach_access(node, scan_access, sc);
	}
	sc->chain[sc->depth++] = node;
	for (i = 0; i < node->n; i++)
		if ((r = scan_tree(sc, node->kids[i])) != 0)
			return r;
	sc->depth--;
	return 0;
}

int
scan_program(struct scan *sc, dojo_program *prog)
{
	int i, r;

	sc->depth = 0;
	for (i = 0; i < prog->n; i++)
		if ((r = scan_tree(sc, prog->kids[i])) != 0)
			return r;
	return 0;
}

/*
 * Copies of the declarations.
 */

struct dojo_decls *
decls_copy(const struct dojo_decls *d)
{
	struct dojo_decls *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->ref = 0;	/* program_with takes the reference */
	c->nbuf = d->nbuf;
	c->narr = d->narr;
	c->named = d->named;
	c->buf = malloc(sizeof *c->buf * (d->nbuf + 1));
	c->arr = malloc(sizeof *c->arr * (d->narr + 1));
	if (!c->buf || !c->arr) {
		free(c->buf);
		free(c->arr);
		free(c);
		return NULL;
	}
	memcpy(c->buf, d->buf, sizeof *c->buf * d->nbuf);
	memcpy(c->arr, d->arr, sizeof *c->arr * d->narr);
	return c;
}

/* The program with new declarations "d" (taken) and the same tree. */
dojo_program *
with_decls(dojo_program *prog, struct dojo_decls *d)
{
	struct dojo_node **kids;
	dojo_program *p;
	int i;

	if (!d)
		return NULL;
	kids = malloc(sizeof *kids * (prog->n + 1));
	if (!kids) {
		dojo_decls_unref(d);
		return NULL;
	}
	for (i = 0; i < prog->n; i++)
		kids[i] = dojo_node_ref(prog->kids[i]);
	p = replace_children(prog, NULL, 0, kids, prog->n, d);
	free(kids);
	return p;
}
