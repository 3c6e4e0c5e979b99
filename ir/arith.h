/* arith.h: integer arithmetic the moves need (divisors of a scope size) */
#ifndef DOJO_ARITH_H
#define DOJO_ARITH_H

#include <stdint.h>

/* The proper divisors of "n" (those in 2 .. n - 1), smallest first, at
 * most "max" of them into "out"; returns how many.  Any n of 63 bits takes
 * microseconds: n is factored (trial division by small primes, then
 * Miller-Rabin and Pollard's rho), never divided by every candidate, and
 * the smallest kept as they come: no memory is allocated. */
int dojo_divisors(int64_t n, int64_t *out, int max);

#endif
