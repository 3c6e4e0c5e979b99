/* flag.c: the table of the flags of a scope */
#include "config.h"
#include "ir/flag.h"

#include <stdio.h>

/* The nesting rules are those that the moves check when they set a flag
 * (move_flags.c), in their order: the reasons are their refusals. */
static const struct dojo_flag flags[] = {
	{ DOJO_FLAG_UNROLL, "unroll", "the body once for each value of the "
	  "iterator", "unroll", false, DOJO_SPLIT_BOTH, NULL, NULL, "u",
	  { { NULL, "p", "a parallel scope inside would start its threads "
	      "once a copy" } } },
	{ DOJO_FLAG_VECTOR, "vector", "an innermost scope run as vector code",
	  "vectorize", false, DOJO_SPLIT_INNER, NULL, NULL, NULL, { { 0 } } },
	{ DOJO_FLAG_PARALLEL, "parallel", "the iterations shared out to CPU "
	  "threads", "parallelize", false, DOJO_SPLIT_OUTER, NULL, NULL, NULL,
	  { { "p", "p", "a parallel scope may not nest in another" },
	    { "u", NULL, "a parallel scope inside an unrolled one would start "
	      "its threads once a copy" },
	    { "vgbw", "gbw", "a parallel scope cannot go inside a vector "
	      "scope, nor around or inside GPU scopes" } } },
	{ DOJO_FLAG_GRID, "grid", "the iterations run by the blocks of the "
	  "GPU grid", "gpu-grid", true, DOJO_SPLIT_OUTER, NULL, NULL, NULL,
	  { { "bwp", NULL, "a grid scope must be outside the block and warp "
	      "scopes, and not in a parallel one" } } },
	{ DOJO_FLAG_BLOCK, "block", "the iterations run by the threads of a "
	  "GPU block", "gpu-block", true, DOJO_SPLIT_OUTER, "g", "a block "
	  "scope must be inside a grid scope", "bw",
	  { { "w", "g", "a block scope must be outside the warp scopes and "
	      "inside the grid scopes" } } },
	{ DOJO_FLAG_WARP, "warp", "the iterations run by the lanes of a warp",
	  "gpu-warp", true, DOJO_SPLIT_INNER, "b", "a warp scope must be "
	  "inside a block scope", "bw",
	  { { "w", "gbw", "a warp scope must be the innermost of the GPU "
	      "scopes" } } },
};
static const int n_flags = sizeof flags / sizeof *flags;

int
dojo_flag_count(void)
{
	return n_flags;
}

const struct dojo_flag *
dojo_flag_at(int i)
{
	return i >= 0 && i < n_flags ? &flags[i] : NULL;
}

int
dojo_flag_index(char letter)
{
	int i;

	for (i = 0; letter && i < n_flags; i++)
		if (flags[i].letter == letter)
			return i;
	return -1;
}

const struct dojo_flag *
dojo_flag_find(char letter)
{
	return dojo_flag_at(dojo_flag_index(letter));
}

const char *
dojo_flag_letters(void)
{
	static char letters[64];
	size_t n = 0;
	int i;

	if (!letters[0])
		for (i = 0; i < n_flags && n < sizeof letters; i++)
			n += snprintf(letters + n, sizeof letters - n, "%s%c",
			    !i ? "" : i == n_flags - 1 ? " or " : ", ",
			    flags[i].letter);
	return letters;
}
