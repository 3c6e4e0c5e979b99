/* c.c: the C target: a kernel as a C11 function */
#include "config.h"
#include "targets/c_private.h"
#include "ir/flag.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


const char *const dojo_c_types[4] = { "float", "double", "int32_t", "int64_t" };
#define ctypes dojo_c_types

static void
indent(struct c_emit *e)
{
	dojo_strbuf_pad(e->sb, '\t', e->indent);
}

/* Whether temporary "b" lives on the heap (with marks, every one: its
 * size is a parameter's). */
static bool
on_heap(struct c_emit *e, int b)
{
	return e->marks || dojo_buffer_loc(e->prog, b) == DOJO_HEAP;
}

/* A mark of dojo_c_function: "@K<v>@". */
static void
emit_mark(struct c_emit *e, char kind, int64_t v)
{
	dojo_strbuf_printf(e->sb, "@%c%" PRId64 "@", kind, v);
}

/* Storage of buffer "b": stored elements and the stride of each dim. */
static uint64_t
strides(dojo_program *prog, int b, int64_t *stride)
{
	uint64_t s = 1;
	int d;

	for (d = dojo_buffer_ndim(prog, b) - 1; d >= 0; d--) {
		stride[d] = (int64_t)s;
		s *= (uint64_t)dojo_buffer_stored(prog, b, d);
	}
	return s;
}

/* The largest value of the iterator of the scope at "depth" around the
 * code being emitted (its extent less one). */
static int64_t
iterator_max(struct c_emit *e, int depth)
{
	dojo_node *scope = dojo_program_lookup(e->prog, e->path, depth + 1);

	return scope && dojo_node_kind(scope) != DOJO_OP ?
	    dojo_node_size(scope) - 1 : INT64_MAX / 4;
}

/* The slot of a folded dimension, (c + sum coef_t i_t) % fold: the
 * terms whose coefficient is a multiple of the fold dropped and no % at
 * all when the rest lies in [0, fold) (codegen 4: GCC turns a % of a
 * vector loop's iterator into gathers and scatters). */
static void
emit_slot(struct c_emit *e, int64_t c, const int *depth, const int64_t *coef,
    int n, int64_t fold, int64_t stride, bool first)
{
	int64_t lo = c, hi = c, m;
	bool drop[DOJO_MAX_DEPTH] = { false }, ok = true;
	int t;

	for (t = 0; t < n; t++) {
		if (coef[t] > 0 && coef[t] % fold == 0) {
			drop[t] = true;
			continue;
		}
		m = iterator_max(e, depth[t]);
		if (m > INT64_MAX / 8 / (coef[t] < 0 ? -coef[t] : coef[t] + 1))
			ok = false;
		else if (coef[t] > 0)
			hi += coef[t] * m;
		else
			lo += coef[t] * m;
	}
	/* dropping multiples of the fold keeps the remainder only when
	 * what is left is not negative */
	if (!ok || lo < 0)
		memset(drop, 0, sizeof drop);
	dojo_strbuf_printf(e->sb, "%s(%s%" PRId64, first ? "" : " + ",
	    ok && lo >= 0 && hi < fold ? "" : "(", c);
	for (t = 0; t < n; t++)
		if (!drop[t])
			dojo_strbuf_printf(e->sb, " + %" PRId64 " * i%d",
			    coef[t], depth[t]);
	if (ok && lo >= 0 && hi < fold)
		dojo_strbuf_printf(e->sb, ") * %" PRId64, stride);
	else
		dojo_strbuf_printf(e->sb, ") %% %" PRId64 ") * %" PRId64,
		    fold, stride);
}

/* The offset of "acc" with marks: in Horner form over the dimensions,
 * ((x0) * E1 + (x1)) * E2 + (x2), each index with its constant and
 * coefficients marked. */
static void
emit_offset_marked(struct c_emit *e, const dojo_access *acc)
{
	int b = dojo_array_buffer(e->prog, dojo_access_array(acc));
	int64_t c, coef[DOJO_MAX_DEPTH];
	int depth[DOJO_MAX_DEPTH], d, t, n, nd = dojo_access_n_indices(acc);

	for (d = 1; d < nd; d++)
		dojo_strbuf_puts(e->sb, "(");
	for (d = 0; d < nd; d++) {
		n = dojo_access_index(acc, d, &c, depth, coef);
		if (d > 0) {
			dojo_strbuf_puts(e->sb, " * ");
			emit_mark(e, 'E', dojo_buffer_extent(e->prog, b, d));
			dojo_strbuf_puts(e->sb, " + ");
		}
		dojo_strbuf_puts(e->sb, "(");
		emit_mark(e, 'C', c);
		for (t = 0; t < n; t++) {
			dojo_strbuf_puts(e->sb, " + ");
			emit_mark(e, 'C', coef[t]);
			dojo_strbuf_printf(e->sb, " * i%d", depth[t]);
		}
		dojo_strbuf_puts(e->sb, d > 0 ? "))" : ")");
	}
	if (nd == 0)
		dojo_strbuf_puts(e->sb, "0");
}

static void
emit_offset(struct c_emit *e, const dojo_access *acc)
{
	int b = dojo_array_buffer(e->prog, dojo_access_array(acc));
	int64_t stride[DOJO_MAX_DIMS], c, coef[DOJO_MAX_DEPTH];
	int64_t lin[DOJO_MAX_DEPTH] = { 0 }, lc = 0;
	int depth[DOJO_MAX_DEPTH], d, t, n, first = 1;

	if (e->marks) {
		emit_offset_marked(e, acc);
		return;
	}
	strides(e->prog, b, stride);
	for (d = 0; d < dojo_access_n_indices(acc); d++) {
		n = dojo_access_index(acc, d, &c, depth, coef);
		if (dojo_buffer_fold(e->prog, b, d)) {
			emit_slot(e, c, depth, coef, n,
			    dojo_buffer_fold(e->prog, b, d), stride[d], first);
			first = 0;
			continue;
		}
		lc += c * stride[d];
		for (t = 0; t < n; t++)
			lin[depth[t]] += coef[t] * stride[d];
	}
	for (t = 0; t < DOJO_MAX_DEPTH; t++)
		if (lin[t]) {
			dojo_strbuf_printf(e->sb, "%s%" PRId64 " * i%d",
			    first ? "" : " + ", lin[t], t);
			first = 0;
		}
	if (lc || first)
		dojo_strbuf_printf(e->sb, "%s%" PRId64, first ? "" : " + ", lc);
}

static void
emit_access(struct c_emit *e, const dojo_access *acc)
{
	int i;

	for (i = 0; i < e->ninv; i++)
		if (e->inv[i] == acc) {
			dojo_strbuf_printf(e->sb, "dojo_inv%d", i);
			return;
		}
	dojo_strbuf_printf(e->sb, "b_%s[",
	    dojo_buffer_name(e->prog, dojo_array_buffer(e->prog,
	    dojo_access_array(acc))));
	emit_offset(e, acc);
	dojo_strbuf_puts(e->sb, "]");
}

/* Whether the function "fn" has a vector variant in glibc's libmvec
 * (sqrt, abs, max and min are instructions). */
static bool
vector_fn(enum dojo_fn fn)
{
	return fn == DOJO_FN_EXP || fn == DOJO_FN_LOG || fn == DOJO_FN_TANH;
}

/* Whether "x" is the same in every iteration of the vector loop being
 * written: a number, a read loaded before the loop (e->inv), or an
 * operation on such, but for a call of a function with a vector variant
 * (a call the compiler does not move out of the loop). */
static bool
invariant(struct c_emit *e, const dojo_expr *x)
{
	int i;

	switch (dojo_expr_kind(x)) {
	case DOJO_E_NUM:
		return true;
	case DOJO_E_ACCESS:
		for (i = 0; i < e->ninv; i++)
			if (e->inv[i] == dojo_expr_access(x))
				return true;
		return false;
	case DOJO_E_CALL:
		if (vector_fn(dojo_expr_fn(x)))
			return false;
		break;
	default:
		break;
	}
	for (i = 0; i < 2 && dojo_expr_arg(x, i); i++)
		if (!invariant(e, dojo_expr_arg(x, i)))
			return false;
	return true;
}

/* An expression computed in type "t", as the interpreter does. */
static void
emit_expr(struct c_emit *e, const dojo_expr *x, enum dojo_dtype t)
{
	static const char *const ops[] = {
		[DOJO_E_ADD] = "+", [DOJO_E_SUB] = "-", [DOJO_E_MUL] = "*",
		[DOJO_E_DIV] = "/",
	};
	static const char *const iops[] = {
		[DOJO_E_ADD] = "dojo_iadd", [DOJO_E_SUB] = "dojo_isub",
		[DOJO_E_MUL] = "dojo_imul", [DOJO_E_DIV] = "dojo_idiv",
	};
	static const char *const fns[][3] = {
		[DOJO_FN_EXP] = { "expf", "exp", "dojo_iexp" },
		[DOJO_FN_LOG] = { "logf", "log", "dojo_ilog" },
		[DOJO_FN_SQRT] = { "sqrtf", "sqrt", "dojo_isqrt" },
		[DOJO_FN_TANH] = { "tanhf", "tanh", "dojo_itanh" },
		[DOJO_FN_ABS] = { "fabsf", "fabs", "dojo_iabs" },
		[DOJO_FN_MAX] = { "dojo_maxf", "dojo_maxd", "dojo_maxi" },
		[DOJO_FN_MIN] = { "dojo_minf", "dojo_mind", "dojo_mini" },
	};
	int k = t == DOJO_F32 ? 0 : t == DOJO_F64 ? 1 : 2;
	enum dojo_expr_kind kind = dojo_expr_kind(x);
	const dojo_access *acc;
	enum dojo_dtype at;
	char num[32];
	double v;

	switch (kind) {
	case DOJO_E_NUM:
		v = dojo_expr_num(x);
		/* a whole number that an extent may be (a mean's count) */
		if (e->marks && v >= 2 && v <= 0x1p53 && v == floor(v)) {
			emit_mark(e, "FDII"[t], (int64_t)v);
			return;
		}
		if (k == 2) {
			/* converted here as the interpreter converts it */
			int64_t iv = dojo_double_to_int(v);

			if (iv == INT64_MIN)
				dojo_strbuf_puts(e->sb, "INT64_MIN");
			else
				dojo_strbuf_printf(e->sb, "((int64_t)%" PRId64
				    ")", iv);
		} else if (isinf(k == 0 ? (float)v : v)) {
			dojo_strbuf_puts(e->sb, v < 0 ? "(-INFINITY)" :
			    "INFINITY");
		} else {
			/* an f32 literal is the float the interpreter rounds
			 * the double to, not the double's decimal, which a
			 * compiler rounds straight to a float (another one,
			 * at a tie of the double) */
			if (k == 0)
				dojo_format_float(num, (float)v);
			else
				dojo_format_number(num, v);
			dojo_strbuf_printf(e->sb, "%s%s%s", num,
			    strpbrk(num, ".e") ? "" : ".0", k == 0 ? "f" : "");
		}
		return;
	case DOJO_E_ACCESS:
		acc = dojo_expr_access(x);
		at = dojo_buffer_dtype(e->prog, dojo_array_buffer(e->prog,
		    dojo_access_array(acc)));
		if (at == t || (k == 2 && (at == DOJO_I32 || at == DOJO_I64))) {
			dojo_strbuf_puts(e->sb, k == 2 ? "(int64_t)" : "");
			emit_access(e, acc);
		} else if (k == 2) {
			dojo_strbuf_puts(e->sb, "dojo_f2i(");
			emit_access(e, acc);
			dojo_strbuf_puts(e->sb, ")");
		} else {
			dojo_strbuf_printf(e->sb, "(%s)", ctypes[t]);
			emit_access(e, acc);
		}
		return;
	case DOJO_E_NEG:
		dojo_strbuf_puts(e->sb, k == 2 ? "dojo_isub(0, " : "(-");
		emit_expr(e, dojo_expr_arg(x, 0), t);
		dojo_strbuf_puts(e->sb, ")");
		return;
	case DOJO_E_CALL:
		/* in a vector loop, the libm functions that have vector
		 * variants are called through the names declared with them */
		dojo_strbuf_printf(e->sb, "%s%s(", e->vector && e->vmath &&
		    k < 2 && vector_fn(dojo_expr_fn(x)) ? "dojo_v" : "",
		    fns[dojo_expr_fn(x)][k]);
		emit_expr(e, dojo_expr_arg(x, 0), t);
		if (dojo_expr_fn(x) >= DOJO_FN_MAX) {
			dojo_strbuf_puts(e->sb, ", ");
			emit_expr(e, dojo_expr_arg(x, 1), t);
		}
		dojo_strbuf_puts(e->sb, ")");
		return;
	default:
		/* the fast mode's vector loop: a division by what is invariant
		 * in the loop (a number, a read, an operation on such: the
		 * square root of batchnorm's variance) a multiplication by its
		 * reciprocal (computed once, before the loop; a division is 5 to
		 * 10 times slower: softmax's last pass) */
		if (kind == DOJO_E_DIV && k < 2 && e->vector && e->vmath &&
		    invariant(e, dojo_expr_arg(x, 1))) {
			dojo_strbuf_puts(e->sb, "(");
			emit_expr(e, dojo_expr_arg(x, 0), t);
			dojo_strbuf_printf(e->sb, " * (%s / ", k == 0 ? "1.0f" :
			    "1.0");
			emit_expr(e, dojo_expr_arg(x, 1), t);
			dojo_strbuf_puts(e->sb, "))");
			return;
		}
		if (k == 2) {
			dojo_strbuf_printf(e->sb, "%s(", iops[kind]);
			emit_expr(e, dojo_expr_arg(x, 0), t);
			dojo_strbuf_puts(e->sb, ", ");
			emit_expr(e, dojo_expr_arg(x, 1), t);
			dojo_strbuf_puts(e->sb, ")");
			return;
		}
		dojo_strbuf_puts(e->sb, "(");
		emit_expr(e, dojo_expr_arg(x, 0), t);
		dojo_strbuf_printf(e->sb, " %s ", ops[kind]);
		emit_expr(e, dojo_expr_arg(x, 1), t);
		dojo_strbuf_puts(e->sb, ")");
		return;
	}
}

static void
emit_op(struct c_emit *e, const dojo_node *op)
{
	static const char *const upd[][3] = {
		[DOJO_ADD_SET] = { "+", "+", "dojo_iadd" },
		[DOJO_SUB_SET] = { "-", "-", "dojo_isub" },
		[DOJO_MUL_SET] = { "*", "*", "dojo_imul" },
		[DOJO_MAX_SET] = { "dojo_maxf", "dojo_maxd", "dojo_maxi" },
		[DOJO_MIN_SET] = { "dojo_minf", "dojo_mind", "dojo_mini" },
	};
	const dojo_access *lhs = dojo_op_lhs(op);
	enum dojo_update u = dojo_op_update(op);
	enum dojo_dtype t = dojo_buffer_dtype(e->prog, dojo_array_buffer(
	    e->prog, dojo_access_array(lhs)));
	int k = t == DOJO_F32 ? 0 : t == DOJO_F64 ? 1 : 2, a;
	/* a float + - *: "x = x + e"; otherwise a helper, "x = f(x, e)" */
	bool infix = k < 2 && u <= DOJO_MUL_SET;

	for (a = 0; a < e->nacc; a++)
		if (e->acc_op[a] == op) {
			/* a vector reduction: into its accumulator */
			indent(e);
			if (infix)
				dojo_strbuf_printf(e->sb, "dojo_acc%d = dojo_acc%d "
				    "%s ", a, a, upd[u][k]);
			else
				dojo_strbuf_printf(e->sb, "dojo_acc%d = %s("
				    "dojo_acc%d, ", a, upd[u][k], a);
			emit_expr(e, dojo_op_rhs(op), t);
			dojo_strbuf_puts(e->sb, infix ? ";\n" : ");\n");
			return;
		}
	indent(e);
	emit_access(e, lhs);
	dojo_strbuf_puts(e->sb, " = ");
	if (u == DOJO_SET) {
		if (t == DOJO_I32)
			dojo_strbuf_puts(e->sb, "(int32_t)");
		emit_expr(e, dojo_op_rhs(op), t);
	} else if (infix) {
		emit_access(e, lhs);
		dojo_strbuf_printf(e->sb, " %s ", upd[u][k]);
		emit_expr(e, dojo_op_rhs(op), t);
	} else {
		dojo_strbuf_printf(e->sb, "%s%s(%s", t == DOJO_I32 ?
		    "(int32_t)" : "", upd[u][k], k == 2 ? "(int64_t)" : "");
		emit_access(e, lhs);
		dojo_strbuf_puts(e->sb, ", ");
		emit_expr(e, dojo_op_rhs(op), t);
		dojo_strbuf_puts(e->sb, ")");
	}
	dojo_strbuf_puts(e->sb, ";\n");
}

static void
emit_decl(struct c_emit *e, int b)
{
	int64_t stride[DOJO_MAX_DIMS];
	uint64_t n = strides(e->prog, b, stride);
	const char *t = ctypes[dojo_buffer_dtype(e->prog, b)];

	if (e->gpu) {
		e->gpu_decl(e, b);
		return;
	}
	indent(e);
	if (e->marks) {
		dojo_strbuf_printf(e->sb, "%s *restrict b_%s = dojo_alloc("
		    "(size_t)", t, dojo_buffer_name(e->prog, b));
		for (int d = 0; d < dojo_buffer_ndim(e->prog, b); d++) {
			emit_mark(e, 'E', dojo_buffer_extent(e->prog, b, d));
			dojo_strbuf_puts(e->sb, " * ");
		}
		dojo_strbuf_printf(e->sb, "sizeof(%s));\n", t);
	} else if (dojo_buffer_loc(e->prog, b) == DOJO_HEAP)
		dojo_strbuf_printf(e->sb, "%s *restrict b_%s = dojo_alloc(%"
		    PRIu64 " * sizeof(%s));\n", t, dojo_buffer_name(e->prog, b),
		    n, t);
	else
		dojo_strbuf_printf(e->sb, "_Alignas(64) %s b_%s[%" PRIu64
		    "];\n", t, dojo_buffer_name(e->prog, b), n);
}

/* Whether temporary "b" is declared in the body at "depth" of the scope at
 * e->path; "heap": only a heap one, else only one the body declares. */
static bool
declared_at(struct c_emit *e, int b, int depth, bool heap)
{
	bool heap_b = on_heap(e, b);

	if (dojo_buffer_role(e->prog, b) != DOJO_TEMP ||
	    e->decl_depth[b] != depth || (depth > 0 &&
	    memcmp(e->decl_path[b], e->path, sizeof(int) * depth) != 0))
		return false;
	if (heap)
		return heap_b;
	return !heap_b || depth != e->thread_depth;
}

static void
emit_frees(struct c_emit *e, int depth, bool heap)
{
	int b;

	for (b = 0; b < dojo_program_n_buffers(e->prog) && !e->gpu; b++)
		if (on_heap(e, b) && declared_at(e, b, depth, heap)) {
			indent(e);
			dojo_strbuf_printf(e->sb, "free(b_%s);\n",
			    dojo_buffer_name(e->prog, b));
		}
}

/* The declarations that belong at the start of the scope at e->path
 * ("heap": its heap temporaries only, once a thread). */
static void
emit_decls(struct c_emit *e, int depth, bool heap)
{
	int b;

	for (b = 0; b < dojo_program_n_buffers(e->prog); b++)
		if (declared_at(e, b, depth, heap))
			emit_decl(e, b);
}

/* Whether the scope at e->path (depth "depth") carries a dependence. */
static bool
carries(struct c_emit *e, int depth, bool but_reductions)
{
	struct dojo_dep_query q;

	memset(&q, 0, sizeof q);
	q.skip_invariant_chains = but_reductions;
	q.kind = DOJO_DEP_CARRIED;
	q.level = depth;
	q.src_path = q.dst_path = e->path;
	q.src_len = q.dst_len = depth + 1;
	return dojo_deps_find(e->deps, &q) >= 0;
}

static void emit_node(struct c_emit *e, dojo_node *node, int depth);

/* The loop of the scope "node" at "depth", opened; its body raises the
 * indent. */
static void
emit_for(struct c_emit *e, dojo_node *node, int depth)
{
	indent(e);
	dojo_strbuf_printf(e->sb, "for (int64_t i%d = 0; i%d < ", depth,
	    depth);
	if (e->marks)
		emit_mark(e, 'E', dojo_node_size(node));
	else
		dojo_strbuf_printf(e->sb, "%" PRId64, dojo_node_size(node));
	dojo_strbuf_printf(e->sb, "; i%d++) {", depth);
	if (e->names && *dojo_node_name(node))
		dojo_strbuf_printf(e->sb, " /* %s */", dojo_node_name(node));
	dojo_strbuf_puts(e->sb, "\n");
	e->indent++;
}

/* The body of the scope "node" at "depth" (its declarations, children and
 * frees), then the brace that closes it; the indent was raised for it. */
static void
emit_body(struct c_emit *e, dojo_node *node, int depth)
{
	int i;

	emit_decls(e, depth + 1, false);
	for (i = 0; i < dojo_node_n_children(node); i++) {
		e->path[depth + 1] = i;
		emit_node(e, dojo_node_child(node, i), depth + 1);
	}
	emit_frees(e, depth + 1, false);
	e->indent--;
	indent(e);
	dojo_strbuf_puts(e->sb, "}\n");
}

/* Whether an operation of the vector loop "node" writes buffer "b". */
static bool
written_in(struct c_emit *e, dojo_node *node, int b)
{
	int i;

	for (i = 0; i < dojo_node_n_children(node); i++)
		if (dojo_array_buffer(e->prog, dojo_access_array(dojo_op_lhs(
		    dojo_node_child(node, i)))) == b)
			return true;
	return false;
}

/* The reads of "x" invariant in the vector loop "node" at "depth" (no
 * index names its iterator, no operation of the loop writes the buffer)
 * into e->inv. */
static void
find_invariants(struct c_emit *e, dojo_node *node, int depth,
    const dojo_expr *x)
{
	int64_t c, coef[DOJO_MAX_DEPTH];
	int d, t, n, dep[DOJO_MAX_DEPTH];
	const dojo_access *acc;

	if (!x || dojo_expr_kind(x) == DOJO_E_NUM)
		return;
	if (dojo_expr_kind(x) != DOJO_E_ACCESS) {
		find_invariants(e, node, depth, dojo_expr_arg(x, 0));
		find_invariants(e, node, depth, dojo_expr_arg(x, 1));
		return;
	}
	acc = dojo_expr_access(x);
	if (e->ninv == 16 || written_in(e, node, dojo_array_buffer(e->prog,
	    dojo_access_array(acc))))
		return;
	for (d = 0; d < dojo_access_n_indices(acc); d++) {
		n = dojo_access_index(acc, d, &c, dep, coef);
		for (t = 0; t < n; t++)
			if (dep[t] == depth && coef[t] != 0)
				return;
	}
	e->inv[e->ninv++] = acc;
}

/* Load the reads invariant in the vector loop "node" into constants
 * before it (a compiler keeps reloading them in an OpenMP simd loop,
 * where a store to another array of the same offset stalls the load). */
static void
emit_invariants(struct c_emit *e, dojo_node *node, int depth)
{
	const dojo_access *acc;
	int i, n;

	e->ninv = 0;
	for (i = 0; i < dojo_node_n_children(node); i++)
		find_invariants(e, node, depth,
		    dojo_op_rhs(dojo_node_child(node, i)));
	n = e->ninv;
	e->ninv = 0;	/* the loads themselves, not the constants */
	for (i = 0; i < n; i++) {
		acc = e->inv[i];
		indent(e);
		dojo_strbuf_printf(e->sb, "const %s dojo_inv%d = ",
		    ctypes[dojo_buffer_dtype(e->prog, dojo_array_buffer(e->prog,
		    dojo_access_array(acc)))], i);
		emit_access(e, acc);
		dojo_strbuf_puts(e->sb, ";\n");
	}
	e->ninv = n;
}

/* A vector loop whose only carried dependences are reductions into
 * elements invariant in it: each such reduction in an accumulator, an
 * OpenMP simd reduction over the accumulators.  false when there are
 * more than the accumulators can name. */
static bool
vector_reductions(struct c_emit *e, dojo_node *node, int depth)
{
	static const char *const clause[] = {
		[DOJO_ADD_SET] = "+", [DOJO_MUL_SET] = "*",
		[DOJO_MAX_SET] = "max", [DOJO_MIN_SET] = "min",
	};
	int i, a, path[DOJO_MAX_DEPTH + 1];
	dojo_node *op;
	enum dojo_update u;
	enum dojo_dtype t;

	e->nacc = 0;
	memcpy(path, e->path, sizeof *path * (depth + 1));
	for (i = 0; i < dojo_node_n_children(node); i++) {
		op = dojo_node_child(node, i);
		u = dojo_op_update(op);
		path[depth + 1] = i;
		if (u == DOJO_SET || u == DOJO_SUB_SET ||
		    !dojo_deps_is_reduction(e->deps, path, depth + 2))
			continue;
		if (e->nacc == 16)
			return false;
		e->acc_op[e->nacc++] = op;
	}
	indent(e);
	dojo_strbuf_puts(e->sb, "{\n");
	e->indent++;
	for (a = 0; a < e->nacc; a++) {
		t = dojo_buffer_dtype(e->prog, dojo_array_buffer(e->prog,
		    dojo_access_array(dojo_op_lhs(e->acc_op[a]))));
		u = dojo_op_update(e->acc_op[a]);
		indent(e);
		/* integers add and multiply in unsigned accumulators: the
		 * partial sums OpenMP combines wrap, as the helpers do */
		dojo_strbuf_printf(e->sb, "%s%s dojo_acc%d = ",
		    (t == DOJO_I32 || t == DOJO_I64) && u <= DOJO_MUL_SET ?
		    "u" : "", ctypes[t], a);
		emit_access(e, dojo_op_lhs(e->acc_op[a]));
		dojo_strbuf_puts(e->sb, ";\n");
	}
	emit_invariants(e, node, depth);
	indent(e);
	dojo_strbuf_puts(e->sb, "#pragma omp simd");
	for (a = 0; a < e->nacc; a++)
		dojo_strbuf_printf(e->sb, " reduction(%s:dojo_acc%d)",
		    clause[dojo_op_update(e->acc_op[a])], a);
	dojo_strbuf_puts(e->sb, "\n");
	emit_for(e, node, depth);
	e->vector++;
	emit_body(e, node, depth);
	e->vector--;
	for (a = 0; a < e->nacc; a++) {
		indent(e);
		emit_access(e, dojo_op_lhs(e->acc_op[a]));
		dojo_strbuf_printf(e->sb, " = dojo_acc%d;\n", a);
	}
	e->nacc = 0;
	e->ninv = 0;
	e->indent--;
	indent(e);
	dojo_strbuf_puts(e->sb, "}\n");
	return true;
}

/* Whether the array "acc" accesses is a temporary on the stack or in
 * registers (a tile). */
static bool
local_temporary(struct c_emit *e, const dojo_access *acc)
{
	int b = dojo_array_buffer(e->prog, dojo_access_array(acc));

	return dojo_buffer_role(e->prog, b) == DOJO_TEMP &&
	    dojo_buffer_loc(e->prog, b) != DOJO_HEAP;
}

/* Whether the vector loop "node" only copies (each operation a plain
 * "=" of one access), out of a temporary on the stack or in registers
 * (a register tile written back). */
static bool
copies_out_of_temporary(struct c_emit *e, dojo_node *node)
{
	const dojo_expr *rhs;
	dojo_node *op;
	bool temp = false;
	int i;

	for (i = 0; i < dojo_node_n_children(node); i++) {
		op = dojo_node_child(node, i);
		if (dojo_node_kind(op) != DOJO_OP ||
		    dojo_op_update(op) != DOJO_SET)
			return false;
		rhs = dojo_op_rhs(op);
		if (dojo_expr_kind(rhs) != DOJO_E_ACCESS)
			return false;
		temp |= local_temporary(e, dojo_expr_access(rhs));
	}
	return temp;
}

/* Whether expression "x" calls a function. */
static bool
calls(const dojo_expr *x)
{
	switch (dojo_expr_kind(x)) {
	case DOJO_E_NUM:
	case DOJO_E_ACCESS:
		return false;
	case DOJO_E_NEG:
		return calls(dojo_expr_arg(x, 0));
	case DOJO_E_CALL:
		return true;
	default:
		return calls(dojo_expr_arg(x, 0)) || calls(dojo_expr_arg(x, 1));
	}
}

/* Whether operation "op" updates (with "+=" and the like, no call) a
 * temporary on the stack or in registers: a step of a register tile. */
static bool
tile_step(struct c_emit *e, dojo_node *op)
{
	return dojo_node_kind(op) == DOJO_OP &&
	    dojo_op_update(op) != DOJO_SET && !calls(dojo_op_rhs(op)) &&
	    local_temporary(e, dojo_op_lhs(op));
}

/* Whether every operation under "node" is a tile step. */
static bool
only_tile_steps(struct c_emit *e, dojo_node *node)
{
	int i;

	if (dojo_node_kind(node) == DOJO_OP)
		return tile_step(e, node);
	for (i = 0; i < dojo_node_n_children(node); i++)
		if (!only_tile_steps(e, dojo_node_child(node, i)))
			return false;
	return true;
}

/* Whether the vector loop "node" at "depth" is a tile step that GCC would
 * store back after every copy under "omp simd": its operations are tile
 * steps, and the nearest loop around it (a scope not unrolled, of more
 * than one iteration) does other things too (sets the tile, writes it
 * back), or there is none.  In a loop that only steps the tile (a k loop
 * around unrolled rows), GCC moves the tile's loads and stores out of it
 * under "omp simd", and vectorizes worse without. */
static bool
tile_run(struct c_emit *e, dojo_node *node, int depth)
{
	dojo_node *up;
	int i, d;

	for (i = 0; i < dojo_node_n_children(node); i++)
		if (!tile_step(e, dojo_node_child(node, i)))
			return false;
	if (i == 0)
		return false;
	for (d = depth - 1; d >= 0; d--) {
		up = dojo_program_lookup(e->prog, e->path, d + 1);
		if (!up)
			return false;
		if (dojo_node_flag(up) != DOJO_FLAG_UNROLL &&
		    dojo_node_size(up) > 1)
			return !only_tile_steps(e, up);
	}
	return true;
}

/* A vector loop without carried dependences, its invariant reads loaded
 * before it in a block of their own.  One that copies out of a
 * temporary is DOJO_SIMD_COPY (the prelude says why). */
static void
emit_simd(struct c_emit *e, dojo_node *node, int depth)
{
	indent(e);
	dojo_strbuf_puts(e->sb, "{\n");
	e->indent++;
	emit_invariants(e, node, depth);
	indent(e);
	dojo_strbuf_puts(e->sb, copies_out_of_temporary(e, node) ?
	    "DOJO_SIMD_COPY\n" : tile_run(e, node, depth) ?
	    "DOJO_SIMD_TILE\n" : "#pragma omp simd\n");
	emit_for(e, node, depth);
	e->vector++;
	emit_body(e, node, depth);
	e->vector--;
	e->ninv = 0;
	e->indent--;
	indent(e);
	dojo_strbuf_puts(e->sb, "}\n");
}

/* A scope flagged u: its body once for each value of its iterator, a
 * constant in each copy. */
static void
emit_unrolled(struct c_emit *e, dojo_node *node, int depth)
{
	int64_t k;

	for (k = 0; k < dojo_node_size(node); k++) {
		indent(e);
		dojo_strbuf_printf(e->sb, "{\n");
		e->indent++;
		indent(e);
		dojo_strbuf_printf(e->sb, "const int64_t i%d = %" PRId64 ";\n",
		    depth, k);
		emit_body(e, node, depth);
	}
}

static bool
has_heap_decls(struct c_emit *e, int depth)
{
	int b;

	for (b = 0; b < dojo_program_n_buffers(e->prog); b++)
		if (declared_at(e, b, depth, true))
			return true;
	return false;
}

/* A parallel scope with heap temporaries private to its iterations: each
 * thread allocates them once, in a parallel region around the loop, and
 * its iterations reuse them (each iteration writes an element before it
 * reads it, so no value passes between them). */
static void
emit_parallel_region(struct c_emit *e, dojo_node *node, int depth)
{
	int saved = e->thread_depth;

	indent(e);
	dojo_strbuf_puts(e->sb, "#pragma omp parallel\n");
	indent(e);
	dojo_strbuf_puts(e->sb, "{\n");
	e->indent++;
	emit_decls(e, depth + 1, true);
	indent(e);
	dojo_strbuf_puts(e->sb, "#pragma omp for\n");
	emit_for(e, node, depth);
	e->thread_depth = depth + 1;
	emit_body(e, node, depth);
	e->thread_depth = saved;
	emit_frees(e, depth + 1, true);
	e->indent--;
	indent(e);
	dojo_strbuf_puts(e->sb, "}\n");
}

static void
emit_node(struct c_emit *e, dojo_node *node, int depth)
{
	char flag;

	if (dojo_node_kind(node) == DOJO_OP) {
		emit_op(e, node);
		return;
	}
	/* with marks, the naive form: every scope a plain loop */
	flag = e->marks ? 0 : dojo_node_flag(node);
	if (e->gpu && flag && flag != DOJO_FLAG_UNROLL) {
		/* the code of one GPU thread */
		indent(e);
		dojo_strbuf_printf(e->sb, "/* '%c': a loop of one thread */\n",
		    flag);
		flag = 0;
	}
	if (flag == DOJO_FLAG_PARALLEL && has_heap_decls(e, depth + 1)) {
		emit_parallel_region(e, node, depth);
		return;
	}
	if (flag == DOJO_FLAG_PARALLEL) {
		indent(e);
		dojo_strbuf_puts(e->sb, "#pragma omp parallel for\n");
	} else if (flag == DOJO_FLAG_VECTOR && !carries(e, depth, false)) {
		emit_simd(e, node, depth);
		return;
	} else if (flag == DOJO_FLAG_VECTOR && !carries(e, depth, true) &&
	    vector_reductions(e, node, depth)) {
		return;
	} else if (flag == DOJO_FLAG_UNROLL &&
	    e->copies <= DOJO_UNROLL_COPIES / dojo_node_size(node)) {
		int64_t around = e->copies;

		e->copies *= dojo_node_size(node);
		emit_unrolled(e, node, depth);
		e->copies = around;
		return;
	} else if (flag == DOJO_FLAG_UNROLL) {
		/* a file may unroll past what the moves allow: a loop */
		indent(e);
		dojo_strbuf_printf(e->sb, "/* unroll: over %d copies, a loop "
		    "*/\n", DOJO_UNROLL_COPIES);
	} else if (flag) {
		indent(e);
		dojo_strbuf_printf(e->sb, "/* GPU scope '%c': sequential on the "
		    "CPU */\n", flag);
	}
	emit_for(e, node, depth);
	emit_body(e, node, depth);
}

/* Where each temporary is declared: at the start of the deepest scope
 * that holds all its accesses and to which it is private (no value
 * crosses its iterations), else in the function. */
struct place_ctx {
	struct c_emit *e;
	int b;
	int common[DOJO_MAX_DEPTH + 1];
	int ncommon;		/* -1: no access seen yet */
	int path[DOJO_MAX_DEPTH + 1];
};

static void
place_walk(struct place_ctx *c, dojo_node *node, int depth)
{
	int i, k;

	if (dojo_node_kind(node) == DOJO_OP) {
		const dojo_access *lhs = dojo_op_lhs(node);
		bool uses = dojo_array_buffer(c->e->prog,
		    dojo_access_array(lhs)) == c->b;

		if (!uses) {
			const dojo_expr *stack[256];
			int top = 0;

			stack[top++] = dojo_op_rhs(node);
			while (top && !uses) {
				const dojo_expr *x = stack[--top];

				if (dojo_expr_kind(x) == DOJO_E_ACCESS) {
					uses = dojo_array_buffer(c->e->prog,
					    dojo_access_array(dojo_expr_access(x)))
					    == c->b;
					continue;
				}
				if (dojo_expr_kind(x) == DOJO_E_NUM)
					continue;
				if (top < 254) {
					stack[top++] = dojo_expr_arg(x, 0);
					if (dojo_expr_arg(x, 1))
						stack[top++] = dojo_expr_arg(x, 1);
				}
			}
		}
		if (!uses)
			return;
		/* the common prefix of the addresses of the scopes around
		 * (the operation's address less its last part) */
		if (c->ncommon < 0) {
			memcpy(c->common, c->path, sizeof(int) * (depth - 1));
			c->ncommon = depth - 1;
		} else {
			for (k = 0; k < c->ncommon && k < depth - 1 &&
			    c->common[k] == c->path[k]; k++)
				;
			c->ncommon = k;
		}
		return;
	}
	for (i = 0; i < dojo_node_n_children(node); i++) {
		c->path[depth] = i;
		place_walk(c, dojo_node_child(node, i), depth + 1);
	}
}

static void
place_buffers(struct c_emit *e)
{
	struct place_ctx c;
	int b, i, n;

	for (b = 0; b < dojo_program_n_buffers(e->prog); b++) {
		e->decl_depth[b] = -1;
		if (dojo_buffer_role(e->prog, b) != DOJO_TEMP || !e->deps)
			continue;
		memset(&c, 0, sizeof c);
		c.e = e;
		c.b = b;
		c.ncommon = -1;
		for (i = 0; i < dojo_program_n_children(e->prog); i++) {
			c.path[0] = i;
			place_walk(&c, dojo_program_child(e->prog, i), 1);
		}
		/* path[0..n-1] addresses the scope; its body is depth n */
		for (n = c.ncommon; n > 0; n--)
			if (dojo_deps_private(e->deps, b, c.common, n))
				break;
		/* a heap buffer is allocated once, or once a thread: at the
		 * outermost parallel scope it is private to */
		if (n > 0 && on_heap(e, b) && !e->gpu) {
			for (i = 1; i <= n; i++)
				if (dojo_node_flag(dojo_program_lookup(e->prog,
				    c.common, i)) == DOJO_FLAG_PARALLEL &&
				    dojo_deps_private(e->deps, b, c.common, i))
					break;
			n = i <= n ? i : 0;
		}
		if (n > 0) {
			e->decl_depth[b] = n;
			memcpy(e->decl_path[b], c.common, sizeof(int) * n);
		}
	}
}

static const char prelude[] =
"/* generated by perfdojo: the C target */\n"
"#include <math.h>\n"
"#include <stdint.h>\n"
"#include <stdlib.h>\n"
"#include <string.h>\n"
"\n"
"/* the helpers below, inlined into a kernel whatever its target options:\n"
" * GCC does not inline a plain inline function into a kernel tuned\n"
" * otherwise (a register tile's), and a call in a vector loop is scalar */\n"
"#if defined(__GNUC__)\n"
"#define DOJO_INLINE static inline __attribute__((always_inline))\n"
"#else\n"
"#define DOJO_INLINE static inline\n"
"#endif\n"
"\n"
"/* a temporary: zeroed, on a 64-byte boundary (NULL past memory) */\n"
"static inline void *dojo_alloc(size_t n) { void *p = aligned_alloc(64, (n + 63) / 64 * 64); if (p) memset(p, 0, n); return p; }\n"
"\n"
"/* a vector loop that copies out of a temporary (a register tile written\n"
" * back): GCC keeps the tile in memory across the loops that use it when\n"
" * that loop is an OpenMP simd loop, and vectorizes the copy without */\n"
"#if defined(__GNUC__) && !defined(__clang__)\n"
"#define DOJO_SIMD_COPY _Pragma(\"GCC ivdep\")\n"
"#else\n"
"#define DOJO_SIMD_COPY _Pragma(\"omp simd\")\n"
"#endif\n"
"/* a vector loop that updates a temporary on the stack (a register tile's\n"
" * step): GCC stores the tile back after each OpenMP simd loop of a run\n"
" * of unrolled steps with no loop around them, and keeps it without */\n"
"#if defined(__GNUC__) && !defined(__clang__)\n"
"#define DOJO_SIMD_TILE _Pragma(\"GCC ivdep\")\n"
"#else\n"
"#define DOJO_SIMD_TILE _Pragma(\"omp simd\")\n"
"#endif\n";

/* The helpers of the code, each after its qualifier. */
static const char *const helpers[] = {
	"float dojo_maxf(float a, float b) { return a > b ? a : b; }\n",
	"float dojo_minf(float a, float b) { return a < b ? a : b; }\n",
	"double dojo_maxd(double a, double b) { return a > b ? a : b; }\n",
	"double dojo_mind(double a, double b) { return a < b ? a : b; }\n",
	"int64_t dojo_maxi(int64_t a, int64_t b) { return a > b ? a : b; }\n",
	"int64_t dojo_mini(int64_t a, int64_t b) { return a < b ? a : b; }\n",
	"int64_t dojo_iadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }\n",
	"int64_t dojo_isub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }\n",
	"int64_t dojo_imul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }\n",
	"int64_t dojo_idiv(int64_t a, int64_t b) { return b == 0 ? 0 : (a == INT64_MIN && b == -1) ? a : a / b; }\n",
	"int64_t dojo_f2i(double v) { return v != v ? 0 : v >= 0x1p63 ? INT64_MAX : v < -0x1p63 ? INT64_MIN : (int64_t)v; }\n",
	"int64_t dojo_iabs(int64_t a) { return a < 0 ? dojo_isub(0, a) : a; }\n",
	"int64_t dojo_iexp(int64_t a) { return dojo_f2i(exp((double)a)); }\n",
	"int64_t dojo_ilog(int64_t a) { return dojo_f2i(log((double)a)); }\n",
	"int64_t dojo_isqrt(int64_t a) { return dojo_f2i(sqrt((double)a)); }\n",
	"int64_t dojo_itanh(int64_t a) { return dojo_f2i(tanh((double)a)); }\n",
};

void
dojo_c_helpers(struct dojo_strbuf *out, const char *qualifier)
{
	size_t i;

	for (i = 0; i < sizeof helpers / sizeof *helpers; i++)
		dojo_strbuf_printf(out, "%s %s", qualifier, helpers[i]);
	dojo_strbuf_puts(out, "\n");
}

/* The fast mode's vector math: in OpenMP simd loops, the libm functions
 * under other names declared with their vector variants (GCC calls
 * glibc's libmvec, _ZGVeN16v_expf and the like, named after the
 * assembler name), but for exp in f32 with AVX-512: the code's own
 * variants (1.6x libmvec's; DOJO_LIBMVEC_EXPF keeps libmvec's);
 * elsewhere, and with other compilers, libm, but for exp in f32: the
 * code's own inline one, which any compiler vectorizes (the cross
 * targets'; DOJO_OWN_VMATH asks for it on x86-64 too). */
static const char vector_math[] =
"/* exp in f32, both ways below: x = n ln2 + r, ln2 in two parts (the\n"
" * first exact in 9 bits); exp(r) = 1 + r (1 + r (C2 + r (C3 + ...))) */\n"
"#define DOJO_EXP_LOG2E 1.44269504088896341f\n"
"#define DOJO_EXP_LN2HI 0.693359375f\n"
"#define DOJO_EXP_LN2LO -2.12194440054690e-4f\n"
"#define DOJO_EXP_C2 0.4999999403953552f\n"
"#define DOJO_EXP_C3 0.1666652113199234f\n"
"#define DOJO_EXP_C4 0.04166838899254799f\n"
"#define DOJO_EXP_C5 0.008368710055947304f\n"
"#define DOJO_EXP_C6 0.001381461275741458f\n"
"#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) && !defined(DOJO_OWN_VMATH)\n"
"#define DOJO_VECTOR(t, f) __attribute__((simd(\"notinbranch\"))) t dojo_v##f(t) __asm__(#f);\n"
"#if defined(__AVX512F__) && defined(__AVX512VL__) && !defined(DOJO_LIBMVEC_EXPF)\n"
"/* exp in f32 with AVX-512, within 1 ULP (doc/measure.md): GCC calls the\n"
" * vector variants below, by the names its simd attribute gives them;\n"
" * x clamped to [-104, 89] (NaN kept), x = n ln2 + r with n rounded to\n"
" * nearest, |r| <= ln2/2 (ln2 in two parts, the first exact in 9 bits);\n"
" * exp(r) by the polynomial of degree 6 below; vscalefps multiplies by\n"
" * 2^n and rounds once (inf past 88.7228, denormals, 0) */\n"
"#include <immintrin.h>\n"
"__attribute__((simd(\"notinbranch\"))) float dojo_vexpf(float) __asm__(\"dojo_expf\");\n"
"#define DOJO_EXPF(T, P, name, sym) \\\n"
"static T name(T) __asm__(sym); \\\n"
"static __attribute__((used)) T name(T x) \\\n"
"{ \\\n"
"\tT n, r, p; \\\n"
"\tx = P##_max_ps(P##_set1_ps(-104.0f), P##_min_ps(P##_set1_ps(89.0f), x)); \\\n"
"\tn = P##_roundscale_ps(P##_mul_ps(x, P##_set1_ps(DOJO_EXP_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); \\\n"
"\tr = P##_fnmadd_ps(n, P##_set1_ps(DOJO_EXP_LN2HI), x); \\\n"
"\tr = P##_fnmadd_ps(n, P##_set1_ps(DOJO_EXP_LN2LO), r); \\\n"
"\tp = P##_fmadd_ps(P##_set1_ps(DOJO_EXP_C6), r, P##_set1_ps(DOJO_EXP_C5)); \\\n"
"\tp = P##_fmadd_ps(p, r, P##_set1_ps(DOJO_EXP_C4)); \\\n"
"\tp = P##_fmadd_ps(p, r, P##_set1_ps(DOJO_EXP_C3)); \\\n"
"\tp = P##_fmadd_ps(p, r, P##_set1_ps(DOJO_EXP_C2)); \\\n"
"\tp = P##_fmadd_ps(p, r, P##_set1_ps(1.0f)); \\\n"
"\tp = P##_fmadd_ps(p, r, P##_set1_ps(1.0f)); \\\n"
"\treturn P##_scalef_ps(p, n); \\\n"
"}\n"
"DOJO_EXPF(__m512, _mm512, dojo_expf16, \"_ZGVeN16v_dojo_expf\")\n"
"DOJO_EXPF(__m256, _mm256, dojo_expf8d, \"_ZGVdN8v_dojo_expf\")\n"
"DOJO_EXPF(__m256, _mm256, dojo_expf8c, \"_ZGVcN8v_dojo_expf\")\n"
"DOJO_EXPF(__m128, _mm, dojo_expf4, \"_ZGVbN4v_dojo_expf\")\n"
"static __attribute__((used)) float dojo_expf1(float x) __asm__(\"dojo_expf\");\n"
"static float dojo_expf1(float x) { return expf(x); }\n"
"#else\n"
"DOJO_VECTOR(float, expf)\n"
"#endif\n"
"#else\n"
"#define DOJO_VECTOR(t, f) DOJO_INLINE t dojo_v##f(t a) { return f(a); }\n"
"/* exp in f32, within 1 ULP (doc/measure.md): x = n ln2 + r, |r| <= ln2/2\n"
" * (ln2 in two parts, the first exact in 9 bits); exp(r) by a polynomial\n"
" * of degree 6 fitted to its relative error (3e-9); 2^n in two factors,\n"
" * so that a denormal result is rounded once */\n"
"DOJO_INLINE float dojo_vexpf(float x)\n"
"{\n"
"\tfloat t = x * DOJO_EXP_LOG2E + 12582912.0f;\n"
"\tfloat nf = t - 12582912.0f, r, p, s1, s2, y;\n"
"\tint32_t n, h, e1, e2, big, small, bits;\n"
"\n"
"\tmemcpy(&n, &t, 4);\n"
"\tn -= 0x4B400000;\n"
"\tr = x - nf * DOJO_EXP_LN2HI;\n"
"\tr = r - nf * DOJO_EXP_LN2LO;\n"
"\tp = 1.0f + r * (1.0f + r * (DOJO_EXP_C2 + r * (DOJO_EXP_C3 + r * (DOJO_EXP_C4 + r * (DOJO_EXP_C5 + r * DOJO_EXP_C6)))));\n"
"\th = n >> 1;\n"
"\te1 = (int32_t)((uint32_t)(h + 127) << 23);\n"
"\te2 = (int32_t)((uint32_t)(n - h + 127) << 23);\n"
"\tmemcpy(&s1, &e1, 4);\n"
"\tmemcpy(&s2, &e2, 4);\n"
"\ty = p * s1 * s2;\n"
"\t/* the range by masks (a select of floats is a branch to some\n"
"\t * compilers, and no loop with one vectorizes) */\n"
"\tbig = -(int32_t)(x > 88.72283935546875f);\n"
"\tsmall = -(int32_t)(x < -103.97208404541015625f);\n"
"\tmemcpy(&bits, &y, 4);\n"
"\tbits = (bits & ~(big | small)) | (big & 0x7F800000);\n"
"\tmemcpy(&y, &bits, 4);\n"
"\treturn y;\n"
"}\n"
"#endif\n"
"DOJO_VECTOR(float, logf)\n"
"DOJO_VECTOR(float, tanhf)\n"
"DOJO_VECTOR(double, exp)\n"
"DOJO_VECTOR(double, log)\n"
"DOJO_VECTOR(double, tanh)\n"
"\n";

int
dojo_c_emit(struct dojo_strbuf *out, dojo_program *prog, bool exact)
{
	struct dojo_c_function fn = { .name = DOJO_C_KERNEL };

	return dojo_c_emit_function(out, prog, exact, &fn);
}

/*
 * Register tiles and the compiler's tuning.  GCC tuned for AMD Zen
 * (-march=native there means -mtune=znver3) folds a vector load into
 * each FMA that uses it as a memory operand: in a tile whose rows share
 * the vector of a step (a 4x16 tile: 2 vectors of B, each used by 4
 * FMAs), a step issues one load an FMA, and the loop waits on the load
 * ports (4x16 matmul: 59 GFLOP/s; 85 tuned generic).  A kernel with such
 * a tile is tuned generic (codegen 7, doc/measure.md).
 */

/* Whether read "acc" uses the iterator at depth "v" and not that at
 * depth "u": one vector load shared by the unrolled copies. */
static bool
shared_vector(const dojo_access *acc, int u, int v)
{
	int64_t c, coef[DOJO_MAX_DEPTH];
	int depth[DOJO_MAX_DEPTH], d, t, n;
	bool has_v = false;

	for (d = 0; d < dojo_access_n_indices(acc); d++) {
		n = dojo_access_index(acc, d, &c, depth, coef);
		for (t = 0; t < n; t++) {
			if (depth[t] == u)
				return false;
			has_v |= depth[t] == v;
		}
	}
	return has_v;
}

static bool
expr_shares(const dojo_expr *e, int u, int v)
{
	int i;

	if (dojo_expr_kind(e) == DOJO_E_ACCESS)
		return shared_vector(dojo_expr_access(e), u, v);
	for (i = 0; i < 2 && dojo_expr_arg(e, i); i++)
		if (expr_shares(dojo_expr_arg(e, i), u, v))
			return true;
	return false;
}

/* Whether the subtree "node" at "depth" (flags[] of the scopes above)
 * has a register tile: an update in a v scope under a u scope under a
 * plain scope (the reduction), reading a vector that every copy of that
 * u scope shares. */
static bool
has_register_tile(dojo_node *node, int depth, char *flags)
{
	int i, u, v = -1, loop = -1;

	if (dojo_node_kind(node) == DOJO_OP) {
		for (i = 0; i < depth; i++)
			if (flags[i] == DOJO_FLAG_VECTOR)
				v = i;
			else if (flags[i] != DOJO_FLAG_UNROLL && loop < 0)
				loop = i;
		if (v < 0 || loop < 0 || dojo_op_update(node) == DOJO_SET)
			return false;
		for (u = loop + 1; u < v; u++)
			if (flags[u] == DOJO_FLAG_UNROLL &&
			    expr_shares(dojo_op_rhs(node), u, v))
				return true;
		return false;
	}
	if (depth >= DOJO_MAX_DEPTH)
		return false;
	flags[depth] = dojo_node_flag(node);
	for (i = 0; i < dojo_node_n_children(node); i++)
		if (has_register_tile(dojo_node_child(node, i), depth + 1,
		    flags))
			return true;
	return false;
}

static bool
program_has_register_tile(dojo_program *prog)
{
	char flags[DOJO_MAX_DEPTH];
	int i;

	for (i = 0; i < dojo_program_n_children(prog); i++)
		if (has_register_tile(dojo_program_child(prog, i), 0, flags))
			return true;
	return false;
}

static const char tune_generic[] =
"/* a register tile: tuned generic, so that GCC does not fold the vector\n"
" * its rows share into each FMA as a memory operand (-DDOJO_NATIVE_TUNE:\n"
" * not) */\n"
"#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \\\n"
"    !defined(DOJO_NATIVE_TUNE)\n"
"#define DOJO_TILE_TUNE __attribute__((target(\"tune=generic\")))\n"
"#else\n"
"#define DOJO_TILE_TUNE\n"
"#endif\n";

int
dojo_c_emit_function(struct dojo_strbuf *out, dojo_program *prog, bool exact,
    const struct dojo_c_function *fn)
{
	struct c_emit e;
	int b, d, i, arg = 0, nbuf = dojo_program_n_buffers(prog);
	const char *params = fn->marks ? "void **args, const int64_t *dojo_n" :
	    "void **args";
	bool tile;

	for (b = 0; fn->marks && b < nbuf; b++)
		for (d = 0; d < dojo_buffer_ndim(prog, b); d++)
			if (dojo_buffer_fold(prog, b, d))
				return dojo_error_set("%s: buffer '%s' is "
				    "folded: no form for other extents",
				    dojo_program_file(prog),
				    dojo_buffer_name(prog, b));
	if (dojo_c_begin(&e, out, prog, exact, true) < 0)
		return -1;
	e.marks = fn->marks;
	e.names = fn->names;
	place_buffers(&e);
	dojo_strbuf_puts(out, prelude);
	dojo_c_helpers(out, "DOJO_INLINE");
	if (e.vmath)
		dojo_strbuf_puts(out, vector_math);
	tile = !fn->marks && program_has_register_tile(prog);
	if (tile)
		dojo_strbuf_puts(out, tune_generic);
	dojo_strbuf_printf(out, "%svoid %s(%s);\n\n%s%svoid\n%s(%s)\n{\n",
	    fn->is_static ? "static " : "", fn->name, params,
	    tile ? "DOJO_TILE_TUNE\n" : "", fn->is_static ? "static " : "",
	    fn->name, params);
	e.indent = 1;
	for (b = 0; b < nbuf; b++) {
		if (dojo_buffer_role(prog, b) == DOJO_TEMP)
			continue;
		dojo_strbuf_printf(out, "\t%s *restrict b_%s = args[%d];\n",
		    ctypes[dojo_buffer_dtype(prog, b)], dojo_buffer_name(prog, b),
		    arg++);
	}
	emit_decls(&e, -1, false);
	for (i = 0; i < dojo_program_n_children(prog); i++) {
		e.path[0] = i;
		emit_node(&e, dojo_program_child(prog, i), 0);
	}
	emit_frees(&e, -1, false);
	dojo_strbuf_puts(out, "}\n");
	dojo_c_end(&e);
	if (out->oom)
		return dojo_error_set("out of memory");
	return 0;
}

int
dojo_c_begin(struct c_emit *e, struct dojo_strbuf *out, dojo_program *prog,
    bool exact, bool hoist)
{
	int nbuf = dojo_program_n_buffers(prog);

	memset(e, 0, sizeof *e);
	e->vmath = !exact;
	e->copies = 1;
	e->thread_depth = -2;
	e->gpu = !hoist;
	e->sb = out;
	e->prog = prog;
	e->deps = dojo_deps_new(prog);
	e->decl_depth = calloc(nbuf + 1, sizeof *e->decl_depth);
	e->decl_path = calloc(nbuf + 1, sizeof *e->decl_path);
	if (!e->deps || !e->decl_depth || !e->decl_path) {
		dojo_c_end(e);
		return -1;
	}
	if (!hoist)
		place_buffers(e);
	return 0;
}

void
dojo_c_end(struct c_emit *e)
{
	dojo_deps_free(e->deps);
	free(e->decl_depth);
	free(e->decl_path);
	e->deps = NULL;
	e->decl_depth = NULL;
	e->decl_path = NULL;
}

void
dojo_c_indent(struct c_emit *e)
{
	indent(e);
}

void
dojo_c_node(struct c_emit *e, dojo_node *node, int depth)
{
	emit_node(e, node, depth);
}

void
dojo_c_for(struct c_emit *e, dojo_node *node, int depth)
{
	emit_for(e, node, depth);
}

void
dojo_c_decls(struct c_emit *e, int depth)
{
	emit_decls(e, depth, false);
}

uint64_t
dojo_c_storage(dojo_program *prog, int b, int64_t *stride)
{
	return strides(prog, b, stride);
}
