/* graph.h: graphs of programs (Graphviz cgraph), their layout with gvc,
 * DOT/SVG/PNG output, and a character canvas for the terminal */
#ifndef DOJO_GRAPH_H
#define DOJO_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <graphviz/cgraph.h>

#include "ir/program.h"

/*
 * Building.  A graph is a plain cgraph Agraph_t: whoever builds one (the
 * dependence graph here, the exploration tree later) hands it to the
 * layout, the renderers and the canvas below, which read only Graphviz's
 * own attributes plus three of ours:
 *   "class"      a word naming the kind of a node or edge (op, array,
 *                flow, anti, output, read, write), for styles and colours;
 *   "highlight"  "true" on highlighted nodes and edges;
 *   "shape"      Graphviz's; "box" is drawn square, the rest rounded.
 */
struct dojo_graph_options {
	const int *at;		/* the subtree to draw (NULL: the program) */
	int at_len;
	int around;		/* > 0: instead, the operations under "at",
				   highlighted, and every node within
				   "around" edges of them */
	bool no_arrays;		/* leave out arrays and their accesses */
};

/* The dependence graph of "prog": a node per operation (named by its
 * address, labelled with address and text), a node per array (named by
 * the array), edges for the flow, anti and output dependences of
 * ir/deps.h (labelled with the array and the direction vectors) and for
 * the accesses, scopes as nested clusters "cluster_ADDRESS".  NULL with
 * the last error set. */
__dojo_give Agraph_t *dojo_graph_deps(__dojo_keep dojo_program *prog,
    const struct dojo_graph_options *opt);
void dojo_graph_free(__dojo_take Agraph_t *g);

/* The exploration tree of session "s": a node per state (named by its
 * commit id, labelled with the short id, the action and the speedup or
 * the outcome; class "state", "best" for the best state of the C target,
 * "failed" for a failed measurement), the current state highlighted, an
 * edge from each parent to its children.  NULL with the last error set. */
struct dojo_session;
__dojo_give Agraph_t *dojo_graph_history(struct dojo_session *s);

/* Mark a node or edge highlighted (the "highlight" attribute, a thick
 * pen). */
void dojo_graph_highlight(void *obj);
/* Keep in "g" only the nodes within "distance" edges, either way, of its
 * highlighted nodes, and the clusters still holding a node.  0, or -1
 * with the last error set (no highlighted node). */
int dojo_graph_keep_around(Agraph_t *g, int distance);

/* Free the Graphviz context that layouts and renderings share, once, at
 * the end of the process (Graphviz 2.43 cannot start a second one). */
void dojo_graph_cleanup(void);

/*
 * Output.
 */
enum dojo_graph_format { DOJO_GRAPH_DOT, DOJO_GRAPH_SVG, DOJO_GRAPH_PNG };

/* "dot" (or "gv"), "svg", "png".  0, or -1 with the last error set. */
int dojo_graph_format_parse(enum dojo_graph_format *out, const char *name);
/* The format named by the extension of "path". */
int dojo_graph_format_of_path(enum dojo_graph_format *out, const char *path);
/* "g" in "format" (DOT: the graph as built, without layout; SVG, PNG:
 * laid out with dot), in a malloc'ed buffer of "*len" bytes. */
int dojo_graph_render(char **out, size_t *len, Agraph_t *g,
    enum dojo_graph_format format);

/*
 * Geometry: Graphviz's dot layout read back, in points, y growing up
 * from the bottom of the bounding box (0, 0) - (width, height).
 */
typedef struct dojo_layout dojo_layout;

struct dojo_layout_node {
	const char *name;
	const char *label;	/* lines separated by '\n' */
	const char *cls;	/* the "class" attribute, "" when none */
	double x, y;		/* centre */
	double w, h;		/* size */
	bool square;		/* box shape; else drawn rounded */
	bool highlight;
};

struct dojo_layout_edge {
	int tail, head;		/* node indices */
	const char *label;	/* "" when none */
	const char *cls;
	double lx, ly;		/* centre of the label */
	int npts;
	const double *pts;	/* x0, y0, x1, y1, ...: the splines as a
				   polyline, tail to head */
	bool arrow;		/* an arrowhead at the head */
	bool highlight;
};

struct dojo_layout_cluster {
	const char *label;
	double x0, y0, x1, y1;	/* the box */
	int depth;		/* 0 for a top-level cluster */
};

/* Lay "g" out with dot and read the geometry.  NULL with the last error
 * set. */
__dojo_give dojo_layout *dojo_layout_new(__dojo_keep Agraph_t *g);
void dojo_layout_free(__dojo_take dojo_layout *layout);
double dojo_layout_width(const dojo_layout *layout);
double dojo_layout_height(const dojo_layout *layout);
int dojo_layout_n_nodes(const dojo_layout *layout);
const struct dojo_layout_node *dojo_layout_node(const dojo_layout *layout,
    int i);
int dojo_layout_n_edges(const dojo_layout *layout);
const struct dojo_layout_edge *dojo_layout_edge(const dojo_layout *layout,
    int i);
int dojo_layout_n_clusters(const dojo_layout *layout);
const struct dojo_layout_cluster *dojo_layout_cluster(
    const dojo_layout *layout, int i);
/* The index of the node named "name", or -1. */
int dojo_layout_find(const dojo_layout *layout, const char *name);
/* Change the highlight of node "i" (edge "i" for the second). */
void dojo_layout_highlight_node(dojo_layout *layout, int i, bool on);
void dojo_layout_highlight_edge(dojo_layout *layout, int i, bool on);
/* The cells the whole layout takes at 1:1 (DOJO_CANVAS_CELL_W by
 * DOJO_CANVAS_CELL_H points a cell). */
void dojo_layout_cells(int *width, int *height, const dojo_layout *layout);

/*
 * The canvas: W x H cells, each a code point, attribute flags and the
 * element it shows, which a terminal front end copies to the screen.
 */
#define DOJO_CANVAS_CELL_W 8.4	/* points: a 14 pt Courier character */
#define DOJO_CANVAS_CELL_H 12.0

enum {
	DOJO_CELL_NODE = 1 << 0,	/* a node's box or label */
	DOJO_CELL_EDGE = 1 << 1,	/* an edge's line */
	DOJO_CELL_ARROW = 1 << 2,	/* an arrowhead */
	DOJO_CELL_LABEL = 1 << 3,	/* an edge's or cluster's label */
	DOJO_CELL_CLUSTER = 1 << 4,	/* a cluster's frame */
	DOJO_CELL_HIGHLIGHT = 1 << 5,	/* of a highlighted node or edge */
};

struct dojo_canvas_view {
	bool fit;		/* scale down to fit (each axis on its own,
				   never up); else 1:1 */
	int pan_x, pan_y;	/* at 1:1, the layout's cell at the top left */
	bool ascii;		/* ASCII instead of UTF-8 box drawing */
};

typedef struct dojo_canvas dojo_canvas;

/* A blank canvas of "width" x "height" cells; NULL with the last error
 * set. */
__dojo_give dojo_canvas *dojo_canvas_new(int width, int height);
void dojo_canvas_free(__dojo_take dojo_canvas *canvas);
int dojo_canvas_width(const dojo_canvas *canvas);
int dojo_canvas_height(const dojo_canvas *canvas);
/* Clear "canvas" and draw "layout" on it as "view" says: cluster frames,
 * then edges, nodes, arrowheads and labels. */
void dojo_canvas_draw(dojo_canvas *canvas, const dojo_layout *layout,
    const struct dojo_canvas_view *view);
/* Row-major arrays of width * height cells: the code points, the
 * DOJO_CELL_ flags, and the element shown (0 none, i + 1 node i,
 * -(i + 1) edge i). */
const uint32_t *dojo_canvas_chars(const dojo_canvas *canvas);
const uint8_t *dojo_canvas_attrs(const dojo_canvas *canvas);
const int *dojo_canvas_owners(const dojo_canvas *canvas);
/* The canvas as UTF-8 lines, trailing blanks and blank last lines left
 * out (malloc'ed; NULL with the last error set). */
char *dojo_canvas_text(const dojo_canvas *canvas);

#endif
