/* move_buffers.c: the moves of the declarations: move, fold, unfold,
 * reuse, pad, permute (doc/moves.md) */
#include "config.h"
#include "ir/moves_private.h"

#include <stdlib.h>
#include <string.h>

/*
 * move B LOC, fold B d n, unfold B d, reuse B A, pad B d n, permute B ORDER
 */

/* 1 when an access to the buffer uses an iterator of a scope that is not
 * (or will no longer be) unrolled. */
int
reg_violation(struct scan *sc, struct dojo_access *acc, bool write)
{
	struct reg_ctx *c = sc->payload;
	int i, j, d;

	if (c->buffer >= 0 &&
	    c->prog->decls->arr[acc->array].buffer != c->buffer)
		return 0;
	if (c->buffer < 0 && c->prog->decls->buf[
	    c->prog->decls->arr[acc->array].buffer].loc != DOJO_REG)
		return 0;
	for (i = 0; i < acc->nidx; i++)
		for (j = 0; j < acc->idx[i].n; j++) {
			d = acc->idx[i].t[j].d;
			if (sc->chain[d]->flag != DOJO_FLAG_UNROLL ||
			    sc->chain[d] == c->clear)
				return 1;
		}
	return 0;
}

static int
need_buffer(const struct dojo_action *a, dojo_legality *mv, const char *name,
    int *out)
{
	*out = dojo_program_find_buffer(mv->prog, name);
	if (*out < 0)
		return refuse(a, "unknown buffer '%s'", name);
	return 0;
}

int
move_check(dojo_legality *mv, const struct dojo_action *a)
{
	struct reg_ctx rc;
	struct scan sc;
	const struct dojo_buffer *b;
	int bi;

	if (need_buffer(a, mv, a->buffer, &bi) < 0)
		return -1;
	b = &mv->prog->decls->buf[bi];
	if (b->role != DOJO_TEMP)
		return refuse(a, "'%s' is a kernel argument (role %s)", b->name,
		    dojo_role_name(b->role));
	if (b->loc == a->loc)
		return refuse(a, "'%s' is already in %s", b->name,
		    dojo_loc_name(b->loc));
	switch (a->loc) {
	case DOJO_STACK:
		if (dojo_buffer_count(b) * dojo_dtype_size(b->dtype) >
		    (uint64_t)mv->machine->stack_bytes)
			return refuse(a, "%llu bytes are over the stack budget "
			    "of %lld", (unsigned long long)(dojo_buffer_count(b) *
			    dojo_dtype_size(b->dtype)),
			    (long long)mv->machine->stack_bytes);
		return 0;
	case DOJO_REG:
		if (dojo_buffer_count(b) > (uint64_t)mv->machine->reg_elems)
			return refuse(a, "%llu elements are over the register "
			    "budget of %lld", (unsigned long long)dojo_buffer_count(b),
			    (long long)mv->machine->reg_elems);
		memset(&sc, 0, sizeof sc);
		rc.prog = mv->prog;
		rc.buffer = bi;
		rc.clear = NULL;
		sc.fn = reg_violation;
		sc.payload = &rc;
		if (scan_program(&sc, mv->prog))
			return refuse(a, "an index into '%s' uses a scope that "
			    "is not unrolled", b->name);
		return 0;
	case DOJO_SHARED: {
		uint64_t bytes = dojo_buffer_count(b) * dojo_dtype_size(b->dtype);
		int k;

		if (!mv->machine->gpu)
			return refuse(a, "shared memory exists on GPU targets "
			    "only");
		/* with the buffers already there: one kernel may use all */
		for (k = 0; k < mv->prog->decls->nbuf; k++)
			if (mv->prog->decls->buf[k].loc == DOJO_SHARED)
				bytes += dojo_buffer_count(&mv->prog->decls->buf[k]) *
				    dojo_dtype_size(mv->prog->decls->buf[k].dtype);
		if (bytes > (uint64_t)mv->machine->shared_bytes)
			return refuse(a, "%llu bytes of shared buffers are over "
			    "the shared memory of a block, %lld",
			    (unsigned long long)bytes,
			    (long long)mv->machine->shared_bytes);
		return 0;
	}
	default:
		return 0;
	}
}

dojo_program *
move_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_decls *d = decls_copy(mv->prog->decls);

	if (!d)
		return NULL;
	d->buf[dojo_program_find_buffer(mv->prog, a->buffer)].loc = a->loc;
	return with_decls(mv->prog, d);
}

int
move_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	*out = *a;
	out->loc = mv->prog->decls->buf[dojo_program_find_buffer(mv->prog,
	    a->buffer)].loc;
	return 0;
}

static int
backs_one_array(dojo_program *prog, int b)
{
	int i, n = 0;

	for (i = 0; i < prog->decls->narr; i++)
		n += prog->decls->arr[i].buffer == b;
	return n == 1;
}

/* The fold candidates beyond the windows: the blocks of rows. */
struct blocks {
	const dojo_program *prog;
	int buffer, dim;
	int64_t ext;
	int64_t *out;
	int n, max;
};

/* An index of dimension "dim" of the buffer that is s {o} + {i}, with
 * {i} of a scope of s iterations (the inner scope of a split, s > 4 and
 * below the extent): s is a candidate. */
static int
block_rows(struct scan *sc, struct dojo_access *acc, bool write)
{
	struct blocks *bl = sc->payload;
	const struct dojo_aff *x;
	int64_t s;
	int t, k;

	(void)write;
	if (bl->prog->decls->arr[acc->array].buffer != bl->buffer ||
	    acc->nidx <= bl->dim || bl->n >= bl->max)
		return 0;
	x = &acc->idx[bl->dim];
	if (x->n != 2)
		return 0;
	for (t = 0; t < 2; t++) {
		s = sc->chain[x->t[t].d]->size;
		if (x->t[t].k != 1 || x->t[1 - t].k != s || s <= 4 ||
		    s >= bl->ext)
			continue;
		for (k = 0; k < bl->n && bl->out[k] != s; k++)
			;
		if (k == bl->n)
			bl->out[bl->n++] = s;
	}
	return 0;
}

int
fold_values(dojo_legality *mv, const struct dojo_action *a, int i,
    int64_t *out, int max)
{
	int b = dojo_program_find_buffer(mv->prog, a->buffer), n = 0;
	int64_t e;

	if (b < 0)
		return 0;
	if (i == 0) {
		for (n = 0; n < mv->prog->decls->buf[b].ndim && n < max; n++)
			out[n] = n;
		return n;
	}
	if (a->num[0] < 0 || a->num[0] >= mv->prog->decls->buf[b].ndim)
		return 0;
	/* windows of 1 to 4 slots: scalars, and the windows of stencils */
	e = mv->prog->decls->buf[b].ext[a->num[0]];
	for (n = 0; n < 4 && n + 1 < e && n < max; n++)
		out[n] = n + 1;
	/* and the rows of a block: s slots where the dimension is indexed
	 * s {o} + {i}, {i} of s iterations (a row block's temporaries) */
	if (n < max) {
		struct blocks bl = { mv->prog, b, (int)a->num[0], e, out, n,
		    max };
		struct scan sc = { .fn = block_rows, .payload = &bl };

		scan_program(&sc, mv->prog);
		n = bl.n;
	}
	return n;
}

int
fold_check(dojo_legality *mv, const struct dojo_action *a)
{
	const struct dojo_buffer *b;
	char why[DOJO_ERROR_MAX];
	int64_t d = a->num[0];
	int bi, r;

	if (need_buffer(a, mv, a->buffer, &bi) < 0)
		return -1;
	b = &mv->prog->decls->buf[bi];
	if (b->role != DOJO_TEMP)
		return refuse(a, "'%s' is a kernel argument", b->name);
	if (!backs_one_array(mv->prog, bi))
		return refuse(a, "'%s' backs several arrays", b->name);
	if (d < 0 || d >= b->ndim)
		return refuse(a, "'%s' has no dimension %lld", b->name,
		    (long long)d);
	if (b->fold[d])
		return refuse(a, "dimension %lld is folded already",
		    (long long)d);
	if (b->pad[d])
		return refuse(a, "dimension %lld is padded", (long long)d);
	if (a->num[1] < 1 || a->num[1] >= b->ext[d])
		return refuse(a, "the slots must be between 1 and %lld",
		    (long long)b->ext[d] - 1);
	if (!deps_of(mv))
		return -1;
	r = dojo_deps_fold_conflict(mv->deps, bi, (int)d, a->num[1], why,
	    sizeof why);
	if (r < 0)
		return -1;
	if (r > 0)
		return refuse(a, "%s", why);
	return check_flags_after(mv, a, a->buffer);
}

dojo_program *
fold_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_decls *d = decls_copy(mv->prog->decls);

	if (!d)
		return NULL;
	d->buf[dojo_program_find_buffer(mv->prog, a->buffer)].fold[a->num[0]] =
	    a->num[1];
	return with_decls(mv->prog, d);
}

int
fold_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	*out = *a;
	out->move = find_move("unfold", 6);
	out->nnum = 1;
	return 0;
}

int
unfold_values(dojo_legality *mv, const struct dojo_action *a, int i,
    int64_t *out, int max)
{
	int b = dojo_program_find_buffer(mv->prog, a->buffer), d, n = 0;

	if (b < 0)
		return 0;
	for (d = 0; d < mv->prog->decls->buf[b].ndim && n < max; d++)
		if (mv->prog->decls->buf[b].fold[d])
			out[n++] = d;
	return n;
}

int
unfold_check(dojo_legality *mv, const struct dojo_action *a)
{
	int bi;

	if (need_buffer(a, mv, a->buffer, &bi) < 0)
		return -1;
	if (a->num[0] < 0 || a->num[0] >= mv->prog->decls->buf[bi].ndim ||
	    !mv->prog->decls->buf[bi].fold[a->num[0]])
		return refuse(a, "dimension %lld of '%s' is not folded",
		    (long long)a->num[0], a->buffer);
	return 0;
}

dojo_program *
unfold_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_decls *d = decls_copy(mv->prog->decls);

	if (!d)
		return NULL;
	d->buf[dojo_program_find_buffer(mv->prog, a->buffer)].fold[a->num[0]] = 0;
	return with_decls(mv->prog, d);
}

int
unfold_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	*out = *a;
	out->move = find_move("fold", 4);
	out->num[1] = mv->prog->decls->buf[dojo_program_find_buffer(mv->prog,
	    a->buffer)].fold[a->num[0]];
	out->nnum = 2;
	return 0;
}

/*
 * pad B d n: n more slots of dimension d in memory, so that the rows
 * (the elements of one index of dimension d-1) are further apart.
 */

/* The buffer the action names into "*bi", when it is a temporary with a
 * layout of its own (not a kernel argument, not in registers): 0, else
 * -1 (refused). */
static int
laid_out(dojo_legality *mv, const struct dojo_action *a, int *bi)
{
	const struct dojo_buffer *b;

	if (need_buffer(a, mv, a->buffer, bi) < 0)
		return -1;
	b = &mv->prog->decls->buf[*bi];
	if (b->role != DOJO_TEMP)
		return refuse(a, "'%s' is a kernel argument (its layout is "
		    "the caller's)", b->name);
	if (b->loc == DOJO_REG)
		return refuse(a, "'%s' is in registers: it has no layout",
		    b->name);
	return 0;
}

/* The stride of dimension d-1 of "b" in bytes. */
static uint64_t
row_bytes(const struct dojo_buffer *b, int d)
{
	uint64_t n = dojo_dtype_size(b->dtype);

	for (; d < b->ndim; d++)
		n *= (uint64_t)dojo_buffer_slots(b, d);
	return n;
}

int
pad_values(dojo_legality *mv, const struct dojo_action *a, int i,
    int64_t *out, int max)
{
	const struct dojo_buffer *b;
	int bi = dojo_program_find_buffer(mv->prog, a->buffer), d, n = 0;

	if (bi < 0)
		return 0;
	b = &mv->prog->decls->buf[bi];
	if (i == 1) {
		/* a cache line: the rows fall into other sets */
		if (max < 1)
			return 0;
		out[0] = 64 / (int64_t)dojo_dtype_size(b->dtype);
		return 1;
	}
	/* the dimensions whose rows are a multiple of 2 KiB apart: with
	 * 8-way caches of 4 KiB a way, a few such rows read together
	 * fight for the same sets */
	for (d = 1; d < b->ndim && n < max; d++)
		if (!b->fold[d] && !b->pad[d] && row_bytes(b, d) % 2048 == 0)
			out[n++] = d;
	return n;
}

int
pad_check(dojo_legality *mv, const struct dojo_action *a)
{
	const struct dojo_buffer *b;
	struct dojo_buffer padded;
	int64_t d = a->num[0], n = a->num[1];
	int bi;

	if (laid_out(mv, a, &bi) < 0)
		return -1;
	b = &mv->prog->decls->buf[bi];
	if (d < 1 || d >= b->ndim)
		return refuse(a, b->ndim == 1 ? "'%s' has one dimension: no "
		    "stride to change" : "'%s' has no dimension %lld with a "
		    "stride to change (1 to %d)", b->name, (long long)d,
		    b->ndim - 1);
	if (b->fold[d])
		return refuse(a, "dimension %lld is folded", (long long)d);
	if (b->pad[d])
		return refuse(a, "dimension %lld is padded already",
		    (long long)d);
	if (n < 1 || n > 1 << 20)
		return refuse(a, "the pad must be between 1 and %d slots",
		    1 << 20);
	padded = *b;
	padded.pad[d] = n;
	if (b->loc != DOJO_HEAP && dojo_buffer_count(&padded) *
	    dojo_dtype_size(b->dtype) > (uint64_t)(b->loc == DOJO_STACK ?
	    mv->machine->stack_bytes : mv->machine->shared_bytes))
		return refuse(a, "padded, '%s' is over the %s budget",
		    b->name, dojo_loc_name(b->loc));
	return 0;
}

dojo_program *
pad_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_decls *d = decls_copy(mv->prog->decls);

	if (!d)
		return NULL;
	d->buf[dojo_program_find_buffer(mv->prog, a->buffer)].pad[a->num[0]] =
	    a->num[1];
	return with_decls(mv->prog, d);
}

int
reuse_check(dojo_legality *mv, const struct dojo_action *a)
{
	const struct dojo_buffer *b, *ab;
	int bi, ai, abi, i, r;

	if (need_buffer(a, mv, a->buffer, &bi) < 0)
		return -1;
	ai = dojo_program_find_array(mv->prog, a->array);
	if (ai < 0)
		return refuse(a, "unknown array '%s'", a->array);
	b = &mv->prog->decls->buf[bi];
	abi = mv->prog->decls->arr[ai].buffer;
	ab = &mv->prog->decls->buf[abi];
	if (abi == bi)
		return refuse(a, "'%s' already backs '%s'", b->name, a->array);
	if (b->role != DOJO_TEMP || ab->role != DOJO_TEMP)
		return refuse(a, "both must be temporaries");
	if (!backs_one_array(mv->prog, abi))
		return refuse(a, "the buffer of '%s' backs other arrays",
		    a->array);
	if (b->dtype != ab->dtype || b->ndim != ab->ndim)
		return refuse(a, "'%s' and '%s' differ in type or shape",
		    b->name, a->array);
	for (i = 0; i < b->ndim; i++)
		if (b->ext[i] != ab->ext[i] || b->fold[i] || ab->fold[i])
			return refuse(a, "'%s' and '%s' differ in shape (or "
			    "are folded)", b->name, a->array);
	if (!deps_of(mv))
		return -1;
	r = dojo_deps_lifetimes_overlap(deps_of(mv), bi, abi);
	if (r < 0)
		return -1;
	if (r > 0)
		return refuse(a, "the live ranges of '%s' and '%s' overlap",
		    b->name, a->array);
	if (check_result(mv, a, NULL) < 0)
		return -1;
	return check_flags_after(mv, a, a->buffer);
}

dojo_program *
reuse_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_decls *d = decls_copy(mv->prog->decls);
	int bi = dojo_program_find_buffer(mv->prog, a->buffer);
	int ai = dojo_program_find_array(mv->prog, a->array);
	int drop, i;

	if (!d)
		return NULL;
	drop = d->arr[ai].buffer;
	d->arr[ai].buffer = bi;
	d->buf[bi].explicit_arrays = true;
	memmove(&d->buf[drop], &d->buf[drop + 1],
	    sizeof *d->buf * (d->nbuf - drop - 1));
	d->nbuf--;
	for (i = 0; i < d->narr; i++)
		if (d->arr[i].buffer > drop)
			d->arr[i].buffer--;
	/* the arrays stay in their order; keep those of one buffer together
	 * as the printer lists them by buffer */
	return with_decls(mv->prog, d);
}

/*
 * permute B ORDER: dimension k of the stored buffer is dimension ORDER[k]
 * of the old one; every access's indices follow.  The values are the
 * same, only where they lie changes, so it is legal on any temporary
 * with a layout of its own.
 */

struct permute_ctx {
	const dojo_program *prog;
	int buffer;
	const int *perm;
};

static int
permute_access(struct dojo_access *acc, void *payload)
{
	const struct permute_ctx *pc = payload;
	struct dojo_aff old[DOJO_MAX_DIMS];
	int k;

	if (pc->prog->decls->arr[acc->array].buffer != pc->buffer)
		return 0;
	memcpy(old, acc->idx, sizeof *old * acc->nidx);
	for (k = 0; k < acc->nidx; k++)
		acc->idx[k] = old[pc->perm[k]];
	return 0;
}

/* What permute_values looks for: the dimensions of "buffer" that the
 * innermost scope around an access walks, its last dimension not. */
struct walked {
	const dojo_program *prog;
	int buffer;
	bool dim[DOJO_MAX_DIMS];
};

static int
walked_dims(struct scan *sc, struct dojo_access *acc, bool write)
{
	struct walked *w = sc->payload;
	int k, in = sc->depth - 1;

	(void)write;
	if (w->prog->decls->arr[acc->array].buffer != w->buffer || in < 0 ||
	    acc->nidx < 2 || aff_coef(&acc->idx[acc->nidx - 1], in))
		return 0;
	for (k = 0; k < acc->nidx - 1; k++)
		if (aff_coef(&acc->idx[k], in))
			w->dim[k] = true;
	return 0;
}

/* The candidates of permute B: the dimensions d that an innermost scope
 * walks while the last one stays, each a value (the order then moves d
 * last: that scope's accesses become contiguous). */
int
permute_values(dojo_legality *mv, const struct dojo_action *a, int i,
    int64_t *out, int max)
{
	struct walked w = { mv->prog, -1, { false } };
	struct scan sc = { .fn = walked_dims, .payload = &w };
	const struct dojo_buffer *b;
	int d, n = 0;

	(void)i;
	w.buffer = dojo_program_find_buffer(mv->prog, a->buffer);
	if (w.buffer < 0)
		return 0;
	b = &mv->prog->decls->buf[w.buffer];
	if (b->loc == DOJO_REG || b->ndim < 2)
		return 0;
	scan_program(&sc, mv->prog);
	for (d = 0; d < b->ndim - 1 && n < max; d++)
		if (w.dim[d] && b->ext[d] > 1)
			out[n++] = d;
	return n;
}

int
permute_check(dojo_legality *mv, const struct dojo_action *a)
{
	const struct dojo_buffer *b;
	bool same = true;
	int bi, k;

	if (laid_out(mv, a, &bi) < 0)
		return -1;
	b = &mv->prog->decls->buf[bi];
	if (!backs_one_array(mv->prog, bi))
		return refuse(a, "'%s' backs several arrays", b->name);
	if (need_order(a, b->name, b->ndim) < 0)
		return -1;
	for (k = 0; k < a->nperm; k++)
		same = same && a->perm[k] == k;
	if (same)
		return refuse(a, "the order changes nothing");
	for (k = 0; k < b->ndim; k++)
		if (b->fold[k] || b->pad[k])
			return refuse(a, "dimension %d of '%s' is %s (permute "
			    "first)", k, b->name, b->fold[k] ? "folded" :
			    "padded");
	return check_flags_after(mv, a, a->buffer);
}

dojo_program *
permute_apply(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_decls *d = decls_copy(mv->prog->decls);
	struct permute_ctx pc = { mv->prog, -1, a->perm };
	struct rewrite rw = { NULL, permute_access, &pc };
	struct dojo_node **kids;
	struct dojo_buffer *b;
	dojo_program *p = NULL;
	int64_t ext[DOJO_MAX_DIMS];
	int i, n = 0;

	if (!d)
		return NULL;
	pc.buffer = dojo_program_find_buffer(mv->prog, a->buffer);
	b = &d->buf[pc.buffer];
	memcpy(ext, b->ext, sizeof ext);
	for (i = 0; i < b->ndim; i++)
		b->ext[i] = ext[a->perm[i]];
	kids = calloc(mv->prog->n + 1, sizeof *kids);
	if (!kids)
		goto out;
	for (n = 0; n < mv->prog->n; n++)
		if (!(kids[n] = rewrite_tree(mv->prog->kids[n], &rw)))
			goto out;
	/* the children and the declarations are taken */
	p = replace_children(mv->prog, NULL, 0, kids, n, d);
	d = NULL;
	n = 0;
out:
	while (n--)
		dojo_node_unref(kids[n]);
	free(kids);
	if (d)
		dojo_decls_unref(d);
	return p;
}

int
permute_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	int k;

	(void)mv;
	*out = *a;
	for (k = 0; k < a->nperm; k++)
		out->perm[a->perm[k]] = k;
	return 0;
}
