/* interp.h: the reference interpreter */
#ifndef DOJO_INTERP_H
#define DOJO_INTERP_H

#include "data.h"
#include "program.h"

/* Execute "prog" sequentially on "data" (see doc/ir.md for the arithmetic:
 * each operation computes in the element type of the array it writes). */
int dojo_interp_run(__dojo_keep dojo_program *prog, dojo_data *data);

#endif
