/* session_rows.c: the tree of a session's states as rows of text to draw
 * ("|-", "`-" before a child), for perfdojo log, the explorer's history
 * pane and the exploration tree of src/core/graph.c */
#include "config.h"
#include "src/core/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util/error.h"
#include "src/core/session_private.h"

/* The rows of the subtree of commit "i" into "rows" from "*n" on. */
static void
subtree_rows(dojo_session *s, struct dojo_session_row *rows, int *n, int i,
    const char *prefix, const char *branch)
{
	char next[sizeof rows->prefix];
	int j, last = -1;

	dojo_session_fill_entry(s, i, &rows[*n].e);
	snprintf(rows[*n].prefix, sizeof rows->prefix, "%s%s", prefix, branch);
	(*n)++;
	for (j = 0; j < s->ncommits; j++)
		if (s->commits[j].parent_index == i)
			last = j;
	snprintf(next, sizeof next, "%s%s", prefix, !*branch ? "" :
	    strcmp(branch, "`-") == 0 ? "  " : "| ");
	for (j = 0; j < s->ncommits; j++)
		if (s->commits[j].parent_index == i)
			subtree_rows(s, rows, n, j, next, j == last ? "`-" :
			    "|-");
}

int
dojo_session_rows(dojo_session *s, struct dojo_session_row **out, int *n)
{
	struct dojo_session_row *rows;
	int i;

	*out = NULL;
	*n = 0;
	if (dojo_session_refresh(s) < 0)
		return -1;
	rows = calloc(s->ncommits ? s->ncommits : 1, sizeof *rows);
	if (!rows)
		return dojo_error_set("out of memory");
	for (i = 0; i < s->ncommits; i++)
		if (s->commits[i].parent_index < 0)
			subtree_rows(s, rows, n, i, "", "");
	*out = rows;
	return 0;
}
