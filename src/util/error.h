/* error.h: the per-thread last error of the core */
#ifndef DOJO_ERROR_H
#define DOJO_ERROR_H

/* Ownership annotations (documentation only, as in isl). */
#define __dojo_give
#define __dojo_take
#define __dojo_keep

#define DOJO_ERROR_MAX 1024

/* Set the last error from a printf format; always returns -1. */
int dojo_error_set(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Set the last error as FILE:LINE:COL: message; always returns -1. */
int dojo_error_at(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The last error message, "" when none. */
const char *dojo_error_last(void);
void dojo_error_clear(void);

#endif
