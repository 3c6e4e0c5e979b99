/* move_cache.c: the local copies of the box of an array: cache, pack
 * (doc/moves.md) */
#include "config.h"
#include "ir/moves_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * cache X A LOC: a local copy of the box of A that X touches
 */

struct box {
	dojo_program *prog;
	int array;
	int p;			/* iterators below p are outside X */
	int n;			/* accesses seen */
	bool reads, writes, uneven;
	struct dojo_aff outer[DOJO_MAX_DIMS];	/* the part outside X */
	int64_t lo[DOJO_MAX_DIMS], hi[DOJO_MAX_DIMS];
	int64_t size[DOJO_MAX_DEPTH];	/* sizes of the scopes in X */
	bool covered;		/* a write covers the whole box */
	bool alias;		/* X touches another array of A's buffer */
	/* the ranges of the writes that fill their range densely */
	int ndense;
	int64_t dlo[8][DOJO_MAX_DIMS], dhi[8][DOJO_MAX_DIMS];
};

static void
aff_split(const struct dojo_aff *aff, int p, struct dojo_aff *outer,
    struct dojo_aff *inner)
{
	int i;

	memset(outer, 0, sizeof *outer);
	memset(inner, 0, sizeof *inner);
	inner->c = aff->c;
	for (i = 0; i < aff->n; i++) {
		if (aff->t[i].d < p)
			outer->t = (struct dojo_term *)aff->t, outer->n++;
		else if (!inner->t)
			inner->t = (struct dojo_term *)aff->t + i, inner->n = 1;
		else
			inner->n++;
	}
	if (outer->n == 0)
		outer->t = NULL;
}

static bool
aff_same_terms(const struct dojo_aff *a, const struct dojo_aff *b)
{
	int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->t[i].d != b->t[i].d || a->t[i].k != b->t[i].k)
			return false;
	return true;
}

/* The range of the inner part of an index over the scopes of "sc". */
static void
local_span(const struct dojo_aff *inner, const struct scan *sc, int64_t *lo,
    int64_t *hi)
{
	int64_t span;
	int j;

	*lo = *hi = inner->c;
	for (j = 0; j < inner->n; j++) {
		span = inner->t[j].k * (sc->chain[inner->t[j].d]->size - 1);
		if (span < 0)
			*lo += span;
		else
			*hi += span;
	}
}

static int
box_access(struct scan *sc, struct dojo_access *acc, bool write)
{
	struct box *bx = sc->payload;
	struct dojo_aff outer, inner;
	int64_t lo, hi, used[DOJO_MAX_DIMS];
	bool covers = write;
	int i, k;

	if (acc->array != bx->array) {
		if (bx->prog->decls->arr[acc->array].buffer ==
		    bx->prog->decls->arr[bx->array].buffer)
			bx->alias = true;
		return 0;
	}
	for (i = 0; i < sc->depth; i++)
		if (i >= bx->p)
			bx->size[i] = sc->chain[i]->size;
	if (write)
		bx->writes = true;
	if (!write || sc->op->update != DOJO_SET)
		bx->reads = true;	/* an update reads what it writes */
	for (i = 0; i < acc->nidx; i++) {
		aff_split(&acc->idx[i], bx->p, &outer, &inner);
		local_span(&inner, sc, &lo, &hi);
		if (bx->n == 0) {
			bx->outer[i] = outer;
			bx->lo[i] = lo;
			bx->hi[i] = hi;
		} else {
			if (!aff_same_terms(&bx->outer[i], &outer))
				bx->uneven = true;
			if (lo < bx->lo[i])
				bx->lo[i] = lo;
			if (hi > bx->hi[i])
				bx->hi[i] = hi;
		}
		/* one write covering its range densely: {e} or constant */
		if (inner.n > 1 || (inner.n == 1 && inner.t[0].k != 1 &&
		    inner.t[0].k != -1))
			covers = false;
		used[i] = inner.n ? inner.t[0].d : -1;
		for (k = 0; k < i; k++)
			if (used[i] >= 0 && used[k] == used[i])
				covers = false;
	}
	if (covers && bx->ndense < 8) {
		/* compared with the whole box once every access is seen */
		for (i = 0; i < acc->nidx; i++) {
			aff_split(&acc->idx[i], bx->p, &outer, &inner);
			local_span(&inner, sc, &bx->dlo[bx->ndense][i],
			    &bx->dhi[bx->ndense][i]);
		}
		bx->ndense++;
	}
	bx->n++;
	return 0;
}

static int
cache_box(dojo_legality *mv, const struct dojo_action *a, struct box *bx)
{
	struct dojo_node *x;
	struct scan sc;
	int i, k;

	memset(bx, 0, sizeof *bx);
	bx->prog = mv->prog;
	bx->array = dojo_program_find_array(mv->prog, a->array);
	bx->p = a->npath - 1;
	if (need_node(a, mv, &x) < 0)
		return -1;
	if (bx->array < 0)
		return refuse(a, "unknown array '%s'", a->array);
	memset(&sc, 0, sizeof sc);
	sc.fn = box_access;
	sc.payload = bx;
	for (i = 0; i < bx->p; i++)
		sc.chain[i] = node_at(mv->prog, a->path, i + 1);
	sc.depth = bx->p;
	scan_tree(&sc, x);
	if (bx->n == 0)
		return refuse(a, "the subtree does not access '%s'", a->array);
	if (bx->alias)
		return refuse(a, "the subtree accesses another array of the "
		    "buffer of '%s'", a->array);
	if (bx->uneven)
		return refuse(a, "the footprint of '%s' is not a box of "
		    "constant size (the accesses move differently with the "
		    "outer scopes)", a->array);
	/* a dense write whose range is the whole box covers it */
	for (k = 0; k < bx->ndense && !bx->covered; k++) {
		for (i = 0; i < bx->prog->decls->buf[
		    bx->prog->decls->arr[bx->array].buffer].ndim; i++)
			if (bx->dlo[k][i] != bx->lo[i] ||
			    bx->dhi[k][i] != bx->hi[i])
				break;
		if (i == bx->prog->decls->buf[
		    bx->prog->decls->arr[bx->array].buffer].ndim)
			bx->covered = true;
	}
	return 0;
}

/* 1 when an access of the array "payload" names uses, inside X (depth
 * from sc->payload's p on), a scope that is not unrolled. */
struct reg_copy {
	int array;
	int p;
};

static int
copy_not_unrolled(struct scan *sc, struct dojo_access *acc, bool write)
{
	const struct reg_copy *c = sc->payload;
	int i, j, d;

	if (acc->array != c->array)
		return 0;
	for (i = 0; i < acc->nidx; i++)
		for (j = 0; j < acc->idx[i].n; j++) {
			d = acc->idx[i].t[j].d;
			if (d >= c->p && sc->chain[d]->flag != DOJO_FLAG_UNROLL)
				return 1;
		}
	return 0;
}

/* What validation adds for a cache in reg to the same cache in stack:
 * the copy, a reg buffer, indexed only by unrolled scopes.  Its copy
 * nests are unrolled; in X it keeps the terms of X's iterators of A's
 * accesses. */
static int
check_reg_copy(dojo_legality *mv, const struct dojo_action *a)
{
	struct reg_copy c;
	struct scan sc;
	int i;

	c.array = dojo_program_find_array(mv->prog, a->array);
	c.p = a->npath - 1;
	memset(&sc, 0, sizeof sc);
	sc.fn = copy_not_unrolled;
	sc.payload = &c;
	for (i = 0; i < c.p; i++)
		sc.chain[i] = node_at(mv->prog, a->path, i + 1);
	sc.depth = c.p;
	if (scan_tree(&sc, node_at(mv->prog, a->path, a->npath)))
		return refuse(a, "the result would be invalid: the register "
		    "copy is indexed by a scope that is not unrolled");
	return 0;
}

/* Whether the memo holds the verdict of check_result for a cache
 * ("pack" false) or a pack of the node and array of "a". */
static bool
memo_hit(const dojo_legality *mv, const struct dojo_action *a, bool pack)
{
	const struct result_memo *m = &mv->memo;

	return quiet && m->valid && m->pack == pack && m->npath == a->npath &&
	    !memcmp(m->path, a->path, sizeof *a->path * a->npath) &&
	    !strcmp(m->array, a->array);
}

/* check_result for "a", a cache or a pack, with what the memo knows.
 * The validity of a pack's result does not depend on its order: the
 * copy's dimensions and its nest are permuted, the elements each
 * operation touches and the order of the operations are not.  A cache in
 * reg is the one in stack with its location and the flags of its copy
 * nests changed, which the reads do not see: when the stack cache was
 * refused, so is the reg one (the same bounds, the same reads, the same
 * accesses of the other reg buffers), and when it was not, only the
 * indices of the reg copy need a look (check_reg_copy).  Not when A is
 * in reg itself:
 * the stack cache's copy nests, not unrolled, may not index it. */
static int
check_result_memo(dojo_legality *mv, const struct dojo_action *a, bool pack)
{
	struct result_memo *m = &mv->memo;
	int r, ai = dojo_program_find_array(mv->prog, a->array);

	/* a copy nest that reads a reg array is valid only unrolled */
	if (!pack && (ai < 0 || mv->prog->decls->buf[
	    mv->prog->decls->arr[ai].buffer].loc == DOJO_REG))
		return check_result(mv, a, a->array);
	if (memo_hit(mv, a, pack) && (pack || a->loc == DOJO_REG)) {
		if (m->refused)
			return refuse(a, "the result would be invalid");
		if (pack)
			return 0;
		return check_reg_copy(mv, a);
	}
	r = check_result(mv, a, a->array);
	if (!quiet || (r < 0 && !refused) || (!pack && a->loc != DOJO_STACK))
		return r;
	m->valid = true;
	m->pack = pack;
	memcpy(m->path, a->path, sizeof *a->path * a->npath);
	m->npath = a->npath;
	snprintf(m->array, sizeof m->array, "%s", a->array);
	m->refused = r < 0;
	return r;
}

int
cache_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct box bx;
	const struct dojo_buffer *buf;
	uint64_t count = 1;
	int i;

	if (cache_box(mv, a, &bx) < 0)
		return -1;
	if (a->loc != DOJO_STACK && a->loc != DOJO_REG)
		return refuse(a, "a cache lives in stack or reg");
	buf = &mv->prog->decls->buf[mv->prog->decls->arr[bx.array].buffer];
	for (i = 0; i < buf->ndim; i++) {
		if (buf->fold[i])
			return refuse(a, "'%s' is folded", a->array);
		count *= (uint64_t)(bx.hi[i] - bx.lo[i] + 1);
	}
	if (a->loc == DOJO_STACK &&
	    count * dojo_dtype_size(buf->dtype) >
	    (uint64_t)mv->machine->stack_bytes)
		return refuse(a, "the box of %llu elements is over the stack "
		    "budget", (unsigned long long)count);
	if (a->loc == DOJO_REG && count > (uint64_t)mv->machine->reg_elems)
		return refuse(a, "the box of %llu elements is over the "
		    "register budget of %lld", (unsigned long long)count,
		    (long long)mv->machine->reg_elems);
	if (under_flag(mv->prog, a->path, a->npath + 1, DOJO_FLAG_VECTOR) &&
	    a->npath > 1 &&
	    node_at(mv->prog, a->path, a->npath - 1)->flag == DOJO_FLAG_VECTOR)
		return refuse(a, "the copies cannot go inside a vector scope");
	/* the result must be a valid program (reads of the copy, registers) */
	if (a->loc == DOJO_REG)
		for (i = 0; i < buf->ndim; i++)
			if (bx.hi[i] - bx.lo[i] + 1 > UNROLL_MAX)
				return refuse(a, "the copies would unroll %lld "
				    "iterations, over %d", (long long)(bx.hi[i] -
				    bx.lo[i] + 1), UNROLL_MAX);
	if (check_result_memo(mv, a, false) < 0)
		return -1;
	return check_flags_after(mv, a, a->array);
}


struct cache_ctx {
	int array, to;
	int p;
	const struct box *bx;
	const int *perm;	/* dimension k of the copy is perm[k] of A */
};

static int
cache_rewrite(struct dojo_access *acc, void *payload)
{
	struct cache_ctx *c = payload;
	struct dojo_aff old[DOJO_MAX_DIMS];
	int i, j, k;

	if (acc->array != c->array)
		return 0;
	acc->array = c->to;
	for (i = 0; i < acc->nidx; i++) {
		struct dojo_aff *aff = &acc->idx[i];

		for (j = 0, k = 0; j < aff->n; j++)
			if (aff->t[j].d >= c->p)
				aff->t[k++] = aff->t[j];
		aff->n = k;
		aff->c -= c->bx->lo[i];
	}
	memcpy(old, acc->idx, sizeof *old * acc->nidx);
	for (i = 0; i < acc->nidx; i++)
		acc->idx[i] = old[c->perm[i]];
	return 0;
}

/* The copy nest: "into" the copy when "in", else back out of it; its
 * loops are named after the copy "name" (A_c.in0, A_c.out1: the loop
 * over dimension 0 of the copy that fills it, over dimension 1 of the one
 * that writes it back). */
static struct dojo_node *
copy_nest(const struct box *bx, int array, int copy, int p, bool in,
    char flag, const int *perm, const char *name)
{
	struct dojo_node *op, *top = NULL, *cur = NULL, *s;
	struct dojo_access *dst, *src;
	struct dojo_expr *e;
	int i, k, depth = p, ndim = 0;
	int64_t size;

	op = dojo_node_new_op();
	e = dojo_expr_new(DOJO_E_ACCESS);
	if (!op || !e)
		goto out_free;
	op->rhs = e;
	op->update = DOJO_SET;
	dst = in ? &op->lhs : &e->acc;
	src = in ? &e->acc : &op->lhs;
	dst->array = copy;
	src->array = array;
	ndim = bx->prog->decls->buf[bx->prog->decls->arr[array].buffer].ndim;
	dst->idx = calloc(ndim, sizeof *dst->idx);
	src->idx = calloc(ndim, sizeof *src->idx);
	if (!dst->idx || !src->idx)
		goto out_free;
	dst->nidx = src->nidx = ndim;
	for (i = 0; i < ndim; i++) {
		if (aff_copy(&src->idx[i], &bx->outer[i]) < 0)
			goto out_free;
		src->idx[i].c = bx->lo[i];
	}
	/* the scopes in the order of the copy's dimensions */
	for (k = 0; k < ndim; k++) {
		i = perm[k];
		size = bx->hi[i] - bx->lo[i] + 1;
		if (size == 1)
			continue;
		s = dojo_node_new_scope(size, flag);
		if (!s)
			goto out_free;
		loop_name_set(s, "%.*s.%s%d", DOJO_MAX_NAME - 8, name,
		    in ? "in" : "out", k);
		if (cur) {
			if (dojo_node_append(cur, s) < 0)
				goto out_free;
		} else {
			top = s;
		}
		cur = s;
		if (aff_add_term(&src->idx[i], depth, 1) < 0 ||
		    aff_add_term(&dst->idx[k], depth, 1) < 0)
			goto out_free;
		depth++;
	}
	if (!cur)
		return op;
	if (dojo_node_append(cur, op) < 0) {
		dojo_node_unref(top);
		return NULL;
	}
	return top;
out_free:
	if (op && !op->rhs)
		dojo_expr_free(e);
	dojo_node_unref(op);
	dojo_node_unref(top);
	return NULL;
}

static dojo_program *
cache_build(dojo_legality *mv, const struct dojo_action *a, int copy_in,
    const int *perm, enum dojo_loc loc, const char *suffix)
{
	struct dojo_node *x = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *repl[3], *body;
	struct dojo_decls *d;
	struct dojo_buffer *nb;
	struct cache_ctx cc;
	struct box bx;
	struct rewrite rw = { NULL, cache_rewrite, &cc };
	dojo_program *p = NULL, *withd;
	char name[DOJO_MAX_NAME + 1];
	int i, n = 0, src;
	bool need_in;

	if (cache_box(mv, a, &bx) < 0)
		return NULL;
	need_in = copy_in;
	/* a fresh name: A_c, A_c2, ... (A_p, A_p2 for a pack) */
	fresh_name(name, mv->prog, a->array, suffix, DOJO_MAX_NAME - 2,
	    DOJO_MAX_NAME - 6);
	d = decls_copy(mv->prog->decls);
	if (!d)
		return NULL;
	src = d->arr[bx.array].buffer;
	nb = &d->buf[d->nbuf];
	*nb = d->buf[src];
	snprintf(nb->name, sizeof nb->name, "%s", name);
	nb->role = DOJO_TEMP;
	nb->loc = loc;
	nb->explicit_arrays = false;
	for (i = 0; i < nb->ndim; i++) {
		nb->ext[i] = bx.hi[perm[i]] - bx.lo[perm[i]] + 1;
		nb->fold[i] = 0;
		nb->pad[i] = 0;
	}
	memset(&d->arr[d->narr], 0, sizeof *d->arr);
	snprintf(d->arr[d->narr].name, sizeof d->arr[d->narr].name, "%s",
	    name);
	d->arr[d->narr].buffer = d->nbuf;
	cc.array = bx.array;
	cc.to = d->narr;
	cc.p = bx.p;
	cc.bx = &bx;
	cc.perm = perm;
	d->nbuf++;
	d->narr++;
	body = rewrite_tree(x, &rw);
	if (!body) {
		dojo_decls_unref(d);
		return NULL;
	}
	if (need_in)
		repl[n++] = copy_nest(&bx, bx.array, cc.to, bx.p, true,
		    loc == DOJO_REG ? DOJO_FLAG_UNROLL : 0, perm, name);
	repl[n++] = body;
	if (bx.writes)
		repl[n++] = copy_nest(&bx, bx.array, cc.to, bx.p, false,
		    loc == DOJO_REG ? DOJO_FLAG_UNROLL : 0, perm, name);
	for (i = 0; i < n; i++)
		if (!repl[i]) {
			while (n--)
				dojo_node_unref(repl[n]);
			dojo_decls_unref(d);
			return NULL;
		}
	withd = with_decls(mv->prog, d);
	if (withd) {
		p = replace_node(withd, a->path, a->npath, repl, n);
		dojo_program_free(withd);
	} else {
		while (n--)
			dojo_node_unref(repl[n]);
	}
	return p;
}

/* Without a copy-in when X writes the whole box before reading it. */
dojo_program *
cache_apply(dojo_legality *mv, const struct dojo_action *a)
{
	static const int identity[DOJO_MAX_DIMS] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
		18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	};
	dojo_program *p;
	struct box bx;
	bool *copy;
	int r;

	if (cache_box(mv, a, &bx) < 0)
		return NULL;
	if (!bx.covered)
		return cache_build(mv, a, true, identity, a->loc, "c");
	p = cache_build(mv, a, false, identity, a->loc, "c");
	if (!p || !bx.reads)
		return p;
	/* does X read its copy before writing it? */
	copy = calloc(p->decls->narr, sizeof *copy);
	if (!copy) {
		dojo_program_free(p);
		return NULL;
	}
	copy[p->decls->narr - 1] = true;
	r = dojo_deps_check_reads_of(p, copy);
	free(copy);
	if (r == DOJO_DONE)
		return p;
	dojo_program_free(p);
	dojo_error_clear();
	return cache_build(mv, a, true, identity, a->loc, "c");
}

/*
 * pack X A ORDER: copy the box of A that X reads into a new heap buffer
 * whose dimensions come in ORDER (a panel), before X
 */

int
pack_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct box bx;
	const struct dojo_buffer *buf;
	int i;

	if (cache_box(mv, a, &bx) < 0)
		return -1;
	buf = &mv->prog->decls->buf[mv->prog->decls->arr[bx.array].buffer];
	if (bx.writes)
		return refuse(a, "the subtree writes '%s' (pack copies in only; "
		    "use cache)", a->array);
	if (need_order(a, a->array, buf->ndim) < 0)
		return -1;
	for (i = 0; i < buf->ndim; i++)
		if (buf->fold[i])
			return refuse(a, "'%s' is folded", a->array);
	if (check_result_memo(mv, a, true) < 0)
		return -1;
	return check_flags_after(mv, a, a->array);
}

dojo_program *
pack_apply(dojo_legality *mv, const struct dojo_action *a)
{
	return cache_build(mv, a, true, a->perm, DOJO_HEAP, "p");
}
