/* c_private.h: the C target's code of scopes, operations and
 * expressions, which the CUDA target (cuda.c) writes its threads' code
 * with */
#ifndef DOJO_TARGET_C_PRIVATE_H
#define DOJO_TARGET_C_PRIVATE_H

#include "targets/c.h"
#include "ir/deps.h"

#include <stdint.h>

struct c_emit {
	struct dojo_strbuf *sb;
	dojo_program *prog;
	dojo_deps *deps;
	int *decl_depth;	/* per buffer: the scope depth it is declared at,
				   -1: in the function */
	int (*decl_path)[DOJO_MAX_DEPTH];
	int path[DOJO_MAX_DEPTH];
	int indent;
	/* the body depth of a parallel scope whose heap temporaries are
	 * allocated once a thread, around its loop: its body leaves them */
	int thread_depth;
	/* in a vector loop: the reductions kept in accumulators */
	const dojo_node *acc_op[16];
	int nacc;
	/* in a vector loop: the reads invariant in it, loaded before it */
	const dojo_access *inv[16];
	int ninv;
	/* the copies of the body that the unrolled scopes around make */
	int64_t copies;
	/* inside an OpenMP simd loop; vector math there (not exact) */
	int vector;
	bool vmath;
	/* the marks of dojo_c_function: extents and numbers as "@K<n>@" */
	bool marks;
	bool names;	/* each loop's name in a comment */
	/* the CUDA target's (targets/cuda.c): code of one GPU thread, each
	 * flag but u a plain loop, each temporary declared by gpu_decl */
	bool gpu;
	void (*gpu_decl)(struct c_emit *e, int b);
	void *gpu_ctx;
};

/* The C types of the element types, in the order of enum dojo_dtype. */
extern const char *const dojo_c_types[4];

/* Start "e" for "prog" into "out": its dependences and where each
 * temporary is declared (the deepest scope that holds its accesses and
 * to which it is private; with "hoist", a heap one at the outermost
 * parallel scope it is private to).  0 or -1 with the last error set. */
int dojo_c_begin(struct c_emit *e, struct dojo_strbuf *out,
    dojo_program *prog, bool exact, bool hoist);
void dojo_c_end(struct c_emit *e);
void dojo_c_indent(struct c_emit *e);
/* The node "node" at "depth" (e->path[depth] its index), operations and
 * scopes with their bodies. */
void dojo_c_node(struct c_emit *e, dojo_node *node, int depth);
/* The loop of the scope "node" at "depth", opened; the indent raised. */
void dojo_c_for(struct c_emit *e, dojo_node *node, int depth);
/* The declarations of the temporaries of the body at "depth" of the
 * scope at e->path. */
void dojo_c_decls(struct c_emit *e, int depth);
/* The stored elements of buffer "b" of "prog", the stride of each
 * dimension into "stride". */
uint64_t dojo_c_storage(dojo_program *prog, int b, int64_t *stride);
/* The helper functions of the code (max, min, wrapping integer
 * arithmetic), each declared with "qualifier" ("static inline"). */
void dojo_c_helpers(struct dojo_strbuf *out, const char *qualifier);

#endif
