/* graph.c: graphs of programs (Graphviz cgraph), their layout with gvc,
 * DOT/SVG/PNG output, and a character canvas for the terminal.  Every
 * call into Graphviz is in this file. */
#include "config.h"
#include "src/core/graph.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "ir/deps.h"
#include "src/util/error.h"
#include "src/util/strbuf.h"
#include "src/core/session.h"

/*
 * Graphviz's own messages: kept from stderr, the last one turned into our
 * error.
 */

static void
quiet(void)
{
	agseterr(AGMAX);
}

/* Set the last error to "what" and Graphviz's last message, if any. */
static int
gv_error(const char *what)
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

static const char *
get(void *obj, const char *name)
{
	char *v = agget(obj, (char *)name);

	return v ? v : "";
}

/* One Graphviz context for the process: the text layout plugin of
 * Graphviz 2.43 keeps a font name from the first context and reads it
 * after gvFreeContext, so a second context would read freed memory. */
static GVC_t *shared_gvc;

static GVC_t *
context(void)
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
		return gv_error("cannot add a node");
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
		return gv_error("cannot add an edge");
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
		return gv_error("cannot add a node");
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
		return gv_error("cannot add a cluster");
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
		return gv_error("cannot add an edge");
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

	quiet();
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

	quiet();
	if (dojo_session_rows(s, &rows, &n) < 0)
		return NULL;
	if (dojo_session_best(s, "c", best) < 0)
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
		dist[AGSEQ(n)] = strcmp(get(n, "highlight"), "true") ? -1 : 0;
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

/*
 * Output.
 */

int
dojo_graph_format_parse(enum dojo_graph_format *out, const char *name)
{
	if (strcmp(name, "dot") == 0 || strcmp(name, "gv") == 0)
		*out = DOJO_GRAPH_DOT;
	else if (strcmp(name, "svg") == 0)
		*out = DOJO_GRAPH_SVG;
	else if (strcmp(name, "png") == 0)
		*out = DOJO_GRAPH_PNG;
	else
		return dojo_error_set("unknown graph format '%s' (dot, svg or "
		    "png)", name);
	return 0;
}

int
dojo_graph_format_of_path(enum dojo_graph_format *out, const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (!dot || (slash && slash > dot))
		return dojo_error_set("%s: no extension to tell the graph "
		    "format (use --format dot, svg or png)", path);
	if (dojo_graph_format_parse(out, dot + 1) < 0)
		return dojo_error_set("%s: unknown graph format '%s' (dot, svg "
		    "or png)", path, dot + 1);
	return 0;
}

static int
render_dot(char **out, size_t *len, Agraph_t *g)
{
	FILE *f = open_memstream(out, len);
	int rc;

	if (!f)
		return dojo_error_set("out of memory");
	rc = agwrite(g, f);
	if (fclose(f) != 0 || rc != 0) {
		free(*out);
		*out = NULL;
		return dojo_error_set("cannot write the graph as DOT");
	}
	return 0;
}

int
dojo_graph_render(char **out, size_t *len, Agraph_t *g,
    enum dojo_graph_format format)
{
	GVC_t *gvc;
	char *data = NULL;
	unsigned int n = 0;
	int rc = -1;

	quiet();
	*out = NULL;
	*len = 0;
	if (format == DOJO_GRAPH_DOT)
		return render_dot(out, len, g);
	gvc = context();
	if (!gvc)
		return -1;
	if (gvLayout(gvc, g, "dot") != 0)
		return gv_error("graph layout failed");
	if (gvRenderData(gvc, g, format == DOJO_GRAPH_SVG ? "svg" : "png",
	    &data, &n) != 0 || !data) {
		gv_error(format == DOJO_GRAPH_SVG ? "cannot render SVG" :
		    "cannot render PNG");
		goto out_free_layout;
	}
	*out = malloc(n + 1);
	if (!*out) {
		dojo_error_set("out of memory");
		goto out_free_data;
	}
	memcpy(*out, data, n);
	(*out)[n] = 0;
	*len = n;
	rc = 0;
out_free_data:
	gvFreeRenderData(data);
out_free_layout:
	gvFreeLayout(gvc, g);
	return rc;
}

/*
 * The layout read back.
 */

struct dojo_layout {
	double width, height;
	struct dojo_layout_node *nodes;
	int n_nodes;
	struct dojo_layout_edge *edges;
	int n_edges;
	struct dojo_layout_cluster *clusters;
	int n_clusters, cap_clusters;
	Agnode_t **agnodes;	/* while reading: node i */
};

/* A label's text with Graphviz's escapes \n \l \r made line breaks. */
static char *
unescape(const char *text)
{
	char *out = malloc(strlen(text ? text : "") + 1), *o = out;

	if (!out)
		return NULL;
	for (; text && *text; text++) {
		if (*text == '\\' && text[1]) {
			text++;
			*o++ = strchr("nlr", *text) ? '\n' : *text;
		} else {
			*o++ = *text;
		}
	}
	while (o > out && o[-1] == '\n')
		o--;
	*o = 0;
	return out;
}

static char *
label_of(textlabel_t *lp)
{
	return unescape(lp ? lp->text : "");
}

static char *
dup_str(const char *s)
{
	return strdup(s ? s : "");
}

void
dojo_layout_free(dojo_layout *l)
{
	int i;

	if (!l)
		return;
	for (i = 0; i < l->n_nodes; i++) {
		free((char *)l->nodes[i].name);
		free((char *)l->nodes[i].label);
		free((char *)l->nodes[i].cls);
	}
	for (i = 0; i < l->n_edges; i++) {
		free((char *)l->edges[i].label);
		free((char *)l->edges[i].cls);
		free((double *)l->edges[i].pts);
	}
	for (i = 0; i < l->n_clusters; i++)
		free((char *)l->clusters[i].label);
	free(l->nodes);
	free(l->edges);
	free(l->clusters);
	free(l->agnodes);
	free(l);
}

static int
read_clusters(dojo_layout *l, Agraph_t *g, pointf origin, int depth)
{
	struct dojo_layout_cluster *c;
	Agraph_t *sub;
	int i;

	for (i = 1; i <= GD_n_cluster(g); i++) {
		sub = GD_clust(g)[i];
		if (l->n_clusters == l->cap_clusters) {
			c = realloc(l->clusters, sizeof *c *
			    (2 * l->cap_clusters + 4));
			if (!c)
				return dojo_error_set("out of memory");
			l->clusters = c;
			l->cap_clusters = 2 * l->cap_clusters + 4;
		}
		c = &l->clusters[l->n_clusters++];
		c->label = label_of(GD_label(sub));
		c->x0 = GD_bb(sub).LL.x - origin.x;
		c->y0 = GD_bb(sub).LL.y - origin.y;
		c->x1 = GD_bb(sub).UR.x - origin.x;
		c->y1 = GD_bb(sub).UR.y - origin.y;
		c->depth = depth;
		if (!c->label || read_clusters(l, sub, origin, depth + 1) < 0)
			return dojo_error_set("out of memory");
	}
	return 0;
}

struct pts {
	double *v;
	int n, cap;
	bool oom;
};

static void
pts_add(struct pts *p, pointf pt, pointf origin)
{
	double *g;

	if (p->n == p->cap) {
		g = realloc(p->v, sizeof *g * 2 * (2 * p->cap + 16));
		if (!g) {
			p->oom = true;
			return;
		}
		p->v = g;
		p->cap = 2 * p->cap + 16;
	}
	p->v[2 * p->n] = pt.x - origin.x;
	p->v[2 * p->n + 1] = pt.y - origin.y;
	p->n++;
}

/* The splines of "e" as a polyline, eight pieces a Bezier segment. */
static void
read_splines(struct pts *p, Agedge_t *e, pointf origin, bool *arrow)
{
	splines *spl = ED_spl(e);
	bezier *bz;
	pointf *c, q;
	double t, u;
	int i, k, s;

	*arrow = false;
	for (i = 0; spl && i < spl->size; i++) {
		bz = &spl->list[i];
		if (bz->size < 1)
			continue;
		if (bz->sflag)
			pts_add(p, bz->sp, origin);
		pts_add(p, bz->list[0], origin);
		for (k = 0; k + 3 < bz->size; k += 3) {
			c = &bz->list[k];
			for (s = 1; s <= 8; s++) {
				t = s / 8.0;
				u = 1 - t;
				q.x = u * u * u * c[0].x + 3 * u * u * t * c[1].x +
				    3 * u * t * t * c[2].x + t * t * t * c[3].x;
				q.y = u * u * u * c[0].y + 3 * u * u * t * c[1].y +
				    3 * u * t * t * c[2].y + t * t * t * c[3].y;
				pts_add(p, q, origin);
			}
		}
		if (bz->eflag) {
			pts_add(p, bz->ep, origin);
			*arrow = true;
		}
	}
}

static double
dist2(double x, double y, const struct dojo_layout_node *n)
{
	return (x - n->x) * (x - n->x) + (y - n->y) * (y - n->y);
}

static int
node_index(const dojo_layout *l, Agnode_t *n)
{
	int i;

	for (i = 0; i < l->n_nodes; i++)
		if (l->agnodes[i] == n)
			return i;
	return -1;
}

static int
read_edge(dojo_layout *l, Agraph_t *g, Agedge_t *e, pointf origin)
{
	struct dojo_layout_edge *d = &l->edges[l->n_edges];
	const struct dojo_layout_node *t, *h;
	struct pts p = { 0 };
	double tmp;
	int i, n;
	bool arrow;

	memset(d, 0, sizeof *d);
	d->tail = node_index(l, agtail(e));
	d->head = node_index(l, aghead(e));
	d->label = label_of(ED_label(e));
	d->cls = dup_str(get(e, "class"));
	d->highlight = strcmp(get(e, "highlight"), "true") == 0;
	l->n_edges++;
	if (!d->label || !d->cls)
		return dojo_error_set("out of memory");
	if (ED_label(e)) {
		d->lx = ED_label(e)->pos.x - origin.x;
		d->ly = ED_label(e)->pos.y - origin.y;
	}
	read_splines(&p, e, origin, &arrow);
	d->pts = p.v;
	d->npts = p.n;
	d->arrow = arrow;
	if (p.oom)
		return dojo_error_set("out of memory");
	if (p.n < 2 || d->tail < 0 || d->head < 0)
		return 0;
	/* tail to head: reverse a polyline that starts at the head */
	t = &l->nodes[d->tail];
	h = &l->nodes[d->head];
	n = p.n;
	if (d->tail != d->head && dist2(p.v[0], p.v[1], h) <
	    dist2(p.v[0], p.v[1], t)) {
		for (i = 0; i < n / 2; i++) {
			tmp = p.v[2 * i];
			p.v[2 * i] = p.v[2 * (n - 1 - i)];
			p.v[2 * (n - 1 - i)] = tmp;
			tmp = p.v[2 * i + 1];
			p.v[2 * i + 1] = p.v[2 * (n - 1 - i) + 1];
			p.v[2 * (n - 1 - i) + 1] = tmp;
		}
		d->arrow = ED_spl(e) && ED_spl(e)->list[0].sflag;
	}
	return 0;
}

static bool
is_square(const char *shape)
{
	return strcmp(shape, "box") == 0 || strcmp(shape, "rect") == 0 ||
	    strcmp(shape, "rectangle") == 0 || strcmp(shape, "square") == 0 ||
	    strcmp(shape, "record") == 0;
}

dojo_layout *
dojo_layout_new(Agraph_t *g)
{
	dojo_layout *l;
	GVC_t *gvc;
	Agnode_t *n;
	Agedge_t *e;
	pointf origin;
	int nn = agnnodes(g), ne = agnedges(g);

	quiet();
	l = calloc(1, sizeof *l);
	if (!l || !(l->nodes = calloc(nn + 1, sizeof *l->nodes)) ||
	    !(l->edges = calloc(ne + 1, sizeof *l->edges)) ||
	    !(l->agnodes = calloc(nn + 1, sizeof *l->agnodes))) {
		dojo_layout_free(l);
		dojo_error_set("out of memory");
		return NULL;
	}
	gvc = context();
	if (!gvc) {
		dojo_layout_free(l);
		return NULL;
	}
	if (gvLayout(gvc, g, "dot") != 0) {
		gv_error("graph layout failed");
		dojo_layout_free(l);
		return NULL;
	}
	origin = GD_bb(g).LL;
	l->width = GD_bb(g).UR.x - origin.x;
	l->height = GD_bb(g).UR.y - origin.y;
	for (n = agfstnode(g); n; n = agnxtnode(g, n)) {
		struct dojo_layout_node *d = &l->nodes[l->n_nodes];

		l->agnodes[l->n_nodes++] = n;
		d->name = dup_str(agnameof(n));
		d->label = label_of(ND_label(n));
		d->cls = dup_str(get(n, "class"));
		if (!d->name || !d->label || !d->cls)
			goto out_oom;
		d->x = ND_coord(n).x - origin.x;
		d->y = ND_coord(n).y - origin.y;
		d->w = ND_width(n) * 72;
		d->h = ND_height(n) * 72;
		d->square = is_square(get(n, "shape"));
		d->highlight = strcmp(get(n, "highlight"), "true") == 0;
	}
	for (n = agfstnode(g); n; n = agnxtnode(g, n))
		for (e = agfstout(g, n); e; e = agnxtout(g, e))
			if (read_edge(l, g, e, origin) < 0)
				goto out_oom;
	if (read_clusters(l, g, origin, 0) < 0)
		goto out_oom;
	gvFreeLayout(gvc, g);
	free(l->agnodes);
	l->agnodes = NULL;
	return l;
out_oom:
	dojo_error_set("out of memory");
	gvFreeLayout(gvc, g);
	dojo_layout_free(l);
	return NULL;
}

double
dojo_layout_width(const dojo_layout *l)
{
	return l->width;
}

double
dojo_layout_height(const dojo_layout *l)
{
	return l->height;
}

int
dojo_layout_n_nodes(const dojo_layout *l)
{
	return l->n_nodes;
}

const struct dojo_layout_node *
dojo_layout_node(const dojo_layout *l, int i)
{
	return &l->nodes[i];
}

int
dojo_layout_n_edges(const dojo_layout *l)
{
	return l->n_edges;
}

const struct dojo_layout_edge *
dojo_layout_edge(const dojo_layout *l, int i)
{
	return &l->edges[i];
}

int
dojo_layout_n_clusters(const dojo_layout *l)
{
	return l->n_clusters;
}

const struct dojo_layout_cluster *
dojo_layout_cluster(const dojo_layout *l, int i)
{
	return &l->clusters[i];
}

int
dojo_layout_find(const dojo_layout *l, const char *name)
{
	int i;

	for (i = 0; i < l->n_nodes; i++)
		if (strcmp(l->nodes[i].name, name) == 0)
			return i;
	return -1;
}

void
dojo_layout_highlight_node(dojo_layout *l, int i, bool on)
{
	l->nodes[i].highlight = on;
}

void
dojo_layout_highlight_edge(dojo_layout *l, int i, bool on)
{
	l->edges[i].highlight = on;
}

/*
 * The canvas.
 */

struct dojo_canvas {
	int w, h;
	uint32_t *ch;
	uint8_t *attr;
	int *owner;
	uint8_t *mask;		/* while drawing edges: the directions */
};

/* Directions of a line out of a cell. */
enum { UP = 1, DOWN = 2, LEFT = 4, RIGHT = 8, HEAVY = 16 };

dojo_canvas *
dojo_canvas_new(int width, int height)
{
	dojo_canvas *c;
	size_t n;

	if (width < 1 || height < 1 || width > 100000 || height > 100000 ||
	    (size_t)width * height > 100000000) {
		dojo_error_set("a canvas of %d x %d cells", width, height);
		return NULL;
	}
	n = (size_t)width * height;
	c = calloc(1, sizeof *c);
	if (!c || !(c->ch = calloc(n, sizeof *c->ch)) ||
	    !(c->attr = calloc(n, sizeof *c->attr)) ||
	    !(c->owner = calloc(n, sizeof *c->owner)) ||
	    !(c->mask = calloc(n, sizeof *c->mask))) {
		dojo_canvas_free(c);
		dojo_error_set("out of memory");
		return NULL;
	}
	c->w = width;
	c->h = height;
	return c;
}

void
dojo_canvas_free(dojo_canvas *c)
{
	if (!c)
		return;
	free(c->ch);
	free(c->attr);
	free(c->owner);
	free(c->mask);
	free(c);
}

int
dojo_canvas_width(const dojo_canvas *c)
{
	return c->w;
}

int
dojo_canvas_height(const dojo_canvas *c)
{
	return c->h;
}

const uint32_t *
dojo_canvas_chars(const dojo_canvas *c)
{
	return c->ch;
}

const uint8_t *
dojo_canvas_attrs(const dojo_canvas *c)
{
	return c->attr;
}

const int *
dojo_canvas_owners(const dojo_canvas *c)
{
	return c->owner;
}

static void
put(dojo_canvas *c, int x, int y, uint32_t ch, uint8_t attr, int owner)
{
	size_t i;

	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return;
	i = (size_t)y * c->w + x;
	c->ch[i] = ch;
	c->attr[i] = attr;
	c->owner[i] = owner;
}

static uint8_t
attr_at(const dojo_canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= c->w || y >= c->h)
		return 0;
	return c->attr[(size_t)y * c->w + x];
}

/* The next code point of UTF-8 "*s" (a stray byte stands for itself). */
static uint32_t
utf8_next(const char **s)
{
	const unsigned char *p = (const unsigned char *)*s;
	uint32_t cp;
	int n, i;

	if (p[0] < 0x80 || (p[0] & 0xe0) == 0x80 || p[0] >= 0xf8) {
		(*s)++;
		return p[0];
	}
	n = p[0] >= 0xf0 ? 3 : p[0] >= 0xe0 ? 2 : 1;
	cp = p[0] & (0x3f >> n);
	for (i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			(*s)++;
			return p[0];
		}
		cp = cp << 6 | (p[i] & 0x3f);
	}
	*s += n + 1;
	return cp;
}

/* The code points of the line of "s" up to '\n' or its end. */
static int
line_len(const char *s)
{
	int n = 0;

	while (*s && *s != '\n') {
		utf8_next(&s);
		n++;
	}
	return n;
}

/* Write the line "s" from (x, y), at most "max" cells, "…" (or "~") in
 * the last one when it is cut; never over cells whose flags meet
 * "keep".  Returns where "s"'s line ends. */
static const char *
put_line(dojo_canvas *c, int x, int y, const char *s, int max, bool ascii,
    uint8_t attr, int owner, uint8_t keep)
{
	int len = line_len(s), i;
	uint32_t cp;

	for (i = 0; *s && *s != '\n'; i++) {
		cp = utf8_next(&s);
		if (i >= max)
			continue;
		if (len > max && i == max - 1)
			cp = ascii ? '~' : 0x2026;
		if (!(attr_at(c, x + i, y) & keep))
			put(c, x + i, y, cp, attr, owner);
	}
	return s;
}

/* The map from layout points to cells. */
struct view {
	double zx, zy;		/* zoom of each axis, at most 1 */
	double height;
	int px, py;
	bool ascii;
};

static int
cell_x(const struct view *v, double x)
{
	return (int)floor(x * v->zx / DOJO_CANVAS_CELL_W + 0.5) - v->px;
}

static int
cell_y(const struct view *v, double y)
{
	return (int)floor((v->height - y) * v->zy / DOJO_CANVAS_CELL_H + 0.5) -
	    v->py;
}

struct box {
	int x0, y0, x1, y1;	/* inclusive */
};

static int
n_lines(const char *s)
{
	int n = 1;

	while ((s = strchr(s, '\n'))) {
		s++;
		n++;
	}
	return n;
}

/* The cells of node "n": its box scaled, grown to hold its label (only
 * the first line along an axis the view shrinks). */
static struct box
node_box(const struct view *v, const struct dojo_layout_node *n)
{
	struct box b;
	const char *s;
	int w, h, cx, cy, widest = 0, lines = n_lines(n->label);

	for (s = n->label; s; s = strchr(s, '\n')) {
		if (*s == '\n')
			s++;
		if (line_len(s) > widest)
			widest = line_len(s);
	}
	w = (int)floor(n->w * v->zx / DOJO_CANVAS_CELL_W + 0.5);
	h = (int)floor(n->h * v->zy / DOJO_CANVAS_CELL_H + 0.5);
	/* shrunk, the box still holds its first line (an address) */
	if (w < (v->zx >= 1 ? widest : line_len(n->label)) + 2)
		w = (v->zx >= 1 ? widest : line_len(n->label)) + 2;
	if (v->zy >= 1 && h < lines + 2)
		h = lines + 2;
	if (w < 3)
		w = 3;
	if (h < 3)
		h = 3;
	cx = cell_x(v, n->x);
	cy = cell_y(v, n->y);
	b.x0 = cx - w / 2;
	b.x1 = b.x0 + w - 1;
	b.y0 = cy - h / 2;
	b.y1 = b.y0 + h - 1;
	return b;
}

void
dojo_layout_cells(int *width, int *height, const dojo_layout *l)
{
	struct view v = { 1, 1, l->height, 0, 0, false };
	struct box b;
	int i;

	*width = cell_x(&v, l->width) + 1;
	*height = cell_y(&v, 0) + 1;
	for (i = 0; i < l->n_nodes; i++) {
		b = node_box(&v, &l->nodes[i]);
		if (b.x1 + 1 > *width)
			*width = b.x1 + 1;
		if (b.y1 + 1 > *height)
			*height = b.y1 + 1;
	}
}

/* Box-drawing characters: [style][part], parts: top left, top right,
 * bottom left, bottom right, horizontal, vertical. */
static const uint32_t frames[4][6] = {
	{ 0x250c, 0x2510, 0x2514, 0x2518, 0x2500, 0x2502 },	/* light */
	{ 0x256d, 0x256e, 0x2570, 0x256f, 0x2500, 0x2502 },	/* rounded */
	{ 0x250f, 0x2513, 0x2517, 0x251b, 0x2501, 0x2503 },	/* heavy */
	{ 0x250c, 0x2510, 0x2514, 0x2518, 0x2504, 0x2506 },	/* dashed */
};
static const uint32_t frames_ascii[4][6] = {
	{ '+', '+', '+', '+', '-', '|' },
	{ '.', '.', '\'', '\'', '-', '|' },
	{ '#', '#', '#', '#', '=', '#' },
	{ '.', '.', '.', '.', '.', ':' },
};

static void
frame(dojo_canvas *c, struct box b, const uint32_t *f, uint8_t attr,
    int owner, bool fill)
{
	int x, y;

	for (x = b.x0 + 1; x < b.x1; x++) {
		put(c, x, b.y0, f[4], attr, owner);
		put(c, x, b.y1, f[4], attr, owner);
	}
	for (y = b.y0 + 1; y < b.y1; y++) {
		put(c, b.x0, y, f[5], attr, owner);
		put(c, b.x1, y, f[5], attr, owner);
		for (x = b.x0 + 1; fill && x < b.x1; x++)
			put(c, x, y, ' ', attr, owner);
	}
	put(c, b.x0, b.y0, f[0], attr, owner);
	put(c, b.x1, b.y0, f[1], attr, owner);
	put(c, b.x0, b.y1, f[2], attr, owner);
	put(c, b.x1, b.y1, f[3], attr, owner);
}

/* The line character for the directions "m" of a cell. */
static uint32_t
line_char(uint8_t m, bool ascii)
{
	static const uint32_t light[16] = {
		' ', 0x2502, 0x2502, 0x2502, 0x2500, 0x2518, 0x2510, 0x2524,
		0x2500, 0x2514, 0x250c, 0x251c, 0x2500, 0x2534, 0x252c, 0x253c
	};
	static const uint32_t heavy[16] = {
		' ', 0x2503, 0x2503, 0x2503, 0x2501, 0x251b, 0x2513, 0x252b,
		0x2501, 0x2517, 0x250f, 0x2523, 0x2501, 0x253b, 0x2533, 0x254b
	};
	uint8_t d = m & 15;

	if (ascii)
		return d == 0 ? ' ' : (d & (LEFT | RIGHT)) == 0 ? '|' :
		    (d & (UP | DOWN)) == 0 ? (m & HEAVY ? '=' : '-') : '+';
	return m & HEAVY ? heavy[d] : light[d];
}

struct cell_path {
	int *xy;
	int n, cap;
};

static void
path_add(struct cell_path *p, int x, int y)
{
	int *g;

	if (p->n && p->xy[2 * p->n - 2] == x && p->xy[2 * p->n - 1] == y)
		return;
	if (p->n == p->cap) {
		g = realloc(p->xy, sizeof *g * 2 * (2 * p->cap + 32));
		if (!g)
			return;
		p->xy = g;
		p->cap = 2 * p->cap + 32;
	}
	p->xy[2 * p->n] = x;
	p->xy[2 * p->n + 1] = y;
	p->n++;
}

/* The cells from (x0, y0) to (x1, y1), one step at a time along x or y,
 * keeping close to the straight line. */
static void
path_walk(struct cell_path *p, int x0, int y0, int x1, int y1)
{
	int nx = abs(x1 - x0), ny = abs(y1 - y0), sx = x1 > x0 ? 1 : -1;
	int sy = y1 > y0 ? 1 : -1, ix = 0, iy = 0;

	path_add(p, x0, y0);
	while (ix < nx || iy < ny) {
		if (iy == ny || (ix < nx && (2 * ix + 1) * ny < (2 * iy + 1) * nx)) {
			x0 += sx;
			ix++;
		} else {
			y0 += sy;
			iy++;
		}
		path_add(p, x0, y0);
	}
}

static void
link_cells(dojo_canvas *c, int x0, int y0, int x1, int y1, bool heavy)
{
	uint8_t a = x1 > x0 ? RIGHT : x1 < x0 ? LEFT : y1 > y0 ? DOWN : UP;
	uint8_t b = a == RIGHT ? LEFT : a == LEFT ? RIGHT : a == DOWN ? UP :
	    DOWN;

	if (x0 >= 0 && y0 >= 0 && x0 < c->w && y0 < c->h)
		c->mask[(size_t)y0 * c->w + x0] |= a | (heavy ? HEAVY : 0);
	if (x1 >= 0 && y1 >= 0 && x1 < c->w && y1 < c->h)
		c->mask[(size_t)y1 * c->w + x1] |= b | (heavy ? HEAVY : 0);
}

static uint32_t
arrow_char(int dx, int dy, bool ascii)
{
	if (dx > 0)
		return ascii ? '>' : 0x25b6;
	if (dx < 0)
		return ascii ? '<' : 0x25c0;
	if (dy < 0)
		return ascii ? '^' : 0x25b2;
	return ascii ? 'v' : 0x25bc;
}

static void
draw_edges(dojo_canvas *c, const dojo_layout *l, const struct view *v,
    struct cell_path *paths)
{
	const struct dojo_layout_edge *e;
	struct cell_path *p;
	size_t i;
	int k, j;

	memset(c->mask, 0, (size_t)c->w * c->h);
	for (k = 0; k < l->n_edges; k++) {
		e = &l->edges[k];
		p = &paths[k];
		for (j = 0; j + 1 < e->npts; j++)
			path_walk(p, cell_x(v, e->pts[2 * j]),
			    cell_y(v, e->pts[2 * j + 1]),
			    cell_x(v, e->pts[2 * j + 2]),
			    cell_y(v, e->pts[2 * j + 3]));
		for (j = 0; j + 1 < p->n; j++) {
			link_cells(c, p->xy[2 * j], p->xy[2 * j + 1],
			    p->xy[2 * j + 2], p->xy[2 * j + 3], e->highlight);
			put(c, p->xy[2 * j], p->xy[2 * j + 1], ' ',
			    DOJO_CELL_EDGE | (e->highlight ?
			    DOJO_CELL_HIGHLIGHT : 0), -(k + 1));
		}
		if (p->n)
			put(c, p->xy[2 * p->n - 2], p->xy[2 * p->n - 1], ' ',
			    DOJO_CELL_EDGE | (e->highlight ?
			    DOJO_CELL_HIGHLIGHT : 0), -(k + 1));
	}
	for (i = 0; i < (size_t)c->w * c->h; i++)
		if (c->mask[i])
			c->ch[i] = line_char(c->mask[i], v->ascii);
}

static void
draw_node(dojo_canvas *c, const dojo_layout *l, const struct view *v, int k)
{
	const struct dojo_layout_node *n = &l->nodes[k];
	struct box b = node_box(v, n);
	uint8_t attr = DOJO_CELL_NODE | (n->highlight ? DOJO_CELL_HIGHLIGHT : 0);
	int style = n->highlight ? 2 : n->square ? 0 : 1, lines, y, len;
	const char *s = n->label;

	frame(c, b, v->ascii ? frames_ascii[style] : frames[style], attr, k + 1,
	    true);
	lines = n_lines(n->label);
	y = b.y0 + 1 + (b.y1 - b.y0 - 1 - lines) / 2;
	if (y < b.y0 + 1)
		y = b.y0 + 1;
	for (; *s && y < b.y1; y++) {
		len = line_len(s);
		if (len > b.x1 - b.x0 - 1)
			len = b.x1 - b.x0 - 1;
		s = put_line(c, b.x0 + 1 + (b.x1 - b.x0 - 1 - len) / 2, y, s,
		    b.x1 - b.x0 - 1, v->ascii, attr, k + 1, 0);
		if (*s == '\n')
			s++;
	}
}

void
dojo_canvas_draw(dojo_canvas *c, const dojo_layout *l,
    const struct dojo_canvas_view *view)
{
	const struct dojo_layout_cluster *cl;
	const struct dojo_layout_edge *e;
	struct cell_path *paths;
	struct view v;
	struct box b;
	size_t i;
	int k, j, x, y, dx, dy, lw, lh;

	for (i = 0; i < (size_t)c->w * c->h; i++) {
		c->ch[i] = ' ';
		c->attr[i] = 0;
		c->owner[i] = 0;
	}
	memset(&v, 0, sizeof v);
	v.zx = v.zy = 1;
	v.height = l->height;
	v.ascii = view && view->ascii;
	if (view && view->fit) {
		dojo_layout_cells(&lw, &lh, l);
		if (lw > c->w)
			v.zx = (double)(c->w - 1) / lw;
		if (lh > c->h)
			v.zy = (double)(c->h - 1) / lh;
	} else if (view) {
		v.px = view->pan_x;
		v.py = view->pan_y;
	}
	/* cluster frames, outer first, labels on their top line */
	for (k = 0; k < l->n_clusters; k++) {
		cl = &l->clusters[k];
		b.x0 = cell_x(&v, cl->x0);
		b.x1 = cell_x(&v, cl->x1);
		b.y0 = cell_y(&v, cl->y1);
		b.y1 = cell_y(&v, cl->y0);
		frame(c, b, v.ascii ? frames_ascii[3] : frames[3],
		    DOJO_CELL_CLUSTER, 0, false);
		put_line(c, b.x0 + 2, b.y0, cl->label, b.x1 - b.x0 - 3, v.ascii,
		    DOJO_CELL_CLUSTER | DOJO_CELL_LABEL, 0, 0);
	}
	paths = calloc(l->n_edges + 1, sizeof *paths);
	if (paths)
		draw_edges(c, l, &v, paths);
	for (k = 0; k < l->n_nodes; k++)
		draw_node(c, l, &v, k);
	/* arrowheads: on the last cell of the path outside the head's box */
	for (k = 0; paths && k < l->n_edges; k++) {
		struct cell_path *p = &paths[k];

		e = &l->edges[k];
		if (!e->arrow || p->n < 2)
			continue;
		for (j = p->n - 1; j > 0; j--)
			if (!(attr_at(c, p->xy[2 * j], p->xy[2 * j + 1]) &
			    DOJO_CELL_NODE))
				break;
		if (j == 0)
			continue;
		x = p->xy[2 * j];
		y = p->xy[2 * j + 1];
		/* pointing into the head, or on along the last step */
		if (j + 1 < p->n) {
			dx = p->xy[2 * j + 2] - x;
			dy = p->xy[2 * j + 3] - y;
		} else {
			dx = x - p->xy[2 * j - 2];
			dy = y - p->xy[2 * j - 1];
		}
		put(c, x, y, arrow_char(dx, dy, v.ascii), DOJO_CELL_EDGE |
		    DOJO_CELL_ARROW | (e->highlight ? DOJO_CELL_HIGHLIGHT : 0),
		    -(k + 1));
	}
	/* edge labels, one line each, centred, never over a node */
	for (k = 0; k < l->n_edges; k++) {
		e = &l->edges[k];
		if (!*e->label)
			continue;
		lw = line_len(e->label);
		x = cell_x(&v, e->lx) - lw / 2;
		y = cell_y(&v, e->ly);
		put_line(c, x, y, e->label, lw, v.ascii, DOJO_CELL_LABEL |
		    (e->highlight ? DOJO_CELL_HIGHLIGHT : 0), -(k + 1),
		    DOJO_CELL_NODE);
	}
	for (k = 0; paths && k < l->n_edges; k++)
		free(paths[k].xy);
	free(paths);
}

static void
utf8_put(struct dojo_strbuf *sb, uint32_t cp)
{
	char b[4];
	int n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | (cp >> 6 & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | cp >> 18;
		b[1] = 0x80 | (cp >> 12 & 0x3f);
		b[2] = 0x80 | (cp >> 6 & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	dojo_strbuf_add(sb, b, n);
}

char *
dojo_canvas_text(const dojo_canvas *c)
{
	struct dojo_strbuf sb;
	size_t keep = 0;
	int x, y, end;
	char *text;

	dojo_strbuf_init(&sb);
	for (y = 0; y < c->h; y++) {
		for (end = c->w; end > 0 && c->ch[(size_t)y * c->w + end - 1] ==
		    ' '; end--)
			;
		for (x = 0; x < end; x++)
			utf8_put(&sb, c->ch[(size_t)y * c->w + x]);
		if (end)
			keep = sb.len + 1;
		dojo_strbuf_puts(&sb, "\n");
	}
	if (!sb.oom)
		sb.len = keep;
	if (sb.s)
		sb.s[sb.len] = 0;
	text = dojo_strbuf_detach(&sb);
	if (!text)
		dojo_error_set("out of memory");
	return text;
}
