/* cmd_lib.c: perfdojo lib: tuned kernels as a library others link
 * (doc/library.md) */
#include "config.h"
#include "src/cmd/command.h"
#include "src/core/library.h"
#include "src/core/session.h"
#include "src/util/strbuf.h"
#include "targets/target.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_FROM = 256, OPT_TUNE, OPT_BUDGET, OPT_SECONDS, OPT_THREADS };

struct lib_args {
	const char *name, *target, *from, *budget, *seconds, *threads;
	bool exact, tune;
};

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The whole of the file "path", or NULL with the error. */
static char *
read_text(const char *path)
{
	struct dojo_strbuf sb;

	dojo_strbuf_init(&sb);
	if (dojo_strbuf_read_file(&sb, path) < 0) {
		dojo_strbuf_release(&sb);
		return NULL;
	}
	if (!sb.s)
		dojo_strbuf_puts(&sb, "");
	return dojo_strbuf_detach(&sb);
}

/* The kernel's name of "path": its last part without ".session" and
 * ".dojo". */
static void
kernel_name(char *out, size_t len, const char *path)
{
	char buf[4096], *base;
	size_t n;

	snprintf(buf, sizeof buf, "%s", path);
	for (n = strlen(buf); n > 1 && buf[n - 1] == '/'; n--)
		buf[n - 1] = '\0';
	base = basename(buf);
	n = strlen(base);
	if (n > 8 && strcmp(base + n - 8, ".session") == 0)
		base[n -= 8] = '\0';
	if (n > 5 && strcmp(base + n - 5, ".dojo") == 0)
		base[n - 5] = '\0';
	snprintf(out, len, "%s", base);
}

/* The naive kernel's text of session "s": the file's when it is the
 * session's start, else the start's, after the file's comment; a file
 * that is no state of the session is said on stderr (NULL with the
 * error). */
static char *
naive_text(const char *file, dojo_session *s)
{
	dojo_program *start = dojo_session_start(s), *prog;
	char *text = file ? read_text(file) : NULL, *canon, a[41], b[41];
	char commit[41];
	struct dojo_strbuf sb;
	const char *end = text;

	dojo_error_clear();
	if (text) {
		prog = dojo_program_parse(file, text, strlen(text));
		if (prog) {
			dojo_program_id(a, prog);
			dojo_program_id(b, start);
			dojo_program_free(prog);
			if (strcmp(a, b) == 0)
				return text;
			if (dojo_session_find_state(s, a, commit) == 0 &&
			    !*commit)
				fprintf(stderr, "perfdojo: %s: not a state of "
				    "the session %s (changed since?): the "
				    "session's start is taken\n", file,
				    dojo_session_dir(s));
		}
		dojo_error_clear();
	}
	canon = dojo_program_print(start, false);
	if (!canon) {
		free(text);
		return NULL;
	}
	/* the file's comment lines, then the start's text */
	while (end && *end == '#')
		end = strchr(end, '\n') ? strchr(end, '\n') + 1 :
		    end + strlen(end);
	dojo_strbuf_init(&sb);
	if (text)
		dojo_strbuf_add(&sb, text, end - text);
	dojo_strbuf_puts(&sb, canon);
	free(canon);
	free(text);
	return dojo_strbuf_detach(&sb);
}

/* The search of a state id's prefix (as the header and tune print it). */
struct state_prefix {
	const char *prefix;
	char commit[41];
	int found;			/* distinct states that match */
	char state[41];
};

static int
match_state(const struct dojo_session_entry *e, void *payload)
{
	struct state_prefix *sp = payload;

	if (strncmp(e->state, sp->prefix, strlen(sp->prefix)) != 0 ||
	    strcmp(e->state, sp->state) == 0)
		return 0;
	snprintf(sp->state, sizeof sp->state, "%s", e->state);
	snprintf(sp->commit, sizeof sp->commit, "%s", e->commit);
	sp->found++;
	return 0;
}

/* The commit of the state whose id begins with "rev" (4 hex digits at
 * least, one state only), into "commit"; 0, or -1. */
static int
find_state_prefix(dojo_session *s, const char *rev, char commit[41])
{
	struct state_prefix sp;

	memset(&sp, 0, sizeof sp);
	sp.prefix = rev;
	if (strlen(rev) < 4 || strlen(rev) > 40 ||
	    strspn(rev, "0123456789abcdef") != strlen(rev) ||
	    dojo_session_walk(s, match_state, &sp) < 0 || sp.found != 1)
		return -1;
	snprintf(commit, 41, "%s", sp.commit);
	return 0;
}

/* Add the session "dir" (of the kernel file "file", which may be NULL or
 * missing) to "lib": the state "rev" (NULL: best/TARGET, else the
 * current one). */
static int
add_session(dojo_lib *lib, const char *dir, const char *file,
    const char *rev, const char *target, const char *what)
{
	struct dojo_lib_function f;
	struct dojo_session_entry e;
	char kernel[256], commit[41] = "", **path = NULL;
	char *text = NULL;
	dojo_session *s = dojo_session_open(dir);
	bool current = false;
	int rc = -1, n;

	if (!s)
		return -1;
	memset(&f, 0, sizeof f);
	if (rev) {
		if (dojo_session_entry(s, rev, &e) == 0)
			snprintf(commit, sizeof commit, "%s", e.commit);
		else if (find_state_prefix(s, rev, commit) < 0) {
			dojo_error_set("%s: no state or revision '%s' in the "
			    "session %s", what, rev, dir);
			goto out;
		}
	} else if (dojo_session_best(s, target, commit) < 0) {
		snprintf(commit, sizeof commit, "%s", dojo_session_head(s));
		current = true;
	}
	dojo_error_clear();
	if (dojo_session_entry(s, commit, &e) < 0)
		goto out;
	/* the current state: measured for the target, or the start (the
	 * naive form, measured or not) */
	if (current && e.depth > 0 && (!e.m.measured ||
	    strcmp(e.m.target, target) != 0)) {
		dojo_error_set("%s: no state for target %s in the session %s "
		    "(no tag best/%s, and its current state is not measured "
		    "for %s): name one, %s=STATE", what, target, dir, target,
		    target, file ? file : "KERNEL.dojo");
		goto out;
	}
	path = dojo_session_path(s, commit);
	text = naive_text(file && access(file, R_OK) == 0 ? file : NULL, s);
	if (!path || !text)
		goto out;
	for (n = 0; path[n]; n++)
		;
	kernel_name(kernel, sizeof kernel, file ? file : dir);
	f.kernel = kernel;
	f.source = dir;
	f.text = text;
	f.moves = (const char *const *)path;
	f.nmoves = n;
	f.state = e.state;
	f.tuned = n > 0;
	if (e.m.measured && strcmp(e.m.target, target) == 0 &&
	    strcmp(e.m.outcome, "ok") == 0 && n > 0) {
		f.speedup = e.m.speedup;
		f.confirmed = e.m.confirmed;
		f.low = e.m.speedup_low;
		f.high = e.m.speedup_high;
		f.fingerprint = e.m.fingerprint;
		f.when = e.m.when;
	}
	rc = dojo_lib_add(lib, &f, what);
out:
	dojo_session_path_free(path);
	free(text);
	dojo_session_free(s);
	return rc;
}

/* One INPUT of the command line. */
static int
add_input(dojo_lib *lib, const char *arg, const char *target)
{
	struct dojo_lib_function f;
	char dir[4096], file[4096], kernel[256];
	const char *eq = strchr(arg, '=');
	size_t len = strlen(arg);
	char *text;
	int rc;

	if (eq && (size_t)(eq - arg) < sizeof file) {
		snprintf(file, sizeof file, "%.*s", (int)(eq - arg), arg);
		dojo_session_default_dir(dir, sizeof dir, file);
		if (!is_dir(dir))
			return dojo_error_set("%s: no session %s to take the "
			    "state '%s' from", arg, dir, eq + 1);
		return add_session(lib, dir, file, eq + 1, target, arg);
	}
	if (is_dir(arg)) {
		/* its kernel file: the folder's name less ".session" */
		snprintf(file, sizeof file, "%.*s", (int)(len > 8 &&
		    strcmp(arg + len - 8, ".session") == 0 ? len - 8 : 0), arg);
		return add_session(lib, arg, *file ? file : NULL, NULL, target,
		    arg);
	}
	dojo_session_default_dir(dir, sizeof dir, arg);
	if (is_dir(dir))
		return add_session(lib, dir, arg, NULL, target, arg);
	text = read_text(arg);
	if (!text)
		return -1;
	memset(&f, 0, sizeof f);
	kernel_name(kernel, sizeof kernel, arg);
	f.kernel = kernel;
	f.source = arg;
	f.text = text;
	rc = dojo_lib_add(lib, &f, arg);
	free(text);
	return rc;
}

/* Tune "file" with the default tuner (its session resumed). */
static int
tune(const char *file, const struct lib_args *a)
{
	const char *argv[12];
	int argc = 0;

	argv[argc++] = "tune";
	argv[argc++] = file;
	if (a->budget) {
		argv[argc++] = "--budget";
		argv[argc++] = a->budget;
	}
	if (a->seconds) {
		argv[argc++] = "--seconds";
		argv[argc++] = a->seconds;
	}
	if (a->threads) {
		argv[argc++] = "--threads";
		argv[argc++] = a->threads;
	}
	if (a->exact)
		argv[argc++] = "--exact";
	argv[argc] = NULL;
	printf("perfdojo lib: tuning %s\n", file);
	fflush(stdout);
	return dojo_command_tune.run(argc, (char **)argv);
}

static int
lib_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_lib;
	struct dojo_option_parser p;
	struct lib_args a;
	char name[256], **inputs;
	const char *outdir, *why;
	dojo_lib *lib = NULL;
	int c, i, n, rc = DOJO_EXIT_ERROR;

	memset(&a, 0, sizeof a);
	a.target = DOJO_TARGET_HOST;
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 'N': a.name = optarg; break;
		case 't': a.target = optarg; break;
		case 'x': a.exact = true; break;
		case OPT_FROM: a.from = optarg; break;
		case OPT_TUNE: a.tune = true; break;
		case OPT_BUDGET: a.budget = optarg; break;
		case OPT_SECONDS: a.seconds = optarg; break;
		case OPT_THREADS: a.threads = optarg; break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind >= argc)
		return dojo_command_usage(cmd, "expected OUTDIR");
	outdir = argv[optind];
	inputs = argv + optind + 1;
	n = argc - optind - 1;
	if (a.from && (n > 0 || a.tune || a.name))
		return dojo_command_usage(cmd, "--from takes no INPUT, --tune "
		    "or --name: the manifest says them");
	if (!a.from && n == 0)
		return dojo_command_usage(cmd, "expected OUTDIR and an INPUT");
	if (a.tune && !a.budget && !a.seconds)
		return dojo_command_usage(cmd, "--tune needs --budget N or "
		    "--seconds S");
	if (!a.tune && (a.budget || a.seconds || a.threads))
		return dojo_command_usage(cmd, "--budget, --seconds and "
		    "--threads go with --tune");
	for (i = 0; i < n && a.tune; i++)
		if (is_dir(inputs[i]) || strchr(inputs[i], '='))
			return dojo_command_usage(cmd, "--tune takes kernel "
			    "files, not '%s'", inputs[i]);
	if (!a.from && !a.name) {
		kernel_name(name, sizeof name, outdir);
		if (!dojo_lib_name_allowed(name, &why))
			return dojo_command_usage(cmd, "the folder's name '%s' "
			    "%s: give --name", name, why);
	}
	lib = a.from ? dojo_lib_read_manifest(a.from) :
	    dojo_lib_new(a.name ? a.name : name, a.target, a.exact, NULL);
	if (!lib)
		return dojo_command_fail();
	for (i = 0; i < n && a.tune; i++)
		if (tune(inputs[i], &a) != 0)
			goto out;
	for (i = 0; i < n; i++)
		if (add_input(lib, inputs[i], a.target) < 0)
			goto fail;
	if (dojo_lib_write(lib, outdir, stdout) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	dojo_command_fail();
out:
	dojo_lib_free(lib);
	return rc;
}

static const struct dojo_option lib_options[] = {
	{ NULL, 0, "INPUT", "a kernel file (its session FILE.session when "
	    "there is one, else its naive form), a session folder (its tag "
	    "best/T, else its current state), or KERNEL.dojo=STATE (a state "
	    "or revision of its session)" },
	{ "name", 'N', "NAME", "the library's name, the prefix of its "
	    "functions (default: OUTDIR's last part)" },
	{ "target", 't', "T", "the target (c, the default, is the one that "
	    "makes libraries)" },
	{ "exact", 'x', NULL, "the exact mode's code (libm in vector loops, "
	    "no contraction)" },
	{ "from", OPT_FROM, "MANIFEST", "rebuild the library that "
	    "MANIFEST (a manifest.json) describes" },
	{ "tune", OPT_TUNE, NULL, "first tune each kernel with the default "
	    "tuner, resuming its session" },
	{ "budget", OPT_BUDGET, "N", "with --tune: measurements for each "
	    "kernel" },
	{ "seconds", OPT_SECONDS, "S", "with --tune: seconds for each "
	    "kernel" },
	{ "threads", OPT_THREADS, "N", "with --tune: the kernels' OpenMP "
	    "threads while tuning" },
	{ NULL }
};

const struct dojo_command dojo_command_lib = {
	.name = "lib",
	.args = "OUTDIR INPUT...",
	.options = lib_options,
	.summary = "write a C library (and Python module) of tuned kernels",
	.help = "OUTDIR gets NAME.h, the sources, a Makefile (make, make "
	    "check, make bench,\nmake install PREFIX=... DESTDIR=...), NAME.pc, "
	    "a CMake package, NAME.py and\nmanifest.json (doc/library.md).\n",
	.run = lib_run,
};
