/* count.c: the arithmetic a program does, for rates (GFLOP/s) */
#include "config.h"
#include "ir/program.h"
#include "ir/program_private.h"

/* The arithmetic operations of "e": each +, -, *, /, negation and call
 * counts one; numbers and reads none. */
static double
expr_ops(const struct dojo_expr *e)
{
	if (!e)
		return 0;
	switch (e->kind) {
	case DOJO_E_NUM:
	case DOJO_E_ACCESS:
		return 0;
	default:
		return 1 + expr_ops(e->a) + expr_ops(e->b);
	}
}

static double
node_ops(const struct dojo_node *node)
{
	double sum = 0;
	int i;

	if (node->kind == DOJO_OP)
		return expr_ops(node->rhs) + (node->update != DOJO_SET);
	for (i = 0; i < node->n; i++)
		sum += node_ops(node->kids[i]);
	return sum * (double)node->size;
}

double
dojo_program_ops(dojo_program *prog)
{
	double sum = 0;
	int i;

	for (i = 0; i < dojo_program_n_children(prog); i++)
		sum += node_ops(dojo_program_child(prog, i));
	return sum;
}
