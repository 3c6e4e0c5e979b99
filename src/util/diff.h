/* diff.h: the differences of two texts, line by line (perfdojo diff, the
 * explorer's :diff) */
#ifndef DOJO_DIFF_H
#define DOJO_DIFF_H

#include <stdbool.h>

#include "src/util/strbuf.h"

/* How dojo_diff writes. */
struct dojo_diff_options {
	const char *label_a, *label_b;	/* the names in the header */
	int context;		/* unified: lines around a change (3) */
	int width;		/* > 0: side by side in this many columns */
};

/* Append the differences from "a" to "b" to "out": a unified diff (---,
 * +++, @@ hunks) or two columns side by side ('|' a changed line, '<' only
 * in a, '>' only in b; tabs as 4 columns).  A shortest edit where the
 * changed middle (after the lines the texts share at both ends) is under
 * 16 million line pairs, else the whole middle as changed.  "*differ"
 * says whether they differ.  0, or -1 (out of memory). */
int dojo_diff(__dojo_keep struct dojo_strbuf *out, const char *a,
    const char *b, __dojo_keep const struct dojo_diff_options *opt,
    bool *differ);

/* Which lines of "b" the shortest edit from "a" adds (the lines of b
 * that are no line of a kept): "*added" (malloc'ed) holds one flag a line
 * of b, their count returned; -1 (out of memory). */
int dojo_diff_added(const char *a, const char *b, bool **added);

#endif
