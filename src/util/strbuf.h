/* strbuf.h: growable strings */
#ifndef DOJO_STRBUF_H
#define DOJO_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "src/util/error.h"

struct dojo_strbuf {
	char *s;
	size_t len;
	size_t cap;
	bool oom;	/* an allocation failed: the text is incomplete */
};

void dojo_strbuf_init(__dojo_keep struct dojo_strbuf *sb);
void dojo_strbuf_release(__dojo_keep struct dojo_strbuf *sb);
void dojo_strbuf_add(__dojo_keep struct dojo_strbuf *sb, const char *s,
    size_t len);
void dojo_strbuf_puts(__dojo_keep struct dojo_strbuf *sb, const char *s);
void dojo_strbuf_printf(__dojo_keep struct dojo_strbuf *sb, const char *fmt,
    ...) __attribute__((format(printf, 2, 3)));
void dojo_strbuf_pad(__dojo_keep struct dojo_strbuf *sb, char c, size_t n);
/* Append the "len" bytes of "s" with each tab as spaces to the next
 * multiple of "tab" columns (a byte a column), at most "max" columns;
 * the columns appended. */
int dojo_strbuf_add_expanded(__dojo_keep struct dojo_strbuf *sb,
    const char *s, size_t len, int tab, int max);
/* Append the whole file "path" (bytes as they are) to "sb"; 0, or -1 with
 * "PATH: reason" as the last error. */
int dojo_strbuf_read_file(__dojo_keep struct dojo_strbuf *sb,
    const char *path);
/* Give the string away (NULL if an allocation failed) and reset. */
__dojo_give char *dojo_strbuf_detach(__dojo_keep struct dojo_strbuf *sb);
/* The shortest decimal text that reads back as "v". */
void dojo_format_number(char out[32], double v);
/* The shortest decimal text that strtof reads back as "v": with an 'f'
 * after it, a C literal of exactly "v" (a compiler rounds a float
 * literal's decimal straight to float, not through double). */
void dojo_format_float(char out[32], float v);
/* A ratio "v" with "digits" significant digits, or as many more as it
 * takes to read back on its side of 1: a speedup whose interval's low
 * bound is 1.00004 must not read "1" where "above 1" is the test. */
void dojo_format_ratio(char out[32], double v, int digits);
/* "[LOW, HIGH]", each bound as dojo_format_ratio writes it. */
void dojo_format_interval(char out[80], double low, double high,
    int digits);
/* The words of "text" split on blanks (spaces, tabs, newlines), with no
 * quoting and no expansion: an argv, NULL-terminated, "*n" words when
 * "n"; one allocation that free() releases, NULL when out of memory. */
__dojo_give char **dojo_split_words(const char *text, int *n);

#endif
