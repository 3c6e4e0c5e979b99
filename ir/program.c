/* program.c: the persistent program tree: lifecycle, access, addresses */
#include "config.h"
#include "ir/program_private.h"
#include "src/util/sha1.h"
#include "src/util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dojo_node *
dojo_node_new_scope(int64_t size, char flag)
{
	struct dojo_node *node = calloc(1, sizeof *node);

	if (!node)
		return NULL;
	node->ref = 1;
	node->kind = DOJO_SCOPE;
	node->size = size;
	node->flag = flag;
	return node;
}

dojo_program *
program_with(dojo_program *prog, struct dojo_decls *decls)
{
	dojo_program *p = calloc(1, sizeof *p);

	if (!p)
		return NULL;
	p->ref = 1;
	p->file = strdup(prog->file);
	p->decls = decls ? decls : prog->decls;
	p->decls->ref++;
	if (!p->file) {
		dojo_program_free(p);
		return NULL;
	}
	return p;
}

struct dojo_node *
dojo_node_new_op(void)
{
	struct dojo_node *node = calloc(1, sizeof *node);

	if (!node)
		return NULL;
	node->ref = 1;
	node->kind = DOJO_OP;
	return node;
}

struct dojo_node *
dojo_node_ref(struct dojo_node *node)
{
	if (node)
		node->ref++;
	return node;
}

void
dojo_aff_release(struct dojo_aff *aff)
{
	free(aff->t);
	aff->t = NULL;
	aff->n = 0;
}

void
dojo_access_release(struct dojo_access *acc)
{
	int i;

	for (i = 0; i < acc->nidx; i++)
		dojo_aff_release(&acc->idx[i]);
	free(acc->idx);
	acc->idx = NULL;
	acc->nidx = 0;
}

struct dojo_expr *
dojo_expr_new(enum dojo_expr_kind kind)
{
	struct dojo_expr *e = calloc(1, sizeof *e);

	if (e)
		e->kind = kind;
	return e;
}

void
dojo_expr_free(struct dojo_expr *e)
{
	if (!e)
		return;
	dojo_expr_free(e->a);
	dojo_expr_free(e->b);
	dojo_access_release(&e->acc);
	free(e);
}

void
dojo_node_unref(struct dojo_node *node)
{
	int i;

	if (!node || --node->ref > 0)
		return;
	for (i = 0; i < node->n; i++)
		dojo_node_unref(node->kids[i]);
	free(node->kids);
	dojo_access_release(&node->lhs);
	dojo_expr_free(node->rhs);
	free(node);
}

/* Append "c" to the vector "*kids" of "*n" nodes, taking "c". */
int
dojo_kids_append(struct dojo_node ***kids, int *n, struct dojo_node *c)
{
	struct dojo_node **grown;

	if ((*n & (*n - 1)) == 0) {
		grown = realloc(*kids, sizeof *grown * (*n ? 2 * *n : 1));
		if (!grown) {
			dojo_node_unref(c);
			return dojo_error_set("out of memory");
		}
		*kids = grown;
	}
	(*kids)[(*n)++] = c;
	return 0;
}

int
dojo_node_append(struct dojo_node *parent, struct dojo_node *child)
{
	return dojo_kids_append(&parent->kids, &parent->n, child);
}

void
dojo_decls_unref(struct dojo_decls *decls)
{
	if (!decls || --decls->ref > 0)
		return;
	free(decls->buf);
	free(decls->arr);
	free(decls);
}

dojo_program *
dojo_program_copy(dojo_program *prog)
{
	if (prog)
		prog->ref++;
	return prog;
}

void
dojo_program_free(dojo_program *prog)
{
	int i;

	if (!prog || --prog->ref > 0)
		return;
	for (i = 0; i < prog->n; i++)
		dojo_node_unref(prog->kids[i]);
	free(prog->kids);
	dojo_decls_unref(prog->decls);
	free(prog->file);
	free(prog);
}

dojo_program *
dojo_program_read_file(const char *path)
{
	struct dojo_strbuf sb;
	dojo_program *prog = NULL;

	dojo_strbuf_init(&sb);
	if (dojo_strbuf_read_file(&sb, path) == 0)
		prog = dojo_program_parse(path, sb.s ? sb.s : "", sb.len);
	dojo_strbuf_release(&sb);
	return prog;
}

const char *
dojo_program_file(dojo_program *prog)
{
	return prog->file;
}

int
dojo_program_n_buffers(dojo_program *prog)
{
	return prog->decls->nbuf;
}

const char *
dojo_buffer_name(dojo_program *prog, int b)
{
	return prog->decls->buf[b].name;
}

enum dojo_dtype
dojo_buffer_dtype(dojo_program *prog, int b)
{
	return prog->decls->buf[b].dtype;
}

int
dojo_buffer_ndim(dojo_program *prog, int b)
{
	return prog->decls->buf[b].ndim;
}

int64_t
dojo_buffer_extent(dojo_program *prog, int b, int d)
{
	return prog->decls->buf[b].ext[d];
}

int64_t
dojo_buffer_fold(dojo_program *prog, int b, int d)
{
	return prog->decls->buf[b].fold[d];
}

int64_t
dojo_buffer_pad(dojo_program *prog, int b, int d)
{
	return prog->decls->buf[b].pad[d];
}

int64_t
dojo_buffer_slots(const struct dojo_buffer *b, int d)
{
	return b->fold[d] ? b->fold[d] : b->ext[d] + b->pad[d];
}

uint64_t
dojo_buffer_count(const struct dojo_buffer *b)
{
	uint64_t n = 1;
	int d;

	for (d = 0; d < b->ndim; d++)
		n *= (uint64_t)dojo_buffer_slots(b, d);
	return n;
}

int64_t
dojo_buffer_stored(dojo_program *prog, int b, int d)
{
	return dojo_buffer_slots(&prog->decls->buf[b], d);
}

uint64_t
dojo_buffer_elements(dojo_program *prog, int b)
{
	return dojo_buffer_count(&prog->decls->buf[b]);
}

enum dojo_loc
dojo_buffer_loc(dojo_program *prog, int b)
{
	return prog->decls->buf[b].loc;
}

enum dojo_role
dojo_buffer_role(dojo_program *prog, int b)
{
	return prog->decls->buf[b].role;
}

int
dojo_program_n_arrays(dojo_program *prog)
{
	return prog->decls->narr;
}

const char *
dojo_array_name(dojo_program *prog, int a)
{
	return prog->decls->arr[a].name;
}

int
dojo_array_buffer(dojo_program *prog, int a)
{
	return prog->decls->arr[a].buffer;
}

int
dojo_program_find_array(dojo_program *prog, const char *name)
{
	int i;

	for (i = 0; i < prog->decls->narr; i++)
		if (strcmp(prog->decls->arr[i].name, name) == 0)
			return i;
	return -1;
}

int
dojo_program_find_buffer(dojo_program *prog, const char *name)
{
	int i;

	for (i = 0; i < prog->decls->nbuf; i++)
		if (strcmp(prog->decls->buf[i].name, name) == 0)
			return i;
	return -1;
}

int
dojo_program_n_children(dojo_program *prog)
{
	return prog->n;
}

dojo_node *
dojo_program_child(dojo_program *prog, int i)
{
	return prog->kids[i];
}

enum dojo_node_kind
dojo_node_kind(dojo_node *node)
{
	return node->kind;
}

int
dojo_node_n_children(dojo_node *node)
{
	return node->n;
}

dojo_node *
dojo_node_child(dojo_node *node, int i)
{
	return node->kids[i];
}

int64_t
dojo_node_size(dojo_node *node)
{
	return node->size;
}

char
dojo_node_flag(dojo_node *node)
{
	return node->flag;
}

void
dojo_address_format(char *out, size_t len, const int *path, int n)
{
	size_t k = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n && k < len; i++)
		k += snprintf(out + k, len - k, i ? ".%d" : "%d", path[i]);
}

int
dojo_address_parse(int out[DOJO_MAX_DEPTH], const char *text)
{
	const char *p = text;
	int n = 0;
	long v;
	char *end;

	if (!*p)
		return dojo_error_set("empty address");
	for (;;) {
		if (*p < '0' || *p > '9')
			return dojo_error_set("malformed address '%s'", text);
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v > 1000000000L)
			return dojo_error_set("malformed address '%s'", text);
		if (n == DOJO_MAX_DEPTH)
			return dojo_error_set("address '%s' is deeper than %d",
			    text, DOJO_MAX_DEPTH);
		out[n++] = (int)v;
		p = end;
		if (!*p)
			return n;
		if (*p != '.')
			return dojo_error_set("malformed address '%s'", text);
		p++;
	}
}

dojo_node *
dojo_program_lookup(dojo_program *prog, const int *path, int n)
{
	struct dojo_node **kids = prog->kids;
	int nkids = prog->n, i;
	struct dojo_node *node = NULL;

	if (n == 0) {
		dojo_error_set("empty address");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (path[i] < 0 || path[i] >= nkids) {
			dojo_error_set("no node at address %s%d",
			    i ? "... ." : "", path[i]);
			return NULL;
		}
		node = kids[path[i]];
		kids = node->kids;
		nkids = node->n;
	}
	return node;
}

const char *
dojo_dtype_name(enum dojo_dtype t)
{
	static const char *names[] = { "f32", "f64", "i32", "i64" };

	return names[t];
}

size_t
dojo_dtype_size(enum dojo_dtype t)
{
	static const size_t sizes[] = { 4, 8, 4, 8 };

	return sizes[t];
}

int64_t
dojo_double_to_int(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 0x1p63)
		return INT64_MAX;
	if (v < -0x1p63)
		return INT64_MIN;
	return (int64_t)v;
}

double
dojo_update_identity(enum dojo_update u, enum dojo_dtype t)
{
	bool is_int = t == DOJO_I32 || t == DOJO_I64;

	switch (u) {
	case DOJO_MUL_SET:
		return 1;
	case DOJO_MAX_SET:
		return !is_int ? -INFINITY : t == DOJO_I32 ? (double)INT32_MIN :
		    -0x1p63;
	case DOJO_MIN_SET:
		return !is_int ? INFINITY : t == DOJO_I32 ? (double)INT32_MAX :
		    0x1p63;
	default:
		return 0;
	}
}

const char *
dojo_loc_name(enum dojo_loc l)
{
	static const char *names[] = { "heap", "stack", "reg", "shared" };

	return names[l];
}

const char *
dojo_role_name(enum dojo_role r)
{
	static const char *names[] = { "", "in", "out", "inout" };

	return names[r];
}

/* Words a name may not be: the format's own, C11, C++ (CUDA is C++), the
 * CUDA built-ins, and what generated code declares. */
static const char *const reserved_words[] = {
	/* the format */
	"f16", "bf16", "f32", "f64", "i8", "i32", "i64", "heap", "stack",
	"reg", "shared", "in", "out", "inout", "exp", "log", "sqrt", "tanh",
	"abs", "max", "min", "inf", "nan",
	/* C11 */
	"auto", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if",
	"inline", "int", "long", "register", "restrict", "return", "short",
	"signed", "sizeof", "static", "struct", "switch", "typedef", "union",
	"unsigned", "void", "volatile", "while", "bool", "true", "false",
	"NULL", "main", "alignas", "alignof", "noreturn", "static_assert",
	"thread_local", "asm", "typeof", "complex", "imaginary",
	/* C++ */
	"catch", "class", "const_cast", "constexpr", "decltype", "delete",
	"dynamic_cast", "explicit", "export", "friend", "mutable",
	"namespace", "new", "noexcept", "nullptr", "operator", "private",
	"protected", "public", "reinterpret_cast", "static_cast", "template",
	"this", "throw", "try", "typeid", "typename", "using", "virtual",
	"wchar_t", "char16_t", "char32_t", "and", "or", "not", "xor",
	"and_eq", "or_eq", "not_eq", "xor_eq", "bitand", "bitor", "compl",
	"concept", "requires", "co_await", "co_return", "co_yield",
	"consteval", "constinit", "char8_t", "final", "override",
	/* CUDA and OpenMP */
	"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
	"dim3", "half", "omp",
};

bool
dojo_name_allowed(const char *name, const char **why)
{
	size_t i;

	if (name[0] == '_' && (name[1] == '_' ||
	    (name[1] >= 'A' && name[1] <= 'Z'))) {
		*why = "is reserved in C (leading underscore)";
		return false;
	}
	if (strncmp(name, "dojo_", 5) == 0 || strncmp(name, "DOJO_", 5) == 0) {
		*why = "is reserved for generated code (prefix 'dojo_')";
		return false;
	}
	for (i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++)
		if (strcmp(name, reserved_words[i]) == 0) {
			*why = "is reserved (a word of C, C++, CUDA or the format)";
			return false;
		}
	return true;
}

struct foreach_ctx {
	dojo_access_fn fn;
	void *payload;
};

/* Visit the accesses of "e" in the order of the text. */
static int
foreach_expr(struct dojo_expr *e, struct foreach_ctx *ctx)
{
	int r;

	if (!e)
		return 0;
	if (e->kind == DOJO_E_ACCESS)
		return ctx->fn(&e->acc, false, ctx->payload);
	r = foreach_expr(e->a, ctx);
	if (r)
		return r;
	return foreach_expr(e->b, ctx);
}

int
dojo_op_foreach_access(struct dojo_node *op, dojo_access_fn fn,
    void *payload)
{
	struct foreach_ctx ctx = { fn, payload };
	int r;

	r = fn(&op->lhs, true, payload);
	if (r)
		return r;
	return foreach_expr(op->rhs, &ctx);
}

bool
dojo_program_equal(dojo_program *a, dojo_program *b)
{
	char ia[41], ib[41];

	dojo_program_id(ia, a);
	dojo_program_id(ib, b);
	return strcmp(ia, ib) == 0;
}

void
dojo_program_id(char out[41], dojo_program *prog)
{
	char *text = dojo_program_print(prog, false);
	char prefix[64];
	size_t len;
	int plen;

	if (!text) {
		memset(out, '0', 40);
		out[40] = '\0';
		return;
	}
	len = strlen(text);
	plen = snprintf(prefix, sizeof prefix, "blob %zu", len);
	/* git hashes "blob LEN\0" then the content */
	dojo_sha1_hex(out, prefix, (size_t)plen + 1, text, len);
	free(text);
}

const dojo_access *
dojo_op_lhs(const dojo_node *op)
{
	return &op->lhs;
}

enum dojo_update
dojo_op_update(const dojo_node *op)
{
	return op->update;
}

const dojo_expr *
dojo_op_rhs(const dojo_node *op)
{
	return op->rhs;
}

int
dojo_access_array(const dojo_access *acc)
{
	return acc->array;
}

int
dojo_access_n_indices(const dojo_access *acc)
{
	return acc->nidx;
}

int
dojo_access_index(const dojo_access *acc, int i, int64_t *c, int *depth,
    int64_t *coef)
{
	const struct dojo_aff *aff = &acc->idx[i];
	int k;

	*c = aff->c;
	for (k = 0; k < aff->n && k < DOJO_MAX_DEPTH; k++) {
		depth[k] = aff->t[k].d;
		coef[k] = aff->t[k].k;
	}
	return k;
}

enum dojo_expr_kind
dojo_expr_kind(const dojo_expr *e)
{
	return e->kind;
}

double
dojo_expr_num(const dojo_expr *e)
{
	return e->num;
}

const dojo_access *
dojo_expr_access(const dojo_expr *e)
{
	return &e->acc;
}

enum dojo_fn
dojo_expr_fn(const dojo_expr *e)
{
	return e->fn;
}

const dojo_expr *
dojo_expr_arg(const dojo_expr *e, int i)
{
	return i ? e->b : e->a;
}
