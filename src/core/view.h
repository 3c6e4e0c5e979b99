/* view.h: a state as text to compare: its program, its C, its assembly
 * (perfdojo diff, the explorer's :diff) */
#ifndef DOJO_VIEW_H
#define DOJO_VIEW_H

#include <stdbool.h>

#include "ir/program.h"

enum dojo_view { DOJO_VIEW_PROGRAM, DOJO_VIEW_CODE, DOJO_VIEW_ASM };

/* The text of "prog" in view "v": its text with the loops' names; the C (the
 * loops' names in comments) of the C
 * target (the fast mode, or the exact one when $PERFDOJO_EXACT says so);
 * or the disassembly of that C compiled as a measurement compiles it
 * (objdump -d of the kernel's function, its addresses and raw bytes left
 * out so that two kernels compare).  Nothing is run.  NULL with the last
 * error set. */
__dojo_give char *dojo_view_text(__dojo_keep dojo_program *prog,
    enum dojo_view v);
/* The differences of "a" and "b" in view "v" (dojo_view_text, then
 * dojo_diff) appended to "out"; 0, or -1 with the last error set. */
struct dojo_strbuf;
struct dojo_diff_options;
int dojo_view_diff(__dojo_keep struct dojo_strbuf *out,
    __dojo_keep dojo_program *a, __dojo_keep dojo_program *b,
    enum dojo_view v, __dojo_keep const struct dojo_diff_options *opt,
    bool *differ);
/* "program", "code" or "asm". */
const char *dojo_view_name(enum dojo_view v);

#endif
