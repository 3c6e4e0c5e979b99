/* library.c: perfdojo lib: tuned kernels as a C library (library.h) */
#include "config.h"
#include "src/core/library.h"
#include "ir/data.h"
#include "ir/interp.h"
#include "ir/moves.h"
#include "targets/c.h"
#include "targets/measure.h"
#include "targets/runner.h"
#include "targets/target.h"
#include "src/util/strbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The manifest's format; raise it when a field changes meaning. */
#define MANIFEST_FORMAT 1
/* The seed of the reference inputs (perfdojo run's default). */
#define DATA_SEED 1
/* How long the interpreter may take to make one function's references. */
#define DATA_SECONDS 600.0

struct lib_fn {
	char *kernel, *source, *text, **moves, *fingerprint, *when;
	int nmoves;
	char *func;			/* NAME_KERNEL */
	char start[41], state[41];
	bool tuned, confirmed;
	double speedup, low, high;
	dojo_program *naive, *prog;
	int family;			/* its family, or -1 */
};

/* A family: functions whose arrays differ only in extents and whose naive
 * forms are one operation; its parameters are the distinct extents of
 * the arrays (across the members), in the order of the arrays. */
struct lib_family {
	char *func;
	int *member, nmember;
	int nparam;
	int param_array[DOJO_MAX_DIMS * 16], param_axis[DOJO_MAX_DIMS * 16];
	/* the parameter of extent "axis" of argument "k" */
	int param_of[16][DOJO_MAX_DIMS];
	char *naive;			/* the naive form's code, any extents */
};

struct dojo_lib {
	char *name, *cflags, *machine;
	char target[16];
	bool exact;
	struct lib_fn *fn;
	int nfn;
	struct lib_family *fam;
	int nfam;
};

static const char *const ctypes[] = { "float", "double", "int32_t",
    "int64_t" };
static const char *const nptypes[] = { "float32", "float64", "int32",
    "int64" };

/* "v" to the 6 significant digits the manifest keeps, so that a library
 * made from a session and one made from its manifest print the same. */
static double
round6(double v)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.6g", v);
	return strtod(buf, NULL);
}

static bool
is_identifier(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* The kernel arguments of "prog" (buffers with a role), in order, into
 * "b"; their count. */
static int
arguments(dojo_program *prog, int b[16])
{
	int i, n = 0;

	for (i = 0; i < dojo_program_n_buffers(prog) && n < 16; i++)
		if (dojo_buffer_role(prog, i) != DOJO_TEMP)
			b[n++] = i;
	return n;
}

static char *
xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static void
fn_release(struct lib_fn *f)
{
	int i;

	free(f->kernel);
	free(f->source);
	free(f->text);
	free(f->fingerprint);
	free(f->when);
	free(f->func);
	for (i = 0; i < f->nmoves; i++)
		free(f->moves[i]);
	free(f->moves);
	dojo_program_free(f->naive);
	dojo_program_free(f->prog);
}

static void
families_release(dojo_lib *lib)
{
	int i;

	for (i = 0; i < lib->nfam; i++) {
		free(lib->fam[i].func);
		free(lib->fam[i].member);
		free(lib->fam[i].naive);
	}
	free(lib->fam);
	lib->fam = NULL;
	lib->nfam = 0;
}

void
dojo_lib_free(dojo_lib *lib)
{
	int i;

	if (!lib)
		return;
	for (i = 0; i < lib->nfn; i++)
		fn_release(&lib->fn[i]);
	free(lib->fn);
	families_release(lib);
	free(lib->name);
	free(lib->cflags);
	free(lib->machine);
	free(lib);
}

const char *
dojo_lib_name(dojo_lib *lib)
{
	return lib->name;
}

/* "CPU model, N threads" of this machine. */
static char *
this_machine(void)
{
	struct dojo_measure_options opt;
	struct dojo_strbuf sb;
	char cpu[512];

	dojo_measure_options_init(&opt);
	dojo_cpu_model(cpu, sizeof cpu);
	dojo_strbuf_init(&sb);
	dojo_strbuf_printf(&sb, "%s, %d thread%s", *cpu ? cpu :
	    "an unknown CPU", dojo_measure_threads(&opt),
	    dojo_measure_threads(&opt) == 1 ? "" : "s");
	return dojo_strbuf_detach(&sb);
}

bool
dojo_lib_name_allowed(const char *name, const char **why)
{
	*why = "is not a C identifier";
	if (!is_identifier(name))
		return false;
	*why = "begins with 'dojo', the generated code's prefix";
	return strncasecmp(name, "dojo", 4) != 0;
}

dojo_lib *
dojo_lib_new(const char *name, const char *target, bool exact,
    const char *machine)
{
	const struct dojo_target *t = dojo_target_find(target);
	const char *why;
	struct dojo_run_options ro;
	struct dojo_strbuf sb;
	dojo_lib *lib;

	if (!t)
		return NULL;
	if (!t->emit || !t->runs_here) {
		dojo_error_set("target '%s' cannot make a library yet (c can)",
		    target);
		return NULL;
	}
	if (!dojo_lib_name_allowed(name, &why)) {
		dojo_error_set("library name '%s' %s", name, why);
		return NULL;
	}
	lib = calloc(1, sizeof *lib);
	if (!lib) {
		dojo_error_set("out of memory");
		return NULL;
	}
	memset(&ro, 0, sizeof ro);
	ro.exact = exact;
	dojo_strbuf_init(&sb);
	dojo_strbuf_printf(&sb, "%s %s", DOJO_C_CFLAGS, dojo_c_mode_flags(&ro));
	lib->cflags = dojo_strbuf_detach(&sb);
	lib->name = strdup(name);
	lib->machine = machine ? strdup(machine) : this_machine();
	snprintf(lib->target, sizeof lib->target, "%s", t->name);
	lib->exact = exact;
	if (!lib->cflags || !lib->name || !lib->machine) {
		dojo_lib_free(lib);
		dojo_error_set("out of memory");
		return NULL;
	}
	return lib;
}

/* Whether the arguments of "a" and "b" are the same arrays: names, types,
 * roles and extents. */
static bool
same_arguments(dojo_program *a, dojo_program *b, bool extents)
{
	int ba[16], bb[16], n = arguments(a, ba), i, d;

	if (arguments(b, bb) != n)
		return false;
	for (i = 0; i < n; i++) {
		if (strcmp(dojo_buffer_name(a, ba[i]),
		    dojo_buffer_name(b, bb[i])) != 0 ||
		    dojo_buffer_dtype(a, ba[i]) != dojo_buffer_dtype(b, bb[i]) ||
		    dojo_buffer_role(a, ba[i]) != dojo_buffer_role(b, bb[i]) ||
		    dojo_buffer_ndim(a, ba[i]) != dojo_buffer_ndim(b, bb[i]))
			return false;
		for (d = 0; extents && d < dojo_buffer_ndim(a, ba[i]); d++)
			if (dojo_buffer_extent(a, ba[i], d) !=
			    dojo_buffer_extent(b, bb[i], d) ||
			    dojo_buffer_fold(b, bb[i], d))
				return false;
	}
	return true;
}

int
dojo_lib_add(dojo_lib *lib, const struct dojo_lib_function *in,
    const char *where)
{
	struct lib_fn f, *grown;
	const struct dojo_machine *m = dojo_target_machine(lib->target);
	char msg[DOJO_ERROR_MAX];
	dojo_program *next;
	int i;

	memset(&f, 0, sizeof f);
	f.family = -1;
	f.kernel = xstrdup(in->kernel);
	f.source = xstrdup(in->source);
	f.text = xstrdup(in->text);
	f.fingerprint = xstrdup(in->fingerprint);
	f.when = xstrdup(in->when);
	f.moves = calloc(in->nmoves + 1, sizeof *f.moves);
	f.func = malloc(strlen(lib->name) + strlen(in->kernel) + 2);
	if (!f.kernel || !f.source || !f.text || !f.fingerprint || !f.when ||
	    !f.moves || !f.func)
		goto oom;
	sprintf(f.func, "%s_%s", lib->name, in->kernel);
	for (f.nmoves = 0; f.nmoves < in->nmoves; f.nmoves++)
		if (!(f.moves[f.nmoves] = strdup(in->moves[f.nmoves])))
			goto oom;
	f.tuned = in->tuned;
	f.confirmed = in->confirmed && in->speedup > 0;
	f.speedup = in->speedup > 0 ? round6(in->speedup) : 0;
	f.low = f.confirmed ? round6(in->low) : 0;
	f.high = f.confirmed ? round6(in->high) : 0;
	if (!is_identifier(f.func)) {
		dojo_error_set("%s: kernel name '%s' is not a C identifier "
		    "once prefixed ('%s')", where, in->kernel, f.func);
		goto fail;
	}
	for (i = 0; i < lib->nfn; i++)
		if (strcmp(lib->fn[i].func, f.func) == 0) {
			dojo_error_set("%s: two inputs make the function '%s' "
			    "(the other is %s)", where, f.func,
			    *lib->fn[i].source ? lib->fn[i].source :
			    lib->fn[i].kernel);
			goto fail;
		}
	f.naive = dojo_program_parse(where, f.text, strlen(f.text));
	if (!f.naive || dojo_program_validate(f.naive) < 0)
		goto fail;
	dojo_program_id(f.start, f.naive);
	f.prog = dojo_program_copy(f.naive);
	if (!f.prog)
		goto oom;
	for (i = 0; i < f.nmoves; i++) {
		next = dojo_program_apply_text(f.prog, f.moves[i], m);
		if (!next) {
			snprintf(msg, sizeof msg, "%s", dojo_error_last());
			dojo_error_set("%s: move %d of %s: %s", where, i + 1,
			    f.func, msg);
			goto fail;
		}
		dojo_program_free(f.prog);
		f.prog = next;
	}
	dojo_program_id(f.state, f.prog);
	if (in->state && *in->state && strcmp(in->state, f.state) != 0) {
		dojo_error_set("%s: the moves of %s reach state %.12s, not "
		    "%.12s", where, f.func, f.state, in->state);
		goto fail;
	}
	if (!same_arguments(f.naive, f.prog, true)) {
		dojo_error_set("%s: the tuned state of %s changes its arrays",
		    where, f.func);
		goto fail;
	}
	grown = realloc(lib->fn, (lib->nfn + 1) * sizeof *grown);
	if (!grown)
		goto oom;
	lib->fn = grown;
	lib->fn[lib->nfn++] = f;
	return 0;
oom:
	dojo_error_set("out of memory");
fail:
	fn_release(&f);
	return -1;
}

/*
 * Families.
 */

/* The naive form of "prog" with marks (dojo_c_function): NULL with the
 * error when it has none. */
static char *
marked(dojo_program *prog, bool exact)
{
	struct dojo_c_function fn = { .name = "dojo_naive", .is_static = true,
	    .marks = true };
	struct dojo_strbuf sb;

	dojo_strbuf_init(&sb);
	if (dojo_c_emit_function(&sb, prog, exact, &fn) < 0) {
		dojo_strbuf_release(&sb);
		return NULL;
	}
	return dojo_strbuf_detach(&sb);
}

/* The text of a mark at "p" ('@'): its kind, value and length. */
static int
read_mark(const char *p, char *kind, int64_t *v)
{
	char *end;

	*kind = p[1];
	*v = strtoll(p + 2, &end, 10);
	return (int)(end + 1 - p);
}

/* "text" without the values of its marks. */
static char *
skeleton(const char *text)
{
	struct dojo_strbuf sb;
	int64_t v;
	char kind;

	dojo_strbuf_init(&sb);
	while (*text) {
		const char *at = strchr(text, '@');

		if (!at) {
			dojo_strbuf_puts(&sb, text);
			break;
		}
		dojo_strbuf_add(&sb, text, at - text);
		text = at + read_mark(at, &kind, &v);
		dojo_strbuf_printf(&sb, "@%c@", kind);
	}
	return dojo_strbuf_detach(&sb);
}

/* The values of the marks of "text" into "v" (at most "max"); their count
 * and kinds. */
static int
mark_values(const char *text, int64_t *v, char *kinds, int max)
{
	int n = 0;

	while ((text = strchr(text, '@')) && n < max) {
		text += read_mark(text, &kinds[n], &v[n]);
		n++;
	}
	return n;
}

#define MAX_MARKS 4096

/* Make the parameters of family "fam" and its naive form from the marked
 * texts of its members; false when an extent is not one of the arrays'
 * (no family then). */
static bool
family_form(dojo_lib *lib, struct lib_family *fam, char **text)
{
	dojo_program *p0 = lib->fn[fam->member[0]].naive;
	int b[16], nargs = arguments(p0, b), k, d, m, j, q, nmark = 0, n;
	int64_t (*val)[MAX_MARKS] = NULL, vec[64];
	char kinds[MAX_MARKS];
	struct dojo_strbuf sb;
	const char *s;
	bool ok = false;
	int64_t pval[DOJO_MAX_DIMS * 16][64];

	if (fam->nmember > 64)
		return false;
	/* the parameters: the distinct extents of the arguments */
	fam->nparam = 0;
	for (k = 0; k < nargs; k++)
		for (d = 0; d < dojo_buffer_ndim(p0, b[k]); d++) {
			for (m = 0; m < fam->nmember; m++) {
				dojo_program *pm = lib->fn[fam->member[m]].naive;
				int bm[16];

				arguments(pm, bm);
				vec[m] = dojo_buffer_extent(pm, bm[k], d);
			}
			for (q = 0; q < fam->nparam; q++)
				if (memcmp(pval[q], vec, fam->nmember *
				    sizeof *vec) == 0)
					break;
			if (q == fam->nparam) {
				memcpy(pval[q], vec, fam->nmember * sizeof *vec);
				fam->param_array[q] = k;
				fam->param_axis[q] = d;
				fam->nparam++;
			}
			fam->param_of[k][d] = q;
		}
	val = malloc(fam->nmember * sizeof *val);
	if (!val)
		return false;
	for (m = 0; m < fam->nmember; m++) {
		n = mark_values(text[m], val[m], kinds, MAX_MARKS);
		if (m > 0 && n != nmark)
			goto out;
		nmark = n;
	}
	if (nmark >= MAX_MARKS)
		goto out;
	/* each mark: the parameter with its values in every member, else
	 * the one value they all have (an index's 0 or 1 stays a number) */
	dojo_strbuf_init(&sb);
	s = text[0];
	for (j = 0; j < nmark; j++) {
		const char *at = strchr(s, '@');
		bool same = true, small = false;

		dojo_strbuf_add(&sb, s, at - s);
		s = at + read_mark(at, &kinds[j], &vec[0]);
		for (m = 0; m < fam->nmember; m++) {
			vec[m] = val[m][j];
			same &= vec[m] == vec[0];
			small |= vec[m] < 2;
		}
		for (q = 0; q < fam->nparam; q++)
			if (memcmp(pval[q], vec, fam->nmember * sizeof *vec) == 0)
				break;
		if (q < fam->nparam && !(kinds[j] != 'E' && small)) {
			dojo_strbuf_printf(&sb, kinds[j] == 'F' ?
			    "((float)dojo_n[%d])" : kinds[j] == 'D' ?
			    "((double)dojo_n[%d])" : "dojo_n[%d]", q);
			continue;
		}
		if (!same) {
			dojo_strbuf_release(&sb);
			goto out;
		}
		dojo_strbuf_printf(&sb, kinds[j] == 'F' ? "%" PRId64 ".0f" :
		    kinds[j] == 'D' ? "%" PRId64 ".0" : kinds[j] == 'I' ?
		    "((int64_t)%" PRId64 ")" : "%" PRId64, vec[0]);
	}
	dojo_strbuf_puts(&sb, s);
	fam->naive = dojo_strbuf_detach(&sb);
	ok = fam->naive != NULL;
out:
	free(val);
	return ok;
}

/* Whether "name" is a function's or a family's already. */
static bool
name_taken(dojo_lib *lib, const char *name)
{
	int i;

	for (i = 0; i < lib->nfn; i++)
		if (strcmp(lib->fn[i].func, name) == 0)
			return true;
	for (i = 0; i < lib->nfam; i++)
		if (strcmp(lib->fam[i].func, name) == 0)
			return true;
	return false;
}

/* The name of a family: what its members' names share, cut back to a
 * '_' when that ends inside a word (softmax_1 of softmax_128x1024 and
 * softmax_16x64 is softmax), without a last '_'; its first member's with
 * "_any" when that leaves nothing after the library's name; "_any" added
 * while it is taken. */
static char *
family_name(dojo_lib *lib, struct lib_family *fam)
{
	const char *first = lib->fn[fam->member[0]].func;
	size_t len = strlen(first), i, prefix = strlen(lib->name) + 1;
	bool inside = false;
	struct dojo_strbuf sb;
	int m;

	for (m = 1; m < fam->nmember; m++) {
		const char *o = lib->fn[fam->member[m]].func;

		for (i = 0; i < len && o[i] == first[i]; i++)
			;
		len = i;
	}
	for (m = 0; m < fam->nmember; m++) {
		char next = lib->fn[fam->member[m]].func[len];

		inside |= next && next != '_';
	}
	if (inside && len > prefix && first[len - 1] != '_')
		for (i = len; i > prefix; i--)
			if (first[i - 1] == '_') {
				len = i;
				break;
			}
	while (len > 0 && first[len - 1] == '_')
		len--;
	dojo_strbuf_init(&sb);
	if (len < prefix)
		dojo_strbuf_printf(&sb, "%s_any", first);
	else
		dojo_strbuf_add(&sb, first, len);
	while (sb.s && name_taken(lib, sb.s))
		dojo_strbuf_puts(&sb, "_any");
	return dojo_strbuf_detach(&sb);
}

/* Group the functions into families (lib->fam); "log" hears of kernels
 * with the same arrays that cannot be one. */
static int
find_families(dojo_lib *lib, FILE *log)
{
	char **text = calloc(lib->nfn + 1, sizeof *text);
	char **skel = calloc(lib->nfn + 1, sizeof *skel);
	struct lib_family fam;
	char **mtext = calloc(lib->nfn + 1, sizeof *mtext);
	int i, j, rc = -1;

	families_release(lib);
	if (!text || !skel || !mtext)
		goto oom;
	for (i = 0; i < lib->nfn; i++) {
		lib->fn[i].family = -1;
		text[i] = marked(lib->fn[i].naive, lib->exact);
		skel[i] = text[i] ? skeleton(text[i]) : NULL;
		dojo_error_clear();
	}
	for (i = 0; i < lib->nfn; i++) {
		if (!skel[i] || lib->fn[i].family != -1)
			continue;
		memset(&fam, 0, sizeof fam);
		fam.member = malloc(lib->nfn * sizeof *fam.member);
		if (!fam.member)
			goto oom;
		fam.member[fam.nmember++] = i;
		for (j = i + 1; j < lib->nfn; j++)
			if (skel[j] && lib->fn[j].family == -1 &&
			    strcmp(skel[i], skel[j]) == 0 &&
			    same_arguments(lib->fn[i].naive, lib->fn[j].naive,
			    false))
				fam.member[fam.nmember++] = j;
		for (j = 0; j < fam.nmember; j++)
			mtext[j] = text[fam.member[j]];
		if (fam.nmember < 2 || !family_form(lib, &fam, mtext)) {
			if (fam.nmember >= 2 && log)
				fprintf(log, "%s and %d more: the same arrays, "
				    "but an extent of theirs is not one of the "
				    "arrays': no family\n", lib->fn[i].func,
				    fam.nmember - 1);
			free(fam.member);
			continue;
		}
		fam.func = family_name(lib, &fam);
		{
			struct lib_family *grown = realloc(lib->fam,
			    (lib->nfam + 1) * sizeof *grown);

			if (!fam.func || !grown) {
				free(fam.func);
				free(fam.member);
				free(fam.naive);
				if (grown)
					lib->fam = grown;
				goto oom;
			}
			lib->fam = grown;
		}
		for (j = 0; j < fam.nmember; j++)
			lib->fn[fam.member[j]].family = lib->nfam;
		lib->fam[lib->nfam++] = fam;
	}
	rc = 0;
	goto out;
oom:
	dojo_error_set("out of memory");
out:
	for (i = 0; text && skel && i < lib->nfn; i++) {
		free(text[i]);
		free(skel[i]);
	}
	free(text);
	free(skel);
	free(mtext);
	return rc;
}

/*
 * The files.
 */

/* The parameter list of the arguments of "prog": "const float *x, float
 * *y". */
static void
put_params(struct dojo_strbuf *sb, dojo_program *prog)
{
	int b[16], n = arguments(prog, b), k;

	for (k = 0; k < n; k++)
		dojo_strbuf_printf(sb, "%s%s%s *%s", k ? ", " : "",
		    dojo_buffer_role(prog, b[k]) == DOJO_IN ? "const " : "",
		    ctypes[dojo_buffer_dtype(prog, b[k])],
		    dojo_buffer_name(prog, b[k]));
}

/* The extents of a family after its arrays: ", int64_t x_dim0, ...". */
static void
param_name(struct dojo_strbuf *sb, dojo_program *p0, struct lib_family *fam,
    int q)
{
	int b[16];

	arguments(p0, b);
	dojo_strbuf_printf(sb, "%s_dim%d", dojo_buffer_name(p0,
	    b[fam->param_array[q]]), fam->param_axis[q]);
}

static void
put_extent_params(struct dojo_strbuf *sb, dojo_program *p0,
    struct lib_family *fam)
{
	int q;

	for (q = 0; q < fam->nparam; q++) {
		dojo_strbuf_puts(sb, ", int64_t ");
		param_name(sb, p0, fam, q);
	}
}

/* "void *dojo_args[N] = { (void *)x, y };" */
static void
put_args_array(struct dojo_strbuf *sb, dojo_program *prog)
{
	int b[16], n = arguments(prog, b), k;

	dojo_strbuf_printf(sb, "\tvoid *dojo_args[%d] = { ", n ? n : 1);
	for (k = 0; k < n; k++)
		dojo_strbuf_printf(sb, "%s(void *)%s", k ? ", " : "",
		    dojo_buffer_name(prog, b[k]));
	dojo_strbuf_puts(sb, n ? " };\n" : "0 };\n");
}

/* The comment lines at the start of "text" (the first "max" of them; 0:
 * all), each after "prefix". */
static void
put_comment(struct dojo_strbuf *sb, const char *text, const char *prefix,
    int max)
{
	const char *p = text, *nl;
	int n = 0;

	while (*p == '#' && (max == 0 || n++ < max)) {
		nl = strchr(p, '\n');
		p++;
		if (*p == ' ')
			p++;
		dojo_strbuf_puts(sb, prefix);
		for (; *p && *p != '\n'; p++) {
			/* nothing that ends a C comment or a docstring */
			if ((*p == '*' && p[1] == '/') || *p == '\\' ||
			    (*p == '"' && p[1] == '"'))
				dojo_strbuf_puts(sb, *p == '*' ? "* " : " ");
			else
				dojo_strbuf_add(sb, p, 1);
		}
		dojo_strbuf_puts(sb, "\n");
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* "[128][1024]" */
static void
put_shape(struct dojo_strbuf *sb, dojo_program *prog, int b)
{
	int d;

	for (d = 0; d < dojo_buffer_ndim(prog, b); d++)
		dojo_strbuf_printf(sb, "[%" PRId64 "]",
		    dojo_buffer_extent(prog, b, d));
}

/* What was measured of "f", one sentence for a comment. */
static void
put_provenance(struct dojo_strbuf *sb, dojo_lib *lib, struct lib_fn *f,
    const char *prefix)
{
	if (!f->tuned) {
		dojo_strbuf_printf(sb, "%sThe naive form: no tuned state was "
		    "given.\n", prefix);
		return;
	}
	dojo_strbuf_printf(sb, "%sTuned by PerfDojo: %d move%s to state "
	    "%.12s;", prefix, f->nmoves, f->nmoves == 1 ? "" : "s", f->state);
	if (f->speedup <= 0)
		dojo_strbuf_puts(sb, " not measured.\n");
	else if (f->confirmed)
		dojo_strbuf_printf(sb, "\n%s%.2fx the naive kernel (95%% "
		    "interval %.2f to %.2f, confirmed in alternate runs)\n%son "
		    "%s.\n", prefix, f->speedup, f->low, f->high, prefix,
		    lib->machine);
	else
		dojo_strbuf_printf(sb, "\n%s%.2fx the naive kernel (one "
		    "measurement, not confirmed)\n%son %s.\n", prefix,
		    f->speedup, prefix, lib->machine);
}

/* "name" and "suffix" in capitals: MYLIB_H. */
static void
upper_name(char *out, size_t len, const char *name, const char *suffix)
{
	size_t j;

	snprintf(out, len, "%s%s", name, suffix);
	for (j = 0; out[j]; j++)
		out[j] = toupper((unsigned char)out[j]);
}

static void
header(struct dojo_strbuf *sb, dojo_lib *lib)
{
	char guard[256];
	int i, k, m, q, b[16], n;

	upper_name(guard, sizeof guard, lib->name, "_H");
	dojo_strbuf_printf(sb, "/* %s.h: kernels tuned by PerfDojo %s (target "
	    "%s, %s mode)\n *\n * Arrays are contiguous, in C order "
	    "(row-major), and no two of one call\n * overlap.  The functions "
	    "are thread-safe and reentrant: each call owns its\n * "
	    "temporaries.  Their parallel loops run on OpenMP "
	    "(OMP_NUM_THREADS).\n * Made by perfdojo lib; rebuild or audit "
	    "it with perfdojo lib DIR --from\n * manifest.json.\n */\n"
	    "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n"
	    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n", lib->name,
	    PACKAGE_VERSION, lib->target, lib->exact ? "exact" : "fast",
	    guard, guard);
	for (i = 0; i < lib->nfn; i++) {
		struct lib_fn *f = &lib->fn[i];

		n = arguments(f->naive, b);
		dojo_strbuf_printf(sb, "\n/*\n * %s\n", f->func);
		put_comment(sb, f->text, " *   ", 0);
		dojo_strbuf_puts(sb, " *\n");
		for (k = 0; k < n; k++) {
			dojo_strbuf_printf(sb, " * %s: %s%s", dojo_buffer_name(
			    f->naive, b[k]), dojo_buffer_role(f->naive, b[k]) ==
			    DOJO_IN ? "const " : "",
			    ctypes[dojo_buffer_dtype(f->naive, b[k])]);
			put_shape(sb, f->naive, b[k]);
			dojo_strbuf_printf(sb, ", %s\n", dojo_role_name(
			    dojo_buffer_role(f->naive, b[k])));
		}
		dojo_strbuf_puts(sb, " *\n");
		put_provenance(sb, lib, f, " * ");
		dojo_strbuf_printf(sb, " */\nvoid %s(", f->func);
		put_params(sb, f->naive);
		dojo_strbuf_puts(sb, ");\n");
	}
	for (i = 0; i < lib->nfam; i++) {
		struct lib_family *fam = &lib->fam[i];
		dojo_program *p0 = lib->fn[fam->member[0]].naive;

		n = arguments(p0, b);
		dojo_strbuf_printf(sb, "\n/*\n * %s: the family of %d shapes "
		    "above, for any extents.\n", fam->func, fam->nmember);
		put_comment(sb, lib->fn[fam->member[0]].text, " *   ", 1);
		dojo_strbuf_puts(sb, " *\n");
		for (q = 0; q < fam->nparam; q++) {
			bool more = false;

			dojo_strbuf_puts(sb, " * ");
			param_name(sb, p0, fam, q);
			dojo_strbuf_puts(sb, ":");
			for (k = 0; k < n; k++)
				for (m = 0; m < dojo_buffer_ndim(p0, b[k]); m++)
					if (fam->param_of[k][m] == q) {
						dojo_strbuf_printf(sb, "%s extent "
						    "%d of %s", more ? "," : "", m,
						    dojo_buffer_name(p0, b[k]));
						more = true;
					}
			dojo_strbuf_puts(sb, "\n");
		}
		dojo_strbuf_puts(sb, " *\n * Calls");
		for (m = 0; m < fam->nmember; m++) {
			dojo_program *pm = lib->fn[fam->member[m]].naive;
			int bm[16];

			arguments(pm, bm);
			dojo_strbuf_printf(sb, "%s %s for", m ? ";\n *" : "",
			    lib->fn[fam->member[m]].func);
			for (q = 0; q < fam->nparam; q++) {
				dojo_strbuf_puts(sb, q ? ", " : " ");
				param_name(sb, p0, fam, q);
				dojo_strbuf_printf(sb, " = %" PRId64,
				    dojo_buffer_extent(pm,
				    bm[fam->param_array[q]],
				    fam->param_axis[q]));
			}
		}
		dojo_strbuf_printf(sb, ";\n * and %s_naive, the naive form, "
		    "for other extents.  Returns 0, or -1\n * when an extent is "
		    "below 1 (nothing computed).\n */\nint %s(", fam->func,
		    fam->func);
		put_params(sb, p0);
		put_extent_params(sb, p0, fam);
		dojo_strbuf_printf(sb, ");\nint %s_naive(", fam->func);
		put_params(sb, p0);
		put_extent_params(sb, p0, fam);
		dojo_strbuf_puts(sb, ");\n");
	}
	dojo_strbuf_printf(sb, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

/* The source of one function: the tuned code as a static function, and
 * the typed entry point around it. */
static int
kernel_source(struct dojo_strbuf *sb, dojo_lib *lib, struct lib_fn *f,
    dojo_program *prog, const char *func)
{
	struct dojo_c_function fn = { .name = "dojo_kernel", .is_static = true };

	if (dojo_c_emit_function(sb, prog, lib->exact, &fn) < 0)
		return -1;
	dojo_strbuf_printf(sb, "\n#include \"%s.h\"\n\nvoid\n%s(",
	    lib->name, func);
	put_params(sb, f->naive);
	dojo_strbuf_puts(sb, ")\n{\n");
	put_args_array(sb, f->naive);
	dojo_strbuf_puts(sb, "\n\tdojo_kernel(dojo_args);\n}\n");
	return 0;
}

static void
family_source(struct dojo_strbuf *sb, dojo_lib *lib, struct lib_family *fam)
{
	dojo_program *p0 = lib->fn[fam->member[0]].naive;
	int b[16], n = arguments(p0, b), k, m, q;

	dojo_strbuf_printf(sb, "%s\n#include \"%s.h\"\n\nint\n%s_naive(",
	    fam->naive, lib->name, fam->func);
	put_params(sb, p0);
	put_extent_params(sb, p0, fam);
	dojo_strbuf_puts(sb, ")\n{\n");
	put_args_array(sb, p0);
	dojo_strbuf_printf(sb, "\tconst int64_t dojo_n[%d] = { ", fam->nparam);
	for (q = 0; q < fam->nparam; q++) {
		dojo_strbuf_puts(sb, q ? ", " : "");
		param_name(sb, p0, fam, q);
	}
	dojo_strbuf_puts(sb, " };\n\n\tfor (int dojo_i = 0; dojo_i < ");
	dojo_strbuf_printf(sb, "%d; dojo_i++)\n\t\tif (dojo_n[dojo_i] < 1)\n"
	    "\t\t\treturn -1;\n\tdojo_naive(dojo_args, dojo_n);\n\treturn 0;\n"
	    "}\n\nint\n%s(", fam->nparam, fam->func);
	put_params(sb, p0);
	put_extent_params(sb, p0, fam);
	dojo_strbuf_puts(sb, ")\n{\n");
	for (m = 0; m < fam->nmember; m++) {
		struct lib_fn *f = &lib->fn[fam->member[m]];
		int bm[16];

		arguments(f->naive, bm);
		dojo_strbuf_puts(sb, "\tif (");
		for (q = 0; q < fam->nparam; q++) {
			dojo_strbuf_puts(sb, q ? " && " : "");
			param_name(sb, p0, fam, q);
			dojo_strbuf_printf(sb, " == %" PRId64,
			    dojo_buffer_extent(f->naive, bm[fam->param_array[q]],
			    fam->param_axis[q]));
		}
		dojo_strbuf_printf(sb, ") {\n\t\t%s(", f->func);
		for (k = 0; k < n; k++)
			dojo_strbuf_printf(sb, "%s%s", k ? ", " : "",
			    dojo_buffer_name(p0, b[k]));
		dojo_strbuf_puts(sb, ");\n\t\treturn 0;\n\t}\n");
	}
	dojo_strbuf_printf(sb, "\treturn %s_naive(", fam->func);
	for (k = 0; k < n; k++)
		dojo_strbuf_printf(sb, "%s%s", k ? ", " : "",
		    dojo_buffer_name(p0, b[k]));
	for (q = 0; q < fam->nparam; q++) {
		dojo_strbuf_puts(sb, ", ");
		param_name(sb, p0, fam, q);
	}
	dojo_strbuf_puts(sb, ");\n}\n");
}

/* What the self-test and the benchmark share: their table of calls and
 * the reader of the references. */
static const char support[] =
"#include <math.h>\n"
"#include <pthread.h>\n"
"#include <stdint.h>\n"
"#include <stdio.h>\n"
"#include <stdlib.h>\n"
"#include <string.h>\n"
"#include <time.h>\n"
"\n"
"struct arg {\n"
"\tconst char *name;\n"
"\tchar role;\t\t/* 'i' in, 'o' out, 'b' inout */\n"
"\tint type;\t\t/* 0 f32, 1 f64, 2 i32, 3 i64 */\n"
"\tsize_t count;\t\t/* elements */\n"
"\tconst char *kernel;\t/* whose data/KERNEL.{in,out}.NAME.npy */\n"
"};\n"
"\n"
"struct call {\n"
"\tconst char *name;\n"
"\tint nargs;\n"
"\tstruct arg arg[DOJO_MAX_ARGS];\n"
"};\n"
"\n"
"static const size_t type_size[] = { 4, 8, 4, 8 };\n"
"static const char *const type_descr[] = { \"<f4\", \"<f8\", \"<i4\", \"<i8\" };\n"
"static const char *data_dir = \"data\";\n"
"\n"
"/* The array of the .npy file data/KERNEL.WHICH.NAME.npy, checked against\n"
" * \"a\"; NULL with a line on stderr. */\n"
"static void *\n"
"load(const struct arg *a, const char *which)\n"
"{\n"
"\tchar path[4096], magic[10], header[65536];\n"
"\tsize_t hlen, bytes = a->count * type_size[a->type];\n"
"\tvoid *p = malloc(bytes ? bytes : 1);\n"
"\tFILE *f;\n"
"\n"
"\tsnprintf(path, sizeof path, \"%s/%s.%s.%s.npy\", data_dir, a->kernel,\n"
"\t    which, a->name);\n"
"\tf = fopen(path, \"rb\");\n"
"\tif (!f || !p || fread(magic, 1, 10, f) != 10 ||\n"
"\t    memcmp(magic, \"\\x93NUMPY\\x01\", 7) != 0) {\n"
"\t\tfprintf(stderr, \"%s: not a .npy file of version 1\\n\", path);\n"
"\t\tgoto fail;\n"
"\t}\n"
"\thlen = (unsigned char)magic[8] | (unsigned char)magic[9] << 8;\n"
"\tif (fread(header, 1, hlen, f) != hlen) {\n"
"\t\tfprintf(stderr, \"%s: truncated\\n\", path);\n"
"\t\tgoto fail;\n"
"\t}\n"
"\theader[hlen] = '\\0';\n"
"\tif (!strstr(header, type_descr[a->type]) ||\n"
"\t    !strstr(header, \"'fortran_order': False\")) {\n"
"\t\tfprintf(stderr, \"%s: not %s in C order\\n\", path,\n"
"\t\t    type_descr[a->type]);\n"
"\t\tgoto fail;\n"
"\t}\n"
"\tif (fread(p, 1, bytes, f) != bytes || fgetc(f) != EOF) {\n"
"\t\tfprintf(stderr, \"%s: not %zu elements\\n\", path, a->count);\n"
"\t\tgoto fail;\n"
"\t}\n"
"\tfclose(f);\n"
"\treturn p;\n"
"fail:\n"
"\tif (f)\n"
"\t\tfclose(f);\n"
"\tfree(p);\n"
"\treturn NULL;\n"
"}\n"
"\n"
"/* The arrays of call \"c\": its inputs read, its outputs zeroed. */\n"
"static int\n"
"arrays(const struct call *c, void **a)\n"
"{\n"
"\tint k, ok = 1;\n"
"\n"
"\tfor (k = 0; k < c->nargs; k++) {\n"
"\t\tconst struct arg *g = &c->arg[k];\n"
"\n"
"\t\ta[k] = g->role == 'o' ? calloc(g->count ? g->count : 1,\n"
"\t\t    type_size[g->type]) : load(g, \"in\");\n"
"\t\tok &= a[k] != NULL;\n"
"\t}\n"
"\treturn ok;\n"
"}\n"
"\n"
"static void\n"
"release(const struct call *c, void **a)\n"
"{\n"
"\tint k;\n"
"\n"
"\tfor (k = 0; k < c->nargs; k++)\n"
"\t\tfree(a[k]);\n"
"}\n"
"\n";

/* The self-test's own part. */
static const char test_main[] =
"/* Element \"i\" of an array of type \"t\" as a double. */\n"
"static double\n"
"element(const void *p, int t, size_t i)\n"
"{\n"
"\tswitch (t) {\n"
"\tcase 0: return ((const float *)p)[i];\n"
"\tcase 1: return ((const double *)p)[i];\n"
"\tcase 2: return ((const int32_t *)p)[i];\n"
"\tdefault: return (double)((const int64_t *)p)[i];\n"
"\t}\n"
"}\n"
"\n"
"/* PerfDojo's tolerance: f32 within 1e-4 (|want| + rms) + 1e-5, f64 within\n"
" * 1e-10 (|want| + rms) + 1e-12, NaN where NaN, integers exactly. */\n"
"static int\n"
"agree(const char *call, const struct arg *g, const void *got,\n"
"    const void *want)\n"
"{\n"
"\tdouble rms = 0, w, v, rel = g->type ? 1e-10 : 1e-4;\n"
"\tdouble abs_ = g->type ? 1e-12 : 1e-5;\n"
"\tsize_t i, finite = 0;\n"
"\n"
"\tfor (i = 0; g->type < 2 && i < g->count; i++)\n"
"\t\tif (isfinite(w = element(want, g->type, i))) {\n"
"\t\t\trms += w * w;\n"
"\t\t\tfinite++;\n"
"\t\t}\n"
"\trms = finite ? sqrt(rms / finite) : 0;\n"
"\tfor (i = 0; i < g->count; i++) {\n"
"\t\tw = element(want, g->type, i);\n"
"\t\tv = element(got, g->type, i);\n"
"\t\tif (g->type >= 2 ? v == w : isnan(w) ? isnan(v) : isinf(w) ?\n"
"\t\t    v == w : fabs(v - w) <= rel * (fabs(w) + rms) + abs_)\n"
"\t\t\tcontinue;\n"
"\t\tprintf(\"FAIL %s: %s[%zu] is %.9g, expected %.9g\\n\", call, g->name,\n"
"\t\t    i, v, w);\n"
"\t\treturn 0;\n"
"\t}\n"
"\treturn 1;\n"
"}\n"
"\n"
"/* Other inputs for \"c\": each element v of an in or inout array 3v + 1. */\n"
"static void\n"
"perturb(const struct call *c, void **a)\n"
"{\n"
"\tsize_t i;\n"
"\tint k;\n"
"\n"
"\tfor (k = 0; k < c->nargs; k++)\n"
"\t\tfor (i = 0; c->arg[k].role != 'o' && i < c->arg[k].count; i++)\n"
"\t\t\tswitch (c->arg[k].type) {\n"
"\t\t\tcase 0: ((float *)a[k])[i] = ((float *)a[k])[i] * 3 + 1; break;\n"
"\t\t\tcase 1: ((double *)a[k])[i] = ((double *)a[k])[i] * 3 + 1; break;\n"
"\t\t\tcase 2: ((int32_t *)a[k])[i] = ((int32_t *)a[k])[i] * 3 + 1; break;\n"
"\t\t\tdefault: ((int64_t *)a[k])[i] = ((int64_t *)a[k])[i] * 3 + 1;\n"
"\t\t\t}\n"
"}\n"
"\n"
"/* Call \"i\" \"times\" times on its references: whether its outputs agree\n"
" * each time (\"other\": on other inputs, not checked). */\n"
"static int\n"
"check(int i, int other, int times)\n"
"{\n"
"\tconst struct call *c = &calls[i];\n"
"\tvoid *a[DOJO_MAX_ARGS], *want;\n"
"\tint k, r, ok = 1;\n"
"\n"
"\tfor (r = 0; ok && r < times; r++) {\n"
"\t\t/* afresh each time: an inout array is changed by the call */\n"
"\t\tok = arrays(c, a);\n"
"\t\tif (ok && other)\n"
"\t\t\tperturb(c, a);\n"
"\t\tif (ok)\n"
"\t\t\tcall(i, a);\n"
"\t\tfor (k = 0; ok && !other && k < c->nargs; k++) {\n"
"\t\t\tif (c->arg[k].role == 'i')\n"
"\t\t\t\tcontinue;\n"
"\t\t\twant = load(&c->arg[k], \"out\");\n"
"\t\t\tok = want && agree(c->name, &c->arg[k], a[k], want);\n"
"\t\t\tfree(want);\n"
"\t\t}\n"
"\t\trelease(c, a);\n"
"\t}\n"
"\treturn ok;\n"
"}\n"
"\n"
"struct job {\n"
"\tint i, other, ok, started;\n"
"};\n"
"\n"
"static void *\n"
"job(void *p)\n"
"{\n"
"\tstruct job *j = p;\n"
"\n"
"\tj->ok = check(j->i, j->other, 8);\n"
"\treturn NULL;\n"
"}\n"
"\n"
"/* Every call, then every call from two threads at once, the other on\n"
" * other inputs (the functions are reentrant: each call owns its\n"
" * temporaries, so the other cannot change the results). */\n"
"int\n"
"main(int argc, char **argv)\n"
"{\n"
"\tint i, t, ok, passed = 0, failed = 0, n = sizeof calls / sizeof *calls;\n"
"\tstruct job jobs[2];\n"
"\tpthread_t th[2];\n"
"\n"
"\tif (argc > 1)\n"
"\t\tdata_dir = argv[1];\n"
"\tfor (i = 0; i < 2 * n; i++) {\n"
"\t\tif (i < n) {\n"
"\t\t\tok = check(i, 0, 1);\n"
"\t\t} else {\n"
"\t\t\tfor (t = 0; t < 2; t++) {\n"
"\t\t\t\tjobs[t].i = i - n;\n"
"\t\t\t\tjobs[t].other = t;\n"
"\t\t\t\tjobs[t].started = pthread_create(&th[t], NULL, job,\n"
"\t\t\t\t    &jobs[t]) == 0;\n"
"\t\t\t\tif (!jobs[t].started)\n"
"\t\t\t\t\tjob(&jobs[t]);\n"
"\t\t\t}\n"
"\t\t\tfor (t = 0, ok = 1; t < 2; t++) {\n"
"\t\t\t\tif (jobs[t].started)\n"
"\t\t\t\t\tpthread_join(th[t], NULL);\n"
"\t\t\t\tok &= jobs[t].ok;\n"
"\t\t\t}\n"
"\t\t}\n"
"\t\tprintf(\"%s %s%s\\n\", ok ? \"ok  \" : \"FAIL\", calls[i % n].name,\n"
"\t\t    i < n ? \"\" : \", two threads at once\");\n"
"\t\tif (ok)\n"
"\t\t\tpassed++;\n"
"\t\telse\n"
"\t\t\tfailed++;\n"
"\t}\n"
"\tprintf(\"%d passed, %d failed\\n\", passed, failed);\n"
"\treturn failed ? 1 : 0;\n"
"}\n";

/* The benchmark's own part. */
static const char bench_main[] =
"static double\n"
"now(void)\n"
"{\n"
"\tstruct timespec t;\n"
"\n"
"\tclock_gettime(CLOCK_MONOTONIC, &t);\n"
"\treturn t.tv_sec + t.tv_nsec * 1e-9;\n"
"}\n"
"\n"
"static int\n"
"by_value(const void *a, const void *b)\n"
"{\n"
"\tdouble x = *(const double *)a, y = *(const double *)b;\n"
"\n"
"\treturn x < y ? -1 : x > y;\n"
"}\n"
"\n"
"/* The time of one call of \"i\" (naive or not): the median of 7 batches\n"
" * of at least 20 ms each, after one call that warms up. */\n"
"static double\n"
"seconds(int i, int naive, void **a)\n"
"{\n"
"\tdouble t[7], t0;\n"
"\tlong n = 1, r;\n"
"\tint k;\n"
"\n"
"\tcall(i, naive, a);\n"
"\tfor (;;) {\n"
"\t\tt0 = now();\n"
"\t\tfor (r = 0; r < n; r++)\n"
"\t\t\tcall(i, naive, a);\n"
"\t\tif (now() - t0 >= 0.02 || n >= (1L << 30))\n"
"\t\t\tbreak;\n"
"\t\tn *= 2;\n"
"\t}\n"
"\tfor (k = 0; k < 7; k++) {\n"
"\t\tt0 = now();\n"
"\t\tfor (r = 0; r < n; r++)\n"
"\t\t\tcall(i, naive, a);\n"
"\t\tt[k] = (now() - t0) / n;\n"
"\t}\n"
"\tqsort(t, 7, sizeof *t, by_value);\n"
"\treturn t[3];\n"
"}\n"
"\n"
"int\n"
"main(int argc, char **argv)\n"
"{\n"
"\tvoid *a[DOJO_MAX_ARGS];\n"
"\tdouble tuned, naive;\n"
"\tint i;\n"
"\n"
"\tif (argc > 1)\n"
"\t\tdata_dir = argv[1];\n"
"\tprintf(\"%-40s %12s %12s %9s\\n\", \"function\", \"tuned ms\",\n"
"\t    \"naive ms\", \"speedup\");\n"
"\tfor (i = 0; i < (int)(sizeof calls / sizeof *calls); i++) {\n"
"\t\tif (!arrays(&calls[i], a)) {\n"
"\t\t\trelease(&calls[i], a);\n"
"\t\t\treturn 1;\n"
"\t\t}\n"
"\t\ttuned = seconds(i, 0, a);\n"
"\t\tnaive = seconds(i, 1, a);\n"
"\t\trelease(&calls[i], a);\n"
"\t\tprintf(\"%-40s %12.4f %12.4f %8.2fx\\n\", calls[i].name,\n"
"\t\t    tuned * 1e3, naive * 1e3, naive / tuned);\n"
"\t\tfflush(stdout);\n"
"\t}\n"
"\treturn 0;\n"
"}\n";

static int
max_args(dojo_lib *lib)
{
	int i, b[16], n = 1;

	for (i = 0; i < lib->nfn; i++)
		if (arguments(lib->fn[i].naive, b) > n)
			n = arguments(lib->fn[i].naive, b);
	return n;
}

/* One row of the table of calls: "name" with the arrays of "f". */
static void
call_row(struct dojo_strbuf *sb, const char *name, struct lib_fn *f)
{
	int b[16], n = arguments(f->naive, b), k, d;
	uint64_t count;
	enum dojo_role r;

	dojo_strbuf_printf(sb, "\t{ \"%s\", %d, {\n", name, n);
	for (k = 0; k < n; k++) {
		count = 1;
		for (d = 0; d < dojo_buffer_ndim(f->naive, b[k]); d++)
			count *= dojo_buffer_extent(f->naive, b[k], d);
		r = dojo_buffer_role(f->naive, b[k]);
		dojo_strbuf_printf(sb, "\t\t{ \"%s\", '%c', %d, %" PRIu64 ", "
		    "\"%s\" },\n", dojo_buffer_name(f->naive, b[k]),
		    r == DOJO_IN ? 'i' : r == DOJO_OUT ? 'o' : 'b',
		    (int)dojo_buffer_dtype(f->naive, b[k]), count, f->kernel);
	}
	dojo_strbuf_puts(sb, "\t} },\n");
}

/* "AB(a[0], a[1]...": a call of the function named A then B with the
 * arrays of "f", cast. */
static void
call_args(struct dojo_strbuf *sb, const char *a, const char *b_,
    struct lib_fn *f)
{
	int b[16], n = arguments(f->naive, b), k;

	dojo_strbuf_printf(sb, "%s%s(", a, b_);
	for (k = 0; k < n; k++)
		dojo_strbuf_printf(sb, "%s(%s%s *)a[%d]", k ? ", " : "",
		    dojo_buffer_role(f->naive, b[k]) == DOJO_IN ? "const " : "",
		    ctypes[dojo_buffer_dtype(f->naive, b[k])], k);
}

/* A family's extents for member "f", after its arrays. */
static void
call_extents(struct dojo_strbuf *sb, struct lib_family *fam,
    struct lib_fn *f)
{
	int b[16], q;

	arguments(f->naive, b);
	for (q = 0; q < fam->nparam; q++)
		dojo_strbuf_printf(sb, ", %" PRId64, dojo_buffer_extent(f->naive,
		    b[fam->param_array[q]], fam->param_axis[q]));
}

/* The end of a table of calls ("sb") and its function ("row", released),
 * then the program's "main". */
static void
finish_calls(struct dojo_strbuf *sb, struct dojo_strbuf *row,
    const char *main_text)
{
	dojo_strbuf_puts(row, "\t}\n}\n\n");
	dojo_strbuf_puts(sb, "};\n\n");
	if (row->s)
		dojo_strbuf_puts(sb, row->s);
	sb->oom |= row->oom;
	dojo_strbuf_release(row);
	dojo_strbuf_puts(sb, main_text);
}

/* The self-test: every function, then each family through its entry
 * point and its naive form, on each member's references. */
static void
test_source(struct dojo_strbuf *sb, dojo_lib *lib)
{
	struct dojo_strbuf row;
	int i, m, n = 0;

	dojo_strbuf_printf(sb, "/* %s_test.c: the self-test of %s (make "
	    "check): every function against the\n * interpreter's outputs "
	    "in data/, within PerfDojo's tolerance */\n#include \"%s.h\"\n\n"
	    "#define DOJO_MAX_ARGS %d\n\n%s", lib->name, lib->name, lib->name,
	    max_args(lib), support);
	dojo_strbuf_init(&row);
	dojo_strbuf_puts(sb, "static const struct call calls[] = {\n");
	dojo_strbuf_puts(&row, "static void\ncall(int i, void **a)\n{\n"
	    "\tswitch (i) {\n");
	for (i = 0; i < lib->nfn; i++) {
		call_row(sb, lib->fn[i].func, &lib->fn[i]);
		dojo_strbuf_printf(&row, "\tcase %d: ", n++);
		call_args(&row, lib->fn[i].func, "", &lib->fn[i]);
		dojo_strbuf_puts(&row, "); break;\n");
	}
	for (i = 0; i < lib->nfam; i++)
		for (m = 0; m < lib->fam[i].nmember; m++) {
			struct lib_fn *f = &lib->fn[lib->fam[i].member[m]];
			char name[600];
			int naive;

			for (naive = 0; naive < 2; naive++) {
				snprintf(name, sizeof name, "%s%s (as %s)",
				    lib->fam[i].func, naive ? "_naive" : "",
				    f->kernel);
				call_row(sb, name, f);
				dojo_strbuf_printf(&row, "\tcase %d: ", n++);
				call_args(&row, lib->fam[i].func, naive ?
				    "_naive" : "", f);
				call_extents(&row, &lib->fam[i], f);
				dojo_strbuf_puts(&row, "); break;\n");
			}
		}
	finish_calls(sb, &row, test_main);
}

/* The benchmark: every function against its naive form. */
static void
bench_source(struct dojo_strbuf *sb, dojo_lib *lib)
{
	struct dojo_strbuf row;
	int i;

	dojo_strbuf_printf(sb, "/* %s_bench.c: the benchmark of %s (make "
	    "bench): the time of every function\n * and of its naive form, "
	    "on the references' inputs */\n#include \"%s.h\"\n\n"
	    "#define DOJO_MAX_ARGS %d\n\n", lib->name, lib->name, lib->name,
	    max_args(lib));
	for (i = 0; i < lib->nfn; i++) {
		dojo_strbuf_printf(sb, "void dojo_naive_%s(", lib->fn[i].kernel);
		put_params(sb, lib->fn[i].naive);
		dojo_strbuf_puts(sb, ");\n");
	}
	dojo_strbuf_printf(sb, "\n%s", support);
	dojo_strbuf_init(&row);
	dojo_strbuf_puts(sb, "static const struct call calls[] = {\n");
	dojo_strbuf_puts(&row, "static void\ncall(int i, int naive, void **a)\n"
	    "{\n\tswitch (i) {\n");
	for (i = 0; i < lib->nfn; i++) {
		call_row(sb, lib->fn[i].func, &lib->fn[i]);
		dojo_strbuf_printf(&row, "\tcase %d:\n\t\tif (naive)\n\t\t\t", i);
		call_args(&row, "dojo_naive_", lib->fn[i].kernel, &lib->fn[i]);
		dojo_strbuf_puts(&row, ");\n\t\telse\n\t\t\t");
		call_args(&row, lib->fn[i].func, "", &lib->fn[i]);
		dojo_strbuf_puts(&row, ");\n\t\tbreak;\n");
	}
	finish_calls(sb, &row, bench_main);
}

/* "text" with each "@N@" replaced by "name". */
static void
put_template(struct dojo_strbuf *sb, const char *text, const char *name)
{
	const char *at;

	while ((at = strstr(text, "@N@"))) {
		dojo_strbuf_add(sb, text, at - text);
		dojo_strbuf_puts(sb, name);
		text = at + 3;
	}
	dojo_strbuf_puts(sb, text);
}

static const char makefile_rules[] =
"OBJECTS = $(SOURCES:.c=.o)\n"
"\n"
"all: lib@N@.a lib@N@.so\n"
"\n"
"%.o: %.c @N@.h\n"
"\t$(CC) $(CFLAGS) -fPIC -c -o $@ $<\n"
"\n"
"lib@N@.a: $(OBJECTS)\n"
"\trm -f $@\n"
"\t$(AR) rcs $@ $(OBJECTS)\n"
"\n"
"$(SONAME): $(OBJECTS)\n"
"\t$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $(OBJECTS) $(LDLIBS)\n"
"\n"
"lib@N@.so: $(SONAME)\n"
"\tln -sf $(SONAME) $@\n"
"\n"
"@N@_test: @N@_test.c lib@N@.a\n"
"\t$(CC) $(CFLAGS) -pthread -o $@ @N@_test.c lib@N@.a $(LDLIBS)\n"
"\n"
"check: @N@_test\n"
"\t./@N@_test data\n"
"\n"
"@N@_bench: @N@_bench.c $(NAIVE) lib@N@.a\n"
"\t$(CC) $(CFLAGS) -I. -o $@ @N@_bench.c $(NAIVE) lib@N@.a $(LDLIBS)\n"
"\n"
"bench: @N@_bench\n"
"\t./@N@_bench data\n"
"\n"
"install: all\n"
"\tmkdir -p $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \\\n"
"\t    $(DESTDIR)$(LIBDIR)/cmake/@N@ $(DESTDIR)$(PREFIX)/share/@N@\n"
"\tcp @N@.h $(DESTDIR)$(INCLUDEDIR)/\n"
"\tcp lib@N@.a $(SONAME) $(DESTDIR)$(LIBDIR)/\n"
"\tln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/lib@N@.so\n"
"\tcp @N@.pc $(DESTDIR)$(LIBDIR)/pkgconfig/\n"
"\tcp @N@Config.cmake @N@ConfigVersion.cmake $(DESTDIR)$(LIBDIR)/cmake/@N@/\n"
"\tcp @N@.py manifest.json $(DESTDIR)$(PREFIX)/share/@N@/\n"
"\n"
"clean:\n"
"\trm -f $(OBJECTS) lib@N@.a lib@N@.so $(SONAME) @N@_test @N@_bench\n"
"\n"
".PHONY: all check bench install clean\n";

static void
makefile(struct dojo_strbuf *sb, dojo_lib *lib)
{
	const char *n = lib->name;
	int i;

	dojo_strbuf_printf(sb, "# Makefile of the library %s, made by perfdojo "
	    "lib (PerfDojo %s)\n#   make          lib%s.a and lib%s.so\n"
	    "#   make check    the self-test: every function against the "
	    "references in data/\n#   make bench    every function's time "
	    "and its naive form's\n#   make install  into $(DESTDIR)$(PREFIX)"
	    "\n\nPREFIX = /usr/local\nDESTDIR =\nLIBDIR = $(PREFIX)/lib\n"
	    "INCLUDEDIR = $(PREFIX)/include\nCC = cc\nAR = ar\n"
	    "CFLAGS = %s\nLDLIBS = -lm\nSONAME = lib%s.so.1\n\nSOURCES =",
	    n, PACKAGE_VERSION, n, n, lib->cflags, n);
	for (i = 0; i < lib->nfn; i++)
		dojo_strbuf_printf(sb, " \\\n\t%s.c", lib->fn[i].func);
	for (i = 0; i < lib->nfam; i++)
		dojo_strbuf_printf(sb, " \\\n\t%s.c", lib->fam[i].func);
	dojo_strbuf_puts(sb, "\nNAIVE =");
	for (i = 0; i < lib->nfn; i++)
		dojo_strbuf_printf(sb, " \\\n\tnaive/%s.c", lib->fn[i].kernel);
	dojo_strbuf_puts(sb, "\n");
	put_template(sb, makefile_rules, n);
}

static void
pkgconfig(struct dojo_strbuf *sb, dojo_lib *lib)
{
	int i;

	dojo_strbuf_printf(sb, "# %s.pc: made by perfdojo lib; the prefix is "
	    "where this file is installed\nprefix=${pcfiledir}/../..\n"
	    "libdir=${prefix}/lib\nincludedir=${prefix}/include\n\n"
	    "Name: %s\nDescription: kernels tuned by PerfDojo:", lib->name,
	    lib->name);
	for (i = 0; i < lib->nfn; i++)
		dojo_strbuf_printf(sb, "%s %s", i ? "," : "", lib->fn[i].kernel);
	dojo_strbuf_printf(sb, "\nVersion: 1.0.0\nCflags: -I${includedir}\n"
	    "Libs: -L${libdir} -l%s\nLibs.private: -lgomp -lm\n", lib->name);
}

static const char cmake_config[] =
"# @N@Config.cmake: find_package(@N@), made by perfdojo lib.\n"
"# Imported targets: @N@::@N@ (shared) and @N@::static.\n"
"get_filename_component(_@N@_prefix \"${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)\n"
"if(NOT TARGET @N@::@N@)\n"
"  add_library(@N@::@N@ SHARED IMPORTED)\n"
"  set_target_properties(@N@::@N@ PROPERTIES\n"
"    IMPORTED_LOCATION \"${_@N@_prefix}/lib/lib@N@.so.1\"\n"
"    IMPORTED_SONAME \"lib@N@.so.1\"\n"
"    INTERFACE_INCLUDE_DIRECTORIES \"${_@N@_prefix}/include\")\n"
"  add_library(@N@::static STATIC IMPORTED)\n"
"  set_target_properties(@N@::static PROPERTIES\n"
"    IMPORTED_LOCATION \"${_@N@_prefix}/lib/lib@N@.a\"\n"
"    INTERFACE_INCLUDE_DIRECTORIES \"${_@N@_prefix}/include\"\n"
"    INTERFACE_LINK_LIBRARIES \"gomp;m\")\n"
"endif()\n"
"set(@N@_INCLUDE_DIRS \"${_@N@_prefix}/include\")\n"
"set(@N@_LIBRARIES @N@::@N@)\n"
"unset(_@N@_prefix)\n";

static const char cmake_version[] =
"# the version of this library, for find_package(NAME VERSION)\n"
"set(PACKAGE_VERSION \"1.0.0\")\n"
"if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)\n"
"  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
"else()\n"
"  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
"  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n"
"    set(PACKAGE_VERSION_EXACT TRUE)\n"
"  endif()\n"
"endif()\n";

/* The Python module's fixed part, after its docstring. */
static const char python_support[] =
"import ctypes\n"
"import os\n"
"\n"
"import numpy\n"
"\n"
"_HERE = os.path.dirname(os.path.abspath(__file__))\n"
"\n"
"\n"
"def _load(soname, variable):\n"
"    tried = []\n"
"    env = os.environ.get(variable)\n"
"    for path in ([env] if env else []) + [\n"
"            os.path.join(_HERE, soname),\n"
"            os.path.join(_HERE, \"..\", \"..\", \"lib\", soname), soname]:\n"
"        try:\n"
"            return ctypes.CDLL(path)\n"
"        except OSError as e:\n"
"            tried.append(str(e))\n"
"    raise ImportError(\"cannot load %s (run make beside this module, or \"\n"
"                      \"set %s): %s\" % (soname, variable, \"; \".join(tried)))\n"
"\n"
"\n"
"def _check(name, what, spec, a, ext):\n"
"    aname, role, dtype, shape = spec\n"
"    if not isinstance(a, numpy.ndarray):\n"
"        raise TypeError(\"%s: %s %s must be a numpy.ndarray, not %s\"\n"
"                        % (name, what, aname, type(a).__name__))\n"
"    if a.dtype != numpy.dtype(dtype):\n"
"        raise TypeError(\"%s: %s %s must be %s, not %s\"\n"
"                        % (name, what, aname, dtype, a.dtype))\n"
"    if a.ndim != len(shape):\n"
"        raise ValueError(\"%s: %s %s must have %d dimension(s), not %d \"\n"
"                         \"(shape %s)\" % (name, what, aname, len(shape),\n"
"                                         a.ndim, a.shape))\n"
"    for d, (want, got) in enumerate(zip(shape, a.shape)):\n"
"        if isinstance(want, str):\n"
"            if ext.setdefault(want, got) != got:\n"
"                raise ValueError(\"%s: %s %s has shape %s: its extent %d is \"\n"
"                                 \"%d, but %s is %d\" % (name, what, aname,\n"
"                                 a.shape, d, got, want, ext[want]))\n"
"        elif want != got:\n"
"            raise ValueError(\"%s: %s %s must have shape %s, not %s\"\n"
"                             % (name, what, aname, tuple(shape), a.shape))\n"
"    if not a.flags.c_contiguous:\n"
"        raise ValueError(\"%s: %s %s must be C-contiguous \"\n"
"                         \"(numpy.ascontiguousarray)\" % (name, what, aname))\n"
"\n"
"\n"
"def _call(name, cfn, spec, params, arrays, out):\n"
"    ins = [s for s in spec if s[1] != \"out\"]\n"
"    outs = [s for s in spec if s[1] != \"in\"]\n"
"    if len(arrays) != len(ins):\n"
"        raise TypeError(\"%s() takes %d array(s) (%s), got %d\"\n"
"                        % (name, len(ins), \", \".join(s[0] for s in ins),\n"
"                           len(arrays)))\n"
"    ext = {}\n"
"    for s, a in zip(ins, arrays):\n"
"        _check(name, \"array\", s, a, ext)\n"
"    if out is not None:\n"
"        out = (out,) if isinstance(out, numpy.ndarray) else tuple(out)\n"
"        if len(out) != len(outs):\n"
"            raise TypeError(\"%s: out= takes %d array(s) (%s), got %d\"\n"
"                            % (name, len(outs),\n"
"                               \", \".join(s[0] for s in outs), len(out)))\n"
"        for s, a in zip(outs, out):\n"
"            _check(name, \"out\", s, a, ext)\n"
"            if not a.flags.writeable:\n"
"                raise ValueError(\"%s: out %s is read-only\" % (name, s[0]))\n"
"    for p in params:\n"
"        if p not in ext:\n"
"            raise ValueError(\"%s: no input gives the extent %s: pass out=\"\n"
"                             % (name, p))\n"
"        if ext[p] < 1:\n"
"            raise ValueError(\"%s: the extent %s is %d, below 1\"\n"
"                             % (name, p, ext[p]))\n"
"    if out is None:\n"
"        out = tuple(numpy.empty(tuple(ext[x] if isinstance(x, str) else x\n"
"                                      for x in s[3]), dtype=s[2])\n"
"                    for s in outs)\n"
"    given = dict(zip((s[0] for s in ins), arrays))\n"
"    result = dict(zip((s[0] for s in outs), out))\n"
"    args = [result[s[0]] if s[1] != \"in\" else given[s[0]] for s in spec]\n"
"    for i, s in enumerate(spec):\n"
"        if s[1] == \"in\":\n"
"            continue\n"
"        for j, t in enumerate(spec):\n"
"            if j != i and numpy.may_share_memory(args[i], args[j]):\n"
"                raise ValueError(\"%s: %s and %s overlap\"\n"
"                                 % (name, s[0], t[0]))\n"
"        if s[1] == \"inout\" and given[s[0]] is not result[s[0]]:\n"
"            if numpy.may_share_memory(given[s[0]], result[s[0]]):\n"
"                raise ValueError(\"%s: %s and out %s overlap\"\n"
"                                 % (name, s[0], s[0]))\n"
"            numpy.copyto(result[s[0]], given[s[0]])\n"
"    rc = cfn(*([a.ctypes.data_as(ctypes.c_void_p) for a in args] +\n"
"               [ext[p] for p in params]))\n"
"    if params and rc != 0:\n"
"        raise ValueError(\"%s: the extents were refused\" % name)\n"
"    return out[0] if len(out) == 1 else out\n"
"\n";

static bool
python_keyword(const char *s)
{
	static const char *const words[] = { "False", "None", "True", "and",
	    "as", "assert", "async", "await", "break", "class", "continue",
	    "def", "del", "elif", "else", "except", "finally", "for", "from",
	    "global", "if", "import", "in", "is", "lambda", "nonlocal", "not",
	    "or", "pass", "raise", "return", "try", "while", "with", "yield" };
	size_t i;

	for (i = 0; i < sizeof words / sizeof *words; i++)
		if (strcmp(s, words[i]) == 0)
			return true;
	return false;
}

/* One function of the Python module: "pyname" calls "func" with the arrays
 * of "f", and the extents of "fam" when not NULL. */
static void
python_function(struct dojo_strbuf *sb, dojo_lib *lib, const char *pyname,
    const char *func, struct lib_fn *f, struct lib_family *fam,
    const char *doc)
{
	int b[16], n = arguments(f->naive, b), k, d, q, nout = 0;
	dojo_program *p = f->naive;
	enum dojo_role r;

	(void)lib;
	dojo_strbuf_printf(sb, "_%s = _lib.%s\n_%s.argtypes = "
	    "[ctypes.c_void_p] * %d", func, func, func, n);
	if (fam)
		dojo_strbuf_printf(sb, " + [ctypes.c_int64] * %d", fam->nparam);
	dojo_strbuf_printf(sb, "\n_%s.restype = %s\n_SPEC_%s = (\n", func,
	    fam ? "ctypes.c_int" : "None", func);
	for (k = 0; k < n; k++) {
		r = dojo_buffer_role(p, b[k]);
		nout += r != DOJO_IN;
		dojo_strbuf_printf(sb, "    (\"%s\", \"%s\", \"%s\", (",
		    dojo_buffer_name(p, b[k]), dojo_role_name(r),
		    nptypes[dojo_buffer_dtype(p, b[k])]);
		for (d = 0; d < dojo_buffer_ndim(p, b[k]); d++) {
			if (fam) {
				dojo_strbuf_puts(sb, "\"");
				param_name(sb, p, fam, fam->param_of[k][d]);
				dojo_strbuf_puts(sb, "\"");
			} else {
				dojo_strbuf_printf(sb, "%" PRId64,
				    dojo_buffer_extent(p, b[k], d));
			}
			dojo_strbuf_puts(sb, dojo_buffer_ndim(p, b[k]) == 1 ?
			    "," : d + 1 < dojo_buffer_ndim(p, b[k]) ? ", " : "");
		}
		dojo_strbuf_puts(sb, ")),\n");
	}
	dojo_strbuf_printf(sb, ")\n\n\ndef %s(*arrays, out=None):\n    "
	    "\"\"\"%s\n", pyname, doc);
	dojo_strbuf_puts(sb, "\n    Takes");
	for (k = 0, d = 0; k < n; k++)
		if (dojo_buffer_role(p, b[k]) != DOJO_OUT)
			dojo_strbuf_printf(sb, "%s %s", d++ ? "," : "",
			    dojo_buffer_name(p, b[k]));
	if (d == 0)
		dojo_strbuf_puts(sb, " no array");
	dojo_strbuf_printf(sb, "; returns");
	for (k = 0, d = 0; k < n; k++)
		if (dojo_buffer_role(p, b[k]) != DOJO_IN)
			dojo_strbuf_printf(sb, "%s %s", d++ ? "," : "",
			    dojo_buffer_name(p, b[k]));
	dojo_strbuf_printf(sb, "%s.\n    \"\"\"\n    return _call(\"%s\", _%s, "
	    "_SPEC_%s, (", nout > 1 ? " (a tuple)" : "", pyname, func, func);
	for (q = 0; fam && q < fam->nparam; q++) {
		dojo_strbuf_puts(sb, "\"");
		param_name(sb, p, fam, q);
		dojo_strbuf_puts(sb, fam->nparam == 1 ? "\"," : "\", ");
	}
	dojo_strbuf_puts(sb, "), arrays, out)\n\n\n");
}

/* The docstring lines of "f": its comment, arrays, provenance. */
static char *
python_doc(dojo_lib *lib, struct lib_fn *f, const char *func,
    struct lib_family *fam, bool naive)
{
	struct dojo_strbuf sb;
	int b[16], n = arguments(f->naive, b), k, d;

	dojo_strbuf_init(&sb);
	dojo_strbuf_printf(&sb, "%s", func);
	if (fam)
		dojo_strbuf_printf(&sb, ": the family of %d shapes, for any "
		    "extents%s", fam->nmember, naive ? " (the naive form)" : "");
	dojo_strbuf_puts(&sb, "\n\n");
	put_comment(&sb, f->text, "    ", fam ? 1 : 0);
	dojo_strbuf_puts(&sb, "\n");
	for (k = 0; k < n && !fam; k++) {
		dojo_strbuf_printf(&sb, "    %s: %s (",
		    dojo_buffer_name(f->naive, b[k]),
		    nptypes[dojo_buffer_dtype(f->naive, b[k])]);
		for (d = 0; d < dojo_buffer_ndim(f->naive, b[k]); d++)
			dojo_strbuf_printf(&sb, "%s%" PRId64, d ? ", " : "",
			    dojo_buffer_extent(f->naive, b[k], d));
		dojo_strbuf_printf(&sb, "%s), %s\n", dojo_buffer_ndim(f->naive,
		    b[k]) == 1 ? "," : "", dojo_role_name(dojo_buffer_role(
		    f->naive, b[k])));
	}
	if (!fam) {
		dojo_strbuf_puts(&sb, "\n");
		put_provenance(&sb, lib, f, "    ");
	}
	if (sb.len && sb.s[sb.len - 1] == '\n')
		sb.s[--sb.len] = '\0';
	return dojo_strbuf_detach(&sb);
}

static void
python_module(struct dojo_strbuf *sb, dojo_lib *lib)
{
	char upper[256], *doc, pyname[300];
	int i, naive;

	upper_name(upper, sizeof upper, lib->name, "_LIBRARY");
	dojo_strbuf_printf(sb, "\"\"\"%s: kernels tuned by PerfDojo %s "
	    "(target %s, %s mode), through ctypes.\n\nEach function takes "
	    "the kernel's in and inout arrays, in the order of\nthe kernel's "
	    "declarations, and returns its out and inout arrays (a tuple\n"
	    "when there are several); out= passes them preallocated (an "
	    "inout array is\ncopied there first).  The arrays are NumPy "
	    "arrays of the kernel's dtype and\nshape, C-contiguous; a wrong "
	    "one raises TypeError or ValueError.\nlib%s.so.1 is looked for "
	    "in $%s, beside this module, in ../../lib\nfrom it, then where "
	    "the system looks.  Made by perfdojo lib.\n\"\"\"\n", lib->name,
	    PACKAGE_VERSION, lib->target, lib->exact ? "exact" : "fast",
	    lib->name, upper);
	dojo_strbuf_printf(sb, "%s_lib = _load(\"lib%s.so.1\", \"%s\")\n\n",
	    python_support, lib->name, upper);
	for (i = 0; i < lib->nfn; i++) {
		struct lib_fn *f = &lib->fn[i];

		snprintf(pyname, sizeof pyname, "%s%s", f->kernel,
		    python_keyword(f->kernel) ? "_" : "");
		doc = python_doc(lib, f, f->func, NULL, false);
		python_function(sb, lib, pyname, f->func, f, NULL,
		    doc ? doc : "");
		free(doc);
	}
	for (i = 0; i < lib->nfam; i++)
		for (naive = 0; naive < 2; naive++) {
			struct lib_family *fam = &lib->fam[i];
			char func[300];

			snprintf(func, sizeof func, "%s%s", fam->func, naive ?
			    "_naive" : "");
			snprintf(pyname, sizeof pyname, "%s", func +
			    strlen(lib->name) + 1);
			doc = python_doc(lib, &lib->fn[fam->member[0]], func, fam,
			    naive);
			python_function(sb, lib, pyname, func,
			    &lib->fn[fam->member[0]], fam, doc ? doc : "");
			free(doc);
		}
	if (sb->s && sb->len >= 2)	/* one newline at the end */
		sb->s[sb->len -= 2] = '\0';
}

/*
 * The manifest.
 */

static int
json_set(json_t *obj, const char *key, json_t *v)
{
	return v ? json_object_set_new(obj, key, v) : -1;
}

static json_t *
manifest_json(dojo_lib *lib)
{
	json_t *root = json_object(), *fns = json_array(), *fams = json_array();
	int i, j, q, rc = 0;

	if (!root || !fns || !fams) {
		json_decref(root);
		json_decref(fns);
		json_decref(fams);
		return NULL;
	}
	rc |= json_set(root, "perfdojo", json_string(PACKAGE_VERSION));
	rc |= json_set(root, "format", json_integer(MANIFEST_FORMAT));
	rc |= json_set(root, "name", json_string(lib->name));
	rc |= json_set(root, "target", json_string(lib->target));
	rc |= json_set(root, "mode", json_string(lib->exact ? "exact" : "fast"));
	rc |= json_set(root, "codegen", json_integer(DOJO_C_CODEGEN));
	rc |= json_set(root, "cflags", json_string(lib->cflags));
	rc |= json_set(root, "machine", json_string(lib->machine));
	rc |= json_set(root, "functions", fns);
	rc |= json_set(root, "families", fams);
	for (i = 0; i < lib->nfn && rc == 0; i++) {
		struct lib_fn *f = &lib->fn[i];
		json_t *o = json_object(), *moves = json_array();

		rc |= json_array_append_new(fns, o);
		rc |= json_set(o, "function", json_string(f->func));
		rc |= json_set(o, "kernel", json_string(f->kernel));
		rc |= json_set(o, "source", json_string(f->source));
		rc |= json_set(o, "start", json_string(f->start));
		rc |= json_set(o, "state", json_string(f->state));
		rc |= json_set(o, "tuned", json_boolean(f->tuned));
		rc |= json_set(o, "moves", moves);
		for (j = 0; j < f->nmoves && moves; j++)
			rc |= json_array_append_new(moves,
			    json_string(f->moves[j]));
		if (f->speedup > 0) {
			rc |= json_set(o, "speedup", json_real(f->speedup));
			rc |= json_set(o, "confirmed", json_boolean(f->confirmed));
			if (f->confirmed) {
				rc |= json_set(o, "low", json_real(f->low));
				rc |= json_set(o, "high", json_real(f->high));
			}
			rc |= json_set(o, "fingerprint",
			    json_string(f->fingerprint));
			rc |= json_set(o, "measured", json_string(f->when));
		}
		rc |= json_set(o, "program", json_string(f->text));
	}
	for (i = 0; i < lib->nfam && rc == 0; i++) {
		struct lib_family *fam = &lib->fam[i];
		json_t *o = json_object(), *mem = json_array(), *par = json_array();
		struct dojo_strbuf sb;

		rc |= json_array_append_new(fams, o);
		rc |= json_set(o, "function", json_string(fam->func));
		rc |= json_set(o, "members", mem);
		rc |= json_set(o, "extents", par);
		for (j = 0; j < fam->nmember && mem; j++)
			rc |= json_array_append_new(mem, json_string(
			    lib->fn[fam->member[j]].func));
		for (q = 0; q < fam->nparam && par; q++) {
			dojo_strbuf_init(&sb);
			param_name(&sb, lib->fn[fam->member[0]].naive, fam, q);
			rc |= json_array_append_new(par, json_string(sb.s ?
			    sb.s : ""));
			dojo_strbuf_release(&sb);
		}
	}
	if (rc) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* The member "key" of "o" as a string; NULL (and the error) when it is not
 * one, unless "optional" and missing. */
static const char *
get_string(json_t *o, const char *key, const char *path, const char *where,
    bool optional)
{
	json_t *v = json_object_get(o, key);

	if (!v && optional)
		return "";
	if (!json_is_string(v)) {
		dojo_error_set("%s: %s%s'%s' is %s, expected a string", path,
		    where, *where ? ": " : "", key, v ? "not a string" :
		    "missing");
		return NULL;
	}
	return json_string_value(v);
}

static int
get_number(json_t *o, const char *key, double *out)
{
	json_t *v = json_object_get(o, key);

	*out = json_is_number(v) ? json_number_value(v) : 0;
	return 0;
}

static int
manifest_function(dojo_lib *lib, json_t *o, const char *path, int i)
{
	struct dojo_lib_function f;
	char where[64], at[4096], want[512];
	const char **moves = NULL, *func;
	json_t *mv;
	size_t j;
	int rc = -1;

	memset(&f, 0, sizeof f);
	snprintf(where, sizeof where, "functions[%d]", i);
	if (!json_is_object(o))
		return dojo_error_set("%s: %s is not an object", path, where);
	if (!(f.kernel = get_string(o, "kernel", path, where, false)) ||
	    !(f.text = get_string(o, "program", path, where, false)) ||
	    !(f.source = get_string(o, "source", path, where, true)) ||
	    !(f.state = get_string(o, "state", path, where, true)) ||
	    !(f.fingerprint = get_string(o, "fingerprint", path, where,
	    true)) || !(f.when = get_string(o, "measured", path, where, true)) ||
	    !(func = get_string(o, "function", path, where, true)))
		return -1;
	mv = json_object_get(o, "moves");
	if (mv && !json_is_array(mv))
		return dojo_error_set("%s: %s: 'moves' is not a list", path,
		    where);
	moves = calloc(json_array_size(mv) + 1, sizeof *moves);
	if (!moves)
		return dojo_error_set("out of memory");
	for (j = 0; j < json_array_size(mv); j++) {
		moves[j] = json_string_value(json_array_get(mv, j));
		if (!moves[j]) {
			dojo_error_set("%s: %s: moves[%zu] is not a string",
			    path, where, j);
			goto out;
		}
	}
	f.moves = moves;
	f.nmoves = (int)json_array_size(mv);
	f.tuned = json_is_true(json_object_get(o, "tuned"));
	f.confirmed = json_is_true(json_object_get(o, "confirmed"));
	get_number(o, "speedup", &f.speedup);
	get_number(o, "low", &f.low);
	get_number(o, "high", &f.high);
	snprintf(want, sizeof want, "%s_%s", lib->name, f.kernel);
	if (*func && strcmp(func, want) != 0) {
		dojo_error_set("%s: %s: function '%s' is not '%s' (name and "
		    "kernel)", path, where, func, want);
		goto out;
	}
	snprintf(at, sizeof at, "%s: %s (%s)", path, where, f.kernel);
	rc = dojo_lib_add(lib, &f, at);
out:
	free(moves);
	return rc;
}

dojo_lib *
dojo_lib_read_manifest(const char *path)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *fns;
	const char *name, *target, *mode, *cflags, *machine;
	dojo_lib *lib = NULL;
	size_t i;

	if (!root) {
		if (err.line > 0)
			dojo_error_set("%s:%d:%d: %s", path, err.line,
			    err.column, err.text);
		else
			dojo_error_set("%s: %s", path, err.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		dojo_error_set("%s: not a manifest (an object expected)", path);
		goto out;
	}
	if (json_integer_value(json_object_get(root, "format")) !=
	    MANIFEST_FORMAT) {
		dojo_error_set("%s: manifest format %" JSON_INTEGER_FORMAT
		    " (this perfdojo reads %d)", path, json_integer_value(
		    json_object_get(root, "format")), MANIFEST_FORMAT);
		goto out;
	}
	if (!(name = get_string(root, "name", path, "", false)) ||
	    !(target = get_string(root, "target", path, "", false)) ||
	    !(mode = get_string(root, "mode", path, "", false)) ||
	    !(cflags = get_string(root, "cflags", path, "", false)) ||
	    !(machine = get_string(root, "machine", path, "", true)))
		goto out;
	if (strcmp(mode, "fast") != 0 && strcmp(mode, "exact") != 0) {
		dojo_error_set("%s: mode '%s' is not fast or exact", path, mode);
		goto out;
	}
	fns = json_object_get(root, "functions");
	if (!json_is_array(fns) || json_array_size(fns) == 0) {
		dojo_error_set("%s: 'functions' is not a list of functions",
		    path);
		goto out;
	}
	lib = dojo_lib_new(name, target, strcmp(mode, "exact") == 0, machine);
	if (!lib) {
		char msg[DOJO_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", dojo_error_last());
		dojo_error_set("%s: %s", path, msg);
		goto out;
	}
	free(lib->cflags);
	lib->cflags = strdup(cflags);
	if (!lib->cflags) {
		dojo_error_set("out of memory");
		goto fail;
	}
	for (i = 0; i < json_array_size(fns); i++)
		if (manifest_function(lib, json_array_get(fns, i), path,
		    (int)i) < 0)
			goto fail;
	goto out;
fail:
	dojo_lib_free(lib);
	lib = NULL;
out:
	json_decref(root);
	return lib;
}

/*
 * Writing the folder.
 */

static int
remove_entry(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Remove the folder "dir" and all it holds. */
static void
remove_tree(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write "sb" (then emptied) into "dir"/NAME, NAME made from "fmt"; 0 or
 * -1 with the error. */
static int __attribute__((format(printf, 3, 4)))
put_file(const char *dir, struct dojo_strbuf *sb, const char *fmt, ...)
{
	char name[600], path[PATH_MAX];
	va_list ap;
	FILE *f;
	int rc = 0;

	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	if (sb->oom || !sb->s) {
		dojo_strbuf_release(sb);
		return dojo_error_set("out of memory");
	}
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		rc = dojo_error_set("%s: %s", path, strerror(errno));
	else if (fputs(sb->s, f) < 0 || fflush(f) != 0 || fsync(fileno(f)) < 0) {
		rc = dojo_error_set("%s: %s", path, strerror(errno));
		fclose(f);
	} else if (fclose(f) != 0)
		rc = dojo_error_set("%s: %s", path, strerror(errno));
	dojo_strbuf_release(sb);
	dojo_strbuf_init(sb);
	return rc;
}

/* The references of "f": its inputs from the seeded generator and the
 * interpreter's outputs of its naive form, into data/. */
static int
put_data(const char *dir, struct lib_fn *f)
{
	int b[16], n = arguments(f->naive, b), k;
	char path[PATH_MAX];
	dojo_data *data;
	enum dojo_role r;
	int rc = -1;

	data = dojo_data_new(f->naive, (uint64_t)1 << 31);
	if (!data)
		return -1;
	dojo_data_randomize(data, DATA_SEED);
	for (k = 0; k < n; k++) {
		if (dojo_buffer_role(f->naive, b[k]) == DOJO_OUT)
			continue;
		snprintf(path, sizeof path, "%s/data/%s.in.%s.npy", dir,
		    f->kernel, dojo_buffer_name(f->naive, b[k]));
		if (dojo_data_save_npy(data, b[k], path) < 0)
			goto out;
	}
	if (dojo_interp_run_limited(f->naive, data, DATA_SECONDS) < 0)
		goto out;
	for (k = 0; k < n; k++) {
		r = dojo_buffer_role(f->naive, b[k]);
		if (r == DOJO_IN)
			continue;
		snprintf(path, sizeof path, "%s/data/%s.out.%s.npy", dir,
		    f->kernel, dojo_buffer_name(f->naive, b[k]));
		if (dojo_data_save_npy(data, b[k], path) < 0)
			goto out;
	}
	rc = 0;
out:
	dojo_data_free(data);
	return rc;
}

/* Every file of the library into "dir". */
static int
put_files(dojo_lib *lib, const char *dir)
{
	const char *n = lib->name;
	struct dojo_strbuf sb;
	char sub[PATH_MAX];
	json_t *manifest;
	char *text;
	int i;

	dojo_strbuf_init(&sb);
	snprintf(sub, sizeof sub, "%s/naive", dir);
	if (mkdir(sub, 0777) < 0)
		return dojo_error_set("%s: %s", sub, strerror(errno));
	snprintf(sub, sizeof sub, "%s/data", dir);
	if (mkdir(sub, 0777) < 0)
		return dojo_error_set("%s: %s", sub, strerror(errno));
	header(&sb, lib);
	if (put_file(dir, &sb, "%s.h", n) < 0)
		return -1;
	for (i = 0; i < lib->nfn; i++) {
		struct lib_fn *f = &lib->fn[i];

		snprintf(sub, sizeof sub, "dojo_naive_%s", f->kernel);
		if (kernel_source(&sb, lib, f, f->prog, f->func) < 0 ||
		    put_file(dir, &sb, "%s.c", f->func) < 0 ||
		    kernel_source(&sb, lib, f, f->naive, sub) < 0 ||
		    put_file(dir, &sb, "naive/%s.c", f->kernel) < 0 ||
		    put_data(dir, f) < 0)
			goto fail;
	}
	for (i = 0; i < lib->nfam; i++) {
		family_source(&sb, lib, &lib->fam[i]);
		if (put_file(dir, &sb, "%s.c", lib->fam[i].func) < 0)
			goto fail;
	}
	test_source(&sb, lib);
	if (put_file(dir, &sb, "%s_test.c", n) < 0)
		goto fail;
	bench_source(&sb, lib);
	if (put_file(dir, &sb, "%s_bench.c", n) < 0)
		goto fail;
	makefile(&sb, lib);
	if (put_file(dir, &sb, "Makefile") < 0)
		goto fail;
	pkgconfig(&sb, lib);
	if (put_file(dir, &sb, "%s.pc", n) < 0)
		goto fail;
	put_template(&sb, cmake_config, n);
	if (put_file(dir, &sb, "%sConfig.cmake", n) < 0)
		goto fail;
	dojo_strbuf_puts(&sb, cmake_version);
	if (put_file(dir, &sb, "%sConfigVersion.cmake", n) < 0)
		goto fail;
	python_module(&sb, lib);
	if (put_file(dir, &sb, "%s.py", n) < 0)
		goto fail;
	manifest = manifest_json(lib);
	text = manifest ? json_dumps(manifest, JSON_INDENT(2) |
	    JSON_REAL_PRECISION(6)) : NULL;
	json_decref(manifest);
	if (!text) {
		dojo_error_set("out of memory");
		goto fail;
	}
	dojo_strbuf_printf(&sb, "%s\n", text);
	free(text);
	if (put_file(dir, &sb, "manifest.json") < 0)
		goto fail;
	return 0;
fail:
	dojo_strbuf_release(&sb);
	return -1;
}

/* Whether "dir" may be replaced: missing, empty, or an earlier library
 * (it holds manifest.json). */
static int
replaceable(const char *dir, bool *exists)
{
	struct stat st;
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	bool empty = true;

	*exists = false;
	if (lstat(dir, &st) < 0)
		return errno == ENOENT ? 0 : dojo_error_set("%s: %s", dir,
		    strerror(errno));
	*exists = true;
	if (!S_ISDIR(st.st_mode))
		return dojo_error_set("%s: exists and is not a folder", dir);
	snprintf(path, sizeof path, "%s/manifest.json", dir);
	if (access(path, F_OK) == 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return dojo_error_set("%s: %s", dir, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	if (!empty)
		return dojo_error_set("%s: holds files and no manifest.json: "
		    "not a library of perfdojo lib, not replaced", dir);
	return 0;
}

/* Make the folders above "dir" that are missing. */
static int
make_parents(const char *dir)
{
	char path[PATH_MAX];
	char *p;

	snprintf(path, sizeof path, "%s", dir);
	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			return dojo_error_set("%s: %s", path, strerror(errno));
		*p = '/';
	}
	return 0;
}

static void
log_function(FILE *log, dojo_lib *lib, struct lib_fn *f)
{
	fprintf(log, "%s: %s, ", f->func, *f->source ? f->source : f->kernel);
	if (!f->tuned)
		fprintf(log, "the naive form (no tuned state)\n");
	else if (f->speedup <= 0)
		fprintf(log, "tuned (%d move%s), not measured\n", f->nmoves,
		    f->nmoves == 1 ? "" : "s");
	else
		fprintf(log, "tuned (%d move%s), %.2fx the naive kernel%s\n",
		    f->nmoves, f->nmoves == 1 ? "" : "s", f->speedup,
		    f->confirmed ? " (confirmed)" : " (not confirmed)");
	(void)lib;
}

int
dojo_lib_write(dojo_lib *lib, const char *outdir, FILE *log)
{
	char dir[PATH_MAX / 2 - 16], tmp[PATH_MAX / 2], old[PATH_MAX / 2];
	size_t len;
	bool exists;
	int i, m;

	if (lib->nfn == 0)
		return dojo_error_set("a library needs one kernel at least");
	if (strlen(outdir) >= sizeof dir)
		return dojo_error_set("%.40s...: the folder's name is too long",
		    outdir);
	snprintf(dir, sizeof dir, "%s", outdir);
	for (len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--)
		dir[len - 1] = '\0';
	if (!*dir)
		return dojo_error_set("no folder to write the library into");
	if (replaceable(dir, &exists) < 0 || make_parents(dir) < 0)
		return -1;
	if (find_families(lib, log) < 0)
		return -1;
	snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", dir);
	if (!mkdtemp(tmp))
		return dojo_error_set("%s: cannot write beside it: %s", dir,
		    strerror(errno));
	if (put_files(lib, tmp) < 0) {
		char msg[DOJO_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", dojo_error_last());
		remove_tree(tmp);
		/* the temporary folder's name means nothing to the reader */
		if (strncmp(msg, tmp, strlen(tmp)) == 0)
			return dojo_error_set("%s%s", dir, msg + strlen(tmp));
		return dojo_error_set("%s", msg);
	}
	if (exists) {
		snprintf(old, sizeof old, "%s.old-XXXXXX", dir);
		if (!mkdtemp(old) || rename(dir, old) < 0) {
			dojo_error_set("%s: %s", dir, strerror(errno));
			remove_tree(tmp);
			return -1;
		}
	}
	if (rename(tmp, dir) < 0) {
		dojo_error_set("%s: %s", dir, strerror(errno));
		if (exists)
			rename(old, dir);
		remove_tree(tmp);
		return -1;
	}
	if (exists)
		remove_tree(old);
	if (!log)
		return 0;
	for (i = 0; i < lib->nfn; i++)
		log_function(log, lib, &lib->fn[i]);
	for (i = 0; i < lib->nfam; i++) {
		fprintf(log, "%s: the family of", lib->fam[i].func);
		for (m = 0; m < lib->fam[i].nmember; m++)
			fprintf(log, "%s %s", m ? "," : "",
			    lib->fn[lib->fam[i].member[m]].func);
		fprintf(log, "; the naive form for other extents\n");
	}
	fprintf(log, "wrote %s: %d function%s, %d famil%s (make -C %s check)\n",
	    dir, lib->nfn, lib->nfn == 1 ? "" : "s", lib->nfam,
	    lib->nfam == 1 ? "y" : "ies", dir);
	return 0;
}
