/* move_flags.c: the annotations of scopes and the legality of their flags:
 * unroll, vectorize, parallelize, gpu-grid, gpu-block, gpu-warp, clear
 * (doc/moves.md) */
#include "config.h"
#include "ir/moves_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * unroll, vectorize, parallelize, gpu-grid, gpu-block, gpu-warp, clear
 */

/* The flag of the nearest enclosing scope flagged with one of "flags". */
static char
ancestor_flag(dojo_program *prog, const int *path, int n, const char *flags)
{
	struct dojo_node *s;
	int i;

	for (i = n - 1; i >= 1; i--) {
		s = node_at(prog, path, i);
		if (s->flag && strchr(flags, s->flag))
			return s->flag;
	}
	return 0;
}

/* Whether a scope around the node at "path" has the flag "flag". */
bool
under_flag(dojo_program *prog, const int *path, int n, char flag)
{
	const char set[2] = { flag, '\0' };

	return ancestor_flag(prog, path, n, set) != 0;
}

static bool
descendant_flag(const struct dojo_node *node, const char *flags)
{
	int i;

	if (node->kind != DOJO_SCOPE)
		return false;
	for (i = 0; i < node->n; i++)
		if ((node->kids[i]->kind == DOJO_SCOPE && node->kids[i]->flag &&
		    strchr(flags, node->kids[i]->flag)) ||
		    descendant_flag(node->kids[i], flags))
			return true;
	return false;
}

/* a * b for sizes (>= 1), INT64_MAX when it does not fit */
static int64_t
sat_mul(int64_t a, int64_t b)
{
	return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/* The product of the sizes of the scopes flagged with one of "flags"
 * around the node at "path" (the threads of the block and warp scopes,
 * the copies of the unrolled ones). */
static int64_t
ancestor_product(dojo_program *prog, const int *path, int n,
    const char *flags)
{
	struct dojo_node *s;
	int64_t t = 1;
	int i;

	for (i = 1; i < n; i++) {
		s = node_at(prog, path, i);
		if (s->flag && strchr(flags, s->flag))
			t = sat_mul(t, s->size);
	}
	return t;
}

/* The most that the sizes of the scopes flagged with one of "flags"
 * inside "node" multiply to, along one path. */
static int64_t
descendant_product(const struct dojo_node *node, const char *flags)
{
	int64_t t, best = 1;
	int i;

	for (i = 0; i < node->n; i++) {
		if (node->kids[i]->kind != DOJO_SCOPE)
			continue;
		t = descendant_product(node->kids[i], flags);
		if (node->kids[i]->flag && strchr(flags, node->kids[i]->flag))
			t = sat_mul(t, node->kids[i]->size);
		if (t > best)
			best = t;
	}
	return best;
}

/* The product for the scope "s" at "path" with a flag of "flags": its
 * size times those of the flagged scopes around it and inside it. */
static int64_t
nested_product(dojo_program *prog, const int *path, int n,
    const struct dojo_node *s, const char *flags)
{
	return sat_mul(sat_mul(ancestor_product(prog, path, n, flags), s->size),
	    descendant_product(s, flags));
}

/* The dependence test of a scope run by threads: the temporaries private
 * to it (doc/moves.md) are each thread's own, so their dependences do not
 * count. */
static int
check_threads_deps(dojo_legality *mv, const struct dojo_action *a,
    struct dojo_dep_query *q, const int *path, int n)
{
	dojo_deps *deps = deps_of(mv);
	bool *priv;
	int b, r;

	if (!deps)
		return -1;
	priv = calloc(mv->prog->decls->nbuf, sizeof *priv);
	if (!priv)
		return dojo_error_set("out of memory");
	for (b = 0; b < mv->prog->decls->nbuf; b++)
		priv[b] = dojo_deps_private(deps, b, path, n);
	q->skip_buffers = priv;
	r = check_deps(mv, a, q, "the scope carries");
	free(priv);
	return r;
}

/* Refuse "a" unless a scope around the one at "path" has a flag that
 * "fl" needs there. */
static int
check_needs(dojo_legality *mv, const struct dojo_action *a, const int *path,
    int n, const struct dojo_flag *fl)
{
	if (fl->needs && !ancestor_flag(mv->prog, path, n, fl->needs))
		return refuse(a, "%s", fl->needs_why);
	return 0;
}

/* Refuse "a" at the first rule of nesting of "fl" (ir/flag.c) that the
 * scope "s" at "path" would break. */
static int
check_nesting(dojo_legality *mv, const struct dojo_action *a,
    const int *path, int n, const struct dojo_node *s,
    const struct dojo_flag *fl)
{
	const struct dojo_flag_rule *r;

	for (r = fl->rules; r < fl->rules + DOJO_FLAG_MAX_RULES && r->why; r++)
		if ((r->above && ancestor_flag(mv->prog, path, n, r->above)) ||
		    (r->below && descendant_flag(s, r->below)))
			return refuse(a, "%s", r->why);
	return 0;
}

/* Whether the scope "s" at "path" may carry flag "f" (its own flag, if
 * any, aside); "a" names the move in the refusal.  Each flag asks its
 * questions in its order, which decides the refusal when several would
 * refuse. */
static int
flag_legal(dojo_legality *mv, const struct dojo_action *a, const int *path,
    int n, const struct dojo_node *s, char f)
{
	const struct dojo_flag *fl = dojo_flag_find(f);
	struct dojo_dep_query q = { 0 };
	int i;

	if (!fl)
		return 0;
	q.kind = DOJO_DEP_CARRIED;
	q.level = n - 1;
	q.src_path = q.dst_path = path;
	q.src_len = q.dst_len = n;
	switch (f) {
	case DOJO_FLAG_UNROLL:
		if (s->size > UNROLL_MAX)
			return refuse(a, "size %lld is over %d (split it "
			    "first)", (long long)s->size, UNROLL_MAX);
		if (nested_product(mv->prog, path, n, s, fl->shares) >
		    DOJO_UNROLL_COPIES)
			return refuse(a, "the unrolled scopes around and inside "
			    "would copy a body over %d times", DOJO_UNROLL_COPIES);
		return check_nesting(mv, a, path, n, s, fl);
	case DOJO_FLAG_VECTOR:
		for (i = 0; i < s->n; i++)
			if (s->kids[i]->kind == DOJO_SCOPE)
				return refuse(a, "the scope is not innermost");
		q.skip_invariant_chains = true;
		return check_deps(mv, a, &q, "the scope carries");
	case DOJO_FLAG_PARALLEL:
		if (check_nesting(mv, a, path, n, s, fl) < 0)
			return -1;
		return check_threads_deps(mv, a, &q, path, n);
	case DOJO_FLAG_GRID:
		if (check_nesting(mv, a, path, n, s, fl) < 0)
			return -1;
		if (s->size > 2147483647)
			return refuse(a, "size over the grid limit");
		return check_threads_deps(mv, a, &q, path, n);
	case DOJO_FLAG_BLOCK:
		if (check_needs(mv, a, path, n, fl) < 0 ||
		    check_nesting(mv, a, path, n, s, fl) < 0)
			return -1;
		if (nested_product(mv->prog, path, n, s, fl->shares) >
		    mv->machine->block_threads)
			return refuse(a, "over %lld threads in a block",
			    (long long)mv->machine->block_threads);
		return check_threads_deps(mv, a, &q, path, n);
	case DOJO_FLAG_WARP:
		if (check_needs(mv, a, path, n, fl) < 0)
			return -1;
		if (s->size > 32)
			return refuse(a, "a warp has 32 lanes, the size is "
			    "%lld", (long long)s->size);
		if (check_nesting(mv, a, path, n, s, fl) < 0)
			return -1;
		if (nested_product(mv->prog, path, n, s, fl->shares) >
		    mv->machine->block_threads)
			return refuse(a, "over %lld threads in a block",
			    (long long)mv->machine->block_threads);
		return check_threads_deps(mv, a, &q, path, n);
	}
	return 0;
}

int
annotate_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s;

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (s->flag)
		return refuse(a, "the scope already has flag '%c' (clear it "
		    "first)", s->flag);
	return flag_legal(mv, a, a->path, a->npath, s, a->move->flag);
}

/* Every flagged scope under "node" at "path" keeps its flag legal; 0, or
 * -1 with the reason of the first that does not. */
static int
flags_hold(dojo_legality *mv, struct dojo_node *node, int *path, int n)
{
	const struct dojo_flag *fl;
	struct dojo_action ann;
	int i;

	if (node->kind != DOJO_SCOPE)
		return 0;
	if (node->flag) {
		memset(&ann, 0, sizeof ann);
		fl = dojo_flag_find(node->flag);
		if (fl)
			ann.move = find_move(fl->move, strlen(fl->move));
		memcpy(ann.path, path, sizeof *path * n);
		ann.npath = n;
		if (flag_legal(mv, &ann, path, n, node, node->flag) < 0)
			return -1;
	}
	for (i = 0; i < node->n && n < DOJO_MAX_DEPTH; i++) {
		path[n] = i;
		if (flags_hold(mv, node->kids[i], path, n + 1) < 0)
			return -1;
	}
	return 0;
}

/* Whether "prog" has a flagged scope. */
static bool
any_flag(struct dojo_node **kids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (kids[i]->kind == DOJO_SCOPE && (kids[i]->flag ||
		    any_flag(kids[i]->kids, kids[i]->n)))
			return true;
	return false;
}

/* Refuse "a" when a flag of its result would no longer be legal: a fuse or
 * a join puts more in a flagged scope, a fold, reuse, cache, pack or
 * rfactor adds storage that the iterations of a flagged scope share.
 * "touched" (NULL: every buffer) names the buffer or array whose
 * accesses the move changes: with the buffers it adds, the only ones
 * whose dependences are asked about again. */
int
check_flags_after(dojo_legality *mv, const struct dojo_action *a,
    const char *touched)
{
	char why[DOJO_ERROR_MAX];
	int path[DOJO_MAX_DEPTH], i, b, r = 0;
	const char *failure;
	dojo_legality *after;
	dojo_program *p;
	const char *colon;

	if (!any_flag(mv->prog->kids, mv->prog->n))
		return 0;
	p = dojo_legality_apply_unchecked(mv, a);
	if (!p)
		return -1;
	after = dojo_legality_new(p, mv->machine);
	if (after && touched) {
		/* the dependences of the other buffers are those of this
		 * state, whose flags hold: only "touched" and the new
		 * buffers are asked about */
		after->recheck = calloc(p->decls->nbuf, sizeof *after->recheck);
		if (!after->recheck) {
			dojo_error_set("out of memory");
			dojo_legality_free(after);
			after = NULL;
		}
		for (b = 0; after && b < p->decls->nbuf; b++)
			after->recheck[b] = dojo_program_find_buffer(mv->prog,
			    p->decls->buf[b].name) < 0;
		if (after && (b = dojo_program_find_buffer(p, touched)) >= 0)
			after->recheck[b] = true;
		if (after && (b = dojo_program_find_array(p, touched)) >= 0)
			after->recheck[p->decls->arr[b].buffer] = true;
	}
	refused = false;
	for (i = 0; after && i < p->n && r == 0; i++) {
		path[0] = i;
		r = flags_hold(after, p->kids[i], path, 1);
	}
	failure = after && after->deps ? dojo_deps_failure(after->deps) : NULL;
	if (!after || failure || (r < 0 && !refused)) {
		/* not decided (dojo_legality_check says so) */
		if (failure)
			dojo_error_set("%s", failure);
		refused = false;
		r = -1;
	} else if (r < 0) {
		snprintf(why, sizeof why, "%s", dojo_error_last());
		colon = strstr(why, ": ");
		if (colon)
			why[colon - why] = '\0';
		refuse(a, "the result would break '%s': %s", why,
		    colon ? colon + 2 : "");
	}
	dojo_legality_free(after);
	dojo_program_free(p);
	return r;
}

static dojo_program *
set_flag(dojo_legality *mv, const struct dojo_action *a, char flag)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *n = node_dup(s);

	if (!n)
		return NULL;
	n->flag = flag;
	return replace_node(mv->prog, a->path, a->npath, &n, 1);
}

dojo_program *
annotate_apply(dojo_legality *mv, const struct dojo_action *a)
{
	return set_flag(mv, a, a->move->flag);
}

int
annotate_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	*out = *a;
	out->move = find_move("clear", 5);
	return 0;
}

int
clear_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s;

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (!s->flag)
		return refuse(a, "the scope has no flag");
	if (s->flag == DOJO_FLAG_UNROLL) {
		struct reg_ctx rc = { mv->prog, -1, 0, s };
		struct scan sc;

		memset(&sc, 0, sizeof sc);
		sc.fn = reg_violation;
		sc.payload = &rc;
		if (scan_program(&sc, mv->prog))
			return refuse(a, "a register buffer is indexed by the "
			    "scope's iterator");
	}
	return 0;
}

dojo_program *
clear_apply(dojo_legality *mv, const struct dojo_action *a)
{
	return set_flag(mv, a, 0);
}

int
clear_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	const struct dojo_flag *fl = dojo_flag_find(s->flag);

	*out = *a;
	if (!fl)
		return -1;
	out->move = find_move(fl->move, strlen(fl->move));
	return 0;
}
