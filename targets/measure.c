/* measure.c: measurements of kernels, checked and kept in SQLite */
#include "config.h"
#include "targets/measure.h"
#include "ir/data.h"
#include "ir/interp.h"
#include "src/util/strbuf.h"
#include "targets/c.h"
#include "src/util/sha1.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void
dojo_measure_options_init(struct dojo_measure_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->run.timeout = 60;
	opt->run.memory = DOJO_RUN_MEMORY;
	opt->run.time = true;
	opt->run.precision = 0.01;
	opt->run.min_reps = 5;
	opt->run.max_reps = 1000;
	opt->run.budget = 2.0;
}

/* The first line that the compiler "cc" (split on blanks, no shell)
 * prints for --version into "out"; empty when it prints none. */
static void
compiler_version(char *out, size_t len, const char *cc)
{
	char **words, **argv = NULL, *nl, version[] = "--version";
	int n = 0, fd[2] = { -1, -1 }, null, st, i;
	size_t got = 0;
	ssize_t k;
	pid_t pid;

	out[0] = '\0';
	words = dojo_split_words(cc, &n);
	if (words && n > 0)
		argv = malloc((n + 2) * sizeof *argv);
	if (!argv || pipe(fd) < 0)
		goto out_free;
	for (i = 0; i < n; i++)
		argv[i] = words[i];
	argv[n] = version;
	argv[n + 1] = NULL;
	pid = fork();
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 2);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		alarm(10);	/* kept across exec: a compiler that hangs */
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	fd[1] = -1;
	if (pid < 0)
		goto out_free;
	while (got < len - 1 && (k = read(fd[0], out + got, len - 1 - got)) != 0)
		if (k > 0)
			got += k;
		else if (errno != EINTR)
			break;
	out[got] = '\0';
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	close(fd[0]);
	fd[0] = -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
out_free:
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	free(argv);
	free(words);
}

/* What makes a time comparable: target and its code generator, CPU,
 * compiler and flags. */
static void
fingerprint(char out[41], const struct dojo_measure_options *opt)
{
	char cpu[512] = "", cc[256], text[1400], line[512];
	const char *compiler = opt->run.cc ? opt->run.cc : getenv("CC");
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "model name", 10) == 0) {
			snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') ?
			    strchr(line, ':') + 2 : line);
			cpu[strcspn(cpu, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
	if (!compiler || !*compiler)
		compiler = "cc";
	compiler_version(cc, sizeof cc, compiler);
	snprintf(text, sizeof text, "target c\ncodegen %d\ncpu %s\ncc %s\n"
	    "flags %s\nthreads %s\n", DOJO_C_CODEGEN, cpu, cc,
	    opt->run.cflags ? opt->run.cflags :
	    DOJO_C_CFLAGS, getenv("OMP_NUM_THREADS") ?
	    getenv("OMP_NUM_THREADS") : "all");
	dojo_sha1_hex(out, "", 0, text, strlen(text));
}

static int
db_fail(sqlite3 *db, const char *path)
{
	dojo_error_set("%s: %s", path, db ? sqlite3_errmsg(db) :
	    "cannot open");
	sqlite3_close(db);
	return -1;
}

/* Open the database at "path", making its folder and table. */
static int
db_open(sqlite3 **out, const char *path)
{
	char dir[1024], *slash;
	sqlite3 *db = NULL;

	snprintf(dir, sizeof dir, "%s", path);
	for (slash = dir + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			*slash = '/';
			break;
		}
		*slash = '/';
	}
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return db_fail(db, path);
	sqlite3_busy_timeout(db, 30000);
	if (sqlite3_exec(db, "PRAGMA journal_mode=WAL;"
	    "CREATE TABLE IF NOT EXISTS measurements ("
	    " state TEXT NOT NULL, fingerprint TEXT NOT NULL,"
	    " outcome TEXT NOT NULL, message TEXT,"
	    " median_ns REAL, ci_low_ns REAL, ci_high_ns REAL, reps INTEGER,"
	    " measured_at TEXT NOT NULL,"
	    " PRIMARY KEY (state, fingerprint));", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return db_fail(db, path);
	*out = db;
	return 0;
}

static int
db_lookup(sqlite3 *db, struct dojo_measurement *m)
{
	sqlite3_stmt *st;
	const char *outcome;
	int found = 0, o;

	if (sqlite3_prepare_v2(db, "SELECT outcome, message, median_ns, "
	    "ci_low_ns, ci_high_ns, reps FROM measurements WHERE state = ? "
	    "AND fingerprint = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, m->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->fingerprint, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		outcome = (const char *)sqlite3_column_text(st, 0);
		for (o = 0; o <= DOJO_OUTCOME_WRONG; o++)
			if (outcome && !strcmp(outcome, dojo_outcome_name(o)))
				m->outcome = o;
		snprintf(m->message, sizeof m->message, "%s",
		    sqlite3_column_text(st, 1) ?
		    (const char *)sqlite3_column_text(st, 1) : "");
		m->median_ns = sqlite3_column_double(st, 2);
		m->ci_low_ns = sqlite3_column_double(st, 3);
		m->ci_high_ns = sqlite3_column_double(st, 4);
		m->reps = sqlite3_column_int(st, 5);
		m->cached = true;
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

static int
db_store(sqlite3 *db, const char *path, const struct dojo_measurement *m)
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);
	int rc;

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO measurements "
	    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return dojo_error_set("%s: %s", path, sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, m->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->fingerprint, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, dojo_outcome_name(m->outcome), -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(st, 4, m->message, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, m->median_ns);
	sqlite3_bind_double(st, 6, m->ci_low_ns);
	sqlite3_bind_double(st, 7, m->ci_high_ns);
	sqlite3_bind_int(st, 8, m->reps);
	sqlite3_bind_text(st, 9, when, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dojo_error_set("%s: %s", path, sqlite3_errmsg(db));
	return 0;
}

/* Compare the outputs of "got" with "want" (same kernel arguments): the
 * first element out of tolerance into "m". */
static bool
outputs_agree(dojo_program *prog, dojo_data *got, dojo_program *ref,
    dojo_data *want, struct dojo_measurement *m)
{
	uint64_t i, n;
	double x, y, tol;
	int b, r;

	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		enum dojo_role role = dojo_buffer_role(prog, b);
		enum dojo_dtype t = dojo_buffer_dtype(prog, b);

		if (role != DOJO_OUT && role != DOJO_INOUT)
			continue;
		r = dojo_program_find_buffer(ref, dojo_buffer_name(prog, b));
		if (r < 0)
			continue;
		n = dojo_data_count(got, b);
		for (i = 0; i < n; i++) {
			switch (t) {
			case DOJO_F32:
				x = ((float *)dojo_data_buffer(got, b))[i];
				y = ((float *)dojo_data_buffer(want, r))[i];
				tol = 1e-4 * fabs(y) + 1e-5;
				break;
			case DOJO_F64:
				x = ((double *)dojo_data_buffer(got, b))[i];
				y = ((double *)dojo_data_buffer(want, r))[i];
				tol = 1e-10 * fabs(y) + 1e-12;
				break;
			case DOJO_I32:
				x = ((int32_t *)dojo_data_buffer(got, b))[i];
				y = ((int32_t *)dojo_data_buffer(want, r))[i];
				tol = 0;
				break;
			default:
				x = (double)((int64_t *)dojo_data_buffer(got, b))[i];
				y = (double)((int64_t *)dojo_data_buffer(want, r))[i];
				tol = 0;
				break;
			}
			if (fabs(x - y) > tol || (isnan(x) != isnan(y))) {
				snprintf(m->message, sizeof m->message, "%s[%llu] "
				    "is %.9g, expected %.9g",
				    dojo_buffer_name(prog, b),
				    (unsigned long long)i, x, y);
				return false;
			}
		}
	}
	return true;
}

int
dojo_measure(dojo_program *prog, dojo_program *reference,
    const struct dojo_measure_options *opt, struct dojo_measurement *m)
{
	dojo_data *want = NULL;
	int rc = dojo_measure_against(prog, reference, &want, opt, m);

	dojo_data_free(want);
	return rc;
}

int
dojo_measure_against(dojo_program *prog, dojo_program *reference,
    dojo_data **wantp, const struct dojo_measure_options *opt,
    struct dojo_measurement *m)
{
	char path[1024];
	const char *home = getenv("HOME");
	struct dojo_run_result res;
	dojo_data *got = NULL, *want = *wantp;
	sqlite3 *db = NULL;
	int rc = -1;

	memset(m, 0, sizeof *m);
	if (!reference)
		reference = prog;
	dojo_program_id(m->state, prog);
	fingerprint(m->fingerprint, opt);
	if (opt->db)
		snprintf(path, sizeof path, "%s", opt->db);
	else if (getenv("PERFDOJO_DB"))
		snprintf(path, sizeof path, "%s", getenv("PERFDOJO_DB"));
	else
		snprintf(path, sizeof path, "%s/.cache/perfdojo/measurements.db",
		    home && *home ? home : "/tmp");
	if (db_open(&db, path) < 0)
		return -1;
	if (!opt->fresh && db_lookup(db, m)) {
		sqlite3_close(db);
		return 0;
	}
	if (!want) {
		/* the interpreter's outputs, once per caller's "*wantp" */
		want = dojo_data_new(reference, 8ULL << 30);
		if (!want)
			goto out;
		dojo_data_randomize(want, 1);
		if (dojo_interp_run_limited(reference, want,
		    opt->run.timeout) < 0) {
			dojo_data_free(want);
			goto out;
		}
		*wantp = want;
	}
	got = dojo_data_new(prog, 8ULL << 30);
	if (!got)
		goto out;
	dojo_data_randomize(got, 1);
	if (dojo_c_run(prog, got, &opt->run, &res) < 0)
		goto out;
	m->outcome = res.outcome;
	snprintf(m->message, sizeof m->message, "%s", res.message);
	m->median_ns = res.median_ns;
	m->ci_low_ns = res.ci_low_ns;
	m->ci_high_ns = res.ci_high_ns;
	m->reps = res.reps;
	if (m->outcome == DOJO_OUTCOME_OK &&
	    !outputs_agree(prog, got, reference, want, m))
		m->outcome = DOJO_OUTCOME_WRONG;
	if (db_store(db, path, m) < 0)
		goto out;
	rc = 0;
out:
	dojo_data_free(got);
	sqlite3_close(db);
	return rc;
}
