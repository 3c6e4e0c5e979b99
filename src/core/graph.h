/* graph.h: graphs of programs (Graphviz cgraph) and their DOT/SVG/PNG
 * output; their layout is src/core/layout.h, the character canvas for the
 * terminal ui/canvas.h */
#ifndef DOJO_GRAPH_H
#define DOJO_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include <graphviz/cgraph.h>

#include "ir/program.h"

/*
 * Building.  A graph is a plain cgraph Agraph_t: whoever builds one (the
 * dependence graph here, the exploration tree later) hands it to the
 * layout (src/core/layout.h), the renderers below and the canvas
 * (ui/canvas.h), which read only Graphviz's own attributes plus three of
 * ours:
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
    __dojo_keep const struct dojo_graph_options *opt);
void dojo_graph_free(__dojo_take Agraph_t *g);

/* The exploration tree of session "s": a node per state (named by its
 * commit id, labelled with the short id, the action and the speedup or
 * the outcome; class "state", "best" for the best state of the C target,
 * "failed" for a failed measurement), the current state highlighted, an
 * edge from each parent to its children.  NULL with the last error set. */
struct dojo_session;
__dojo_give Agraph_t *dojo_graph_history(__dojo_keep struct dojo_session *s);

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
int dojo_graph_format_parse(enum dojo_graph_format *out,
    const char *name);
/* The format named by the extension of "path". */
int dojo_graph_format_of_path(enum dojo_graph_format *out,
    const char *path);
/* "g" in "format" (DOT: the graph as built, without layout; SVG, PNG:
 * laid out with dot), in a malloc'ed buffer of "*len" bytes. */
int dojo_graph_render(char **out, size_t *len, Agraph_t *g,
    enum dojo_graph_format format);

#endif
