/* parse.c: read the .dojo text into a program tree (doc/ir.md sections 1-5) */
#include "config.h"
#include "ir/program_private.h"
#include "ir/flag.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXPR_DEPTH 512	/* parentheses, calls, signs */
#define MAX_EXPR_LENGTH 10000	/* operations in a row */

struct line {
	const char *start;	/* first byte of the line */
	size_t len;		/* bytes before the comment or the newline */
	int no;			/* 1-based */
};

struct parser {
	const char *file;
	struct line *lines;
	int nlines;
	const struct line *cur;	/* the line being read */
	const char *p;		/* the next byte of the current cell */
	const char *end;	/* the end of the current cell */
	int depth;		/* the cells before the operation */
	struct dojo_decls *decls;
	dojo_program *prog;
	struct dojo_node *open[DOJO_MAX_DEPTH];
	int nopen;
};

/* The column (1-based, in characters) of byte "p" of line "l". */
static int
column(const struct line *l, const char *p)
{
	const char *q;
	int col = 1;

	for (q = l->start; q < p; q++)
		if (((unsigned char)*q & 0xc0) != 0x80)
			col++;
	return col;
}

static int
fail_at(struct parser *ps, const char *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Set the last error at byte "p" of the current line. */
static int
fail_at(struct parser *ps, const char *p, const char *fmt, ...)
{
	char msg[DOJO_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dojo_error_at(ps->file, ps->cur->no, column(ps->cur, p), "%s",
	    msg);
}

/* Length of the valid UTF-8 sequence at "p" (before "end"), 0 if invalid. */
static int
utf8_len(const unsigned char *p, const unsigned char *end)
{
	int n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (end - p < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 ||
	    cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Cut "text" into lines, checking bytes, encoding and line length. */
static int
split_lines(struct parser *ps, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	struct line *grown, *l;
	size_t i;
	int n, cap = 0;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p += 3;		/* a byte order mark */
	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (ps->nlines == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(ps->lines, sizeof *grown * cap);
			if (!grown)
				return dojo_error_set("out of memory");
			ps->lines = grown;
		}
		l = &ps->lines[ps->nlines++];
		l->start = p;
		l->no = ps->nlines;
		l->len = nl - p;
		ps->cur = l;
		if (l->len > 0 && p[l->len - 1] == '\r')
			l->len--;
		if (l->len > DOJO_MAX_LINE)
			return fail_at(ps, p + DOJO_MAX_LINE,
			    "line longer than %d bytes", DOJO_MAX_LINE);
		for (i = 0; i < l->len; i += n) {
			if (p[i] == '\0')
				return fail_at(ps, p + i, "NUL byte in text");
			n = utf8_len((const unsigned char *)p + i,
			    (const unsigned char *)p + l->len);
			if (n == 0)
				return fail_at(ps, p + i,
				    "invalid UTF-8 byte 0x%02x",
				    (unsigned char)p[i]);
			if (n == 1 && p[i] != '\t' &&
			    ((unsigned char)p[i] < 0x20 || p[i] == 0x7f))
				return fail_at(ps, p + i,
				    "control character 0x%02x in text",
				    (unsigned char)p[i]);
		}
		/* the comment runs to the end of the line */
		nl = memchr(p, '#', l->len);
		if (nl)
			l->len = nl - p;
		p = memchr(l->start, '\n', end - l->start);
		p = p ? p + 1 : end;
	}
	return 0;
}


/* The bytes of the character at "p", for "%.*s" in messages. */
#define CHAR_AT(p) utf8_char_len((p), ps->end), (p)

static int
utf8_char_len(const char *p, const char *end)
{
	int n = 1;

	while (n < 4 && p + n < end && ((unsigned char)p[n] & 0xc0) == 0x80)
		n++;
	return n;
}

/* The length of the word at "p" (letters, digits, '_' and '.'), at least
 * one character, for quoting a whole token in a message. */
static int
token_len(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (isalnum((unsigned char)*q) || *q == '_' ||
	    *q == '.'))
		q++;
	return q > p ? (int)(q - p) : utf8_char_len(p, end);
}

static bool
is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool
is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

static void
skip_space(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	    *ps->p == '\r'))
		ps->p++;
}

/* Read an identifier into "out"; its start in "*at".  -1 when none. */
static int
read_ident(struct parser *ps, char out[DOJO_MAX_NAME + 1], const char **at,
    const char *what)
{
	const char *s;

	skip_space(ps);
	s = ps->p;
	if (at)
		*at = s;
	if (ps->p >= ps->end || !is_ident_start((unsigned char)*ps->p)) {
		if (ps->p >= ps->end)
			return fail_at(ps, s, "expected %s", what);
		return fail_at(ps, s, "expected %s, found '%.*s'", what,
		    CHAR_AT(s));
	}
	while (ps->p < ps->end && is_ident_char((unsigned char)*ps->p))
		ps->p++;
	if (ps->p - s > DOJO_MAX_NAME)
		return fail_at(ps, s, "name longer than %d characters",
		    DOJO_MAX_NAME);
	memcpy(out, s, ps->p - s);
	out[ps->p - s] = '\0';
	return 0;
}

/* Read a non-negative integer that fits in 63 bits. */
static int
read_int(struct parser *ps, int64_t *out, const char *what)
{
	const char *s;
	int64_t v = 0;

	skip_space(ps);
	s = ps->p;
	if (ps->p >= ps->end)
		return fail_at(ps, s, "expected %s, found the end of the line",
		    what);
	if (!isdigit((unsigned char)*ps->p))
		return fail_at(ps, s, "expected %s, found '%.*s'", what,
		    token_len(s, ps->end), s);
	while (ps->p < ps->end && isdigit((unsigned char)*ps->p)) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *ps->p - '0', &v)) {
			while (ps->p < ps->end &&
			    isdigit((unsigned char)*ps->p))
				ps->p++;
			return fail_at(ps, s, "%s '%.*s' does not fit in 63 bits",
			    what, (int)(ps->p - s), s);
		}
		ps->p++;
	}
	if (ps->p < ps->end && (is_ident_char((unsigned char)*ps->p) ||
	    *ps->p == '.'))
		return fail_at(ps, s, "expected %s, found '%.*s'", what,
		    token_len(s, ps->end), s);
	*out = v;
	return 0;
}

static bool
accept(struct parser *ps, char c)
{
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == c) {
		ps->p++;
		return true;
	}
	return false;
}

static int
expect(struct parser *ps, char c, const char *context)
{
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == c) {
		ps->p++;
		return 0;
	}
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "expected '%c' %s, found the end of "
		    "the line", c, context);
	return fail_at(ps, ps->p, "expected '%c' %s, found '%.*s'", c,
	    context, CHAR_AT(ps->p));
}

static int
lookup_word(const char *word, const char *const *words, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(word, words[i]) == 0)
			return i;
	return -1;
}

static int
check_name(struct parser *ps, const char *name, const char *at)
{
	const char *why;

	if (!dojo_name_allowed(name, &why))
		return fail_at(ps, at, "name '%s' %s", name, why);
	return 0;
}

/* Whether "name" is already a buffer or array other than buffer "self". */
static bool
name_taken(struct dojo_decls *d, const char *name)
{
	int i;

	for (i = 0; i < d->nbuf; i++)
		if (strcmp(d->buf[i].name, name) == 0)
			return true;
	for (i = 0; i < d->narr; i++)
		if (strcmp(d->arr[i].name, name) == 0)
			return true;
	return false;
}

static int
add_array(struct parser *ps, const char *name, int buffer, const char *at)
{
	struct dojo_decls *d = ps->decls;
	struct dojo_array *grown;

	grown = realloc(d->arr, sizeof *grown * (d->narr + 1));
	if (!grown)
		return dojo_error_set("out of memory");
	d->arr = grown;
	memset(&d->arr[d->narr], 0, sizeof *grown);
	strcpy(d->arr[d->narr].name, name);
	d->arr[d->narr].buffer = buffer;
	d->arr[d->narr].pos.line = ps->cur->no;
	d->arr[d->narr].pos.col = column(ps->cur, at);
	d->narr++;
	return 0;
}

/* NAME DTYPE [DIM, ...] LOCATION [ROLE] [-> ARRAY, ...] */
static int
parse_decl(struct parser *ps)
{
	static const char *const dtypes[] = { "f32", "f64", "i32", "i64" };
	static const char *const locs[] = { "heap", "stack", "reg", "shared" };
	static const char *const roles[] = { "", "in", "out", "inout" };
	struct dojo_decls *d = ps->decls;
	struct dojo_buffer b, *grown;
	char word[DOJO_MAX_NAME + 1], arr[DOJO_MAX_NAME + 1];
	const char *at, *bracket;
	int64_t total = 1, v;
	int k, self = 0, listed = 0, bi = d->nbuf;

	memset(&b, 0, sizeof b);
	if (read_ident(ps, b.name, &at, "a buffer name") < 0)
		return -1;
	b.pos.line = ps->cur->no;
	b.pos.col = column(ps->cur, at);
	if (check_name(ps, b.name, at) < 0)
		return -1;
	if (name_taken(d, b.name))
		return fail_at(ps, at, "duplicate name '%s'", b.name);
	if (read_ident(ps, word, &at, "an element type") < 0)
		return -1;
	k = lookup_word(word, dtypes, 4);
	if (k < 0) {
		if (!strcmp(word, "f16") || !strcmp(word, "bf16") ||
		    !strcmp(word, "i8"))
			return fail_at(ps, at, "element type '%s' is not "
			    "supported yet", word);
		return fail_at(ps, at, "unknown element type '%s' (expected "
		    "f32, f64, i32 or i64)", word);
	}
	b.dtype = k;
	skip_space(ps);
	bracket = ps->p;
	if (expect(ps, '[', "before the dimensions") < 0)
		return -1;
	if (accept(ps, ']'))
		return fail_at(ps, bracket, "buffer '%s' has no dimension",
		    b.name);
	do {
		skip_space(ps);
		at = ps->p;
		if (b.ndim == DOJO_MAX_DIMS)
			return fail_at(ps, at, "more than %d dimensions",
			    DOJO_MAX_DIMS);
		if (read_int(ps, &v, "an extent") < 0)
			return -1;
		if (v == 0)
			return fail_at(ps, at, "extent must be positive");
		b.ext[b.ndim] = v;
		if (accept(ps, ':')) {
			skip_space(ps);
			at = ps->p;
			if (read_int(ps, &v, "a fold") < 0)
				return -1;
			if (v == 0 || v >= b.ext[b.ndim])
				return fail_at(ps, at, "fold %lld must be "
				    "positive and smaller than the extent "
				    "%lld", (long long)v,
				    (long long)b.ext[b.ndim]);
			b.fold[b.ndim] = v;
		} else if (accept(ps, '+')) {
			skip_space(ps);
			at = ps->p;
			if (read_int(ps, &v, "a pad") < 0)
				return -1;
			if (v == 0 || __builtin_add_overflow(v,
			    b.ext[b.ndim], &v))
				return fail_at(ps, at, "a pad must be positive "
				    "and fit in 63 bits with the extent");
			b.pad[b.ndim] = v - b.ext[b.ndim];
		}
		if (__builtin_mul_overflow(total, b.ext[b.ndim] +
		    b.pad[b.ndim], &total))
			return fail_at(ps, bracket, "buffer '%s' has more "
			    "elements than fit in 63 bits", b.name);
		b.ndim++;
	} while (accept(ps, ','));
	if (expect(ps, ']', "after the dimensions") < 0)
		return -1;
	if (read_ident(ps, word, &at, "a location (heap, stack, reg or "
	    "shared)") < 0)
		return -1;
	k = lookup_word(word, locs, 4);
	if (k < 0)
		return fail_at(ps, at, "unknown location '%s' (expected heap, "
		    "stack, reg or shared)", word);
	b.loc = k;
	skip_space(ps);
	if (ps->p < ps->end && is_ident_start((unsigned char)*ps->p)) {
		if (read_ident(ps, word, &at, "a role") < 0)
			return -1;
		k = lookup_word(word, roles, 4);
		if (k <= 0)
			return fail_at(ps, at, "unknown role '%s' (expected "
			    "in, out or inout)", word);
		if (b.loc != DOJO_HEAP)
			return fail_at(ps, at, "only heap buffers may be "
			    "kernel arguments ('%s' is %s)", b.name,
			    locs[b.loc]);
		b.role = k;
		for (k = 0; k < b.ndim; k++)
			if (b.fold[k] || b.pad[k])
				return fail_at(ps, at, "kernel argument '%s' "
				    "cannot be %s", b.name, b.fold[k] ?
				    "folded" : "padded");
	}
	skip_space(ps);
	grown = realloc(d->buf, sizeof *grown * (d->nbuf + 1));
	if (!grown)
		return dojo_error_set("out of memory");
	d->buf = grown;
	if (ps->p + 1 < ps->end && ps->p[0] == '-' && ps->p[1] == '>') {
		ps->p += 2;
		b.explicit_arrays = true;
		d->buf[d->nbuf++] = b;
		do {
			if (read_ident(ps, arr, &at, "an array name") < 0)
				return -1;
			if (check_name(ps, arr, at) < 0)
				return -1;
			if (strcmp(arr, b.name) == 0 && !self)
				self = 1;
			else if (name_taken(d, arr))
				return fail_at(ps, at, "duplicate name '%s'",
				    arr);
			if (add_array(ps, arr, bi, at) < 0)
				return -1;
			listed++;
		} while (accept(ps, ','));
		if (b.role != DOJO_TEMP && (listed != 1 || !self))
			return fail_at(ps, at, "kernel argument '%s' backs "
			    "only its own array", b.name);
		/* "-> NAME" alone is the default */
		if (listed == 1 && self)
			d->buf[bi].explicit_arrays = false;
	} else {
		d->buf[d->nbuf++] = b;
		if (add_array(ps, b.name, bi, ps->p) < 0)
			return -1;
		d->arr[d->narr - 1].pos = b.pos;
	}
	skip_space(ps);
	if (ps->p < ps->end)
		return fail_at(ps, ps->p, "unexpected '%.*s' after the "
		    "declaration of '%s'", CHAR_AT(ps->p), b.name);
	return 0;
}

static int parse_aff(struct parser *ps, struct dojo_aff *aff);

/* Add "k * {d}" (d < 0: the constant) to "aff". */
static int
aff_add(struct parser *ps, struct dojo_aff *aff, int d, int64_t k,
    const char *at)
{
	struct dojo_term *grown;
	int i;

	if (d < 0) {
		if (__builtin_add_overflow(aff->c, k, &aff->c))
			return fail_at(ps, at, "index constant overflows");
		return 0;
	}
	for (i = 0; i < aff->n && aff->t[i].d < d; i++)
		;
	if (i < aff->n && aff->t[i].d == d) {
		if (__builtin_add_overflow(aff->t[i].k, k, &aff->t[i].k))
			return fail_at(ps, at, "index coefficient overflows");
		if (aff->t[i].k == 0) {
			memmove(&aff->t[i], &aff->t[i + 1],
			    sizeof *aff->t * (aff->n - i - 1));
			aff->n--;
		}
		return 0;
	}
	if (k == 0)
		return 0;
	grown = realloc(aff->t, sizeof *grown * (aff->n + 1));
	if (!grown)
		return dojo_error_set("out of memory");
	aff->t = grown;
	memmove(&aff->t[i + 1], &aff->t[i], sizeof *aff->t * (aff->n - i));
	aff->t[i].d = d;
	aff->t[i].k = k;
	aff->n++;
	return 0;
}

/* One term of an index: a product of integers and at most one {d}. */
static int
parse_aff_term(struct parser *ps, struct dojo_aff *aff, int sign)
{
	int64_t k = sign, v;
	int d = -1;
	const char *at, *start;

	skip_space(ps);
	start = ps->p;
	do {
		skip_space(ps);
		at = ps->p;
		if (accept(ps, '{')) {
			if (d >= 0)
				return fail_at(ps, at, "index is not affine: "
				    "a product of two iterators");
			if (read_int(ps, &v, "a scope depth") < 0)
				return -1;
			if (v >= ps->depth)
				return fail_at(ps, at, "'{%lld}' refers to no "
				    "enclosing scope (the operation is at "
				    "depth %d)", (long long)v, ps->depth);
			d = (int)v;
			if (expect(ps, '}', "after the scope depth") < 0)
				return -1;
		} else if (ps->p < ps->end && isdigit((unsigned char)*ps->p)) {
			int n = token_len(ps->p, ps->end);

			if (memchr(ps->p, '.', n))
				return fail_at(ps, at, "an index is an integer "
				    "affine expression, found '%.*s'", n, ps->p);
			if (read_int(ps, &v, "an integer") < 0)
				return -1;
			if (__builtin_mul_overflow(k, v, &k))
				return fail_at(ps, at, "index coefficient "
				    "overflows");
		} else if (ps->p >= ps->end) {
			return fail_at(ps, at, "expected an index term, found "
			    "the end of the line");
		} else {
			return fail_at(ps, at, "expected an index term "
			    "(integer or {depth}), found '%.*s'",
			    CHAR_AT(ps->p));
		}
	} while (accept(ps, '*'));
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == '/')
		return fail_at(ps, ps->p, "index is not affine: division");
	return aff_add(ps, aff, d, k, start);
}

static int
parse_aff(struct parser *ps, struct dojo_aff *aff)
{
	int sign = 1;

	skip_space(ps);
	aff->pos.line = ps->cur->no;
	aff->pos.col = column(ps->cur, ps->p);
	if (accept(ps, '-'))
		sign = -1;
	else
		accept(ps, '+');
	for (;;) {
		if (parse_aff_term(ps, aff, sign) < 0)
			return -1;
		if (accept(ps, '+'))
			sign = 1;
		else if (accept(ps, '-'))
			sign = -1;
		else
			return 0;
	}
}

/* ARRAY[INDEX, ...]; the name is read already, "at" its start. */
static int
parse_access(struct parser *ps, struct dojo_access *acc, const char *name,
    const char *at)
{
	struct dojo_aff *grown;
	int a, ndim;

	a = dojo_program_find_array(ps->prog, name);
	if (a < 0)
		return fail_at(ps, at, "unknown array '%s'", name);
	acc->array = a;
	acc->pos.line = ps->cur->no;
	acc->pos.col = column(ps->cur, at);
	if (expect(ps, '[', "after the array name") < 0)
		return -1;
	do {
		grown = realloc(acc->idx, sizeof *grown * (acc->nidx + 1));
		if (!grown)
			return dojo_error_set("out of memory");
		acc->idx = grown;
		memset(&acc->idx[acc->nidx], 0, sizeof *grown);
		acc->nidx++;
		if (parse_aff(ps, &acc->idx[acc->nidx - 1]) < 0)
			return -1;
	} while (accept(ps, ','));
	if (expect(ps, ']', "after the indices") < 0)
		return -1;
	ndim = ps->decls->buf[ps->decls->arr[a].buffer].ndim;
	if (acc->nidx != ndim)
		return fail_at(ps, at, "'%s' has %d dimension%s, the access "
		    "gives %d ind%s", name, ndim, ndim == 1 ? "" : "s",
		    acc->nidx, acc->nidx == 1 ? "ex" : "ices");
	return 0;
}

static int parse_expr(struct parser *ps, struct dojo_expr **out, int nest);

static int
expr_depth(struct dojo_expr *e)
{
	int a, b;

	if (!e)
		return 0;
	a = expr_depth(e->a);
	b = expr_depth(e->b);
	return 1 + (a > b ? a : b);
}

static struct dojo_expr *
new_expr(struct parser *ps, enum dojo_expr_kind kind, const char *at)
{
	struct dojo_expr *e = dojo_expr_new(kind);

	if (!e) {
		dojo_error_set("out of memory");
		return NULL;
	}
	e->pos.line = ps->cur->no;
	e->pos.col = column(ps->cur, at);
	return e;
}

/* A number: digits, an optional fraction and exponent. */
static int
parse_number(struct parser *ps, struct dojo_expr **out)
{
	const char *s = ps->p, *q = ps->p;
	char buf[128];
	double v;

	while (q < ps->end && isdigit((unsigned char)*q))
		q++;
	if (q < ps->end && *q == '.') {
		q++;
		while (q < ps->end && isdigit((unsigned char)*q))
			q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		const char *e = q + 1;

		if (e < ps->end && (*e == '+' || *e == '-'))
			e++;
		if (e < ps->end && isdigit((unsigned char)*e)) {
			q = e;
			while (q < ps->end && isdigit((unsigned char)*q))
				q++;
		}
	}
	if (q == s || (q == s + 1 && *s == '.'))
		return fail_at(ps, s, "malformed number");
	if (q < ps->end && (is_ident_char((unsigned char)*q) || *q == '.'))
		return fail_at(ps, s, "malformed number '%.*s'",
		    token_len(s, ps->end), s);
	if (q - s >= (long)sizeof buf)
		return fail_at(ps, s, "number too long");
	memcpy(buf, s, q - s);
	buf[q - s] = '\0';
	errno = 0;
	v = strtod(buf, NULL);
	if (isinf(v))
		return fail_at(ps, s, "number '%s' is out of range", buf);
	*out = new_expr(ps, DOJO_E_NUM, s);
	if (!*out)
		return -1;
	(*out)->num = v;
	ps->p = q;
	return 0;
}

static int
parse_primary(struct parser *ps, struct dojo_expr **out, int nest)
{
	static const char *const fns[] = {
		"exp", "log", "sqrt", "tanh", "abs", "max", "min"
	};
	char name[DOJO_MAX_NAME + 1];
	const char *at;
	struct dojo_expr *e;
	int fn;

	skip_space(ps);
	at = ps->p;
	if (nest > MAX_EXPR_DEPTH)
		return fail_at(ps, at, "expression nested deeper than %d",
		    MAX_EXPR_DEPTH);
	if (ps->p >= ps->end)
		return fail_at(ps, at, "expected an expression, found the end "
		    "of the line");
	if (*ps->p == '-') {
		ps->p++;
		e = *out = new_expr(ps, DOJO_E_NEG, at);
		if (!e)
			return -1;
		return parse_primary(ps, &e->a, nest + 1);
	}
	if (*ps->p == '(') {
		ps->p++;
		if (parse_expr(ps, out, nest + 1) < 0)
			return -1;
		return expect(ps, ')', "to close the parenthesis");
	}
	if (isdigit((unsigned char)*ps->p) || *ps->p == '.')
		return parse_number(ps, out);
	if (!is_ident_start((unsigned char)*ps->p))
		return fail_at(ps, at, "expected an expression, found "
		    "'%.*s'", CHAR_AT(ps->p));
	if (read_ident(ps, name, &at, "a name") < 0)
		return -1;
	if (strcmp(name, "inf") == 0) {
		*out = new_expr(ps, DOJO_E_NUM, at);
		if (!*out)
			return -1;
		(*out)->num = INFINITY;
		return 0;
	}
	fn = lookup_word(name, fns, 7);
	skip_space(ps);
	if (strcmp(name, "nan") == 0)
		return fail_at(ps, at, "'nan' is not allowed (the format has "
		    "no NaN literal)");
	if (fn < 0 && ps->p < ps->end && *ps->p == '(')
		return fail_at(ps, at, "unknown function '%s' (expected exp, "
		    "log, sqrt, tanh, abs, max or min)", name);
	if (fn >= 0 && (ps->p >= ps->end || *ps->p != '(') &&
	    dojo_program_find_array(ps->prog, name) < 0)
		return fail_at(ps, ps->p, "expected '(' after '%s'", name);
	if (fn >= 0 && ps->p < ps->end && *ps->p == '(') {
		ps->p++;
		e = *out = new_expr(ps, DOJO_E_CALL, at);
		if (!e)
			return -1;
		e->fn = fn;
		if (parse_expr(ps, &e->a, nest + 1) < 0)
			return -1;
		if (fn >= DOJO_FN_MAX) {
			skip_space(ps);
			if (ps->p < ps->end && *ps->p == ')')
				return fail_at(ps, ps->p, "'%s' takes two "
				    "arguments", name);
			if (expect(ps, ',', "between the two arguments") < 0)
				return -1;
			if (parse_expr(ps, &e->b, nest + 1) < 0)
				return -1;
		} else if (accept(ps, ',')) {
			return fail_at(ps, ps->p - 1, "'%s' takes one "
			    "argument", name);
		}
		return expect(ps, ')', "after the arguments");
	}
	if (ps->p >= ps->end || *ps->p != '[') {
		if (dojo_program_find_array(ps->prog, name) < 0)
			return fail_at(ps, at, "unknown name '%s'", name);
		return fail_at(ps, ps->p, "expected '[' after the array "
		    "name '%s'", name);
	}
	e = *out = new_expr(ps, DOJO_E_ACCESS, at);
	if (!e)
		return -1;
	return parse_access(ps, &e->acc, name, at);
}

static int
parse_term(struct parser *ps, struct dojo_expr **out, int nest)
{
	struct dojo_expr *e;
	const char *at;
	char c;

	if (parse_primary(ps, out, nest) < 0)
		return -1;
	for (;;) {
		skip_space(ps);
		at = ps->p;
		if (ps->p >= ps->end || (*ps->p != '*' && *ps->p != '/'))
			return 0;
		c = *ps->p++;
		e = new_expr(ps, c == '*' ? DOJO_E_MUL : DOJO_E_DIV, at);
		if (!e)
			return -1;
		e->a = *out;
		*out = e;
		if (parse_primary(ps, &e->b, nest + 1) < 0)
			return -1;
	}
}

static int
parse_expr(struct parser *ps, struct dojo_expr **out, int nest)
{
	struct dojo_expr *e;
	const char *at;
	char c;

	if (parse_term(ps, out, nest) < 0)
		return -1;
	for (;;) {
		skip_space(ps);
		at = ps->p;
		if (ps->p >= ps->end || (*ps->p != '+' && *ps->p != '-'))
			return 0;
		c = *ps->p++;
		e = new_expr(ps, c == '+' ? DOJO_E_ADD : DOJO_E_SUB, at);
		if (!e)
			return -1;
		e->a = *out;
		*out = e;
		if (parse_term(ps, &e->b, nest + 1) < 0)
			return -1;
	}
}

/* ACCESS OP EXPR, the last cell of an operation line. */
static int
parse_op(struct parser *ps, struct dojo_node *op)
{
	char name[DOJO_MAX_NAME + 1];
	const char *at, *opat;

	skip_space(ps);
	if (ps->p < ps->end && isdigit((unsigned char)*ps->p))
		return fail_at(ps, ps->p, "expected an array access, found "
		    "'%.*s' (a scope size needs a '|' after it)",
		    token_len(ps->p, ps->end), ps->p);
	if (read_ident(ps, name, &at, "an array access") < 0)
		return -1;
	op->pos.line = ps->cur->no;
	op->pos.col = column(ps->cur, at);
	skip_space(ps);
	if (ps->p >= ps->end || *ps->p != '[') {
		if (dojo_program_find_array(ps->prog, name) < 0)
			return fail_at(ps, at, "unknown array '%s'", name);
		return fail_at(ps, ps->p, "expected '[' after the array "
		    "name '%s'", name);
	}
	if (parse_access(ps, &op->lhs, name, at) < 0)
		return -1;
	skip_space(ps);
	opat = ps->p;
	if (ps->p < ps->end && *ps->p == '=') {
		op->update = DOJO_SET;
	} else if (ps->p + 1 < ps->end && ps->p[1] == '=' &&
	    strchr("+-*", *ps->p)) {
		op->update = *ps->p == '+' ? DOJO_ADD_SET :
		    *ps->p == '-' ? DOJO_SUB_SET : DOJO_MUL_SET;
		ps->p++;
	} else if (ps->end - ps->p >= 3 && (!strncmp(ps->p, "max", 3) ||
	    !strncmp(ps->p, "min", 3))) {
		op->update = ps->p[1] == 'a' ? DOJO_MAX_SET : DOJO_MIN_SET;
		ps->p += 3;
		skip_space(ps);
		if (ps->p >= ps->end || *ps->p != '=')
			return fail_at(ps, opat, "expected an assignment "
			    "(=, +=, -=, *=, max=, min=)");
	} else {
		return fail_at(ps, opat, "expected an assignment (=, +=, -=, "
		    "*=, max=, min=)");
	}
	ps->p++;
	if (parse_expr(ps, &op->rhs, 0) < 0)
		return -1;
	skip_space(ps);
	if (ps->p < ps->end)
		return fail_at(ps, ps->p, "unexpected '%.*s' after the "
		    "expression", CHAR_AT(ps->p));
	if (expr_depth(op->rhs) > MAX_EXPR_LENGTH)
		return fail_at(ps, opat, "expression longer than %d operations",
		    MAX_EXPR_LENGTH);
	return 0;
}

/* Append "node" (taken) under the scope open at depth "depth - 1". */
static int
attach(struct parser *ps, struct dojo_node *node, int depth)
{
	if (depth == 0)
		return dojo_kids_append(&ps->prog->kids, &ps->prog->n, node);
	return dojo_node_append(ps->open[depth - 1], node);
}

/* CELL | CELL | ... | OPERATION */
static int
parse_op_line(struct parser *ps)
{
	const struct line *l = ps->cur;
	const char *p = l->start, *end = l->start + l->len, *bar;
	struct dojo_node *scope, *op;
	int64_t size;
	int depth = 0;
	bool opened = false;
	char flag;

	for (;;) {
		bar = memchr(p, '|', end - p);
		if (!bar)
			break;
		ps->p = p;
		ps->end = bar;
		skip_space(ps);
		if (depth == DOJO_MAX_DEPTH)
			return fail_at(ps, ps->p, "nesting deeper than %d "
			    "scopes", DOJO_MAX_DEPTH);
		if (ps->p == bar) {
			if (opened)
				return fail_at(ps, bar, "empty cell after a "
				    "scope opened on this line");
			if (depth >= ps->nopen)
				return fail_at(ps, bar, "empty cell at depth "
				    "%d continues no open scope", depth);
		} else {
			const char *at = ps->p, *eq;
			char name[DOJO_MAX_NAME + 1] = "";

			/* NAME=SIZE: the loop's name */
			eq = memchr(ps->p, '=', bar - ps->p);
			if (eq && !isdigit((unsigned char)*ps->p)) {
				size_t nlen = eq - ps->p;

				while (nlen && isspace((unsigned char)ps->p[nlen - 1]))
					nlen--;
				if (!loop_name_valid(ps->p, nlen))
					return fail_at(ps, at, "malformed loop "
					    "name '%.*s' (a letter or '_', then "
					    "letters, digits and _.+*; at most "
					    "%d)", (int)(eq - ps->p), ps->p,
					    DOJO_MAX_NAME);
				memcpy(name, ps->p, nlen);
				name[nlen] = '\0';
				ps->p = eq + 1;
				skip_space(ps);
			}
			if (!isdigit((unsigned char)*ps->p))
				return fail_at(ps, ps->p, "expected a scope size, "
				    "found '%.*s'", CHAR_AT(ps->p));
			if (read_int(ps, &size, "a scope size") < 0)
				return -1;
			if (size == 0)
				return fail_at(ps, at, "scope size must be "
				    "positive");
			flag = 0;
			if (accept(ps, ':')) {
				skip_space(ps);
				if (ps->p >= bar || !dojo_flag_find(*ps->p))
					return fail_at(ps, ps->p, "unknown "
					    "flag '%.*s' (expected %s)",
					    ps->p < bar ? 1 : 0, ps->p,
					    dojo_flag_letters());
				flag = *ps->p++;
				if (ps->p < bar && isalpha((unsigned char)*ps->p))
					return fail_at(ps, ps->p, "a scope takes "
					    "at most one flag");
			}
			skip_space(ps);
			if (ps->p < bar)
				return fail_at(ps, ps->p, "unexpected '%.*s' "
				    "in a scope cell", CHAR_AT(ps->p));
			scope = dojo_node_new_scope(size, flag);
			if (!scope)
				return dojo_error_set("out of memory");
			memcpy(scope->name, name, sizeof name);
			if (name[0])
				ps->decls->named = true;
			scope->pos.line = l->no;
			scope->pos.col = column(l, at);
			if (attach(ps, scope, depth) < 0)
				return -1;
			ps->open[depth] = scope;
			ps->nopen = depth + 1;
			opened = true;
		}
		depth++;
		p = bar + 1;
	}
	ps->p = p;
	ps->end = end;
	ps->depth = depth;
	skip_space(ps);
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "missing operation after the last "
		    "'|'");
	op = dojo_node_new_op();
	if (!op)
		return dojo_error_set("out of memory");
	if (parse_op(ps, op) < 0 || attach(ps, op, depth) < 0) {
		dojo_node_unref(op);
		return -1;
	}
	ps->nopen = depth;
	return 0;
}

/* Whether the line holds a declaration: NAME then a word, no '|'. */
static bool
is_decl(const struct line *l)
{
	const char *p = l->start, *end = l->start + l->len;

	if (memchr(p, '|', l->len) || memchr(p, '=', l->len))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || !is_ident_start((unsigned char)*p))
		return false;
	while (p < end && is_ident_char((unsigned char)*p))
		p++;
	if (p == end || (*p != ' ' && *p != '\t'))
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p < end && is_ident_start((unsigned char)*p);
}

static bool
is_blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (l->start[i] != ' ' && l->start[i] != '\t')
			return false;
	return true;
}

/* A loop name given twice: an error at the second one. */
static int
check_names(struct parser *ps, const struct dojo_node *node,
    const struct dojo_node **seen, int *nseen)
{
	int i;

	if (node->kind != DOJO_SCOPE)
		return 0;
	if (node->name[0]) {
		for (i = 0; i < *nseen; i++)
			if (strcmp(seen[i]->name, node->name) == 0)
				return dojo_error_at(ps->file, node->pos.line,
				    node->pos.col, "loop name '%s' given "
				    "twice (first at line %d)", node->name,
				    seen[i]->pos.line);
		if (*nseen < 4096)
			seen[(*nseen)++] = node;
	}
	for (i = 0; i < node->n; i++)
		if (check_names(ps, node->kids[i], seen, nseen) < 0)
			return -1;
	return 0;
}

dojo_program *
dojo_program_parse_only(const char *file, const char *text, size_t len)
{
	struct parser ps;
	int i, nops = 0;

	memset(&ps, 0, sizeof ps);
	ps.file = file ? file : "<input>";
	ps.prog = calloc(1, sizeof *ps.prog);
	ps.decls = calloc(1, sizeof *ps.decls);
	if (!ps.prog || !ps.decls) {
		free(ps.prog);
		free(ps.decls);
		dojo_error_set("out of memory");
		return NULL;
	}
	ps.prog->ref = 1;
	ps.decls->ref = 1;
	ps.prog->decls = ps.decls;
	ps.prog->file = strdup(ps.file);
	if (!ps.prog->file)
		goto out_free;
	if (split_lines(&ps, text, len) < 0)
		goto out_free;
	/* declarations first, so that operations may use any array */
	for (i = 0; i < ps.nlines; i++) {
		ps.cur = &ps.lines[i];
		if (is_blank(ps.cur) || !is_decl(ps.cur))
			continue;
		ps.p = ps.cur->start;
		ps.end = ps.cur->start + ps.cur->len;
		if (parse_decl(&ps) < 0)
			goto out_free;
	}
	for (i = 0; i < ps.nlines; i++) {
		ps.cur = &ps.lines[i];
		if (is_blank(ps.cur) || is_decl(ps.cur))
			continue;
		if (parse_op_line(&ps) < 0)
			goto out_free;
		nops++;
	}
	if (nops == 0) {
		dojo_error_at(ps.file, ps.nlines ? ps.nlines : 1, 1,
		    "no operation: a program needs at least one");
		goto out_free;
	}
	{
		const struct dojo_node **seen = calloc(4096, sizeof *seen);
		dojo_program *named;
		int nseen = 0;

		if (!seen) {
			dojo_error_set("out of memory");
			goto out_free;
		}
		for (i = 0; i < ps.prog->n; i++)
			if (check_names(&ps, ps.prog->kids[i], seen, &nseen) < 0)
				break;
		free(seen);
		if (i < ps.prog->n ||
		    !(named = dojo_program_name_loops(ps.prog)))
			goto out_free;
		dojo_program_free(ps.prog);
		ps.prog = named;
	}
	free(ps.lines);
	return ps.prog;
out_free:
	free(ps.lines);
	dojo_program_free(ps.prog);
	return NULL;
}

dojo_program *
dojo_program_parse(const char *file, const char *text, size_t len)
{
	dojo_program *prog = dojo_program_parse_only(file, text, len);

	if (prog && dojo_program_validate(prog) < 0) {
		dojo_program_free(prog);
		return NULL;
	}
	return prog;
}
