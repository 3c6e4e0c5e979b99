/* diff.c: the differences of two texts, line by line (diff.h) */
#include "config.h"
#include "src/util/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The most line pairs of the changed middle that get a shortest edit. */
#define MAX_PAIRS (16 * 1024 * 1024)

struct lines {
	const char **s;
	int *len;
	int n;
};

static int
split(struct lines *l, const char *text)
{
	const char *p;
	int cap = 16;

	l->n = 0;
	l->s = malloc(cap * sizeof *l->s);
	l->len = malloc(cap * sizeof *l->len);
	if (!l->s || !l->len)
		return -1;
	for (p = text; *p; ) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		if (l->n == cap) {
			const char **s;
			int *n;

			cap *= 2;
			s = realloc(l->s, cap * sizeof *s);
			if (s)
				l->s = s;
			n = realloc(l->len, cap * sizeof *n);
			if (n)
				l->len = n;
			if (!s || !n)
				return -1;
		}
		l->s[l->n] = p;
		l->len[l->n++] = len;
		p += len + (nl != NULL);
	}
	return 0;
}

static bool
same(const struct lines *a, int i, const struct lines *b, int j)
{
	return a->len[i] == b->len[j] && memcmp(a->s[i], b->s[j],
	    a->len[i]) == 0;
}

/* One step of the edit: ' ' a line of both, '-' of a only, '+' of b. */
struct op {
	char kind;
	int a, b;		/* the line in a, in b (-1: none) */
};

/* The edit from a to b into "ops" (na + nb of room): the lines both share
 * at the ends, a longest common subsequence of the middle. */
static int
edit(const struct lines *a, const struct lines *b, struct op *ops)
{
	int p = 0, s = 0, n, m, i, j, k = 0, nops = 0;
	uint32_t *t = NULL;

	while (p < a->n && p < b->n && same(a, p, b, p))
		p++;
	while (s < a->n - p && s < b->n - p &&
	    same(a, a->n - 1 - s, b, b->n - 1 - s))
		s++;
	n = a->n - p - s;
	m = b->n - p - s;
	for (i = 0; i < p; i++)
		ops[nops++] = (struct op){ ' ', i, i };
	if ((int64_t)(n + 1) * (m + 1) <= MAX_PAIRS)
		t = malloc((size_t)(n + 1) * (m + 1) * sizeof *t);
	if (t) {
		/* t[i][j]: the longest common subsequence of a[p+i..] and
		 * b[p+j..] */
		for (i = n; i >= 0; i--)
			for (j = m; j >= 0; j--)
				t[(size_t)i * (m + 1) + j] = i == n || j == m ? 0 :
				    same(a, p + i, b, p + j) ?
				    t[(size_t)(i + 1) * (m + 1) + j + 1] + 1 :
				    t[(size_t)(i + 1) * (m + 1) + j] >
				    t[(size_t)i * (m + 1) + j + 1] ?
				    t[(size_t)(i + 1) * (m + 1) + j] :
				    t[(size_t)i * (m + 1) + j + 1];
		for (i = 0, j = 0; i < n || j < m; )
			if (i < n && j < m && same(a, p + i, b, p + j)) {
				ops[nops++] = (struct op){ ' ', p + i++, p + j++ };
			} else if (j == m || (i < n &&
			    t[(size_t)(i + 1) * (m + 1) + j] >=
			    t[(size_t)i * (m + 1) + j + 1])) {
				ops[nops++] = (struct op){ '-', p + i++, -1 };
			} else {
				ops[nops++] = (struct op){ '+', -1, p + j++ };
			}
		free(t);
	} else {
		for (k = 0; k < n; k++)
			ops[nops++] = (struct op){ '-', p + k, -1 };
		for (k = 0; k < m; k++)
			ops[nops++] = (struct op){ '+', -1, p + k };
	}
	for (i = 0; i < s; i++)
		ops[nops++] = (struct op){ ' ', a->n - s + i, b->n - s + i };
	return nops;
}

static void
put_line(struct dojo_strbuf *out, char mark, const struct lines *l, int i)
{
	dojo_strbuf_printf(out, "%c%.*s\n", mark, l->len[i], l->s[i]);
}

static void
unified(struct dojo_strbuf *out, const struct op *ops, int nops,
    const struct lines *a, const struct lines *b,
    const struct dojo_diff_options *opt)
{
	int ctx = opt->context >= 0 ? opt->context : 3, i = 0, start, end, k;
	int a0, b0, na, nb;

	dojo_strbuf_printf(out, "--- %s\n+++ %s\n", opt->label_a ?
	    opt->label_a : "a", opt->label_b ? opt->label_b : "b");
	while (i < nops) {
		while (i < nops && ops[i].kind == ' ')
			i++;
		if (i == nops)
			break;
		/* a hunk: from ctx lines before this change to ctx lines after
		 * the last change closer than 2 ctx to the one before */
		start = i - ctx > 0 ? i - ctx : 0;
		end = i;
		for (k = i; k < nops; k++) {
			if (ops[k].kind != ' ')
				end = k;
			else if (k - end > 2 * ctx)
				break;
		}
		end = end + ctx + 1 < nops ? end + ctx + 1 : nops;
		a0 = b0 = -1;
		na = nb = 0;
		for (k = start; k < end; k++) {
			if (ops[k].a >= 0) {
				if (a0 < 0)
					a0 = ops[k].a;
				na++;
			}
			if (ops[k].b >= 0) {
				if (b0 < 0)
					b0 = ops[k].b;
				nb++;
			}
		}
		/* an empty side is written at the line before it, as diff
		 * does */
		if (a0 < 0)
			for (k = start; k >= 0 && a0 < 0; k--)
				a0 = ops[k].a >= 0 ? ops[k].a + 1 : -1;
		if (b0 < 0)
			for (k = start; k >= 0 && b0 < 0; k--)
				b0 = ops[k].b >= 0 ? ops[k].b + 1 : -1;
		dojo_strbuf_printf(out, "@@ -%d,%d +%d,%d @@\n",
		    na ? a0 + 1 : a0 < 0 ? 0 : a0, na,
		    nb ? b0 + 1 : b0 < 0 ? 0 : b0, nb);
		for (k = start; k < end; k++)
			if (ops[k].kind == '+')
				put_line(out, '+', b, ops[k].b);
			else
				put_line(out, ops[k].kind, a, ops[k].a);
		i = end;
	}
}

/* Line "i" of "l" in exactly "w" columns, tabs as 4. */
static void
column(struct dojo_strbuf *out, const struct lines *l, int i, int w)
{
	int c = i >= 0 ? dojo_strbuf_add_expanded(out, l->s[i], l->len[i], 4,
	    w) : 0;

	dojo_strbuf_pad(out, ' ', w - c > 0 ? w - c : 0);
}

static void
side_by_side(struct dojo_strbuf *out, const struct op *ops, int nops,
    const struct lines *a, const struct lines *b, int width)
{
	int w = (width - 3) / 2 > 8 ? (width - 3) / 2 : 8, k, j;
	int wb = width - 3 - w > 8 ? width - 3 - w : 8;	/* the rest */

	for (k = 0; k < nops; k++) {
		char mark = ops[k].kind == ' ' ? ' ' : ops[k].kind == '-' ?
		    '<' : '>';
		int ia = ops[k].a, ib = ops[k].b;

		/* a removed line beside the added one after the run */
		if (ops[k].kind == '-') {
			for (j = k; j < nops && ops[j].kind == '-'; j++)
				;
			if (j < nops && ops[j].kind == '+') {
				int nm = j - k, np;

				for (np = 0; j + np < nops &&
				    ops[j + np].kind == '+'; np++)
					;
				for (int q = 0; q < (nm > np ? nm : np); q++) {
					ia = q < nm ? ops[k + q].a : -1;
					ib = q < np ? ops[j + q].b : -1;
					column(out, a, ia, w);
					dojo_strbuf_printf(out, " %c ", ia >= 0 &&
					    ib >= 0 ? '|' : ia >= 0 ? '<' : '>');
					column(out, b, ib, wb);
					dojo_strbuf_puts(out, "\n");
				}
				k = j + np - 1;
				continue;
			}
		}
		column(out, a, ops[k].kind == '+' ? -1 : ia, w);
		dojo_strbuf_printf(out, " %c ", mark);
		column(out, b, ops[k].kind == '-' ? -1 : ib, wb);
		dojo_strbuf_puts(out, "\n");
	}
}

/* The lines of "a" and "b" into "la" and "lb" and the edit from one to
 * the other into "*ops" (to free, with the lines, by release): its length,
 * or -1. */
static int
diff_ops(struct lines *la, struct lines *lb, struct op **ops, const char *a,
    const char *b)
{
	*ops = NULL;
	if (split(la, a) < 0 || split(lb, b) < 0)
		return -1;
	*ops = malloc((la->n + lb->n + 1) * sizeof **ops);
	return *ops ? edit(la, lb, *ops) : -1;
}

static void
release(struct lines *la, struct lines *lb, struct op *ops)
{
	free(la->s);
	free(la->len);
	free(lb->s);
	free(lb->len);
	free(ops);
}

int
dojo_diff(struct dojo_strbuf *out, const char *a, const char *b,
    const struct dojo_diff_options *opt, bool *differ)
{
	struct lines la = { 0 }, lb = { 0 };
	struct op *ops;
	int nops, k, rc = -1;

	*differ = false;
	nops = diff_ops(&la, &lb, &ops, a, b);
	if (nops < 0)
		goto out;
	for (k = 0; k < nops; k++)
		*differ |= ops[k].kind != ' ';
	if (opt->width > 0)
		side_by_side(out, ops, nops, &la, &lb, opt->width);
	else if (*differ)
		unified(out, ops, nops, &la, &lb, opt);
	rc = out->oom ? -1 : 0;
out:
	release(&la, &lb, ops);
	return rc < 0 ? dojo_error_set("out of memory") : 0;
}

int
dojo_diff_added(const char *a, const char *b, bool **added)
{
	struct lines la = { 0 }, lb = { 0 };
	struct op *ops;
	int nops, k, rc = -1;

	*added = NULL;
	nops = diff_ops(&la, &lb, &ops, a, b);
	if (nops >= 0 && (*added = calloc(lb.n + 1, sizeof **added))) {
		for (k = 0; k < nops; k++)
			if (ops[k].kind == '+')
				(*added)[ops[k].b] = true;
		rc = lb.n;
	}
	release(&la, &lb, ops);
	return rc < 0 ? dojo_error_set("out of memory") : rc;
}
