/* error.c: the per-thread last error of the core */
#include "config.h"
#include "src/util/error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[DOJO_ERROR_MAX];

/* Flatten "msg" to one line: newlines and tabs become spaces. */
static void
one_line(char *msg)
{
	for (; *msg; msg++)
		if (*msg == '\n' || *msg == '\r' || *msg == '\t')
			*msg = ' ';
}

int
dojo_error_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	one_line(last_error);
	return -1;
}

int
dojo_error_at(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(last_error, sizeof last_error, "%s:%d:%d: ",
	    file ? file : "<input>", line, col);
	if (n < 0 || (size_t)n >= sizeof last_error)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(last_error + n, sizeof last_error - n, fmt, ap);
	va_end(ap);
	one_line(last_error);
	return -1;
}

const char *
dojo_error_last(void)
{
	return last_error;
}

void
dojo_error_clear(void)
{
	last_error[0] = '\0';
}
