/* graph_render.c: a graph written out: DOT as built, or SVG and PNG laid
 * out with dot and rendered by gvc */
#include "config.h"
#include "src/core/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "src/util/error.h"
#include "src/core/graph_private.h"

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

	dojo_graph_quiet();
	*out = NULL;
	*len = 0;
	if (format == DOJO_GRAPH_DOT)
		return render_dot(out, len, g);
	gvc = dojo_graph_context();
	if (!gvc)
		return -1;
	if (gvLayout(gvc, g, "dot") != 0)
		return dojo_graph_error("graph layout failed");
	if (gvRenderData(gvc, g, format == DOJO_GRAPH_SVG ? "svg" : "png",
	    &data, &n) != 0 || !data) {
		dojo_graph_error(format == DOJO_GRAPH_SVG ?
		    "cannot render SVG" : "cannot render PNG");
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
