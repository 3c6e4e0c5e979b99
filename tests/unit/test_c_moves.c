/* test_c_moves.c: generated C agrees with the interpreter on random legal
 * move sequences (every flag included) of every example, and after each
 * example's move file.
 *
 * usage: test_c_moves FILE.dojo... DIR/NAME.actions...  (TAP)
 * DOJO_C_SEQUENCES (default 8) sequences of up to 15 moves per kernel
 * file; a move file is applied, each move checked legal, to DIR/NAME.dojo
 * (NAME up to a '-': matmul-blocked.actions is of matmul.dojo), and the
 * result compared in the exact mode (bit for bit unless a move
 * reassociated a sum) and in the fast mode (within the tolerance). */
#include "config.h"

#include "ir/data.h"
#include "ir/interp.h"
#include "ir/program.h"
#include "ir/moves.h"
#include "targets/runner.h"
#include "tests/unit/walk.h"
#include "targets/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 7;

static uint64_t
rng(void)
{
	return dojo_splitmix64(&rng_state);
}

/* A random legal move of "p", or NULL; "reassoc" set when it reorders a
 * reduction. */
static dojo_program *
step(dojo_program *p, char *text, size_t len, bool *reassoc)
{
	struct walk_actions c = { 0 };
	dojo_legality *mv = dojo_legality_new(p, dojo_target_machine("c"));
	dojo_program *next = NULL;
	int k;

	dojo_legality_list(mv, NULL, 0, walk_actions_add, &c);
	if (c.n > 0) {
		k = (int)(rng() % (uint64_t)c.n);
		dojo_action_format(text, len, &c.v[k].a);
		*reassoc |= dojo_legality_reassociates(mv, &c.v[k].a);
		next = dojo_legality_apply_unchecked(mv, &c.v[k].a);
	}
	walk_actions_release(&c);
	dojo_legality_free(mv);
	return next;
}

/* Outputs of the C target, in the exact mode or not, against the
 * interpreter's on the same program. */
static bool
agrees_in(dojo_program *p, bool exact, bool tolerant, char *why, size_t len)
{
	struct dojo_run_options opt = { NULL, NULL, 60, DOJO_RUN_MEMORY, false,
		0, 0, 0, 0 };
	struct dojo_run_result res;
	dojo_data *a = dojo_data_new(p, 1 << 30), *b = dojo_data_new(p, 1 << 30);
	bool ok = true;

	if (!a || !b) {
		snprintf(why, len, "%s", dojo_error_last());
		ok = false;
		goto out;
	}
	dojo_data_randomize(a, 3);
	dojo_data_randomize(b, 3);
	opt.exact = exact;
	if (dojo_interp_run(p, a) < 0 || dojo_c_run(p, b, &opt, &res) < 0) {
		snprintf(why, len, "%s", dojo_error_last());
		ok = false;
		goto out;
	}
	if (res.outcome != DOJO_OUTCOME_OK) {
		snprintf(why, len, "%s: %s", dojo_outcome_name(res.outcome),
		    res.message);
		ok = false;
		goto out;
	}
	ok = walk_outputs_agree(p, a, p, b, tolerant, why, len);
out:
	dojo_data_free(a);
	dojo_data_free(b);
	return ok;
}

/* In the exact mode: bit for bit, unless a sum is reassociated. */
static bool
agrees(dojo_program *p, bool tolerant, char *why, size_t len)
{
	return agrees_in(p, true, tolerant, why, len);
}

/* The move file "path" on its kernel: 0 when it applies and both modes
 * agree, else 1 after saying why. */
static int
move_file(const char *path, int *n)
{
	char kernel[4096], line[512], why[1024], target[32] = "c", *q;
	const char *base = strrchr(path, '/'), *dot;
	struct dojo_action a;
	dojo_legality *mv;
	dojo_program *p, *next;
	bool reassoc = false, ok;
	FILE *f;
	size_t dir = base ? (size_t)(base - path + 1) : 0;
	int lineno = 0;

	base = base ? base + 1 : path;
	snprintf(kernel, sizeof kernel, "%.*s%.*s.dojo", (int)dir, path,
	    (int)strcspn(base, "-."), base);
	/* NAME.TARGET.actions: the moves of that target's machine;
	 * NAME.avx2.actions: the host's, for a CPU without AVX-512 */
	dot = strchr(base, '.');
	if (dot && strcmp(dot, ".actions") != 0)
		snprintf(target, sizeof target, "%.*s",
		    (int)strcspn(dot + 1, "."), dot + 1);
	if (strcmp(target, "avx2") == 0)
		snprintf(target, sizeof target, "c");
	p = dojo_program_read_file(kernel);
	f = fopen(path, "r");
	while (p && f && fgets(line, sizeof line, f)) {
		lineno++;
		if ((q = strchr(line, '#')))
			*q = '\0';
		line[strcspn(line, "\n")] = '\0';
		for (q = line; *q == ' '; q++)
			;
		if (!*q)
			continue;
		mv = dojo_legality_new(p, dojo_target_machine(target));
		next = NULL;
		if (mv && dojo_action_parse(&a, q) == 0) {
			next = dojo_legality_apply(mv, &a);
			reassoc |= next && dojo_legality_reassociates(mv, &a);
		}
		if (!next)
			printf("#   %s:%d: %s\n", path, lineno,
			    dojo_error_last());
		dojo_legality_free(mv);
		dojo_program_free(p);
		p = next;
	}
	if (f)
		fclose(f);
	ok = p && f;
	printf("%sok %d - %s applies to %s\n", ok ? "" : "not ", ++*n, path,
	    kernel);
	if (!ok) {
		dojo_program_free(p);
		return 1;
	}
	ok = agrees_in(p, true, reassoc, why, sizeof why);
	printf("%sok %d - %s: the exact mode agrees with the interpreter "
	    "%s\n", ok ? "" : "not ", ++*n, path, reassoc ?
	    "(a sum reassociated: within the tolerance)" : "bit for bit");
	if (!ok)
		printf("#   %s\n", why);
	if (ok) {
		ok = agrees_in(p, false, true, why, sizeof why);
		printf("%sok %d - %s: the fast mode agrees with the interpreter "
		    "within the tolerance\n", ok ? "" : "not ", ++*n, path);
		if (!ok)
			printf("#   %s\n", why);
	}
	dojo_program_free(p);
	return !ok;
}

int
main(int argc, char **argv)
{
	const char *e = getenv("DOJO_C_SEQUENCES");
	int nseq = e ? atoi(e) : 8, i, s, k, len, bad, n = 0, failed = 0;
	char text[256], path[4096], why[1024];
	dojo_program *p, *next;
	bool reassoc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		len = (int)strlen(argv[i]);
		if (len > 8 && strcmp(argv[i] + len - 8, ".actions") == 0) {
			failed |= move_file(argv[i], &n);
			continue;
		}
		bad = 0;
		for (s = 0; s < nseq; s++) {
			p = dojo_program_read_file(argv[i]);
			if (!p) {
				bad++;
				break;
			}
			len = 1 + (int)(rng() % 15);
			reassoc = false;
			path[0] = '\0';
			for (k = 0; k < len; k++) {
				next = step(p, text, sizeof text, &reassoc);
				if (!next)
					break;
				dojo_program_free(p);
				p = next;
				snprintf(path + strlen(path), sizeof path -
				    strlen(path), "%s%s", k ? ", " : "", text);
			}
			if (!agrees(p, reassoc, why, sizeof why)) {
				if (bad++ < 3)
					printf("#   after %s: %s\n", path, why);
			}
			dojo_program_free(p);
		}
		printf("%sok %d - %s: the C target agrees with the interpreter "
		    "after %d random move sequences\n", bad ? "not " : "", ++n,
		    argv[i], nseq);
		failed |= bad != 0;
	}
	printf("1..%d\n", n);
	return failed;
}
