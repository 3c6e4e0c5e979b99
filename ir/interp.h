/* interp.h: the reference interpreter */
#ifndef DOJO_INTERP_H
#define DOJO_INTERP_H

#include "ir/data.h"
#include "ir/program.h"

/* Execute "prog" sequentially on "data" (see doc/ir.md for the arithmetic:
 * each operation computes in the element type of the array it writes). */
int dojo_interp_run(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_data *data);
/* The same within "seconds" of wall time (0: no limit); past it, -1 with
 * "FILE: the interpreter ran past the time limit of S s" (the data are
 * then partly computed). */
int dojo_interp_run_limited(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_data *data, double seconds);

#endif
