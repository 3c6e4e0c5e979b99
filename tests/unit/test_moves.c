/* test_moves.c: the moves keep the meaning of every example: random legal
 * sequences interpreted against the original, inverses, long sessions.
 *
 * usage: test_moves FILE.dojo...  (TAP on stdout)
 * DOJO_SEQUENCES (default 200) random sequences of up to 15 moves per
 * file; DOJO_SESSION (default 1000) moves of one long session per file. */
#include "config.h"

#include "ir/data.h"
#include "ir/interp.h"
#include "ir/program.h"
#include "ir/program_private.h"
#include "ir/moves.h"
#include "tests/unit/walk.h"
#include "targets/target.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n;
static int failed;

static void
result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		failed = 1;
}

static uint64_t rng_state;

static uint64_t
rng(void)
{
	return dojo_splitmix64(&rng_state);
}

/* One random legal move from "p": a move kind chosen uniformly among
 * those with candidates, then one of its candidates (so that the kinds
 * with hundreds of candidates, cache and pack, do not crowd out the
 * others); the next program, or NULL when no move is legal.  "text" gets
 * the action. */
static dojo_program *
random_move(dojo_program *p, char *text, size_t len, bool *reassoc)
{
	struct walk_actions c = { 0 };
	dojo_legality *mv = dojo_legality_new(p, dojo_target_machine("c"));
	dojo_program *next = NULL;
	int kinds[64], nk, i, k, m, tries = 0, first, count;

	dojo_legality_candidates(mv, NULL, 0, walk_actions_add, &c);
	nk = walk_actions_moves(&c, kinds, 64);
	while (nk > 0) {
		tries++;
		k = (int)(rng() % (uint64_t)nk);
		m = kinds[k];
		/* the candidates of kind m are contiguous */
		for (first = 0; first < c.n && c.v[first].move != m; first++)
			;
		for (count = 0; first + count < c.n &&
		    c.v[first + count].move == m; count++)
			;
		if (count == 0) {
			kinds[k] = kinds[--nk];
			continue;
		}
		i = first + (int)(rng() % (uint64_t)count);
		if (dojo_legality_check(mv, &c.v[i].a) != DOJO_DONE) {
			memmove(&c.v[i], &c.v[i + 1], sizeof *c.v *
			    (c.n - i - 1));
			c.n--;
			continue;
		}
		dojo_action_format(text, len, &c.v[i].a);
		*reassoc = dojo_legality_reassociates(mv, &c.v[i].a);
		next = dojo_legality_apply_unchecked(mv, &c.v[i].a);
		if (!next)
			printf("#   apply failed: %s: %s\n", text,
			    dojo_error_last());
		break;
	}
	if (!next && nk == 0)
		printf("#   no legal move left (%d tries)\n", tries);
	walk_actions_release(&c);
	dojo_legality_free(mv);
	return next;
}

/* Interpret "p" on seeded inputs. */
static dojo_data *
run(dojo_program *p)
{
	dojo_data *d = dojo_data_new(p, 1 << 30);

	if (!d)
		return NULL;
	dojo_data_randomize(d, 7);
	if (dojo_interp_run(p, d) < 0) {
		dojo_data_free(d);
		return NULL;
	}
	return d;
}

static bool
valid_text(dojo_program *p, char *why, size_t len)
{
	char *text = dojo_program_print(p, false), *again;
	dojo_program *q;
	bool ok;

	if (dojo_program_validate(p) < 0) {
		snprintf(why, len, "invalid: %s", dojo_error_last());
		free(text);
		return false;
	}
	/* validated above: read back without checking again */
	q = dojo_program_parse_only("moved", text, strlen(text));
	if (!q) {
		snprintf(why, len, "does not read back: %s", dojo_error_last());
		free(text);
		return false;
	}
	again = dojo_program_print(q, false);
	ok = strcmp(text, again) == 0;
	if (!ok)
		snprintf(why, len, "prints differently after reading back");
	free(again);
	free(text);
	dojo_program_free(q);
	return ok;
}

static int
inverse_one(const struct dojo_action *a, void *payload)
{
	dojo_program *p = payload, *q, *r;
	struct dojo_action inv;
	dojo_legality *mv = dojo_legality_new(p, dojo_target_machine("c")), *mq;
	char text[256], itext[256];
	int bad = 0;

	dojo_action_format(text, sizeof text, a);
	q = dojo_legality_apply(mv, a);
	if (!q) {
		printf("#   %s listed but refused: %s\n", text, dojo_error_last());
		bad = 1;
	} else if (dojo_legality_inverse(&inv, mv, a) == 0) {
		mq = dojo_legality_new(q, dojo_target_machine("c"));
		dojo_action_format(itext, sizeof itext, &inv);
		r = dojo_legality_apply(mq, &inv);
		if (!r || !dojo_program_equal(p, r)) {
			printf("#   %s then %s: %s\n", text, itext,
			    r ? "not the original" : dojo_error_last());
			bad = 1;
		}
		dojo_program_free(r);
		dojo_legality_free(mq);
	}
	dojo_program_free(q);
	dojo_legality_free(mv);
	return bad ? 1 : 0;
}

/* Whether the inverse of the move "text" (from "before" to "after")
 * gives "before" back; true for a move without an inverse. */
static bool
inverse_restores(dojo_program *before, dojo_program *after, const char *text)
{
	struct dojo_action a, inv;
	dojo_legality *mb, *ma;
	dojo_program *back;
	bool ok = true;

	if (dojo_action_parse(&a, text) < 0)
		return false;
	mb = dojo_legality_new(before, dojo_target_machine("c"));
	if (dojo_legality_inverse(&inv, mb, &a) == 0) {
		ma = dojo_legality_new(after, dojo_target_machine("c"));
		back = dojo_legality_apply(ma, &inv);
		ok = back && dojo_program_equal(back, before);
		dojo_program_free(back);
		dojo_legality_free(ma);
	}
	dojo_error_clear();
	dojo_legality_free(mb);
	return ok;
}

static void
test_file(const char *file, int nseq, int nsession)
{
	dojo_program *p0, *p, *next;
	dojo_data *d0, *d;
	dojo_legality *mv;
	char text[256], why[1024], path[4096];
	int s, k, len, bad_valid = 0, bad_same = 0, bad_inverse = 0, moves = 0;
	int r;
	bool reassoc, tolerant;

	p0 = dojo_program_read_file(file);
	if (!p0) {
		result(false, "%s: reads%s", file, "");
		printf("#   %s\n", dojo_error_last());
		return;
	}
	d0 = run(p0);
	/* every legal move at the start, then its inverse */
	mv = dojo_legality_new(p0, dojo_target_machine("c"));
	r = dojo_legality_list(mv, NULL, 0, inverse_one, p0);
	dojo_legality_free(mv);
	result(r == 0, "%s: every legal move then its inverse gives the "
	    "start back%s", file, "");
	/* random legal sequences */
	for (s = 0; s < nseq; s++) {
		p = dojo_program_copy(p0);
		len = 1 + (int)(rng() % 15);
		tolerant = false;
		path[0] = '\0';
		for (k = 0; k < len; k++) {
			next = random_move(p, text, sizeof text, &reassoc);
			if (!next)
				break;
			moves++;
			tolerant |= reassoc;
			snprintf(path + strlen(path), sizeof path - strlen(path),
			    "%s%s", k ? ", " : "", text);
			if (!inverse_restores(p, next, text)) {
				if (bad_inverse++ < 3)
					printf("#   after %s: the inverse of the last "
					    "move does not restore the text\n", path);
			}
			dojo_program_free(p);
			p = next;
			if (!valid_text(p, why, sizeof why)) {
				if (bad_valid++ < 3)
					printf("#   after %s: %s\n", path, why);
				break;
			}
		}
		d = run(p);
		if (!d || !d0 || !walk_outputs_agree(p0, d0, p, d, tolerant, why,
		    sizeof why)) {
			if (bad_same++ < 3)
				printf("#   after %s: %s\n", path,
				    d ? why : dojo_error_last());
		}
		dojo_data_free(d);
		dojo_program_free(p);
	}
	snprintf(why, sizeof why, " (%d sequences, %d moves)", nseq, moves);
	result(bad_inverse == 0, "%s: along the sequences, each move's inverse "
	    "gives the previous text back%s", file, why);
	result(bad_valid == 0, "%s: every moved program is valid and reads "
	    "back%s", file, why);
	result(bad_same == 0, "%s: moved programs compute the same outputs%s",
	    file, why);
	/* one long session */
	p = dojo_program_copy(p0);
	bad_valid = 0;
	for (k = 0; k < nsession; k++) {
		next = random_move(p, text, sizeof text, &reassoc);
		if (!next)
			break;
		dojo_program_free(p);
		p = next;
		if (!valid_text(p, why, sizeof why)) {
			printf("#   move %d, %s: %s\n", k + 1, text, why);
			bad_valid = 1;
			break;
		}
	}
	snprintf(why, sizeof why, " (%d moves)", k);
	result(bad_valid == 0 && k == nsession, "%s: a session of random "
	    "moves stays valid%s", file, why);
	dojo_program_free(p);
	dojo_data_free(d0);
	dojo_program_free(p0);
}

int
main(int argc, char **argv)
{
	const char *e;
	int nseq = 200, nsession = 1000, i;

	if ((e = getenv("DOJO_SEQUENCES")))
		nseq = atoi(e);
	if ((e = getenv("DOJO_SESSION")))
		nsession = atoi(e);
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = 42;
	for (i = 1; i < argc; i++)
		test_file(argv[i], nseq, nsession);
	printf("1..%d\n", tap_n);
	return failed;
}
