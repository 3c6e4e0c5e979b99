/* graph.c: graphs of programs built as Graphviz cgraph graphs: the
 * dependence graph of a program and the exploration tree of a session,
 * and the neighbourhood of highlighted nodes.  Also what the module's
 * files share of Graphviz (graph_private.h): its messages and the one
 * context of the process.  The rest of the module: graph_render.c (DOT,
 * SVG, PNG), layout.c (the layout read back); every call into Graphviz
 * is in these three files. */
#include "config.h"
#include "src/core/graph.h"
#include "targets/target.h"

#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "ir/deps.h"
#include "src/util/error.h"
#include "src/util/strbuf.h"
#include "src/core/graph_private.h"
#include "src/core/session.h"

/*
 * Graphviz's own messages: kept from stderr, the last one turned into our
 * error.
 */

void
dojo_graph_quiet(void)
{
	agseterr(AGMAX);
}

int
dojo_graph_error(const char *what)
{
	char *msg = aglasterr(), *nl;

	if (msg && *msg) {
		while (*msg == ' ' || *msg == '\t')
			msg++;
		if (strncmp(msg, "Error: ", 7) == 0)
			msg += 7;
		nl = strchr(msg, '\n');
		return dojo_error_set("%s: %.*s", what,
		    nl ? (int)(nl - msg) : (int)strlen(msg), msg);
	}
	return dojo_error_set("%s", what);
}

/* agsafeset with constant strings (Graphviz's prototypes are not const). */
static void
set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

const char *
dojo_graph_get(void *obj, const char *name)
{
	char *v = agget(obj, (char *)name);

	return v ? v : "";
}

/* One Graphviz context for the process: the text layout plugin of
 * Graphviz 2.43 keeps a font name from the first context and reads it
 * after gvFreeContext, so a second context would read freed memory. */
static GVC_t *shared_gvc;

GVC_t *
dojo_graph_context(void)
{
	if (!shared_gvc)
		shared_gvc = gvContext();
	if (!shared_gvc)
		dojo_error_set("cannot start Graphviz");
	return shared_gvc;
}

/* The LeakSanitizer hooks for Graphviz's own leaks (src/core/lsan.c).  A
 * member of a static library is linked only when something refers to
 * it, and the sanitizer's runtime only looks the hooks up by name: this
 * reference links them into every program that uses Graphviz through
 * this module, as when they were defined here. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_options(void);
static const char *(*const lsan_hooks[])(void) __attribute__((used)) = {
	__lsan_default_suppressions, __lsan_default_options,
};

void
dojo_graph_cleanup(void)
{
	if (shared_gvc)
		gvFreeContext(shared_gvc);
	shared_gvc = NULL;
}

void
dojo_graph_free(Agraph_t *g)
{
	if (g)
		agclose(g);
}

void
dojo_graph_highlight(void *obj)
{
	set(obj, "highlight", "true");
	set(obj, "penwidth", "3");
}

/*
 * The dependence graph.
 */

struct build {
	Agraph_t *g;
	dojo_program *prog;
	const struct dojo_graph_options *opt;
	int path[DOJO_MAX_DEPTH + 1];
	bool *arrays;		/* used by the operations drawn */
	bool *seen;		/* per array, for one operation */
	struct dojo_strbuf sb;
};

/* Whether the node at b->path[0..n) is inside "at" (2), above it (1) or
 * neither (0). */
static int
placement(const struct build *b, int n)
{
	int i;

	if (!b->opt->at || b->opt->around > 0)
		return 2;
	for (i = 0; i < n && i < b->opt->at_len; i++)
		if (b->path[i] != b->opt->at[i])
			return 0;
	return n >= b->opt->at_len ? 2 : 1;
}

static void
address(struct dojo_strbuf *sb, const int *path, int n)
{
	int i;

	for (i = 0; i < n; i++)
		dojo_strbuf_printf(sb, i ? ".%d" : "%d", path[i]);
}

/* Mark in "mark" the arrays that "e" reads. */
static void
expr_arrays(const dojo_expr *e, bool *mark)
{
	if (!e)
		return;
	switch (dojo_expr_kind(e)) {
	case DOJO_E_NUM:
		return;
	case DOJO_E_ACCESS:
		mark[dojo_access_array(dojo_expr_access(e))] = true;
		return;
	case DOJO_E_NEG:
		expr_arrays(dojo_expr_arg(e, 0), mark);
		return;
	case DOJO_E_CALL:
		expr_arrays(dojo_expr_arg(e, 0), mark);
		if (dojo_expr_fn(e) == DOJO_FN_MAX ||
		    dojo_expr_fn(e) == DOJO_FN_MIN)
			expr_arrays(dojo_expr_arg(e, 1), mark);
		return;
	default:
		expr_arrays(dojo_expr_arg(e, 0), mark);
		expr_arrays(dojo_expr_arg(e, 1), mark);
		return;
	}
}

/* Mark in b->arrays the arrays of the operations drawn under "node". */
static void
mark_arrays(struct build *b, dojo_node *node, int depth)
{
	int i;

	if (!placement(b, depth + 1))
		return;
	if (dojo_node_kind(node) == DOJO_OP) {
		if (placement(b, depth + 1) != 2)
			return;
		b->arrays[dojo_access_array(dojo_op_lhs(node))] = true;
		expr_arrays(dojo_op_rhs(node), b->arrays);
		return;
	}
	for (i = 0; i < dojo_node_n_children(node); i++) {
		b->path[depth + 1] = i;
		mark_arrays(b, dojo_node_child(node, i), depth + 1);
	}
}

static char *
sb_take(struct dojo_strbuf *sb)
{
	if (sb->oom) {
		dojo_error_set("out of memory");
		return NULL;
	}
	return sb->s ? sb->s : (char *)"";
}

static int
add_array(struct build *b, int a)
{
	dojo_program *prog = b->prog;
	int buf = dojo_array_buffer(prog, a), d;
	enum dojo_role role = dojo_buffer_role(prog, buf);
	Agnode_t *n;
	char *text;

	n = agnode(b->g, (char *)dojo_array_name(prog, a), 1);
	if (!n)
		return dojo_graph_error("cannot add a node");
	b->sb.len = 0;
	dojo_strbuf_printf(&b->sb, "%s\\n%s [", dojo_array_name(prog, a),
	    dojo_dtype_name(dojo_buffer_dtype(prog, buf)));
	for (d = 0; d < dojo_buffer_ndim(prog, buf); d++)
		dojo_strbuf_printf(&b->sb, "%s%lld", d ? ", " : "",
		    (long long)dojo_buffer_extent(prog, buf, d));
	dojo_strbuf_printf(&b->sb, "] %s", dojo_loc_name(dojo_buffer_loc(prog,
	    buf)));
	if (role != DOJO_TEMP)
		dojo_strbuf_printf(&b->sb, " %s", dojo_role_name(role));
	if (strcmp(dojo_buffer_name(prog, buf), dojo_array_name(prog, a)))
		dojo_strbuf_printf(&b->sb, " (in %s)",
		    dojo_buffer_name(prog, buf));
	if (!(text = sb_take(&b->sb)))
		return -1;
	set(n, "label", text);
	set(n, "class", "array");
	set(n, "shape", "oval");
	set(n, "style", "filled");
	set(n, "fillcolor", role == DOJO_IN ? "#e8f0fb" : role == DOJO_TEMP ?
	    "#f2f2f2" : "#fdf0e0");
	return 0;
}

static int
add_access(struct build *b, Agnode_t *tail, Agnode_t *head, bool write,
    bool update)
{
	Agedge_t *e = agedge(b->g, tail, head, NULL, 1);

	if (!e)
		return dojo_graph_error("cannot add an edge");
	set(e, "class", write ? "write" : "read");
	set(e, "color", "gray60");
	set(e, "arrowsize", "0.6");
	if (update)
		set(e, "dir", "both");
	return 0;
}

static int
add_op(struct build *b, Agraph_t *parent, dojo_node *op, int depth)
{
	Agnode_t *n, *arr;
	int a, lhs = dojo_access_array(dojo_op_lhs(op));
	char *text;

	b->sb.len = 0;
	address(&b->sb, b->path, depth + 1);
	if (!(text = sb_take(&b->sb)))
		return -1;
	n = agnode(parent, text, 1);
	if (!n)
		return dojo_graph_error("cannot add a node");
	dojo_strbuf_puts(&b->sb, "\\n");
	dojo_op_print(&b->sb, b->prog, op);
	if (!(text = sb_take(&b->sb)))
		return -1;
	set(n, "label", text);
	set(n, "class", "op");
	set(n, "shape", "box");
	if (b->opt->no_arrays)
		return 0;
	memset(b->seen, 0, dojo_program_n_arrays(b->prog) * sizeof *b->seen);
	expr_arrays(dojo_op_rhs(op), b->seen);
	for (a = 0; a < dojo_program_n_arrays(b->prog); a++)
		if (b->seen[a] && a != lhs) {
			arr = agnode(b->g, (char *)dojo_array_name(b->prog, a), 0);
			if (arr && add_access(b, arr, n, false, false) < 0)
				return -1;
		}
	arr = agnode(b->g, (char *)dojo_array_name(b->prog, lhs), 0);
	if (arr && add_access(b, n, arr, true,
	    dojo_op_update(op) != DOJO_SET || b->seen[lhs]) < 0)
		return -1;
	return 0;
}

static int
add_tree(struct build *b, Agraph_t *parent, dojo_node *node, int depth)
{
	Agraph_t *sub;
	char *name;
	int i, where = placement(b, depth + 1);

	if (!where)
		return 0;
	if (dojo_node_kind(node) == DOJO_OP)
		return where == 2 ? add_op(b, parent, node, depth) : 0;
	b->sb.len = 0;
	dojo_strbuf_puts(&b->sb, "cluster_");
	address(&b->sb, b->path, depth + 1);
	if (!(name = sb_take(&b->sb)))
		return -1;
	sub = agsubg(parent, name, 1);
	if (!sub)
		return dojo_graph_error("cannot add a cluster");
	b->sb.len = 0;
	address(&b->sb, b->path, depth + 1);
	dojo_strbuf_printf(&b->sb, ": %lld", (long long)dojo_node_size(node));
	if (dojo_node_flag(node))
		dojo_strbuf_printf(&b->sb, ":%c", dojo_node_flag(node));
	if (!(name = sb_take(&b->sb)))
		return -1;
	set(sub, "label", name);
	set(sub, "class", "scope");
	set(sub, "margin", "14");
	for (i = 0; i < dojo_node_n_children(node); i++) {
		b->path[depth + 1] = i;
		if (add_tree(b, sub, dojo_node_child(node, i), depth + 1) < 0)
			return -1;
	}
	return 0;
}

static const char *
dir_name(unsigned char mask)
{
	static const char *const names[8] = {
		"?", "<", "=", "<=", ">", "!=", ">=", "*"
	};

	return names[mask & DOJO_DIR_ALL];
}

static int
add_dep(const struct dojo_dep_info *info, void *payload)
{
	static const char *const colors[] = {
		"#c0392b", "#2c6fbb", "#2e8b57"
	};
	static const char *const styles[] = { "solid", "dashed", "dotted" };
	struct build *b = payload;
	Agnode_t *tail, *head;
	Agedge_t *e;
	char *text;
	int i, l;

	b->sb.len = 0;
	address(&b->sb, info->src_path, info->src_len);
	tail = agnode(b->g, sb_take(&b->sb), 0);
	b->sb.len = 0;
	address(&b->sb, info->dst_path, info->dst_len);
	head = agnode(b->g, sb_take(&b->sb), 0);
	if (b->sb.oom)
		return dojo_error_set("out of memory");
	if (!tail || !head)
		return 0;
	e = agedge(b->g, tail, head, NULL, 1);
	if (!e)
		return dojo_graph_error("cannot add an edge");
	b->sb.len = 0;
	dojo_strbuf_puts(&b->sb, info->array >= 0 ?
	    dojo_array_name(b->prog, info->array) :
	    dojo_buffer_name(b->prog, info->buffer));
	for (i = 0; i < info->n_dirs && info->n_levels > 0; i++) {
		dojo_strbuf_puts(&b->sb, " (");
		for (l = 0; l < info->n_levels; l++)
			dojo_strbuf_printf(&b->sb, "%s%s", l ? "," : "",
			    dir_name(info->dirs[i * info->n_levels + l]));
		dojo_strbuf_puts(&b->sb, ")");
	}
	if (!(text = sb_take(&b->sb)))
		return -1;
	set(e, "label", text);
	set(e, "class", dojo_dep_type_name(info->type));
	set(e, "color", colors[info->type]);
	set(e, "fontcolor", colors[info->type]);
	set(e, "style", styles[info->type]);
	return 0;
}

static void
set_defaults(Agraph_t *g)
{
	agattr(g, AGRAPH, (char *)"fontname", (char *)"Courier");
	agattr(g, AGRAPH, (char *)"fontsize", (char *)"14");
	agattr(g, AGRAPH, (char *)"labeljust", (char *)"l");
	agattr(g, AGRAPH, (char *)"color", (char *)"gray50");
	agattr(g, AGRAPH, (char *)"style", (char *)"dashed");
	agattr(g, AGRAPH, (char *)"ranksep", (char *)"0.6");
	agattr(g, AGNODE, (char *)"fontname", (char *)"Courier");
	agattr(g, AGNODE, (char *)"fontsize", (char *)"14");
	agattr(g, AGEDGE, (char *)"fontname", (char *)"Courier");
	agattr(g, AGEDGE, (char *)"fontsize", (char *)"14");
}

Agraph_t *
dojo_graph_deps(dojo_program *prog, const struct dojo_graph_options *opt)
{
	static const struct dojo_graph_options none = { 0 };
	struct build b;
	dojo_deps *deps = NULL;
	dojo_node *node;
	int i, na = dojo_program_n_arrays(prog);

	dojo_graph_quiet();
	memset(&b, 0, sizeof b);
	b.prog = prog;
	b.opt = opt ? opt : &none;
	if (b.opt->at && !dojo_program_lookup(prog, b.opt->at,
	    b.opt->at_len))
		return NULL;
	if (b.opt->around > 0 && !b.opt->at) {
		dojo_error_set("a neighbourhood needs an address");
		return NULL;
	}
	dojo_strbuf_init(&b.sb);
	b.arrays = calloc(na + 1, sizeof *b.arrays);
	b.seen = calloc(na + 1, sizeof *b.seen);
	b.g = agopen((char *)"dependences", Agdirected, NULL);
	if (!b.arrays || !b.seen || !b.g) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	set_defaults(b.g);
	for (i = 0; i < dojo_program_n_children(prog); i++) {
		b.path[0] = i;
		mark_arrays(&b, dojo_program_child(prog, i), 0);
	}
	for (i = 0; i < na && !b.opt->no_arrays; i++)
		if (b.arrays[i] && add_array(&b, i) < 0)
			goto out_free;
	for (i = 0; i < dojo_program_n_children(prog); i++) {
		b.path[0] = i;
		node = dojo_program_child(prog, i);
		if (add_tree(&b, b.g, node, 0) < 0)
			goto out_free;
	}
	deps = dojo_deps_new(prog);
	if (!deps || dojo_deps_foreach(deps, add_dep, &b) != 0)
		goto out_free;
	dojo_deps_free(deps);
	deps = NULL;
	if (b.opt->around > 0) {
		Agnode_t *n;
		int len;

		b.sb.len = 0;
		address(&b.sb, b.opt->at, b.opt->at_len);
		len = b.sb.len;
		for (n = agfstnode(b.g); n; n = agnxtnode(b.g, n))
			if (strncmp(agnameof(n), b.sb.s, len) == 0 &&
			    (agnameof(n)[len] == 0 || agnameof(n)[len] == '.'))
				dojo_graph_highlight(n);
		if (dojo_graph_keep_around(b.g, b.opt->around) < 0)
			goto out_free;
	}
	dojo_strbuf_release(&b.sb);
	free(b.arrays);
	free(b.seen);
	return b.g;
out_free:
	dojo_deps_free(deps);
	dojo_strbuf_release(&b.sb);
	free(b.arrays);
	free(b.seen);
	if (b.g)
		agclose(b.g);
	return NULL;
}

Agraph_t *
dojo_graph_history(struct dojo_session *s)
{
	struct dojo_session_row *rows = NULL;
	struct dojo_strbuf sb;
	Agraph_t *g;
	char best[41] = "";
	int i, n;

	dojo_graph_quiet();
	if (dojo_session_rows(s, &rows, &n) < 0)
		return NULL;
	if (dojo_session_best(s, DOJO_TARGET_HOST, best) < 0)
		best[0] = '\0';
	g = agopen((char *)"history", Agdirected, NULL);
	if (!g) {
		free(rows);
		dojo_error_set("out of memory");
		return NULL;
	}
	set_defaults(g);
	dojo_strbuf_init(&sb);
	for (i = 0; i < n; i++) {
		const struct dojo_session_entry *e = &rows[i].e;
		const struct dojo_session_measurement *m = &e->m;
		bool failed = m->measured && strcmp(m->outcome, "ok") != 0;
		Agnode_t *node = agnode(g, (char *)e->commit, 1);

		dojo_strbuf_printf(&sb, "%.7s\n%s", e->commit,
		    e->parent[0] ? e->action : "(start)");
		if (m->measured && !failed && m->speedup > 0)
			dojo_strbuf_printf(&sb, "\n%.3gx", m->speedup);
		else if (failed)
			dojo_strbuf_printf(&sb, "\n%s", m->outcome);
		set(node, "label", sb.s ? sb.s : "");
		dojo_strbuf_release(&sb);
		dojo_strbuf_init(&sb);
		set(node, "shape", "box");
		set(node, "style", "rounded");
		if (strcmp(e->commit, best) == 0) {
			set(node, "class", "best");
			set(node, "color", "goldenrod");
			set(node, "penwidth", "3");
		} else if (failed) {
			set(node, "class", "failed");
			set(node, "color", "red");
		} else {
			set(node, "class", "state");
		}
		if (e->current)
			dojo_graph_highlight(node);
		if (e->parent[0]) {
			Agnode_t *parent = agnode(g, (char *)e->parent, 0);

			if (parent && !agedge(g, parent, node, NULL, 1))
				break;
		}
	}
	free(rows);
	if (i < n) {
		agclose(g);
		dojo_error_set("out of memory");
		return NULL;
	}
	return g;
}

/* Delete the clusters under "g" that hold no node; returns whether "g"
 * itself is empty. */
static bool
prune_clusters(Agraph_t *g)
{
	Agraph_t *sub, *next;

	for (sub = agfstsubg(g); sub; sub = next) {
		next = agnxtsubg(sub);
		if (prune_clusters(sub))
			agclose(sub);	/* unlinks it from "g" too */
	}
	return agnnodes(g) == 0;
}

int
dojo_graph_keep_around(Agraph_t *g, int distance)
{
	Agnode_t *n, *next, *other;
	Agedge_t *e;
	int *dist, max = 0, round, found = 0;

	for (n = agfstnode(g); n; n = agnxtnode(g, n))
		if ((int)AGSEQ(n) > max)
			max = AGSEQ(n);
	dist = malloc(sizeof *dist * (max + 1));
	if (!dist)
		return dojo_error_set("out of memory");
	for (n = agfstnode(g); n; n = agnxtnode(g, n)) {
		dist[AGSEQ(n)] = strcmp(dojo_graph_get(n, "highlight"),
		    "true") ? -1 : 0;
		found += dist[AGSEQ(n)] == 0;
	}
	if (!found) {
		free(dist);
		return dojo_error_set("no node to keep the neighbourhood of");
	}
	/* breadth first, one distance a round */
	for (round = 0; round < distance; round++)
		for (n = agfstnode(g); n; n = agnxtnode(g, n)) {
			if (dist[AGSEQ(n)] != round)
				continue;
			for (e = agfstedge(g, n); e; e = agnxtedge(g, e, n)) {
				other = aghead(e) == n ? agtail(e) : aghead(e);
				if (dist[AGSEQ(other)] < 0)
					dist[AGSEQ(other)] = round + 1;
			}
		}
	for (n = agfstnode(g); n; n = next) {
		next = agnxtnode(g, n);
		if (dist[AGSEQ(n)] < 0)
			agdelnode(g, n);
	}
	free(dist);
	prune_clusters(g);
	return 0;
}
