/* clock.c: elapsed time */
#include "config.h"
#include "src/util/clock.h"

#include <time.h>

double
dojo_clock_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
