/* move_ops.c: the moves that rebuild one operation: rfactor, hoist
 * (doc/moves.md) */
#include "config.h"
#include "ir/moves_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * rfactor S: a reduction over S and its only child scope L becomes partial
 * results P[l] (L carries no dependence then), then their reduction
 */

int
rfactor_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s, *l, *op;
	dojo_deps *deps;
	int path[DOJO_MAX_DEPTH + 2], p = a->npath - 1;

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (s->n != 1 || s->kids[0]->kind != DOJO_SCOPE ||
	    s->kids[0]->n != 1 || s->kids[0]->kids[0]->kind != DOJO_OP)
		return refuse(a, "the scope must hold one scope holding one "
		    "operation");
	l = s->kids[0];
	op = l->kids[0];
	if (s->flag || l->flag)
		return refuse(a, "clear the flags of the two scopes first");
	if (dojo_access_uses(&op->lhs, p) || dojo_access_uses(&op->lhs, p + 1))
		return refuse(a, "the element written changes with the two "
		    "scopes");
	memcpy(path, a->path, sizeof *path * a->npath);
	path[a->npath] = 0;
	path[a->npath + 1] = 0;
	if (!(deps = deps_of(mv)))
		return -1;
	if (!dojo_deps_is_reduction(deps, path, a->npath + 2))
		return refuse(a, "the operation is not a reduction (+=, *=, "
		    "max= or min= into an element read nowhere else)");
	if ((uint64_t)l->size * dojo_dtype_size(mv->prog->decls->buf[
	    mv->prog->decls->arr[op->lhs.array].buffer].dtype) >
	    (uint64_t)mv->machine->stack_bytes)
		return refuse(a, "%lld partial results are over the stack "
		    "budget", (long long)l->size);
	return check_flags_after(mv, a, NULL);
}

struct rfactor_ctx {
	int to;
	int d;		/* the depth of L's iterator */
};

/* The update's target becomes P[{d}]. */
static struct dojo_access
partial_access(int array, int d)
{
	struct dojo_access acc;

	memset(&acc, 0, sizeof acc);
	acc.array = array;
	acc.nidx = 1;
	acc.idx = calloc(1, sizeof *acc.idx);
	if (acc.idx && aff_add_term(&acc.idx[0], d, 1) < 0) {
		free(acc.idx);
		acc.idx = NULL;
	}
	return acc;
}

dojo_program *
rfactor_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *l = s->kids[0], *op = l->kids[0];
	struct dojo_node *init, *initop, *body, *bl, *bop, *fin, *finop;
	struct dojo_node *repl[3];
	struct dojo_decls *d;
	struct dojo_buffer *nb;
	dojo_program *withd, *p = NULL;
	char name[DOJO_MAX_NAME + 1];
	int p0 = a->npath - 1, pa;
	const struct dojo_buffer *xb;

	xb = &mv->prog->decls->buf[mv->prog->decls->arr[op->lhs.array].buffer];
	fresh_name(name, mv->prog, mv->prog->decls->arr[op->lhs.array].name,
	    "r", DOJO_MAX_NAME - 8, DOJO_MAX_NAME - 8);
	d = decls_copy(mv->prog->decls);
	if (!d)
		return NULL;
	nb = &d->buf[d->nbuf];
	memset(nb, 0, sizeof *nb);
	snprintf(nb->name, sizeof nb->name, "%s", name);
	nb->dtype = xb->dtype;
	nb->ndim = 1;
	nb->ext[0] = l->size;
	nb->loc = DOJO_STACK;
	memset(&d->arr[d->narr], 0, sizeof *d->arr);
	snprintf(d->arr[d->narr].name, sizeof d->arr[d->narr].name, "%s", name);
	d->arr[d->narr].buffer = d->nbuf;
	pa = d->narr;
	d->nbuf++;
	d->narr++;
	/* L'(f): P[{p}] = identity */
	init = dojo_node_new_scope(l->size, 0);
	initop = dojo_node_new_op();
	/* S(N): L(f): P[{p+1}] op= e */
	body = dojo_node_new_scope(s->size, 0);
	bl = dojo_node_new_scope(l->size, 0);
	bop = node_dup(op);
	/* L''(f): X[idx] op= P[{p}] */
	fin = dojo_node_new_scope(l->size, 0);
	finop = dojo_node_new_op();
	if (!init || !initop || !body || !bl || !bop || !fin || !finop)
		goto out_free;
	memcpy(body->name, s->name, sizeof body->name);
	memcpy(bl->name, l->name, sizeof bl->name);
	/* the loops over the partial results: P.init sets them, P.out
	 * reduces them into X */
	loop_name_set(init, "%.*s.init", DOJO_MAX_NAME - 8, name);
	loop_name_set(fin, "%.*s.out", DOJO_MAX_NAME - 8, name);
	initop->update = DOJO_SET;
	initop->lhs = partial_access(pa, p0);
	initop->rhs = dojo_expr_new(DOJO_E_NUM);
	if (!initop->lhs.idx || !initop->rhs)
		goto out_free;
	initop->rhs->num = dojo_update_identity(op->update, xb->dtype);
	dojo_access_release(&bop->lhs);
	bop->lhs = partial_access(pa, p0 + 1);
	finop->update = op->update;
	finop->rhs = dojo_expr_new(DOJO_E_ACCESS);
	if (!bop->lhs.idx || !finop->rhs ||
	    access_copy(&finop->lhs, &op->lhs) < 0)
		goto out_free;
	finop->rhs->acc = partial_access(pa, p0);
	if (!finop->rhs->acc.idx)
		goto out_free;
	dojo_node_append(init, initop);
	dojo_node_append(bl, bop);
	dojo_node_append(body, bl);
	dojo_node_append(fin, finop);
	repl[0] = init;
	repl[1] = body;
	repl[2] = fin;
	withd = with_decls(mv->prog, d);
	if (withd) {
		p = replace_node(withd, a->path, a->npath, repl, 3);
		dojo_program_free(withd);
	}
	return p;
out_free:
	dojo_node_unref(init);
	dojo_node_unref(initop);
	dojo_node_unref(body);
	dojo_node_unref(bl);
	dojo_node_unref(bop);
	dojo_node_unref(fin);
	dojo_node_unref(finop);
	dojo_decls_unref(d);
	return NULL;
}



/*
 * hoist X: an invariant operation moves before its scope
 */

struct hoist_ctx {
	dojo_program *prog;
	const struct dojo_node *x;
	int xbuf;
	bool after;		/* the scan is past X in the scope */
	bool bad;
	const char *why;
	int reads[DOJO_MAX_DIMS * 8];
	int nreads;
	bool too_many;
};

static bool
expr_uses_iterator(const struct dojo_expr *e, int d)
{
	if (!e)
		return false;
	if (e->kind == DOJO_E_ACCESS && dojo_access_uses(&e->acc, d))
		return true;
	return expr_uses_iterator(e->a, d) || expr_uses_iterator(e->b, d);
}

static int
hoist_collect(struct dojo_access *acc, bool write, void *payload)
{
	struct hoist_ctx *c = payload;

	if (write)
		return 0;
	if (c->nreads == (int)(sizeof c->reads / sizeof *c->reads))
		c->too_many = true;
	else
		c->reads[c->nreads++] = c->prog->decls->arr[acc->array].buffer;
	return 0;
}

static int
hoist_other(struct scan *sc, struct dojo_access *acc, bool write)
{
	struct hoist_ctx *c = sc->payload;
	int b = c->prog->decls->arr[acc->array].buffer, i;

	if (write) {
		for (i = 0; i < c->nreads; i++)
			if (c->reads[i] == b) {
				c->why = "another operation of the scope writes "
				    "what it reads";
				return 1;
			}
		if (b == c->xbuf) {
			c->why = "another operation of the scope writes its "
			    "result";
			return 1;
		}
	} else if (b == c->xbuf && !c->after) {
		c->why = "its result is read before it in the scope";
		return 1;
	}
	return 0;
}

int
hoist_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct hoist_ctx hc;
	struct scan sc;
	struct dojo_node *x, *s;
	int d = a->npath - 2, i;

	if (need_node(a, mv, &x) < 0)
		return -1;
	if (x->kind != DOJO_OP)
		return refuse(a, "only an operation can be hoisted");
	if (a->npath < 2)
		return refuse(a, "the operation is in no scope");
	s = node_at(mv->prog, a->path, a->npath - 1);
	if (x->update != DOJO_SET)
		return refuse(a, "its result is read-modify-written (an "
		    "update)");
	if (dojo_access_uses(&x->lhs, d))
		return refuse(a, "it depends on the scope's iterator {%d}", d);
	memset(&hc, 0, sizeof hc);
	hc.prog = mv->prog;
	hc.x = x;
	hc.xbuf = mv->prog->decls->arr[x->lhs.array].buffer;
	dojo_op_foreach_access(x, hoist_collect, &hc);
	if (hc.too_many)
		return refuse(a, "the operation reads too many arrays to "
		    "check");
	/* the reads of X: no iterator {d}, not its own result */
	for (i = 0; i < hc.nreads; i++)
		if (hc.reads[i] == hc.xbuf)
			return refuse(a, "it reads its own result");
	if (expr_uses_iterator(x->rhs, d))
		return refuse(a, "it depends on the scope's iterator {%d}", d);
	memset(&sc, 0, sizeof sc);
	sc.fn = hoist_other;
	sc.payload = &hc;
	for (i = 0; i < d + 1; i++)
		sc.chain[i] = node_at(mv->prog, a->path, i + 1);
	for (i = 0; i < s->n; i++) {
		if (s->kids[i] == x) {
			hc.after = true;
			continue;
		}
		sc.depth = d + 1;
		if (scan_tree(&sc, s->kids[i]))
			return refuse(a, "%s", hc.why);
	}
	if (under_flag(mv->prog, a->path, a->npath - 1, DOJO_FLAG_VECTOR) ||
	    (a->npath > 2 && node_at(mv->prog, a->path, a->npath - 2)->flag ==
	    DOJO_FLAG_VECTOR))
		return refuse(a, "inside a vector scope");
	return 0;
}

dojo_program *
hoist_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *x = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath - 1);
	struct dojo_node *repl[2], *rest;
	int i, n = 0;

	repl[n++] = dojo_node_ref(x);
	if (s->n > 1) {
		rest = dojo_node_new_scope(s->size, s->flag);
		if (!rest) {
			dojo_node_unref(x);
			return NULL;
		}
		rest->pos = s->pos;
		memcpy(rest->name, s->name, sizeof rest->name);
		for (i = 0; i < s->n; i++)
			if (s->kids[i] != x &&
			    dojo_node_append(rest, dojo_node_ref(s->kids[i])) < 0) {
				dojo_node_unref(x);
				return NULL;
			}
		repl[n++] = rest;
	}
	return replace_node(mv->prog, a->path, a->npath - 1, repl, n);
}
