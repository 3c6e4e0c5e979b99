/* arith.c: divisors of 63-bit integers through their factorization */
#include "config.h"

#include "arith.h"

#include <stdbool.h>
#include <stdlib.h>

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

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int
dojo_divisors(int64_t n, int64_t *out, int max)
{
	struct factors f = { .n = 0 };
	uint64_t m = (uint64_t)n, p, *all, pw;
	size_t count = 1, len, i, k;
	int j, e, got = 0;

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
	for (j = 0; j < f.n; j++)
		count *= (size_t)f.e[j] + 1;
	all = malloc(sizeof *all * count);
	if (!all) {
		/* without memory: the small divisors, one by one */
		for (p = 2; p <= (uint64_t)n / p && got < max; p++)
			if ((uint64_t)n % p == 0)
				out[got++] = (int64_t)p;
		return got;
	}
	all[0] = 1;
	len = 1;
	for (j = 0; j < f.n; j++) {
		size_t base = len;

		pw = 1;
		for (e = 1; e <= f.e[j]; e++) {
			pw *= f.p[j];
			for (k = 0; k < base; k++)
				all[len++] = all[k] * pw;
		}
	}
	qsort(all, len, sizeof *all, cmp_u64);
	for (i = 1; i + 1 < len && got < max; i++)
		out[got++] = (int64_t)all[i];
	free(all);
	return got;
}
