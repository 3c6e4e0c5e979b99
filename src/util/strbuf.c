/* strbuf.c: growable strings */
#include "config.h"
#include "src/util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dojo_strbuf_init(struct dojo_strbuf *sb)
{
	memset(sb, 0, sizeof *sb);
}

void
dojo_strbuf_release(struct dojo_strbuf *sb)
{
	free(sb->s);
	dojo_strbuf_init(sb);
}

static bool
grow(struct dojo_strbuf *sb, size_t more)
{
	size_t cap;
	char *s;

	if (sb->oom)
		return false;
	if (sb->len + more + 1 <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + more + 1)
		cap *= 2;
	s = realloc(sb->s, cap);
	if (!s) {
		sb->oom = true;
		return false;
	}
	sb->s = s;
	sb->cap = cap;
	return true;
}

void
dojo_strbuf_add(struct dojo_strbuf *sb, const char *s, size_t len)
{
	if (!grow(sb, len))
		return;
	memcpy(sb->s + sb->len, s, len);
	sb->len += len;
	sb->s[sb->len] = '\0';
}

void
dojo_strbuf_puts(struct dojo_strbuf *sb, const char *s)
{
	dojo_strbuf_add(sb, s, strlen(s));
}

void
dojo_strbuf_printf(struct dojo_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += n;
}

void
dojo_strbuf_pad(struct dojo_strbuf *sb, char c, size_t n)
{
	if (!grow(sb, n))
		return;
	memset(sb->s + sb->len, c, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

int
dojo_strbuf_add_expanded(struct dojo_strbuf *sb, const char *s, size_t len,
    int tab, int max)
{
	size_t k;
	int c = 0;

	for (k = 0; k < len && c < max; k++)
		if (s[k] == '\t')
			do
				dojo_strbuf_add(sb, " ", 1);
			while (++c % tab && c < max);
		else {
			dojo_strbuf_add(sb, &s[k], 1);
			c++;
		}
	return c;
}

int
dojo_strbuf_read_file(struct dojo_strbuf *sb, const char *path)
{
	char buf[65536];
	size_t got;
	FILE *f = fopen(path, "rb");

	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		dojo_strbuf_add(sb, buf, got);
	if (ferror(f)) {
		dojo_error_set("%s: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	return sb->oom ? dojo_error_set("%s: out of memory", path) : 0;
}

char *
dojo_strbuf_detach(struct dojo_strbuf *sb)
{
	char *s = sb->s;

	if (sb->oom) {
		free(s);
		s = NULL;
	} else if (!s) {
		s = calloc(1, 1);
	}
	dojo_strbuf_init(sb);
	return s;
}

/* Drop the '+' and the leading zeros of the exponent of "s". */
static void
tidy_exponent(char *s)
{
	char *e = strchr(s, 'e'), *d;

	if (!e)
		return;
	d = e + 1;
	if (*d == '+')
		memmove(d, d + 1, strlen(d));
	else if (*d == '-')
		d++;
	while (d[0] == '0' && d[1])
		memmove(d, d + 1, strlen(d));
}

/* The shortest of "%.1g" to "%.<max>g" of "v" that "same" says reads
 * back as "v", a whole number in full when that is no longer. */
static void
format_shortest(char out[32], double v, int max,
    bool (*same)(const char *, double))
{
	char plain[32];
	int p;

	if (isinf(v)) {
		strcpy(out, v < 0 ? "-inf" : "inf");
		return;
	}
	for (p = 1; p <= max; p++) {
		snprintf(out, 32, "%.*g", p, v);
		if (same(out, v))
			break;
	}
	tidy_exponent(out);
	/* an integer reads better in full when that is no longer */
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(plain, sizeof plain, "%.0f", v);
		if (strlen(plain) <= strlen(out))
			strcpy(out, plain);
	}
}

static bool
same_double(const char *s, double v)
{
	return strtod(s, NULL) == v;
}

static bool
same_float(const char *s, double v)
{
	return strtof(s, NULL) == (float)v;
}

void
dojo_format_number(char out[32], double v)
{
	format_shortest(out, v, 17, same_double);
}

void
dojo_format_float(char out[32], float v)
{
	format_shortest(out, v, 9, same_float);
}

static int
side_of_one(double v)
{
	return (v > 1) - (v < 1);
}

void
dojo_format_ratio(char out[32], double v, int digits)
{
	do
		snprintf(out, 32, "%.*g", digits, v);
	while (!isnan(v) && side_of_one(strtod(out, NULL)) != side_of_one(v) &&
	    ++digits <= 17);
}

void
dojo_format_interval(char out[80], double low, double high, int digits)
{
	char l[32], h[32];

	dojo_format_ratio(l, low, digits);
	dojo_format_ratio(h, high, digits);
	snprintf(out, 80, "[%s, %s]", l, h);
}

char **
dojo_split_words(const char *text, int *n)
{
	static const char blanks[] = " \t\n";
	size_t len = strlen(text), k = 0;
	char **words, *q;

	/* at most one word every two bytes, and the NULL */
	words = malloc((len / 2 + 2) * sizeof *words + len + 1);
	if (!words)
		return NULL;
	q = memcpy(words + len / 2 + 2, text, len + 1);
	for (;;) {
		q += strspn(q, blanks);
		if (!*q)
			break;
		words[k++] = q;
		q += strcspn(q, blanks);
		if (*q)
			*q++ = '\0';
	}
	words[k] = NULL;
	if (n)
		*n = (int)k;
	return words;
}
