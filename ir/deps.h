/* deps.h: exact dependence analysis of a program with isl */
#ifndef DOJO_DEPS_H
#define DOJO_DEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/program.h"

struct dojo_strbuf;
typedef struct dojo_deps dojo_deps;

/* Refuse a read of an out array or of a temporary that no earlier write
 * reaches (doc/ir.md section 6): DOJO_DONE, DOJO_REFUSED with
 * FILE:LINE:COL: why, or DOJO_FAILED with the reason when it could not be
 * decided (isl, memory). */
enum dojo_result dojo_deps_check_reads(__dojo_keep dojo_program *prog);
/* The same for the reads of the arrays "arrays" marks (by index). */
enum dojo_result dojo_deps_check_reads_of(__dojo_keep dojo_program *prog,
    const bool *arrays);

/* Every memory-based dependence (flow, anti, output) between operation
 * instances, on storage (folded slots, buffers shared by arrays). */
__dojo_give dojo_deps *dojo_deps_new(__dojo_keep dojo_program *prog);
void dojo_deps_free(__dojo_take dojo_deps *deps);

/* What a move asks of the dependences, at scope level "level" (the depth
 * of the scope's iterator), between instances of an operation in the
 * subtree "src_path" and one in "dst_path" (which comes after it in the
 * tree, or is the same) whose enclosing iterations above "level" are
 * equal. */
enum dojo_dep_kind {
	DOJO_DEP_CARRIED,	/* their iterations at level differ */
	DOJO_DEP_SWAP,		/* distances of opposite signs at level and
				   level + 1 */
	DOJO_DEP_BACKWARD,	/* dst's iteration at level before src's */
	DOJO_DEP_SAME,		/* one iteration of the scopes above level */
	DOJO_DEP_ANY,
};

struct dojo_dep_query {
	enum dojo_dep_kind kind;
	int level;
	const int *src_path;	/* the first subtree (NULL: any) */
	int src_len;
	const int *dst_path;	/* the second */
	int dst_len;
	/* when > 0: the siblings src_path[src_len - 1] .. src_end - 1 (and
	 * the same for dst), their subtrees taken together */
	int src_end, dst_end;
	bool skip_chains;		/* ignore reductions' own chains */
	const bool *skip_buffers;	/* ignore these buffers (by index) */
	bool skip_invariant_chains;	/* ... when invariant at level */
};

/* Why a question to "deps" went unanswered (isl failed: out of memory,
 * a limit), or NULL.  Once set it stays: every answer since may be a
 * dependence that is not there, never one missed. */
const char *dojo_deps_failure(__dojo_keep dojo_deps *deps);
/* The first dependence the query matches, or -1. */
int dojo_deps_find(__dojo_keep dojo_deps *deps,
    __dojo_keep const struct dojo_dep_query *q);
/* "the dependence of X on Y through A (flow), direction (=, <, >)" */
void dojo_deps_describe(__dojo_keep struct dojo_strbuf *sb,
    __dojo_keep dojo_deps *deps, int dep,
    __dojo_keep const struct dojo_dep_query *q);
/* One dependence for a reader (the graph): the operations at "src_path"
 * and "dst_path", the source's instance running first; the kind; the
 * storage; and the direction vectors over the "n_levels" scopes the two
 * share: "n_dirs" vectors of n_levels masks of DOJO_DIR_LT (the sink's
 * iteration is later), DOJO_DIR_EQ, DOJO_DIR_GT. */
enum dojo_dep_type { DOJO_DEP_FLOW, DOJO_DEP_ANTI, DOJO_DEP_OUTPUT };
#define DOJO_DIR_LT 1
#define DOJO_DIR_EQ 2
#define DOJO_DIR_GT 4
#define DOJO_DIR_ALL 7

struct dojo_dep_info {
	enum dojo_dep_type type;
	const int *src_path;
	int src_len;
	const int *dst_path;
	int dst_len;
	int buffer;
	int array;		/* the array both accesses name, or -1 */
	int n_levels;
	int n_dirs;
	const unsigned char *dirs;	/* n_dirs rows of n_levels masks */
};

/* Call "fn" on every dependence between operation instances (instances
 * of one operation included, never an instance with itself), one call a
 * (source, sink, storage, kind), the direction vectors merged where that
 * is exact.  Stops at the first non-zero return of "fn" and returns it;
 * 0, or -1 with the last error set when isl fails. */
int dojo_deps_foreach(__dojo_keep dojo_deps *deps,
    int (*fn)(const struct dojo_dep_info *info, void *payload), void *payload);
/* "dep" kind's name: "flow", "anti", "output". */
const char *dojo_dep_type_name(enum dojo_dep_type type);

/* Whether buffer "b" is private to the scope at "path": a temporary that
 * only the scope touches, each read finding its value written earlier in
 * the same iteration; each iteration (thread) may have its own copy. */
bool dojo_deps_private(__dojo_keep dojo_deps *deps, int b, const int *path,
    int n);
/* Whether the operation at "path" is a reduction. */
bool dojo_deps_is_reduction(__dojo_keep dojo_deps *deps, const int *path,
    int n);

/* Whether folding dimension "d" of buffer "b" to "n" slots would
 * overwrite a value still to be read: 1 (with a sentence in "why"), 0, or
 * -1 on error. */
int dojo_deps_fold_live(__dojo_keep dojo_program *prog, int b, int d, int64_t n,
    char *why, size_t len);
/* The same, with the relations of "deps" kept for the next question. */
int dojo_deps_fold_conflict(__dojo_keep dojo_deps *deps, int b, int d,
    int64_t n, char *why, size_t len);
/* Whether the live ranges of the arrays of buffers "b1" and "b2" overlap
 * (an access to each runs before an access to the other): 1, 0, or -1
 * with the last error set.  Answered from the tree, without isl. */
int dojo_deps_lifetimes_overlap(__dojo_keep dojo_deps *deps, int b1, int b2);

#endif
