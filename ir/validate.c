/* validate.c: the rules a loaded program must satisfy (doc/ir.md section 6) */
#include "config.h"
#include "ir/program_private.h"
#include "ir/deps.h"
#include "ir/flag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct walk {
	dojo_program *prog;
	const struct dojo_node *chain[DOJO_MAX_DEPTH];
	int depth;
};

static int
fail(dojo_program *prog, struct dojo_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(dojo_program *prog, struct dojo_pos pos, const char *fmt, ...)
{
	char msg[DOJO_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dojo_error_at(prog->file, pos.line, pos.col, "%s", msg);
}

/* The range of "aff" over the iteration box of "w", exactly. */
static void
aff_range(const struct walk *w, const struct dojo_aff *aff, __int128 *lo,
    __int128 *hi)
{
	__int128 span;
	int i;

	*lo = *hi = aff->c;
	for (i = 0; i < aff->n; i++) {
		span = (__int128)aff->t[i].k *
		    (w->chain[aff->t[i].d]->size - 1);
		if (span < 0)
			*lo += span;
		else
			*hi += span;
	}
}

static void
format_i128(char out[48], __int128 v)
{
	char tmp[48];
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	int n = 0, i = 0;

	do {
		tmp[n++] = '0' + (int)(u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		out[i++] = '-';
	while (n)
		out[i++] = tmp[--n];
	out[i] = '\0';
}

static int
check_access(struct dojo_access *acc, bool write, void *payload)
{
	struct walk *w = payload;
	struct dojo_decls *d = w->prog->decls;
	const struct dojo_array *arr = &d->arr[acc->array];
	const struct dojo_buffer *buf = &d->buf[arr->buffer];
	char slo[48], shi[48];
	__int128 lo, hi;
	int i, j;

	if (write && buf->role == DOJO_IN)
		return fail(w->prog, acc->pos, "write to '%s', an input "
		    "(role in)", arr->name);
	for (i = 0; i < acc->nidx; i++) {
		aff_range(w, &acc->idx[i], &lo, &hi);
		if (lo < 0 || hi >= buf->ext[i]) {
			format_i128(slo, lo);
			format_i128(shi, hi);
			return fail(w->prog, acc->idx[i].pos, "out-of-bounds "
			    "access to '%s': index %d ranges over %s..%s, "
			    "the extent is %lld", arr->name, i, slo, shi,
			    (long long)buf->ext[i]);
		}
		if (buf->loc != DOJO_REG)
			continue;
		for (j = 0; j < acc->idx[i].n; j++)
			if (w->chain[acc->idx[i].t[j].d]->flag !=
			    DOJO_FLAG_UNROLL)
				return fail(w->prog, acc->idx[i].pos, "register "
				    "buffer '%s' indexed by {%d}, a scope that "
				    "is not unrolled", buf->name,
				    acc->idx[i].t[j].d);
	}
	return 0;
}

static int
walk_node(struct walk *w, struct dojo_node *node)
{
	int i;

	if (node->kind == DOJO_OP)
		return dojo_op_foreach_access(node, check_access, w);
	w->chain[w->depth++] = node;
	for (i = 0; i < node->n; i++)
		if (walk_node(w, node->kids[i]) < 0)
			return -1;
	w->depth--;
	return 0;
}

int
dojo_program_validate_structure(dojo_program *prog)
{
	struct walk w;
	int i;

	memset(&w, 0, sizeof w);
	w.prog = prog;
	for (i = 0; i < prog->n; i++)
		if (walk_node(&w, prog->kids[i]) < 0)
			return -1;
	return 0;
}

/* Rule 4 for folds: a value is read for the last time before another
 * index of the same slot is written. */
static int
check_folds(dojo_program *prog)
{
	const struct dojo_decls *d = prog->decls;
	char why[DOJO_ERROR_MAX];
	int b, i, n, r;

	for (b = 0; b < d->nbuf; b++) {
		for (i = 0; i < d->buf[b].ndim; i++)
			if (d->buf[b].fold[i])
				break;
		if (i == d->buf[b].ndim)
			continue;
		for (i = 0, n = 0; i < d->narr; i++)
			n += d->arr[i].buffer == b;
		if (n > 1)
			return fail(prog, d->buf[b].pos, "folded buffer '%s' "
			    "backs several arrays", d->buf[b].name);
		r = dojo_deps_fold_live(prog, b, -1, 0, why, sizeof why);
		if (r < 0)
			return -1;
		if (r > 0)
			return fail(prog, d->buf[b].pos, "folded buffer '%s': %s",
			    d->buf[b].name, why);
	}
	return 0;
}

int
dojo_program_validate(dojo_program *prog)
{
	if (dojo_program_validate_structure(prog) < 0 ||
	    dojo_deps_check_reads(prog) != DOJO_DONE)
		return -1;
	return check_folds(prog);
}
