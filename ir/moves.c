/* moves.c: the table of the moves and the legality context (doc/moves.md) */
#include "config.h"
#include "ir/moves.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/moves_private.h"
#include "src/util/strbuf.h"

/* Whether the check under way refused its action (refuse()), rather than
 * failing to decide. */
_Thread_local bool refused;
/* Whether the check under way only needs its verdict. */
_Thread_local bool quiet;

/*
 * Helpers of the checks: looking up, refusing.
 */

/* Set the last error to "ACTION: reason" (not when quiet: only the
 * verdict is wanted); returns -1. */
int
refuse(const struct dojo_action *a, const char *fmt, ...)
{
	char text[256], msg[DOJO_ERROR_MAX];
	va_list ap;

	refused = true;
	if (quiet)
		return -1;
	dojo_action_format(text, sizeof text, a);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dojo_error_set("%s: %s", text, msg);
}

/* Refuse an ORDER that does not name each of the "ndim" dimensions of
 * "name" once (pack, permute); 0 or -1. */
int
need_order(const struct dojo_action *a, const char *name, int ndim)
{
	bool seen[DOJO_MAX_DIMS] = { false };
	int i;

	if (a->nperm != ndim)
		return refuse(a, "the order names %d dimensions, '%s' has %d",
		    a->nperm, name, ndim);
	for (i = 0; i < a->nperm; i++) {
		if (a->perm[i] < 0 || a->perm[i] >= ndim || seen[a->perm[i]])
			return refuse(a, "the order is not a permutation of "
			    "0..%d", ndim - 1);
		seen[a->perm[i]] = true;
	}
	return 0;
}

int
need_node(const struct dojo_action *a, dojo_legality *mv, struct dojo_node **out)
{
	char addr[256];

	*out = node_at(mv->prog, a->path, a->npath);
	if (!*out) {
		dojo_address_format(addr, sizeof addr, a->path, a->npath);
		return refuse(a, "no node at address %s", addr);
	}
	return 0;
}

int
need_scope(const struct dojo_action *a, dojo_legality *mv, struct dojo_node **out)
{
	char addr[256];

	if (need_node(a, mv, out) < 0)
		return -1;
	if ((*out)->kind != DOJO_SCOPE) {
		dojo_address_format(addr, sizeof addr, a->path, a->npath);
		return refuse(a, "%s is an operation, not a scope", addr);
	}
	return 0;
}

dojo_deps *
deps_of(dojo_legality *mv)
{
	if (!mv->deps)
		mv->deps = dojo_deps_new(mv->prog);
	return mv->deps;
}

/* Refuse "a" when the query finds a dependence: "would ... DEP". */
int
check_deps(dojo_legality *mv, const struct dojo_action *a,
    const struct dojo_dep_query *q, const char *what)
{
	struct dojo_strbuf sb;
	dojo_deps *deps = deps_of(mv);
	struct dojo_dep_query only;
	bool *skip = NULL;
	int k, b;

	if (!deps)
		return -1;
	if (mv->recheck) {
		skip = malloc(mv->prog->decls->nbuf * sizeof *skip);
		if (!skip)
			return dojo_error_set("out of memory");
		for (b = 0; b < mv->prog->decls->nbuf; b++)
			skip[b] = !mv->recheck[b] ||
			    (q->skip_buffers && q->skip_buffers[b]);
		only = *q;
		only.skip_buffers = skip;
		q = &only;
	}
	k = dojo_deps_find(deps, q);
	free(skip);
	if (k < 0)
		return 0;
	if (quiet)
		return refuse(a, "a dependence");
	dojo_strbuf_init(&sb);
	dojo_deps_describe(&sb, deps, k, q);
	refuse(a, "%s %s", what, sb.s ? sb.s : "a dependence");
	dojo_strbuf_release(&sb);
	return -1;
}

/* Refuse "a" when its result breaks a rule of the language: registers
 * indexed by scopes not unrolled, bounds; when "array" names an array,
 * also a read of it, or of the array the move adds, before a write. */
int
check_result(dojo_legality *mv, const struct dojo_action *a, const char *array)
{
	char why[DOJO_ERROR_MAX];
	const char *m, *colon;
	dojo_program *p;
	bool *arrays = NULL;
	enum dojo_result r;
	int k;

	p = dojo_legality_apply_unchecked(mv, a);
	if (!p)
		return -1;
	/* an invalid structure is a refusal, as an unread value is */
	r = dojo_program_validate_structure(p) < 0 ? DOJO_REFUSED : DOJO_DONE;
	if (r == DOJO_DONE && array) {
		arrays = calloc(p->decls->narr, sizeof *arrays);
		if (!arrays) {
			dojo_program_free(p);
			return dojo_error_set("out of memory");
		}
		k = dojo_program_find_array(p, array);
		if (k >= 0)
			arrays[k] = true;
		if (p->decls->narr > mv->prog->decls->narr)
			arrays[p->decls->narr - 1] = true;
		r = dojo_deps_check_reads_of(p, arrays);
		free(arrays);
	}
	if (r == DOJO_FAILED) {
		dojo_program_free(p);
		return -1;	/* not decided (dojo_legality_check) */
	}
	if (r == DOJO_REFUSED) {
		/* drop the FILE:LINE:COL: of the generated text */
		m = dojo_error_last();
		colon = strstr(m, ": ");
		snprintf(why, sizeof why, "%s", colon ? colon + 2 : m);
		dojo_program_free(p);
		return refuse(a, "the result would be invalid: %s", why);
	}
	dojo_program_free(p);
	return 0;
}

/*
 * The table of moves: the order of the action set.
 */

const struct dojo_move moves[] = {
	{ "split", "S f", "scope of size N becomes N/f scopes of f", 0, false,
	  split_check, split_apply, split_inverse, split_values },
	{ "join", "S", "a scope and its only child scope become one", 0, false,
	  join_check, join_apply, join_inverse, NULL },
	{ "swap", "S", "interchange a scope with its only child scope", 0,
	  false, swap_check, swap_apply, self_inverse, NULL },
	{ "fuse", "S", "merge a scope with its next sibling of the same size",
	  0, false, fuse_check, fuse_apply, fuse_inverse, NULL },
	{ "fission", "S k", "split a scope's children at k into two scopes",
	  0, false, fission_check, fission_apply, fission_inverse,
	  fission_values },
	{ "reorder", "X", "swap a node with its next sibling", 0, false,
	  reorder_check, reorder_apply, self_inverse, NULL },
	{ "unroll", "S", "unroll a scope fully (flag u)", DOJO_FLAG_UNROLL,
	  false, annotate_check, annotate_apply, annotate_inverse, NULL },
	{ "vectorize", "S", "run an innermost scope as vector code (flag v)",
	  DOJO_FLAG_VECTOR, false, annotate_check, annotate_apply,
	  annotate_inverse, NULL },
	{ "parallelize", "S", "run a scope's iterations on CPU threads "
	  "(flag p)", DOJO_FLAG_PARALLEL, false, annotate_check,
	  annotate_apply, annotate_inverse, NULL },
	{ "gpu-grid", "S", "map a scope to the GPU grid (flag g)",
	  DOJO_FLAG_GRID, true, annotate_check, annotate_apply,
	  annotate_inverse, NULL },
	{ "gpu-block", "S", "map a scope to GPU block threads (flag b)",
	  DOJO_FLAG_BLOCK, true, annotate_check, annotate_apply,
	  annotate_inverse, NULL },
	{ "gpu-warp", "S", "map a scope to the lanes of a warp (flag w)",
	  DOJO_FLAG_WARP, true, annotate_check, annotate_apply,
	  annotate_inverse, NULL },
	{ "clear", "S", "remove a scope's flag", 0, false, clear_check,
	  clear_apply, clear_inverse, NULL },
	{ "move", "B L", "change a temporary buffer's location", 0, false,
	  move_check, move_apply, move_inverse, NULL },
	{ "fold", "B d n", "store only n slots of dimension d", 0, false,
	  fold_check, fold_apply, fold_inverse, fold_values },
	{ "unfold", "B d", "store dimension d in full again", 0, false,
	  unfold_check, unfold_apply, unfold_inverse, unfold_values },
	{ "reuse", "B A", "let buffer B also back array A", 0, false,
	  reuse_check, reuse_apply, NULL, NULL },
	{ "cache", "X A L", "work on a local copy of A's box in X", 0, false,
	  cache_check, cache_apply, NULL, NULL },
	{ "hoist", "X", "move an invariant operation before its scope", 0,
	  false, hoist_check, hoist_apply, NULL, NULL },
	{ "pack", "X A P", "copy the box of A that X reads into a new buffer, "
	  "dimensions in the order P", 0, false, pack_check, pack_apply, NULL,
	  NULL },
	{ "rfactor", "S", "a reduction over S and its child scope L goes "
	  "through partial results, one per iteration of L", 0, false,
	  rfactor_check, rfactor_apply, NULL, NULL },
	{ "pad", "B d n", "store n more slots of dimension d: rows further "
	  "apart", 0, false, pad_check, pad_apply, NULL, pad_values },
	{ "permute", "B P", "store a temporary's dimensions in the order P",
	  0, false, permute_check, permute_apply, permute_inverse,
	  permute_values },
	{ "peel", "S i", "the first i iterations of a scope, then the rest, "
	  "as two scopes (not in the action set)", 0, false, peel_check,
	  peel_apply, NULL, NULL },
};
const int n_moves = sizeof moves / sizeof *moves;

int
dojo_move_count(void)
{
	return n_moves;
}

const char *
dojo_move_name(int i)
{
	return moves[i].name;
}

int
dojo_action_move_index(const struct dojo_action *a)
{
	return (int)(a->move - moves);
}

bool
dojo_move_listed(int i)
{
	return !(strchr(moves[i].args, 'i') && !moves[i].values);
}

const char *
dojo_move_synopsis(int i)
{
	static char buf[sizeof moves / sizeof *moves][48];
	static const char *const words[] = {
		['S'] = "SCOPE", ['X'] = "NODE", ['B'] = "BUFFER",
		['A'] = "ARRAY", ['f'] = "FACTOR", ['k'] = "POSITION",
		['d'] = "DIM", ['n'] = "SLOTS", ['L'] = "LOCATION",
		['P'] = "ORDER", ['i'] = "ITERATIONS",
	};
	const char *p;
	size_t n;

	if (!buf[i][0]) {
		n = snprintf(buf[i], sizeof buf[i], "%s", moves[i].name);
		for (p = moves[i].args; *p; p++)
			if (*p != ' ')
				n += snprintf(buf[i] + n, sizeof buf[i] - n,
				    " %s", words[(unsigned char)*p]);
	}
	return buf[i];
}

const char *
dojo_move_help(int i)
{
	return moves[i].help;
}

dojo_legality *
dojo_legality_new(dojo_program *prog, const struct dojo_machine *machine)
{
	dojo_legality *mv;

	if (!machine)	/* a target that was not found: its error stands */
		return NULL;
	mv = calloc(1, sizeof *mv);
	if (!mv) {
		dojo_error_set("out of memory");
		return NULL;
	}
	mv->prog = dojo_program_copy(prog);
	mv->machine = machine;
	return mv;
}

void
dojo_legality_free(dojo_legality *mv)
{
	if (!mv)
		return;
	dojo_deps_free(mv->deps);
	dojo_program_free(mv->prog);
	free(mv->recheck);
	free(mv);
}

enum dojo_result
dojo_legality_check(dojo_legality *mv, const struct dojo_action *a)
{
	char text[256], why[DOJO_ERROR_MAX];
	const char *failure;
	int rc;

	if (a->move->gpu && !mv->machine->gpu) {
		refuse(a, "GPU moves need a GPU target (--target cuda)");
		return DOJO_REFUSED;
	}
	refused = false;
	mv->last_undecided = false;
	dojo_error_clear();
	rc = a->move->check(mv, a);
	failure = mv->deps ? dojo_deps_failure(mv->deps) : NULL;
	if (!failure && rc == 0)
		return DOJO_DONE;
	if (!failure && refused)
		return DOJO_REFUSED;
	/* fail closed: isl gave no answer, or a check failed without a
	 * reason of its own (memory, an analysis of its own) */
	snprintf(why, sizeof why, "%s", failure ? failure :
	    *dojo_error_last() ? dojo_error_last() : "out of memory");
	dojo_action_format(text, sizeof text, a);
	mv->undecided = mv->last_undecided = true;
	dojo_error_set("%s: legality could not be decided: %s", text, why);
	return DOJO_FAILED;
}

bool
dojo_legality_undecided(const dojo_legality *mv)
{
	return mv->undecided;
}

dojo_program *
dojo_legality_apply_unchecked(dojo_legality *mv, const struct dojo_action *a)
{
	dojo_program *p = a->move->apply(mv, a), *named;

	if (!p && !*dojo_error_last())
		dojo_error_set("out of memory");
	/* the scopes a move made get their names */
	named = dojo_program_name_loops(p);
	dojo_program_free(p);
	return named;
}

dojo_program *
dojo_legality_apply(dojo_legality *mv, const struct dojo_action *a)
{
	if (dojo_legality_check(mv, a) != DOJO_DONE)
		return NULL;
	return dojo_legality_apply_unchecked(mv, a);
}

bool
dojo_legality_reassociates(dojo_legality *mv, const struct dojo_action *a)
{
	struct dojo_dep_query q = { 0 };
	dojo_deps *deps;

	if (a->move->check == rfactor_check)
		return true;
	if (a->move->flag == DOJO_FLAG_VECTOR && (deps = deps_of(mv))) {
		/* a vector reduction sums in lanes */
		q.kind = DOJO_DEP_CARRIED;
		q.level = a->npath - 1;
		q.src_path = q.dst_path = a->path;
		q.src_len = q.dst_len = a->npath;
		return dojo_deps_find(deps, &q) >= 0;
	}
	if (a->move->check != swap_check || !(deps = deps_of(mv)))
		return false;
	q.kind = DOJO_DEP_SWAP;
	q.level = a->npath - 1;
	q.src_path = q.dst_path = a->path;
	q.src_len = q.dst_len = a->npath;
	return dojo_deps_find(deps, &q) >= 0;
}

int
dojo_legality_inverse(struct dojo_action *out, dojo_legality *mv,
    const struct dojo_action *a)
{
	if (!a->move->inverse)
		return dojo_error_set("%s has no inverse", a->move->name);
	return a->move->inverse(out, mv, a);
}

dojo_program *
dojo_program_apply_text(dojo_program *prog, const char *text,
    const struct dojo_machine *machine)
{
	struct dojo_action a;
	dojo_legality *mv;
	dojo_program *p;

	if (dojo_action_parse_in(&a, text, prog) < 0)
		return NULL;
	mv = dojo_legality_new(prog, machine);
	if (!mv)
		return NULL;
	p = dojo_legality_apply(mv, &a);
	dojo_legality_free(mv);
	return p;
}
