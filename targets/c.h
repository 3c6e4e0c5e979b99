/* c.h: the C target: a kernel as a C11 function */
#ifndef DOJO_TARGET_C_H
#define DOJO_TARGET_C_H

#include "ir/program.h"
#include "ir/strbuf.h"

/* The name of the emitted function: void dojo_kernel(void **args), args
 * being the kernel arguments (heap buffers with a role) in the order of
 * their declarations, each a C array of its element type. */
#define DOJO_C_KERNEL "dojo_kernel"

/* Append to "out" the C translation of "prog".  0 or -1 with the last
 * error set.  Flags: p is an OpenMP parallel loop (temporaries private to
 * it declared inside), v an OpenMP simd loop, u an unroll pragma; the GPU
 * flags run sequentially on the CPU. */
int dojo_c_emit(struct dojo_strbuf *out, dojo_program *prog);

#endif
