/* bench_gemm.c: the 512 matmul, naive and after the moves of
 * examples/matmul-blocked.actions, against OpenBLAS cblas_sgemm, with 1
 * and 2 threads: GFLOP/s and ratios, measured in one run.
 *
 * usage: bench_gemm MATMUL.dojo ACTIONS   (make bench)
 * BENCH_ROUNDS (default 5, at most 50): alternate rounds of the moved
 * kernel and OpenBLAS. */
#include "config.h"

#include "ir/program.h"
#include "ir/moves.h"
#include "targets/measure.h"
#include "targets/runner.h"
#include "targets/target.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 512
#define MAX_ROUNDS 50

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* cblas_sgemm timed as the runner times kernels. */
static double
time_openblas(int threads)
{
	float *a = malloc(sizeof *a * N * N), *b = malloc(sizeof *b * N * N);
	float *c = malloc(sizeof *c * N * N);
	double t[1000], start, med, lo, hi, s[1000];
	int i, n = 0;

	for (i = 0; i < N * N; i++) {
		a[i] = (float)rand() / RAND_MAX * 2 - 1;
		b[i] = (float)rand() / RAND_MAX * 2 - 1;
	}
	openblas_set_num_threads(threads);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1, a,
	    N, b, N, 0, c, N);
	start = now_ns();
	while (n < 1000) {
		double t0 = now_ns();

		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N,
		    1, a, N, b, N, 0, c, N);
		t[n++] = now_ns() - t0;
		if (n < 5)
			continue;
		memcpy(s, t, sizeof *t * n);
		qsort(s, n, sizeof *s, cmp_double);
		dojo_median_ci(s, n, &med, &lo, &hi);
		if ((hi - lo) / med <= 0.01 || now_ns() - start > 2e9)
			break;
	}
	free(a);
	free(b);
	free(c);
	return med;
}

static dojo_program *
apply_file(dojo_program *p, const char *path)
{
	char line[512], *q;
	dojo_program *next;
	FILE *f = fopen(path, "r");

	while (p && f && fgets(line, sizeof line, f)) {
		if ((q = strchr(line, '#')))
			*q = '\0';
		line[strcspn(line, "\n")] = '\0';
		for (q = line; *q == ' '; q++)
			;
		if (!*q)
			continue;
		next = dojo_program_apply_text(p, q, dojo_target_machine("c"));
		dojo_program_free(p);
		p = next;
	}
	if (f)
		fclose(f);
	return p;
}

int
main(int argc, char **argv)
{
	struct dojo_measure_options opt;
	struct dojo_measurement naive, moved;
	dojo_program *p, *q;
	double flops = 2.0 * N * N * N, mt[MAX_ROUNDS], bt[MAX_ROUNDS];
	double ratio[MAX_ROUNDS];
	char db[] = "/tmp/perfdojo-bench-XXXXXX", dbpath[64];
	const char *e = getenv("BENCH_ROUNDS");
	int threads, r, rounds = e && atoi(e) > 0 ? atoi(e) : 5;

	if (rounds > MAX_ROUNDS)
		rounds = MAX_ROUNDS;

	if (argc != 3 || !mkdtemp(db)) {
		fprintf(stderr, "usage: bench_gemm MATMUL.dojo ACTIONS\n");
		return 2;
	}
	snprintf(dbpath, sizeof dbpath, "%s/m.db", db);
	p = dojo_program_read_file(argv[1]);
	q = p ? apply_file(dojo_program_copy(p), argv[2]) : NULL;
	if (!p || !q) {
		fprintf(stderr, "bench_gemm: %s\n", dojo_error_last());
		return 1;
	}
	for (threads = 1; threads <= 2; threads++) {
		char env[8];

		snprintf(env, sizeof env, "%d", threads);
		setenv("OMP_NUM_THREADS", env, 1);
		dojo_measure_options_init(&opt);
		opt.db = dbpath;
		opt.fresh = true;
		if (dojo_measure(p, NULL, &opt, &naive) < 0) {
			fprintf(stderr, "bench_gemm: %s\n", dojo_error_last());
			return 1;
		}
		/* the moved kernel and OpenBLAS in alternate rounds, so that a
		 * drift of the machine's speed slows both alike: the median of
		 * the rounds' ratios, and their range */
		for (r = 0; r < rounds; r++) {
			if (dojo_measure(q, p, &opt, &moved) < 0) {
				fprintf(stderr, "bench_gemm: %s\n",
				    dojo_error_last());
				return 1;
			}
			mt[r] = moved.median_ns;
			bt[r] = time_openblas(threads);
			ratio[r] = bt[r] / mt[r];
		}
		qsort(mt, rounds, sizeof *mt, cmp_double);
		qsort(bt, rounds, sizeof *bt, cmp_double);
		qsort(ratio, rounds, sizeof *ratio, cmp_double);
		printf("%d thread%s: naive %6.2f GFLOP/s, moved %6.2f GFLOP/s "
		    "(%s), OpenBLAS %6.2f GFLOP/s; moved/OpenBLAS %.2f "
		    "(%.2f-%.2f, %d alternate rounds)\n",
		    threads, threads > 1 ? "s" : " ", flops / naive.median_ns,
		    flops / mt[rounds / 2], dojo_outcome_name(moved.outcome),
		    flops / bt[rounds / 2], ratio[rounds / 2], ratio[0],
		    ratio[rounds - 1], rounds);
	}
	dojo_program_free(q);
	dojo_program_free(p);
	snprintf(dbpath, sizeof dbpath, "rm -rf %s", db);
	return system(dbpath) != 0;
}
