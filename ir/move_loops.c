/* move_loops.c: the moves of the loop structure: split, join, swap, fuse,
 * fission, reorder, peel (doc/moves.md) */
#include "config.h"
#include "ir/moves_private.h"

#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"

/* In "out", the move named "name" at the place of "a", with the number
 * "num" when "nnum" is 1: the inverse of "a". */
static int
inverse_at(struct dojo_action *out, const struct dojo_action *a,
    const char *name, int nnum, int64_t num)
{
	memset(out, 0, sizeof *out);
	out->move = find_move(name, strlen(name));
	memcpy(out->path, a->path, sizeof out->path);
	out->npath = a->npath;
	out->num[0] = num;
	out->nnum = nnum;
	return 0;
}

/*
 * split S f / join S
 */

struct split_ctx {
	int d;
	int64_t f;
};

static int
split_aff(struct dojo_aff *aff, void *payload)
{
	struct split_ctx *c = payload;
	int64_t k = 0;
	int i;

	for (i = 0; i < aff->n; i++) {
		if (aff->t[i].d > c->d)
			aff->t[i].d++;
		else if (aff->t[i].d == c->d) {
			k = aff->t[i].k;
			aff->t[i].k = k * c->f;
		}
	}
	if (k)
		return aff_add_term(aff, c->d + 1, k);
	return 0;
}

int
split_values(dojo_legality *mv, const struct dojo_action *a, int i,
    int64_t *out, int max)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);

	if (!s || s->kind != DOJO_SCOPE)
		return 0;
	return dojo_divisors(s->size, out, max);
}

int
split_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s;
	int64_t f = a->num[0];

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (f <= 1 || f >= s->size)
		return refuse(a, "the factor must be between 2 and %lld",
		    (long long)s->size - 1);
	if (s->size % f)
		return refuse(a, "%lld does not divide the size %lld",
		    (long long)f, (long long)s->size);
	if (a->npath + 1 > DOJO_MAX_DEPTH ||
	    dojo_node_kind(s) != DOJO_SCOPE)
		return refuse(a, "too deep");
	return 0;
}

/* Where a split leaves the flag "flag" (ir/flag.c); no flag, outside. */
static enum dojo_flag_split
split_of(char flag)
{
	const struct dojo_flag *f = dojo_flag_find(flag);

	return f ? f->split : DOJO_SPLIT_OUTER;
}

/* The flags of the two scopes of a split of a scope flagged "flag". */
static void
split_flags(char flag, char *outer, char *inner)
{
	enum dojo_flag_split where = split_of(flag);

	*outer = where != DOJO_SPLIT_INNER ? flag : 0;
	*inner = where != DOJO_SPLIT_OUTER ? flag : 0;
}

/* The flag of the scope that joins a scope flagged "outer" and its child
 * flagged "inner": the inner flag if a split leaves it inside only, else
 * the outer one, else the inner one. */
static char
joined_flag(char outer, char inner)
{
	if (split_of(inner) == DOJO_SPLIT_INNER)
		return inner;
	return outer ? outer : inner;
}

dojo_program *
split_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct split_ctx c = { a->npath - 1, a->num[0] };
	struct rewrite rw = { split_aff, NULL, &c };
	struct dojo_node *outer, *inner;
	char fo, fi;

	split_flags(s->flag, &fo, &fi);
	inner = rewrite_tree(s, &rw);
	outer = dojo_node_new_scope(s->size / c.f, fo);
	if (!inner || !outer) {
		dojo_node_unref(inner);
		dojo_node_unref(outer);
		return NULL;
	}
	inner->size = c.f;
	inner->flag = fi;
	outer->pos = s->pos;
	loop_name_set(outer, "%s.o", s->name);
	loop_name_set(inner, "%s.i", s->name);
	if (dojo_node_append(outer, inner) < 0)
		return NULL;
	return replace_node(mv->prog, a->path, a->npath, &outer, 1);
}

int
split_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	return inverse_at(out, a, "join", 0, 0);
}

struct join_ctx {
	int d;
	int64_t f;
	bool ok;
};

static int
join_test(struct dojo_aff *aff, void *payload)
{
	struct join_ctx *c = payload;

	if (aff_coef(aff, c->d) != c->f * aff_coef(aff, c->d + 1))
		c->ok = false;
	return 0;
}

static int
join_aff(struct dojo_aff *aff, void *payload)
{
	struct join_ctx *c = payload;
	int i;

	for (i = 0; i < aff->n; i++) {
		if (aff->t[i].d == c->d)
			aff->t[i].k = 0;	/* folded into {d+1}'s */
	}
	aff_normalize(aff);
	for (i = 0; i < aff->n; i++)
		if (aff->t[i].d > c->d)
			aff->t[i].d--;
	return 0;
}

int
join_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s, *c, *t;
	struct join_ctx jc;
	struct rewrite rw = { join_test, NULL, &jc };

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (s->n != 1 || s->kids[0]->kind != DOJO_SCOPE)
		return refuse(a, "the scope's only child must be a scope");
	c = s->kids[0];
	/* the flags a split of the joined scope would give back */
	{
		char f = joined_flag(s->flag, c->flag), fo, fi;

		split_flags(f, &fo, &fi);
		if (fo != s->flag || fi != c->flag)
			return refuse(a, "the flags of the two scopes ('%c' and "
			    "'%c') do not merge into one", s->flag ? s->flag :
			    '-', c->flag ? c->flag : '-');
	}
	jc.d = a->npath - 1;
	jc.f = c->size;
	jc.ok = true;
	t = rewrite_tree(c, &rw);
	dojo_node_unref(t);
	if (!jc.ok)
		return refuse(a, "an index does not use the two iterators as "
		    "{%d}*%lld + {%d}", jc.d, (long long)jc.f, jc.d + 1);
	return check_flags_after(mv, a, NULL);
}

/* The name of the scope that joins "outer" and "inner": X for X.o and
 * X.i (a split undone), else outer*inner. */
static void
joined_name(struct dojo_node *n, const char *outer, const char *inner)
{
	size_t len = strlen(outer);

	if (len > 2 && strcmp(outer + len - 2, ".o") == 0 &&
	    strlen(inner) == len && strncmp(outer, inner, len - 1) == 0 &&
	    inner[len - 1] == 'i')
		loop_name_set(n, "%.*s", (int)len - 2, outer);
	else
		loop_name_set(n, "%s*%s", outer, inner);
}

dojo_program *
join_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *c = s->kids[0], *n;
	struct join_ctx jc = { a->npath - 1, c->size, true };
	struct rewrite rw = { join_aff, NULL, &jc };

	n = rewrite_tree(c, &rw);
	if (!n)
		return NULL;
	n->size = s->size * c->size;
	n->flag = joined_flag(s->flag, c->flag);
	n->pos = s->pos;
	joined_name(n, s->name, c->name);
	return replace_node(mv->prog, a->path, a->npath, &n, 1);
}

int
join_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);

	return inverse_at(out, a, "split", 1, s->kids[0]->size);
}

/*
 * swap S
 */

static int
swap_aff(struct dojo_aff *aff, void *payload)
{
	int d = *(int *)payload, i;

	for (i = 0; i < aff->n; i++)
		if (aff->t[i].d == d)
			aff->t[i].d = d + 1;
		else if (aff->t[i].d == d + 1)
			aff->t[i].d = d;
	aff_normalize(aff);
	return 0;
}

int
swap_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_dep_query q = { 0 };
	struct dojo_node *s;

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (s->n != 1 || s->kids[0]->kind != DOJO_SCOPE)
		return refuse(a, "the scope's only child must be a scope (a "
		    "perfect pair)");
	if (s->flag || s->kids[0]->flag)
		return refuse(a, "clear the flags of the two scopes first");
	q.kind = DOJO_DEP_SWAP;
	q.level = a->npath - 1;
	q.src_path = q.dst_path = a->path;
	q.src_len = q.dst_len = a->npath;
	q.skip_chains = true;
	return check_deps(mv, a, &q, "would reverse");
}

dojo_program *
swap_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *c = s->kids[0], *outer, *inner;
	int d = a->npath - 1;
	struct rewrite rw = { swap_aff, NULL, &d };

	inner = rewrite_tree(c, &rw);
	outer = dojo_node_new_scope(c->size, c->flag);
	if (!inner || !outer) {
		dojo_node_unref(inner);
		dojo_node_unref(outer);
		return NULL;
	}
	inner->size = s->size;
	inner->flag = s->flag;
	outer->pos = s->pos;
	memcpy(outer->name, c->name, sizeof outer->name);
	memcpy(inner->name, s->name, sizeof inner->name);
	if (dojo_node_append(outer, inner) < 0)
		return NULL;
	return replace_node(mv->prog, a->path, a->npath, &outer, 1);
}

int
self_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	*out = *a;
	return 0;
}

/*
 * fuse S / fission S k
 */

int
fuse_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_dep_query q = { 0 };
	struct dojo_node *s, *t, **sib;
	int nsib, next[DOJO_MAX_DEPTH];

	if (need_scope(a, mv, &s) < 0)
		return -1;
	sib = siblings(mv->prog, a->path, a->npath, &nsib);
	if (a->path[a->npath - 1] + 1 >= nsib)
		return refuse(a, "the scope has no next sibling");
	t = sib[a->path[a->npath - 1] + 1];
	if (t->kind != DOJO_SCOPE)
		return refuse(a, "the next sibling is an operation");
	if (t->size != s->size)
		return refuse(a, "the next scope has size %lld, not %lld",
		    (long long)t->size, (long long)s->size);
	if (t->flag != s->flag)
		return refuse(a, "the two scopes have different flags");
	memcpy(next, a->path, sizeof next);
	next[a->npath - 1]++;
	q.kind = DOJO_DEP_BACKWARD;
	q.level = a->npath - 1;
	q.src_path = a->path;
	q.src_len = a->npath;
	q.dst_path = next;
	q.dst_len = a->npath;
	if (check_deps(mv, a, &q, "would break") < 0)
		return -1;
	return check_flags_after(mv, a, NULL);
}

dojo_program *
fuse_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node **sib, *s, *t, *n;
	int nsib, i, at = a->path[a->npath - 1];
	struct dojo_node **kids;
	dojo_program *p;

	sib = siblings(mv->prog, a->path, a->npath, &nsib);
	s = sib[at];
	t = sib[at + 1];
	n = node_dup(s);
	if (!n)
		return NULL;
	/* a fission undone keeps its name (the second part's is the
	 * first's with "_N") */
	if (strncmp(t->name, s->name, strlen(s->name)) != 0 ||
	    (t->name[strlen(s->name)] && t->name[strlen(s->name)] != '_'))
		loop_name_set(n, "%s+%s", s->name, t->name);
	for (i = 0; i < t->n; i++)
		if (dojo_node_append(n, dojo_node_ref(t->kids[i])) < 0)
			return NULL;
	kids = malloc(sizeof *kids * nsib);
	if (!kids) {
		dojo_node_unref(n);
		return NULL;
	}
	for (i = 0; i < nsib - 1; i++)
		kids[i] = i < at ? dojo_node_ref(sib[i]) : i == at ? n :
		    dojo_node_ref(sib[i + 1]);
	p = replace_children(mv->prog, a->path, a->npath - 1, kids, nsib - 1,
	    NULL);
	free(kids);
	return p;
}

int
fuse_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);

	return inverse_at(out, a, "fission", 1, s->n);
}

int
fission_values(dojo_legality *mv, const struct dojo_action *a, int i,
    int64_t *out, int max)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	int k, n = 0;

	if (!s || s->kind != DOJO_SCOPE)
		return 0;
	for (k = 1; k < s->n && n < max; k++)
		out[n++] = k;
	return n;
}

int
fission_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_dep_query q = { 0 };
	struct dojo_node *s;
	int src[DOJO_MAX_DEPTH + 1], dst[DOJO_MAX_DEPTH + 1];

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (s->n < 2)
		return refuse(a, "the scope has one child: nothing to split "
		    "apart");
	if (a->num[0] < 1 || a->num[0] >= s->n)
		return refuse(a, "the position must be between 1 and %d",
		    s->n - 1);
	memcpy(src, a->path, sizeof a->path);
	memcpy(dst, a->path, sizeof a->path);
	q.kind = DOJO_DEP_BACKWARD;
	q.level = a->npath - 1;
	q.src_path = src;
	q.dst_path = dst;
	q.src_len = q.dst_len = a->npath + 1;
	/* an operation of the first part, one of the second */
	src[a->npath] = 0;
	q.src_end = (int)a->num[0];
	dst[a->npath] = (int)a->num[0];
	q.dst_end = s->n;
	return check_deps(mv, a, &q, "would reverse");
}

dojo_program *
fission_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct dojo_node *part[2];
	int i, k = (int)a->num[0];

	part[0] = dojo_node_new_scope(s->size, s->flag);
	part[1] = dojo_node_new_scope(s->size, s->flag);
	if (!part[0] || !part[1]) {
		dojo_node_unref(part[0]);
		dojo_node_unref(part[1]);
		return NULL;
	}
	part[0]->pos = part[1]->pos = s->pos;
	memcpy(part[0]->name, s->name, sizeof part[0]->name);
	memcpy(part[1]->name, s->name, sizeof part[1]->name);
	for (i = 0; i < s->n; i++)
		if (dojo_node_append(part[i >= k], dojo_node_ref(s->kids[i])) < 0) {
			dojo_node_unref(part[0]);
			dojo_node_unref(part[1]);
			return NULL;
		}
	return replace_node(mv->prog, a->path, a->npath, part, 2);
}

int
fission_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	return inverse_at(out, a, "fuse", 0, 0);
}

/*
 * peel S i: the first i iterations of S, then the rest, as two scopes
 */

struct peel_ctx {
	int d;
	int64_t i;
};

/* The rest's iteration {d} is the scope's {d} + i. */
static int
peel_aff(struct dojo_aff *aff, void *payload)
{
	struct peel_ctx *c = payload;

	aff->c += aff_coef(aff, c->d) * c->i;
	return 0;
}

int
peel_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s;

	if (need_scope(a, mv, &s) < 0)
		return -1;
	if (a->num[0] < 1 || a->num[0] >= s->size)
		return refuse(a, "the iterations peeled must be between 1 and "
		    "%lld", (long long)s->size - 1);
	/* the same operations run in the same order: no dependence can
	 * change; what is left is the language's rules */
	return check_result(mv, a, NULL);
}

dojo_program *
peel_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node *s = node_at(mv->prog, a->path, a->npath);
	struct peel_ctx c = { a->npath - 1, a->num[0] };
	struct rewrite rw = { peel_aff, NULL, &c };
	struct dojo_node *part[2];
	int k;

	/* the first part shares S's children; only the rest's indices
	 * change */
	part[0] = dojo_node_new_scope(c.i, s->flag);
	part[1] = rewrite_tree(s, &rw);
	if (!part[0] || !part[1]) {
		dojo_node_unref(part[0]);
		dojo_node_unref(part[1]);
		return NULL;
	}
	part[0]->pos = s->pos;
	for (k = 0; k < s->n; k++)
		if (dojo_node_append(part[0], dojo_node_ref(s->kids[k])) < 0) {
			dojo_node_unref(part[0]);
			dojo_node_unref(part[1]);
			return NULL;
		}
	part[1]->size = s->size - c.i;
	loop_name_set(part[0], "%s.h", s->name);
	loop_name_set(part[1], "%s.t", s->name);
	return replace_node(mv->prog, a->path, a->npath, part, 2);
}

/*
 * reorder X
 */

int
reorder_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_dep_query q = { 0 };
	struct dojo_node *x;
	int nsib, next[DOJO_MAX_DEPTH];

	if (need_node(a, mv, &x) < 0)
		return -1;
	siblings(mv->prog, a->path, a->npath, &nsib);
	if (a->path[a->npath - 1] + 1 >= nsib)
		return refuse(a, "the node has no next sibling");
	memcpy(next, a->path, sizeof next);
	next[a->npath - 1]++;
	q.kind = DOJO_DEP_SAME;
	q.level = a->npath - 1;
	q.src_path = a->path;
	q.src_len = a->npath;
	q.dst_path = next;
	q.dst_len = a->npath;
	return check_deps(mv, a, &q, "would reverse");
}

dojo_program *
reorder_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_node **sib, **kids;
	int nsib, i, at = a->path[a->npath - 1];
	dojo_program *p;

	sib = siblings(mv->prog, a->path, a->npath, &nsib);
	kids = malloc(sizeof *kids * nsib);
	if (!kids)
		return NULL;
	for (i = 0; i < nsib; i++)
		kids[i] = dojo_node_ref(sib[i == at ? at + 1 : i == at + 1 ?
		    at : i]);
	p = replace_children(mv->prog, a->path, a->npath - 1, kids, nsib, NULL);
	free(kids);
	return p;
}
