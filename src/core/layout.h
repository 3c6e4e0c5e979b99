/* layout.h: Graphviz's dot layout of a graph (src/core/graph.h) read
 * back: node boxes, edge splines and cluster boxes */
#ifndef DOJO_LAYOUT_H
#define DOJO_LAYOUT_H

#include <stdbool.h>

#include <graphviz/cgraph.h>

#include "src/util/error.h"

/* The geometry is in points, y growing up from the bottom of the bounding
 * box (0, 0) - (width, height).  The node, edge and cluster records are
 * read-only data; the container is opaque. */
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
double dojo_layout_width(__dojo_keep const dojo_layout *layout);
double dojo_layout_height(__dojo_keep const dojo_layout *layout);
int dojo_layout_n_nodes(__dojo_keep const dojo_layout *layout);
const struct dojo_layout_node *dojo_layout_node(
    __dojo_keep const dojo_layout *layout, int i);
int dojo_layout_n_edges(__dojo_keep const dojo_layout *layout);
const struct dojo_layout_edge *dojo_layout_edge(
    __dojo_keep const dojo_layout *layout, int i);
int dojo_layout_n_clusters(__dojo_keep const dojo_layout *layout);
const struct dojo_layout_cluster *dojo_layout_cluster(
    __dojo_keep const dojo_layout *layout, int i);
/* The index of the node named "name", or -1. */
int dojo_layout_find(__dojo_keep const dojo_layout *layout, const char *name);
/* Change the highlight of node "i" (edge "i" for the second). */
void dojo_layout_highlight_node(__dojo_keep dojo_layout *layout, int i,
    bool on);
void dojo_layout_highlight_edge(__dojo_keep dojo_layout *layout, int i,
    bool on);

#endif
