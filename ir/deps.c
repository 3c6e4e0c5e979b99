/* deps.c: exact dependence analysis of a program with isl */
#include "config.h"
#include "deps.h"
#include "program_private.h"
#include "strbuf.h"

#include <isl/ctx.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/options.h>
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
