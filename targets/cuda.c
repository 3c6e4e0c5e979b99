/* cuda.c: the CUDA target: grid scopes as the blocks of a kernel launch,
 * block and warp scopes as its threads, the rest in one thread */
#include "config.h"
#include "targets/cuda.h"
#include "targets/c_private.h"
#include "targets/cross.h"
#include "ir/flag.h"
#include "src/util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Where code runs.  Walking from the program down, each scope moves the
 * code inside it from one state to another:
 *
 *   HOST     the host function: a loop around kernel launches
 *   GRID     a kernel whose blocks are the iterations of the grid scopes
 *            around (a chain: each the only child of the one above)
 *   BLOCK    a block's code, run by all its threads alike (a loop that
 *            holds block scopes)
 *   THREADS  a thread's code inside the block scopes of a chain
 *   SINGLE   the code of one thread: a loop outside block scopes (thread 0
 *            of a block, or a kernel of one thread), inside a thread
 *
 * A scope whose iterations are blocks or threads is "mapped".
 */
enum state { HOST, GRID, BLOCK, THREADS, SINGLE };

/* Where a temporary lives. */
enum store {
	ST_PARAM,	/* allocated by the host function, one for all */
	ST_SCRATCH,	/* global memory, a copy per mapped iteration around */
	ST_SHARED,	/* shared memory, a copy per mapped thread around */
	ST_LOCAL,	/* an array of the thread (registers, local memory) */
};

struct cuda {
	struct c_emit e;
	struct dojo_strbuf kern;	/* the kernels */
	struct dojo_strbuf host;	/* the host function's body */
	int nk;				/* kernels so far */
	enum store *store;		/* per buffer */
	int64_t *copies;		/* per temporary */
	int threads;			/* the block size of the kernel */
	int host_indent;
	/* per buffer: read, written by the block's code since its last
	 * barrier */
	bool *read, *written;
	bool dirty;			/* any */
};

/* Whether "node" or a scope under it has flag "f" (or "g", when "f" is
 * 'b': a block or warp scope). */
static bool
holds(dojo_node *node, char f)
{
	char mine;
	int i;

	if (dojo_node_kind(node) != DOJO_SCOPE)
		return false;
	mine = dojo_node_flag(node);
	if (mine == f || (f == DOJO_FLAG_BLOCK && mine == DOJO_FLAG_WARP))
		return true;
	for (i = 0; i < dojo_node_n_children(node); i++)
		if (holds(dojo_node_child(node, i), f))
			return true;
	return false;
}

static bool
threads_flag(char f)
{
	return f == DOJO_FLAG_BLOCK || f == DOJO_FLAG_WARP;
}

/* The state inside scope "s", whose parent "up" (NULL: the program) is
 * in state "st"; "*mapped": whether its iterations are blocks or
 * threads. */
static enum state
step(enum state st, dojo_node *up, dojo_node *s, bool *mapped)
{
	char f = dojo_node_flag(s);
	bool only = up && dojo_node_n_children(up) == 1;

	*mapped = false;
	switch (st) {
	case HOST:
		if (f == DOJO_FLAG_GRID) {
			*mapped = true;
			return GRID;
		}
		return holds(s, DOJO_FLAG_GRID) ? HOST : SINGLE;
	case GRID:
		if (f == DOJO_FLAG_GRID && only) {
			*mapped = true;
			return GRID;
		}
		/* not in the chain: the block's code */
		/* FALLTHROUGH */
	case BLOCK:
		if (threads_flag(f)) {
			*mapped = true;
			return THREADS;
		}
		return holds(s, DOJO_FLAG_BLOCK) ? BLOCK : SINGLE;
	case THREADS:
		if (threads_flag(f) && only) {
			*mapped = true;
			return THREADS;
		}
		return SINGLE;
	default:
		return SINGLE;
	}
}

/* The mapped scopes around the body at depth "n" of the scope at "path"
 * (thread ones only with "threads"): their depths into "depth", their
 * number returned; "*st" the state of the body, "*grid" whether a grid
 * kernel holds it, "*alone" whether its code is one thread's. */
static int
mapped_around(dojo_program *prog, const int *path, int n, bool threads,
    int *depth, enum state *st, bool *grid, bool *alone)
{
	dojo_node *s, *up = NULL;
	enum state now = HOST;
	bool m;
	int j, k = 0;

	*grid = false;
	for (j = 1; j <= n; j++) {
		s = dojo_program_lookup(prog, path, j);
		if (!s)
			break;
		now = step(now, up, s, &m);
		*grid |= now == GRID;
		if (m && (!threads || now == THREADS))
			depth[k++] = j - 1;
		up = s;
	}
	*st = now;
	/* the body of the last scope of a chain of thread scopes is one
	 * thread's; that of one above it is shared by the threads below */
	*alone = now == SINGLE || (now == THREADS && !(up &&
	    dojo_node_n_children(up) == 1 && dojo_node_kind(dojo_node_child(
	    up, 0)) == DOJO_SCOPE && threads_flag(dojo_node_flag(
	    dojo_node_child(up, 0)))));
	return k;
}

/* Where each temporary lives, and how many copies it has. */
static void
place_temps(struct cuda *c)
{
	dojo_program *prog = c->e.prog;
	int depth[DOJO_MAX_DEPTH], b, k, n, nm;
	enum state st;
	bool grid, alone;
	enum dojo_loc loc;

	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		c->store[b] = ST_PARAM;
		c->copies[b] = 1;
		n = c->e.decl_depth[b];
		if (dojo_buffer_role(prog, b) != DOJO_TEMP || n <= 0)
			continue;
		nm = mapped_around(prog, c->e.decl_path[b], n, false, depth,
		    &st, &grid, &alone);
		if (st == HOST)
			continue;
		loc = dojo_buffer_loc(prog, b);
		if (loc == DOJO_SHARED && grid) {
			c->store[b] = ST_SHARED;
			nm = mapped_around(prog, c->e.decl_path[b], n, true,
			    depth, &st, &grid, &alone);
		} else if ((loc == DOJO_STACK || loc == DOJO_REG) && alone) {
			c->store[b] = ST_LOCAL;
			nm = 0;
		} else {
			c->store[b] = ST_SCRATCH;
		}
		for (k = 0; k < nm; k++)
			c->copies[b] *= dojo_node_size(dojo_program_lookup(prog,
			    c->e.decl_path[b], depth[k] + 1));
	}
}

static uint64_t
elements(dojo_program *prog, int b)
{
	int64_t stride[DOJO_MAX_DIMS];

	return dojo_c_storage(prog, b, stride);
}

static const char *
ctype(dojo_program *prog, int b)
{
	return dojo_c_types[dojo_buffer_dtype(prog, b)];
}

/* The declaration of temporary "b" at the start of the body it belongs
 * to: its copy of the storage of the mapped iterations around. */
static void
gpu_decl(struct c_emit *e, int b)
{
	struct cuda *c = e->gpu_ctx;
	const char *name = dojo_buffer_name(e->prog, b);
	int depth[DOJO_MAX_DEPTH], k, nm;
	enum state st;
	bool grid, alone;

	if (c->store[b] == ST_PARAM)
		return;
	dojo_c_indent(e);
	if (c->store[b] == ST_LOCAL) {
		dojo_strbuf_printf(e->sb, "%s b_%s[%" PRIu64 "];\n",
		    ctype(e->prog, b), name, elements(e->prog, b));
		return;
	}
	nm = mapped_around(e->prog, e->decl_path[b], e->decl_depth[b],
	    c->store[b] == ST_SHARED, depth, &st, &grid, &alone);
	dojo_strbuf_printf(e->sb, "%s *__restrict__ b_%s = dojo_%s_%s", ctype(
	    e->prog, b), name, c->store[b] == ST_SHARED ? "sh" : "s", name);
	if (nm) {
		/* the copy of these iterations: in Horner form over them */
		dojo_strbuf_puts(e->sb, " + (");
		for (k = 1; k < nm; k++)
			dojo_strbuf_puts(e->sb, "(");
		for (k = 0; k < nm; k++) {
			if (k)
				dojo_strbuf_printf(e->sb, " * %" PRId64 " + ",
				    dojo_node_size(dojo_program_lookup(e->prog,
				    e->decl_path[b], depth[k] + 1)));
			dojo_strbuf_printf(e->sb, "i%d%s", depth[k],
			    k ? ")" : "");
		}
		dojo_strbuf_printf(e->sb, ") * %" PRIu64, elements(e->prog, b));
	}
	dojo_strbuf_puts(e->sb, ";\n");
}

/* A child of "parent" (NULL: the program). */
static dojo_node *
child(struct cuda *c, dojo_node *parent, int i)
{
	return parent ? dojo_node_child(parent, i) :
	    dojo_program_child(c->e.prog, i);
}

static int
n_children(struct cuda *c, dojo_node *parent)
{
	return parent ? dojo_node_n_children(parent) :
	    dojo_program_n_children(c->e.prog);
}

/* The parameters of every kernel (with "decl", declared): the arguments,
 * the host's temporaries and the scratch memory; then the iterators of
 * the host loops around, to "depth". */
static void
params(struct cuda *c, struct dojo_strbuf *sb, int depth, bool decl)
{
	dojo_program *prog = c->e.prog;
	int b, d, n = 0;

	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		if (c->store[b] == ST_SHARED || c->store[b] == ST_LOCAL)
			continue;
		dojo_strbuf_printf(sb, "%s%s%s%s_%s", n++ ? ", " : "", decl ?
		    ctype(prog, b) : "", decl ? " *__restrict__ " : "",
		    c->store[b] == ST_SCRATCH ? "dojo_s" : "b",
		    dojo_buffer_name(prog, b));
	}
	for (d = 0; d < depth; d++)
		dojo_strbuf_printf(sb, "%s%si%d", n++ ? ", " : "", decl ?
		    "int64_t " : "", d);
}

/* Open kernel number c->nk with "threads" a block; its launch, with
 * "blocks" blocks, into the host function. */
static void
kernel_open(struct cuda *c, int depth, int64_t blocks, int threads)
{
	struct dojo_strbuf *sb = &c->kern;

	dojo_strbuf_printf(sb, "__global__ void __launch_bounds__(%d)\n"
	    "dojo_k%d(", threads, c->nk);
	params(c, sb, depth, true);
	dojo_strbuf_puts(sb, ")\n{\n");
	dojo_strbuf_pad(&c->host, '\t', c->host_indent);
	dojo_strbuf_printf(&c->host, "DOJO_LAUNCH(dojo_k%d, %" PRId64 ", %d, ",
	    c->nk, blocks, threads);
	params(c, &c->host, depth, false);
	dojo_strbuf_puts(&c->host, ");\n");
	c->nk++;
	c->threads = threads;
	c->e.sb = sb;
	c->e.indent = 1;
}

static void
kernel_close(struct cuda *c)
{
	dojo_strbuf_puts(&c->kern, "}\n\n");
}

/* The children "from" to "to" of "parent" at "depth", code of one
 * thread. */
static void
single(struct cuda *c, dojo_node *parent, int from, int to, int depth)
{
	int i;

	for (i = from; i < to; i++) {
		c->e.path[depth] = i;
		dojo_c_node(&c->e, child(c, parent, i), depth);
	}
}

/* The chain of scopes that starts at "s" at "depth" (e->path up to it
 * set): "s", then the only child of each while it is a scope with a flag
 * of "flags".  Their number; the product of their sizes in "*total", the
 * last in "*last"; e->path set along. */
static int
chain(struct cuda *c, dojo_node *s, int depth, const char *flags,
    int64_t *total, dojo_node **last)
{
	dojo_node *k;
	int m = 1;

	*total = dojo_node_size(s);
	for (;;) {
		if (dojo_node_n_children(s) != 1)
			break;
		k = dojo_node_child(s, 0);
		if (dojo_node_kind(k) != DOJO_SCOPE || !dojo_node_flag(k) ||
		    !strchr(flags, dojo_node_flag(k)))
			break;
		c->e.path[depth + m] = 0;
		*total *= dojo_node_size(k);
		s = k;
		m++;
	}
	*last = s;
	return m;
}

/* The iterators of the chain of "m" scopes at "depth" from the linear
 * index "var" (below "total"). */
static void
chain_iterators(struct cuda *c, int depth, int m, const char *var,
    int64_t total)
{
	int64_t below = total, size;
	int j;

	for (j = 0; j < m; j++) {
		size = dojo_node_size(dojo_program_lookup(c->e.prog, c->e.path,
		    depth + j + 1));
		below /= size;
		dojo_c_indent(&c->e);
		dojo_strbuf_printf(c->e.sb, "const int64_t i%d = ", depth + j);
		if (below > 1)
			dojo_strbuf_printf(c->e.sb, "(int64_t)%s / %" PRId64,
			    var, below);
		else
			dojo_strbuf_printf(c->e.sb, "(int64_t)%s", var);
		if (j > 0)
			dojo_strbuf_printf(c->e.sb, " %% %" PRId64, size);
		dojo_strbuf_puts(c->e.sb, ";");
		if (c->e.names && *dojo_node_name(dojo_program_lookup(c->e.prog,
		    c->e.path, depth + j + 1)))
			dojo_strbuf_printf(c->e.sb, " /* %s */", dojo_node_name(
			    dojo_program_lookup(c->e.prog, c->e.path,
			    depth + j + 1)));
		dojo_strbuf_puts(c->e.sb, "\n");
	}
	for (j = 1; j <= m; j++)
		dojo_c_decls(&c->e, depth + j);
}

/* The most threads a chain of block scopes among the children of
 * "parent" (block code) runs. */
static int64_t
block_threads(struct cuda *c, dojo_node *parent, int depth)
{
	int64_t most = 1, t;
	dojo_node *k, *last;
	int i;

	for (i = 0; i < n_children(c, parent); i++) {
		k = child(c, parent, i);
		c->e.path[depth] = i;
		if (!holds(k, DOJO_FLAG_BLOCK))
			continue;
		if (threads_flag(dojo_node_flag(k)))
			chain(c, k, depth, "bw", &t, &last);
		else
			t = block_threads(c, k, depth + 1);
		if (t > most)
			most = t;
	}
	return most;
}

/* The buffers the expression "x" reads, into "r". */
static void
reads(dojo_program *prog, const dojo_expr *x, bool *r)
{
	if (!x || dojo_expr_kind(x) == DOJO_E_NUM)
		return;
	if (dojo_expr_kind(x) == DOJO_E_ACCESS) {
		r[dojo_array_buffer(prog, dojo_access_array(dojo_expr_access(x)))] =
		    true;
		return;
	}
	reads(prog, dojo_expr_arg(x, 0), r);
	reads(prog, dojo_expr_arg(x, 1), r);
}

/* The buffers the operations under "node" read and write. */
static void
touches(dojo_program *prog, dojo_node *node, bool *r, bool *w)
{
	int b, i;

	if (dojo_node_kind(node) == DOJO_OP) {
		b = dojo_array_buffer(prog, dojo_access_array(dojo_op_lhs(node)));
		w[b] = true;
		/* an update reads what it writes */
		if (dojo_op_update(node) != DOJO_SET)
			r[b] = true;
		reads(prog, dojo_op_rhs(node), r);
		return;
	}
	for (i = 0; i < dojo_node_n_children(node); i++)
		touches(prog, dojo_node_child(node, i), r, w);
}

/* A barrier, when the block has threads and wrote or read since the
 * last (with "emit"; without, the kernel starts). */
static void
barrier(struct cuda *c, bool emit)
{
	int nbuf = dojo_program_n_buffers(c->e.prog);

	if (emit && c->threads > 1 && c->dirty) {
		dojo_c_indent(&c->e);
		dojo_strbuf_puts(c->e.sb, "__syncthreads();\n");
	}
	memset(c->read, 0, nbuf * sizeof *c->read);
	memset(c->written, 0, nbuf * sizeof *c->written);
	c->dirty = false;
}

/* Before the part of the block's code made of the children "from" to
 * "to" of "parent": a barrier when it touches a buffer that the parts
 * since the last one wrote, or writes one they read (another thread may
 * have done it: the barrier orders them); then its accesses count. */
static void
part(struct cuda *c, dojo_node *parent, int from, int to)
{
	int nbuf = dojo_program_n_buffers(c->e.prog), b, i;
	bool *r = c->read + nbuf + 1, *w = c->written + nbuf + 1;

	memset(r, 0, nbuf * sizeof *r);
	memset(w, 0, nbuf * sizeof *w);
	for (i = from; i < to; i++)
		touches(c->e.prog, child(c, parent, i), r, w);
	for (b = 0; b < nbuf; b++)
		if ((r[b] && c->written[b]) || (w[b] && (c->read[b] ||
		    c->written[b])))
			break;
	if (b < nbuf)
		barrier(c, true);
	for (b = 0; b < nbuf; b++) {
		c->read[b] |= r[b];
		c->written[b] |= w[b];
		c->dirty |= r[b] || w[b];
	}
}

static void block_code(struct cuda *c, dojo_node *parent, int depth);

/* The end of the part of the children of "parent" that starts at "i":
 * the child "i" alone when a scope in it has flag "f", else it and the
 * children after it without one. */
static int
part_end(struct cuda *c, dojo_node *parent, int i, char f)
{
	int n = n_children(c, parent), j = i + 1;

	if (holds(child(c, parent, i), f))
		return j;
	while (j < n && !holds(child(c, parent, j), f))
		j++;
	return j;
}

/* The chain of block and warp scopes that starts at "s" at "depth":
 * a thread each iteration. */
static void
thread_chain(struct cuda *c, dojo_node *s, int depth)
{
	dojo_node *last;
	int64_t total;
	int m = chain(c, s, depth, "bw", &total, &last);

	dojo_c_indent(&c->e);
	if (total < c->threads)
		dojo_strbuf_printf(c->e.sb, "if (threadIdx.x < %" PRId64 ") {\n",
		    total);
	else
		dojo_strbuf_puts(c->e.sb, "{\n");
	c->e.indent++;
	chain_iterators(c, depth, m, "threadIdx.x", total);
	single(c, last, 0, dojo_node_n_children(last), depth + m);
	c->e.indent--;
	dojo_c_indent(&c->e);
	dojo_strbuf_puts(c->e.sb, "}\n");
}

/* The children of "parent" at "depth", code that all the threads of a
 * block run: the parts outside block scopes by thread 0, each part
 * followed by a barrier. */
static void
block_code(struct cuda *c, dojo_node *parent, int depth)
{
	int i, j, n = n_children(c, parent);
	dojo_node *k;

	for (i = 0; i < n; i = j) {
		k = child(c, parent, i);
		c->e.path[depth] = i;
		j = part_end(c, parent, i, DOJO_FLAG_BLOCK);
		if (threads_flag(dojo_node_flag(k))) {
			part(c, parent, i, j);
			thread_chain(c, k, depth);
			continue;
		}
		if (holds(k, DOJO_FLAG_BLOCK)) {
			/* a loop every thread runs, its barriers inside; its
			 * next iteration may touch what this one did */
			barrier(c, true);
			dojo_c_for(&c->e, k, depth);
			dojo_c_decls(&c->e, depth + 1);
			block_code(c, k, depth + 1);
			barrier(c, true);
			c->e.indent--;
			dojo_c_indent(&c->e);
			dojo_strbuf_puts(c->e.sb, "}\n");
			continue;
		}
		part(c, parent, i, j);
		if (c->threads > 1) {
			dojo_c_indent(&c->e);
			dojo_strbuf_puts(c->e.sb, "if (threadIdx.x == 0) {\n");
			c->e.indent++;
		}
		single(c, parent, i, j, depth);
		if (c->threads > 1) {
			c->e.indent--;
			dojo_c_indent(&c->e);
			dojo_strbuf_puts(c->e.sb, "}\n");
		}
	}
}

/* The shared arrays of the kernel of the grid scope at e->path, to
 * "depth"; -1 with the error when they are over the budget. */
static int
shared_arrays(struct cuda *c, int depth)
{
	dojo_program *prog = c->e.prog;
	uint64_t bytes = 0;
	int b;

	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		if (c->store[b] != ST_SHARED || c->e.decl_depth[b] <= depth ||
		    memcmp(c->e.decl_path[b], c->e.path, sizeof(int) *
		    (depth + 1)) != 0)
			continue;
		bytes += elements(prog, b) * c->copies[b] *
		    dojo_dtype_size(dojo_buffer_dtype(prog, b));
		dojo_strbuf_printf(c->e.sb, "\t__shared__ %s dojo_sh_%s[%" PRIu64
		    "];\n", ctype(prog, b), dojo_buffer_name(prog, b),
		    elements(prog, b) * c->copies[b]);
	}
	if (bytes > DOJO_CUDA_SHARED_BYTES)
		return dojo_error_set("%s: kernel %d: %llu bytes of shared "
		    "buffers, over the %d of a block", dojo_program_file(prog),
		    c->nk - 1, (unsigned long long)bytes,
		    DOJO_CUDA_SHARED_BYTES);
	return 0;
}

/* A kernel for the grid scope "g" at "depth" and the chain of grid
 * scopes under it: a block each of their iterations (a grid-stride loop
 * past the largest grid). */
static int
grid_kernel(struct cuda *c, dojo_node *g, int depth)
{
	dojo_node *last;
	int64_t total, threads;
	int m = chain(c, g, depth, "g", &total, &last);

	threads = block_threads(c, last, depth + m);
	kernel_open(c, depth, total < INT32_MAX ? total : INT32_MAX,
	    (int)threads);
	if (shared_arrays(c, depth) < 0)
		return -1;
	dojo_strbuf_printf(c->e.sb, "\tfor (int64_t dojo_blk = blockIdx.x; "
	    "dojo_blk < %" PRId64 "; dojo_blk += gridDim.x) {\n", total);
	c->e.indent = 2;
	chain_iterators(c, depth, m, "dojo_blk", total);
	barrier(c, false);
	block_code(c, last, depth + m);
	/* a block that runs another iteration of the grid-stride loop */
	if (total > INT32_MAX)
		barrier(c, true);
	dojo_strbuf_puts(c->e.sb, "\t}\n");
	kernel_close(c);
	return 0;
}

/* The children of "parent" at "depth" in the host function: runs
 * without grid scopes in kernels of one thread, grid scopes in kernels
 * of their own, loops around grid scopes as host loops. */
static int
host_code(struct cuda *c, dojo_node *parent, int depth)
{
	int i, j, n = n_children(c, parent);
	dojo_node *k;

	for (i = 0; i < n; i = j) {
		k = child(c, parent, i);
		c->e.path[depth] = i;
		j = part_end(c, parent, i, DOJO_FLAG_GRID);
		if (dojo_node_kind(k) == DOJO_SCOPE &&
		    dojo_node_flag(k) == DOJO_FLAG_GRID) {
			if (grid_kernel(c, k, depth) < 0)
				return -1;
			continue;
		}
		if (holds(k, DOJO_FLAG_GRID)) {
			c->e.sb = &c->host;
			c->e.indent = c->host_indent;
			dojo_c_for(&c->e, k, depth);
			c->host_indent++;
			if (host_code(c, k, depth + 1) < 0)
				return -1;
			c->host_indent--;
			dojo_strbuf_pad(&c->host, '\t', c->host_indent);
			dojo_strbuf_puts(&c->host, "}\n");
			continue;
		}
		kernel_open(c, depth, 1, 1);
		single(c, parent, i, j, depth);
		kernel_close(c);
	}
	return 0;
}

static const char prelude[] =
"/* generated by perfdojo: the CUDA target */\n"
"#include <math.h>\n"
"#include <stdint.h>\n"
"#include <stdio.h>\n"
"#include <stdlib.h>\n"
"#include <string.h>\n"
"\n"
"#ifdef DOJO_CUDA_EMULATE\n"
"/* The CUDA code on the CPU, for checking: the blocks one after another,\n"
" * a block's threads as coroutines that switch at __syncthreads(). */\n"
"#include <time.h>\n"
"#include <ucontext.h>\n"
"#include <sys/mman.h>\n"
"#define __global__\n"
"#define __device__\n"
"#define __shared__ static\n"
"#define __launch_bounds__(n)\n"
"struct dojo_dim { unsigned x, y, z; };\n"
"static struct dojo_dim threadIdx, blockIdx, blockDim, gridDim;\n"
"#define DOJO_FIBER_STACK (256 << 10)\n"
"static ucontext_t dojo_sched, dojo_fiber[1024];\n"
"static bool dojo_done[1024];\n"
"static char *dojo_stacks;\n"
"static void (*dojo_body)(void *);\n"
"static void *dojo_body_arg;\n"
"static void __syncthreads(void) { if (blockDim.x > 1) swapcontext(&dojo_fiber[threadIdx.x], &dojo_sched); }\n"
"static void dojo_fiber_main(void) { dojo_body(dojo_body_arg); dojo_done[threadIdx.x] = true; }\n"
"template <class F> static void dojo_call(void *f) { (*(F *)f)(); }\n"
"template <class F> static void\n"
"dojo_launch(unsigned grid, unsigned block, F f)\n"
"{\n"
"\tunsigned b, t, left;\n"
"\n"
"\tif (!dojo_stacks && (dojo_stacks = (char *)mmap(NULL, 1024UL * DOJO_FIBER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) == MAP_FAILED) {\n"
"\t\tperror(\"mmap\");\n"
"\t\texit(2);\n"
"\t}\n"
"\tdojo_body = dojo_call<F>;\n"
"\tdojo_body_arg = &f;\n"
"\tgridDim.x = grid;\n"
"\tblockDim.x = block;\n"
"\tfor (b = 0; b < grid; b++) {\n"
"\t\tblockIdx.x = b;\n"
"\t\tif (block == 1) {\n"
"\t\t\tthreadIdx.x = 0;\n"
"\t\t\tf();\n"
"\t\t\tcontinue;\n"
"\t\t}\n"
"\t\tfor (t = 0; t < block; t++) {\n"
"\t\t\tgetcontext(&dojo_fiber[t]);\n"
"\t\t\tdojo_fiber[t].uc_stack.ss_sp = dojo_stacks + (size_t)t * DOJO_FIBER_STACK;\n"
"\t\t\tdojo_fiber[t].uc_stack.ss_size = DOJO_FIBER_STACK;\n"
"\t\t\tdojo_fiber[t].uc_link = &dojo_sched;\n"
"\t\t\tmakecontext(&dojo_fiber[t], dojo_fiber_main, 0);\n"
"\t\t\tdojo_done[t] = false;\n"
"\t\t}\n"
"\t\tdo {\n"
"\t\t\t/* each thread to its next barrier, or to its end */\n"
"\t\t\tfor (t = 0, left = 0; t < block; t++) {\n"
"\t\t\t\tif (dojo_done[t])\n"
"\t\t\t\t\tcontinue;\n"
"\t\t\t\tthreadIdx.x = t;\n"
"\t\t\t\tswapcontext(&dojo_sched, &dojo_fiber[t]);\n"
"\t\t\t\tleft += !dojo_done[t];\n"
"\t\t\t}\n"
"\t\t} while (left);\n"
"\t}\n"
"}\n"
"#define DOJO_LAUNCH(k, grid, block, ...) dojo_launch(grid, block, [&]() { k(__VA_ARGS__); })\n"
"typedef int cudaError_t;\n"
"typedef double *cudaEvent_t;\n"
"enum { cudaSuccess, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };\n"
"static cudaError_t cudaMalloc(void **p, size_t n) { *p = malloc(n); return *p ? 0 : 2; }\n"
"static cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int kind) { memcpy(d, s, n); (void)kind; return 0; }\n"
"static cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return 0; }\n"
"static cudaError_t cudaDeviceSynchronize(void) { return 0; }\n"
"static cudaError_t cudaGetLastError(void) { return 0; }\n"
"static const char *cudaGetErrorString(cudaError_t e) { return e ? \"out of memory\" : \"no error\"; }\n"
"static cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = (double *)malloc(sizeof(double)); return *e ? 0 : 2; }\n"
"static cudaError_t cudaEventRecord(cudaEvent_t e, int s = 0) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); *e = t.tv_sec * 1e3 + t.tv_nsec * 1e-6; (void)s; return 0; }\n"
"static cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; return 0; }\n"
"static cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float)(*b - *a); return 0; }\n"
"#else\n"
"#define DOJO_LAUNCH(k, grid, block, ...) k<<<(grid), (block)>>>(__VA_ARGS__)\n"
"#pragma nv_diag_suppress 177 /* helpers a kernel does not use */\n"
"#endif\n"
"\n"
"static void\n"
"dojo_device_alloc(void **p, size_t n)\n"
"{\n"
"\tif (cudaMalloc(p, n ? n : 1) != cudaSuccess) {\n"
"\t\tfprintf(stderr, \"out of GPU memory (%zu bytes)\\n\", n);\n"
"\t\texit(2);\n"
"\t}\n"
"}\n"
"\n";

static const char driver[] =
"\n"
"/* the GPU this runs on, into DIR/machine */\n"
"static void\n"
"dojo_gpu(const char *dir)\n"
"{\n"
"#ifdef DOJO_CUDA_EMULATE\n"
"\tdojo_machine(dir);\n"
"#else\n"
"\tFILE *f = dojo_open(dir, \"machine\", \"\", \"w\");\n"
"\tcudaDeviceProp p;\n"
"\tint v = 0;\n"
"\n"
"\tcudaGetDeviceProperties(&p, 0);\n"
"\tcudaDriverGetVersion(&v);\n"
"\tfprintf(f, \"cuda, %s, sm_%d%d, %d SMs, driver %d.%d\\n\", p.name, p.major,\n"
"\t    p.minor, p.multiProcessorCount, v / 1000, v % 1000 / 10);\n"
"\tfclose(f);\n"
"#endif\n"
"}\n"
"\n"
"int\n"
"main(int argc, char **argv)\n"
"{\n"
"\tvoid *host[DOJO_NARGS + 1], *dev[DOJO_NARGS + 1], *pristine[DOJO_NARGS + 1];\n"
"\tint reps = dojo_reps(argc, argv), i, r, n = 0;\n"
"\tcudaEvent_t t0, t1;\n"
"\tcudaError_t err;\n"
"\tFILE *f;\n"
"\n"
"\terr = cudaGetDeviceCount(&n);\n"
"\tif (err != cudaSuccess || n == 0) {\n"
"\t\tfprintf(stderr, \"no CUDA GPU here (%s)\\n\", err != cudaSuccess ?\n"
"\t\t    cudaGetErrorString(err) : \"no device\");\n"
"\t\treturn 3;\n"
"\t}\n"
"\tfor (i = 0; i < DOJO_NARGS; i++) {\n"
"\t\thost[i] = malloc(dojo_bytes[i] ? dojo_bytes[i] : 1);\n"
"\t\tpristine[i] = dojo_inout[i] ? malloc(dojo_bytes[i] + 1) : NULL;\n"
"\t\tif (!host[i] || (dojo_inout[i] && !pristine[i])) {\n"
"\t\t\tfprintf(stderr, \"out of memory\\n\");\n"
"\t\t\treturn 2;\n"
"\t\t}\n"
"\t\tf = dojo_open(argv[1], dojo_names[i], \".bin\", \"rb\");\n"
"\t\tif (fread(host[i], 1, dojo_bytes[i], f) != dojo_bytes[i]) {\n"
"\t\t\tfprintf(stderr, \"%s.bin: short\\n\", dojo_names[i]);\n"
"\t\t\treturn 2;\n"
"\t\t}\n"
"\t\tfclose(f);\n"
"\t\tif (pristine[i])\n"
"\t\t\tmemcpy(pristine[i], host[i], dojo_bytes[i]);\n"
"\t\tdojo_device_alloc(&dev[i], dojo_bytes[i]);\n"
"\t\tcudaMemcpy(dev[i], host[i], dojo_bytes[i], cudaMemcpyHostToDevice);\n"
"\t}\n"
"\tdojo_kernel(dev);\n"
"\terr = cudaDeviceSynchronize();\n"
"\tif (err == cudaSuccess)\n"
"\t\terr = cudaGetLastError();\n"
"\tif (err != cudaSuccess) {\n"
"\t\tfprintf(stderr, \"the kernel failed: %s\\n\", cudaGetErrorString(err));\n"
"\t\treturn 1;\n"
"\t}\n"
"\tfor (i = 0; i < DOJO_NARGS; i++) {\n"
"\t\tif (!dojo_writes[i])\n"
"\t\t\tcontinue;\n"
"\t\tcudaMemcpy(host[i], dev[i], dojo_bytes[i], cudaMemcpyDeviceToHost);\n"
"\t\tf = dojo_open(argv[1], dojo_names[i], \".out\", \"wb\");\n"
"\t\tif (fwrite(host[i], 1, dojo_bytes[i], f) != dojo_bytes[i] ||\n"
"\t\t    fclose(f) != 0) {\n"
"\t\t\tfprintf(stderr, \"%s.out: cannot write\\n\", dojo_names[i]);\n"
"\t\t\treturn 2;\n"
"\t\t}\n"
"\t}\n"
"\tdojo_gpu(argv[1]);\n"
"\tif (reps <= 0)\n"
"\t\treturn 0;\n"
"\tf = dojo_open(argv[1], \"times\", \"\", \"w\");\n"
"\tcudaEventCreate(&t0);\n"
"\tcudaEventCreate(&t1);\n"
"\tfor (r = 0; r < reps; r++) {\n"
"\t\tfloat ms = 0;\n"
"\n"
"\t\tfor (i = 0; i < DOJO_NARGS; i++)\n"
"\t\t\tif (pristine[i])\n"
"\t\t\t\tcudaMemcpy(dev[i], pristine[i], dojo_bytes[i],\n"
"\t\t\t\t    cudaMemcpyHostToDevice);\n"
"\t\tcudaEventRecord(t0);\n"
"\t\tdojo_kernel(dev);\n"
"\t\tcudaEventRecord(t1);\n"
"\t\tcudaEventSynchronize(t1);\n"
"\t\tcudaEventElapsedTime(&ms, t0, t1);\n"
"\t\tfprintf(f, \"%.0f\\n\", ms * 1e6);\n"
"\t}\n"
"\terr = cudaGetLastError();\n"
"\tif (err != cudaSuccess) {\n"
"\t\tfprintf(stderr, \"a timed run failed: %s\\n\", cudaGetErrorString(err));\n"
"\t\treturn 1;\n"
"\t}\n"
"\treturn fclose(f) != 0;\n"
"}\n";

/* The host function: the arguments, the temporaries of the host and
 * the scratch memory (allocated at the first call, kept), then the host
 * code. */
static void
host_function(struct cuda *c, struct dojo_strbuf *out)
{
	dojo_program *prog = c->e.prog;
	const char *t, *name;
	int b, arg = 0;

	dojo_strbuf_puts(out, "void\ndojo_kernel(void **args)\n{\n");
	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		t = ctype(prog, b);
		name = dojo_buffer_name(prog, b);
		if (dojo_buffer_role(prog, b) != DOJO_TEMP)
			dojo_strbuf_printf(out, "\t%s *b_%s = (%s *)args[%d];\n",
			    t, name, t, arg++);
		else if (c->store[b] == ST_PARAM || c->store[b] == ST_SCRATCH)
			dojo_strbuf_printf(out, "\tstatic %s *%s_%s;\n", t,
			    c->store[b] == ST_PARAM ? "b" : "dojo_s", name);
	}
	for (b = 0; b < dojo_program_n_buffers(prog); b++)
		if (dojo_buffer_role(prog, b) == DOJO_TEMP &&
		    (c->store[b] == ST_PARAM || c->store[b] == ST_SCRATCH))
			dojo_strbuf_printf(out, "\tif (!%s_%s)\n\t\t"
			    "dojo_device_alloc((void **)&%s_%s, %" PRIu64
			    "ULL * %" PRId64 " * sizeof(%s));\n",
			    c->store[b] == ST_PARAM ? "b" : "dojo_s",
			    dojo_buffer_name(prog, b),
			    c->store[b] == ST_PARAM ? "b" : "dojo_s",
			    dojo_buffer_name(prog, b), elements(prog, b),
			    c->copies[b], ctype(prog, b));
	dojo_strbuf_add(out, c->host.s ? c->host.s : "", c->host.len);
	dojo_strbuf_puts(out, "}\n");
}

int
dojo_cuda_emit(struct dojo_strbuf *out, dojo_program *prog, bool exact)
{
	struct cuda c;
	int nbuf = dojo_program_n_buffers(prog), rc = -1;

	memset(&c, 0, sizeof c);
	if (dojo_c_begin(&c.e, out, prog, exact, false) < 0)
		return -1;
	c.e.gpu_decl = gpu_decl;
	c.e.gpu_ctx = &c;
	dojo_strbuf_init(&c.kern);
	dojo_strbuf_init(&c.host);
	c.store = calloc(nbuf + 1, sizeof *c.store);
	c.copies = calloc(nbuf + 1, sizeof *c.copies);
	/* and past them, a part's own */
	c.read = calloc(2 * (nbuf + 1), sizeof *c.read);
	c.written = calloc(2 * (nbuf + 1), sizeof *c.written);
	c.host_indent = 1;
	if (!c.store || !c.copies || !c.read || !c.written) {
		dojo_error_set("out of memory");
		goto out;
	}
	place_temps(&c);
	if (host_code(&c, NULL, 0) < 0)
		goto out;
	dojo_strbuf_puts(out, prelude);
	dojo_c_helpers(out, "static __device__ inline");
	dojo_strbuf_add(out, c.kern.s ? c.kern.s : "", c.kern.len);
	host_function(&c, out);
	dojo_strbuf_puts(out, "\n/* the kernel's arguments */\n");
	dojo_cross_args(out, prog);
	dojo_strbuf_puts(out, driver);
	rc = out->oom || c.kern.oom || c.host.oom ?
	    dojo_error_set("out of memory") : 0;
out:
	dojo_c_end(&c.e);
	dojo_strbuf_release(&c.kern);
	dojo_strbuf_release(&c.host);
	free(c.store);
	free(c.copies);
	free(c.read);
	free(c.written);
	return rc;
}
