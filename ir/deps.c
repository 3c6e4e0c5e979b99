/* deps.c: exact dependence analysis of a program with isl */
#include "config.h"
#include "ir/deps.h"
#include "ir/program_private.h"
#include "src/util/strbuf.h"

#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failures of our own while building relations (memory, a full row
 * table), counted per thread: a relation built without them may miss
 * pairs, so a dependence object (or an analysis) that saw the count move
 * answers nothing (dojo_deps_failure). */
static _Thread_local unsigned long lost_relations;

/* One operation, its place in the tree and its iteration box. */
struct stmt {
	struct dojo_node *op;
	int depth;
	int64_t size[DOJO_MAX_DEPTH];
	int pos[DOJO_MAX_DEPTH + 1];	/* child index at each level */
};

struct model {
	dojo_program *prog;
	struct stmt *st;
	int n;
	int maxdepth;
	struct stmt cur;
};

static int
collect(struct model *m, struct dojo_node *node, int depth)
{
	struct stmt *grown;
	int i;

	if (node->kind == DOJO_OP) {
		if ((m->n & (m->n - 1)) == 0) {
			grown = realloc(m->st, sizeof *grown *
			    (m->n ? 2 * m->n : 1));
			if (!grown)
				return dojo_error_set("out of memory");
			m->st = grown;
		}
		m->cur.op = node;
		m->cur.depth = depth;
		m->st[m->n++] = m->cur;
		if (depth > m->maxdepth)
			m->maxdepth = depth;
		return 0;
	}
	m->cur.size[depth] = node->size;
	for (i = 0; i < node->n; i++) {
		m->cur.pos[depth + 1] = i;
		if (collect(m, node->kids[i], depth + 1) < 0)
			return -1;
	}
	return 0;
}

static int
model_init(struct model *m, dojo_program *prog)
{
	int i;

	memset(m, 0, sizeof *m);
	m->prog = prog;
	for (i = 0; i < prog->n; i++) {
		m->cur.pos[0] = i;
		if (collect(m, prog->kids[i], 0) < 0)
			return -1;
	}
	return 0;
}

/* One access of an operation: the updated element is read and written. */
struct xacc {
	int stmt;
	const struct dojo_access *acc;
	bool write;
};

struct xacc_list {
	struct xacc *x;
	int n;
	int stmt;
};

static int
add_xacc(struct dojo_access *acc, bool write, void *payload)
{
	struct xacc_list *l = payload;
	struct xacc *g;

	if ((l->n & (l->n - 1)) == 0) {
		g = realloc(l->x, sizeof *g * (l->n ? 2 * l->n : 1));
		if (!g)
			return dojo_error_set("out of memory");
		l->x = g;
	}
	l->x[l->n].stmt = l->stmt;
	l->x[l->n].acc = acc;
	l->x[l->n].write = write;
	l->n++;
	return 0;
}

static int
xacc_collect(struct xacc_list *l, const struct model *m)
{
	int i;

	memset(l, 0, sizeof *l);
	for (i = 0; i < m->n; i++) {
		l->stmt = i;
		if (m->st[i].op->update != DOJO_SET &&
		    add_xacc(&m->st[i].op->lhs, false, l) < 0)
			return -1;
		if (dojo_op_foreach_access(m->st[i].op, add_xacc, l) < 0)
			return -1;
	}
	return 0;
}

static int
buffer_of(const dojo_program *prog, const struct dojo_access *acc)
{
	return prog->decls->arr[acc->array].buffer;
}


/* The index "aff" of an operation of depth "depth" as "*c" plus k[l] i_l
 * (k[0 .. depth-1] set); false when a term is out of range or a sum
 * overflows. */
static bool
aff_dense(const struct dojo_aff *aff, int depth, int64_t *k, int64_t *c)
{
	int t, d;

	memset(k, 0, sizeof *k * depth);
	*c = aff->c;
	for (t = 0; t < aff->n; t++) {
		d = aff->t[t].d;
		if (d < 0 || d >= depth ||
		    __builtin_add_overflow(k[d], aff->t[t].k, &k[d]))
			return false;
	}
	return true;
}


/*
 * The same relations built with isl's constraints directly: reading text
 * costs a millisecond a relation, building it some microseconds.
 */

/* Constraints of a relation S_s[i] -> S_t[j], gathered, then made into a
 * basic map at once.  Row: constant, i..., j...; "eq" or ">= 0". */
struct cons {
	int ni, nj;
	int n, cap;
	bool *eq;
	int64_t *rows;		/* cap rows of 1 + ni + nj */
};

static struct cons *
cons_new(int ni, int nj, int extra)
{
	struct cons *c = calloc(1, sizeof *c);

	if (!c) {
		lost_relations++;
		return NULL;
	}
	c->ni = ni;
	c->nj = nj;
	c->cap = 3 * (ni + nj) + extra + 2;
	c->eq = calloc(c->cap, sizeof *c->eq);
	c->rows = calloc((size_t)c->cap * (1 + ni + nj), sizeof *c->rows);
	if (!c->eq || !c->rows) {
		free(c->eq);
		free(c->rows);
		free(c);
		lost_relations++;
		return NULL;
	}
	return c;
}

static struct cons *
cons_copy(const struct cons *src)
{
	struct cons *c = cons_new(src->ni, src->nj, src->cap -
	    3 * (src->ni + src->nj) - 2);

	if (!c)
		return NULL;
	c->n = src->n;
	memcpy(c->eq, src->eq, sizeof *c->eq * src->n);
	memcpy(c->rows, src->rows, sizeof *c->rows * src->n *
	    (1 + src->ni + src->nj));
	return c;
}

static void
cons_free(struct cons *c)
{
	if (!c)
		return;
	free(c->eq);
	free(c->rows);
	free(c);
}

static int64_t *
cons_row(struct cons *c, bool eq)
{
	int64_t *r;

	if (c->n == c->cap) {
		lost_relations++;
		return NULL;
	}
	r = c->rows + (size_t)c->n * (1 + c->ni + c->nj);
	memset(r, 0, sizeof *r * (1 + c->ni + c->nj));
	c->eq[c->n++] = eq;
	return r;
}

static isl_basic_map *
cons_build(isl_ctx *ctx, const struct cons *c, int s, int t)
{
	isl_mat *eq, *ineq;
	isl_space *space;
	char name[16];
	int neq = 0, nineq = 0, k, col, ncol = 1 + c->ni + c->nj;

	for (k = 0; k < c->n; k++)
		neq += c->eq[k];
	nineq = c->n - neq;
	eq = isl_mat_alloc(ctx, neq, ncol);
	ineq = isl_mat_alloc(ctx, nineq, ncol);
	neq = nineq = 0;
	for (k = 0; k < c->n; k++)
		for (col = 0; col < ncol; col++) {
			isl_val *v = isl_val_int_from_si(ctx,
			    c->rows[(size_t)k * ncol + col]);

			if (c->eq[k])
				eq = isl_mat_set_element_val(eq, neq, col, v);
			else
				ineq = isl_mat_set_element_val(ineq, nineq, col,
				    v);
			if (col == ncol - 1)
				c->eq[k] ? neq++ : nineq++;
		}
	space = isl_space_alloc(ctx, 0, c->ni, c->nj);
	snprintf(name, sizeof name, "S%d", s);
	space = isl_space_set_tuple_name(space, isl_dim_in, name);
	snprintf(name, sizeof name, "S%d", t);
	space = isl_space_set_tuple_name(space, isl_dim_out, name);
	return isl_basic_map_from_constraint_matrices(space, eq, ineq,
	    isl_dim_cst, isl_dim_param, isl_dim_in, isl_dim_out, isl_dim_div);
}

/* The box of "st" on the variables from column "col" of "c" on. */
static void
cons_box(struct cons *c, const struct stmt *st, int col)
{
	int64_t *r;
	int k;

	for (k = 0; k < st->depth; k++) {
		if ((r = cons_row(c, false)))
			r[1 + col + k] = 1;
		if ((r = cons_row(c, false))) {
			r[1 + col + k] = -1;
			r[0] = st->size[k] - 1;
		}
	}
}

static void
cons_boxes(struct cons *c, const struct model *m, int s, int t)
{
	cons_box(c, &m->st[s], 0);
	cons_box(c, &m->st[t], c->ni);
}

/* x(i) and y(j) name one element: index by index equal. */
static void
cons_same_element(struct cons *c, const struct dojo_access *x,
    const struct dojo_access *y)
{
	int64_t *r;
	int d, k;

	for (d = 0; d < x->nidx; d++) {
		if (!(r = cons_row(c, true)))
			return;
		r[0] = x->idx[d].c - y->idx[d].c;
		for (k = 0; k < x->idx[d].n; k++)
			r[1 + x->idx[d].t[k].d] += x->idx[d].t[k].k;
		for (k = 0; k < y->idx[d].n; k++)
			r[1 + c->ni + y->idx[d].t[k].d] -= y->idx[d].t[k].k;
	}
}

/* i_k = j_k for k < n; then, if "later" >= 0, j_later >= i_later + 1. */
static void
cons_prefix(struct cons *c, int n, int later)
{
	int64_t *r;
	int k;

	for (k = 0; k < n; k++)
		if ((r = cons_row(c, true))) {
			r[1 + k] = 1;
			r[1 + c->ni + k] = -1;
		}
	if (later >= 0 && (r = cons_row(c, false))) {
		r[1 + later] = -1;
		r[1 + c->ni + later] = 1;
		r[0] = -1;
	}
}

/* The number of scopes both statements are inside. */
static int
shared_scopes(const struct model *m, int s, int t)
{
	const struct stmt *a = &m->st[s], *b = &m->st[t];
	int c, k;

	for (c = 0; c < a->depth && c < b->depth; c++) {
		for (k = 0; k <= c; k++)
			if (a->pos[k] != b->pos[k])
				return c;
	}
	return c;
}

/* The pairs of "base" where s's instance runs before t's. */
static isl_map *
cons_before(isl_ctx *ctx, const struct cons *base, const struct model *m,
    int s, int t)
{
	int c = shared_scopes(m, s, t), l;
	struct cons *part;
	isl_map *map = NULL, *one;

	for (l = 0; l <= c; l++) {
		if (l == c && !(s != t && m->st[s].pos[c] < m->st[t].pos[c]))
			break;
		part = cons_copy(base);
		if (!part)
			break;
		/* the first l iterations equal, then t's later (or, at
		 * l == c, all equal and s first in the tree) */
		cons_prefix(part, l, l < c ? l : -1);
		one = isl_map_from_basic_map(cons_build(ctx, part, s, t));
		cons_free(part);
		map = map ? isl_map_union(map, one) : one;
	}
	if (!map) {
		isl_basic_map *bm = cons_build(ctx, base, s, t);

		map = isl_map_empty(isl_basic_map_get_space(bm));
		isl_basic_map_free(bm);
	}
	return map;
}

/* Add "k * aff" of access "x" on side "j" (0: i, 1: j) to row "r". */
static void
row_add_aff(int64_t *r, const struct cons *c, const struct dojo_aff *aff,
    int side, int64_t k)
{
	int t;

	r[0] += k * aff->c;
	for (t = 0; t < aff->n; t++)
		r[1 + (side ? c->ni : 0) + aff->t[t].d] += k * aff->t[t].k;
}

enum rel_elem { REL_ANY, REL_LOGICAL, REL_STORAGE };

static bool
folded_access(const dojo_program *prog, const struct dojo_access *x)
{
	const struct dojo_buffer *b = &prog->decls->buf[
	    prog->decls->arr[x->array].buffer];
	int d;

	for (d = 0; d < b->ndim; d++)
		if (b->fold[d])
			return true;
	return false;
}

/* { S_s[i] -> S_t[j] : boxes [and x(i), y(j) one element] [and before] } */
static isl_map *
rel(isl_ctx *ctx, const struct model *m, int s, const struct dojo_access *x,
    int t, const struct dojo_access *y, enum rel_elem elem, bool before)
{
	struct cons *c;
	isl_map *map;

	if (elem == REL_STORAGE && folded_access(m->prog, x)) {
		const struct dojo_buffer *buf = &m->prog->decls->buf[
		    buffer_of(m->prog, x)];
		int nj = m->st[t].depth, nq = 0, d, q = 0;
		int64_t *r;
		char name[16];

		/* a folded dimension: x - y = fold * q for some integer q */
		for (d = 0; d < buf->ndim; d++)
			nq += buf->fold[d] != 0;
		c = cons_new(m->st[s].depth, nj + nq, x->nidx);
		if (!c)
			return NULL;
		cons_boxes(c, m, s, t);
		for (d = 0; d < buf->ndim; d++) {
			r = cons_row(c, true);
			row_add_aff(r, c, &x->idx[d], 0, 1);
			row_add_aff(r, c, &y->idx[d], 1, -1);
			if (buf->fold[d])
				r[1 + c->ni + nj + q++] = -buf->fold[d];
		}
		map = before ? cons_before(ctx, c, m, s, t) :
		    isl_map_from_basic_map(cons_build(ctx, c, s, t));
		cons_free(c);
		map = isl_map_project_out(map, isl_dim_out, nj, nq);
		snprintf(name, sizeof name, "S%d", t);
		return isl_map_set_tuple_name(map, isl_dim_out, name);
	}
	c = cons_new(m->st[s].depth, m->st[t].depth, x ? x->nidx : 0);
	if (!c)
		return NULL;
	cons_boxes(c, m, s, t);
	if (elem != REL_ANY)
		cons_same_element(c, x, y);
	map = before ? cons_before(ctx, c, m, s, t) :
	    isl_map_from_basic_map(cons_build(ctx, c, s, t));
	cons_free(c);
	return map;
}

static isl_set *
domain_set(isl_ctx *ctx, const struct model *m, int s)
{
	struct cons *c = cons_new(m->st[s].depth, m->st[s].depth, 0);
	isl_set *set;

	if (!c)
		return NULL;
	cons_boxes(c, m, s, s);
	set = isl_set_from_basic_set(isl_basic_map_domain(cons_build(ctx, c,
	    s, s)));
	cons_free(c);
	return set;
}


/* Why isl failed on "ctx", or NULL when it has not. */
static const char *
isl_why(isl_ctx *ctx)
{
	const char *msg;

	switch (isl_ctx_last_error(ctx)) {
	case isl_error_none:
		return NULL;
	case isl_error_alloc:
		return "isl ran out of memory";
	default:
		msg = isl_ctx_last_error_msg(ctx);
		return msg && *msg ? msg : "isl failed";
	}
}

static isl_ctx *
new_ctx(void)
{
	isl_ctx *ctx = isl_ctx_alloc();

	if (ctx)
		isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	return ctx;
}

static bool
needs_write(dojo_program *prog, int array)
{
	enum dojo_role role =
	    prog->decls->buf[prog->decls->arr[array].buffer].role;

	return role == DOJO_OUT || role == DOJO_TEMP;
}

/* The range of the terms of "aff" at depths >= "c" (plus its constant)
 * over the box of "st". */
static void
local_range(const struct dojo_aff *aff, int c, const struct stmt *st,
    int64_t *lo, int64_t *hi)
{
	int64_t span;
	int k;

	*lo = *hi = aff->c;
	for (k = 0; k < aff->n; k++) {
		if (aff->t[k].d < c)
			continue;
		span = aff->t[k].k * (st->size[aff->t[k].d] - 1);
		if (span < 0)
			*lo += span;
		else
			*hi += span;
	}
}

/* Whether the write "x" surely writes, earlier in each iteration of the
 * scopes it shares with the read "y", every element "y" reads: the same
 * terms in the shared iterators, and in the others a dense box (one
 * iterator of step 1 a dimension, or a constant) holding y's range.  A
 * quick answer that saves isl the common cases; false means "ask isl". */
static bool
write_covers(const struct model *m, const struct xacc *x, const struct xacc *y)
{
	const struct stmt *sx = &m->st[x->stmt], *sy = &m->st[y->stmt];
	int c = shared_scopes(m, x->stmt, y->stmt), d, k, local, depth;
	uint64_t used = 0;
	int64_t xlo, xhi, ylo, yhi;

	if (x->stmt == y->stmt || sx->pos[c] > sy->pos[c])
		return false;
	for (d = 0; d < x->acc->nidx; d++) {
		const struct dojo_aff *a = &x->acc->idx[d], *b = &y->acc->idx[d];
		int na = 0, nb = 0;

		/* shared terms: equal */
		while (na < a->n && a->t[na].d < c)
			na++;
		while (nb < b->n && b->t[nb].d < c)
			nb++;
		if (na != nb)
			return false;
		for (k = 0; k < na; k++)
			if (a->t[k].d != b->t[k].d || a->t[k].k != b->t[k].k)
				return false;
		local = a->n - na;
		if (local > 1)
			return false;
		if (local == 1) {
			depth = a->t[na].d;
			if ((a->t[na].k != 1 && a->t[na].k != -1) ||
			    (used >> depth) & 1)
				return false;
			used |= 1ULL << depth;
		}
		local_range(a, c, sx, &xlo, &xhi);
		local_range(b, c, sy, &ylo, &yhi);
		if (ylo < xlo || yhi > xhi)
			return false;
	}
	return true;
}

enum dojo_result
dojo_deps_check_reads(dojo_program *prog)
{
	return dojo_deps_check_reads_of(prog, NULL);
}

enum dojo_result
dojo_deps_check_reads_of(dojo_program *prog, const bool *arrays)
{
	struct xacc_list xl;
	struct model m;
	isl_ctx *ctx = NULL;
	isl_set *dom, *covered;
	isl_map *map;
	isl_bool sub;
	enum dojo_result rc = DOJO_DONE;
	int i, j;
	const struct dojo_access *bad = NULL;
	unsigned long lost = lost_relations;

	if (model_init(&m, prog) < 0)
		return DOJO_FAILED;
	if (xacc_collect(&xl, &m) < 0) {
		free(m.st);
		return DOJO_FAILED;
	}
	for (i = 0; i < xl.n && !bad; i++) {
		const struct xacc *y = &xl.x[i];

		if (y->write || !needs_write(prog, y->acc->array) ||
		    (arrays && !arrays[y->acc->array]))
			continue;
		for (j = 0; j < xl.n; j++)
			if (xl.x[j].write && xl.x[j].acc->array == y->acc->array &&
			    write_covers(&m, &xl.x[j], y))
				break;
		if (j < xl.n)
			continue;
		/* the first instance of y comes before every instance of
		 * the operations after it in the tree, and of its own */
		for (j = 0; j < xl.n; j++)
			if (xl.x[j].write && xl.x[j].acc->array == y->acc->array &&
			    xl.x[j].stmt < y->stmt)
				break;
		if (j == xl.n) {
			bad = y->acc;
			break;
		}
		if (!ctx && !(ctx = new_ctx())) {
			dojo_error_set("out of memory");
			rc = DOJO_FAILED;
			goto out;
		}
		dom = domain_set(ctx, &m, y->stmt);
		covered = isl_set_empty(isl_set_get_space(dom));
		for (j = 0; j < xl.n; j++) {
			const struct xacc *x = &xl.x[j];

			if (!x->write || x->acc->array != y->acc->array)
				continue;
			map = rel(ctx, &m, x->stmt, x->acc, y->stmt, y->acc,
			    REL_LOGICAL, true);
			covered = isl_set_union(covered, isl_map_range(map));
		}
		sub = isl_set_is_subset(dom, covered);
		isl_set_free(dom);
		isl_set_free(covered);
		if (sub < 0) {
			dojo_error_set("%s: dependence analysis failed: %s",
			    prog->file, isl_why(ctx) ? isl_why(ctx) :
			    "isl failed");
			rc = DOJO_FAILED;
			goto out;
		}
		if (!sub)
			bad = y->acc;
	}
	if (bad) {
		rc = DOJO_REFUSED;
		dojo_error_at(prog->file, bad->pos.line, bad->pos.col,
		    "'%s' is read before it is written (%s)",
		    prog->decls->arr[bad->array].name,
		    prog->decls->buf[buffer_of(prog, bad)].role == DOJO_OUT ?
		    "an out array starts undefined" :
		    "a temporary starts undefined");
	}
out:
	if (rc != DOJO_FAILED && lost_relations != lost) {
		dojo_error_set("%s: dependence analysis failed: out of memory",
		    prog->file);
		rc = DOJO_FAILED;
	}
	if (ctx)
		isl_ctx_free(ctx);
	free(xl.x);
	free(m.st);
	return rc;
}

/*
 * Memory-based dependences, on storage (a folded dimension is its slot, the
 * arrays of one buffer share its storage), for the legality of moves.
 */

enum { SIGN_LT = 1, SIGN_EQ = 2, SIGN_GT = 4 };

/* The instance pairs of two operations that touch one element, one of
 * them writing: src is the earlier operation in the tree (or the same). */
struct dep {
	int src, dst;		/* statements */
	int buffer;
	int m;			/* levels compared */
	bool chain;		/* a reduction's own accumulation */
	/* the access pairs (indices into the list of accesses); isl is
	 * asked about them only when a query reaches this pair */
	int (*pairs)[2];
	int npairs;
	int state;		/* 0: not computed, 1: empty, 2: not empty */
	bool built;		/* kind and delta made (dep_build) */
	isl_map *kind[3];	/* write-read, read-write, write-write pairs */
	isl_set *delta;		/* dst's iteration - src's, first m levels */
	uint8_t sign[DOJO_MAX_DEPTH];	/* with the levels before equal */
	uint64_t sign_known;
	uint64_t swapbad;	/* bit l: d_l, d_l+1 of opposite signs */
	uint64_t swap_known;
};

struct dojo_deps {
	isl_ctx *ctx;
	struct model m;
	struct dep *dep;
	int n;
	bool *reduction;	/* per statement */
	struct xacc_list xl;
	/* per buffer, when a fold of it was asked: fold_deltas */
	isl_set **fold_delta;
	unsigned long lost_at_new;	/* lost_relations when made */
	/* the folds answered so far (dojo_deps_fold_conflict) */
	struct fold_answer {
		int b, d;
		int64_t n;
		bool conflict;
	} *folds;
	int nfolds, capfolds;
};

/* Whether "e" reads the storage of buffer "b" anywhere. */
static bool
expr_reads(const dojo_program *prog, const struct dojo_expr *e, int b)
{
	if (!e)
		return false;
	if (e->kind == DOJO_E_ACCESS &&
	    prog->decls->arr[e->acc.array].buffer == b)
		return true;
	return expr_reads(prog, e->a, b) || expr_reads(prog, e->b, b);
}

static bool
aff_uses(const struct dojo_aff *aff, int d)
{
	int i;

	for (i = 0; i < aff->n; i++)
		if (aff->t[i].d == d)
			return true;
	return false;
}

bool
dojo_access_uses(const struct dojo_access *acc, int d)
{
	int i;

	for (i = 0; i < acc->nidx; i++)
		if (aff_uses(&acc->idx[i], d))
			return true;
	return false;
}

struct touch_ctx {
	int buffer;
	dojo_program *prog;
};

static int
touches(struct dojo_access *acc, bool write, void *payload)
{
	struct touch_ctx *c = payload;

	return c->prog->decls->arr[acc->array].buffer == c->buffer;
}

/* A reduction (doc/moves.md, section 4): an update with + * max min whose
 * element is read nowhere else inside the scopes that vary while the
 * element stays fixed. */
static bool
is_reduction(struct model *m, int si)
{
	const struct stmt *s = &m->st[si];
	const struct dojo_node *op = s->op;
	struct touch_ctx tc;
	int outer, i, j;

	if (op->update == DOJO_SET || op->update == DOJO_SUB_SET ||
	    expr_reads(m->prog, op->rhs,
	    m->prog->decls->arr[op->lhs.array].buffer))
		return false;
	for (outer = 0; outer < s->depth; outer++)
		if (!dojo_access_uses(&op->lhs, outer))
			break;
	if (outer == s->depth)
		return false;	/* no scope accumulates into one element */
	tc.prog = m->prog;
	tc.buffer = m->prog->decls->arr[op->lhs.array].buffer;
	for (i = 0; i < m->n; i++) {
		if (i == si || m->st[i].depth <= outer)
			continue;
		for (j = 0; j <= outer; j++)
			if (m->st[i].pos[j] != s->pos[j])
				break;
		if (j <= outer)
			continue;
		if (dojo_op_foreach_access(m->st[i].op, touches, &tc))
			return false;
	}
	return true;
}

/* Whether "set" has a point.  An isl error counts as a point: a question
 * isl could not answer never makes a move legal (dojo_deps_failure). */
static bool
set_nonempty(isl_set *set)
{
	isl_bool e = isl_set_is_empty(set);

	isl_set_free(set);
	return e != isl_bool_true;
}

/* The distance vectors of "map" (S[i] -> T[j]) on its first "m" levels. */
static isl_set *
distances(isl_map *map, int m)
{
	int din = isl_map_dim(map, isl_dim_in);
	int dout = isl_map_dim(map, isl_dim_out);

	map = isl_map_project_out(map, isl_dim_in, m, din - m);
	map = isl_map_project_out(map, isl_dim_out, m, dout - m);
	map = isl_map_set_tuple_name(map, isl_dim_in, "D");
	map = isl_map_set_tuple_name(map, isl_dim_out, "D");
	return isl_map_deltas(map);
}

/*
 * Dependences answered in plain C, exactly, where every index of the two
 * accesses has at most one term on each side, of coefficient 1 or -1, and
 * the buffer is not folded (the accesses of most kernels before a split).
 * Then "x(i) = y(j)" and the equal levels of a question are equations
 * u = +-w + c between two iterators: the iterators fall into classes,
 * each a value r of its own (v = sg r + off), r in an interval, and a
 * question about one or two signs of distances is one about a few such r.
 */

struct unit_var {
	int root;
	int sg;			/* v = sg * r_root + off */
	int64_t off;
};

/* An index whose other terms are of iterators found nowhere else (and
 * not in the question): ka v_a + kb v_b in [lo, hi] (a, b: -1 for none). */
struct unit_slack {
	int a, b;
	int64_t ka, kb;
	int64_t lo, hi;
};

struct unit_sys {
	int n;			/* i_0 .. i_(ds-1), then j_0 .. j_(dt-1) */
	int ds;
	struct unit_var v[2 * DOJO_MAX_DEPTH];
	int64_t lo[2 * DOJO_MAX_DEPTH], hi[2 * DOJO_MAX_DEPTH];	/* roots */
	struct unit_slack slack[DOJO_MAX_DIMS];
	int nslack;
	bool empty;
	bool overflow;		/* no answer: ask isl */
};

/* r_root in [lo, hi] */
static void
unit_bound(struct unit_sys *u, int root, int64_t lo, int64_t hi)
{
	if (lo > u->lo[root])
		u->lo[root] = lo;
	if (hi < u->hi[root])
		u->hi[root] = hi;
	if (u->lo[root] > u->hi[root])
		u->empty = true;
}

/* a = sg b + c for the variables "a" and "b" */
static void
unit_equate(struct unit_sys *u, int a, int sg, int b, int64_t c)
{
	struct unit_var *va = &u->v[a], *vb = &u->v[b];
	int ra = va->root, rb = vb->root, s, k;
	int64_t o, rhs, t;

	/* sa ra + oa = sg (sb rb + ob) + c */
	if (__builtin_mul_overflow((int64_t)sg, vb->off, &t) ||
	    __builtin_add_overflow(t, c, &rhs) ||
	    __builtin_sub_overflow(rhs, va->off, &rhs)) {
		u->overflow = true;
		return;
	}
	s = sg * vb->sg;	/* sa ra = s rb + rhs */
	if (ra == rb) {
		if (va->sg == s) {
			if (rhs != 0)
				u->empty = true;
			return;
		}
		/* 2 sa ra = rhs */
		if (rhs % 2 != 0) {
			u->empty = true;
			return;
		}
		rhs = va->sg > 0 ? rhs / 2 : -(rhs / 2);
		unit_bound(u, ra, rhs, rhs);
		return;
	}
	/* ra = sa s rb + sa rhs: the class of ra joins that of rb */
	s *= va->sg;
	if (__builtin_mul_overflow((int64_t)va->sg, rhs, &o)) {
		u->overflow = true;
		return;
	}
	for (k = 0; k < u->n; k++) {
		struct unit_var *w = &u->v[k];

		if (w->root != ra)
			continue;
		/* w = sw ra + ow = sw s rb + sw o + ow */
		if (__builtin_mul_overflow((int64_t)w->sg, o, &t) ||
		    __builtin_add_overflow(t, w->off, &t)) {
			u->overflow = true;
			return;
		}
		w->root = rb;
		w->sg *= s;
		w->off = t;
	}
	/* ra in [lo, hi]: rb in s ([lo, hi] - o) */
	if (__builtin_sub_overflow(u->lo[ra], o, &t) ||
	    __builtin_sub_overflow(u->hi[ra], o, &rhs)) {
		u->overflow = true;
		return;
	}
	if (s > 0)
		unit_bound(u, rb, t, rhs);
	else if (t == INT64_MIN || rhs == INT64_MIN)
		u->overflow = true;
	else
		unit_bound(u, rb, -rhs, -t);
}

/* The range of k v over v in [0, size - 1] added to [*lo, *hi]; false on
 * overflow. */
static bool
span_add(int64_t k, int64_t size, int64_t *lo, int64_t *hi)
{
	int64_t t;

	if (__builtin_mul_overflow(k, size - 1, &t))
		return false;
	return t < 0 ? !__builtin_add_overflow(*lo, t, lo) :
	    !__builtin_add_overflow(*hi, t, hi);
}

/* The system of x(i) = y(j) over the two boxes, for a question about the
 * levels below "touch"; false when an index is not of the unit form.  An
 * iterator of a level from "touch" on that only one index uses, with
 * coefficient 1 or -1, is slack: the index then only bounds the others
 * (unit_slack). */
static bool
unit_init(struct unit_sys *u, const struct model *m, const struct xacc *x,
    const struct xacc *y, int touch)
{
	const struct stmt *s = &m->st[x->stmt], *t = &m->st[y->stmt];
	int64_t kx[DOJO_MAX_DIMS][DOJO_MAX_DEPTH];
	int64_t ky[DOJO_MAX_DIMS][DOJO_MAX_DEPTH];
	int64_t cx, cy, c, slo, shi;
	int ox[DOJO_MAX_DEPTH] = { 0 }, oy[DOJO_MAX_DEPTH] = { 0 };
	int dim, l, px, py, nx, ny, k, nidx = x->acc->nidx;
	bool slack;

	if (nidx != y->acc->nidx)
		return false;
	u->ds = s->depth;
	u->n = s->depth + t->depth;
	u->nslack = 0;
	u->empty = u->overflow = false;
	for (k = 0; k < u->n; k++) {
		u->v[k].root = k;
		u->v[k].sg = 1;
		u->v[k].off = 0;
		u->lo[k] = 0;
		u->hi[k] = (k < s->depth ? s->size[k] :
		    t->size[k - s->depth]) - 1;
	}
	for (dim = 0; dim < nidx; dim++) {
		if (!aff_dense(&x->acc->idx[dim], s->depth, kx[dim], &cx) ||
		    !aff_dense(&y->acc->idx[dim], t->depth, ky[dim], &cy))
			return false;
		for (l = 0; l < s->depth; l++)
			ox[l] += kx[dim][l] != 0;
		for (l = 0; l < t->depth; l++)
			oy[l] += ky[dim][l] != 0;
	}
	for (dim = 0; dim < nidx; dim++) {
		aff_dense(&x->acc->idx[dim], s->depth, kx[dim], &cx);
		aff_dense(&y->acc->idx[dim], t->depth, ky[dim], &cy);
		if (__builtin_sub_overflow(cy, cx, &c) || c == INT64_MIN)
			return false;
		/* kx i + cx = ky j + cy: the slack terms go into [slo, shi] */
		slo = shi = c;
		slack = false;
		for (l = 0, nx = 0, px = -1; l < s->depth; l++) {
			if (!kx[dim][l])
				continue;
			if (l >= touch && ox[l] == 1 && (kx[dim][l] == 1 ||
			    kx[dim][l] == -1)) {
				if (!span_add(-kx[dim][l], s->size[l], &slo,
				    &shi))
					return false;
				slack = true;
				continue;
			}
			nx++;
			px = l;
		}
		for (l = 0, ny = 0, py = -1; l < t->depth; l++) {
			if (!ky[dim][l])
				continue;
			if (l >= touch && oy[l] == 1 && (ky[dim][l] == 1 ||
			    ky[dim][l] == -1)) {
				if (!span_add(ky[dim][l], t->size[l], &slo,
				    &shi))
					return false;
				slack = true;
				continue;
			}
			ny++;
			py = l;
		}
		if (nx > 1 || ny > 1 ||
		    (nx && kx[dim][px] != 1 && kx[dim][px] != -1) ||
		    (ny && ky[dim][py] != 1 && ky[dim][py] != -1))
			return false;
		if (slack) {
			struct unit_slack *sl = &u->slack[u->nslack++];

			/* kx i - ky j in [slo, shi] */
			sl->a = nx ? px : -1;
			sl->ka = nx ? kx[dim][px] : 0;
			sl->b = ny ? s->depth + py : -1;
			sl->kb = ny ? -ky[dim][py] : 0;
			sl->lo = slo;
			sl->hi = shi;
			continue;
		}
		if (nx && ny) {
			unit_equate(u, px, (int)(kx[dim][px] * ky[dim][py]),
			    s->depth + py, kx[dim][px] * c);
		} else if (nx || ny) {
			int v = nx ? px : s->depth + py;
			int64_t val = nx ? kx[dim][px] * c : -ky[dim][py] * c;
			struct unit_var *w = &u->v[v];

			/* sg r + off = val */
			if (__builtin_sub_overflow(val, w->off, &val) ||
			    val == INT64_MIN)
				return false;
			val = w->sg > 0 ? val : -val;
			unit_bound(u, w->root, val, val);
		} else if (c != 0) {
			u->empty = true;
		}
		if (u->overflow)
			return false;
	}
	return true;
}

/* A distance j_l - i_l as sum of coef[k] r_root[k] plus "c". */
struct unit_form {
	int n;
	int root[2];
	int64_t coef[2];
	int64_t c;
};

static bool
unit_distance(const struct unit_sys *u, int l, struct unit_form *f)
{
	const struct unit_var *vi = &u->v[l], *vj = &u->v[u->ds + l];

	if (__builtin_sub_overflow(vj->off, vi->off, &f->c))
		return false;
	f->n = 0;
	if (vi->root == vj->root) {
		if (vj->sg != vi->sg) {
			f->root[0] = vi->root;
			f->coef[f->n++] = vj->sg - vi->sg;
		}
		return true;
	}
	f->root[0] = vj->root;
	f->coef[0] = vj->sg;
	f->root[1] = vi->root;
	f->coef[1] = -vi->sg;
	f->n = 2;
	return true;
}

/* Whether the form takes a value in [lo, hi] over the intervals; -1 on
 * overflow.  Terms of coefficient +-1 fill every integer between the
 * extremes; a lone term of +-2 only those of its parity. */
static int
unit_meets(const struct unit_sys *u, const struct unit_form *f, int64_t lo,
    int64_t hi)
{
	int64_t min = f->c, max = f->c, a, b;
	int k;

	for (k = 0; k < f->n; k++) {
		if (__builtin_mul_overflow(f->coef[k], u->lo[f->root[k]], &a) ||
		    __builtin_mul_overflow(f->coef[k], u->hi[f->root[k]], &b))
			return -1;
		if (a > b) {
			int64_t t = a;

			a = b;
			b = t;
		}
		if (__builtin_add_overflow(min, a, &min) ||
		    __builtin_add_overflow(max, b, &max))
			return -1;
	}
	if (lo < min)
		lo = min;
	if (hi > max)
		hi = max;
	if (lo > hi)
		return 0;
	if (lo == hi && f->n == 1 && (f->coef[0] == 2 || f->coef[0] == -2))
		return (lo - min) % 2 == 0;
	return 1;
}

/* The same for a sign (SIGN_LT: <= -1, SIGN_EQ: 0, SIGN_GT: >= 1). */
static int
unit_takes(const struct unit_sys *u, const struct unit_form *f, int sign)
{
	return sign == SIGN_GT ? unit_meets(u, f, 1, INT64_MAX) :
	    sign == SIGN_LT ? unit_meets(u, f, INT64_MIN, -1) :
	    unit_meets(u, f, 0, 0);
}

/* The slack "sl" as a form over the classes, its range into lo..hi. */
static bool
unit_slack_form(const struct unit_sys *u, const struct unit_slack *sl,
    struct unit_form *f, int64_t *lo, int64_t *hi)
{
	const int vars[2] = { sl->a, sl->b };
	const int64_t ks[2] = { sl->ka, sl->kb };
	int64_t t;
	int k;

	f->n = 0;
	f->c = 0;
	for (k = 0; k < 2; k++) {
		const struct unit_var *w;

		if (vars[k] < 0)
			continue;
		w = &u->v[vars[k]];
		if (__builtin_mul_overflow(ks[k], w->off, &t) ||
		    __builtin_add_overflow(f->c, t, &f->c))
			return false;
		if (f->n == 1 && f->root[0] == w->root) {
			f->coef[0] += ks[k] * w->sg;
			if (f->coef[0] == 0)
				f->n = 0;
			continue;
		}
		f->root[f->n] = w->root;
		f->coef[f->n++] = ks[k] * w->sg;
	}
	*lo = sl->lo;
	*hi = sl->hi;
	return true;
}

/* Whether "f" and "g" share no class. */
static bool
unit_apart(const struct unit_form *f, const struct unit_form *g)
{
	int a, b;

	for (a = 0; a < f->n; a++)
		for (b = 0; b < g->n; b++)
			if (f->root[a] == g->root[b])
				return false;
	return true;
}

/* For the access pair "x", "y": whether some pair of instances touching
 * one element has its distances 0 on the levels before "l", then (when
 * sign1 is not 0) the sign "sign1" at l and (when sign2 is not 0) "sign2"
 * at l + 1.  1, 0, or -1 when this is not for plain C.  The slack indices
 * and the distances asked about must bound disjoint sets of classes:
 * each is then a question of its own. */
static int
unit_query(const struct model *m, const struct xacc *x, const struct xacc *y,
    int l, int sign1, int sign2)
{
	struct unit_sys u;
	struct unit_form f[2 + DOJO_MAX_DIMS];
	int64_t lo, hi;
	int k, j, nf = 0, r, rc = 1;

	if (!unit_init(&u, m, x, y, sign2 ? l + 2 : sign1 ? l + 1 : l))
		return -1;
	for (k = 0; k < l && !u.empty; k++) {
		unit_equate(&u, u.ds + k, 1, k, 0);
		if (u.overflow)
			return -1;
	}
	if (u.empty)
		return 0;
	if (sign1 && !unit_distance(&u, l, &f[nf++]))
		return -1;
	if (sign2 && !unit_distance(&u, l + 1, &f[nf++]))
		return -1;
	for (k = 0; k < u.nslack; k++)
		if (!unit_slack_form(&u, &u.slack[k], &f[nf++], &lo, &hi))
			return -1;
	for (k = 0; k < nf; k++)
		for (j = k + 1; j < nf; j++)
			if (!unit_apart(&f[k], &f[j]))
				return -1;
	for (k = 0, j = 0; k < nf && rc > 0; k++) {
		if (k == 0 && sign1)
			r = unit_takes(&u, &f[k], sign1);
		else if (k == 1 && sign2)
			r = unit_takes(&u, &f[k], sign2);
		else {
			unit_slack_form(&u, &u.slack[j++], &f[k], &lo, &hi);
			r = unit_meets(&u, &f[k], lo, hi);
		}
		if (r < 0)
			return -1;
		rc = r;
	}
	return rc;
}

/* The same question for every access pair of "d": 1 when one answers
 * yes, 0 when all say no, -1 when one before is not for plain C. */
static int
dep_unit_query(const dojo_deps *deps, const struct dep *d, int l, int sign1,
    int sign2)
{
	const struct dojo_buffer *buf = &deps->m.prog->decls->buf[d->buffer];
	int i, r;

	for (i = 0; i < buf->ndim; i++)
		if (buf->fold[i])
			return -1;
	for (i = 0; i < d->npairs; i++) {
		r = unit_query(&deps->m, &deps->xl.x[d->pairs[i][0]],
		    &deps->xl.x[d->pairs[i][1]], l, sign1, sign2);
		if (r != 0)
			return r;	/* one pair is enough; or not for C */
	}
	return 0;
}

/* Build the relations of "d" (once): its kinds of pairs and, when it is
 * not empty, its distances.  Whether it is empty stays as plain C found
 * it (dep_exists), where it did. */
static void
dep_build(dojo_deps *deps, struct dep *d)
{
	isl_map *map, *u = NULL;
	bool lost = false;
	int i, k;

	if (d->built)
		return;
	d->built = true;
	for (i = 0; i < d->npairs; i++) {
		const struct xacc *x = &deps->xl.x[d->pairs[i][0]];
		const struct xacc *y = &deps->xl.x[d->pairs[i][1]];

		map = rel(deps->ctx, &deps->m, x->stmt, x->acc, y->stmt, y->acc,
		    REL_STORAGE, false);
		lost |= !map;
		k = x->write ? (y->write ? 2 : 0) : 1;
		d->kind[k] = d->kind[k] ? isl_map_union(d->kind[k], map) : map;
	}
	for (k = 0; k < 3; k++)
		if (d->kind[k])
			u = u ? isl_map_union(u, isl_map_copy(d->kind[k])) :
			    isl_map_copy(d->kind[k]);
	/* an error (no map, or no answer) is a dependence, as in
	 * set_nonempty */
	if (!d->state)
		d->state = lost || !u || isl_map_is_empty(u) != isl_bool_true ?
		    2 : 1;
	if (d->state == 2)
		d->delta = distances(u, d->m);
	else
		isl_map_free(u);
}

/* Whether "d" has a pair of instances, decided on first use: in plain C
 * where its accesses allow (dep_unit_query), else by isl. */
static bool
dep_exists(dojo_deps *deps, struct dep *d)
{
	int r;

	if (!d->state) {
		r = dep_unit_query(deps, d, 0, 0, 0);
		if (r >= 0)
			d->state = r ? 2 : 1;
		else
			dep_build(deps, d);
	}
	return d->state == 2;
}

/* The distances of "d" whose first "l" levels are 0. */
static isl_set *
prefix_zero(const struct dep *d, int l)
{
	isl_set *p = isl_set_copy(d->delta);
	int k;

	for (k = 0; k < l; k++)
		p = isl_set_fix_si(p, isl_dim_set, k, 0);
	return p;
}

static uint8_t
dep_sign(dojo_deps *deps, struct dep *d, int l)
{
	static const int signs[3] = { SIGN_GT, SIGN_LT, SIGN_EQ };
	isl_set *p;
	int k, r;

	if ((d->sign_known >> l) & 1)
		return d->sign[l];
	for (k = 0; k < 3; k++) {
		r = dep_unit_query(deps, d, l, signs[k], 0);
		if (r < 0)
			break;
		if (r)
			d->sign[l] |= signs[k];
	}
	if (k == 3) {
		d->sign_known |= 1ULL << l;
		return d->sign[l];
	}
	d->sign[l] = 0;
	dep_build(deps, d);
	p = prefix_zero(d, l);
	if (set_nonempty(isl_set_lower_bound_si(isl_set_copy(p), isl_dim_set,
	    l, 1)))
		d->sign[l] |= SIGN_GT;
	if (set_nonempty(isl_set_upper_bound_si(isl_set_copy(p), isl_dim_set,
	    l, -1)))
		d->sign[l] |= SIGN_LT;
	if (set_nonempty(isl_set_fix_si(p, isl_dim_set, l, 0)))
		d->sign[l] |= SIGN_EQ;
	d->sign_known |= 1ULL << l;
	return d->sign[l];
}

static bool
dep_swapbad(dojo_deps *deps, struct dep *d, int l)
{
	isl_set *p;
	int a, b = 0;

	if (l + 1 >= d->m)
		return false;
	if ((d->swap_known >> l) & 1)
		return (d->swapbad >> l) & 1;
	a = dep_unit_query(deps, d, l, SIGN_GT, SIGN_LT);
	if (a == 0)
		b = dep_unit_query(deps, d, l, SIGN_LT, SIGN_GT);
	if (a >= 0 && b >= 0) {
		if (a || b)
			d->swapbad |= 1ULL << l;
		d->swap_known |= 1ULL << l;
		return (d->swapbad >> l) & 1;
	}
	dep_build(deps, d);
	p = prefix_zero(d, l);
	if (set_nonempty(isl_set_upper_bound_si(isl_set_lower_bound_si(
	    isl_set_copy(p), isl_dim_set, l, 1), isl_dim_set, l + 1, -1)) ||
	    set_nonempty(isl_set_lower_bound_si(isl_set_upper_bound_si(
	    isl_set_copy(p), isl_dim_set, l, -1), isl_dim_set, l + 1, 1)))
		d->swapbad |= 1ULL << l;
	isl_set_free(p);
	d->swap_known |= 1ULL << l;
	return (d->swapbad >> l) & 1;
}

static struct dep *
find_dep(dojo_deps *deps, int s, int t, int b)
{
	struct dep *g, *d;
	int i;

	for (i = 0; i < deps->n; i++)
		if (deps->dep[i].src == s && deps->dep[i].dst == t &&
		    deps->dep[i].buffer == b)
			return &deps->dep[i];
	g = realloc(deps->dep, sizeof *g * (deps->n + 1));
	if (!g)
		return NULL;
	deps->dep = g;
	d = &deps->dep[deps->n++];
	memset(d, 0, sizeof *d);
	d->src = s;
	d->dst = t;
	d->buffer = b;
	d->m = deps->m.st[s].depth < deps->m.st[t].depth ?
	    deps->m.st[s].depth : deps->m.st[t].depth;
	d->chain = s == t && deps->reduction[s] &&
	    buffer_of(deps->m.prog, &deps->m.st[s].op->lhs) == b;
	return d;
}

void
dojo_deps_free(dojo_deps *deps)
{
	int i, k;

	if (!deps)
		return;
	for (i = 0; i < deps->n; i++) {
		isl_set_free(deps->dep[i].delta);
		for (k = 0; k < 3; k++)
			isl_map_free(deps->dep[i].kind[k]);
		free(deps->dep[i].pairs);
	}
	free(deps->dep);
	free(deps->reduction);
	for (i = 0; deps->fold_delta && i < deps->m.prog->decls->nbuf; i++)
		isl_set_free(deps->fold_delta[i]);
	free(deps->fold_delta);
	free(deps->folds);
	free(deps->xl.x);
	free(deps->m.st);
	if (deps->ctx)
		isl_ctx_free(deps->ctx);
	free(deps);
}

dojo_deps *
dojo_deps_new(dojo_program *prog)
{
	struct xacc_list xl = { 0 };
	dojo_deps *deps;
	struct dep *d;
	int i, j;

	deps = calloc(1, sizeof *deps);
	if (!deps) {
		dojo_error_set("out of memory");
		return NULL;
	}
	deps->lost_at_new = lost_relations;
	if (model_init(&deps->m, prog) < 0 || xacc_collect(&xl, &deps->m) < 0)
		goto out_free;
	deps->reduction = calloc(deps->m.n + 1, sizeof *deps->reduction);
	deps->ctx = new_ctx();
	if (!deps->reduction || !deps->ctx) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	for (i = 0; i < deps->m.n; i++)
		deps->reduction[i] = is_reduction(&deps->m, i);
	/* every pair of accesses to one storage, one of them a write, the
	 * first in an earlier (or the same) operation */
	for (i = 0; i < xl.n; i++)
		for (j = 0; j < xl.n; j++) {
			const struct xacc *x = &xl.x[i], *y = &xl.x[j];
			int (*grown)[2];

			if ((!x->write && !y->write) || x->stmt > y->stmt ||
			    buffer_of(prog, x->acc) != buffer_of(prog, y->acc))
				continue;
			d = find_dep(deps, x->stmt, y->stmt,
			    buffer_of(prog, x->acc));
			grown = d ? realloc(d->pairs, sizeof *grown *
			    (d->npairs + 1)) : NULL;
			if (!grown) {
				dojo_error_set("out of memory");
				goto out_free;
			}
			d->pairs = grown;
			d->pairs[d->npairs][0] = i;
			d->pairs[d->npairs][1] = j;
			d->npairs++;
		}
	deps->xl = xl;
	return deps;
out_free:
	free(xl.x);
	dojo_deps_free(deps);
	return NULL;
}

const char *
dojo_deps_failure(dojo_deps *deps)
{
	if (lost_relations != deps->lost_at_new)
		return "out of memory in the dependence analysis";
	return isl_why(deps->ctx);
}

static bool
in_subtree(const struct stmt *s, const int *path, int n)
{
	int i;

	if (!path)
		return true;
	if (s->depth + 1 < n)
		return false;
	for (i = 0; i < n; i++)
		if (s->pos[i] != path[i])
			return false;
	return true;
}

/* Whether "s" is in the subtrees "path" (n indices) .. "end" - 1 at its
 * last index (end 0: the one subtree "path"). */
static bool
in_subtrees(const struct stmt *s, const int *path, int n, int end)
{
	int i;

	if (!path || end <= 0)
		return in_subtree(s, path, n);
	if (s->depth + 1 < n)
		return false;
	for (i = 0; i + 1 < n; i++)
		if (s->pos[i] != path[i])
			return false;
	return s->pos[n - 1] >= path[n - 1] && s->pos[n - 1] < end;
}

/* The statements of those subtrees, [*lo, *hi): they come together in
 * tree order. */
static void
subtrees_range(const struct model *m, const int *path, int n, int end,
    int *lo, int *hi)
{
	int i;

	for (i = 0; i < m->n && !in_subtrees(&m->st[i], path, n, end); i++)
		;
	*lo = i;
	for (; i < m->n && in_subtrees(&m->st[i], path, n, end); i++)
		;
	*hi = i;
}

static bool
dep_matches(dojo_deps *deps, struct dep *d, const struct dojo_dep_query *q)
{
	int l = q->level;

	if (!in_subtrees(&deps->m.st[d->src], q->src_path, q->src_len,
	    q->src_end) || !in_subtrees(&deps->m.st[d->dst], q->dst_path,
	    q->dst_len, q->dst_end))
		return false;
	if (d->chain && q->skip_chains)
		return false;
	if (q->skip_buffers && q->skip_buffers[d->buffer])
		return false;
	if (d->chain && q->skip_invariant_chains &&
	    !dojo_access_uses(&deps->m.st[d->src].op->lhs, l))
		return false;
	if (!dep_exists(deps, d))
		return false;
	switch (q->kind) {
	case DOJO_DEP_CARRIED:
		return l < d->m && (dep_sign(deps, d, l) & (SIGN_GT | SIGN_LT));
	case DOJO_DEP_SWAP:
		return dep_swapbad(deps, d, l);
	case DOJO_DEP_BACKWARD:
		return l < d->m && (dep_sign(deps, d, l) & SIGN_LT);
	case DOJO_DEP_SAME:
		return l == 0 || (l <= d->m &&
		    (dep_sign(deps, d, l - 1) & SIGN_EQ));
	case DOJO_DEP_ANY:
		return true;
	}
	return false;
}

int
dojo_deps_find(dojo_deps *deps, const struct dojo_dep_query *q)
{
	int slo, shi, dlo, dhi, i, lo, hi, mid;

	/* the dependences come sorted by their source statement: those of
	 * the first subtrees, each of them checked for the second */
	subtrees_range(&deps->m, q->src_path, q->src_len, q->src_end, &slo,
	    &shi);
	subtrees_range(&deps->m, q->dst_path, q->dst_len, q->dst_end, &dlo,
	    &dhi);
	lo = 0;
	hi = deps->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (deps->dep[mid].src < slo)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < deps->n && deps->dep[i].src < shi; i++)
		if (deps->dep[i].dst >= dlo && deps->dep[i].dst < dhi &&
		    dep_matches(deps, &deps->dep[i], q))
			return i;
	return -1;
}

/* The distance vectors of "delta" that the query "q" matches. */
static isl_set *
violating(isl_set *delta, const struct dojo_dep_query *q, int variant)
{
	int l = q->level, i, sign = variant ? -1 : 1;

	for (i = 0; i < l && i < isl_set_dim(delta, isl_dim_set); i++)
		if (q->kind != DOJO_DEP_ANY)
			delta = isl_set_fix_si(delta, isl_dim_set, i, 0);
	switch (q->kind) {
	case DOJO_DEP_SWAP:
		delta = sign > 0 ?
		    isl_set_lower_bound_si(delta, isl_dim_set, l, 1) :
		    isl_set_upper_bound_si(delta, isl_dim_set, l, -1);
		delta = sign > 0 ?
		    isl_set_upper_bound_si(delta, isl_dim_set, l + 1, -1) :
		    isl_set_lower_bound_si(delta, isl_dim_set, l + 1, 1);
		break;
	case DOJO_DEP_BACKWARD:
		delta = isl_set_upper_bound_si(delta, isl_dim_set, l, -1);
		break;
	case DOJO_DEP_CARRIED:
		delta = sign > 0 ?
		    isl_set_lower_bound_si(delta, isl_dim_set, l, 1) :
		    isl_set_upper_bound_si(delta, isl_dim_set, l, -1);
		break;
	default:
		break;
	}
	return delta;
}

static void
add_address(struct dojo_strbuf *sb, const struct stmt *s)
{
	int i;

	for (i = 0; i <= s->depth; i++)
		dojo_strbuf_printf(sb, i ? ".%d" : "%d", s->pos[i]);
}

void
dojo_deps_describe(struct dojo_strbuf *sb, dojo_deps *deps, int k,
    const struct dojo_dep_query *q)
{
	struct dep *d = &deps->dep[k];
	const struct stmt *first, *second;
	isl_point *pt = NULL;
	isl_val *v;
	int dir[DOJO_MAX_DEPTH], i, kind = -1, variant, lex = 0, shared;
	const char *name;

	dep_build(deps, d);

	/* a witness: a distance vector the move would break */
	for (variant = 0; variant < 2 && kind < 0; variant++)
		for (i = 0; i < 3 && kind < 0; i++) {
			if (!d->kind[i])
				continue;
			pt = isl_set_sample_point(violating(distances(
			    isl_map_copy(d->kind[i]), d->m), q, variant));
			if (pt && isl_point_is_void(pt) == isl_bool_false)
				kind = i;
			else
				isl_point_free(pt);
		}
	shared = shared_scopes(&deps->m, d->src, d->dst);
	for (i = 0; i < d->m; i++) {
		dir[i] = 0;
		if (kind >= 0) {
			v = isl_point_get_coordinate_val(pt, isl_dim_set, i);
			dir[i] = isl_val_sgn(v);
			isl_val_free(v);
		}
		/* the order of two instances: their shared scopes, then
		 * the tree */
		if (!lex && i < shared)
			lex = dir[i];
	}
	isl_point_free(pt);
	/* the source is whichever instance runs first */
	first = &deps->m.st[d->src];
	second = &deps->m.st[d->dst];
	if (lex < 0) {
		first = second;
		second = &deps->m.st[d->src];
		for (i = 0; i < d->m; i++)
			dir[i] = -dir[i];
	}
	name = kind == 2 ? "output" : kind < 0 ? "memory" :
	    (kind == 0) == (lex >= 0) ? "flow" : "anti";
	dojo_strbuf_puts(sb, "the dependence of ");
	add_address(sb, second);
	dojo_strbuf_puts(sb, " on ");
	add_address(sb, first);
	dojo_strbuf_printf(sb, " through %s (%s)",
	    deps->m.prog->decls->buf[d->buffer].name, name);
	if (kind < 0 || d->m == 0)
		return;
	dojo_strbuf_puts(sb, ", direction (");
	for (i = 0; i < d->m; i++)
		dojo_strbuf_printf(sb, "%s%s", i ? ", " : "",
		    dir[i] > 0 ? "<" : dir[i] < 0 ? ">" : "=");
	dojo_strbuf_puts(sb, ")");
}

/*
 * Dependences for a reader: each (source, sink, storage, kind) with its
 * direction vectors, the source's instance running first.
 */

#define MAX_DIRS 64

struct dirs {
	int n, levels;
	unsigned char v[MAX_DIRS][DOJO_MAX_DEPTH];
	unsigned char flat[MAX_DIRS * DOJO_MAX_DEPTH];	/* rows packed */
};

static void
dirs_add(struct dirs *dirs, const unsigned char *cur)
{
	int l;

	if (dirs->n < MAX_DIRS) {
		memcpy(dirs->v[dirs->n++], cur, dirs->levels);
		return;
	}
	/* too many: the last row grows to cover the rest */
	for (l = 0; l < dirs->levels; l++)
		dirs->v[MAX_DIRS - 1][l] |= cur[l];
}

/* Add the sign vectors of the distances "delta" (taken) to "dirs", the
 * levels before "l" being "cur".  0, or -1 when isl fails. */
static int
dirs_collect(struct dirs *dirs, isl_set *delta, int l, unsigned char *cur)
{
	static const unsigned char sign[3] = {
		DOJO_DIR_LT, DOJO_DIR_EQ, DOJO_DIR_GT
	};
	isl_bool empty = isl_set_is_empty(delta);
	isl_set *part;
	int k;

	if (empty != isl_bool_false || l == dirs->levels) {
		if (empty == isl_bool_false)
			dirs_add(dirs, cur);
		isl_set_free(delta);
		return empty < 0 ? -1 : 0;
	}
	for (k = 0; k < 3; k++) {
		part = isl_set_copy(delta);
		if (sign[k] == DOJO_DIR_LT)
			part = isl_set_lower_bound_si(part, isl_dim_set, l, 1);
		else if (sign[k] == DOJO_DIR_EQ)
			part = isl_set_fix_si(part, isl_dim_set, l, 0);
		else
			part = isl_set_upper_bound_si(part, isl_dim_set, l, -1);
		cur[l] = sign[k];
		if (dirs_collect(dirs, part, l + 1, cur) < 0) {
			isl_set_free(delta);
			return -1;
		}
	}
	isl_set_free(delta);
	return 0;
}

/* Merge two vectors that differ at one level at most (their union is
 * then one vector), until none do. */
static void
dirs_merge(struct dirs *dirs)
{
	int i, j, l, diff;
	bool again = true;

	while (again) {
		again = false;
		for (i = 0; i < dirs->n && !again; i++)
			for (j = i + 1; j < dirs->n && !again; j++) {
				for (l = 0, diff = 0; l < dirs->levels; l++)
					diff += dirs->v[i][l] != dirs->v[j][l];
				if (diff > 1)
					continue;
				for (l = 0; l < dirs->levels; l++)
					dirs->v[i][l] |= dirs->v[j][l];
				memmove(dirs->v[j], dirs->v[j + 1],
				    sizeof *dirs->v * (dirs->n - j - 1));
				dirs->n--;
				again = true;
			}
	}
}

/* The array that every access pair of kind "k" of "d" names, or -1. */
static int
dep_array(const dojo_deps *deps, const struct dep *d, int k)
{
	int i, array = -2;

	for (i = 0; i < d->npairs; i++) {
		const struct xacc *x = &deps->xl.x[d->pairs[i][0]];
		const struct xacc *y = &deps->xl.x[d->pairs[i][1]];

		if ((x->write ? (y->write ? 2 : 0) : 1) != k)
			continue;
		if (x->acc->array != y->acc->array ||
		    (array >= 0 && array != x->acc->array))
			return -1;
		array = x->acc->array;
	}
	return array < 0 ? -1 : array;
}

static void
stmt_path(int *out, int *len, const struct stmt *s)
{
	int i;

	for (i = 0; i <= s->depth; i++)
		out[i] = s->pos[i];
	*len = s->depth + 1;
}

const char *
dojo_dep_type_name(enum dojo_dep_type type)
{
	static const char *const names[] = { "flow", "anti", "output" };

	return names[type];
}

int
dojo_deps_foreach(dojo_deps *deps,
    int (*fn)(const struct dojo_dep_info *info, void *payload), void *payload)
{
	static const enum dojo_dep_type types[2][3] = {
		/* write-read, read-write, write-write; src first */
		{ DOJO_DEP_FLOW, DOJO_DEP_ANTI, DOJO_DEP_OUTPUT },
		/* ... dst first */
		{ DOJO_DEP_ANTI, DOJO_DEP_FLOW, DOJO_DEP_OUTPUT },
	};
	int src[DOJO_MAX_DEPTH + 1], dst[DOJO_MAX_DEPTH + 1];
	unsigned char cur[DOJO_MAX_DEPTH];
	struct dojo_dep_info info;
	struct dirs *dirs;
	isl_map *map, *order;
	int i, j, k, rev, rc = 0;

	dirs = malloc(sizeof *dirs);
	if (!dirs)
		return dojo_error_set("out of memory");
	for (i = 0; i < deps->n && !rc; i++) {
		struct dep *d = &deps->dep[i];
		const struct stmt *s = &deps->m.st[d->src];
		const struct stmt *t = &deps->m.st[d->dst];

		if (!dep_exists(deps, d))
			continue;
		dep_build(deps, d);
		dirs->levels = shared_scopes(&deps->m, d->src, d->dst);
		for (k = 0; k < 3 && !rc; k++)
			for (rev = 0; rev < 2 && !rc && d->kind[k]; rev++) {
				if (rev && d->src == d->dst)
					break;
				/* the pairs whose first instance is src's
				 * (rev 0) or dst's (rev 1), as first -> second */
				order = rev ? isl_map_reverse(rel(deps->ctx,
				    &deps->m, d->dst, NULL, d->src, NULL,
				    REL_ANY, true)) : rel(deps->ctx, &deps->m,
				    d->src, NULL, d->dst, NULL, REL_ANY, true);
				map = isl_map_intersect(isl_map_copy(d->kind[k]),
				    order);
				if (rev)
					map = isl_map_reverse(map);
				dirs->n = 0;
				if (dirs_collect(dirs, distances(map,
				    dirs->levels), 0, cur) < 0) {
					rc = dojo_error_set("%s: dependence "
					    "analysis failed",
					    deps->m.prog->file);
					break;
				}
				if (dirs->n == 0)
					continue;
				dirs_merge(dirs);
				memset(&info, 0, sizeof info);
				info.type = types[rev][k];
				stmt_path(rev ? dst : src, rev ? &info.dst_len :
				    &info.src_len, s);
				stmt_path(rev ? src : dst, rev ? &info.src_len :
				    &info.dst_len, t);
				info.src_path = src;
				info.dst_path = dst;
				info.buffer = d->buffer;
				info.array = dep_array(deps, d, k);
				info.n_levels = dirs->levels;
				info.n_dirs = dirs->n;
				for (j = 0; j < dirs->n; j++)
					memcpy(dirs->flat + j * dirs->levels,
					    dirs->v[j], dirs->levels);
				info.dirs = dirs->flat;
				rc = fn(&info, payload);
			}
	}
	free(dirs);
	return rc;
}

/* Whether every read of buffer "b" finds, earlier in the same iteration of
 * the scope at "path" (depth n - 1), a write of its element. */
static bool
reads_covered_within(dojo_deps *deps, int b, int n)
{
	const struct xacc_list *xl = &deps->xl;
	isl_set *dom, *covered;
	isl_map *map;
	isl_bool sub;
	struct cons *c;
	int i, j;

	for (i = 0; i < xl->n; i++) {
		const struct xacc *y = &xl->x[i];

		if (y->write || buffer_of(deps->m.prog, y->acc) != b)
			continue;
		for (j = 0; j < xl->n; j++)
			if (xl->x[j].write && xl->x[j].acc->array ==
			    y->acc->array && write_covers(&deps->m, &xl->x[j], y))
				break;
		if (j < xl->n)
			continue;
		dom = domain_set(deps->ctx, &deps->m, y->stmt);
		covered = isl_set_empty(isl_set_get_space(dom));
		for (j = 0; j < xl->n; j++) {
			const struct xacc *x = &xl->x[j];

			if (!x->write || x->acc->array != y->acc->array)
				continue;
			c = cons_new(deps->m.st[x->stmt].depth,
			    deps->m.st[y->stmt].depth, x->acc->nidx + n);
			if (!c)
				break;
			cons_boxes(c, &deps->m, x->stmt, y->stmt);
			cons_same_element(c, x->acc, y->acc);
			cons_prefix(c, n, -1);	/* one iteration of the scope */
			map = cons_before(deps->ctx, c, &deps->m, x->stmt,
			    y->stmt);
			cons_free(c);
			covered = isl_set_union(covered, isl_map_range(map));
		}
		sub = isl_set_is_subset(dom, covered);
		isl_set_free(dom);
		isl_set_free(covered);
		if (sub != isl_bool_true)
			return false;
	}
	return true;
}

bool
dojo_deps_private(dojo_deps *deps, int b, const int *path, int n)
{
	const struct dojo_buffer *buf = &deps->m.prog->decls->buf[b];
	int i;

	if (buf->role != DOJO_TEMP)
		return false;
	/* all its accesses inside the scope */
	for (i = 0; i < deps->xl.n; i++)
		if (buffer_of(deps->m.prog, deps->xl.x[i].acc) == b &&
		    !in_subtree(&deps->m.st[deps->xl.x[i].stmt], path, n))
			return false;
	return reads_covered_within(deps, b, n);
}

bool
dojo_deps_is_reduction(dojo_deps *deps, const int *path, int n)
{
	int i;

	for (i = 0; i < deps->m.n; i++)
		if (deps->m.st[i].depth + 1 == n &&
		    in_subtree(&deps->m.st[i], path, n))
			return deps->reduction[i];
	return false;
}


static isl_union_map *
umap_add(isl_union_map *u, isl_map *map)
{
	return isl_union_map_add_map(u, map);
}

/* { w -> y : w writes the element of buffer "b" that the access y names,
 * w before y } for y = "dst", or for every write y of "b" (dst NULL). */
static isl_union_map *
writes_before(isl_ctx *ctx, const struct model *m, const struct xacc_list *xl,
    int b, const struct xacc *dst)
{
	isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	int i, j;

	for (j = 0; j < xl->n; j++) {
		const struct xacc *y = dst ? dst : &xl->x[j];

		if (dst ? j > 0 : (!y->write ||
		    buffer_of(m->prog, y->acc) != b))
			continue;
		for (i = 0; i < xl->n; i++) {
			const struct xacc *x = &xl->x[i];

			if (x->write && buffer_of(m->prog, x->acc) == b)
				u = umap_add(u, rel(ctx, m, x->stmt, x->acc,
				    y->stmt, y->acc, REL_LOGICAL, true));
		}
	}
	return u;
}

/* { S_s[i] -> E[e] : e the element that access "x" of statement "s"
 * names (logical indices), i in the box }. */
static isl_map *
access_map(isl_ctx *ctx, const struct model *m, int s,
    const struct dojo_access *x)
{
	int ni = m->st[s].depth, nd = x->nidx, k;
	struct cons *c = cons_new(ni, nd, nd);
	isl_basic_map *bm;
	int64_t *r;

	if (!c)
		return NULL;
	cons_box(c, &m->st[s], 0);
	for (k = 0; k < nd; k++)
		if ((r = cons_row(c, true))) {
			row_add_aff(r, c, &x->idx[k], 0, 1);
			r[1 + ni + k] = -1;
		}
	bm = cons_build(ctx, c, s, s);
	cons_free(c);
	return isl_map_from_basic_map(isl_basic_map_set_tuple_name(bm,
	    isl_dim_out, "E"));
}

/* The writes of buffer "b": { S[i] -> E[e] }. */
static isl_union_map *
write_accesses(isl_ctx *ctx, const struct model *m,
    const struct xacc_list *xl, int b)
{
	isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	int i;

	for (i = 0; i < xl->n; i++)
		if (xl->x[i].write && buffer_of(m->prog, xl->x[i].acc) == b)
			u = umap_add(u, access_map(ctx, m, xl->x[i].stmt,
			    xl->x[i].acc));
	return u;
}

/* The instance pairs of the statements touching "b", the first before. */
static isl_union_map *
before_pairs(isl_ctx *ctx, const struct model *m, const struct xacc_list *xl,
    int b)
{
	isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
	bool *used = calloc(m->n + 1, sizeof *used);
	int i, j;

	if (!used) {
		lost_relations++;
		return u;
	}
	for (i = 0; i < xl->n; i++)
		if (buffer_of(m->prog, xl->x[i].acc) == b)
			used[xl->x[i].stmt] = true;
	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->n; j++)
			if (used[i] && used[j])
				u = umap_add(u, rel(ctx, m, i, NULL, j, NULL,
				    REL_ANY, true));
	free(used);
	return u;
}

/*
 * Folds.  A fold maps elements e and e' to one slot when e' - e is a
 * multiple of the fold in each folded dimension and 0 in the others.  It
 * overwrites a live value when some write w2 of e' != e comes after a
 * write w1 of e and before a read r1 of the value w1 wrote.  So once per
 * buffer, the differences e' - e of those (w1, r1, w2), and then each fold
 * is a question about one small set of vectors, without the statements.
 */

/* { e' - e : w1 writes e, r1 reads the value w1 wrote, w2 writes e',
 * w1 before w2 before r1 } of buffer "b", in the space E of its indices. */
static isl_set *
fold_deltas(isl_ctx *ctx, const struct model *m, const struct xacc_list *xl,
    int b)
{
	isl_union_map *WW, *before, *order, *W, *M, *K, *flow, *V, *E;
	isl_union_set *D;
	isl_space *space;
	isl_set *delta;
	int ndim = m->prog->decls->buf[b].ndim, j;

	WW = writes_before(ctx, m, xl, b, NULL);
	before = before_pairs(ctx, m, xl, b);
	W = write_accesses(ctx, m, xl, b);
	/* before, to the writes: w1 -> w2; and r1 -> w2, w2 before r1 */
	order = isl_union_map_reverse(isl_union_map_copy(before));
	before = isl_union_map_intersect_range(before,
	    isl_union_map_domain(isl_union_map_copy(W)));
	D = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
	/* one read at a time, so that r1 names the element it reads */
	for (j = 0; j < xl->n; j++) {
		const struct xacc *y = &xl->x[j];

		if (y->write || buffer_of(m->prog, y->acc) != b)
			continue;
		M = writes_before(ctx, m, xl, b, y);
		/* the value flow w1 -> r1: no write of the element between */
		K = isl_union_map_apply_range(isl_union_map_copy(WW),
		    isl_union_map_copy(M));
		flow = isl_union_map_subtract(M, K);
		/* r1 -> w2: w1 before w2 before r1 */
		V = isl_union_map_apply_range(isl_union_map_reverse(flow),
		    isl_union_map_copy(before));
		V = isl_union_map_intersect(V, isl_union_map_copy(order));
		/* e -> e' */
		E = isl_union_map_apply_domain(V, isl_union_map_from_map(
		    access_map(ctx, m, y->stmt, y->acc)));
		E = isl_union_map_apply_range(E, isl_union_map_copy(W));
		D = isl_union_set_union(D, isl_union_map_deltas(E));
	}
	isl_union_map_free(WW);
	isl_union_map_free(before);
	isl_union_map_free(order);
	isl_union_map_free(W);
	space = isl_space_set_tuple_name(isl_space_set_alloc(ctx, 0, ndim),
	    isl_dim_set, "E");
	delta = isl_union_set_extract_set(D, space);
	isl_union_set_free(D);
	return delta;
}

/* 1 when a difference of "delta" is a non-zero multiple of the slots of
 * "buf" with dimension "d" folded to "n" (d < 0: the folds as they are),
 * 0 when none is, -1 when isl fails. */
static int
deltas_conflict(isl_set *delta, const dojo_program *prog, int b, int d,
    int64_t n)
{
	const struct dojo_buffer *buf = &prog->decls->buf[b];
	struct dojo_strbuf sb;
	isl_ctx *ctx;
	isl_set *slot, *zero;
	isl_bool empty;
	int k;
	int64_t f;

	if (!delta)
		return dojo_error_set("%s: dependence analysis failed: isl "
		    "failed", prog->file);
	ctx = isl_set_get_ctx(delta);
	/* { E[x0, ...] : exists (q0, ... : x0 = f0 q0 and x1 = 0 ...) } */
	dojo_strbuf_init(&sb);
	dojo_strbuf_puts(&sb, "{ E[");
	for (k = 0; k < buf->ndim; k++)
		dojo_strbuf_printf(&sb, "%sx%d", k ? ", " : "", k);
	dojo_strbuf_puts(&sb, "] : exists (");
	for (k = 0; k < buf->ndim; k++)
		dojo_strbuf_printf(&sb, "%sq%d", k ? ", " : "", k);
	dojo_strbuf_puts(&sb, " : ");
	for (k = 0; k < buf->ndim; k++) {
		f = k == d ? n : buf->fold[k];
		dojo_strbuf_printf(&sb, "%sx%d = %" PRId64 " q%d",
		    k ? " and " : "", k, f, k);
	}
	dojo_strbuf_puts(&sb, ") }");
	slot = sb.s ? isl_set_read_from_str(ctx, sb.s) : NULL;
	dojo_strbuf_release(&sb);
	slot = isl_set_intersect(slot, isl_set_copy(delta));
	zero = isl_set_universe(isl_set_get_space(delta));
	for (k = 0; k < buf->ndim; k++)
		zero = isl_set_fix_si(zero, isl_dim_set, k, 0);
	slot = isl_set_subtract(slot, zero);
	empty = isl_set_is_empty(slot);
	isl_set_free(slot);
	if (empty < 0)
		return dojo_error_set("%s: dependence analysis failed: %s",
		    prog->file, isl_why(ctx) ? isl_why(ctx) : "isl failed");
	return !empty;
}

static void
fold_why(char *why, size_t len, const dojo_program *prog, int b)
{
	snprintf(why, len, "a value of '%s' would be overwritten in its slot "
	    "before its last read", prog->decls->buf[b].name);
}

int
dojo_deps_fold_live(dojo_program *prog, int b, int d, int64_t n, char *why,
    size_t len)
{
	struct xacc_list xl = { 0 };
	struct model m;
	isl_ctx *ctx;
	isl_set *delta;
	int rc = -1;
	unsigned long lost = lost_relations;

	if (model_init(&m, prog) < 0)
		return -1;
	ctx = new_ctx();
	if (!ctx || xacc_collect(&xl, &m) < 0) {
		dojo_error_set("out of memory");
		goto out;
	}
	delta = fold_deltas(ctx, &m, &xl, b);
	rc = deltas_conflict(delta, prog, b, d, n);
	isl_set_free(delta);
	if (rc >= 0 && lost_relations != lost)
		rc = dojo_error_set("%s: dependence analysis failed: out of "
		    "memory", prog->file);
	if (rc > 0 && why)
		fold_why(why, len, prog, b);
out:
	free(xl.x);
	free(m.st);
	if (ctx)
		isl_ctx_free(ctx);
	return rc;
}

/*
 * Quick answers to a fold, exact and without isl: a proof from the shape
 * of the accesses that no difference of fold_deltas lies in the slots of
 * the fold, or an instance triple (w1, r1, w2) that is one.  Either is
 * what isl would find; where neither applies, isl decides.
 */

/* Whether i_0 .. i_(k-1) of the box "size" are determined by the values
 * of the indices "k" (n of them, each with its constant left out) given
 * that the levels of "known" are: mixed radix, the largest coefficient
 * outweighing all the smaller ones times their ranges.  Marks them in
 * "known"; true when something new was marked. */
static bool
radix_determines(const int64_t *k, const int64_t *size, int c, bool *known)
{
	int lv[DOJO_MAX_DEPTH], n = 0, i, j, t;
	int64_t sum = 0, a, span;

	for (i = 0; i < c; i++)
		if (k[i] && !known[i])
			lv[n++] = i;
	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (k[lv[i]] == INT64_MIN)
			return false;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && llabs(k[lv[j - 1]]) > llabs(k[lv[j]]);
		    j--) {
			t = lv[j];
			lv[j] = lv[j - 1];
			lv[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		a = llabs(k[lv[i]]);
		if (a <= sum)
			return false;
		if (__builtin_mul_overflow(a, size[lv[i]] - 1, &span) ||
		    __builtin_add_overflow(sum, span, &sum))
			return false;
	}
	for (i = 0; i < n; i++)
		known[lv[i]] = true;
	return true;
}

/* The dimensions "zero" of buffer "b" in which w2 writes the element w1
 * wrote, for every (w1, r1, w2) of fold_deltas.  When every operation
 * touching b sits in the same scopes 0 .. c-1, and in some dimensions all
 * its accesses have one index in those scopes' iterators, equal values
 * there fix the iterations of the levels 0 .. p-1 that those indices
 * determine: w1 and r1 (one element) share them, and so does w2, which
 * runs between them.  The dimensions whose index uses only those levels
 * have a zero difference.  With no read or no write of b there is no
 * triple: every dimension is. */
static void
fold_zero_dims(const dojo_deps *deps, int b, bool *zero)
{
	const struct model *m = &deps->m;
	const struct xacc_list *xl = &deps->xl;
	const struct stmt *s0 = NULL;
	int ndim = m->prog->decls->buf[b].ndim, c = 0, i, l, dim, p;
	int64_t k0[DOJO_MAX_DEPTH], k[DOJO_MAX_DEPTH], c0, cc;
	bool uniform[DOJO_MAX_DIMS], known[DOJO_MAX_DEPTH], reads = false;
	bool writes = false, more;

	memset(zero, 0, sizeof *zero * ndim);
	for (i = 0; i < xl->n; i++) {
		const struct stmt *s = &m->st[xl->x[i].stmt];

		if (buffer_of(m->prog, xl->x[i].acc) != b)
			continue;
		reads |= !xl->x[i].write;
		writes |= xl->x[i].write;
		if (!s0) {
			s0 = s;
			c = s->depth;
		}
		if (s->depth < c)
			c = s->depth;
		for (l = 0; l < c; l++)
			if (s->pos[l] != s0->pos[l])
				c = l;
	}
	if (!reads || !writes) {
		for (dim = 0; dim < ndim; dim++)
			zero[dim] = true;
		return;
	}
	/* the dimensions with one index in the shared iterators */
	for (dim = 0; dim < ndim; dim++) {
		const struct xacc *first = NULL;

		uniform[dim] = true;
		for (i = 0; i < xl->n && uniform[dim]; i++) {
			const struct xacc *x = &xl->x[i];
			int depth = m->st[x->stmt].depth;

			if (buffer_of(m->prog, x->acc) != b)
				continue;
			if (x->acc->nidx != ndim ||
			    !aff_dense(&x->acc->idx[dim], depth, k, &cc)) {
				uniform[dim] = false;
				break;
			}
			for (l = c; l < depth; l++)
				if (k[l])
					uniform[dim] = false;
			if (!first) {
				first = x;
				memcpy(k0, k, sizeof k);
				c0 = cc;
			} else if (cc != c0 || memcmp(k, k0, sizeof *k * c)) {
				uniform[dim] = false;
			}
		}
	}
	/* the levels that those indices determine */
	for (l = 0; l < c; l++)
		known[l] = s0->size[l] == 1;
	do {
		more = false;
		for (dim = 0; dim < ndim; dim++) {
			if (!uniform[dim])
				continue;
			for (i = 0; i < xl->n; i++)
				if (buffer_of(m->prog, xl->x[i].acc) == b)
					break;
			aff_dense(&xl->x[i].acc->idx[dim],
			    m->st[xl->x[i].stmt].depth, k, &cc);
			more |= radix_determines(k, s0->size, c, known);
		}
	} while (more);
	for (p = 0; p < c && known[p]; p++)
		;
	for (dim = 0; dim < ndim; dim++) {
		if (!uniform[dim])
			continue;
		for (i = 0; i < xl->n; i++)
			if (buffer_of(m->prog, xl->x[i].acc) == b)
				break;
		aff_dense(&xl->x[i].acc->idx[dim], m->st[xl->x[i].stmt].depth,
		    k, &cc);
		zero[dim] = true;
		for (l = p; l < c; l++)
			if (k[l])
				zero[dim] = false;
	}
}

/* Schedule order of the instances (s, i) and (t, j): <0, 0, >0. */
static int
inst_cmp(const struct model *m, int s, const int64_t *i, int t,
    const int64_t *j)
{
	int c = shared_scopes(m, s, t), l;

	for (l = 0; l < c; l++)
		if (i[l] != j[l])
			return i[l] < j[l] ? -1 : 1;
	if (s == t)
		return 0;
	return m->st[s].pos[c] < m->st[t].pos[c] ? -1 : 1;
}

/* The iterations of "x" (one index a dimension, of at most one iterator,
 * each iterator in one dimension) that write the element "e": the box
 * lo..hi.  1, 0 when none does, -1 when "x" is not of that form. */
static int
write_box(const struct model *m, const struct xacc *x, const int64_t *e,
    int64_t *lo, int64_t *hi)
{
	const struct stmt *s = &m->st[x->stmt];
	int64_t k[DOJO_MAX_DEPTH], c, v;
	bool used[DOJO_MAX_DEPTH] = { false };
	int dim, l, at, rc = 1;

	for (l = 0; l < s->depth; l++) {
		lo[l] = 0;
		hi[l] = s->size[l] - 1;
	}
	for (dim = 0; dim < x->acc->nidx; dim++) {
		if (!aff_dense(&x->acc->idx[dim], s->depth, k, &c))
			return -1;
		for (l = 0, at = -1; l < s->depth; l++)
			if (k[l]) {
				if (at >= 0 || used[l])
					return -1;
				at = l;
			}
		if (__builtin_sub_overflow(e[dim], c, &v))
			return -1;
		if (at < 0) {
			if (v != 0)
				rc = 0;
			continue;
		}
		used[at] = true;
		if (v % k[at] != 0) {
			rc = 0;
			continue;
		}
		v /= k[at];
		if (v < lo[at] || v > hi[at])
			rc = 0;
		lo[at] = hi[at] = v;
	}
	return rc;
}

/* Narrow lo..hi (levels of "s") to the instances after (a_s, a)
 * (after > 0) or before it (after < 0) in piece "p": the iterations of
 * the scopes they share equal up to level p, then, for p below the
 * shared depth, the level p later (or earlier); false when no piece p. */
static bool
piece(const struct model *m, int s, int64_t *lo, int64_t *hi, int a_s,
    const int64_t *a, int p, int after)
{
	int c = shared_scopes(m, s, a_s), l;

	if (p > c)
		return false;
	if (p == c && (s == a_s || (after > 0) !=
	    (m->st[s].pos[c] > m->st[a_s].pos[c])))
		return false;
	for (l = 0; l < p; l++) {
		if (a[l] > lo[l])
			lo[l] = a[l];
		if (a[l] < hi[l])
			hi[l] = a[l];
	}
	if (p < c) {
		if (after > 0 && a[p] + 1 > lo[p])
			lo[p] = a[p] + 1;
		if (after < 0 && a[p] - 1 < hi[p])
			hi[p] = a[p] - 1;
	}
	for (l = 0; l < m->st[s].depth; l++)
		if (lo[l] > hi[l])
			return false;
	return true;
}

/* The last instance of "s" in the box lo..hi before (t, j), into "out";
 * false when there is none. */
static bool
last_before(const struct model *m, int s, const int64_t *lo,
    const int64_t *hi, int t, const int64_t *j, int64_t *out)
{
	int64_t l2[DOJO_MAX_DEPTH], h2[DOJO_MAX_DEPTH];
	int p, depth = m->st[s].depth;

	/* the later pieces first: longer equal prefixes run later */
	for (p = shared_scopes(m, s, t); p >= 0; p--) {
		memcpy(l2, lo, sizeof *lo * depth);
		memcpy(h2, hi, sizeof *hi * depth);
		if (piece(m, s, l2, h2, t, j, p, -1)) {
			memcpy(out, h2, sizeof *h2 * depth);
			return true;
		}
	}
	return false;
}

/* Whether an instance of "s" in the box lo..hi runs after (a_s, a) and
 * before (t, j). */
static bool
some_between(const struct model *m, int s, const int64_t *lo,
    const int64_t *hi, int a_s, const int64_t *a, int t, const int64_t *j)
{
	int64_t l2[DOJO_MAX_DEPTH], h2[DOJO_MAX_DEPTH];
	int p, q, depth = m->st[s].depth;

	for (p = 0; p <= shared_scopes(m, s, a_s); p++)
		for (q = 0; q <= shared_scopes(m, s, t); q++) {
			memcpy(l2, lo, sizeof *lo * depth);
			memcpy(h2, hi, sizeof *hi * depth);
			if (piece(m, s, l2, h2, a_s, a, p, 1) &&
			    piece(m, s, l2, h2, t, j, q, -1))
				return true;
		}
	return false;
}

/* The element that "x" names at the iterations "it", false on overflow. */
static bool
access_at(const struct model *m, const struct xacc *x, const int64_t *it,
    int64_t *e)
{
	int64_t k[DOJO_MAX_DEPTH], c, v;
	int dim, l, depth = m->st[x->stmt].depth;

	for (dim = 0; dim < x->acc->nidx; dim++) {
		if (!aff_dense(&x->acc->idx[dim], depth, k, &c))
			return false;
		for (l = 0; l < depth; l++)
			if (__builtin_mul_overflow(k[l], it[l], &v) ||
			    __builtin_add_overflow(c, v, &c))
				return false;
		e[dim] = c;
	}
	return true;
}

/* A witness that folding "d" of "b" to "n" slots conflicts: a read r1 at
 * a corner or the middle of its box, the write w1 whose value it reads
 * (the last write of its element e before it), and a write w2 of e + q n
 * in dimension d, q = +-1, +-2, between them.  1 when found, -1 when not
 * (or when a write of b is not of the form write_box takes). */
static int
fold_witness(const dojo_deps *deps, int b, int d, int64_t n)
{
	const struct model *m = &deps->m;
	const struct xacc_list *xl = &deps->xl;
	int64_t r1[DOJO_MAX_DEPTH], w1[DOJO_MAX_DEPTH], cand[DOJO_MAX_DEPTH];
	int64_t lo[DOJO_MAX_DEPTH], hi[DOJO_MAX_DEPTH];
	int64_t e[DOJO_MAX_DIMS], e2[DOJO_MAX_DIMS], step;
	int i, j, l, sample, q, w1s, rc;

	memset(e, 0, sizeof e);
	for (j = 0; j < xl->n; j++)
		if (xl->x[j].write && buffer_of(m->prog, xl->x[j].acc) == b &&
		    write_box(m, &xl->x[j], e, lo, hi) < 0)
			return -1;
	for (i = 0; i < xl->n; i++) {
		const struct xacc *y = &xl->x[i];
		const struct stmt *t = &m->st[y->stmt];

		if (y->write || buffer_of(m->prog, y->acc) != b)
			continue;
		for (sample = 0; sample < 3; sample++) {
			for (l = 0; l < t->depth; l++)
				r1[l] = sample == 0 ? 0 : sample == 1 ?
				    t->size[l] - 1 : t->size[l] / 2;
			if (!access_at(m, y, r1, e))
				continue;
			/* w1: the last write of e before r1 */
			w1s = -1;
			for (j = 0; j < xl->n; j++) {
				const struct xacc *x = &xl->x[j];

				if (!x->write || buffer_of(m->prog, x->acc) != b)
					continue;
				rc = write_box(m, x, e, lo, hi);
				if (rc < 0)
					return -1;	/* w1 would be unsure */
				if (rc == 0 || !last_before(m, x->stmt, lo, hi,
				    y->stmt, r1, cand))
					continue;
				if (w1s < 0 || inst_cmp(m, x->stmt, cand, w1s,
				    w1) > 0) {
					w1s = x->stmt;
					memcpy(w1, cand, sizeof cand);
				}
			}
			if (w1s < 0)
				continue;
			for (q = -2; q <= 2; q++) {
				memcpy(e2, e, sizeof *e * y->acc->nidx);
				if (q == 0 || __builtin_mul_overflow(q, n,
				    &step) || __builtin_add_overflow(e2[d], step,
				    &e2[d]))
					continue;
				for (j = 0; j < xl->n; j++) {
					const struct xacc *x = &xl->x[j];

					if (!x->write || buffer_of(m->prog,
					    x->acc) != b)
						continue;
					rc = write_box(m, x, e2, lo, hi);
					if (rc == 1 && some_between(m, x->stmt,
					    lo, hi, w1s, w1, y->stmt, r1))
						return 1;
				}
			}
		}
	}
	return -1;
}

/* 1 (conflict), 0 (safe) or -1 (ask isl) for folding "d" of "b" to "n"
 * with b's other folds as they are. */
static int
fold_quick(const dojo_deps *deps, int b, int d, int64_t n)
{
	const struct dojo_buffer *buf = &deps->m.prog->decls->buf[b];
	bool zero[DOJO_MAX_DIMS];
	int k;

	fold_zero_dims(deps, b, zero);
	if (zero[d]) {
		for (k = 0; k < buf->ndim; k++)
			if (k != d && !zero[k] && buf->fold[k])
				break;
		if (k == buf->ndim)
			return 0;
	}
	return fold_witness(deps, b, d, n);
}

/* The windows the action set offers (fold_values in move_buffers.c) are 1 to
 * FOLD_PROBE slots; a question about one of them first asks about its
 * largest multiple among them. */
#define FOLD_PROBE 4

/* What the folds answered so far say of folding "d" of "b" to "n": a
 * fold to n slots maps the elements i and j to one slot when n divides
 * i - j, so a fold to a multiple of a safe n is safe, and one to a
 * divisor of a conflicting n conflicts.  1 (conflict), 0 (safe), -1
 * (unknown). */
static int
fold_known(const dojo_deps *deps, int b, int d, int64_t n)
{
	const struct fold_answer *f;
	int i;

	for (i = 0; i < deps->nfolds; i++) {
		f = &deps->folds[i];
		if (f->b != b || f->d != d)
			continue;
		if (!f->conflict && n % f->n == 0)
			return 0;
		if (f->conflict && f->n % n == 0)
			return 1;
	}
	return -1;
}

static int
fold_answer(dojo_deps *deps, int b, int d, int64_t n)
{
	int64_t ext = deps->m.prog->decls->buf[b].ext[d], m;
	struct fold_answer *f;
	int rc;

	if ((rc = fold_known(deps, b, d, n)) >= 0)
		return rc;
	for (m = FOLD_PROBE / n * n; m > n && m >= ext; m -= n)
		;
	if (m > n && (rc = fold_answer(deps, b, d, m)) != 0)
		return rc;
	rc = fold_quick(deps, b, d, n);
	if (rc < 0 && !deps->fold_delta[b])
		deps->fold_delta[b] = fold_deltas(deps->ctx, &deps->m,
		    &deps->xl, b);
	if (rc < 0)
		rc = deltas_conflict(deps->fold_delta[b], deps->m.prog, b, d,
		    n);
	if (rc < 0)
		return rc;
	if (deps->nfolds == deps->capfolds) {
		int cap = deps->capfolds ? 2 * deps->capfolds : 16;

		f = realloc(deps->folds, cap * sizeof *f);
		if (!f)
			return dojo_error_set("out of memory");
		deps->folds = f;
		deps->capfolds = cap;
	}
	f = &deps->folds[deps->nfolds++];
	f->b = b;
	f->d = d;
	f->n = n;
	f->conflict = rc > 0;
	return rc;
}

int
dojo_deps_fold_conflict(dojo_deps *deps, int b, int d, int64_t n, char *why,
    size_t len)
{
	int nbuf = deps->m.prog->decls->nbuf, rc;

	if (!deps->fold_delta) {
		deps->fold_delta = calloc(nbuf, sizeof *deps->fold_delta);
		if (!deps->fold_delta)
			return dojo_error_set("out of memory");
	}
	rc = fold_answer(deps, b, d, n);
	if (rc > 0 && why)
		fold_why(why, len, deps->m.prog, b);
	return rc;
}

/* Whether some instance of statement "s" runs before some instance of
 * "t": a scope they share iterates at least twice (t's instance in an
 * earlier iteration), or s comes first in the tree where they part. */
static bool
some_before(const struct model *m, int s, int t)
{
	int c = shared_scopes(m, s, t), l;

	for (l = 0; l < c; l++)
		if (m->st[s].size[l] > 1)
			return true;
	return s != t && m->st[s].pos[c] < m->st[t].pos[c];
}

int
dojo_deps_lifetimes_overlap(dojo_deps *deps, int b1, int b2)
{
	const struct model *m = &deps->m;
	const struct xacc_list *xl = &deps->xl;
	int *s1, *s2, n1 = 0, n2 = 0, i, j;
	bool before[2] = { false, false };

	s1 = malloc(sizeof *s1 * (xl->n + 1));
	s2 = malloc(sizeof *s2 * (xl->n + 1));
	if (!s1 || !s2) {
		free(s1);
		free(s2);
		return dojo_error_set("out of memory");
	}
	/* the statements that touch each buffer (accesses come by statement) */
	for (i = 0; i < xl->n; i++) {
		int b = buffer_of(m->prog, xl->x[i].acc);

		if (b == b1 && (!n1 || s1[n1 - 1] != xl->x[i].stmt))
			s1[n1++] = xl->x[i].stmt;
		if (b == b2 && (!n2 || s2[n2 - 1] != xl->x[i].stmt))
			s2[n2++] = xl->x[i].stmt;
	}
	for (i = 0; i < n1 && !(before[0] && before[1]); i++)
		for (j = 0; j < n2 && !(before[0] && before[1]); j++) {
			before[0] |= s1[i] == s2[j] || some_before(m, s1[i], s2[j]);
			before[1] |= s1[i] == s2[j] || some_before(m, s2[j], s1[i]);
		}
	free(s1);
	free(s2);
	return before[0] && before[1];
}
