/* flag.h: the table of the flags of a scope: what each means, the move
 * that sets it and where it may be (doc/ir.md, doc/moves.md) */
#ifndef DOJO_FLAG_H
#define DOJO_FLAG_H

#include <stdbool.h>

/* The flags, by their letter in the text of a program ("8:p"); a scope
 * has one or none (0). */
enum {
	DOJO_FLAG_UNROLL = 'u',
	DOJO_FLAG_VECTOR = 'v',
	DOJO_FLAG_PARALLEL = 'p',
	DOJO_FLAG_GRID = 'g',
	DOJO_FLAG_BLOCK = 'b',
	DOJO_FLAG_WARP = 'w',
};

/* Where the split of a flagged scope leaves its flag. */
enum dojo_flag_split {
	DOJO_SPLIT_OUTER,	/* on the outer scope (threads, blocks) */
	DOJO_SPLIT_INNER,	/* on the inner one (lanes) */
	DOJO_SPLIT_BOTH,	/* on both (unrolled twice over) */
};

/* A rule of nesting: no scope around a scope with the flag may have a
 * flag of "above", and none inside it one of "below"; "why" is the
 * refusal of a move that would break the rule. */
struct dojo_flag_rule {
	const char *above;
	const char *below;
	const char *why;
};

#define DOJO_FLAG_MAX_RULES 3

struct dojo_flag {
	char letter;
	const char *name;	/* "parallel" */
	const char *about;	/* what it means, one line */
	const char *move;	/* the move that sets it: "parallelize" */
	bool gpu;		/* only on GPU targets */
	enum dojo_flag_split split;
	/* a scope around it must have one of "needs" (NULL: no need), or
	 * "needs_why" */
	const char *needs;
	const char *needs_why;
	/* the flags of the scopes whose sizes multiply with its own under
	 * one limit: the copies of the unrolled scopes, the threads of a
	 * block (NULL: none) */
	const char *shares;
	/* the rules, asked in this order; a NULL "why" ends them */
	struct dojo_flag_rule rules[DOJO_FLAG_MAX_RULES];
};

/* The flags, in the order of the table: u v p g b w.  The learned
 * players' encoder (agents/encode.c) counts each flag in a feature of its
 * own, by this index. */
int dojo_flag_count(void);
const struct dojo_flag *dojo_flag_at(int i);
/* The flag of letter "letter", or NULL (for 0 too). */
const struct dojo_flag *dojo_flag_find(char letter);
/* The index of the flag "letter" in the table, or -1. */
int dojo_flag_index(char letter);
/* "u, v, p, g, b or w": the letters, for messages. */
const char *dojo_flag_letters(void);

#endif
