/* error.h: the per-thread last error of the core */
#ifndef DOJO_ERROR_H
#define DOJO_ERROR_H

/* Ownership annotations (documentation only, as in isl). */
#define __dojo_give
#define __dojo_take
#define __dojo_keep

#define DOJO_ERROR_MAX 1024

/* What a function that can be refused or fail did, wherever both can
 * happen: a refusal is a verdict (an illegal move, a step that does not
 * apply), a failure is not (no memory, isl or a child gave no answer).
 * Both leave the reason as the last error.  DOJO_FAILED is -1, so that
 * "< 0" still reads "failed". */
enum dojo_result {
	DOJO_FAILED = -1,
	DOJO_DONE = 0,		/* for a check: legal */
	DOJO_REFUSED = 1,
};

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
