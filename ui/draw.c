/* draw.c: the explorer's screen: layout, panes, status, dumps */
#include "config.h"
#include "ui/explore.h"
#include "src/util/error.h"
#include "src/util/strbuf.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define MIN_W 80
#define MIN_H 24

enum {
	PAIR_TITLE = 1, PAIR_CURSOR, PAIR_DIM, PAIR_ERROR, PAIR_GOOD,
	PAIR_BEST, PAIR_STATUS,
};

/* An attribute by role, in colour or not (NO_COLOR, monochrome). */
static attr_t
role(struct explorer *ex, int pair)
{
	static bool init;

	if (ex->color && !init) {
		init_pair(PAIR_TITLE, COLOR_CYAN, -1);
		init_pair(PAIR_CURSOR, COLOR_BLACK, COLOR_CYAN);
		init_pair(PAIR_DIM, COLOR_WHITE, -1);
		init_pair(PAIR_ERROR, COLOR_RED, -1);
		init_pair(PAIR_GOOD, COLOR_GREEN, -1);
		init_pair(PAIR_BEST, COLOR_YELLOW, -1);
		init_pair(PAIR_STATUS, COLOR_BLACK, COLOR_WHITE);
		init = true;
	}
	switch (pair) {
	case PAIR_TITLE:
		return A_BOLD | (ex->color ? COLOR_PAIR(PAIR_TITLE) : 0);
	case PAIR_CURSOR:
		return ex->color ? COLOR_PAIR(PAIR_CURSOR) : A_REVERSE;
	case PAIR_DIM:
		return A_DIM;
	case PAIR_ERROR:
		return ex->color ? COLOR_PAIR(PAIR_ERROR) | A_BOLD : A_BOLD;
	case PAIR_GOOD:
		return ex->color ? COLOR_PAIR(PAIR_GOOD) : 0;
	case PAIR_BEST:
		return ex->color ? COLOR_PAIR(PAIR_BEST) | A_BOLD : A_BOLD;
	case PAIR_STATUS:
		return A_REVERSE;
	}
	return 0;
}

/* Box drawing: UTF-8, or ASCII when the locale is not UTF-8. */
struct glyphs {
	const char *h, *v, *tl, *tr, *bl, *br, *branch, *last, *pipe, *bar;
};

static const struct glyphs utf8_glyphs = {
	"\u2500", "\u2502", "\u250c", "\u2510", "\u2514", "\u2518",
	"\u251c\u2500", "\u2514\u2500", "\u2502 ",
	"\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588",
};
static const struct glyphs ascii_glyphs = {
	"-", "|", "+", "+", "+", "+", "|-", "`-", "| ", "_.-:=+*#",
};

static const struct glyphs *
glyphs(struct explorer *ex)
{
	return ex->utf8 ? &utf8_glyphs : &ascii_glyphs;
}

/* The frame of the focused pane, heavy (so that it shows without
 * colour): h, v, tl, tr, bl, br. */
static const char *const utf8_focus[] = { "\u2501", "\u2503", "\u250f",
    "\u2513", "\u2517", "\u251b" };
static const char *const ascii_focus[] = { "=", "|", "#", "#", "#", "#" };

/* Put "s" at (y, x), at most "w" columns (UTF-8 aware). */
static void
put(int y, int x, int w, const char *s, attr_t a)
{
	mbstate_t st;
	int col = 0;

	if (w <= 0 || y < 0 || y >= LINES)
		return;
	memset(&st, 0, sizeof st);
	attron(a);
	move(y, x);
	while (*s && col < w) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, strlen(s), &st);
		int cw;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			wc = '?';
			n = 1;
			memset(&st, 0, sizeof st);
		}
		cw = wcwidth(wc);
		if (cw < 0)
			cw = 1;
		if (col + cw > w)
			break;
		addnwstr(&wc, 1);
		col += cw;
		s += n;
	}
	attroff(a);
}

/* Fill "w" columns at (y, x) with spaces in attribute "a". */
static void
blank(int y, int x, int w, attr_t a)
{
	attron(a);
	mvhline(y, x, ' ', w);
	attroff(a);
}

void
ex_frame(struct explorer *ex, const struct ex_rect *r, const char *title,
    bool focus)
{
	const struct glyphs *g = glyphs(ex);
	const char *const *f = ex->utf8 ? utf8_focus : ascii_focus;
	const char *h = focus ? f[0] : g->h, *v = focus ? f[1] : g->v;
	int i;

	if (r->h < 2 || r->w < 2)
		return;
	put(r->y, r->x, 1, focus ? f[2] : g->tl, 0);
	put(r->y, r->x + r->w - 1, 1, focus ? f[3] : g->tr, 0);
	put(r->y + r->h - 1, r->x, 1, focus ? f[4] : g->bl, 0);
	put(r->y + r->h - 1, r->x + r->w - 1, 1, focus ? f[5] : g->br, 0);
	for (i = 1; i < r->w - 1; i++) {
		put(r->y, r->x + i, 1, h, 0);
		put(r->y + r->h - 1, r->x + i, 1, h, 0);
	}
	for (i = 1; i < r->h - 1; i++) {
		put(r->y + i, r->x, 1, v, 0);
		put(r->y + i, r->x + r->w - 1, 1, v, 0);
	}
	put(r->y, r->x + 2, r->w - 4, title, focus ? role(ex, PAIR_CURSOR) :
	    role(ex, PAIR_TITLE));
	/* the keys that work here, on the focused pane's lower border */
	if (focus && r->h > 2)
		put(r->y + r->h - 1, r->x + 2, r->w - 4, ex_key_bar(ex),
		    role(ex, PAIR_TITLE));
}

unsigned int
ex_attr_highlight(struct explorer *ex)
{
	return role(ex, PAIR_CURSOR);
}

void
ex_layout(struct explorer *ex)
{
	int W = COLS, H = LINES, body, lw, top, mid;

	ex->too_small = W < MIN_W || H < MIN_H;
	ex->status_row = H - 2;
	ex->cmd_row = H - 1;
	body = H - 2;
	/* the program pane as wide as its longest line, within limits */
	lw = W * 3 / 5;
	{
		int i, longest = 0;

		for (i = 0; i < ex->nlines; i++)
			if ((int)strlen(ex->lines[i].text) > longest)
				longest = (int)strlen(ex->lines[i].text);
		if (longest + ex->gutter + 2 > lw)
			lw = longest + ex->gutter + 2;
		if (lw > W - 34)
			lw = W - 34 > W * 3 / 5 ? W - 34 : W * 3 / 5;
	}
	top = body * 5 / 8;
	ex->r_prog = (struct ex_rect){ 0, 0, top, lw };
	ex->r_code = (struct ex_rect){ top, 0, body - top, lw };
	mid = body / 2;
	ex->r_moves = (struct ex_rect){ 0, lw, mid, W - lw };
	ex->r_chart = (struct ex_rect){ body - 4, lw, 4, W - lw };
	ex->r_hist = (struct ex_rect){ mid, lw, body - 4 - mid, W - lw };
	clear();
}

/* The text of line "l" from column ex->prog_left on, in "w" columns,
 * highlighted from cell "hl" (-1: none); '>' marks a cut line. */
static void
draw_text(struct explorer *ex, int y, int x, int w, const struct ex_line *l,
    int hl, bool cursor)
{
	int left = ex->prog_left, len = (int)strlen(l->text), c;
	char head[512];

	if (!l->op)
		left = 0;
	if (left > len)
		left = len;
	c = hl < 0 ? len : l->cell[hl];
	if (c < left)
		c = left;
	snprintf(head, sizeof head, "%.*s", c - left, l->text + left);
	put(y, x, w, head, l->op ? 0 : role(ex, PAIR_TITLE));
	if (hl >= 0 && c - left < w)
		put(y, x + c - left, w - (c - left), l->text + c,
		    role(ex, PAIR_CURSOR) | (cursor ? A_BOLD : 0));
	if (len - left > w)
		put(y, x + w - 1, 1, ">", role(ex, PAIR_DIM));
}

/* The program pane. */

/* The program pane in a preview: the program the move leads to, '+' in
 * the gutter of each line the move changes, from a few lines before the
 * first of them. */
static void
draw_preview(struct explorer *ex)
{
	const struct ex_rect *r = &ex->r_prog;
	int rows = r->h - 2, w = r->w - 2, top, y, i;
	char title[400];

	snprintf(title, sizeof title, " program after %s  (preview: + a "
	    "changed line) ", ex->pv_action);
	ex_frame(ex, r, title, ex->focus == PANE_PROGRAM);
	top = ex->pv_first - 2 > 0 ? ex->pv_first - 2 : 0;
	if (top + rows > ex->pv_n)
		top = ex->pv_n - rows > 0 ? ex->pv_n - rows : 0;
	for (y = 0; y < rows; y++) {
		i = top + y;
		blank(r->y + 1 + y, r->x + 1, w, 0);
		if (i >= ex->pv_n)
			continue;
		put(r->y + 1 + y, r->x + 1, 2, ex->pv_changed[i] ? "+" : "",
		    role(ex, PAIR_GOOD) | A_BOLD);
		put(r->y + 1 + y, r->x + 3, w - 2, ex->pv_lines[i],
		    ex->pv_changed[i] ? role(ex, PAIR_GOOD) | A_BOLD : 0);
	}
}

static void
draw_program(struct explorer *ex)
{
	const struct ex_rect *r = &ex->r_prog;
	int path[DOJO_MAX_DEPTH], n = ex_cursor_path(ex, path);
	int rows = r->h - 2, w = r->w - 2, i, y;
	char title[400], addr[64];

	dojo_node *at = n > 0 ? dojo_program_lookup(ex->prog, path, n) : NULL;

	if (ex->preview && ex->pv_n > 0) {
		draw_preview(ex);
		return;
	}
	ex_cursor_address(ex, addr, sizeof addr);
	/* the address, and the loop's name at a scope */
	snprintf(title, sizeof title, " program %s  at %s%s%s%s ",
	    ex->start_file, addr[0] ? addr : "-",
	    at && *dojo_node_name(at) ? " (" : "",
	    at ? dojo_node_name(at) : "", at && *dojo_node_name(at) ? ")" : "");
	ex_frame(ex, r, title, ex->focus == PANE_PROGRAM);
	if (ex->cur_line < ex->prog_top)
		ex->prog_top = ex->cur_line;
	if (ex->cur_line >= ex->prog_top + rows)
		ex->prog_top = ex->cur_line - rows + 1;
	/* scroll sideways so that the cursor's cell shows */
	if (ex->cur_line < ex->nlines) {
		const struct ex_line *cl = &ex->lines[ex->cur_line];
		int col = cl->cell[ex->cur_cell < cl->ncells ? ex->cur_cell :
		    cl->ncells - 1], vis = w - ex->gutter;

		if (col < ex->prog_left)
			ex->prog_left = col;
		else if (col > ex->prog_left + vis - 12)
			ex->prog_left = col - vis / 2 > 0 ? col - vis / 2 : 0;
	}
	for (y = 0; y < rows; y++) {
		const struct ex_line *l;
		char gut[DOJO_MAX_DEPTH * 4 + 8] = "";
		int k, hl = -1;

		i = ex->prog_top + y;
		blank(r->y + 1 + y, r->x + 1, w, 0);
		if (i >= ex->nlines)
			continue;
		l = &ex->lines[i];
		if (l->op) {
			size_t len = 0;

			for (k = 0; k < l->naddr && len + 4 < sizeof gut; k++)
				len += snprintf(gut + len, sizeof gut - len,
				    "%s%d", k ? "." : "", l->addr[k]);
			/* highlighted from the cell of the cursor's node on
			 * every line under it */
			if (n > 0 && l->naddr >= n &&
			    memcmp(l->addr, path, n * sizeof *path) == 0)
				hl = n - 1 < l->ncells - 1 ? n - 1 :
				    l->ncells - 1;
			if (n == l->naddr && i != ex->cur_line)
				hl = -1;
		}
		put(r->y + 1 + y, r->x + 1, ex->gutter, gut, role(ex, PAIR_DIM));
		draw_text(ex, r->y + 1 + y, r->x + 1 + ex->gutter, w - ex->gutter,
		    l, hl, i == ex->cur_line);
	}
}

/* The moves pane: the legal moves at the cursor with their speedups, a
 * rule, the refused ones dimmed. */
static void
draw_moves(struct explorer *ex)
{
	const struct ex_rect *r = &ex->r_moves;
	int rows = r->h - 2, w = r->w - 2, y, i, nrows;
	char title[256], addr[64];

	ex_cursor_address(ex, addr, sizeof addr);
	snprintf(title, sizeof title, " moves %s%s: %d legal, %d refused%s%s ",
	    ex->all_moves ? "everywhere" : "at ", ex->all_moves ? "" : addr,
	    ex->nlegal, ex->nmv - ex->nlegal, ex->filter[0] ? " /" : "",
	    ex->filter);
	ex_frame(ex, r, title, ex->focus == PANE_MOVES);
	/* rows: the legal moves, a rule, the refused moves */
	nrows = ex->nmv + (ex->nmv > ex->nlegal ? 1 : 0);
	{
		int sel_row = ex->mv_sel + (ex->mv_sel >= ex->nlegal &&
		    ex->nmv > ex->nlegal ? 1 : 0);

		if (sel_row < ex->mv_top)
			ex->mv_top = sel_row;
		if (sel_row >= ex->mv_top + rows)
			ex->mv_top = sel_row - rows + 1;
		if (ex->mv_top > 0 && ex->mv_top + rows > nrows)
			ex->mv_top = nrows - rows > 0 ? nrows - rows : 0;
	}
	for (y = 0; y < rows; y++) {
		int row = ex->mv_top + y, yy = r->y + 1 + y;
		const struct ex_move *m;
		char line[256], score[32] = "";
		attr_t a = 0;

		blank(yy, r->x + 1, w, 0);
		if (row >= nrows)
			continue;
		if (ex->nmv > ex->nlegal && row == ex->nlegal) {
			put(yy, r->x + 1, w, "-- refused here --",
			    role(ex, PAIR_DIM));
			continue;
		}
		i = row > ex->nlegal && ex->nmv > ex->nlegal ? row - 1 : row;
		m = &ex->mv[i];
		if (i < ex->nlegal) {
			/* against the start when the session measured it;
			 * else E's, against this state, as a change */
			if (m->speedup > 0)
				snprintf(score, sizeof score, "%.3gx",
				    m->speedup);
			else if (m->here > 0)
				snprintf(score, sizeof score, "%+.0f%%",
				    100 * (m->here - 1));
			else if (m->outcome[0])
				snprintf(score, sizeof score, "%s", m->outcome);
		} else {
			a = role(ex, PAIR_DIM);
		}
		{
			/* the score right-aligned, the action in the rest
			 * (all the width when there is no score) */
			int sw = score[0] ? (int)strlen(score) + 1 : 0;
			int aw = w - sw > 1 ? w - sw : 1;

			snprintf(line, sizeof line, "%-*.*s%*s", aw, aw,
			    m->action, sw, score);
		}
		if (i == ex->mv_sel)
			a = role(ex, PAIR_CURSOR);
		put(yy, r->x + 1, w, line, a);
	}
	if (ex->nmv == 0)
		put(r->y + 1, r->x + 1, w, ex->filter[0] ?
		    "(no move matches the search)" :
		    "(no move here: 'a' lists every move)", role(ex, PAIR_DIM));
}

/* The history pane: the tree of states. */
static void
draw_history(struct explorer *ex)
{
	const struct ex_rect *r = &ex->r_hist;
	const struct glyphs *g = glyphs(ex);
	int rows = r->h - 2, w = r->w - 2, y;
	char title[160];

	snprintf(title, sizeof title, " history %s%s%d states ",
	    dojo_session_branch(ex->session),
	    dojo_session_branch(ex->session)[0] ? ", " : "", ex->nrows);
	ex_frame(ex, r, title, ex->focus == PANE_HISTORY);
	if (ex->hist_sel < ex->hist_top)
		ex->hist_top = ex->hist_sel;
	if (ex->hist_sel >= ex->hist_top + rows)
		ex->hist_top = ex->hist_sel - rows + 1;
	/* no empty rows below while states are hidden above (a pane made
	 * taller by a resize shows them) */
	if (ex->hist_top > 0 && ex->hist_top + rows > ex->nrows)
		ex->hist_top = ex->nrows - rows > 0 ? ex->nrows - rows : 0;
	for (y = 0; y < rows; y++) {
		int i = ex->hist_top + y, k;
		const struct dojo_session_row *row;
		char line[1024], prefix[256] = "", score[40] = "";
		size_t len = 0;
		attr_t a = 0;

		blank(r->y + 1 + y, r->x + 1, w, 0);
		if (i >= ex->nrows)
			continue;
		row = &ex->rows[i];
		/* the ASCII drawing, in the screen's glyphs */
		for (k = 0; row->prefix[k] && row->prefix[k + 1]; k += 2) {
			const char *gl = row->prefix[k] == '|' &&
			    row->prefix[k + 1] == '-' ? g->branch :
			    row->prefix[k] == '`' ? g->last :
			    row->prefix[k] == '|' ? g->pipe : "  ";

			len += snprintf(prefix + len, sizeof prefix - len, "%s",
			    gl);
		}
		if (row->e.m.measured && strcmp(row->e.m.outcome, "ok") == 0 &&
		    row->e.m.speedup > 0)
			snprintf(score, sizeof score, " %.3gx", row->e.m.speedup);
		else if (row->e.m.measured)
			snprintf(score, sizeof score, " %s", row->e.m.outcome);
		snprintf(line, sizeof line, "%s%s %.7s %s%s%s%s", prefix,
		    row->e.current ? "*" : "o", row->e.commit,
		    row->e.parent[0] ? row->e.action : "(start)", score,
		    row->e.branches[0] ? "  " : "", row->e.branches);
		if (ex->has_best && strcmp(row->e.commit, ex->best.commit) == 0)
			a = role(ex, PAIR_BEST);
		if (row->e.current)
			a |= A_BOLD;
		if (i == ex->hist_sel && ex->focus == PANE_HISTORY)
			a = role(ex, PAIR_CURSOR);
		put(r->y + 1 + y, r->x + 1, w, line, a);
	}
}

/* The code pane: the generated C, or a command's output. */
static void
draw_code(struct explorer *ex)
{
	const struct ex_rect *r = &ex->r_code;
	const char *text = ex->output ? ex->output : ex->code ? ex->code : "";
	int rows = r->h - 2, w = r->w - 2, y, line = 0;
	char title[96];
	const char *p = text;

	if (ex->graph_view) {
		ex_graph_draw(ex, r);
		return;
	}
	snprintf(title, sizeof title, " %s ", ex->output ? ex->output_title :
	    "code (C target)");
	ex_frame(ex, r, title, ex->focus == PANE_CODE);
	while (*p && line < ex->code_top) {
		if (*p++ == '\n')
			line++;
	}
	if (!*p && ex->code_top > 0)
		ex->code_top = line;
	for (y = 0; y < rows; y++) {
		struct dojo_strbuf sb;
		size_t n = strcspn(p, "\n");

		blank(r->y + 1 + y, r->x + 1, w, 0);
		/* a tab to the next multiple of 4 columns: put counts a byte
		 * a column */
		dojo_strbuf_init(&sb);
		dojo_strbuf_add_expanded(&sb, p, n, 4, 511);
		put(r->y + 1 + y, r->x + 1, w, sb.s ? sb.s : "", 0);
		dojo_strbuf_release(&sb);
		p += n;
		if (*p)
			p++;
	}
}

/* The chart: a sparkline of the speedups along the current path. */
static void
draw_chart(struct explorer *ex)
{
	const struct ex_rect *r = &ex->r_chart;
	const struct glyphs *g = glyphs(ex);
	int w = r->w - 2, n = 0, i, k, levels = ex->utf8 ? 8 : 8;
	double sp[256], max = 0;
	char line[1024] = "", label[128];
	size_t len = 0;
	const char *cur;
	int path[256];

	ex_frame(ex, r, " speedup along the path ", false);
	/* the path: from the current state up through its parents */
	cur = ex->head.commit;
	while (*cur && n < 256) {
		for (i = 0; i < ex->nrows; i++)
			if (strcmp(ex->rows[i].e.commit, cur) == 0)
				break;
		if (i == ex->nrows)
			break;
		path[n++] = i;
		cur = ex->rows[i].e.parent;
	}
	for (i = 0; i < n; i++) {
		const struct dojo_session_entry *e = &ex->rows[path[n - 1 - i]].e;

		sp[i] = e->m.measured && strcmp(e->m.outcome, "ok") == 0 ?
		    e->m.speedup : 0;
		if (sp[i] > max)
			max = sp[i];
	}
	k = n > w ? n - w : 0;
	for (i = k; i < n; i++) {
		int lv;

		if (sp[i] <= 0) {
			len += snprintf(line + len, sizeof line - len, " ");
			continue;
		}
		lv = (int)(sp[i] / max * (levels - 1) + 0.5);
		if (ex->utf8)
			len += snprintf(line + len, sizeof line - len, "%.3s",
			    g->bar + 3 * lv);
		else
			len += snprintf(line + len, sizeof line - len, "%c",
			    g->bar[lv]);
	}
	blank(r->y + 1, r->x + 1, w, 0);
	blank(r->y + 2, r->x + 1, w, 0);
	put(r->y + 1, r->x + 1, w, line, role(ex, PAIR_GOOD));
	if (max > 0)
		snprintf(label, sizeof label, "%d states, max %.3gx%s", n, max,
		    ex->has_best ? "" : "");
	else
		snprintf(label, sizeof label, "%d states, none measured ('m')",
		    n);
	put(r->y + 2, r->x + 1, w, label, role(ex, PAIR_DIM));
}

/* "~N" when the current state is N steps before its branch's tip ("" at
 * the tip), as git writes it. */
static void
tip_distance(struct explorer *ex, char *out, size_t len)
{
	const char *branch = dojo_session_branch(ex->session);
	size_t n = strlen(branch);
	int i, cur = -1, tip = -1;

	*out = '\0';
	for (i = 0; n && i < ex->nrows; i++) {
		const char *b = ex->rows[i].e.branches, *p;

		if (ex->rows[i].e.current)
			cur = ex->rows[i].e.depth;
		for (p = strstr(b, branch); p; p = strstr(p + 1, branch))
			if ((p == b || p[-1] == ' ') && (!p[n] || p[n] == ' '))
				tip = ex->rows[i].e.depth;
	}
	if (cur >= 0 && tip > cur)
		snprintf(out, len, "~%d", tip - cur);
}

static void
draw_status(struct explorer *ex)
{
	char line[1200], t[128] = "-", sp[64] = "-", best[32] = "-";
	char rate[64] = "", behind[16];
	char activity[64];
	const struct dojo_session_entry *h = &ex->head;
	static const char spin[] = "|/-\\";
	static int tick;
	bool busy;

	if (h->m.measured && strcmp(h->m.outcome, "ok") == 0) {
		char ft[32];

		/* median +- spread (runs), the rate and its share of the
		 * peak; a '!' on a number of a busy machine */
		ex_format_time(ft, sizeof ft, h->m.median_ns);
		/* the target that timed it, when it is not the one the
		 * moves are for: never a CPU time shown as a GPU's */
		snprintf(t, sizeof t, "%s%s%s%s%s +-%.1f%% x%d",
		    strcmp(h->m.target, ex->target) ? "(" : "",
		    strcmp(h->m.target, ex->target) ? h->m.target : "",
		    strcmp(h->m.target, ex->target) ? ") " : "", ft,
		    h->m.disturbed ? "!" : "", 100 * h->m.spread, h->m.runs);
		if (h->m.ops > 0 && h->m.median_ns > 0 &&
		    h->m.peak_gflops > 0)
			snprintf(rate, sizeof rate, " %.3g GFLOP/s, %.0f%% of "
			    "peak ", h->m.ops / h->m.median_ns, 100 *
			    h->m.ops / h->m.median_ns / h->m.peak_gflops);
		else if (h->m.ops > 0 && h->m.median_ns > 0)
			snprintf(rate, sizeof rate, " %.3g GFLOP/s ",
			    h->m.ops / h->m.median_ns);
		if (h->m.confirmed)
			snprintf(sp, sizeof sp, "%.3gx [%.3g,%.3g]",
			    h->m.speedup, h->m.speedup_low, h->m.speedup_high);
		else if (h->m.speedup > 0)
			snprintf(sp, sizeof sp, "%.3gx%s", h->m.speedup,
			    h->m.disturbed ? "!" : "");
	} else if (h->m.measured) {
		snprintf(t, sizeof t, "%s", h->m.outcome);
	}
	if (ex->has_best && ex->best.m.speedup > 0)
		snprintf(best, sizeof best, "%.3gx", ex->best.m.speedup);
	/* what runs in the background first: a narrow screen cuts the
	 * end of the line */
	activity[0] = '\0';
	if (ex->measure.pid > 0 || ex->agent.pid > 0)
		snprintf(activity, sizeof activity, " %c%s%s%s",
		    spin[tick++ / 2 % 4],
		    ex->measure.pid > 0 ? " measuring" : "",
		    ex->agent.pid > 0 ? " agent " : "",
		    ex->agent.pid <= 0 ? "" : ex->agent.paused ? "paused" :
		    "playing");
	tip_distance(ex, behind, sizeof behind);
	/* the rate last: a narrow screen cuts the end of the line */
	busy = h->m.measured && h->m.disturbed;
	snprintf(line, sizeof line, " %s%s  target %s%s  %.7s%s%s%s  time %s  "
	    "speedup %s  best %s %s%s", ex->start_file, activity, ex->target,
	    busy ? "  BUSY" : "", h->commit,
	    dojo_session_branch(ex->session)[0] ? " on " : "",
	    dojo_session_branch(ex->session), behind, t, sp, best, rate,
	    busy ? " ('!' is disturbed, M measures again)" : "");
	blank(ex->status_row, 0, COLS, role(ex, PAIR_STATUS));
	put(ex->status_row, 0, COLS, line, role(ex, PAIR_STATUS));
}

static void
draw_help(struct explorer *ex)
{
	const char *p = ex_key_help();
	int y = 1, x = 2, w = COLS - 4, i;
	struct ex_rect r = { 0, 0, LINES - 2, COLS };

	for (i = 0; i < LINES - 2; i++)
		blank(i, 0, COLS, 0);
	ex_frame(ex, &r, " help: any key returns ", true);
	while (*p && y < LINES - 3) {
		char buf[256];
		size_t n = strcspn(p, "\n");

		snprintf(buf, sizeof buf, "%.*s", (int)n, p);
		put(y++, x, w, buf, 0);
		p += n + (p[n] ? 1 : 0);
	}
	if (y < LINES - 4)
		put(++y, x, w, "Commands (after ':')", role(ex, PAIR_TITLE));
	for (i = 0; i < ex_n_commands() && y + 1 < LINES - 3; i++)
		put(++y, x, w, ex_command_help(i), 0);
}

void
ex_draw(struct explorer *ex)
{
	if (ex->too_small) {
		char msg[128];

		erase();
		snprintf(msg, sizeof msg, "the terminal is %dx%d; the explorer "
		    "needs %dx%d (q quits)", COLS, LINES, MIN_W, MIN_H);
		put(LINES / 2, 0, COLS, msg, A_BOLD);
		refresh();
		return;
	}
	if (ex->help) {
		draw_help(ex);
	} else {
		draw_program(ex);
		draw_moves(ex);
		draw_history(ex);
		draw_code(ex);
		draw_chart(ex);
	}
	draw_status(ex);
	if (ex->prompting) {
		/* the completions Tab lists, over the status line */
		if (ex->message[0]) {
			blank(ex->status_row, 0, COLS, 0);
			put(ex->status_row, 0, COLS, ex->message, 0);
		}
		ex_prompt_draw(ex);
	} else {
		blank(ex->cmd_row, 0, COLS, 0);
		put(ex->cmd_row, 0, COLS, ex->message, ex->message_error ?
		    role(ex, PAIR_ERROR) : 0);
	}
	refresh();
}

int
ex_dump(struct explorer *ex, const char *path)
{
	FILE *f = fopen(path, "w");
	int y, x;

	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	for (y = 0; y < LINES; y++) {
		char line[4096];
		size_t len = 0, keep = 0;

		for (x = 0; x < COLS; x++) {
			cchar_t cc;
			wchar_t wc[CCHARW_MAX + 1];
			attr_t a;
			short pair;
			char mb[MB_LEN_MAX * 2];
			mbstate_t st;
			size_t n;

			if (mvin_wch(y, x, &cc) == ERR ||
			    getcchar(&cc, wc, &a, &pair, NULL) == ERR)
				continue;
			if (wc[0] == 0)
				continue;	/* the right half of a wide
						   character */
			memset(&st, 0, sizeof st);
			n = wcrtomb(mb, wc[0], &st);
			if (n == (size_t)-1) {
				mb[0] = '?';
				n = 1;
			}
			if (len + n >= sizeof line)
				break;
			memcpy(line + len, mb, n);
			len += n;
			if (wc[0] != ' ')
				keep = len;
		}
		fprintf(f, "%.*s\n", (int)keep, line);
	}
	if (fclose(f) != 0)
		return dojo_error_set("%s: %s", path, strerror(errno));
	return 0;
}
