/* layout.c: Graphviz's dot layout of a graph read back: node boxes, edge
 * splines as polylines and cluster boxes, in points */
#include "config.h"
#include "src/core/layout.h"

#include <stdlib.h>
#include <string.h>

#include <graphviz/gvc.h>

#include "src/util/error.h"
#include "src/core/graph_private.h"

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
	d->cls = dup_str(dojo_graph_get(e, "class"));
	d->highlight = strcmp(dojo_graph_get(e, "highlight"), "true") == 0;
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

	dojo_graph_quiet();
	l = calloc(1, sizeof *l);
	if (!l || !(l->nodes = calloc(nn + 1, sizeof *l->nodes)) ||
	    !(l->edges = calloc(ne + 1, sizeof *l->edges)) ||
	    !(l->agnodes = calloc(nn + 1, sizeof *l->agnodes))) {
		dojo_layout_free(l);
		dojo_error_set("out of memory");
		return NULL;
	}
	gvc = dojo_graph_context();
	if (!gvc) {
		dojo_layout_free(l);
		return NULL;
	}
	if (gvLayout(gvc, g, "dot") != 0) {
		dojo_graph_error("graph layout failed");
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
		d->cls = dup_str(dojo_graph_get(n, "class"));
		if (!d->name || !d->label || !d->cls)
			goto out_oom;
		d->x = ND_coord(n).x - origin.x;
		d->y = ND_coord(n).y - origin.y;
		d->w = ND_width(n) * 72;
		d->h = ND_height(n) * 72;
		d->square = is_square(dojo_graph_get(n, "shape"));
		d->highlight = strcmp(dojo_graph_get(n, "highlight"),
		    "true") == 0;
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
