/* canvas.c: a layout drawn into a grid of character cells for the
 * terminal (box drawing or ASCII), which the graph view and
 * `perfdojo graph --text` show */
#include "config.h"
#include "ui/canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/util/error.h"
#include "src/util/strbuf.h"


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
 * the first line along an axis the view shrinks, and only if "grow"). */
static struct box
node_box(const struct view *v, const struct dojo_layout_node *n, bool grow)
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
	/* at 1:1 the box holds its label; shrunk, its first line (an
	 * address) */
	if ((grow || v->zx >= 1) &&
	    w < (v->zx >= 1 ? widest : line_len(n->label)) + 2)
		w = (v->zx >= 1 ? widest : line_len(n->label)) + 2;
	if (v->zy >= 1 && h < lines + 2)
		h = lines + 2;
	if (w < 3)
		w = 3;
	/* too flat for a frame: one row, "[label]", so that boxes do not
	 * overlap when Graphviz's nodes do not */
	if (h < 3)
		h = v->zy >= 1 ? 3 : 1;
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
	struct view v = { 1, 1, dojo_layout_height(l), 0, 0, false };
	struct box b;
	int i;

	*width = cell_x(&v, dojo_layout_width(l)) + 1;
	*height = cell_y(&v, 0) + 1;
	for (i = 0; i < dojo_layout_n_nodes(l); i++) {
		b = node_box(&v, dojo_layout_node(l, i), true);
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
	for (k = 0; k < dojo_layout_n_edges(l); k++) {
		e = dojo_layout_edge(l, k);
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

/* Whether a cell of "b" belongs to a node drawn already. */
static bool
covers_node(const dojo_canvas *c, struct box b)
{
	int x, y;

	for (y = b.y0; y <= b.y1; y++)
		for (x = b.x0; x <= b.x1; x++)
			if (attr_at(c, x, y) & DOJO_CELL_NODE)
				return true;
	return false;
}

static void
draw_node(dojo_canvas *c, const dojo_layout *l, const struct view *v, int k)
{
	const struct dojo_layout_node *n = dojo_layout_node(l, k);
	struct box b = node_box(v, n, true);
	uint8_t attr = DOJO_CELL_NODE | (n->highlight ? DOJO_CELL_HIGHLIGHT : 0);
	int style = n->highlight ? 2 : n->square ? 0 : 1, lines, y, len;
	const char *s = n->label;
	int x;

	/* grown over a node drawn before: its scaled size, the label cut */
	if (covers_node(c, b))
		b = node_box(v, n, false);
	if (b.y0 == b.y1) {
		/* one row: the first line of the label between brackets */
		put(c, b.x0, b.y0, '[', attr, k + 1);
		put(c, b.x1, b.y0, ']', attr, k + 1);
		for (x = b.x0 + 1; x < b.x1; x++)
			put(c, x, b.y0, ' ', attr, k + 1);
		len = line_len(s);
		if (len > b.x1 - b.x0 - 1)
			len = b.x1 - b.x0 - 1;
		put_line(c, b.x0 + 1 + (b.x1 - b.x0 - 1 - len) / 2, b.y0, s,
		    b.x1 - b.x0 - 1, v->ascii, attr, k + 1, 0);
		return;
	}
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
	v.height = dojo_layout_height(l);
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
	for (k = 0; k < dojo_layout_n_clusters(l); k++) {
		cl = dojo_layout_cluster(l, k);
		b.x0 = cell_x(&v, cl->x0);
		b.x1 = cell_x(&v, cl->x1);
		b.y0 = cell_y(&v, cl->y1);
		b.y1 = cell_y(&v, cl->y0);
		frame(c, b, v.ascii ? frames_ascii[3] : frames[3],
		    DOJO_CELL_CLUSTER, 0, false);
		put_line(c, b.x0 + 2, b.y0, cl->label, b.x1 - b.x0 - 3, v.ascii,
		    DOJO_CELL_CLUSTER | DOJO_CELL_LABEL, 0, 0);
	}
	paths = calloc(dojo_layout_n_edges(l) + 1, sizeof *paths);
	if (paths)
		draw_edges(c, l, &v, paths);
	for (k = 0; k < dojo_layout_n_nodes(l); k++)
		draw_node(c, l, &v, k);
	/* arrowheads: on the last cell of the path outside the head's box */
	for (k = 0; paths && k < dojo_layout_n_edges(l); k++) {
		struct cell_path *p = &paths[k];

		e = dojo_layout_edge(l, k);
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
	/* edge labels, one line each, centred, never over a node or another
	 * label: one that has no room is left out (1:1 shows it) */
	for (k = 0; k < dojo_layout_n_edges(l); k++) {
		e = dojo_layout_edge(l, k);
		if (!*e->label)
			continue;
		lw = line_len(e->label);
		x = cell_x(&v, e->lx) - lw / 2;
		y = cell_y(&v, e->ly);
		for (j = 0; j < lw; j++)
			if (attr_at(c, x + j, y) & (DOJO_CELL_NODE |
			    DOJO_CELL_LABEL))
				break;
		if (j < lw)
			continue;
		put_line(c, x, y, e->label, lw, v.ascii, DOJO_CELL_LABEL |
		    (e->highlight ? DOJO_CELL_HIGHLIGHT : 0), -(k + 1),
		    DOJO_CELL_NODE);
	}
	for (k = 0; paths && k < dojo_layout_n_edges(l); k++)
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
