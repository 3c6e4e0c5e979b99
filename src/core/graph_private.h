/* graph_private.h: what the files of the graph module (graph.c,
 * graph_render.c, layout.c) share of Graphviz: its messages and the one
 * context of the process.  Not for use outside src/core. */
#ifndef DOJO_GRAPH_PRIVATE_H
#define DOJO_GRAPH_PRIVATE_H

#include <graphviz/gvc.h>

/* Keep Graphviz's messages from stderr (call before working with it). */
void dojo_graph_quiet(void);
/* Set the last error to "what" and Graphviz's last message, if any;
 * always returns -1. */
int dojo_graph_error(const char *what);
/* The attribute "name" of a graph, node or edge "obj", "" when unset. */
const char *dojo_graph_get(void *obj, const char *name);
/* The Graphviz context of the process, started on first use (freed by
 * dojo_graph_cleanup); NULL with the last error set. */
GVC_t *dojo_graph_context(void);

#endif
