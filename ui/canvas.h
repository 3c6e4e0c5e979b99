/* canvas.h: a layout (src/core/layout.h) drawn into character cells for
 * the terminal */
#ifndef DOJO_CANVAS_H
#define DOJO_CANVAS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/util/error.h"
#include "src/core/layout.h"

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

/* The cells the whole layout takes at 1:1 (DOJO_CANVAS_CELL_W by
 * DOJO_CANVAS_CELL_H points a cell): a measure of the layout, here as
 * the cells are the canvas's. */
void dojo_layout_cells(int *width, int *height,
    __dojo_keep const dojo_layout *layout);

/* A blank canvas of "width" x "height" cells; NULL with the last error
 * set. */
__dojo_give dojo_canvas *dojo_canvas_new(int width, int height);
void dojo_canvas_free(__dojo_take dojo_canvas *canvas);
int dojo_canvas_width(__dojo_keep const dojo_canvas *canvas);
int dojo_canvas_height(__dojo_keep const dojo_canvas *canvas);
/* Clear "canvas" and draw "layout" on it as "view" says: cluster frames,
 * then edges, nodes, arrowheads and labels. */
void dojo_canvas_draw(__dojo_keep dojo_canvas *canvas,
    __dojo_keep const dojo_layout *layout,
    __dojo_keep const struct dojo_canvas_view *view);
/* Row-major arrays of width * height cells: the code points, the
 * DOJO_CELL_ flags, and the element shown (0 none, i + 1 node i,
 * -(i + 1) edge i). */
const uint32_t *dojo_canvas_chars(__dojo_keep const dojo_canvas *canvas);
const uint8_t *dojo_canvas_attrs(__dojo_keep const dojo_canvas *canvas);
const int *dojo_canvas_owners(__dojo_keep const dojo_canvas *canvas);
/* The canvas as UTF-8 lines, trailing blanks and blank last lines left
 * out (malloc'ed; NULL with the last error set). */
char *dojo_canvas_text(__dojo_keep const dojo_canvas *canvas);

#endif
