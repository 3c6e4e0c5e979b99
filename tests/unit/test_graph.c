/* test_graph.c: the layout (src/core/layout.h) and the canvas
 * (ui/canvas.h) on graphs built by hand (any Agraph_t, as the exploration
 * tree will be), and the neighbourhood of highlighted nodes */
#include "config.h"
#include "src/core/graph.h"
#include "src/core/layout.h"
#include "ui/canvas.h"
#include "tests/unit/unit.h"
#include "ir/program.h"

#include <stdlib.h>
#include <string.h>

int unit_failed;

/* a -> b -> c -> d, in a cluster around b and c, "b" highlighted */
static Agraph_t *
chain(void)
{
	Agraph_t *g = agopen((char *)"t", Agdirected, NULL), *sub;
	Agnode_t *a, *b, *c, *d;

	agattr(g, AGNODE, (char *)"label", (char *)"\\N");
	sub = agsubg(g, (char *)"cluster_bc", 1);
	agsafeset(sub, (char *)"label", (char *)"BC", (char *)"");
	a = agnode(g, (char *)"a", 1);
	b = agnode(sub, (char *)"b", 1);
	c = agnode(sub, (char *)"c", 1);
	d = agnode(g, (char *)"d", 1);
	agsafeset(a, (char *)"label", (char *)"alpha\\nfirst", (char *)"");
	agsafeset(b, (char *)"shape", (char *)"box", (char *)"");
	agsafeset(b, (char *)"class", (char *)"op", (char *)"");
	dojo_graph_highlight(b);
	agedge(g, a, b, NULL, 1);
	agedge(g, b, c, NULL, 1);
	agsafeset(agedge(g, c, d, NULL, 1), (char *)"label", (char *)"cd",
	    (char *)"");
	return g;
}

static int
count_owner(const dojo_canvas *cv, int owner, uint8_t flag)
{
	int i, n = 0;

	for (i = 0; i < dojo_canvas_width(cv) * dojo_canvas_height(cv); i++)
		if (dojo_canvas_owners(cv)[i] == owner &&
		    (dojo_canvas_attrs(cv)[i] & flag))
			n++;
	return n;
}

static void
test_layout(void)
{
	Agraph_t *g = chain();
	dojo_layout *l = dojo_layout_new(g);
	const struct dojo_layout_node *a, *b, *d;
	const struct dojo_layout_edge *e;
	int i;

	CHECK(l != NULL);
	if (!l)
		return;
	CHECK(dojo_layout_n_nodes(l) == 4);
	CHECK(dojo_layout_n_edges(l) == 3);
	CHECK(dojo_layout_n_clusters(l) == 1);
	CHECK_STR("BC", dojo_layout_cluster(l, 0)->label);
	a = dojo_layout_node(l, dojo_layout_find(l, "a"));
	b = dojo_layout_node(l, dojo_layout_find(l, "b"));
	d = dojo_layout_node(l, dojo_layout_find(l, "d"));
	CHECK(dojo_layout_find(l, "zz") == -1);
	CHECK_STR("alpha\nfirst", a->label);
	CHECK_STR("d", d->label);
	CHECK_STR("op", b->cls);
	CHECK(b->square && !a->square);
	CHECK(b->highlight && !a->highlight);
	/* dot ranks top down: y grows up, so a is above d */
	CHECK(a->y > d->y);
	CHECK(dojo_layout_height(l) >= a->y && dojo_layout_width(l) > 0);
	for (i = 0; i < dojo_layout_n_edges(l); i++) {
		e = dojo_layout_edge(l, i);
		CHECK(e->npts >= 2 && e->arrow);
		/* the polyline runs from the tail down to the head */
		CHECK(e->pts[1] > e->pts[2 * e->npts - 1]);
		if (strcmp(dojo_layout_node(l, e->tail)->name, "c") == 0)
			CHECK_STR("cd", e->label);
	}
	dojo_layout_free(l);
	dojo_graph_free(g);
}

static void
test_canvas(void)
{
	struct dojo_canvas_view view = { 0 };
	Agraph_t *g = chain();
	dojo_layout *l = dojo_layout_new(g);
	dojo_canvas *cv;
	char *text;
	int w, h, ib, i, edge_cells = 0, arrows = 0;

	CHECK(l != NULL);
	if (!l)
		return;
	dojo_layout_cells(&w, &h, l);
	CHECK(w > 10 && h > 12);
	cv = dojo_canvas_new(w, h);
	dojo_canvas_draw(cv, l, &view);
	text = dojo_canvas_text(cv);
	CHECK(text && strstr(text, "alpha") && strstr(text, "first"));
	CHECK(text && strstr(text, "BC") && strstr(text, "cd"));
	CHECK(text && strstr(text, "\u2503"));		/* heavy: b */
	CHECK(text && strstr(text, "\u256d"));		/* rounded: a */
	free(text);
	ib = dojo_layout_find(l, "b");
	CHECK(count_owner(cv, ib + 1, DOJO_CELL_HIGHLIGHT) > 0);
	CHECK(count_owner(cv, dojo_layout_find(l, "a") + 1,
	    DOJO_CELL_HIGHLIGHT) == 0);
	for (i = 0; i < w * h; i++) {
		edge_cells += (dojo_canvas_attrs(cv)[i] & DOJO_CELL_EDGE) != 0;
		arrows += (dojo_canvas_attrs(cv)[i] & DOJO_CELL_ARROW) != 0;
		if (dojo_canvas_attrs(cv)[i] & DOJO_CELL_EDGE)
			CHECK(dojo_canvas_owners(cv)[i] < 0);
	}
	CHECK(edge_cells > 0);
	CHECK(arrows == 3);
	if (arrows != 3) {
		text = dojo_canvas_text(cv);
		printf("%s", text);
		free(text);
	}
	/* ASCII */
	view.ascii = true;
	dojo_canvas_draw(cv, l, &view);
	text = dojo_canvas_text(cv);
	for (i = 0; text && text[i]; i++)
		CHECK((unsigned char)text[i] < 0x80);
	CHECK(text && strstr(text, "alpha"));
	free(text);
	dojo_canvas_free(cv);
	/* panned at 1:1: the top rows are gone */
	cv = dojo_canvas_new(w, h);
	view.pan_y = h - 4;
	dojo_canvas_draw(cv, l, &view);
	text = dojo_canvas_text(cv);
	CHECK(text && !strstr(text, "alpha"));
	free(text);
	dojo_canvas_free(cv);
	/* fitted into a small canvas: nothing outside, the names still in */
	cv = dojo_canvas_new(12, 12);
	view.pan_y = 0;
	view.fit = true;
	dojo_canvas_draw(cv, l, &view);
	text = dojo_canvas_text(cv);
	CHECK(text && strstr(text, "b") && strstr(text, "d"));
	CHECK(text && strlen(text) <= 12 * 13);
	free(text);
	dojo_canvas_free(cv);
	CHECK(dojo_canvas_new(0, 5) == NULL);
	dojo_layout_free(l);
	dojo_graph_free(g);
}

static void
test_keep_around(void)
{
	Agraph_t *g = chain();

	CHECK(dojo_graph_keep_around(g, 1) == 0);
	CHECK(agnnodes(g) == 3);
	CHECK(agnode(g, (char *)"d", 0) == NULL);
	CHECK(agnode(g, (char *)"a", 0) != NULL);
	CHECK(agfstsubg(g) != NULL);
	dojo_graph_free(g);
	g = chain();
	CHECK(dojo_graph_keep_around(g, 2) == 0);
	CHECK(agnnodes(g) == 4);
	dojo_graph_free(g);
	/* no highlighted node: an error */
	g = agopen((char *)"t", Agdirected, NULL);
	agnode(g, (char *)"x", 1);
	CHECK(dojo_graph_keep_around(g, 1) < 0);
	dojo_graph_free(g);
}

static void
test_formats(void)
{
	enum dojo_graph_format f;
	Agraph_t *g = chain();
	char *data;
	size_t len;

	CHECK(dojo_graph_format_of_path(&f, "x/y.svg") == 0 &&
	    f == DOJO_GRAPH_SVG);
	CHECK(dojo_graph_format_of_path(&f, "y.gv") == 0 &&
	    f == DOJO_GRAPH_DOT);
	CHECK(dojo_graph_format_of_path(&f, "a.b/y") < 0);
	CHECK(dojo_graph_format_parse(&f, "jpeg") < 0);
	CHECK(dojo_graph_render(&data, &len, g, DOJO_GRAPH_PNG) == 0);
	CHECK(data && len > 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0);
	free(data);
	CHECK(dojo_graph_render(&data, &len, g, DOJO_GRAPH_DOT) == 0);
	CHECK(data && strstr(data, "cluster_bc") && strlen(data) == len);
	free(data);
	dojo_graph_free(g);
}

/* Whether the cells of node "owner" form its whole box: no other node
 * drawn over part of it (and it is drawn at all). */
static bool
whole_box(const dojo_canvas *cv, int owner)
{
	int w = dojo_canvas_width(cv), h = dojo_canvas_height(cv), x, y;
	int x0 = w, x1 = -1, y0 = h, y1 = -1, n = 0;

	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			if (dojo_canvas_owners(cv)[y * w + x] == owner &&
			    (dojo_canvas_attrs(cv)[y * w + x] & DOJO_CELL_NODE)) {
				n++;
				x0 = x < x0 ? x : x0;
				x1 = x > x1 ? x : x1;
				y0 = y < y0 ? y : y0;
				y1 = y > y1 ? y : y1;
			}
	/* a box cut by the canvas's edge is whole too */
	return n > 0 && n == (x1 - x0 + 1) * (y1 - y0 + 1);
}

/* A padded 3x3 convolution: the dependence graph the explorer fits into
 * its lower pane, whose boxes overlapped when the pane was small. */
static void
test_fitted(void)
{
	static const char text[] =
	    "x f32 [1, 8, 12, 12] heap in\n"
	    "w f32 [8, 8, 3, 3] heap in\n"
	    "bias f32 [8] heap in\n"
	    "y f32 [1, 8, 10, 10] heap out\n"
	    "xp f32 [1, 8, 14, 14] heap\n"
	    "1 | 8 | 14 | 14 | xp[{0}, {1}, {2}, {3}] = 0\n"
	    "1 | 8 | 12 | 12 | xp[{0}, {1}, {2} + 1, {3} + 1] = x[{0}, {1}, {2}, {3}]\n"
	    "1 | 8 | 10 | 10 | y[{0}, {1}, {2}, {3}] = bias[{1}]\n"
	    "  |   |    |    | 8 | 3 | 3 | y[{0}, {1}, {2}, {3}] += "
	    "xp[{0}, {4}, {2} + {5}, {3} + {6}] * w[{1}, {4}, {5}, {6}]\n";
	static const int sizes[][2] = { { 100, 12 }, { 64, 20 }, { 40, 10 },
	    { 120, 30 }, { 64, 10 }, { 62, 9 }, { 80, 8 } };
	struct dojo_canvas_view view = { 0 };
	struct dojo_graph_options opt = { 0 };
	dojo_program *p = dojo_program_parse("conv.dojo", text, strlen(text));
	Agraph_t *g = p ? dojo_graph_deps(p, &opt) : NULL;
	dojo_layout *l = g ? dojo_layout_new(g) : NULL;
	dojo_canvas *cv;
	size_t i;
	int k, bad;

	CHECK(l != NULL);
	view.fit = true;
	for (i = 0; l && i < sizeof sizes / sizeof *sizes; i++) {
		cv = dojo_canvas_new(sizes[i][0], sizes[i][1]);
		dojo_canvas_draw(cv, l, &view);
		for (k = 0, bad = 0; k < dojo_layout_n_nodes(l); k++)
			bad += !whole_box(cv, k + 1);
		/* an edge's label is whole, or left out: never cut by
		 * another's */
		for (k = 0; k < dojo_layout_n_edges(l); k++) {
			const struct dojo_layout_edge *e = dojo_layout_edge(l, k);
			int n = count_owner(cv, -(k + 1), DOJO_CELL_LABEL);

			bad += n != 0 && n != (int)strlen(e->label);
		}
		CHECK(bad == 0);
		if (bad) {
			char *t = dojo_canvas_text(cv);

			printf("# %d nodes cut at %dx%d:\n%s", bad, sizes[i][0],
			    sizes[i][1], t ? t : "");
			free(t);
		}
		dojo_canvas_free(cv);
	}
	dojo_layout_free(l);
	dojo_graph_free(g);
	dojo_program_free(p);
}

static const struct unit_test tests[] = {
	{ "a layout reads Graphviz's geometry", test_layout },
	{ "the canvas draws boxes, edges, arrows and labels", test_canvas },
	{ "the neighbourhood of highlighted nodes", test_keep_around },
	{ "a fitted view draws every node whole, none over another",
	    test_fitted },
	{ "formats and rendering", test_formats },
	{ NULL, NULL }
};

int
main(void)
{
	int rc = unit_run(tests);

	dojo_graph_cleanup();
	return rc;
}
