/* test_vmath.c: the fast mode's vector math (doc/measure.md, "Modes").
 *
 * For each function of the language, in f32 and f64: a vector loop
 * y[i] = f(x[i]) compiled as the C target compiles it really calls a
 * vector variant (glibc's libmvec: _ZGVeN16v_expf and the like, in the
 * object's symbols) or has vector instructions (sqrt), the exact mode
 * calls libm; and the kernel's results, run by the C target on edge
 * values (zeros, denormals, infinities, NaN, the ends of the range) and on
 * random ones, are within the documented error of the correctly rounded
 * value: special values exactly, the rest in ULP. */
#include "config.h"

#include "ir/data.h"
#include "ir/program.h"
#include "targets/c.h"
#include "targets/runner.h"
#include "src/util/strbuf.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* elements: not a multiple of a vector, so the loop's rest runs too */
#define N ((1 << 16) + 13)

static int tap_n, tap_bad;

static void __attribute__((format(printf, 2, 3)))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_bad |= !cond;
}

struct fn {
	const char *name;	/* in the language */
	const char *libm;	/* the f32 name; f64 drops the f */
	double bound[2];	/* the documented error, in ULP: f32, f64 */
	/* 1: a libmvec call, 2: an instruction, 3: inline vector code (no
	 * call), 4: a call of the code's own AVX-512 variant where the
	 * processor has AVX-512 (F and VL), else as 1 within 4 ULP; f32, f64 */
	int vector[2];
	const char *flags;	/* more compiler flags; with them, f32 only */
};

/* doc/measure.md, "Modes": the error against the exact value; glibc
 * documents libmvec's functions within 4 ULP; the code's own exp in f32
 * (with AVX-512; the cross targets' and DOJO_OWN_VMATH's inline one)
 * within 1; sqrt is correctly rounded (half an ULP), abs exact. */
static const struct fn fns[] = {
	{ "exp", "expf", { 1, 4 }, { 4, 1 }, NULL },
	{ "exp", "expf", { 4, 0 }, { 1, 0 }, "-DDOJO_LIBMVEC_EXPF" },
	{ "exp", "expf", { 1, 0 }, { 3, 0 }, "-DDOJO_OWN_VMATH" },
	{ "log", "logf", { 4, 4 }, { 1, 1 }, NULL },
	{ "tanh", "tanhf", { 4, 4 }, { 1, 1 }, NULL },
	{ "sqrt", "sqrtf", { 0.5, 0.5 }, { 2, 2 }, NULL },
	{ "abs", "fabsf", { 0, 0 }, { 0, 0 }, NULL },
};

static long double
reference(const char *name, long double x)
{
	if (strcmp(name, "exp") == 0)
		return expl(x);
	if (strcmp(name, "log") == 0)
		return logl(x);
	if (strcmp(name, "tanh") == 0)
		return tanhl(x);
	if (strcmp(name, "sqrt") == 0)
		return sqrtl(x);
	return fabsl(x);
}

/* The error of "y" in ULP of the correctly rounded result of "ref" in
 * the type (f32 when "f32"): 0 for a special value that matches, 1e9 for
 * one that does not (NaN for a number, an infinity for a finite result). */
static double
ulps(long double y, long double ref, int f32)
{
	long double r = f32 ? (long double)(float)ref : (long double)(double)ref;
	long double big = f32 ? FLT_MAX : DBL_MAX, u;
	int e;

	if (isnan(ref) || isnan(y))
		return isnan(ref) && isnan(y) ? 0 : 1e9;
	if (isinf(r))	/* the result overflows: inf, or the largest */
		return y == r ? 0 : fabsl(y) == big && signbit(y) ==
		    signbit(r) ? 1 : 1e9;
	if (isinf(y))	/* one past the largest */
		y = copysignl(big, y) * (1 + (f32 ? 0x1p-24L : 0x1p-53L));
	if (r == 0)
		return y == 0 ? 0 : fabsl(y) / (f32 ? 0x1p-149L : 0x1p-1074L);
	frexpl(r, &e);
	u = ldexpl(1, e - (f32 ? 24 : 53));
	if (u < (f32 ? 0x1p-149L : 0x1p-1074L))
		u = f32 ? 0x1p-149L : 0x1p-1074L;
	return (double)(fabsl(y - ref) / u);
}

static const double edges[] = {
	0.0, -0.0, 0x1p-149, -0x1p-149, 0x1p-126, 1e-40, -1e-40, 0x1p-1074,
	0x1p-1022, 1e-310, -1e-310, 1, -1, 0.5, 2, 1e-8, -1e-8, 9, -9, 20,
	-20, 88.72, 88.73, 89, -87.3, -103.9, -104, -150, 709.7, 709.8, -745,
	-746, 1e10, -1e10, 1e30, -1e30, 1e300, -1e300, FLT_MAX, -FLT_MAX,
	DBL_MAX, -DBL_MAX, 0.9999999, 1.0000001,
};

static uint64_t seed = 12345;

static uint64_t
next(void)
{
	return dojo_splitmix64(&seed);
}

/* The inputs: the edges, infinities and NaN, then random bit patterns
 * (every magnitude) and random values in [-12, 12) (the busy range). */
static void
fill(void *buf, int f32)
{
	int i, ne = (int)(sizeof edges / sizeof *edges);

	for (i = 0; i < N; i++) {
		double v;

		if (i < ne)
			v = edges[i];
		else if (i == ne)
			v = INFINITY;
		else if (i == ne + 1)
			v = -INFINITY;
		else if (i == ne + 2)
			v = NAN;
		else if (i % 2) {
			uint64_t b = next();

			if (f32) {
				uint32_t b32 = (uint32_t)b;
				float fv;

				memcpy(&fv, &b32, sizeof fv);
				v = fv;
			} else {
				memcpy(&v, &b, sizeof v);
			}
		} else {
			v = (double)(next() >> 11) * 0x1p-53 * 24 - 12;
		}
		if (f32)
			((float *)buf)[i] = (float)v;
		else
			((double *)buf)[i] = v;
	}
}

/* The object of "src" compiled as the C target compiles it, its symbols
 * (nm) or its code (objdump -d) into "out": 0, or -1. */
static int
compile_listing(const char *src, const char *flags, const char *tool,
    char *out, size_t len)
{
	char dir[] = "/tmp/perfdojo-vmath-XXXXXX", cmd[2048], path[128];
	const char *cc = getenv("CC");
	FILE *f;
	size_t n;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof path, "%s/k.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd %s && %s %s %s %s -c k.c -o k.o && %s "
	    "k.o > list", dir, cc && *cc ? cc : "cc", dojo_c_mode_flags(NULL),
	    DOJO_C_CFLAGS, flags ? flags : "", tool);
	n = 0;
	if (system(cmd) == 0) {
		snprintf(path, sizeof path, "%s/list", dir);
		f = fopen(path, "r");
		if (f) {
			n = fread(out, 1, len - 1, f);
			fclose(f);
		}
	}
	out[n] = '\0';
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return -1;
	return n ? 0 : -1;
}

static char listing[1 << 22];

static void
check_fn(const struct fn *fn, int f32)
{
	char text[256], want[64], what[96], where[128], cflags[512];
	const char *t = f32 ? "f32" : "f64";
	struct dojo_run_options opt = { NULL, NULL, 60, DOJO_RUN_MEMORY };
	struct dojo_run_result res;
	struct dojo_strbuf sb;
	dojo_program *prog;
	dojo_data *data;
	double worst = 0, e, bound = fn->bound[!f32];
	long double y, x;
	int i, at = -1, vector, kind = fn->vector[!f32];

	snprintf(what, sizeof what, "%s %s%s%s", fn->name, t, fn->flags ? " " :
	    "", fn->flags ? fn->flags : "");
	snprintf(cflags, sizeof cflags, "%s %s", DOJO_C_CFLAGS, fn->flags ?
	    fn->flags : "");
	opt.cflags = cflags;
	snprintf(text, sizeof text, "x %s [%d] heap in\ny %s [%d] heap out\n"
	    "%d:v | y[{0}] = %s(x[{0}])\n", t, N, t, N, N, fn->name);
	prog = dojo_program_parse("vmath.dojo", text, strlen(text));
	if (!prog) {
		ok(0, "%s: %s", what, dojo_error_last());
		return;
	}
	snprintf(want, sizeof want, "%.*s", (int)strlen(fn->libm) - !f32,
	    fn->libm);

	/* the code: a vector variant in the fast mode, libm when exact */
	if (kind == 4 && !(__builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512vl")))
		kind = 1, bound = 4;
	if (kind == 1 || kind == 4) {
		char sym[80];

		/* _ZGV, an ISA letter, N, lanes, v_, the name: libmvec's
		 * (undefined here), or the code's own (a local call) */
		dojo_strbuf_init(&sb);
		if (kind == 1) {
			snprintf(sym, sizeof sym, "v_%s\n", want);
			vector = dojo_c_emit(&sb, prog, false) == 0 &&
			    compile_listing(sb.s, fn->flags, "nm", listing,
			    sizeof listing) == 0 && strstr(listing, "U _ZGV") &&
			    strstr(listing, sym);
			ok(vector, "%s: a vector loop calls %s's vector "
			    "variant (libmvec)", what, want);
		} else {
			vector = dojo_c_emit(&sb, prog, false) == 0 &&
			    compile_listing(sb.s, fn->flags, "objdump -d",
			    listing, sizeof listing) == 0 &&
			    strstr(listing, "v_dojo_expf>\n") &&
			    strstr(listing, "vscalefps") &&
			    !strstr(listing, "v_expf");
			ok(vector, "%s: a vector loop calls the code's own "
			    "AVX-512 variant (vscalefps), not libmvec's", what);
		}
		if (!vector)
			printf("#   %.400s\n", listing);
		dojo_strbuf_release(&sb);
		dojo_strbuf_init(&sb);
		vector = dojo_c_emit(&sb, prog, true) == 0 &&
		    compile_listing(sb.s, fn->flags, "nm", listing,
		    sizeof listing) == 0 &&
		    !strstr(listing, "_ZGV");
		ok(vector, "%s: the exact mode calls %s, no vector variant", what,
		    want);
		dojo_strbuf_release(&sb);
	} else if (kind == 3) {
		dojo_strbuf_init(&sb);
		vector = dojo_c_emit(&sb, prog, false) == 0 &&
		    compile_listing(sb.s, fn->flags, "objdump -d", listing,
		    sizeof listing) == 0 && strstr(listing, "mulps") &&
		    !strstr(listing, "call");
		ok(vector, "%s: a vector loop has its own vector code, no call "
		    "to %s", what, want);
		dojo_strbuf_release(&sb);
		dojo_strbuf_init(&sb);
		vector = dojo_c_emit(&sb, prog, true) == 0 &&
		    compile_listing(sb.s, fn->flags, "nm", listing,
		    sizeof listing) == 0 &&
		    strstr(listing, "U expf\n");
		ok(vector, "%s: the exact mode calls %s", what, want);
		dojo_strbuf_release(&sb);
	} else if (kind == 2) {
		dojo_strbuf_init(&sb);
		vector = dojo_c_emit(&sb, prog, false) == 0 &&
		    compile_listing(sb.s, fn->flags, "objdump -d", listing,
		    sizeof listing) == 0 && strstr(listing, f32 ?
		    "vsqrtps" : "vsqrtpd") && !strstr(listing, "call");
		ok(vector, "%s: a vector loop has the vector instruction, no "
		    "call to %s", what, want);
		dojo_strbuf_release(&sb);
	}

	/* the values */
	data = dojo_data_new(prog, 0);
	if (!data) {
		ok(0, "%s: %s", what, dojo_error_last());
		dojo_program_free(prog);
		return;
	}
	fill(dojo_data_buffer(data, 0), f32);
	if (dojo_c_run(prog, data, &opt, &res) < 0 ||
	    res.outcome != DOJO_OUTCOME_OK) {
		ok(0, "%s: the kernel runs: %s", what, res.message);
		goto out;
	}
	for (i = 0; i < N; i++) {
		x = f32 ? ((float *)dojo_data_buffer(data, 0))[i] :
		    ((double *)dojo_data_buffer(data, 0))[i];
		y = f32 ? ((float *)dojo_data_buffer(data, 1))[i] :
		    ((double *)dojo_data_buffer(data, 1))[i];
		e = ulps(y, reference(fn->name, x), f32);
		if (e > worst) {
			worst = e;
			at = i;
		}
	}
	snprintf(where, sizeof where, "%.3f ULP", worst);
	ok(worst <= bound, "%s: within the documented error on edge and "
	    "random values (%s)", what, where);
	if (worst > bound && at >= 0)
		printf("#   worst at element %d: %s(%.17Lg) = %.17Lg, not "
		    "%.17Lg\n", at, fn->name,
		    f32 ? (long double)((float *)dojo_data_buffer(data, 0))[at] :
		    (long double)((double *)dojo_data_buffer(data, 0))[at],
		    f32 ? (long double)((float *)dojo_data_buffer(data, 1))[at] :
		    (long double)((double *)dojo_data_buffer(data, 1))[at],
		    reference(fn->name, f32 ?
		    (long double)((float *)dojo_data_buffer(data, 0))[at] :
		    (long double)((double *)dojo_data_buffer(data, 0))[at]));
out:
	dojo_data_free(data);
	dojo_program_free(prog);
}

int
main(void)
{
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	unsetenv("PERFDOJO_EXACT");
	for (i = 0; i < sizeof fns / sizeof *fns; i++) {
		check_fn(&fns[i], 1);
		if (!fns[i].flags)
			check_fn(&fns[i], 0);
	}
	printf("1..%d\n", tap_n);
	return tap_bad;
}
