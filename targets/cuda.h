/* cuda.h: the CUDA target: a kernel as CUDA kernels and the host code
 * that launches them, in a standalone program (doc/targets.md) */
#ifndef DOJO_TARGET_CUDA_H
#define DOJO_TARGET_CUDA_H

#include <stdbool.h>

#include "ir/program.h"
#include "src/util/strbuf.h"

/*
 * Append to "out" the CUDA program of "prog": grid scopes (g) as the
 * blocks of a kernel launch, block and warp scopes (b, w) as its
 * threads, shared buffers in shared memory, __syncthreads() between the
 * parts of a block's code; the code outside grid scopes in one GPU
 * thread.  With a main that reads the kernel's arguments from
 * DIR/NAME.bin, runs it on the GPU, writes DIR/NAME.out and times REPS
 * more runs with CUDA events into DIR/times (the protocol of the cross
 * targets, targets/cross.h).  Compiled with -DDOJO_CUDA_EMULATE by a C++
 * compiler, the same program runs on the CPU: blocks one after another,
 * a block's threads as coroutines (for checking, never for timing).
 * 0 or -1 with the last error set (shared buffers over "shared_bytes").
 */
int dojo_cuda_emit(__dojo_keep struct dojo_strbuf *out,
    __dojo_keep dojo_program *prog, bool exact);

/* The shared memory a kernel may declare (static __shared__ arrays). */
#define DOJO_CUDA_SHARED_BYTES (48 << 10)

#endif
