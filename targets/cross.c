/* cross.c: kernels for another machine, cross-compiled into a standalone
 * program and run through qemu-user or a runner */
#include "config.h"
#include "targets/cross.h"
#include "targets/c.h"
#include "src/util/error.h"
#include "src/util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const struct dojo_cross_variant *
dojo_cross_variant(const struct dojo_cross *x, const char *name)
{
	struct dojo_strbuf sb;
	int i;

	if (!name)
		name = "";
	for (i = 0; i < x->nvariants; i++)
		if (strcmp(x->variants[i].name, name) == 0)
			return &x->variants[i];
	dojo_strbuf_init(&sb);
	for (i = 1; i < x->nvariants; i++)
		dojo_strbuf_printf(&sb, "%s%s", i > 1 ? ", " : "",
		    x->variants[i].name);
	dojo_error_set("unknown variant '%s' (%s)", name, sb.s ? sb.s :
	    "none");
	dojo_strbuf_release(&sb);
	return NULL;
}

bool
dojo_on_path(const char *prog)
{
	const char *path = getenv("PATH"), *p;
	char file[4096];
	size_t n;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	for (p = path ? path : "/usr/bin:/bin"; *p; p += n + (p[n] == ':')) {
		n = strcspn(p, ":");
		snprintf(file, sizeof file, "%.*s/%s", (int)n, p, prog);
		if (n && access(file, X_OK) == 0)
			return true;
	}
	return false;
}

bool
dojo_cross_runner(const char *target, char *out, size_t len)
{
	const char *file = getenv("PERFDOJO_RUNNERS");
	const char *config = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char path[4096], line[4096], *p;
	size_t base = strcspn(target, ":"), n;
	bool found = false;
	FILE *f;

	if (file && *file)
		snprintf(path, sizeof path, "%s", file);
	else if (config && *config)
		snprintf(path, sizeof path, "%s/perfdojo/runners", config);
	else
		snprintf(path, sizeof path, "%s/.config/perfdojo/runners",
		    home ? home : "");
	f = fopen(path, "r");
	out[0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "#\n")] = '\0';
		p = line + strspn(line, " \t");
		n = strcspn(p, " \t");
		if (!n)
			continue;
		/* the target with its variant wins over the bare one */
		if ((n == strlen(target) && !strncmp(p, target, n)) ||
		    (!found && n == base && !strncmp(p, target, n))) {
			found = n == strlen(target);
			p += n + strspn(p + n, " \t");
			snprintf(out, len, "%s", p);
		}
	}
	if (f)
		fclose(f);
	return out[0] != '\0';
}

bool
dojo_cross_compiler(const struct dojo_cross *x,
    const struct dojo_cross_variant *v, char *out, size_t len)
{
	const char *cc = v && v->cc ? v->cc : x->cc;
	const char *home = x->home_env ? getenv(x->home_env) : NULL;
	bool found = dojo_on_path(cc);
	int i;

	snprintf(out, len, "%s", cc);
	if (found || (v && v->cc) || !x->home_default)
		return found;
	for (i = 0; i < 2; i++) {
		if (i == 0 && (!home || !*home))
			continue;
		snprintf(out, len, "%s/bin/%s", i == 0 ? home :
		    x->home_default, cc);
		if (access(out, X_OK) == 0)
			return true;
	}
	snprintf(out, len, "%s", cc);
	return false;
}

bool
dojo_cross_installed(const struct dojo_cross *x,
    const struct dojo_cross_variant *v, char *missing, size_t len)
{
	char cc[4096];

	if (!dojo_cross_compiler(x, v, cc, sizeof cc)) {
		snprintf(missing, len, "%s", cc);
		return false;
	}
	if (x->qemu && !dojo_on_path(x->qemu)) {
		snprintf(missing, len, "%s", x->qemu);
		return false;
	}
	return true;
}

/*
 * The standalone program: the kernel, then a main of its own.
 */

/* Bytes of buffer "b" as a kernel argument. */
static unsigned long long
arg_bytes(dojo_program *prog, int b)
{
	return dojo_dtype_size(dojo_buffer_dtype(prog, b)) *
	    (unsigned long long)dojo_buffer_elements(prog, b);
}

const char dojo_cross_io[] =
"\n"
"/* The standalone program of a cross target: the kernel's arguments from\n"
" * DIR/NAME.bin, its outputs to DIR/NAME.out, REPS timed runs (after the\n"
" * first) to DIR/times in nanoseconds, and the machine it ran on to\n"
" * DIR/machine.  Usage: PROGRAM DIR [REPS] */\n"
"#include <stdio.h>\n"
"#include <stdlib.h>\n"
"#include <string.h>\n"
"#include <time.h>\n"
"#include <unistd.h>\n"
"#include <sys/utsname.h>\n"
"\n"
"static FILE *\n"
"dojo_open(const char *dir, const char *name, const char *ext,\n"
"    const char *mode)\n"
"{\n"
"\tchar path[4096];\n"
"\tFILE *f;\n"
"\n"
"\tsnprintf(path, sizeof path, \"%s/%s%s\", dir, name, ext);\n"
"\tf = fopen(path, mode);\n"
"\tif (!f) {\n"
"\t\tperror(path);\n"
"\t\texit(2);\n"
"\t}\n"
"\treturn f;\n"
"}\n"
"\n"
"static void\n"
"dojo_machine(const char *dir)\n"
"{\n"
"\tFILE *f = dojo_open(dir, \"machine\", \"\", \"w\"), *c;\n"
"\tchar line[512], model[256] = \"\";\n"
"\tstruct utsname u;\n"
"\n"
"\tc = fopen(\"/proc/cpuinfo\", \"r\");\n"
"\twhile (c && fgets(line, sizeof line, c) && !model[0]) {\n"
"\t\tchar *v = strchr(line, ':');\n"
"\n"
"\t\tif (!v || (strncmp(line, \"model name\", 10) &&\n"
"\t\t    strncmp(line, \"uarch\", 5) && strncmp(line, \"CPU part\", 8)))\n"
"\t\t\tcontinue;\n"
"\t\tfor (v++; *v == ' ' || *v == '\\t'; v++)\n"
"\t\t\t;\n"
"\t\tv[strcspn(v, \"\\n\")] = '\\0';\n"
"\t\tsnprintf(model, sizeof model, \"%s\", v);\n"
"\t}\n"
"\tif (c)\n"
"\t\tfclose(c);\n"
"\tif (uname(&u) < 0)\n"
"\t\tstrcpy(u.machine, \"unknown\");\n"
"\tfprintf(f, \"%s, %ld cpus, %s\\n\", u.machine,\n"
"\t    sysconf(_SC_NPROCESSORS_ONLN), model[0] ? model : \"unknown\");\n"
"\tfclose(f);\n"
"}\n"
"\n"
"/* the repetitions of PROGRAM DIR [REPS]; exits 2 on a usage error */\n"
"static int\n"
"dojo_reps(int argc, char **argv)\n"
"{\n"
"\tif (argc < 2) {\n"
"\t\tfprintf(stderr, \"usage: %s DIR [REPS]\\n\", argv[0]);\n"
"\t\texit(2);\n"
"\t}\n"
"\treturn argc > 2 ? atoi(argv[2]) : 0;\n"
"}\n"
"\n"
"static double\n"
"dojo_now(void)\n"
"{\n"
"\tstruct timespec t;\n"
"\n"
"\tclock_gettime(CLOCK_MONOTONIC, &t);\n"
"\treturn t.tv_sec * 1e9 + t.tv_nsec;\n"
"}\n"
"\n";

static const char driver[] =
"int\n"
"main(int argc, char **argv)\n"
"{\n"
"\tvoid *args[DOJO_NARGS + 1], *pristine[DOJO_NARGS + 1];\n"
"\tint reps = dojo_reps(argc, argv), i, r;\n"
"\tFILE *f;\n"
"\n"
"\tfor (i = 0; i < DOJO_NARGS; i++) {\n"
"\t\tsize_t n = (dojo_bytes[i] + 63) / 64 * 64;\n"
"\n"
"\t\targs[i] = aligned_alloc(64, n ? n : 64);\n"
"\t\tpristine[i] = dojo_inout[i] ? malloc(n ? n : 1) : NULL;\n"
"\t\tif (!args[i] || (dojo_inout[i] && !pristine[i])) {\n"
"\t\t\tfprintf(stderr, \"out of memory\\n\");\n"
"\t\t\treturn 2;\n"
"\t\t}\n"
"\t\tf = dojo_open(argv[1], dojo_names[i], \".bin\", \"rb\");\n"
"\t\tif (fread(args[i], 1, dojo_bytes[i], f) != dojo_bytes[i]) {\n"
"\t\t\tfprintf(stderr, \"%s.bin: short\\n\", dojo_names[i]);\n"
"\t\t\treturn 2;\n"
"\t\t}\n"
"\t\tfclose(f);\n"
"\t\tif (pristine[i])\n"
"\t\t\tmemcpy(pristine[i], args[i], dojo_bytes[i]);\n"
"\t}\n"
"\tdojo_kernel(args);\n"
"\tfor (i = 0; i < DOJO_NARGS; i++) {\n"
"\t\tif (!dojo_writes[i])\n"
"\t\t\tcontinue;\n"
"\t\tf = dojo_open(argv[1], dojo_names[i], \".out\", \"wb\");\n"
"\t\tif (fwrite(args[i], 1, dojo_bytes[i], f) != dojo_bytes[i] ||\n"
"\t\t    fclose(f) != 0) {\n"
"\t\t\tfprintf(stderr, \"%s.out: cannot write\\n\", dojo_names[i]);\n"
"\t\t\treturn 2;\n"
"\t\t}\n"
"\t}\n"
"\tdojo_machine(argv[1]);\n"
"\tif (reps <= 0)\n"
"\t\treturn 0;\n"
"\tf = dojo_open(argv[1], \"times\", \"\", \"w\");\n"
"\tfor (r = 0; r < reps; r++) {\n"
"\t\tdouble t0;\n"
"\n"
"\t\tfor (i = 0; i < DOJO_NARGS; i++)\n"
"\t\t\tif (pristine[i])\n"
"\t\t\t\tmemcpy(args[i], pristine[i], dojo_bytes[i]);\n"
"\t\tt0 = dojo_now();\n"
"\t\tdojo_kernel(args);\n"
"\t\tfprintf(f, \"%.0f\\n\", dojo_now() - t0);\n"
"\t}\n"
"\treturn fclose(f) != 0;\n"
"}\n";

void
dojo_cross_args(struct dojo_strbuf *out, dojo_program *prog)
{
	int b, n = 0, pass;

	dojo_strbuf_puts(out, "\n/* the kernel's arguments */\n");
	for (pass = 0; pass < 4; pass++) {
		static const char *const heads[] = {
			"static const char *const dojo_names[] = {",
			"static const unsigned long long dojo_bytes[] = {",
			"static const int dojo_writes[] = {",
			"static const int dojo_inout[] = {",
		};

		dojo_strbuf_printf(out, "%s", heads[pass]);
		for (b = 0, n = 0; b < dojo_program_n_buffers(prog); b++) {
			enum dojo_role r = dojo_buffer_role(prog, b);

			if (r == DOJO_TEMP)
				continue;
			dojo_strbuf_puts(out, n++ ? ", " : " ");
			if (pass == 0)
				dojo_strbuf_printf(out, "\"%s\"",
				    dojo_buffer_name(prog, b));
			else if (pass == 1)
				dojo_strbuf_printf(out, "%lluULL",
				    arg_bytes(prog, b));
			else if (pass == 2)
				dojo_strbuf_printf(out, "%d", r == DOJO_OUT ||
				    r == DOJO_INOUT);
			else
				dojo_strbuf_printf(out, "%d", r == DOJO_INOUT);
		}
		dojo_strbuf_puts(out, n ? " };\n" : " 0 };\n");
	}
	dojo_strbuf_printf(out, "#define DOJO_NARGS %d\n", n);
	dojo_strbuf_puts(out, dojo_cross_io);
}

int
dojo_cross_emit(struct dojo_strbuf *out, dojo_program *prog, bool exact)
{
	if (dojo_c_emit(out, prog, exact) < 0)
		return -1;
	dojo_cross_args(out, prog);
	dojo_strbuf_puts(out, driver);
	return out->oom ? dojo_error_set("out of memory") : 0;
}

/*
 * Compiling and running.
 */

/* The first line of the file "path" that is not blank, into "out". */
static void
first_line(char *out, size_t len, const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	out[0] = '\0';
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0]) {
			size_t k = strnlen(line, len - 1);

			memcpy(out, line, k);
			out[k] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* The outcome of a command's wait status "st" into "res"; "what" names
 * the command, "err" its complaints. */
static void
outcome(struct dojo_run_result *res, int st, double limit, const char *what,
    const char *err, enum dojo_outcome failed)
{
	char line[256];

	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		res->outcome = DOJO_OUTCOME_OK;
		return;
	}
	first_line(line, sizeof line, err);
	if (limit > 0 && WIFEXITED(st) && (WEXITSTATUS(st) == 124 ||
	    WEXITSTATUS(st) == 137)) {
		res->outcome = DOJO_OUTCOME_TIMEOUT;
		snprintf(res->message, sizeof res->message, "%s ran past the "
		    "time limit (%.0f s)", what, limit);
		return;
	}
	res->outcome = failed;
	if (line[0])
		snprintf(res->message, sizeof res->message, "%s: %s", what,
		    line);
	else if (WIFSIGNALED(st))
		snprintf(res->message, sizeof res->message, "%s: killed by "
		    "signal %d", what, WTERMSIG(st));
	else
		snprintf(res->message, sizeof res->message, "%s: status %d",
		    what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Append the words of "text" to "argv" at "*n" (at most "max"). */
static int
add_words(const char **argv, int *n, int max, const char *text,
    char ***keep)
{
	char **w;
	int k, i;

	if (!text || !*text)
		return 0;
	w = dojo_split_words(text, &k);
	if (!w)
		return dojo_error_set("out of memory");
	for (i = 0; i < k && *n < max; i++)
		argv[(*n)++] = w[i];
	*keep = w;
	return *n < max ? 0 : dojo_error_set("too many words");
}

static int
write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		if (f)
			fclose(f);
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	return 0;
}

static int
read_bytes(const char *path, void *p, size_t n, char *why, size_t len)
{
	FILE *f = fopen(path, "rb");
	int c;

	if (!f) {
		snprintf(why, len, "no %s came back", strrchr(path, '/') + 1);
		return -1;
	}
	if (fread(p, 1, n, f) != n || (c = fgetc(f)) != EOF) {
		fclose(f);
		snprintf(why, len, "%s is not %zu bytes", strrchr(path, '/') + 1,
		    n);
		return -1;
	}
	fclose(f);
	return 0;
}

/* The times of "path" (nanoseconds, one a line) into "res". */
static void
read_times(struct dojo_run_result *res, const char *path, int max)
{
	double *t = calloc(max > 0 ? max : 1, sizeof *t);
	FILE *f = fopen(path, "r");
	int n = 0;

	while (t && f && n < max && fscanf(f, "%lf", &t[n]) == 1)
		n++;
	if (f)
		fclose(f);
	if (n > 0) {
		dojo_sort_doubles(t, n);
		dojo_median_ci(t, n, &res->median_ns, &res->ci_low_ns,
		    &res->ci_high_ns);
		res->reps = n;
	}
	free(t);
}

/* Remove the files of the folder "dir", then it. */
static void
remove_dir(const char *dir, const char *const *names, int n)
{
	char path[4200];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static double
now_unix(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int
dojo_cross_run(const struct dojo_cross *x, dojo_program *prog,
    dojo_data *data, const struct dojo_cross_options *opt,
    struct dojo_cross_result *res)
{
	const struct dojo_cross_variant *v;
	char base[2048], io[2100], src[2100], exe[2100], err[2100];
	char path[4400], reps[32], missing[128], why[256], cpu[128];
	const char *argv[256];
	char **w1 = NULL, **w2 = NULL, **w3 = NULL;
	const char *tmp = getenv("TMPDIR"), *runner = NULL;
	char name[64], configured[4096], cc[4096];
	char **w0 = NULL, **w4 = NULL;
	struct dojo_strbuf sb;
	int n = 0, b, st, rc = -1;

	memset(res, 0, sizeof *res);
	if (!(v = dojo_cross_variant(x, opt->variant)))
		return -1;
	/* the runner: given, the runners file's, or none ("-") */
	if (!opt->runner) {
		snprintf(name, sizeof name, "%s%s%s", x->name,
		    opt->variant && *opt->variant ? ":" : "",
		    opt->variant ? opt->variant : "");
		if (dojo_cross_runner(name, configured, sizeof configured))
			runner = configured;
	} else if (strcmp(opt->runner, "-") != 0) {
		runner = opt->runner;
	}
	/* only the compiler is needed here when a runner runs the program */
	if (!dojo_cross_installed(x, v, missing, sizeof missing) &&
	    (!runner || !x->qemu || strcmp(missing, x->qemu) != 0))
		return dojo_error_set("%s is not installed (Debian: apt-get "
		    "install %s)", missing, x->packages);
	if (x->device && !runner && !v->emulated && access(x->device,
	    F_OK) != 0)
		return dojo_error_set("target %s: no device here (no %s): "
		    "emit still writes its code; --runner CMD runs it on a "
		    "machine with one, and %s:emu checks it on this CPU",
		    x->name, x->device, x->name);
	dojo_cross_compiler(x, v, cc, sizeof cc);
	snprintf(base, sizeof base, "%s/perfdojo-x-XXXXXX", tmp && *tmp ?
	    tmp : "/tmp");
	if (!mkdtemp(base))
		return dojo_error_set("%s: %s", base, strerror(errno));
	snprintf(io, sizeof io, "%s/io", base);
	snprintf(src, sizeof src, "%s/%s", base, x->source);
	snprintf(exe, sizeof exe, "%s/k", base);
	snprintf(err, sizeof err, "%s/err", base);
	if (mkdir(io, 0700) < 0) {
		dojo_error_set("%s: %s", io, strerror(errno));
		goto out;
	}
	dojo_strbuf_init(&sb);
	if (x->emit(&sb, prog, opt->exact) < 0 ||
	    write_bytes(src, sb.s, sb.len) < 0) {
		dojo_strbuf_release(&sb);
		goto out;
	}
	dojo_strbuf_release(&sb);
	/* compile: the mode, the variant's flags, the caller's */
	argv[n++] = cc;
	if (add_words(argv, &n, 240, v->mode[opt->exact] ?
	    v->mode[opt->exact] : x->mode[opt->exact], &w0) < 0 ||
	    add_words(argv, &n, 240, v->cflags, &w1) < 0 ||
	    add_words(argv, &n, 240, opt->cflags, &w2) < 0)
		goto out;
	argv[n++] = "-o";
	argv[n++] = exe;
	argv[n++] = src;
	if (add_words(argv, &n, 240, v->libs ? v->libs : x->libs, &w4) < 0)
		goto out;
	argv[n] = NULL;
	if (dojo_spawn(argv, err, opt->timeout, &st) < 0)
		goto out;
	outcome(&res->run, st, opt->timeout, cc, err,
	    DOJO_OUTCOME_COMPILE_ERROR);
	if (res->run.outcome != DOJO_OUTCOME_OK) {
		rc = 0;
		goto out;
	}
	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		if (dojo_buffer_role(prog, b) == DOJO_TEMP)
			continue;
		snprintf(path, sizeof path, "%s/%s.bin", io,
		    dojo_buffer_name(prog, b));
		if (write_bytes(path, dojo_data_buffer(data, b),
		    arg_bytes(prog, b)) < 0)
			goto out;
	}
	/* run: the runner, qemu-user with the variant's processor, or the
	 * program itself */
	n = 0;
	if (runner && *runner) {
		if (add_words(argv, &n, 240, runner, &w3) < 0)
			goto out;
	} else if (x->qemu) {
		argv[n++] = x->qemu;
		if (v->qemu_cpu) {
			snprintf(cpu, sizeof cpu, "%s", v->qemu_cpu);
			argv[n++] = "-cpu";
			argv[n++] = cpu;
		}
		res->emulated = true;
		snprintf(res->emulator, sizeof res->emulator, "%s", x->qemu);
	}
	if (v->emulated) {
		/* wherever it runs, an emulation's time is not the target's */
		res->emulated = true;
		snprintf(res->emulator, sizeof res->emulator, "%s:%s",
		    x->name, v->name);
	}
	snprintf(reps, sizeof reps, "%d", opt->reps > 0 ? opt->reps : 0);
	argv[n++] = exe;
	argv[n++] = io;
	argv[n++] = reps;
	argv[n] = NULL;
	res->run.began = now_unix();
	if (dojo_spawn(argv, err, opt->timeout, &st) < 0)
		goto out;
	res->run.ended = now_unix();
	res->run.wall_s = res->run.ended - res->run.began;
	outcome(&res->run, st, opt->timeout, runner && *runner ?
	    "the runner" : x->qemu ? x->qemu : "the program", err,
	    DOJO_OUTCOME_CRASH);
	snprintf(path, sizeof path, "%s/machine", io);
	first_line(res->machine, sizeof res->machine, path);
	if (res->run.outcome != DOJO_OUTCOME_OK) {
		rc = 0;
		goto out;
	}
	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		enum dojo_role r = dojo_buffer_role(prog, b);

		if (r != DOJO_OUT && r != DOJO_INOUT)
			continue;
		snprintf(path, sizeof path, "%s/%s.out", io,
		    dojo_buffer_name(prog, b));
		if (read_bytes(path, dojo_data_buffer(data, b),
		    arg_bytes(prog, b), why, sizeof why) < 0) {
			res->run.outcome = DOJO_OUTCOME_CRASH;
			snprintf(res->run.message, sizeof res->run.message,
			    "the program's outputs: %s", why);
			rc = 0;
			goto out;
		}
	}
	if (opt->reps > 0) {
		snprintf(path, sizeof path, "%s/times", io);
		read_times(&res->run, path, opt->reps);
		if (!res->run.reps) {
			res->run.outcome = DOJO_OUTCOME_CRASH;
			snprintf(res->run.message, sizeof res->run.message,
			    "no times came back");
		}
	}
	rc = 0;
out:
	free(w0);
	free(w4);
	free(w1);
	free(w2);
	free(w3);
	/* the files a run leaves: the inputs, outputs, times, machine */
	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		snprintf(path, sizeof path, "%s/%s.bin", io,
		    dojo_buffer_name(prog, b));
		unlink(path);
		snprintf(path, sizeof path, "%s/%s.out", io,
		    dojo_buffer_name(prog, b));
		unlink(path);
	}
	{
		static const char *const left[] = { "times", "machine" };
		const char *const mine[] = { x->source, "k", "err" };

		remove_dir(io, left, 2);
		remove_dir(base, mine, 3);
	}
	return rc;
}
