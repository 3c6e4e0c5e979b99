/* moves_private.h: what the files of the moves share, for ir/ only */
#ifndef DOJO_MOVES_PRIVATE_H
#define DOJO_MOVES_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/deps.h"
#include "ir/flag.h"
#include "ir/program_private.h"
#include "ir/moves.h"

/* The largest scope that unroll takes, and the longest side of the box of
 * a cache in registers (whose copies are unrolled). */
#define UNROLL_MAX 64

/* The last verdict of check_result for a cache or a pack at one node
 * and array, kept while only verdicts are wanted (quiet; move_cache.c). */
struct result_memo {
	bool valid;
	bool pack;
	int path[DOJO_MAX_DEPTH];
	int npath;
	char array[DOJO_MAX_NAME + 1];
	bool refused;
};

struct dojo_legality {
	dojo_program *prog;
	dojo_deps *deps;	/* computed when first needed */
	const struct dojo_machine *machine;
	bool undecided;		/* a check could not be decided */
	bool last_undecided;	/* ... the last one */
	/* per buffer, when not NULL: whether its dependences may differ from
	 * those of a state whose flags held (check_flags_after); the others
	 * are not asked about */
	bool *recheck;
	struct result_memo memo;
};

/* Whether the check under way refused its action (refuse()), rather than
 * failing to decide (moves.c). */
extern _Thread_local bool refused;
/* Whether the reasons of refusals are wanted: dojo_legality_list keeps
 * only the verdicts, so refuse() then formats no sentence and check_deps
 * looks for no witness (moves.c). */
extern _Thread_local bool quiet;

/* What a move does: decide whether an action is legal (0, or -1 with the
 * reason), build the program after it, give the action that undoes it,
 * and give the candidate values of its integer argument "i" (at most
 * "max" into "out"; returns how many). */
typedef int move_check_fn(dojo_legality *mv, const struct dojo_action *a);
typedef dojo_program *move_apply_fn(dojo_legality *mv,
    const struct dojo_action *a);
typedef int move_inverse_fn(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a);
typedef int move_values_fn(dojo_legality *mv, const struct dojo_action *a,
    int i, int64_t *out, int max);

/* The arguments a move takes, one letter each: S scope, X node, B buffer,
 * A array, f k d n integers, L location. */
struct dojo_move {
	const char *name;
	const char *args;
	const char *help;
	char flag;		/* for the annotations */
	bool gpu;		/* only for GPU targets */
	move_check_fn *check;
	move_apply_fn *apply;
	move_inverse_fn *inverse;
	/* candidate values of the integer argument "i" (NULL: none) */
	move_values_fn *values;
};

/* The table of moves, in the order of the action set (moves.c). */
extern const struct dojo_move moves[];
extern const int n_moves;

/*
 * tree.c: surgery on the shared tree, and the algebra of indices.
 */

/* The node at the address "path" ("n" indices), or NULL. */
struct dojo_node *node_at(dojo_program *prog, const int *path, int n);
/* The name of a new buffer into "out" (DOJO_MAX_NAME + 1 bytes): the
 * first of BASE_SUFFIX, BASE_SUFFIX2, BASE_SUFFIX3 ... that names no
 * buffer or array of "prog", BASE cut to "keep1" characters in the
 * first, to "keep" in the others. */
void fresh_name(char *out, dojo_program *prog, const char *base,
    const char *suffix, int keep1, int keep);
/* The children of the parent of the node at "path" ("n" >= 1). */
struct dojo_node **siblings(dojo_program *prog, const int *path, int n,
    int *count);
/* Deep copies of an index and of an access, 0 or -1. */
int aff_copy(struct dojo_aff *out, const struct dojo_aff *in);
int access_copy(struct dojo_access *out, const struct dojo_access *in);
/* A new node like "src" (an operation deep, a scope sharing its
 * children). */
struct dojo_node *node_dup(const struct dojo_node *src);
/* The program with the children of the node at "path" replaced. */
dojo_program *replace_children(dojo_program *prog, const int *path, int n,
    struct dojo_node **kids, int count, struct dojo_decls *decls);
/* The program with the node at "path" replaced by "count" nodes. */
dojo_program *replace_node(dojo_program *prog, const int *path, int n,
    struct dojo_node **repl, int count);

/* A rewrite of the indices, or of the accesses, of a subtree. */
typedef int (*aff_fn)(struct dojo_aff *aff, void *payload);
typedef int (*acc_fn)(struct dojo_access *acc, void *payload);

struct rewrite {
	aff_fn aff;
	acc_fn acc;
	void *payload;
};

/* A copy of the subtree "node" with every access rewritten by "rw". */
struct dojo_node *rewrite_tree(const struct dojo_node *node,
    const struct rewrite *rw);
/* An index's terms sorted by depth, merged, without zeros. */
void aff_normalize(struct dojo_aff *aff);
/* The coefficient of {d} in "aff". */
int64_t aff_coef(const struct dojo_aff *aff, int d);
/* Add "k * {d}" to "aff"; 0 or -1. */
int aff_add_term(struct dojo_aff *aff, int d, int64_t k);

/* Walk every access under "node" with the chain of enclosing scopes. */
struct scan {
	const struct dojo_node *chain[DOJO_MAX_DEPTH];
	const struct dojo_node *op;	/* the operation being scanned */
	int depth;
	int (*fn)(struct scan *sc, struct dojo_access *acc, bool write);
	void *payload;
};

/* Call sc->fn on every access under "node" (the chain of "sc" holding
 * the scopes above it), or of the whole of "prog"; stops at a non-zero
 * return and gives it. */
int scan_tree(struct scan *sc, struct dojo_node *node);
int scan_program(struct scan *sc, dojo_program *prog);

/* A copy of the declarations, with room for one more buffer and array. */
struct dojo_decls *decls_copy(const struct dojo_decls *d);
/* The program with the declarations "d" (taken) and the same tree. */
dojo_program *with_decls(dojo_program *prog, struct dojo_decls *d);

/*
 * moves.c: what the checks have in common.
 */

/* Refuse "a": the last error set to "ACTION: reason"; returns -1. */
int refuse(const struct dojo_action *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Refuse an ORDER that does not name each of the "ndim" dimensions of
 * "name" once; 0 or -1. */
int need_order(const struct dojo_action *a, const char *name, int ndim);
/* The node, or the scope, that "a" names, or a refusal. */
int need_node(const struct dojo_action *a, dojo_legality *mv,
    struct dojo_node **out);
int need_scope(const struct dojo_action *a, dojo_legality *mv,
    struct dojo_node **out);
/* The dependences of the program, computed once; NULL on failure. */
dojo_deps *deps_of(dojo_legality *mv);
/* Refuse "a" when the query finds a dependence: "WHAT DEP". */
int check_deps(dojo_legality *mv, const struct dojo_action *a,
    const struct dojo_dep_query *q, const char *what);
/* Refuse "a" when its result breaks a rule of the language. */
int check_result(dojo_legality *mv, const struct dojo_action *a,
    const char *array);

/*
 * action.c
 */

/* The move named by the "len" bytes of "name", or NULL. */
const struct dojo_move *find_move(const char *name, size_t len);

/*
 * The moves, a file for each family; the table of moves.c names their
 * functions.
 */

/* move_loops.c: split S f, join S, swap S, fuse S, fission S k,
 * reorder X. */
move_check_fn split_check, join_check, swap_check, fuse_check,
    fission_check, reorder_check, peel_check;
move_apply_fn split_apply, join_apply, swap_apply, fuse_apply,
    fission_apply, reorder_apply, peel_apply;
move_inverse_fn split_inverse, join_inverse, fuse_inverse, fission_inverse;
move_values_fn split_values, fission_values;
/* The inverse of swap and reorder: the action itself. */
move_inverse_fn self_inverse;

/* move_flags.c: unroll, vectorize, parallelize, gpu-grid, gpu-block,
 * gpu-warp S (the annotations) and clear S. */
move_check_fn annotate_check, clear_check;
move_apply_fn annotate_apply, clear_apply;
move_inverse_fn annotate_inverse, clear_inverse;
/* Whether a scope around the node at "path" has the flag "flag". */
bool under_flag(dojo_program *prog, const int *path, int n, char flag);
/* Refuse "a" when a flag of its result would no longer be legal;
 * "touched" names the buffer or array whose accesses it changes (NULL:
 * any). */
int check_flags_after(dojo_legality *mv, const struct dojo_action *a,
    const char *touched);

/* move_buffers.c: move B LOC, fold B d n, unfold B d, reuse B A, pad B d n,
 * permute B ORDER. */
move_check_fn move_check, fold_check, unfold_check, reuse_check, pad_check,
    permute_check;
move_apply_fn move_apply, fold_apply, unfold_apply, reuse_apply, pad_apply,
    permute_apply;
move_inverse_fn move_inverse, fold_inverse, unfold_inverse, permute_inverse;
move_values_fn fold_values, unfold_values, pad_values, permute_values;

/* What reg_violation, a function of a scan, looks for: the accesses to
 * "buffer" (-1: to every reg buffer) whose indices use a scope that is
 * not unrolled, or the scope "clear" that would lose its 'u'. */
struct reg_ctx {
	dojo_program *prog;
	int buffer;
	int clear_depth;	/* a scope that will lose its 'u', or -1 */
	const struct dojo_node *clear;
};
int reg_violation(struct scan *sc, struct dojo_access *acc, bool write);

/* move_cache.c: cache X A LOC, pack X A ORDER. */
move_check_fn cache_check, pack_check;
move_apply_fn cache_apply, pack_apply;

/* move_ops.c: rfactor S, hoist X. */
move_check_fn rfactor_check, hoist_check;
move_apply_fn rfactor_apply, hoist_apply;

#endif
