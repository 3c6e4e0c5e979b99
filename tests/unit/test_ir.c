/* test_ir.c: unit tests of the program representation and interpreter */
#include "config.h"
#include "unit.h"
#include "src/util/sha1.h"
#include "targets/target.h"

#include "ir/arith.h"
#include "ir/data.h"
#include "ir/flag.h"
#include "ir/interp.h"
#include "ir/moves_private.h"
#include "ir/program.h"
#include "ir/program_private.h"
#include "src/util/strbuf.h"
#include "ir/moves.h"

#include <math.h>
#include <stdlib.h>

int unit_failed;

static dojo_program *
parse(const char *text)
{
	dojo_program *p = dojo_program_parse("t.dojo", text, strlen(text));

	if (!p)
		printf("#   parse error: %s\n", dojo_error_last());
	return p;
}

/* The canonical text of "text", or the error message. */
static char *
canon(const char *text)
{
	dojo_program *p = parse(text);
	char *s;

	if (!p)
		return strdup(dojo_error_last());
	s = dojo_program_print(p, false);
	dojo_program_free(p);
	return s;
}

#define CHECK_CANON(want, text) do {					\
	char *c_ = canon(text);						\
	CHECK_STR(want, c_);						\
	free(c_);							\
} while (0)

static void
test_sha1(void)
{
	char out[41];

	dojo_sha1_hex(out, "", 0, "abc", 3);
	CHECK_STR("a9993e364706816aba3e25717850c26c9cd0d89d", out);
	dojo_sha1_hex(out, "", 0, "", 0);
	CHECK_STR("da39a3ee5e6b4b0d3255bfef95601890afd80709", out);
	/* two blocks */
	dojo_sha1_hex(out, "abcdbcdecdefdefgefghfghighij", 28,
	    "hijkijkljklmklmnlmnomnopnopq", 28);
	CHECK_STR("84983e441c3bd26ebaae4aa1f95129e5e54670f1", out);
}

static void
test_state_id(void)
{
	const char *text = "A f32 [4] heap out\n4 | A[{0}] = 1\n";
	dojo_program *p = parse(text);
	char id[41];

	CHECK(p != NULL);
	if (!p)
		return;
	dojo_program_id(id, p);
	/* git hash-object of the text above */
	CHECK_STR("95971a313dc02a1d7ffefadbd344e872ef7bf80d", id);
	dojo_program_free(p);
}

static void
test_numbers(void)
{
	static const struct { double v; const char *s; } cases[] = {
		{ 0, "0" }, { 1, "1" }, { 0.1, "0.1" }, { 1.5, "1.5" },
		{ 1e-5, "1e-5" }, { 256, "256" }, { 100000, "1e5" },
		{ 0.7978845608028654, "0.7978845608028654" },
		{ 1e300, "1e300" }, { 123456, "123456" }, { INFINITY, "inf" },
		{ 0.044715, "0.044715" }, { 3.0517578125e-05, "3.0517578125e-5" },
	};
	char out[32];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		dojo_format_number(out, cases[i].v);
		CHECK_STR(cases[i].s, out);
		CHECK(isinf(cases[i].v) || strtod(out, NULL) == cases[i].v);
	}
}

/* ratios in traces, measurement files and JSON: on their side of 1 as
 * read back (a check "held" above 1 once printed its low bound "1") */
static void
test_format_ratio(void)
{
	static const struct { double v; int digits; const char *s; } cases[] = {
		{ 1.04321, 4, "1.043" }, { 1.00004, 4, "1.00004" },
		{ 0.99996, 4, "0.99996" }, { 1, 4, "1" },
		{ 1.0000000000001, 3, "1.0000000000001" },
		{ 0.5, 3, "0.5" }, { 12.3456, 3, "12.3" },
	};
	char out[32], iv[80];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		dojo_format_ratio(out, cases[i].v, cases[i].digits);
		CHECK_STR(cases[i].s, out);
	}
	dojo_format_interval(iv, 1.00002, 1.0512, 3);
	CHECK_STR("[1.00002, 1.05]", iv);
}

/* f32 literals of the C target: the shortest text of the float itself */
static void
test_format_float(void)
{
	static const struct { double v; const char *s; } cases[] = {
		{ 0, "0" }, { 1, "1" }, { 0.1, "0.1" }, { 1e-5, "1e-5" },
		{ 1.0000000596046448, "1" }, { 1.0000001, "1.0000001" },
		{ 3.4028234663852886e38, "3.4028235e38" },
		{ 1.401298464324817e-45, "1e-45" }, { 16777217, "16777216" },
	};
	char out[32];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		dojo_format_float(out, (float)cases[i].v);
		CHECK_STR(cases[i].s, out);
		CHECK(strtof(out, NULL) == (float)cases[i].v);
	}
}

static void
test_index_normal_form(void)
{
	CHECK_CANON("A f32 [64] heap out\n4 | 8 | A[{0}*16 + {1} + 2] = 0\n",
	    "A f32 [64] heap out\n4 | 8 | A[1 + {1} + 2*{0}*8 + 1] = 0\n");
	CHECK_CANON("A f32 [64] heap out\n4 | 8 | A[-{0} + {1} + 3] = 0\n",
	    "A f32 [64] heap out\n4 | 8 | A[{1} - {0} + {0} - {0} + 3] = 0\n");
	CHECK_CANON("A f32 [8] heap out\n4 | A[5] = 0\n"
	    "4 | A[{0}] = 1\n",
	    "A f32 [8] heap out\n4 | A[{0} - {0} + 5] = 0\n4 | A[{0}] = 1\n");
}

static void
test_parentheses(void)
{
	const char *decl = "a f32 [4] heap in\nb f32 [4] heap in\n"
	    "c f32 [4] heap in\ny f32 [4] heap out\n";
	static const struct { const char *in, *out; } cases[] = {
		{ "(a[{0}] + b[{0}]) * c[{0}]", "(a[{0}] + b[{0}]) * c[{0}]" },
		{ "(a[{0}] * b[{0}]) + c[{0}]", "a[{0}] * b[{0}] + c[{0}]" },
		{ "a[{0}] - (b[{0}] - c[{0}])", "a[{0}] - (b[{0}] - c[{0}])" },
		{ "a[{0}] + (b[{0}] + c[{0}])", "a[{0}] + (b[{0}] + c[{0}])" },
		{ "(a[{0}] + b[{0}]) + c[{0}]", "a[{0}] + b[{0}] + c[{0}]" },
		{ "-(a[{0}] * b[{0}])", "-(a[{0}] * b[{0}])" },
		{ "- -a[{0}]", "-(-a[{0}])" },
		{ "-a[{0}] * b[{0}]", "-a[{0}] * b[{0}]" },
		{ "a[{0}]*-b[{0}]", "a[{0}] * -b[{0}]" },
		{ "max(a[{0}],0)/exp( b[{0}] )", "max(a[{0}], 0) / exp(b[{0}])" },
		{ "a[{0}] / (b[{0}] / c[{0}])", "a[{0}] / (b[{0}] / c[{0}])" },
		{ "-inf", "-inf" },
		{ "1.50e0 * a[{0}]", "1.5 * a[{0}]" },
	};
	char text[512], want[512];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		snprintf(text, sizeof text, "%s4 | y[{0}] = %s\n", decl,
		    cases[i].in);
		snprintf(want, sizeof want, "%s4 | y[{0}] = %s\n", decl,
		    cases[i].out);
		CHECK_CANON(want, text);
	}
}

static void
test_cells_and_widths(void)
{
	/* the spec's softmax, written carelessly, prints aligned */
	CHECK_CANON(
	    "x f32 [2, 16] heap in\ny f32 [2, 16] heap out\n"
	    "m f32 [2] heap\n"
	    "2 | m[{0}] = -inf\n"
	    "  | 16:v | m[{0}] max= x[{0}, {1}]\n"
	    "  | 16   | y[{0}, {1}] = exp(x[{0}, {1}] - m[{0}])\n",
	    "x f32 [2,16] heap in\ny f32 [2 ,16] heap out # out\n"
	    "m f32 [2] heap\n\n"
	    "2|m[{0}]=-inf\n"
	    " |16:v|m[{0}]max=x[{0},{1}]\n"
	    "   # a comment line\n"
	    "\t| 16 |y[{0},{1}]=exp(x[{0},{1}]-m[{0}])\r\n");
	/* an operation after a nested scope at the same depth */
	CHECK_CANON(
	    "A f32 [4, 4] heap out\n"
	    "4 | 4 | A[{0}, {1}] = 0\n"
	    "  | A[{0}, 0] += 1\n",
	    "A f32 [4,4] heap out\n4|4|A[{0},{1}]=0\n |A[{0},0]+=1\n");
}

static void
test_addresses(void)
{
	const char *text = "A f32 [4, 4] heap out\n"
	    "4 | 4 | A[{0}, {1}] = 0\n"
	    "  | 4 | A[{0}, {1}] += 1\n";
	dojo_program *p = parse(text);
	int path[DOJO_MAX_DEPTH], n;
	dojo_node *node;
	char *s;

	if (!p)
		return;
	n = dojo_address_parse(path, "0.1.0");
	CHECK(n == 3);
	node = dojo_program_lookup(p, path, n);
	CHECK(node && dojo_node_kind(node) == DOJO_OP);
	n = dojo_address_parse(path, "0.1");
	node = dojo_program_lookup(p, path, n);
	CHECK(node && dojo_node_kind(node) == DOJO_SCOPE &&
	    dojo_node_size(node) == 4);
	CHECK(dojo_address_parse(path, "0..1") < 0);
	CHECK(dojo_address_parse(path, "x") < 0);
	n = dojo_address_parse(path, "0.2");
	CHECK(dojo_program_lookup(p, path, n) == NULL);
	s = dojo_program_print(p, true);
	CHECK_STR("       A f32 [4, 4] heap out\n"
	    "0.0.0  4 | 4 | A[{0}, {1}] = 0\n"
	    "0.1.0    | 4 | A[{0}, {1}] += 1\n", s);
	free(s);
	dojo_program_free(p);
}

/* Run "text" on seeded inputs; return the first "n" values of buffer "b". */
static int
run(const char *text, int b, double *out, int n)
{
	dojo_program *p = parse(text);
	dojo_data *d;
	int i;

	if (!p)
		return -1;
	d = dojo_data_new(p, 0);
	if (!d || dojo_interp_run(p, d) < 0) {
		dojo_data_free(d);
		dojo_program_free(p);
		return -1;
	}
	for (i = 0; i < n; i++)
		switch (dojo_buffer_dtype(p, b)) {
		case DOJO_F32:
			out[i] = ((float *)dojo_data_buffer(d, b))[i];
			break;
		case DOJO_F64:
			out[i] = ((double *)dojo_data_buffer(d, b))[i];
			break;
		case DOJO_I32:
			out[i] = ((int32_t *)dojo_data_buffer(d, b))[i];
			break;
		case DOJO_I64:
			out[i] = ((int64_t *)dojo_data_buffer(d, b))[i];
			break;
		}
	dojo_data_free(d);
	dojo_program_free(p);
	return 0;
}

static void
test_interp(void)
{
	double v[8];

	/* prefix sums: y[i] = 0 + 1 + ... + i */
	CHECK(run("y f64 [5] heap out\n"
	    "5 | y[{0}] = 0\n"
	    "5 | {0} | y[{0}] += 1\n", 0, v, 5) < 0);	/* {0} is no size */
	CHECK(run("y f64 [5] heap out\n"
	    "y[0] = 0\n"
	    "4 | y[{0} + 1] = y[{0}] * 2 + 1\n"
	    "4 | y[{0} + 1] *= 2\n", 0, v, 5) == 0);
	CHECK(v[0] == 0 && v[1] == 2 && v[2] == 6 && v[3] == 14 &&
	    v[4] == 30);
	/* max=, min=, integer division by zero is 0 */
	CHECK(run("y i32 [3] heap out\n"
	    "y[0] = 7\ny[0] max= 9\ny[0] min= 8\n"
	    "y[1] = 7 / 0\ny[2] = -7 / 2\n", 0, v, 3) == 0);
	CHECK(v[0] == 8 && v[1] == 0 && v[2] == -3);
	/* a folded temporary holds two slots, consumed in time */
	CHECK(run("y f32 [8] heap out\nt f32 [8:2] heap\n"
	    "8 | t[{0}] = 3 * {0}\n", 0, v, 1) < 0);	/* not an expr */
	CHECK(strstr(dojo_error_last(), "t.dojo:3:18: expected an expression"));
	CHECK(run("y f32 [8] heap out\nt f32 [8:2] heap\n"
	    "8 | t[{0}] = 3\n"
	    "  | y[{0}] = t[{0}] + 1\n", 0, v, 8) == 0);
	CHECK(v[0] == 4 && v[7] == 4);
	/* functions in f32 */
	CHECK(run("y f32 [4] heap out\n"
	    "y[0] = exp(0)\ny[1] = sqrt(16)\ny[2] = abs(-2.5)\n"
	    "y[3] = tanh(0) + log(1) + min(1, -1)\n", 0, v, 4) == 0);
	CHECK(v[0] == 1 && v[1] == 4 && v[2] == 2.5 && v[3] == -1);
}

static void
test_sharing(void)
{
	dojo_program *p = parse("A f32 [4] heap out\n4 | A[{0}] = 1\n");
	dojo_program *q;

	if (!p)
		return;
	q = dojo_program_copy(p);
	CHECK(q == p);
	dojo_program_free(p);
	/* still alive through the second reference */
	CHECK(dojo_program_n_children(q) == 1);
	CHECK(dojo_node_size(dojo_program_child(q, 0)) == 4);
	dojo_program_free(q);
}

static void
test_parse_is_total(void)
{
	/* every prefix of a valid file is a program or one error line */
	const char *text = "A f32 [8, 8] heap in\nB f32 [8] heap out\n"
	    "8 | B[{0}] = 0\n  | 8:u | B[{0}] += A[{0}, {1}] * 2.5e-1\n";
	size_t i, len = strlen(text);
	dojo_program *p;

	for (i = 0; i <= len; i++) {
		p = dojo_program_parse("t.dojo", text, i);
		if (p) {
			dojo_program_free(p);
			continue;
		}
		CHECK(strncmp(dojo_error_last(), "t.dojo:", 7) == 0);
		CHECK(strchr(dojo_error_last(), '\n') == NULL);
	}
}

static void
test_moves_share(void)
{
	dojo_program *p = parse("x f32 [8] heap in\ny f32 [8] heap out\n"
	    "z f32 [8] heap out\n8 | y[{0}] = x[{0}]\n8 | z[{0}] = x[{0}]\n");
	dojo_program *q, *r;

	if (!p)
		return;
	q = dojo_program_apply_text(p, "split 1 2", dojo_target_machine("c"));
	CHECK(q != NULL);
	if (!q) {
		dojo_program_free(p);
		return;
	}
	/* the untouched nest is the same node, not a copy */
	CHECK(dojo_program_child(q, 0) == dojo_program_child(p, 0));
	CHECK(dojo_program_child(q, 1) != dojo_program_child(p, 1));
	/* the original is unchanged */
	CHECK(dojo_node_size(dojo_program_child(p, 1)) == 8);
	CHECK(dojo_node_size(dojo_program_child(q, 1)) == 4);
	r = dojo_program_apply_text(q, "join 1", dojo_target_machine("c"));
	CHECK(r && dojo_program_equal(r, p));
	dojo_program_free(r);
	dojo_program_free(q);
	dojo_program_free(p);
}

/* The divisors of a scope size: every small n against division, and
 * sizes of 63 bits whose factors are large (the moves list them at once). */
static void
test_divisors(void)
{
	int64_t got[256], n, f;
	int k, want;

	for (n = 1; n <= 3000; n++) {
		k = dojo_divisors(n, got, 256);
		want = 0;
		for (f = 2; f < n; f++)
			if (n % f == 0 && (want >= k || got[want++] != f))
				CHECK(!"a divisor is missing or out of order");
		CHECK(k == want);
	}
	CHECK(dojo_divisors(1000000000039, got, 256) == 0);	/* a prime */
	CHECK(dojo_divisors(INT64_MAX - 24, got, 256) == 0);	/* 2^63 - 25 */
	k = dojo_divisors((int64_t)1 << 62, got, 256);
	CHECK(k == 61 && got[0] == 2 && got[60] == (int64_t)1 << 61);
	/* (2^31 - 1)^2: a square of a prime past any trial division */
	k = dojo_divisors(INT64_C(4611686014132420609), got, 256);
	CHECK(k == 1 && got[0] == 2147483647);
	/* three primes over 1000, and 2^31 - 1 times a prime near 2^32 */
	k = dojo_divisors(INT64_C(1009) * 1013 * 1019, got, 256);
	CHECK(k == 6 && got[0] == 1009 && got[3] == 1009 * 1013 &&
	    got[4] == 1009 * 1019 && got[5] == 1013 * 1019);
	k = dojo_divisors(INT64_C(2147483647) * 4294967291, got, 256);
	CHECK(k == 2 && got[0] == 2147483647 && got[1] == 4294967291);
	/* at most "max", the smallest first */
	k = dojo_divisors(720720, got, 3);
	CHECK(k == 3 && got[0] == 2 && got[1] == 3 && got[2] == 4);
}

/* The table of flags agrees with the table of moves: the move of each
 * flag sets it, and is a GPU move when the flag is a GPU one; the flag of
 * each annotation is in the table. */
static void
test_flag_table(void)
{
	const struct dojo_flag *f;
	const struct dojo_move *m;
	int i;

	CHECK_STR("u, v, p, g, b or w", dojo_flag_letters());
	CHECK(dojo_flag_count() == 6);	/* the encoder's six features */
	CHECK(!dojo_flag_find(0) && !dojo_flag_find('x'));
	CHECK(dojo_flag_index(0) == -1 && !dojo_flag_at(6));
	for (i = 0; i < dojo_flag_count(); i++) {
		f = dojo_flag_at(i);
		CHECK(dojo_flag_find(f->letter) == f);
		CHECK(dojo_flag_index(f->letter) == i);
		m = find_move(f->move, strlen(f->move));
		CHECK(m && m->flag == f->letter && m->gpu == f->gpu);
	}
	for (i = 0; i < dojo_move_count(); i++) {
		m = find_move(dojo_move_name(i), strlen(dojo_move_name(i)));
		CHECK(m && (!m->flag || dojo_flag_find(m->flag)));
	}
}

static const struct unit_test tests[] = {
	{ "sha1 of known texts", test_sha1 },
	{ "state id is git's blob id", test_state_id },
	{ "numbers print shortest and read back", test_numbers },
	{ "floats print shortest and read back as floats", test_format_float },
	{ "ratios print on their side of 1", test_format_ratio },
	{ "indices print in normal form", test_index_normal_form },
	{ "expressions keep only the parentheses they need", test_parentheses },
	{ "cells are padded per depth", test_cells_and_widths },
	{ "addresses parse, look up and print", test_addresses },
	{ "interpreter semantics", test_interp },
	{ "programs are shared by reference", test_sharing },
	{ "every prefix parses or fails cleanly", test_parse_is_total },
	{ "a move shares the subtrees it does not change", test_moves_share },
	{ "divisors of any 63-bit size, smallest first", test_divisors },
	{ "the flags agree with the moves that set them", test_flag_table },
	{ NULL, NULL }
};

int
main(void)
{
	return unit_run(tests);
}
