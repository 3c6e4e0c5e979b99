/* moves.h: the moves of the game: the table, actions, the legality
 * context (doc/moves.md) */
#ifndef DOJO_MOVES_H
#define DOJO_MOVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/program.h"

struct dojo_move;

/* One action: a move with its arguments, as in "split 0.1 32". */
struct dojo_action {
	const struct dojo_move *move;
	int path[DOJO_MAX_DEPTH];	/* S or X */
	int npath;			/* 0: the move names no node */
	char buffer[DOJO_MAX_NAME + 1];	/* B */
	char array[DOJO_MAX_NAME + 1];	/* A */
	int64_t num[2];			/* f, k, d, n */
	int nnum;
	enum dojo_loc loc;		/* LOC */
	int perm[DOJO_MAX_DIMS];	/* ORDER: "1,0" */
	int nperm;
};

/* The moves, in the order of the action set. */
int dojo_move_count(void);
const char *dojo_move_name(int i);
/* The index of an action's move in the table (0 .. count - 1). */
int dojo_action_move_index(__dojo_keep const struct dojo_action *a);
const char *dojo_move_synopsis(int i);	/* "split S f" */
const char *dojo_move_help(int i);
/* Whether the action set lists the move's actions: not peel's, whose
 * count of iterations has no candidate values (doc/moves.md). */
bool dojo_move_listed(int i);

/* Read an action's text (syntax only).  0 or -1 with the last error. */
int dojo_action_parse(__dojo_keep struct dojo_action *out, const char *text);
/* The same, a scope's address also given by its loop name in "prog"
 * ("split i 32"; doc/ir.md, "Loop names"); "prog" NULL: addresses only.
 * The action holds the address either way, and formats with it. */
int dojo_action_parse_in(__dojo_keep struct dojo_action *out,
    const char *text, __dojo_keep dojo_program *prog);
/* The action's text, as it parses back. */
void dojo_action_format(char *out, size_t len,
    __dojo_keep const struct dojo_action *a);

/* What the moves need to know of a target (each target of the target
 * table, targets/target.h, has one). */
struct dojo_machine {
	const char *name;		/* "c", "cuda" */
	bool gpu;			/* grid, block and warp scopes, and
					   shared memory */
	int64_t stack_bytes;		/* the most bytes of a stack buffer */
	int64_t reg_elems;		/* the most elements of a reg buffer */
	int64_t shared_bytes;		/* the most bytes of the shared buffers
					   of a kernel (GPU) */
	int64_t block_threads;		/* the most threads of a block (GPU) */
};

/* The legality context of one program for one target's machine:
 * what decides, lists and applies its moves; the dependences are computed
 * once, when first needed. */
typedef struct dojo_legality dojo_legality;
__dojo_give dojo_legality *dojo_legality_new(__dojo_keep dojo_program *prog,
    __dojo_keep const struct dojo_machine *machine);
/* (NULL "machine": NULL, the last error left as it is: that of a lookup
 * of the target that found none.) */
void dojo_legality_free(__dojo_take dojo_legality *mv);

/* DOJO_DONE when "a" is legal; DOJO_REFUSED with the reason ("ACTION:
 * why") when it is not.  DOJO_FAILED when legality could not be decided
 * (isl or memory failed), with "ACTION: legality could not be decided:
 * why", and dojo_legality_undecided says so from then on: such a move is
 * never taken as legal. */
enum dojo_result dojo_legality_check(__dojo_keep dojo_legality *mv,
    __dojo_keep const struct dojo_action *a);
bool dojo_legality_undecided(__dojo_keep const dojo_legality *mv);
/* The program after a legal "a", or NULL with the reason. */
__dojo_give dojo_program *dojo_legality_apply(__dojo_keep dojo_legality *mv,
    __dojo_keep const struct dojo_action *a);
/* The program after "a", assumed legal (no check). */
__dojo_give dojo_program *dojo_legality_apply_unchecked(
    __dojo_keep dojo_legality *mv, __dojo_keep const struct dojo_action *a);
/* Whether the legal "a" changes the order in which a reduction
 * accumulates (results then agree within a tolerance, doc/moves.md). */
bool dojo_legality_reassociates(__dojo_keep dojo_legality *mv,
    __dojo_keep const struct dojo_action *a);
/* The action that undoes "a" (applied to this program), if the move has an
 * inverse; -1 otherwise. */
int dojo_legality_inverse(__dojo_keep struct dojo_action *out,
    __dojo_keep dojo_legality *mv, __dojo_keep const struct dojo_action *a);

/* Call "fn" on every legal action, in a stable order; only those at the
 * node "at" ("nat" > 0).  Stops at a non-zero return of "fn", and with -1
 * and the reason at the first action whose legality could not be
 * decided: a list is whole or an error. */
typedef int (*dojo_action_fn)(const struct dojo_action *a, void *payload);
int dojo_legality_list(__dojo_keep dojo_legality *mv, const int *at, int nat,
    dojo_action_fn fn, void *payload);
/* The legal actions (at "at", as dojo_legality_list) as texts: a
 * NULL-terminated array into "*out", to free with dojo_action_texts_free;
 * their count, or -1 with the last error set. */
int dojo_legality_texts(__dojo_keep dojo_legality *mv, const int *at,
    int nat, __dojo_give char ***out);
void dojo_action_texts_free(__dojo_take char **texts);
/* Every candidate action, legal or not, at "at" (or everywhere). */
int dojo_legality_candidates(__dojo_keep dojo_legality *mv, const int *at,
    int nat, dojo_action_fn fn, void *payload);

/* Parse, check and apply the action text "text" to "prog". */
__dojo_give dojo_program *dojo_program_apply_text(__dojo_keep dojo_program *prog,
    const char *text, __dojo_keep const struct dojo_machine *machine);

#endif
