/* deps.c: exact dependence analysis of a program with isl */
#include "config.h"
#include "deps.h"
#include "program_private.h"
#include "strbuf.h"

#include <isl/ctx.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* "NAME[i0, ..., ik-1]" for statement "s". */
static void
add_tuple(struct dojo_strbuf *sb, const char *name, const struct stmt *s)
{
	int i;

	dojo_strbuf_printf(sb, "%s[", name);
	for (i = 0; i < s->depth; i++)
		dojo_strbuf_printf(sb, "%si%d", i ? ", " : "", i);
	dojo_strbuf_puts(sb, "]");
}

static void
add_box(struct dojo_strbuf *sb, const struct stmt *s)
{
	int i;

	for (i = 0; i < s->depth; i++)
		dojo_strbuf_printf(sb, "%s0 <= i%d < %lld", i ? " and " : " : ",
		    i, (long long)s->size[i]);
}

static void
add_aff(struct dojo_strbuf *sb, const struct dojo_aff *aff)
{
	int i;

	dojo_strbuf_printf(sb, "%lld", (long long)aff->c);
	for (i = 0; i < aff->n; i++)
		dojo_strbuf_printf(sb, " + %lld*i%d", (long long)aff->t[i].k,
		    aff->t[i].d);
}

/* "{ NAME[i] -> a_ARRAY[f(i)] : box }; " */
static void
add_access(struct dojo_strbuf *sb, dojo_program *prog, const char *name,
    const struct stmt *s, const struct dojo_access *acc)
{
	int i;

	add_tuple(sb, name, s);
	dojo_strbuf_printf(sb, " -> a_%s[", prog->decls->arr[acc->array].name);
	for (i = 0; i < acc->nidx; i++) {
		if (i)
			dojo_strbuf_puts(sb, ", ");
		add_aff(sb, &acc->idx[i]);
	}
	dojo_strbuf_puts(sb, "]");
	add_box(sb, s);
	dojo_strbuf_puts(sb, "; ");
}

/* "NAME[i] -> [p0, i0, p1, i1, ..., pk, 0..., phase]" */
static void
add_schedule(struct dojo_strbuf *sb, const char *name, const struct stmt *s,
    int maxdepth, int phase)
{
	int i;

	add_tuple(sb, name, s);
	dojo_strbuf_puts(sb, " -> [");
	for (i = 0; i < s->depth; i++)
		dojo_strbuf_printf(sb, "%d, i%d, ", s->pos[i], i);
	dojo_strbuf_printf(sb, "%d", s->pos[s->depth]);
	for (i = s->depth; i < maxdepth; i++)
		dojo_strbuf_puts(sb, ", 0, 0");
	dojo_strbuf_printf(sb, ", %d]", phase);
	add_box(sb, s);
	dojo_strbuf_puts(sb, "; ");
}

static bool
needs_write(dojo_program *prog, int array)
{
	enum dojo_role role = prog->decls->buf[prog->decls->arr[array].buffer].role;

	return role == DOJO_OUT || role == DOJO_TEMP;
}

struct reads_ctx {
	struct model *m;
	struct dojo_strbuf *sink, *sched;
	int s, r;
	char name[32];
};

static int
add_read(struct dojo_access *acc, bool write, void *payload)
{
	struct reads_ctx *c = payload;
	const struct stmt *s = &c->m->st[c->s];

	if (write)
		return 0;
	snprintf(c->name, sizeof c->name, "R%d_%d", c->s, c->r++);
	if (!needs_write(c->m->prog, acc->array))
		return 0;
	add_access(c->sink, c->m->prog, c->name, s, acc);
	add_schedule(c->sched, c->name, s, c->m->maxdepth, 0);
	return 0;
}

/* The read access number "r" of an operation, counting the written
 * element of an update (+= and the like) first. */
struct nth_ctx {
	int want, seen;
	struct dojo_access *found;
};

static int
find_nth_read(struct dojo_access *acc, bool write, void *payload)
{
	struct nth_ctx *c = payload;

	if (write)
		return 0;
	if (c->seen++ == c->want) {
		c->found = acc;
		return 1;
	}
	return 0;
}

struct first_ctx {
	int s, r;
};

static isl_stat
earliest(isl_map *map, void *user)
{
	struct first_ctx *f = user;
	const char *name = isl_map_get_tuple_name(map, isl_dim_in);
	int s, r;

	if (name && sscanf(name, "R%d_%d", &s, &r) == 2 &&
	    (s < f->s || (s == f->s && r < f->r))) {
		f->s = s;
		f->r = r;
	}
	isl_map_free(map);
	return isl_stat_ok;
}

int
dojo_deps_check_reads(dojo_program *prog)
{
	struct dojo_strbuf sink, src, sched;
	struct reads_ctx rc;
	struct first_ctx first = { 1 << 30, 1 << 30 };
	struct nth_ctx nth;
	struct model m;
	isl_ctx *ctx;
	isl_union_map *usink, *usrc, *usched, *nosrc;
	isl_union_access_info *ai;
	isl_union_flow *flow;
	char name[32];
	int i, rc_ = 0;

	if (model_init(&m, prog) < 0)
		return -1;
	dojo_strbuf_init(&sink);
	dojo_strbuf_init(&src);
	dojo_strbuf_init(&sched);
	dojo_strbuf_puts(&sink, "{ ");
	dojo_strbuf_puts(&src, "{ ");
	dojo_strbuf_puts(&sched, "{ ");
	memset(&rc, 0, sizeof rc);
	rc.m = &m;
	rc.sink = &sink;
	rc.sched = &sched;
	for (i = 0; i < m.n; i++) {
		rc.s = i;
		rc.r = 0;
		/* an update reads the element it writes, first */
		if (m.st[i].op->update != DOJO_SET)
			add_read(&m.st[i].op->lhs, false, &rc);
		dojo_op_foreach_access(m.st[i].op, add_read, &rc);
		snprintf(name, sizeof name, "W%d", i);
		add_access(&src, prog, name, &m.st[i], &m.st[i].op->lhs);
		add_schedule(&sched, name, &m.st[i], m.maxdepth, 1);
	}
	dojo_strbuf_puts(&sink, "}");
	dojo_strbuf_puts(&src, "}");
	dojo_strbuf_puts(&sched, "}");
	if (sink.oom || src.oom || sched.oom) {
		rc_ = dojo_error_set("out of memory");
		goto out_free_text;
	}
	ctx = isl_ctx_alloc();
	if (!ctx) {
		rc_ = dojo_error_set("out of memory");
		goto out_free_text;
	}
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	usink = isl_union_map_read_from_str(ctx, sink.s);
	usrc = isl_union_map_read_from_str(ctx, src.s);
	usched = isl_union_map_read_from_str(ctx, sched.s);
	ai = isl_union_access_info_from_sink(usink);
	ai = isl_union_access_info_set_must_source(ai, usrc);
	ai = isl_union_access_info_set_schedule_map(ai, usched);
	flow = isl_union_access_info_compute_flow(ai);
	nosrc = isl_union_flow_get_may_no_source(flow);
	isl_union_flow_free(flow);
	if (!nosrc) {
		rc_ = dojo_error_set("%s: dependence analysis failed",
		    prog->file);
		goto out_free_ctx;
	}
	isl_union_map_foreach_map(nosrc, earliest, &first);
	isl_union_map_free(nosrc);
	if (first.s < m.n) {
		struct dojo_node *op = m.st[first.s].op;
		struct dojo_access *acc;

		if (op->update != DOJO_SET && first.r == 0) {
			acc = &op->lhs;
		} else {
			nth.want = first.r - (op->update != DOJO_SET);
			nth.seen = 0;
			nth.found = NULL;
			dojo_op_foreach_access(op, find_nth_read, &nth);
			acc = nth.found;
		}
		rc_ = dojo_error_at(prog->file, acc->pos.line, acc->pos.col,
		    "'%s' is read before it is written (%s)",
		    prog->decls->arr[acc->array].name,
		    prog->decls->buf[prog->decls->arr[acc->array].buffer].role
		    == DOJO_OUT ? "an out array starts undefined" :
		    "a temporary starts undefined");
	}
out_free_ctx:
	isl_ctx_free(ctx);
out_free_text:
	dojo_strbuf_release(&sink);
	dojo_strbuf_release(&src);
	dojo_strbuf_release(&sched);
	free(m.st);
	return rc_;
}

/*
 * Memory-based dependences, on storage (a folded dimension is its slot, the
 * arrays of one buffer share its storage), for the legality of moves.
 */

enum { SIGN_LT = 1, SIGN_EQ = 2, SIGN_GT = 4 };

struct dep {
	int src, dst;		/* statements */
	int buffer;
	int m;			/* levels compared */
	uint8_t sign[DOJO_MAX_DEPTH];	/* with the levels before equal */
	uint64_t swapbad;	/* bit l: d_l > 0 and d_l+1 < 0 possible */
	bool chain;		/* a reduction's own accumulation */
	isl_set *delta;		/* distance vectors on the first m levels */
};

struct dojo_deps {
	isl_ctx *ctx;
	struct model m;
	struct dep *dep;
	int n;
	isl_union_map *kind[3];	/* flow, anti, output */
	bool *reduction;	/* per statement */
};

static void
add_storage_access(struct dojo_strbuf *sb, dojo_program *prog,
    const char *name, const struct stmt *s, const struct dojo_access *acc)
{
	const struct dojo_buffer *buf =
	    &prog->decls->buf[prog->decls->arr[acc->array].buffer];
	int i;

	add_tuple(sb, name, s);
	dojo_strbuf_printf(sb, " -> b_%s[", buf->name);
	for (i = 0; i < acc->nidx; i++) {
		if (i)
			dojo_strbuf_puts(sb, ", ");
		if (buf->fold[i])
			dojo_strbuf_puts(sb, "(");
		add_aff(sb, &acc->idx[i]);
		if (buf->fold[i])
			dojo_strbuf_printf(sb, ") mod %lld",
			    (long long)buf->fold[i]);
	}
	dojo_strbuf_puts(sb, "]");
	add_box(sb, s);
	dojo_strbuf_puts(sb, "; ");
}

struct acc_ctx {
	dojo_program *prog;
	struct dojo_strbuf *rd, *wr;
	const struct stmt *s;
	const char *name;
};

static int
add_mem_access(struct dojo_access *acc, bool write, void *payload)
{
	struct acc_ctx *c = payload;

	add_storage_access(write ? c->wr : c->rd, c->prog, c->name, c->s, acc);
	return 0;
}

/* Whether "a" reads array "array" anywhere. */
static bool
expr_reads(const struct dojo_expr *e, int array)
{
	if (!e)
		return false;
	if (e->kind == DOJO_E_ACCESS && e->acc.array == array)
		return true;
	return expr_reads(e->a, array) || expr_reads(e->b, array);
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

/* A reduction (spec/TRANSFORMATIONS.md): an update with + * max min whose
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
	    expr_reads(op->rhs, op->lhs.array))
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

static bool
set_nonempty(isl_set *set)
{
	isl_bool e = isl_set_is_empty(set);

	isl_set_free(set);
	return e == isl_bool_false;
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

static void
summarize(struct dep *d)
{
	isl_set *p = isl_set_copy(d->delta);
	int l;

	for (l = 0; l < d->m; l++) {
		if (isl_set_plain_is_empty(p) == isl_bool_true)
			break;
		if (set_nonempty(isl_set_lower_bound_si(isl_set_copy(p),
		    isl_dim_set, l, 1)))
			d->sign[l] |= SIGN_GT;
		if (set_nonempty(isl_set_upper_bound_si(isl_set_copy(p),
		    isl_dim_set, l, -1)))
			d->sign[l] |= SIGN_LT;
		if (l + 1 < d->m && (d->sign[l] & SIGN_GT) &&
		    set_nonempty(isl_set_upper_bound_si(isl_set_lower_bound_si(
		    isl_set_copy(p), isl_dim_set, l, 1), isl_dim_set, l + 1, -1)))
			d->swapbad |= 1ULL << l;
		p = isl_set_fix_si(p, isl_dim_set, l, 0);
		if (set_nonempty(isl_set_copy(p)))
			d->sign[l] |= SIGN_EQ;
	}
	isl_set_free(p);
}

struct collect_ctx {
	dojo_deps *deps;
	int buffer;
	int err;
};

static isl_stat
add_dep(isl_map *map, void *user)
{
	struct collect_ctx *c = user;
	dojo_deps *deps = c->deps;
	struct dep *grown, *d;
	int s, t;

	if (sscanf(isl_map_get_tuple_name(map, isl_dim_in), "S%d", &s) != 1 ||
	    sscanf(isl_map_get_tuple_name(map, isl_dim_out), "S%d", &t) != 1) {
		isl_map_free(map);
		return isl_stat_error;
	}
	grown = realloc(deps->dep, sizeof *grown * (deps->n + 1));
	if (!grown) {
		isl_map_free(map);
		return isl_stat_error;
	}
	deps->dep = grown;
	d = &deps->dep[deps->n++];
	memset(d, 0, sizeof *d);
	d->src = s;
	d->dst = t;
	d->buffer = c->buffer;
	d->m = deps->m.st[s].depth < deps->m.st[t].depth ?
	    deps->m.st[s].depth : deps->m.st[t].depth;
	d->chain = s == t && deps->reduction[s] &&
	    deps->m.prog->decls->arr[deps->m.st[s].op->lhs.array].buffer ==
	    c->buffer;
	d->delta = distances(map, d->m);
	summarize(d);
	return isl_stat_ok;
}

void
dojo_deps_free(dojo_deps *deps)
{
	int i;

	if (!deps)
		return;
	for (i = 0; i < deps->n; i++)
		isl_set_free(deps->dep[i].delta);
	free(deps->dep);
	for (i = 0; i < 3; i++)
		isl_union_map_free(deps->kind[i]);
	free(deps->reduction);
	free(deps->m.st);
	if (deps->ctx)
		isl_ctx_free(deps->ctx);
	free(deps);
}

/* Keep the part of "umap" whose range is in buffer "b"'s storage. */
static isl_union_map *
on_buffer(isl_union_map *umap, isl_ctx *ctx, const char *bname, int ndim)
{
	isl_space *space = isl_space_set_alloc(ctx, 0, ndim);

	space = isl_space_set_tuple_name(space, isl_dim_set, bname);
	return isl_union_map_intersect_range(umap,
	    isl_union_set_from_set(isl_set_universe(space)));
}

dojo_deps *
dojo_deps_new(dojo_program *prog)
{
	struct dojo_strbuf rd, wr, sched;
	struct acc_ctx ac;
	struct collect_ctx cc;
	isl_union_map *R, *W, *S, *before, *all, *ub;
	dojo_deps *deps;
	char name[32], bname[DOJO_MAX_NAME + 8];
	int i;

	deps = calloc(1, sizeof *deps);
	if (!deps) {
		dojo_error_set("out of memory");
		return NULL;
	}
	if (model_init(&deps->m, prog) < 0)
		goto out_free;
	deps->reduction = calloc(deps->m.n + 1, sizeof *deps->reduction);
	deps->ctx = isl_ctx_alloc();
	if (!deps->reduction || !deps->ctx) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	isl_options_set_on_error(deps->ctx, ISL_ON_ERROR_CONTINUE);
	for (i = 0; i < deps->m.n; i++)
		deps->reduction[i] = is_reduction(&deps->m, i);
	dojo_strbuf_init(&rd);
	dojo_strbuf_init(&wr);
	dojo_strbuf_init(&sched);
	dojo_strbuf_puts(&rd, "{ ");
	dojo_strbuf_puts(&wr, "{ ");
	dojo_strbuf_puts(&sched, "{ ");
	ac.prog = prog;
	ac.rd = &rd;
	ac.wr = &wr;
	for (i = 0; i < deps->m.n; i++) {
		snprintf(name, sizeof name, "S%d", i);
		ac.s = &deps->m.st[i];
		ac.name = name;
		if (deps->m.st[i].op->update != DOJO_SET)
			add_mem_access(&deps->m.st[i].op->lhs, false, &ac);
		dojo_op_foreach_access(deps->m.st[i].op, add_mem_access, &ac);
		add_schedule(&sched, name, &deps->m.st[i], deps->m.maxdepth, 0);
	}
	dojo_strbuf_puts(&rd, "}");
	dojo_strbuf_puts(&wr, "}");
	dojo_strbuf_puts(&sched, "}");
	R = isl_union_map_read_from_str(deps->ctx, rd.s);
	W = isl_union_map_read_from_str(deps->ctx, wr.s);
	S = isl_union_map_read_from_str(deps->ctx, sched.s);
	dojo_strbuf_release(&rd);
	dojo_strbuf_release(&wr);
	dojo_strbuf_release(&sched);
	before = isl_union_map_lex_lt_union_map(isl_union_map_copy(S), S);
	deps->kind[0] = isl_union_map_intersect(isl_union_map_apply_range(
	    isl_union_map_copy(W), isl_union_map_reverse(isl_union_map_copy(R))),
	    isl_union_map_copy(before));
	deps->kind[1] = isl_union_map_intersect(isl_union_map_apply_range(
	    isl_union_map_copy(R), isl_union_map_reverse(isl_union_map_copy(W))),
	    isl_union_map_copy(before));
	deps->kind[2] = isl_union_map_intersect(isl_union_map_apply_range(
	    isl_union_map_copy(W), isl_union_map_reverse(isl_union_map_copy(W))),
	    isl_union_map_copy(before));
	if (!deps->kind[0] || !deps->kind[1] || !deps->kind[2]) {
		isl_union_map_free(R);
		isl_union_map_free(W);
		isl_union_map_free(before);
		dojo_error_set("%s: dependence analysis failed", prog->file);
		goto out_free;
	}
	/* per buffer, the union of the three kinds */
	cc.deps = deps;
	cc.err = 0;
	for (i = 0; i < prog->decls->nbuf; i++) {
		isl_union_map *rb, *wb;

		snprintf(bname, sizeof bname, "b_%s", prog->decls->buf[i].name);
		rb = on_buffer(isl_union_map_copy(R), deps->ctx, bname,
		    prog->decls->buf[i].ndim);
		wb = on_buffer(isl_union_map_copy(W), deps->ctx, bname,
		    prog->decls->buf[i].ndim);
		if (isl_union_map_is_empty(wb) == isl_bool_true) {
			isl_union_map_free(rb);
			isl_union_map_free(wb);
			continue;
		}
		all = isl_union_map_union(rb, isl_union_map_copy(wb));
		/* pairs touching one element, at least one a write */
		ub = isl_union_map_union(
		    isl_union_map_apply_range(isl_union_map_copy(wb),
		    isl_union_map_reverse(isl_union_map_copy(all))),
		    isl_union_map_apply_range(all,
		    isl_union_map_reverse(wb)));
		ub = isl_union_map_intersect(ub, isl_union_map_copy(before));
		cc.buffer = i;
		if (isl_union_map_foreach_map(ub, add_dep, &cc) < 0)
			cc.err = 1;
		isl_union_map_free(ub);
		if (cc.err) {
			isl_union_map_free(R);
			isl_union_map_free(W);
			isl_union_map_free(before);
			dojo_error_set("%s: dependence analysis failed",
			    prog->file);
			goto out_free;
		}
	}
	isl_union_map_free(R);
	isl_union_map_free(W);
	isl_union_map_free(before);
	return deps;
out_free:
	dojo_deps_free(deps);
	return NULL;
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

static bool
dep_matches(dojo_deps *deps, const struct dep *d,
    const struct dojo_dep_query *q)
{
	int l = q->level;

	if (!in_subtree(&deps->m.st[d->src], q->src_path, q->src_len) ||
	    !in_subtree(&deps->m.st[d->dst], q->dst_path, q->dst_len))
		return false;
	if (d->chain && q->skip_chains)
		return false;
	if (d->chain && q->skip_invariant_chains &&
	    !dojo_access_uses(&deps->m.st[d->src].op->lhs, l))
		return false;
	switch (q->kind) {
	case DOJO_DEP_CARRIED:
		return l < d->m && (d->sign[l] & (SIGN_GT | SIGN_LT));
	case DOJO_DEP_SWAP:
		return (d->swapbad >> l) & 1;
	case DOJO_DEP_BACKWARD:
		return l < d->m && (d->sign[l] & SIGN_LT);
	case DOJO_DEP_FORWARD:
		return l < d->m && (d->sign[l] & SIGN_GT);
	case DOJO_DEP_SAME:
		return l == 0 || (l <= d->m && (d->sign[l - 1] & SIGN_EQ));
	case DOJO_DEP_ANY:
		return true;
	}
	return false;
}

int
dojo_deps_find(dojo_deps *deps, const struct dojo_dep_query *q)
{
	int i;

	for (i = 0; i < deps->n; i++)
		if (dep_matches(deps, &deps->dep[i], q))
			return i;
	return -1;
}

/* The distance vectors of "delta" that the query "q" matches. */
static isl_set *
violating(isl_set *delta, const struct dojo_dep_query *q)
{
	int l = q->level, i;

	for (i = 0; i < l && i < isl_set_dim(delta, isl_dim_set); i++)
		if (q->kind != DOJO_DEP_ANY)
			delta = isl_set_fix_si(delta, isl_dim_set, i, 0);
	switch (q->kind) {
	case DOJO_DEP_SWAP:
		delta = isl_set_lower_bound_si(delta, isl_dim_set, l, 1);
		delta = isl_set_upper_bound_si(delta, isl_dim_set, l + 1, -1);
		break;
	case DOJO_DEP_BACKWARD:
		delta = isl_set_upper_bound_si(delta, isl_dim_set, l, -1);
		break;
	case DOJO_DEP_FORWARD:
	case DOJO_DEP_CARRIED:
		delta = isl_set_lower_bound_si(delta, isl_dim_set, l, 1);
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
	static const char *const kinds[] = { "flow", "anti", "output" };
	const struct dep *d = &deps->dep[k];
	isl_point *pt;
	isl_val *v;
	isl_space *space;
	isl_map *map;
	const char *kind = "memory";
	char sname[16], tname[16];
	int i, sign;

	snprintf(sname, sizeof sname, "S%d", d->src);
	snprintf(tname, sizeof tname, "S%d", d->dst);
	for (i = 0; i < 3; i++) {
		space = isl_space_alloc(deps->ctx, 0, deps->m.st[d->src].depth,
		    deps->m.st[d->dst].depth);
		space = isl_space_set_tuple_name(space, isl_dim_in, sname);
		space = isl_space_set_tuple_name(space, isl_dim_out, tname);
		map = isl_union_map_extract_map(deps->kind[i], space);
		if (set_nonempty(violating(distances(map, d->m), q))) {
			kind = kinds[i];
			break;
		}
	}
	dojo_strbuf_puts(sb, "the dependence of ");
	add_address(sb, &deps->m.st[d->dst]);
	dojo_strbuf_puts(sb, " on ");
	add_address(sb, &deps->m.st[d->src]);
	dojo_strbuf_printf(sb, " through %s (%s)",
	    deps->m.prog->decls->buf[d->buffer].name, kind);
	pt = isl_set_sample_point(violating(isl_set_copy(d->delta), q));
	if (!pt || isl_point_is_void(pt) == isl_bool_true || d->m == 0) {
		isl_point_free(pt);
		return;
	}
	dojo_strbuf_puts(sb, ", direction (");
	for (i = 0; i < d->m; i++) {
		v = isl_point_get_coordinate_val(pt, isl_dim_set, i);
		sign = isl_val_sgn(v);
		isl_val_free(v);
		dojo_strbuf_printf(sb, "%s%s", i ? ", " : "",
		    sign > 0 ? "<" : sign < 0 ? ">" : "=");
	}
	dojo_strbuf_puts(sb, ")");
	isl_point_free(pt);
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
