/* tile.c: register tiles, compound moves for players
 *
 * A register tile (unroll-and-jam) is the move a fast matrix product
 * needs first, and the one that no player crossing one move at a time
 * finds: it takes a handful of moves that gain nothing by themselves (the
 * fissions that isolate the reduction's nest, the two splits, the swaps
 * that sink the tile's scopes below the reduction) before the moves that
 * pay (unroll, vectorize, cache the tile) become legal.  Schedulers that
 * search (Ansor's multi-level tiling sketches) start from such compound
 * structures for the same reason.
 *
 * For a reduction (an operation X[..] op= ... with a scope that does not
 * index X) in a nest of at least three scopes, a tile picks the scope "w"
 * of the written array's last, contiguous index and another scope "u"
 * that indexes it, and factors "a" and "b":
 *
 *   1. fission every scope around the nest so that the nest is perfect;
 *   2. split u by a and w by b (u = a uo + ui, w = b wo + wi);
 *   3. swap wi down to the innermost place, then ui just above it;
 *   4. unroll ui, vectorize wi, and cache the written array on the stack
 *      at the first of the reduction scopes right above ui (the tile of
 *      the array stays in a local copy through the reduction).
 *
 * Where w is not a multiple of the vector's lanes, the tiles go on with
 * peeled ones (peeled()): w's head, a multiple of the lanes, peeled
 * first and tiled.
 *
 * The factors come from the target's vector registers
 * (dojo_target_vectors): first the shapes of half the registers in
 * accumulators, a row of two vectors first (4x16 on AVX2, 8x32 with
 * AVX-512, for f32), then of a quarter, then fixed ones (see shapes()).
 *
 * Every move is a legal action of the state it is played on (the
 * environment's action set decides); a tile with a refused move in steps
 * 1-3 is not offered, one refused in step 4 ends the tile there.  The
 * result is a state of the environment reached through the intermediate
 * ones, none of them measured: what the tile is worth shows only once
 * step 4 is played, as one measurement.
 */
#include "config.h"
#include "agents/agent.h"
#include "ir/flag.h"
#include "targets/target.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The address of the scope at depth "d" of a perfect nest under the
 * top-level node "top": "top" followed by "d" zeros. */
static void
nest_address(char *out, size_t len, int top, int d)
{
	int path[DOJO_MAX_DEPTH] = { top };

	dojo_address_format(out, len, path, d + 1);
}

/* One tile being built: the state reached, its moves' texts. */
struct build {
	dojo_env *env;
	int state;
	char text[DOJO_TILE_TEXT];
	int len;
};

/* Play "move" (a printf format) at the build's state.  0, -1 (refused:
 * the tile is not offered) or -2. */
static int
play(struct build *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
play(struct build *b, const char *fmt, ...)
{
	char move[256];
	va_list ap;
	enum dojo_result r;
	int k;

	va_start(ap, fmt);
	vsnprintf(move, sizeof move, fmt, ap);
	va_end(ap);
	r = dojo_env_follow(b->env, b->state, move, &k);
	if (r != DOJO_DONE)
		return r == DOJO_REFUSED ? -1 : -2;
	b->state = k;
	b->len += snprintf(b->text + b->len, sizeof b->text - b->len,
	    "%s%s", b->len ? "; " : "", move);
	if (b->len >= (int)sizeof b->text)
		b->len = (int)sizeof b->text - 1;
	return 0;
}

/* The scopes of the operation at "path" (depth "m": its enclosing
 * scopes) that index the written array: a bit per depth into "*spatial";
 * the depth that the last index names with coefficient 1 (alone) into
 * "*w", -1 for none. */
static void
classify(dojo_node *op, int m, uint64_t *spatial, int *w)
{
	const dojo_access *lhs = dojo_op_lhs(op);
	int depth[DOJO_MAX_DEPTH], n, i, t, nidx;
	int64_t coef[DOJO_MAX_DEPTH], c;

	*spatial = 0;
	*w = -1;
	nidx = dojo_access_n_indices(lhs);
	for (i = 0; i < nidx; i++) {
		n = dojo_access_index(lhs, i, &c, depth, coef);
		for (t = 0; t < n; t++)
			if (depth[t] < m && coef[t] != 0)
				*spatial |= (uint64_t)1 << depth[t];
		if (i == nidx - 1 && n == 1 && coef[0] == 1 && depth[0] < m)
			*w = depth[0];
	}
}

/* Fissions of the scopes at depths hi - 1 down to lo - 1 of "path" (the
 * way to an operation), innermost first, until each holds only the next
 * node on the way; "path" follows the operation.  0, -1 or -2. */
static int
isolate_range(struct build *b, int *path, int hi, int lo)
{
	char addr[3 * DOJO_MAX_DEPTH];
	dojo_node *scope;
	int d, c, k, rc;

	for (d = hi; d >= lo; d--) {
		c = path[d];
		if (c > 0) {
			dojo_address_format(addr, sizeof addr, path, d);
			if ((rc = play(b, "fission %s %d", addr, c)) < 0)
				return rc;
			path[d - 1]++;
			path[d] = 0;
		}
		scope = dojo_program_lookup(dojo_env_program(b->env, b->state),
		    path, d);
		if (!scope)
			return -1;
		if (dojo_node_n_children(scope) > 1) {
			dojo_address_format(addr, sizeof addr, path, d);
			if ((rc = play(b, "fission %s 1", addr)) < 0)
				return rc;
		}
	}
	for (k = lo; k <= hi; k++)
		if (path[k] != 0)
			return -1;
	return 0;
}

/* Make the nest of the operation at path[0 .. m] perfect by fissions,
 * innermost first; "path" follows the operation.  0, -1 or -2. */
static int
isolate(struct build *b, int *path, int m)
{
	return isolate_range(b, path, m, 1);
}

/* Swap the scope labelled "label" down to depth "to" of the nest. */
static int
sink(struct build *b, int top, int *lab, int len, int label, int to)
{
	char addr[3 * DOJO_MAX_DEPTH];
	int d, t, rc;

	for (d = 0; d < len && lab[d] != label; d++)
		;
	for (; d < to; d++) {
		nest_address(addr, sizeof addr, top, d);
		if ((rc = play(b, "swap %s", addr)) < 0)
			return rc;
		t = lab[d];
		lab[d] = lab[d + 1];
		lab[d + 1] = t;
	}
	return 0;
}

/* The split of the scope labelled "label" by "f": the label becomes the
 * outer scope's, "inner" the inner one's. */
static int
split(struct build *b, int top, int *lab, int *len, int label, int f,
    int inner)
{
	char addr[3 * DOJO_MAX_DEPTH];
	int d, rc;

	for (d = 0; d < *len && lab[d] != label; d++)
		;
	nest_address(addr, sizeof addr, top, d);
	if ((rc = play(b, "split %s %d", addr, f)) < 0)
		return rc;
	memmove(lab + d + 2, lab + d + 1, (*len - d - 1) * sizeof *lab);
	lab[d + 1] = inner;
	(*len)++;
	return 0;
}

#define SHORT 4		/* a reduction scope unrolled in a tile, at most */

/* The register tile's last moves: the inner scope of u unrolled, that
 * of w a vector, and the written array "array" cached on the stack over
 * the reduction scopes right above them (its tile stays in a local copy
 * through the whole reduction); the reduction scopes of at most SHORT
 * iterations right above ui unrolled as well.  Each move is played only
 * when the previous ones were; 0 or -2. */
static int
finish(struct build *b, int top, const int *lab, int len, int m,
    uint64_t spatial, const char *array, int store)
{
	char addr[3 * DOJO_MAX_DEPTH], order[4 * DOJO_MAX_DIMS];
	dojo_program *prog;
	int x, rc, nb, nd, d, k;

	nest_address(addr, sizeof addr, top, len - 2);
	if ((rc = play(b, "unroll %s", addr)) < 0)
		return rc == -1 ? 0 : rc;
	nest_address(addr, sizeof addr, top, len - 1);
	if ((rc = play(b, "vectorize %s", addr)) < 0)
		return rc == -1 ? 0 : rc;
	/* the short reduction scopes right above ui (a convolution's taps)
	 * unrolled too: the tile's rows then run as one block of FMAs */
	for (x = len - 3; x >= 0 && lab[x] < m &&
	    !(spatial & ((uint64_t)1 << lab[x])); x--) {
		int path[DOJO_MAX_DEPTH] = { top };
		dojo_node *n = dojo_program_lookup(dojo_env_program(b->env,
		    b->state), path, x + 1);

		if (!n || dojo_node_size(n) > SHORT)
			break;
		nest_address(addr, sizeof addr, top, x);
		if ((rc = play(b, "unroll %s", addr)) < 0)
			break;
	}
	if (rc == -2)
		return rc;
	for (x = len - 2; x > 0 && lab[x - 1] < m &&
	    !(spatial & ((uint64_t)1 << lab[x - 1])); x--)
		;
	if (x == len - 2)
		return 0;
	nest_address(addr, sizeof addr, top, x);
	rc = play(b, "cache %s %s stack", addr, array);
	if (rc < 0 || store < 0)
		return rc == -1 ? 0 : rc;
	/* the vector runs along dimension "store" of the array: its copy
	 * (the buffer the cache declared last) stores that dimension last */
	prog = dojo_env_program(b->env, b->state);
	nb = dojo_program_n_buffers(prog) - 1;
	nd = dojo_buffer_ndim(prog, nb);
	if (store >= nd - 1)
		return 0;
	for (d = 0, k = 0; d < nd; d++)
		if (d != store)
			k += snprintf(order + k, sizeof order - k, "%d,", d);
	snprintf(order + k, sizeof order - k, "%d", store);
	rc = play(b, "permute %s %s", dojo_buffer_name(prog, nb), order);
	return rc == -1 ? 0 : rc;
}

/* Swap the scope labelled "label" up to just above the one labelled
 * "above" of the nest (nothing when it is above it already). */
static int
raise_above(struct build *b, int top, int *lab, int len, int label,
    int above)
{
	char addr[3 * DOJO_MAX_DEPTH];
	int d, e, t, rc;

	for (d = 0; d < len && lab[d] != label; d++)
		;
	for (e = 0; e < len && lab[e] != above; e++)
		;
	for (; d > e && d < len; d--) {
		nest_address(addr, sizeof addr, top, d - 1);
		if ((rc = play(b, "swap %s", addr)) < 0)
			return rc;
		t = lab[d];
		lab[d] = lab[d - 1];
		lab[d - 1] = t;
	}
	return 0;
}

/* The address of the node at depth "d" of "path" (its first d + 1
 * entries). */
static void
addr_of(char *out, size_t len, const int *path, int d)
{
	dojo_address_format(out, len, path, d + 1);
}

/* The node at depth "d" of "path" at the build's state, NULL if none. */
static dojo_node *
node_at(struct build *b, const int *path, int d)
{
	return dojo_program_lookup(dojo_env_program(b->env, b->state), path,
	    d + 1);
}

/* The flags of the nest's scopes that do not index the written array
 * ("spatial": a vector along the reduction, a move that a climb may
 * have made first) cleared: the tile's vector is wi.  0, -1 or -2. */
static int
unflag(struct build *b, const int *path, int m, uint64_t spatial)
{
	char addr[3 * DOJO_MAX_DEPTH];
	dojo_node *n;
	int d, rc;

	for (d = 0; d < m; d++) {
		n = node_at(b, path, d);
		if (!n || dojo_node_flag(n) == 0 ||
		    (spatial & ((uint64_t)1 << d)))
			continue;
		addr_of(addr, sizeof addr, path, d);
		if ((rc = play(b, "clear %s", addr)) < 0)
			return rc;
	}
	return 0;
}

/* The tile (u, a) x (w, b) of the operation at path[0 .. m] of "state",
 * which writes "array" and whose scopes "spatial" index it: its end
 * state, -1 when a move of its nest is refused, -2 on an error.  With
 * "columns", the blocks of w run outside those of u (the order of a
 * matrix library's kernel, whose panel of B then serves every block of
 * rows: panels_of).  With "store" >= 0 (the dimension of the array that
 * w indexes, not its last), the cached tile stores that dimension last
 * (permute), so that the vector is contiguous in it. */
static int
tile(dojo_env *env, int state, const int *opath, int m, uint64_t spatial,
    const char *array, int u, int a, int w, int bf, bool columns,
    int store, char *text)
{
	struct build b = { env, state, "", 0 };
	int path[DOJO_MAX_DEPTH], lab[DOJO_MAX_DEPTH], len = m, d, rc;

	memcpy(path, opath, (m + 1) * sizeof *path);
	if ((rc = unflag(&b, path, m, spatial)) < 0 ||
	    (rc = isolate(&b, path, m)) < 0)
		return rc;
	for (d = 0; d < m; d++)
		lab[d] = d;
	/* the inner scopes are labelled m (of u) and m + 1 (of w) */
	if ((rc = split(&b, path[0], lab, &len, u, a, m)) < 0 ||
	    (rc = split(&b, path[0], lab, &len, w, bf, m + 1)) < 0 ||
	    (columns && (rc = raise_above(&b, path[0], lab, len, w, u)) < 0) ||
	    (rc = sink(&b, path[0], lab, len, m + 1, len - 1)) < 0 ||
	    (rc = sink(&b, path[0], lab, len, m, len - 2)) < 0 ||
	    (rc = finish(&b, path[0], lab, len, m, spatial, array,
	    store)) < 0)
		return rc;
	memcpy(text, b.text, sizeof b.text);
	return b.state;
}

/* "swap" of the scope at depth "d" of "path" and its only child. */
static int
swap_at(struct build *b, const int *path, int d)
{
	char addr[3 * DOJO_MAX_DEPTH];

	addr_of(addr, sizeof addr, path, d);
	return play(b, "swap %s", addr);
}

/* Fissions under the scope at depth "d" of "path" until each of its
 * children holds one scope (or node) that holds one node.  0, -1 or -2. */
static int
separate(struct build *b, int *path, int d)
{
	char addr[3 * DOJO_MAX_DEPTH];
	dojo_node *p, *ui, *wi;
	int x, j, rc;

	for (x = 0; (p = node_at(b, path, d)) &&
	    x < dojo_node_n_children(p); x++) {
		path[d + 1] = x;
		if (dojo_node_kind(dojo_node_child(p, x)) != DOJO_SCOPE)
			continue;
		for (j = 0; (ui = node_at(b, path, d + 1)) &&
		    j < dojo_node_n_children(ui); j++) {
			path[d + 2] = j;
			wi = dojo_node_child(ui, j);
			if (dojo_node_kind(wi) != DOJO_SCOPE ||
			    dojo_node_n_children(wi) < 2)
				continue;
			addr_of(addr, sizeof addr, path, d + 2);
			if ((rc = play(b, "fission %s 1", addr)) < 0)
				return rc;
		}
		ui = node_at(b, path, d + 1);
		if (ui && dojo_node_n_children(ui) > 1) {
			addr_of(addr, sizeof addr, path, d + 1);
			if ((rc = play(b, "fission %s 1", addr)) < 0)
				return rc;
		}
	}
	return 0;
}

/* The register tile of one nest "ui | wi | ..." at depth "d" of "path":
 * the scopes below wi (a chain, the reduction's) raised above ui and wi,
 * then ui unrolled, wi a vector, and the reduction's scopes of at most
 * SHORT iterations right above them unrolled (at most 256 copies).  A
 * nest of another shape is left as it is; so is one whose swap is
 * refused.  0 or -2. */
#define SHORT 4		/* a reduction scope unrolled in a tile, at most */

static int
registers(struct build *b, int *path, int d)
{
	char addr[3 * DOJO_MAX_DEPTH];
	dojo_node *n = node_at(b, path, d);
	int r = 0, k, rc;
	int64_t copies;

	if (!n || dojo_node_kind(n) != DOJO_SCOPE ||
	    dojo_node_n_children(n) != 1)
		return 0;
	n = dojo_node_child(n, 0);
	if (dojo_node_kind(n) != DOJO_SCOPE || dojo_node_n_children(n) != 1)
		return 0;
	for (n = dojo_node_child(n, 0); dojo_node_kind(n) == DOJO_SCOPE &&
	    dojo_node_n_children(n) == 1 && d + r + 2 < DOJO_MAX_DEPTH;
	    n = dojo_node_child(n, 0))
		r++;
	if (dojo_node_kind(n) != DOJO_OP)
		return 0;
	for (k = d + 1; k <= d + r + 1; k++)
		path[k] = 0;
	for (k = 0; k < r; k++)
		if ((rc = swap_at(b, path, d + 1 + k)) < 0)
			return rc == -2 ? -2 : 0;
	for (k = 0; k < r; k++)
		if ((rc = swap_at(b, path, d + k)) < 0)
			return rc == -2 ? -2 : 0;
	addr_of(addr, sizeof addr, path, d + r);
	if ((rc = play(b, "unroll %s", addr)) < 0)
		return rc == -2 ? -2 : 0;
	addr_of(addr, sizeof addr, path, d + r + 1);
	if ((rc = play(b, "vectorize %s", addr)) < 0)
		return rc == -2 ? -2 : 0;
	/* the short reduction scopes right above, unrolled (a 3x3
	 * window: 1.03x [1.03, 1.04] on conv2d's tile) */
	n = node_at(b, path, d + r);
	copies = n ? dojo_node_size(n) : 256;
	for (k = d + r - 1; k >= d; k--) {
		n = node_at(b, path, k);
		if (!n || dojo_node_size(n) > SHORT ||
		    copies * dojo_node_size(n) > 256)
			break;
		addr_of(addr, sizeof addr, path, k);
		if ((rc = play(b, "unroll %s", addr)) < 0)
			return rc == -2 ? -2 : 0;
		copies *= dojo_node_size(n);
	}
	return 0;
}

/* Whether a dimension of buffer "i" is folded. */
static bool
folded(dojo_program *prog, int i)
{
	int d;

	for (d = 0; d < dojo_buffer_ndim(prog, i); d++)
		if (dojo_buffer_fold(prog, i, d))
			return true;
	return false;
}

/* The temporaries (buffers neither read nor written outside) folded to
 * "a" in a dimension where that is legal, as a block of rows allows
 * (each row produced and used within one block: the block's rows are all
 * that must live at once), then moved to the stack when at most 64 KiB.
 * 0 or -2. */
static int
contract(struct build *b, int a)
{
	dojo_program *prog = dojo_env_program(b->env, b->state);
	int nb = dojo_program_n_buffers(prog), i, d, nd, rc;
	int64_t bytes;

	for (i = 0; i < nb; i++) {
		prog = dojo_env_program(b->env, b->state);
		if (dojo_buffer_role(prog, i) != DOJO_TEMP ||
		    dojo_buffer_loc(prog, i) != DOJO_HEAP)
			continue;
		if (folded(prog, i))
			continue;
		nd = dojo_buffer_ndim(prog, i);
		for (d = 0, rc = -1; d < nd && rc == -1; d++)
			if (a < dojo_buffer_extent(prog, i, d))
				rc = play(b, "fold %s %d %d",
				    dojo_buffer_name(prog, i), d, a);
		if (rc == -2)
			return -2;
		if (rc < 0)
			continue;
		prog = dojo_env_program(b->env, b->state);
		bytes = (int64_t)(dojo_dtype_size(dojo_buffer_dtype(prog, i)) *
		    dojo_buffer_elements(prog, i));
		if (bytes <= 65536 && play(b, "move %s stack",
		    dojo_buffer_name(prog, i)) == -2)
			return -2;
	}
	return 0;
}

/* The buffer of "array", folded by an earlier tile (contract()), made
 * whole again on the heap, so that it can be cached (contract() folds
 * it again at the end).  0, -1 or -2. */
static int
unfold(struct build *b, const char *array)
{
	dojo_program *prog = dojo_env_program(b->env, b->state);
	int k = dojo_program_find_array(prog, array), i, d, rc;
	const char *name;

	if (k < 0)
		return -1;
	i = dojo_array_buffer(prog, k);
	name = dojo_buffer_name(prog, i);
	if (!folded(prog, i))
		return 0;
	if (dojo_buffer_loc(prog, i) != DOJO_HEAP &&
	    (rc = play(b, "move %s heap", name)) < 0)
		return rc;
	for (d = 0; d < dojo_buffer_ndim(prog, i); d++) {
		prog = dojo_env_program(b->env, b->state);
		if (dojo_buffer_fold(prog, i, d) &&
		    (rc = play(b, "unfold %s %d", name, d)) < 0)
			return rc;
	}
	return 0;
}

/* The tile (u, a) x (w, b) of the operation at opath[0 .. m] of "state",
 * written into "array", that keeps its neighbours (the other statements
 * of its scopes, such as an initialization, a bias or an activation, and
 * the other nests of a block of rows):
 *
 *   1. split u by a (none when a is all of u: u is a block already);
 *   2. fission the scopes from u's inner scope ui down to w, each around
 *      the next only (ui's other children stay in the block, beside it);
 *   3. split w by b, sink ui below the scopes between it and w and
 *      below wo (the order of the other scopes is kept; with "columns",
 *      wo is then raised above them and u's outer scope);
 *   4. cache the array at ui on the stack, then each nest of the tile
 *      (copy in, initialization, reduction, epilogue, copy out) apart,
 *      the reduction's scopes above ui and wi, ui unrolled, wi a vector;
 *   5. fold the temporaries to the block of rows (contract()).
 *
 * This is how examples/mlp.avx2.actions keeps bias and ReLU in the
 * registers of the tile, and how examples/attention.avx2.actions keeps
 * S and P to eight rows.  Its end state, -1 when a move of steps 1-4 is
 * refused, -2 on an error. */
static int
fused(dojo_env *env, int state, const int *opath, int m, uint64_t spatial,
    const char *array, int u, int a, int w, int bf, bool columns,
    char *text)
{
	struct build b = { env, state, "", 0 };
	int path[DOJO_MAX_DEPTH], ud = u, wd = w, d, x, rc;
	char addr[3 * DOJO_MAX_DEPTH];
	dojo_node *n;

	if (u >= w || m + 3 >= DOJO_MAX_DEPTH)
		return -1;
	memcpy(path, opath, (m + 1) * sizeof *path);
	if ((rc = unflag(&b, path, m, spatial)) < 0 ||
	    (rc = unfold(&b, array)) < 0)
		return rc;
	if (!(n = node_at(&b, path, u)))
		return -1;
	if (a < dojo_node_size(n)) {
		addr_of(addr, sizeof addr, path, u);
		if ((rc = play(&b, "split %s %d", addr, a)) < 0)
			return rc;
		memmove(path + u + 2, path + u + 1, (m - u) * sizeof *path);
		path[u + 1] = 0;
		m++;
		ud++;
		wd++;
	} else if (columns) {
		return -1;
	}
	if ((rc = isolate_range(&b, path, wd, ud + 1)) < 0)
		return rc;
	addr_of(addr, sizeof addr, path, wd);
	if ((rc = play(&b, "split %s %d", addr, bf)) < 0)
		return rc;
	memmove(path + wd + 2, path + wd + 1, (m - wd) * sizeof *path);
	path[wd + 1] = 0;
	/* ui below the scopes between it and w, then below wo */
	for (d = ud; d < wd; d++)
		if ((rc = swap_at(&b, path, d)) < 0)
			return rc;
	/* wo above those scopes and uo */
	for (d = wd - 2; columns && d >= ud - 1; d--)
		if ((rc = swap_at(&b, path, d)) < 0)
			return rc;
	addr_of(addr, sizeof addr, path, wd);
	if ((rc = play(&b, "cache %s %s stack", addr, array)) < 0)
		return rc;
	if ((rc = separate(&b, path, wd - 1)) == -2)
		return -2;
	for (x = 0; (n = node_at(&b, path, wd - 1)) &&
	    x < dojo_node_n_children(n); x++) {
		path[wd] = x;
		if (registers(&b, path, wd) < 0)
			return -2;
	}
	if (contract(&b, a) < 0)
		return -2;
	memcpy(text, b.text, sizeof b.text);
	return b.state;
}

#define SHAPES 4		/* tiles of one pair of scopes, at most */

/* The shapes (a, b) of the tiles of a u of "us" and a w of "ws"
 * iterations, best first, at most SHAPES into "out", for elements of
 * "elem" bytes in "regs" vector registers of "bytes": their count.  First
 * those of regs / 2 accumulators (the other half holds the loaded
 * vectors and broadcasts; 8 on AVX2, 16 with AVX-512, enough independent
 * FMAs to cover their latency), then of regs / 4, each with two vectors
 * a row first, then one, then four: two vectors a row load 2 vectors and
 * broadcast regs / 4 elements a step (4x16 on AVX2: 6 loads for 8
 * FMAs), one vector a row 1 and regs / 2 (8x8: 9 for 8); the code
 * generator keeps each loaded vector in a register (codegen 7, tuned
 * generic: GCC tuned for AMD Zen folds it into each FMA as a memory
 * operand).  On AVX2, 4x16 is 1.18x 8x8 on the 512 matmul, 1.25x on
 * mlp.  Where such a count of rows does not divide u, the largest
 * that does, down to three quarters of it, follows it (14 rows of 16
 * lanes over 56 columns: conv2d's channel tile, channel_tiles()).
 * Then fixed ones (rows by 4, 8, 2; columns by 16,
 * 8, 4, 2) for a machine of no vectors.  Each factor divides its scope
 * and is smaller; with "whole", that of u may be all of it (a scope of
 * rows that is a block already: fused()). */
static int
shapes(int64_t us, int64_t ws, int elem, int bytes, int regs, bool whole,
    int out[SHAPES][2])
{
	static const int u_fixed[] = { 4, 8, 2 }, w_fixed[] = { 16, 8, 4, 2 };
	static const int vecs[] = { 2, 1, 4 };
	int cand[64][2], nc = 0, n = 0, lanes = bytes / elem, acc, v, i, j;

	for (acc = regs / 2; lanes > 0 && acc >= 2 && acc >= regs / 4;
	    acc /= 2)
		for (i = 0; i < 3; i++) {
			v = vecs[i];
			if (acc / v < 2)
				continue;
			cand[nc][0] = acc / v;
			cand[nc++][1] = v * lanes;
			/* rows that do not divide u: the most that do,
			 * down to three quarters (14 of 56 for 16) */
			for (j = acc / v - 1; us % (acc / v) &&
			    4 * j >= 3 * (acc / v); j--)
				if (us % j == 0) {
					cand[nc][0] = j;
					cand[nc++][1] = v * lanes;
					break;
				}
		}
	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++) {
			cand[nc][0] = u_fixed[i];
			cand[nc++][1] = w_fixed[j];
		}
	for (i = 0; i < nc && n < SHAPES; i++) {
		int a = cand[i][0], b = cand[i][1], k;

		if (a < 2 || b < 2 || us % a || a > us || (a == us && !whole) ||
		    ws % b || b >= ws)
			continue;
		for (k = 0; k < n && (out[k][0] != a || out[k][1] != b); k++)
			;
		if (k == n) {
			out[n][0] = a;
			out[n++][1] = b;
		}
	}
	return n;
}

struct walk {
	dojo_env *env;
	int state;
	struct dojo_tile *out;
	int max, n;
	int bytes, regs;		/* the target's vector registers */
	bool panels;			/* the panels only (no tiles) */
	int path[DOJO_MAX_DEPTH];
	dojo_node *scopes[DOJO_MAX_DEPTH];
};

/* Whether the nest already looks tiled: a scope that indexes the
 * written array is unrolled or vectorized (a vector along the reduction
 * is cleared by the tile: unflag()), or w is innermost, at most 32 long
 * (a strip already) and below a reduction scope. */
static bool
tiled(struct walk *wk, int m, uint64_t spatial, int w)
{
	int d;

	for (d = 0; d < m; d++)
		if ((dojo_node_flag(wk->scopes[d]) == DOJO_FLAG_UNROLL ||
		    dojo_node_flag(wk->scopes[d]) == DOJO_FLAG_VECTOR) &&
		    (spatial & ((uint64_t)1 << d)))
			return true;
	return w == m - 1 && dojo_node_size(wk->scopes[w]) <= 32 &&
	    (~spatial & (((uint64_t)1 << w) - 1)) != 0;
}

/* The arrays read by "e" into "out" (each once), their count. */
static int
reads_of(const dojo_expr *e, const dojo_access **out, int n, int max)
{
	int i, k;

	switch (dojo_expr_kind(e)) {
	case DOJO_E_NUM:
		return n;
	case DOJO_E_ACCESS:
		for (k = 0; k < n && dojo_access_array(out[k]) !=
		    dojo_access_array(dojo_expr_access(e)); k++)
			;
		if (k == n && n < max)
			out[n++] = dojo_expr_access(e);
		return n;
	case DOJO_E_NEG:
		return reads_of(dojo_expr_arg(e, 0), out, n, max);
	case DOJO_E_CALL:
		for (i = 0; i < 2 && dojo_expr_arg(e, i); i++)
			n = reads_of(dojo_expr_arg(e, i), out, n, max);
		return n;
	default:
		n = reads_of(dojo_expr_arg(e, 0), out, n, max);
		return reads_of(dojo_expr_arg(e, 1), out, n, max);
	}
}

/* The depths whose iterators index "acc", a bit each; the dimension
 * that the depth "v" indexes into "*vdim", else the one that "u" does
 * (-1: none). */
static uint64_t
indexed_by(const dojo_access *acc, int v, int u, int *vdim)
{
	int udim = -1;

	int depth[DOJO_MAX_DEPTH], n, i, t;
	int64_t coef[DOJO_MAX_DEPTH], c;
	uint64_t bits = 0;

	*vdim = -1;
	for (i = 0; i < dojo_access_n_indices(acc); i++) {
		n = dojo_access_index(acc, i, &c, depth, coef);
		for (t = 0; t < n; t++)
			if (coef[t] != 0) {
				bits |= (uint64_t)1 << depth[t];
				if (depth[t] == v)
					*vdim = i;
				if (depth[t] == u)
					udim = i;
			}
	}
	if (*vdim < 0)
		*vdim = udim;
	return bits;
}

/* The panels of a register tile (the operation at the walk's path, depth
 * "m", its two innermost scopes unrolled and a vector): for each array R
 * it reads, the packing of a matrix library's kernel.  The scopes at the
 * top of the nest that each hold only the next (they may be swapped) are
 * ordered so that those indexing R come first (swaps), R is packed at
 * the first that does not index it (its box, a panel of R, is then used
 * by every iteration of that scope and those below it), with the
 * dimension the vector scope indexes last (contiguous vectors; else the
 * one the unrolled scope indexes: a step's broadcasts side by side), and
 * the
 * copy's innermost scope vectorized.  On the 512 matmul after the 8x8
 * tile (i/8, j/8, k, i%8, j%8): "swap 1; pack 1.0 B 0,1; vectorize
 * 1.0.0", a 512x8 panel of B for each column block, read row by row
 * as in examples/matmul.actions.  Into wk->out; 0 or -1. */
static int
panels_of(struct walk *wk, dojo_node *op, int m)
{
	dojo_program *prog = dojo_env_program(wk->env, wk->state);
	const dojo_access *reads[8];
	char addr[3 * DOJO_MAX_DEPTH], order[4 * DOJO_MAX_DIMS];
	char copy[3 * DOJO_MAX_DEPTH];
	int nr, r, len, d, p, vdim, nd, k, rc, lab[DOJO_MAX_DEPTH];
	uint64_t bits;

	if (m < 3 || dojo_op_update(op) == DOJO_SET ||
	    dojo_node_flag(wk->scopes[m - 1]) != DOJO_FLAG_VECTOR ||
	    dojo_node_flag(wk->scopes[m - 2]) != DOJO_FLAG_UNROLL)
		return 0;
	/* the top of the nest: each scope holds only the next one */
	for (len = 1; len < m - 2 &&
	    dojo_node_n_children(wk->scopes[len - 1]) == 1; len++)
		;
	nr = reads_of(dojo_op_rhs(op), reads, 0, 8);
	for (r = 0; r < nr && wk->n < wk->max; r++) {
		struct build b = { wk->env, wk->state, "", 0 };
		const char *name = dojo_array_name(prog,
		    dojo_access_array(reads[r]));
		int swapped;

		rc = 0;
		if (dojo_access_array(reads[r]) ==
		    dojo_access_array(dojo_op_lhs(op)))
			continue;
		bits = indexed_by(reads[r], m - 1, m - 2, &vdim);
		for (d = 0; d < len; d++)
			lab[d] = (bits >> d) & 1;
		/* those indexing R first, by swaps of neighbours */
		do {
			swapped = 0;
			for (d = 0; d + 1 < len; d++) {
				if (lab[d] || !lab[d + 1])
					continue;
				nest_address(addr, sizeof addr, wk->path[0], d);
				if ((rc = play(&b, "swap %s", addr)) == -2)
					return -1;
				if (rc < 0)
					break;
				lab[d] = 1;
				lab[d + 1] = 0;
				swapped = 1;
			}
		} while (swapped && rc == 0);
		if (rc < 0)
			continue;
		for (p = 0; p < len && lab[p]; p++)
			;
		nd = dojo_access_n_indices(reads[r]);
		if (p == len || (p == 0 && (vdim < 0 || vdim == nd - 1)))
			continue;	/* no reuse, or all of R as it is */
		for (d = 0, k = 0; d < nd; d++)
			if (d != vdim)
				k += snprintf(order + k, sizeof order - k,
				    "%s%d", k ? "," : "", d);
		if (vdim >= 0)
			snprintf(order + k, sizeof order - k, "%s%d",
			    k ? "," : "", vdim);
		nest_address(addr, sizeof addr, wk->path[0], p);
		if ((rc = play(&b, "pack %s %s %s", addr, name, order)) ==
		    -2)
			return -1;
		if (rc < 0)
			continue;
		/* the copy nest, now in that scope's place: its
		 * innermost scope */
		nest_address(copy, sizeof copy, wk->path[0], p);
		for (d = 1; d < nd; d++)
			strncat(copy, ".0", sizeof copy - strlen(copy) - 1);
		if ((rc = play(&b, "vectorize %s", copy)) == -2)
			return -1;
		wk->out[wk->n].state = b.state;
		memcpy(wk->out[wk->n].text, b.text, sizeof b.text);
		wk->n++;
	}
	return 0;
}

static int walk_nodes(struct walk *wk, dojo_node *node, int m);

/* Whether "state" is among the walk's tiles already. */
static bool
offered(const struct walk *wk, int state)
{
	int i;

	for (i = 0; i < wk->n; i++)
		if (wk->out[i].state == state)
			return true;
	return false;
}

/* The tiled state "k" reached by the moves "text" followed by each panel
 * it allows (panels_of), one compound move each into wk->out; with
 * "self", the state "k" first.  0 or -1. */
static int
add_panels(struct walk *wk, int k, const char *text, bool self)
{
	struct dojo_tile panels[4];
	struct walk sub;
	dojo_program *prog;
	int i;

	if (k == wk->state || offered(wk, k))
		return 0;
	if (self && wk->n < wk->max) {
		wk->out[wk->n].state = k;
		memcpy(wk->out[wk->n].text, text, DOJO_TILE_TEXT);
		wk->n++;
	}
	sub = *wk;
	sub.state = k;
	sub.out = panels;
	sub.max = 4;
	sub.n = 0;
	sub.panels = true;
	prog = dojo_env_program(wk->env, k);
	for (i = 0; i < dojo_program_n_children(prog) && sub.n < sub.max;
	    i++) {
		sub.path[0] = i;
		if (walk_nodes(&sub, dojo_program_child(prog, i), 0) < 0)
			return -1;
	}
	for (i = 0; i < sub.n && wk->n < wk->max; i++) {
		struct dojo_tile *t = &wk->out[wk->n];
		size_t lt = strlen(text), lp = strlen(panels[i].text);

		if (lt + lp + 2 >= sizeof t->text || offered(wk,
		    panels[i].state))
			continue;
		t->state = panels[i].state;
		memcpy(t->text, text, lt);
		memcpy(t->text + lt, "; ", 2);
		memcpy(t->text + lt + 2, panels[i].text, lp + 1);
		wk->n++;
	}
	return 0;
}

/* The tile (u, a) x (w, b) of the walk's operation with the blocks of w
 * outside those of u, followed by each panel it allows.  0 or -1. */
static int
with_panels(struct walk *wk, int m, uint64_t spatial, const char *array,
    int u, int a, int w, int bf)
{
	char text[DOJO_TILE_TEXT];
	int k;

	k = tile(wk->env, wk->state, wk->path, m, spatial, array, u, a, w,
	    bf, true, -1, text);
	if (k == -2)
		return -1;
	return k < 0 ? 0 : add_panels(wk, k, text, false);
}

/* The tiles that keep their neighbours (fused()) of the walk's
 * operation, rows outside (unless "only_columns") then columns outside,
 * each followed by the panels it allows.  0 or -1. */
static int
with_neighbours(struct walk *wk, int m, uint64_t spatial, const char *array,
    int u, int a, int w, int bf, bool only_columns)
{
	char text[DOJO_TILE_TEXT];
	int k, columns;

	for (columns = only_columns; columns < 2 && wk->n < wk->max;
	    columns++) {
		k = fused(wk->env, wk->state, wk->path, m, spatial, array, u,
		    a, w, bf, columns, text);
		if (k == -2)
			return -1;
		if (k >= 0 && add_panels(wk, k, text, true) < 0)
			return -1;
	}
	return 0;
}

/* Whether "e" reads an array with the iterator of depth "v" in an index
 * of other terms too (a window, h + r): no copy makes v's elements of it
 * contiguous. */
static bool
read_shifted(const dojo_expr *e, int v)
{
	const dojo_access *acc;
	int depth[DOJO_MAX_DEPTH], n, i, t;
	int64_t coef[DOJO_MAX_DEPTH], c;

	switch (dojo_expr_kind(e)) {
	case DOJO_E_NUM:
		return false;
	case DOJO_E_ACCESS:
		acc = dojo_expr_access(e);
		for (i = 0; i < dojo_access_n_indices(acc); i++) {
			n = dojo_access_index(acc, i, &c, depth, coef);
			for (t = 0; t < n; t++)
				if (depth[t] == v && coef[t] != 0 &&
				    (n > 1 || coef[t] != 1))
					return true;
		}
		return false;
	case DOJO_E_NEG:
		return read_shifted(dojo_expr_arg(e, 0), v);
	case DOJO_E_CALL:
		for (i = 0; i < 2 && dojo_expr_arg(e, i); i++)
			if (read_shifted(dojo_expr_arg(e, i), v))
				return true;
		return false;
	default:
		return read_shifted(dojo_expr_arg(e, 0), v) ||
		    read_shifted(dojo_expr_arg(e, 1), v);
	}
}

/* The dimension of the written array that the scope at depth "v"
 * indexes alone ({v}, coefficient 1), other than the last: -1 if
 * none. */
static int
alone_dim(dojo_node *op, int v)
{
	const dojo_access *lhs = dojo_op_lhs(op);
	int depth[DOJO_MAX_DEPTH], n, i;
	int64_t coef[DOJO_MAX_DEPTH], c;

	for (i = 0; i + 1 < dojo_access_n_indices(lhs); i++) {
		n = dojo_access_index(lhs, i, &c, depth, coef);
		if (n == 1 && depth[0] == v && coef[0] == 1)
			return i;
	}
	return -1;
}

/* The channel tiles of the reduction at the walk's path (depth "m"),
 * whose written array's last index is walked by the scope at depth "w":
 * the vector runs along another dimension of the array, that a scope
 * "v" indexes alone (the output channels of a convolution, y[n, o, h,
 * q]) and that every read indexes alone or not at all, and w's inner
 * scope is unrolled (a row of pixels).  The tile stores its copy with
 * v's dimension last (permute), and the panels that follow pack the
 * arrays read along v with it last (the weights, w[o, c, r, s] as
 * [c, r, s, o]).  Where the columns are not a multiple of the vector
 * (56 columns of 16 lanes), vectors along them waste lanes where those
 * along the channels do not: only there are these tiles offered, before
 * the others (tiles_of).  The first two shapes of each such v, each
 * with the panels that follow it (the tile alone reads the weights
 * across their rows: not offered).  0 or -1. */
static int
channel_tiles(struct walk *wk, dojo_node *op, int m, uint64_t spatial,
    const char *array, int w, int elem)
{
	char text[DOJO_TILE_TEXT];
	int v, d, ab[SHAPES][2], n, i, k;

	for (v = 0; v < m && wk->n < wk->max; v++) {
		if (v == w || !(spatial & ((uint64_t)1 << v)) ||
		    (d = alone_dim(op, v)) < 0 ||
		    read_shifted(dojo_op_rhs(op), v))
			continue;
		n = shapes(dojo_node_size(wk->scopes[w]),
		    dojo_node_size(wk->scopes[v]), elem, wk->bytes, wk->regs,
		    false, ab);
		for (i = 0; i < n && i < 2 && wk->n < wk->max; i++) {
			k = tile(wk->env, wk->state, wk->path, m, spatial,
			    array, w, ab[i][0], v, ab[i][1], false, d, text);
			if (k == -2)
				return -1;
			if (k >= 0 && add_panels(wk, k, text, false) < 0)
				return -1;
		}
	}
	return 0;
}

/* Whether a read of "op" walks the vector scope "w" and not "u": its
 * vector, loaded once a step, then serves every unrolled copy of the
 * tile (the row of B in a matrix product's tile whose u walks the rows
 * of C).  A tile whose u walks a batch, which every read depends on,
 * loads a vector for each multiply-add: no better than no tile. */
static bool
shares_vector(dojo_node *op, int u, int w)
{
	const dojo_access *reads[16];
	int n = reads_of(dojo_op_rhs(op), reads, 0, 16), i, vdim;
	uint64_t bits;

	for (i = 0; i < n; i++) {
		bits = indexed_by(reads[i], w, u, &vdim);
		if ((bits >> w & 1) && !(bits >> u & 1))
			return true;
	}
	return false;
}

#define PEELED 2		/* peeled tiles of one pair of scopes, at most */

/* The tiles (u, a) x (w, b) of the walk's operation on the first "head"
 * iterations of w, the largest multiple of the vector's lanes: w is
 * peeled there (peel), and the tile takes the head, the rest of the
 * columns left as they are.  Where w is not a multiple of the vector
 * (75 columns of 16 lanes), no shape divides it and no tile could be
 * offered at all (a split needs a factor that divides its scope): the
 * 100x300 by 300x75 product stopped at 3.5x the start, its j vectorized
 * with a tail of 11 in every row.  The first PEELED shapes of the head,
 * each the peel followed by the tile's moves.  0 or -1. */
static int
peeled(struct walk *wk, int m, uint64_t spatial, const char *array, int u,
    int w, int elem)
{
	struct build b = { wk->env, wk->state, "", 0 };
	char addr[3 * DOJO_MAX_DEPTH], text[DOJO_TILE_TEXT];
	int64_t ws = dojo_node_size(wk->scopes[w]);
	int lanes = wk->bytes / elem, ab[SHAPES][2], n, i, k, rc;
	int64_t head = lanes > 1 ? ws - ws % lanes : 0;

	if (head < 2 * lanes || head == ws)
		return 0;
	addr_of(addr, sizeof addr, wk->path, w);
	if ((rc = play(&b, "peel %s %lld", addr, (long long)head)) < 0)
		return rc == -1 ? 0 : -1;
	n = shapes(dojo_node_size(wk->scopes[u]), head, elem, wk->bytes,
	    wk->regs, false, ab);
	for (i = 0; i < n && i < PEELED && wk->n < wk->max; i++) {
		struct dojo_tile *t = &wk->out[wk->n];

		k = tile(wk->env, b.state, wk->path, m, spatial, array, u,
		    ab[i][0], w, ab[i][1], false, -1, text);
		if (k == -2)
			return -1;
		if (k < 0 || k == b.state || offered(wk, k) ||
		    snprintf(t->text, sizeof t->text, "%s; %s", b.text,
		    text) >= (int)sizeof t->text)
			continue;
		t->state = k;
		wk->n++;
	}
	return 0;
}

/* The tiles of the reduction at the walk's path (depth "m"). */
static int
tiles_of(struct walk *wk, dojo_node *op, int m)
{
	dojo_program *prog = dojo_env_program(wk->env, wk->state);
	uint64_t spatial;
	int w, u, ab[SHAPES][2], n, i, k, elem, lanes;
	const char *array;
	bool first, shared;

	if (m < 3 || dojo_op_update(op) == DOJO_SET)
		return 0;
	if (panels_of(wk, op, m) < 0)
		return -1;
	if (wk->panels)
		return 0;
	classify(op, m, &spatial, &w);
	if (w < 0 || spatial == ((uint64_t)1 << m) - 1 ||
	    tiled(wk, m, spatial, w))
		return 0;
	k = dojo_access_array(dojo_op_lhs(op));
	array = dojo_array_name(prog, k);
	switch (dojo_buffer_dtype(prog, dojo_array_buffer(prog, k))) {
	case DOJO_F64:
	case DOJO_I64:
		elem = 8;
		break;
	default:
		elem = 4;
	}
	/* the vectors along w would waste lanes: the channel tiles first
	 * (else none: vectors along w are as good, and the tiles are
	 * measured) */
	lanes = wk->bytes / elem;
	first = lanes > 1 && dojo_node_size(wk->scopes[w]) % lanes != 0;
	if (first && channel_tiles(wk, op, m, spatial, array, w, elem) < 0)
		return -1;
	/* where some u shares a vector, only those */
	for (u = 0, shared = false; u < m; u++)
		shared |= u != w && (spatial & ((uint64_t)1 << u)) &&
		    shares_vector(op, u, w);
	for (u = 0; u < m; u++) {
		if (u == w || !(spatial & ((uint64_t)1 << u)) ||
		    (shared && !shares_vector(op, u, w)))
			continue;
		/* the tiles that keep their neighbours: of the first shape
		 * in both orders, of the second with the columns outside
		 * (a library's order; which shape is faster depends on the
		 * caches: on Zen 5 batched_matmul's move file, a 16x16 tile,
		 * is 1.05x the same with 8x32) */
		n = u < w ? shapes(dojo_node_size(wk->scopes[u]),
		    dojo_node_size(wk->scopes[w]), elem, wk->bytes, wk->regs,
		    true, ab) : 0;
		for (i = 0; i < n && i < 2 && wk->n < wk->max; i++)
			if (with_neighbours(wk, m, spatial, array, u,
			    ab[i][0], w, ab[i][1], i > 0) < 0)
				return -1;
		n = shapes(dojo_node_size(wk->scopes[u]),
		    dojo_node_size(wk->scopes[w]), elem, wk->bytes, wk->regs,
		    false, ab);
		for (i = 0; i < n && wk->n < wk->max; i++) {
			struct dojo_tile *t = &wk->out[wk->n];

			k = tile(wk->env, wk->state, wk->path, m, spatial,
			    array, u, ab[i][0], w, ab[i][1], false, -1,
			    t->text);
			if (k == -2)
				return -1;
			if (k >= 0 && k != wk->state && !offered(wk, k)) {
				t->state = k;
				wk->n++;
			}
			/* the first two shapes also with their columns
			 * outside and the panels that order allows (which
			 * of two is faster packed depends on the caches:
			 * unpacked, a transposed operand hides it) */
			if (i < 2 && u < w && wk->n < wk->max &&
			    with_panels(wk, m, spatial, array, u, ab[i][0], w,
			    ab[i][1]) < 0)
				return -1;
		}
		/* w not a multiple of the vector: then its head peeled */
		if (first && peeled(wk, m, spatial, array, u, w, elem) < 0)
			return -1;
	}
	return 0;
}

/* Accumulators: a reduction over its innermost scope R, of a size that
 * holds 4 vectors (else 2, else 1) F times, with no tile, in vectors of
 * partial results: R isolated (fission; a flag cleared first), split by
 * F, reduced into F partial results (rfactor), each of the three nests
 * a vector, and the statements fissioned away vectorized again where R
 * was.  A softmax's row maximum and sum, a norm's mean: one vector
 * accumulator (omp simd reduction) waits on each add's latency; four
 * do not.  The split alone gains nothing and the rfactor needs it: one
 * move at a time, a climb does not find it.  Into wk->out; 0 or -1. */
static int
accumulators(struct walk *wk, dojo_node *op, int m)
{
	dojo_program *prog = dojo_env_program(wk->env, wk->state);
	struct build b = { wk->env, wk->state, "", 0 };
	dojo_node *r;
	const dojo_access *lhs = dojo_op_lhs(op);
	int path[DOJO_MAX_DEPTH], k, f, lanes, n, j, rc;
	char addr[DOJO_MAX_DEPTH * 8], next[DOJO_MAX_DEPTH * 8];
	bool vector;

	if (m < 1 || dojo_op_update(op) == DOJO_SET ||
	    (indexed_by(lhs, -1, -1, &k) >> (m - 1) & 1))
		return 0;
	k = dojo_array_buffer(prog, dojo_access_array(lhs));
	lanes = wk->bytes / (int)dojo_dtype_size(dojo_buffer_dtype(prog, k));
	r = wk->scopes[m - 1];
	for (f = 4 * lanes; f >= lanes && f > 1; f /= 2)
		if (dojo_node_size(r) % f == 0 && dojo_node_size(r) > f)
			break;
	if (f < lanes || f <= 1)
		return 0;
	memcpy(path, wk->path, (m + 1) * sizeof *path);
	dojo_address_format(addr, sizeof addr, path, m);
	vector = dojo_node_flag(r) == DOJO_FLAG_VECTOR;
	if (dojo_node_flag(r) && (rc = play(&b, "clear %s", addr)) < 0)
		return rc == -2 ? -1 : 0;
	/* R holds the operation alone: the statements before it, then
	 * those after it, in scopes of their own */
	n = dojo_node_n_children(r);
	j = path[m];
	if (j > 0) {
		if ((rc = play(&b, "fission %s %d", addr, j)) < 0)
			return rc == -2 ? -1 : 0;
		if (vector && play(&b, "vectorize %s", addr) == -2)
			return -1;
		path[m - 1]++;
		dojo_address_format(addr, sizeof addr, path, m);
	}
	if (j < n - 1) {
		if ((rc = play(&b, "fission %s 1", addr)) < 0)
			return rc == -2 ? -1 : 0;
		path[m - 1]++;
		dojo_address_format(next, sizeof next, path, m);
		path[m - 1]--;
		if (vector && play(&b, "vectorize %s", next) == -2)
			return -1;
	}
	if ((rc = play(&b, "split %s %d", addr, f)) < 0 ||
	    (rc = play(&b, "rfactor %s", addr)) < 0 ||
	    (rc = play(&b, "vectorize %s", addr)) < 0)
		return rc == -2 ? -1 : 0;
	path[m - 1]++;
	dojo_address_format(next, sizeof next, path, m);
	if ((rc = play(&b, "vectorize %s.0", next)) < 0)
		return rc == -2 ? -1 : 0;
	path[m - 1]++;
	dojo_address_format(next, sizeof next, path, m);
	if ((rc = play(&b, "vectorize %s", next)) == -2)
		return -1;
	if (b.state == wk->state || offered(wk, b.state))
		return 0;
	wk->out[wk->n].state = b.state;
	memcpy(wk->out[wk->n].text, b.text, sizeof b.text);
	wk->n++;
	return 0;
}

/* Whether an access of "op" runs along its rows with depth "d" (d in
 * its last index) and another with depth "e" (e in its last index, d in
 * another: d moves it by whole rows). */
static bool
crossed(dojo_node *op, int d, int e)
{
	const dojo_access *acc[9];
	int n = reads_of(dojo_op_rhs(op), acc, 0, 8), i, last, vdim;
	bool along_d = false, along_e = false;

	acc[n++] = dojo_op_lhs(op);
	for (i = 0; i < n; i++) {
		last = dojo_access_n_indices(acc[i]) - 1;
		if (!(indexed_by(acc[i], d, -1, &vdim) >> d & 1))
			continue;
		if (vdim == last)
			along_d = true;
		else if (indexed_by(acc[i], e, -1, &vdim) >> e & 1 &&
		    vdim == last)
			along_e = true;
	}
	return along_d && along_e;
}

/* Blocks: the two innermost scopes u and w of an operation (u holding
 * only w, w only operations, neither flagged but u on threads: the
 * split keeps that on the blocks of u) that one of its arrays
 * wants along w and another along u (a transpose, B[j, i] = A[i, j]),
 * each split by "f" and the outer half of w swapped above the inner of
 * u: f x f blocks, so that the rows of both arrays that a block touches
 * stay in the L1 cache across it.  Three moves that gain nothing alone
 * (the splits) or lose (the swap of whole rows).  f: 32, 16 and 8, of
 * those that divide both and are shorter.  Into wk->out; 0 or -1. */
static int
blocks(struct walk *wk, dojo_node *op, int m)
{
	static const int fs[] = { 32, 16, 8 };
	dojo_node *u, *w;
	char addr[3 * DOJO_MAX_DEPTH];
	int i, k, rc;

	if (m < 2)
		return 0;
	u = wk->scopes[m - 2];
	w = wk->scopes[m - 1];
	if (dojo_node_n_children(u) != 1 || (dojo_node_flag(u) &&
	    dojo_node_flag(u) != DOJO_FLAG_PARALLEL) ||
	    dojo_node_flag(w) || !crossed(op, m - 1, m - 2))
		return 0;
	for (i = 0; i < dojo_node_n_children(w); i++)
		if (dojo_node_kind(dojo_node_child(w, i)) != DOJO_OP)
			return 0;
	addr_of(addr, sizeof addr, wk->path, m - 2);
	for (k = 0; k < 3 && wk->n < wk->max; k++) {
		struct build b = { wk->env, wk->state, "", 0 };
		int f = fs[k];

		if (dojo_node_size(u) % f || dojo_node_size(w) % f ||
		    dojo_node_size(u) <= f || dojo_node_size(w) <= f)
			continue;
		if ((rc = play(&b, "split %s %d", addr, f)) == -2 ||
		    (rc == 0 && (rc = play(&b, "split %s.0.0 %d", addr,
		    f)) == -2) || (rc == 0 && (rc = play(&b, "swap %s.0",
		    addr)) == -2))
			return -1;
		if (rc < 0 || b.state == wk->state || offered(wk, b.state))
			continue;
		wk->out[wk->n].state = b.state;
		memcpy(wk->out[wk->n].text, b.text, sizeof b.text);
		wk->out[wk->n].block = true;
		wk->n++;
	}
	return 0;
}

/* The tiles of the operations under "state", at depth "m" (the path
 * to it in wk->path[0 .. m]). */
static int
walk_nodes(struct walk *wk, dojo_node *node, int m)
{
	int i;

	if (dojo_node_kind(node) == DOJO_OP) {
		i = wk->n;
		if (tiles_of(wk, node, m) < 0)
			return -1;
		if (wk->n == i && !wk->panels && wk->n < wk->max &&
		    accumulators(wk, node, m) < 0)
			return -1;
		return wk->n == i && !wk->panels ? blocks(wk, node, m) : 0;
	}
	if (m + 1 >= DOJO_MAX_DEPTH)
		return 0;
	wk->scopes[m] = node;
	for (i = 0; i < dojo_node_n_children(node) && wk->n < wk->max; i++) {
		wk->path[m + 1] = i;
		if (walk_nodes(wk, dojo_node_child(node, i), m + 1) < 0)
			return -1;
	}
	return 0;
}

/*
 * Fusions: a temporary's producers and consumers in one nest, the
 * temporary folded to what one iteration of the fused scopes needs and
 * moved to the stack.  A padded copy made in a pass of its own and read
 * by a stencil in another (depthwise_conv's xp, 6.6 MB) goes through
 * memory three times; fused by channel, one channel's copy (52 KB) stays
 * in the cache.  Each fuse gains little alone, the fold needs them all:
 * one move at a time, no climb crosses that plateau.
 */

/* Whether an operation under "node" (at depth "depth", the scopes above
 * it in "chain") accesses buffer "buf" (into "*uses"), or updates its
 * array through a scope of more than SHORT iterations that does not
 * index it, a reduction that a register tile wants its scopes for (into
 * "*reduces"). */
static void
scan_fusable(dojo_program *prog, dojo_node *node, dojo_node **chain,
    int depth, int buf, bool *uses, bool *reduces)
{
	const dojo_access *reads[16];
	const dojo_access *lhs;
	uint64_t bits;
	int i, n;

	if (dojo_node_kind(node) == DOJO_SCOPE) {
		if (depth >= DOJO_MAX_DEPTH)
			return;
		chain[depth] = node;
		for (i = 0; i < dojo_node_n_children(node); i++)
			scan_fusable(prog, dojo_node_child(node, i), chain,
			    depth + 1, buf, uses, reduces);
		return;
	}
	lhs = dojo_op_lhs(node);
	n = reads_of(dojo_op_rhs(node), reads, 0, 16);
	for (i = 0; i < n; i++)
		*uses |= dojo_array_buffer(prog, dojo_access_array(reads[i])) ==
		    buf;
	*uses |= dojo_array_buffer(prog, dojo_access_array(lhs)) == buf;
	if (dojo_op_update(node) == DOJO_SET)
		return;
	bits = indexed_by(lhs, -1, -1, &n);
	for (i = 0; i < depth; i++)
		*reduces |= dojo_node_size(chain[i]) > SHORT &&
		    !(bits >> i & 1);
}

/* The fusion of temporary "buf" at "state" into "out": the top-level
 * nests from its first user to its last fused (fuse, as deep as every
 * scope of a level fuses), then each dimension of it folded to one slot
 * where legal (at least one), then moved to the stack where it fits.
 * 1 (a fusion), 0 (none) or -1. */
static int
fusion(dojo_env *env, int state, int buf, struct dojo_tile *out)
{
	dojo_program *prog = dojo_env_program(env, state);
	dojo_node *chain[DOJO_MAX_DEPTH], *node;
	struct build b = { env, state, "", 0 }, saved;
	int path[DOJO_MAX_DEPTH], depth, first = -1, last = -1, need, i, rc,
	    folds = 0;
	const char *name = dojo_buffer_name(prog, buf);
	char addr[DOJO_MAX_DEPTH * 8];
	bool blocked = false, pending = false;

	if (dojo_buffer_role(prog, buf) != DOJO_TEMP ||
	    dojo_buffer_loc(prog, buf) != DOJO_HEAP)
		return 0;
	/* the first and last users, and whether a nest from the first to
	 * the last reduces ("pending": one since the last user) */
	for (i = 0; i < dojo_program_n_children(prog); i++) {
		bool uses = false, reduces = false;

		scan_fusable(prog, dojo_program_child(prog, i), chain, 0, buf,
		    &uses, &reduces);
		if (first >= 0 || uses)
			pending |= reduces;
		if (uses) {
			if (first < 0)
				first = i;
			last = i;
			blocked |= pending;
			pending = false;
		}
	}
	if (first < 0 || last == first || blocked)
		return 0;
	path[0] = first;
	need = last - first;
	for (depth = 1; need > 0 && depth < DOJO_MAX_DEPTH; depth++) {
		saved = b;
		dojo_address_format(addr, sizeof addr, path, depth);
		for (i = 0; i < need; i++)
			if ((rc = play(&b, "fuse %s", addr)) < 0)
				break;
		if (i < need) {
			if (rc == -2)
				return -1;
			b = saved;	/* this level stays apart */
			break;
		}
		node = dojo_program_lookup(dojo_env_program(env, b.state),
		    path, depth);
		if (!node || dojo_node_kind(node) != DOJO_SCOPE)
			break;
		need = dojo_node_n_children(node) - 1;
		for (i = 0; i <= need; i++)
			if (dojo_node_kind(dojo_node_child(node, i)) !=
			    DOJO_SCOPE)
				need = 0;
		path[depth] = 0;
	}
	if (b.state == state)
		return 0;
	for (i = 0; i < dojo_buffer_ndim(prog, buf); i++)
		if ((rc = play(&b, "fold %s %d 1", name, i)) == 0)
			folds++;
		else if (rc == -2)
			return -1;
	if (!folds)
		return 0;
	if (play(&b, "move %s stack", name) == -2)
		return -1;
	out->state = b.state;
	memcpy(out->text, b.text, sizeof b.text);
	return 1;
}

int
dojo_agent_tiles(dojo_env *env, int state, struct dojo_tile *out, int max)
{
	struct walk wk = { env, state, out, max, 0, 0, 0, false, { 0 },
	    { NULL } };
	dojo_program *prog = dojo_env_program(env, state);
	int i, rc;

	if (dojo_target_vectors(dojo_env_target(env), &wk.bytes,
	    &wk.regs) < 0)
		return -1;
	memset(out, 0, (size_t)max * sizeof *out);

	/* the fusions first: few, and each ends a plateau */
	for (i = 0; i < dojo_program_n_buffers(prog) && wk.n < max; i++) {
		if ((rc = fusion(env, state, i, &out[wk.n])) < 0)
			return -1;
		if (rc > 0 && !offered(&wk, out[wk.n].state))
			wk.n++;
	}

	for (i = 0; i < dojo_program_n_children(prog) && wk.n < max; i++) {
		wk.path[0] = i;
		if (walk_nodes(&wk, dojo_program_child(prog, i), 0) < 0)
			return -1;
	}
	return wk.n;
}
