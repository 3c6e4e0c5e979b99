/* interp.c: the reference interpreter */
#include "config.h"
#include "ir/interp.h"
#include "ir/program_private.h"
#include "src/util/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An access compiled to a flat offset: c + sum k[i] * it[d[i]], or per
 * dimension with slots when the buffer is folded. */
struct cdim {
	struct dojo_aff aff;
	int64_t fold;
	int64_t stride;
};

struct cacc {
	void *base;
	enum dojo_dtype dtype;
	int64_t c;
	int n;
	int d[DOJO_MAX_DEPTH];
	int64_t k[DOJO_MAX_DEPTH];
	int ndim;		/* > 0 only when folded */
	struct cdim *dims;
};

struct cexpr {
	enum dojo_expr_kind kind;
	enum dojo_fn fn;
	double num;
	struct cacc acc;
	struct cexpr *a, *b;
};

struct cnode {
	bool op;
	int64_t size;
	int depth;
	int n;
	struct cnode **kids;
	enum dojo_update update;
	struct cacc lhs;
	struct cexpr *rhs;
};

static int64_t
offset(const struct cacc *a, const int64_t *it)
{
	int64_t off = a->c, v;
	int i, j;

	if (a->ndim == 0) {
		for (i = 0; i < a->n; i++)
			off += a->k[i] * it[a->d[i]];
		return off;
	}
	off = 0;
	for (i = 0; i < a->ndim; i++) {
		const struct cdim *cd = &a->dims[i];

		v = cd->aff.c;
		for (j = 0; j < cd->aff.n; j++)
			v += cd->aff.t[j].k * it[cd->aff.t[j].d];
		if (cd->fold)
			v %= cd->fold;
		off += v * cd->stride;
	}
	return off;
}

static double
load_double(const struct cacc *a, const int64_t *it)
{
	int64_t off = offset(a, it);

	switch (a->dtype) {
	case DOJO_F32:
		return ((float *)a->base)[off];
	case DOJO_F64:
		return ((double *)a->base)[off];
	case DOJO_I32:
		return ((int32_t *)a->base)[off];
	default:
		return (double)((int64_t *)a->base)[off];
	}
}

static float
load_float(const struct cacc *a, const int64_t *it)
{
	if (a->dtype == DOJO_F32)
		return ((float *)a->base)[offset(a, it)];
	return (float)load_double(a, it);
}

static int64_t
load_int(const struct cacc *a, const int64_t *it)
{
	int64_t off = offset(a, it);

	switch (a->dtype) {
	case DOJO_I32:
		return ((int32_t *)a->base)[off];
	case DOJO_I64:
		return ((int64_t *)a->base)[off];
	default:
		return dojo_double_to_int(load_double(a, it));
	}
}

/* Floating-point evaluation, in "T" (float or double). */
#define DEFINE_EVAL(NAME, T, LOAD, EXP, LOG, SQRT, TANH, ABS)		\
static T								\
NAME(const struct cexpr *e, const int64_t *it)				\
{									\
	T a, b;								\
									\
	switch (e->kind) {						\
	case DOJO_E_NUM:						\
		return (T)e->num;					\
	case DOJO_E_ACCESS:						\
		return LOAD(&e->acc, it);				\
	case DOJO_E_NEG:						\
		return -NAME(e->a, it);					\
	case DOJO_E_ADD:						\
		return NAME(e->a, it) + NAME(e->b, it);			\
	case DOJO_E_SUB:						\
		return NAME(e->a, it) - NAME(e->b, it);			\
	case DOJO_E_MUL:						\
		return NAME(e->a, it) * NAME(e->b, it);			\
	case DOJO_E_DIV:						\
		return NAME(e->a, it) / NAME(e->b, it);			\
	default:							\
		break;							\
	}								\
	a = NAME(e->a, it);						\
	switch (e->fn) {						\
	case DOJO_FN_EXP:						\
		return EXP(a);						\
	case DOJO_FN_LOG:						\
		return LOG(a);						\
	case DOJO_FN_SQRT:						\
		return SQRT(a);						\
	case DOJO_FN_TANH:						\
		return TANH(a);						\
	case DOJO_FN_ABS:						\
		return ABS(a);						\
	case DOJO_FN_MAX:						\
		b = NAME(e->b, it);					\
		return a > b ? a : b;					\
	default:							\
		b = NAME(e->b, it);					\
		return a < b ? a : b;					\
	}								\
}

DEFINE_EVAL(eval_float, float, load_float, expf, logf, sqrtf, tanhf, fabsf)
DEFINE_EVAL(eval_double, double, load_double, exp, log, sqrt, tanh, fabs)

/* Integer evaluation: wrapping arithmetic, x / 0 = 0, functions through
 * double and back (truncated). */
static int64_t
eval_int(const struct cexpr *e, const int64_t *it)
{
	uint64_t a, b;

	switch (e->kind) {
	case DOJO_E_NUM:
		return dojo_double_to_int(e->num);
	case DOJO_E_ACCESS:
		return load_int(&e->acc, it);
	case DOJO_E_NEG:
		return (int64_t)(0 - (uint64_t)eval_int(e->a, it));
	case DOJO_E_ADD:
		a = eval_int(e->a, it);
		return (int64_t)(a + (uint64_t)eval_int(e->b, it));
	case DOJO_E_SUB:
		a = eval_int(e->a, it);
		return (int64_t)(a - (uint64_t)eval_int(e->b, it));
	case DOJO_E_MUL:
		a = eval_int(e->a, it);
		return (int64_t)(a * (uint64_t)eval_int(e->b, it));
	case DOJO_E_DIV: {
		int64_t x = eval_int(e->a, it), y = eval_int(e->b, it);

		if (y == 0 || (x == INT64_MIN && y == -1))
			return y == 0 ? 0 : x;
		return x / y;
	}
	default:
		break;
	}
	a = eval_int(e->a, it);
	switch (e->fn) {
	case DOJO_FN_ABS:
		return (int64_t)a < 0 ? (int64_t)(0 - a) : (int64_t)a;
	case DOJO_FN_MAX:
		b = eval_int(e->b, it);
		return (int64_t)a > (int64_t)b ? (int64_t)a : (int64_t)b;
	case DOJO_FN_MIN:
		b = eval_int(e->b, it);
		return (int64_t)a < (int64_t)b ? (int64_t)a : (int64_t)b;
	case DOJO_FN_EXP:
		return dojo_double_to_int(exp((double)(int64_t)a));
	case DOJO_FN_LOG:
		return dojo_double_to_int(log((double)(int64_t)a));
	case DOJO_FN_SQRT:
		return dojo_double_to_int(sqrt((double)(int64_t)a));
	default:
		return dojo_double_to_int(tanh((double)(int64_t)a));
	}
}

/* The update "u" of the value "old" by "v", in "T". */
#define DEFINE_UPDATE(NAME, T)						\
static T								\
NAME(enum dojo_update u, T old, T v)					\
{									\
	switch (u) {							\
	case DOJO_ADD_SET: return old + v;				\
	case DOJO_SUB_SET: return old - v;				\
	case DOJO_MUL_SET: return old * v;				\
	case DOJO_MAX_SET: return old > v ? old : v;			\
	case DOJO_MIN_SET: return old < v ? old : v;			\
	default: return v;						\
	}								\
}

DEFINE_UPDATE(update_float, float)
DEFINE_UPDATE(update_double, double)

static void
exec_op(const struct cnode *n, const int64_t *it)
{
	int64_t off = offset(&n->lhs, it);

	switch (n->lhs.dtype) {
	case DOJO_F32: {
		float *p = (float *)n->lhs.base + off;

		*p = update_float(n->update, *p, eval_float(n->rhs, it));
		break;
	}
	case DOJO_F64: {
		double *p = (double *)n->lhs.base + off;

		*p = update_double(n->update, *p, eval_double(n->rhs, it));
		break;
	}
	default: {
		int64_t old = n->lhs.dtype == DOJO_I32 ?
		    ((int32_t *)n->lhs.base)[off] :
		    ((int64_t *)n->lhs.base)[off];
		int64_t v = eval_int(n->rhs, it);

		switch (n->update) {
		case DOJO_SET: break;
		case DOJO_ADD_SET: v = (int64_t)((uint64_t)old + (uint64_t)v); break;
		case DOJO_SUB_SET: v = (int64_t)((uint64_t)old - (uint64_t)v); break;
		case DOJO_MUL_SET: v = (int64_t)((uint64_t)old * (uint64_t)v); break;
		case DOJO_MAX_SET: v = old > v ? old : v; break;
		case DOJO_MIN_SET: v = old < v ? old : v; break;
		}
		if (n->lhs.dtype == DOJO_I32)
			((int32_t *)n->lhs.base)[off] = (int32_t)(uint32_t)v;
		else
			((int64_t *)n->lhs.base)[off] = v;
		break;
	}
	}
}

/* A run's clock: every CLOCK_EVERY operations it looks at the time. */
#define CLOCK_EVERY 65536

struct run {
	int64_t *it;
	double deadline;	/* CLOCK_MONOTONIC seconds, 0: none */
	unsigned ops;
};

/* Run "n"; -1 once the deadline has passed. */
static int
exec(const struct cnode *n, struct run *r)
{
	int64_t i;
	int k;

	if (n->op) {
		exec_op(n, r->it);
		if (++r->ops % CLOCK_EVERY == 0 && r->deadline > 0 &&
		    dojo_clock_seconds() > r->deadline)
			return -1;
		return 0;
	}
	for (i = 0; i < n->size; i++) {
		r->it[n->depth] = i;
		for (k = 0; k < n->n; k++)
			if (exec(n->kids[k], r) < 0)
				return -1;
	}
	return 0;
}

struct compiler {
	dojo_program *prog;
	dojo_data *data;
};

static void
free_cacc(struct cacc *a)
{
	free(a->dims);
}

static void
free_cexpr(struct cexpr *e)
{
	if (!e)
		return;
	free_cexpr(e->a);
	free_cexpr(e->b);
	free_cacc(&e->acc);
	free(e);
}

static void
free_cnode(struct cnode *n)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++)
		free_cnode(n->kids[i]);
	free(n->kids);
	free_cacc(&n->lhs);
	free_cexpr(n->rhs);
	free(n);
}

static int
compile_acc(struct compiler *c, struct cacc *out, const struct dojo_access *acc)
{
	int b = c->prog->decls->arr[acc->array].buffer;
	const struct dojo_buffer *buf = &c->prog->decls->buf[b];
	int64_t stride[DOJO_MAX_DIMS], s = 1, k[DOJO_MAX_DEPTH] = { 0 };
	bool folded = false;
	int i, j;

	memset(out, 0, sizeof *out);
	out->base = dojo_data_buffer(c->data, b);
	out->dtype = buf->dtype;
	for (i = buf->ndim - 1; i >= 0; i--) {
		stride[i] = s;
		s *= dojo_buffer_slots(buf, i);
		folded |= buf->fold[i] != 0;
	}
	if (folded) {
		out->dims = calloc(buf->ndim, sizeof *out->dims);
		if (!out->dims)
			return dojo_error_set("out of memory");
		out->ndim = buf->ndim;
		for (i = 0; i < buf->ndim; i++) {
			out->dims[i].aff = acc->idx[i];
			out->dims[i].fold = buf->fold[i];
			out->dims[i].stride = stride[i];
		}
		return 0;
	}
	for (i = 0; i < acc->nidx; i++) {
		out->c += acc->idx[i].c * stride[i];
		for (j = 0; j < acc->idx[i].n; j++)
			k[acc->idx[i].t[j].d] += acc->idx[i].t[j].k * stride[i];
	}
	for (i = 0; i < DOJO_MAX_DEPTH; i++)
		if (k[i]) {
			out->d[out->n] = i;
			out->k[out->n++] = k[i];
		}
	return 0;
}

static struct cexpr *
compile_expr(struct compiler *c, const struct dojo_expr *e)
{
	struct cexpr *ce = calloc(1, sizeof *ce);

	if (!ce) {
		dojo_error_set("out of memory");
		return NULL;
	}
	ce->kind = e->kind;
	ce->fn = e->fn;
	ce->num = e->num;
	if ((e->kind == DOJO_E_ACCESS && compile_acc(c, &ce->acc, &e->acc) < 0) ||
	    (e->a && !(ce->a = compile_expr(c, e->a))) ||
	    (e->b && !(ce->b = compile_expr(c, e->b)))) {
		free_cexpr(ce);
		return NULL;
	}
	return ce;
}

static struct cnode *
compile_node(struct compiler *c, const struct dojo_node *node, int depth)
{
	struct cnode *cn = calloc(1, sizeof *cn);
	int i;

	if (!cn) {
		dojo_error_set("out of memory");
		return NULL;
	}
	cn->depth = depth;
	if (node->kind == DOJO_OP) {
		cn->op = true;
		cn->update = node->update;
		if (compile_acc(c, &cn->lhs, &node->lhs) < 0 ||
		    !(cn->rhs = compile_expr(c, node->rhs)))
			goto out_free;
		return cn;
	}
	cn->size = node->size;
	cn->kids = calloc(node->n, sizeof *cn->kids);
	if (!cn->kids)
		goto out_free;
	for (i = 0; i < node->n; i++) {
		cn->kids[i] = compile_node(c, node->kids[i], depth + 1);
		if (!cn->kids[i])
			goto out_free;
		cn->n++;
	}
	return cn;
out_free:
	free_cnode(cn);
	return NULL;
}

int
dojo_interp_run_limited(dojo_program *prog, dojo_data *data, double seconds)
{
	struct compiler c = { prog, data };
	struct cnode *root;
	int64_t it[DOJO_MAX_DEPTH] = { 0 };
	struct run r = { it, seconds > 0 ? dojo_clock_seconds() + seconds : 0, 0 };
	int i, rc;

	for (i = 0; i < prog->n; i++) {
		root = compile_node(&c, prog->kids[i], 0);
		if (!root)
			return -1;
		rc = exec(root, &r);
		free_cnode(root);
		if (rc < 0)
			return dojo_error_set("%s: the interpreter ran past the "
			    "time limit of %g s", prog->file, seconds);
	}
	return 0;
}

int
dojo_interp_run(dojo_program *prog, dojo_data *data)
{
	return dojo_interp_run_limited(prog, data, 0);
}
