/* walk.h: what the random walks over the moves share (test_moves,
 * test_c_moves, walk_moves): the legal actions of a state collected in an
 * array, and the comparison of two runs' outputs. */
#ifndef DOJO_TEST_WALK_H
#define DOJO_TEST_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/data.h"
#include "ir/program.h"
#include "ir/moves.h"

/* Actions with the index of their move in the table, in the order they
 * were offered (so the actions of one move are contiguous). */
struct walk_action {
	struct dojo_action a;
	int move;
};

struct walk_actions {
	struct walk_action *v;
	int n, cap;
};

/* A dojo_action_fn that appends "a" to the walk_actions "payload". */
int walk_actions_add(const struct dojo_action *a, void *payload);
void walk_actions_release(struct walk_actions *acts);
/* The distinct moves of "acts" into "out" (at most "max"); their count. */
int walk_actions_moves(const struct walk_actions *acts, int *out, int max);

/* Whether the out and inout buffers of "a" (a run of "pa") and "b" (of
 * "pb", buffers matched by name) agree: bitwise, or, when "tolerant",
 * floating-point buffers within the tolerance of doc/moves.md section 4
 * (integers are always bitwise).  "why" gets the first difference. */
bool walk_outputs_agree(dojo_program *pa, dojo_data *a, dojo_program *pb,
    dojo_data *b, bool tolerant, char *why, size_t len);

#endif
