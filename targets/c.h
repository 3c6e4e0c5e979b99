/* c.h: the C target: a kernel as a C11 function */
#ifndef DOJO_TARGET_C_H
#define DOJO_TARGET_C_H

#include <stdbool.h>

#include "ir/program.h"
#include "src/util/strbuf.h"

/* The name of the emitted function: void dojo_kernel(void **args), args
 * being the kernel arguments (heap buffers with a role) in the order of
 * their declarations, each a C array of its element type. */
#define DOJO_C_KERNEL "dojo_kernel"

/* The version of the code this target generates, part of a measurement's
 * fingerprint: raise it when a change can change the speed of the code of
 * a state, so that times of the old code are not reused.  2: heap
 * temporaries private to a parallel loop allocated once a thread; 3: the
 * reads invariant in a vector loop loaded once, before it; 4: the modes
 * (contraction, vector math), 512-bit vectors, 64-byte aligned
 * temporaries; 5: exp in f32 vector loops the code's own where libmvec
 * is not used (the cross targets), a vector loop's division by an
 * invariant a multiplication by its reciprocal (fast mode); 6: a vector
 * loop that copies out of a stack or register temporary is not an OpenMP
 * simd loop under GCC (which then keeps a register tile in registers);
 * 7: a kernel with a register tile whose rows share a vector load is
 * tuned generic under GCC on x86-64 (no load folded into each FMA); 8:
 * exp in f32 vector loops the code's own AVX-512 variants (vscalefps)
 * where the processor has AVX-512, instead of libmvec's; 9: a vector loop
 * that steps a stack or register tile, with no loop around it that only
 * steps the tile, is not an OpenMP simd loop under GCC (DOJO_SIMD_TILE:
 * GCC stored the tile back after each step); 10: the helpers (max, min,
 * the integer operations) always inlined: GCC called them out of line,
 * one scalar call an element, in a vector loop of a kernel tuned generic
 * (a ReLU in a register tile); 11: a vector loop's division by an
 * operation on invariants (a square root of a read) a multiplication by
 * its reciprocal too (fast mode). */
#define DOJO_C_CODEGEN 11

/* Append to "out" the C translation of "prog".  0 or -1 with the last
 * error set.  Flags: p is an OpenMP parallel loop (temporaries private to
 * it declared inside; the heap ones once a thread), v an OpenMP simd
 * loop, u an unroll pragma; the GPU flags run sequentially on the CPU.
 * Not "exact": exp, log and tanh in simd loops through their vector
 * variants (doc/measure.md, "Modes"). */
int dojo_c_emit(__dojo_keep struct dojo_strbuf *out,
    __dojo_keep dojo_program *prog, bool exact);

/* How dojo_c_emit_function writes a kernel. */
struct dojo_c_function {
	const char *name;	/* the function's */
	bool is_static;		/* internal linkage */
	/*
	 * Marks for a caller that makes extents parameters (perfdojo lib's
	 * naive form of a family): each number an extent may change is
	 * written "@K<n>@", K being E for an extent (a scope's, a buffer
	 * dimension's), C for a constant or coefficient of an index, and F,
	 * D or I for a whole number of 2 or more in an expression computed
	 * in f32, f64 or an integer type.  Offsets are then in Horner form
	 * over the dimensions, every temporary is on the heap, the flags are
	 * ignored (plain loops), and the function takes (void **args, const
	 * int64_t *dojo_n).  Refused for a folded buffer.
	 */
	bool marks;
	/* Each loop's name (doc/ir.md, "Loop names") in a comment after its
	 * "for": the code as the explorer shows it. */
	bool names;
};

/* The C translation of "prog" as the function "fn" describes (dojo_c_emit
 * is "fn" = { DOJO_C_KERNEL }). */
int dojo_c_emit_function(__dojo_keep struct dojo_strbuf *out,
    __dojo_keep dojo_program *prog, bool exact,
    __dojo_keep const struct dojo_c_function *fn);

#endif
