/* bench_moves.c: the cost of the game's moves on real kernels: the time to
 * enumerate a state's whole legal action set (dependences included, as a
 * fresh state costs), and the rate of applying legal actions.
 *
 * usage: bench_moves FILE.dojo...   (make bench) */
#include "config.h"

#include "ir/program.h"
#include "ir/moves.h"
#include "targets/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

struct list {
	struct dojo_action *a;
	int n, cap;
};

static int
collect(const struct dojo_action *a, void *payload)
{
	struct list *l = payload;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->a = realloc(l->a, sizeof *l->a * l->cap);
		if (!l->a)
			abort();
	}
	l->a[l->n++] = *a;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
bench(const char *file)
{
	double t[101], t0, elapsed;
	struct list l = { 0 };
	dojo_program *p, *q;
	dojo_legality *mv;
	long applied = 0;
	int i, k, rounds = 0;

	p = dojo_program_read_file(file);
	if (!p) {
		fprintf(stderr, "bench: %s\n", dojo_error_last());
		exit(1);
	}
	for (i = 0; i < 101; i++) {
		l.n = 0;
		t0 = now();
		mv = dojo_legality_new(p, dojo_target_machine("c"));
		dojo_legality_list(mv, NULL, 0, collect, &l);
		dojo_legality_free(mv);
		t[i] = now() - t0;
	}
	qsort(t, 101, sizeof *t, cmp_double);
	printf("%-28s %4d legal actions, enumeration median %8.3f ms "
	    "(min %.3f, max %.3f)\n", file, l.n, t[50] * 1e3, t[0] * 1e3,
	    t[100] * 1e3);
	mv = dojo_legality_new(p, dojo_target_machine("c"));
	t0 = now();
	do {
		for (k = 0; k < l.n; k++) {
			q = dojo_legality_apply_unchecked(mv, &l.a[k]);
			if (!q) {
				fprintf(stderr, "bench: %s\n", dojo_error_last());
				exit(1);
			}
			dojo_program_free(q);
			applied++;
		}
		rounds++;
		elapsed = now() - t0;
	} while (elapsed < 1.0);
	printf("%-28s %8.0f applied moves per second (%d rounds of every "
	    "legal action)\n", file, applied / elapsed, rounds);
	dojo_legality_free(mv);
	free(l.a);
	dojo_program_free(p);
}

int
main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		bench(argv[i]);
	return 0;
}
