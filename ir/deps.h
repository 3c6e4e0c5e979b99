/* deps.h: exact dependence analysis of a program with isl */
#ifndef DOJO_DEPS_H
#define DOJO_DEPS_H

#include "program.h"

/* Refuse a read of an out array or of a temporary that no earlier write
 * reaches (spec/IR.md section 3, rule 3).  0, or -1 with FILE:LINE:COL. */
int dojo_deps_check_reads(dojo_program *prog);

#endif
