/* clock.h: elapsed time */
#ifndef DOJO_CLOCK_H
#define DOJO_CLOCK_H

/* Seconds of CLOCK_MONOTONIC, for deadlines and elapsed times. */
double dojo_clock_seconds(void);

#endif
