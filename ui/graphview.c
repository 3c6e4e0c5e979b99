/* graphview.c: the explorer's graph view: the dependence graph around the
 * cursor (or whole), or the session's tree, drawn from Graphviz's layout */
#include "config.h"
#include "ui/explore.h"
#include "src/util/error.h"
#include "src/core/graph.h"
#include "src/core/layout.h"
#include "ui/canvas.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = {
	"dependences around the cursor", "dependences", "session tree",
};

void
ex_graph_release(struct explorer *ex)
{
	dojo_layout_free(ex->layout);
	ex->layout = NULL;
	ex->layout_key[0] = '\0';
}

/* Highlight the dependence a refusal names: "the dependence of X on Y
 * through B (kind)" is the edge from Y to X of that kind. */
static void
highlight_refusal(dojo_layout *layout, const char *reason)
{
	char x[64], y[64], kind[16];
	const char *p = strstr(reason, "the dependence of ");
	int i, n = dojo_layout_n_edges(layout);

	if (!p || sscanf(p, "the dependence of %63s on %63s through %*s "
	    "(%15[a-z])", x, y, kind) != 3)
		return;
	for (i = 0; i < n; i++) {
		const struct dojo_layout_edge *e = dojo_layout_edge(layout, i);
		const struct dojo_layout_node *t = dojo_layout_node(layout,
		    e->tail), *h = dojo_layout_node(layout, e->head);

		if (strcmp(t->name, y) == 0 && strcmp(h->name, x) == 0 &&
		    (strcmp(kind, "memory") == 0 || strcmp(e->cls, kind) == 0))
			dojo_layout_highlight_edge(layout, i, true);
	}
}

/* Lay the graph of the current mode out again when what it shows
 * changed.  0, or -1 with the last error set. */
static int
update_layout(struct explorer *ex)
{
	struct dojo_graph_options opt = { 0 };
	int path[DOJO_MAX_DEPTH], n = ex_cursor_path(ex, path), i;
	char key[sizeof ex->layout_key], addr[64];
	const char *reason = ex->mv_sel >= ex->nlegal && ex->mv_sel < ex->nmv ?
	    ex->mv[ex->mv_sel].reason : "";
	Agraph_t *g;

	ex_cursor_address(ex, addr, sizeof addr);
	snprintf(key, sizeof key, "%d %s %s %.100s", ex->graph_mode,
	    ex->head.commit, addr, reason);
	if (ex->layout && strcmp(key, ex->layout_key) == 0)
		return 0;
	ex_graph_release(ex);
	if (ex->graph_mode == GRAPH_HISTORY) {
		g = dojo_graph_history(ex->session);
	} else {
		if (n > 0 && ex->graph_mode == GRAPH_AROUND) {
			opt.at = path;
			opt.at_len = n;
			opt.around = 1;
		}
		g = dojo_graph_deps(ex->prog, &opt);
	}
	if (!g)
		return -1;
	/* the operations under the cursor, in the whole graph too */
	if (ex->graph_mode == GRAPH_ALL && n > 0) {
		Agnode_t *node;

		for (node = agfstnode(g); node; node = agnxtnode(g, node)) {
			int p[DOJO_MAX_DEPTH], k = dojo_address_parse(p,
			    agnameof(node));

			if (k >= n && memcmp(p, path, n * sizeof *p) == 0)
				dojo_graph_highlight(node);
		}
		dojo_error_clear();
	}
	ex->layout = dojo_layout_new(g);
	dojo_graph_free(g);
	if (!ex->layout)
		return -1;
	if (reason[0] && ex->graph_mode != GRAPH_HISTORY)
		highlight_refusal(ex->layout, reason);
	/* the dependences of the highlighted operations, highlighted */
	for (i = 0; ex->graph_mode != GRAPH_HISTORY &&
	    i < dojo_layout_n_edges(ex->layout); i++) {
		const struct dojo_layout_edge *e = dojo_layout_edge(ex->layout,
		    i);

		if (!reason[0] && strcmp(e->cls, "read") != 0 &&
		    strcmp(e->cls, "write") != 0 &&
		    (dojo_layout_node(ex->layout, e->tail)->highlight ||
		    dojo_layout_node(ex->layout, e->head)->highlight))
			dojo_layout_highlight_edge(ex->layout, i, true);
	}
	snprintf(ex->layout_key, sizeof ex->layout_key, "%s", key);
	ex->pan_x = ex->pan_y = 0;
	return 0;
}

void
ex_graph_draw(struct explorer *ex, const struct ex_rect *r)
{
	attr_t highlight = ex_attr_highlight(ex);
	struct dojo_canvas_view view = { 0 };
	dojo_canvas *canvas;
	const uint32_t *chars;
	const uint8_t *attrs;
	char title[160];
	int w = r->w - 2, h = r->h - 2, x, y, lw, lh;

	snprintf(title, sizeof title, " graph: %s%s ",
	    mode_names[ex->graph_mode], ex->graph_fit ? "" : " (1:1, pan)");
	ex_frame(ex, r, title, ex->focus == PANE_CODE);
	for (y = 0; y < h; y++)
		mvhline(r->y + 1 + y, r->x + 1, ' ', w);
	if (w < 4 || h < 2)
		return;
	if (update_layout(ex) < 0) {
		mvaddnstr(r->y + 1, r->x + 1, dojo_error_last(), w);
		return;
	}
	dojo_layout_cells(&lw, &lh, ex->layout);
	view.fit = ex->graph_fit && (lw > w || lh > h);
	view.ascii = !ex->utf8;
	if (ex->pan_x > lw - w)
		ex->pan_x = lw - w > 0 ? lw - w : 0;
	if (ex->pan_y > lh - h)
		ex->pan_y = lh - h > 0 ? lh - h : 0;
	view.pan_x = ex->pan_x;
	view.pan_y = ex->pan_y;
	canvas = dojo_canvas_new(w, h);
	if (!canvas)
		return;
	dojo_canvas_draw(canvas, ex->layout, &view);
	chars = dojo_canvas_chars(canvas);
	attrs = dojo_canvas_attrs(canvas);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++) {
			wchar_t wc = (wchar_t)chars[y * w + x];
			uint8_t a = attrs[y * w + x];
			attr_t at = 0;

			if (wc == ' ' || wc == 0)
				continue;
			if (a & DOJO_CELL_HIGHLIGHT)
				at = highlight;
			else if (a & (DOJO_CELL_LABEL | DOJO_CELL_CLUSTER))
				at = A_DIM;
			else if (a & DOJO_CELL_NODE)
				at = A_BOLD;
			attron(at);
			mvaddnwstr(r->y + 1 + y, r->x + 1 + x, &wc, 1);
			attroff(at);
		}
	dojo_canvas_free(canvas);
}

/* The edges of the graph on the screen, one a line: "TAIL -> HEAD
 * CLASS", then " highlighted" when drawn highlighted (for the headless
 * script's "edges FILE": screen dumps have no attributes).  0, or -1
 * with the last error set. */
int
ex_graph_edges(struct explorer *ex, const char *path)
{
	const struct dojo_layout_edge *e;
	FILE *f;
	int i;

	if (!ex->layout)
		return dojo_error_set("no graph on the screen (g opens it)");
	f = fopen(path, "w");
	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	for (i = 0; i < dojo_layout_n_edges(ex->layout); i++) {
		e = dojo_layout_edge(ex->layout, i);
		fprintf(f, "%s -> %s %s%s\n",
		    dojo_layout_node(ex->layout, e->tail)->name,
		    dojo_layout_node(ex->layout, e->head)->name,
		    e->cls, e->highlight ? " highlighted" : "");
	}
	if (fclose(f) != 0)
		return dojo_error_set("%s: %s", path, strerror(errno));
	return 0;
}

/* The graph view's keys (the key table of explore.c): pan the picture at
 * 1:1 by "d" cells across or down (never before its top left corner);
 * fit the pane or 1:1; the next mode. */
void
ex_graph_pan_x(struct explorer *ex, int d)
{
	ex->pan_x = ex->pan_x + d > 0 ? ex->pan_x + d : 0;
}

void
ex_graph_pan_y(struct explorer *ex, int d)
{
	ex->pan_y = ex->pan_y + d > 0 ? ex->pan_y + d : 0;
}

void
ex_graph_fit(struct explorer *ex, int arg)
{
	ex->graph_fit = !ex->graph_fit;
}

void
ex_graph_next(struct explorer *ex, int arg)
{
	ex->graph_mode = (ex->graph_mode + 1) % GRAPH_MODES;
}
