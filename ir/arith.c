/* arith.c: divisors of 63-bit integers through their factorization */
#include "config.h"

#include "ir/arith.h"

#include <stdbool.h>

/* Primes past this bound are found by Pollard's rho, not by division. */
#define TRIAL_BOUND 1000

static uint64_t
mulmod(uint64_t a, uint64_t b, uint64_t m)
{
	return (uint64_t)((unsigned __int128)a * b % m);
}

static uint64_t
powmod(uint64_t a, uint64_t e, uint64_t m)
{
	uint64_t r = 1;

	a %= m;
	for (; e; e >>= 1) {
		if (e & 1)
			r = mulmod(r, a, m);
		a = mulmod(a, a, m);
	}
	return r;
}

/* Miller-Rabin with the bases that decide every n below 2^64. */
static bool
is_prime(uint64_t n)
{
	static const uint64_t bases[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29,
		31, 37 };
	uint64_t d = n - 1, x;
	int s = 0, i, r;

	if (n < 2)
		return false;
	for (i = 0; i < 12; i++)
		if (n % bases[i] == 0)
			return n == bases[i];
	while (!(d & 1)) {
		d >>= 1;
		s++;
	}
	for (i = 0; i < 12; i++) {
		x = powmod(bases[i], d, n);
		if (x == 1 || x == n - 1)
			continue;
		for (r = 1; r < s; r++) {
			x = mulmod(x, x, n);
			if (x == n - 1)
				break;
		}
		if (r == s)
			return false;
	}
	return true;
}

static uint64_t
gcd(uint64_t a, uint64_t b)
{
	uint64_t t;

	while (b) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* A non-trivial factor of the odd composite "n" (Pollard's rho, Floyd's
 * cycle finding, a new constant whenever a walk fails). */
static uint64_t
rho(uint64_t n)
{
	uint64_t c, x, y, g;

	for (c = 1;; c++) {
		x = y = 2;
		g = 1;
		while (g == 1) {
			x = (mulmod(x, x, n) + c) % n;
			y = (mulmod(y, y, n) + c) % n;
			y = (mulmod(y, y, n) + c) % n;
			g = gcd(x > y ? x - y : y - x, n);
		}
		if (g != n)
			return g;
	}
}

struct factors {
	uint64_t p[64];
	int e[64];
	int n;
};

static void
add_factor(struct factors *f, uint64_t p)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->p[i] == p) {
			f->e[i]++;
			return;
		}
	f->p[f->n] = p;
	f->e[f->n++] = 1;
}

/* The prime factors of "n", which has none below TRIAL_BOUND. */
static void
factor_large(struct factors *f, uint64_t n)
{
	uint64_t d;

	if (n == 1)
		return;
	if (is_prime(n)) {
		add_factor(f, n);
		return;
	}
	d = rho(n);
	factor_large(f, d);
	factor_large(f, n / d);
}

/* Keep "d" if it is among the "max" smallest so far ("out" sorted). */
static void
keep_smallest(int64_t *out, int *got, int max, uint64_t d)
{
	int k = *got;

	if (k == max && d >= (uint64_t)out[max - 1])
		return;
	if (k < max)
		(*got)++;
	else
		k = max - 1;
	for (; k > 0 && (uint64_t)out[k - 1] > d; k--)
		out[k] = out[k - 1];
	out[k] = (int64_t)d;
}

/* Every divisor of the product of the factors "j" on, times "d". */
static void
all_divisors(const struct factors *f, int j, uint64_t d, uint64_t n,
    int64_t *out, int *got, int max)
{
	int e;

	if (j == f->n) {
		if (d > 1 && d < n)
			keep_smallest(out, got, max, d);
		return;
	}
	for (e = 0; e <= f->e[j]; e++) {
		all_divisors(f, j + 1, d, n, out, got, max);
		d *= f->p[j];
	}
}

int
dojo_divisors(int64_t n, int64_t *out, int max)
{
	struct factors f = { .n = 0 };
	uint64_t m = (uint64_t)n, p;
	int got = 0;

	if (n < 4 || max <= 0)
		return 0;
	for (p = 2; p < TRIAL_BOUND && p * p <= m; p++)
		while (m % p == 0) {
			add_factor(&f, p);
			m /= p;
		}
	if (m > 1 && m < TRIAL_BOUND * TRIAL_BOUND)
		add_factor(&f, m);	/* no factor below its square root */
	else
		factor_large(&f, m);
	/* at most 103,680 divisors below 2^63, no memory of their own */
	all_divisors(&f, 0, 1, (uint64_t)n, out, &got, max);
	return got;
}
