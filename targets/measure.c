/* measure.c: measurements of kernels, checked and kept in SQLite */
#include "config.h"
#include "targets/measure.h"
#include "ir/data.h"
#include "ir/interp.h"
#include "src/util/strbuf.h"
#include "targets/c.h"
#include "targets/cross.h"
#include "targets/target.h"
#include "src/util/sha1.h"
#include "src/util/clock.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/file.h>
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

void
dojo_cpu_model(char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	*out = '\0';
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "model name", 10) == 0) {
			snprintf(out, len, "%s", strchr(line, ':') ?
			    strchr(line, ':') + 2 : line);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
}

/* What makes a time comparable: target and its code generator, CPU,
 * compiler and flags. */
static void
fingerprint(char out[41], const struct dojo_measure_options *opt)
{
	char cpu[512], cc[256], text[1600], threads[16];
	const char *compiler = opt->run.cc ? opt->run.cc : getenv("CC");

	dojo_cpu_model(cpu, sizeof cpu);
	if (!compiler || !*compiler)
		compiler = "cc";
	compiler_version(cc, sizeof cc, compiler);
	/* "all" as before --threads, so that older records still match */
	if (opt->run.threads > 0)
		snprintf(threads, sizeof threads, "%d", opt->run.threads);
	else
		snprintf(threads, sizeof threads, "%s",
		    getenv("OMP_NUM_THREADS") && *getenv("OMP_NUM_THREADS") ?
		    getenv("OMP_NUM_THREADS") : "all");
	snprintf(text, sizeof text, "target c\ncodegen %d\ncpu %s\ncc %s\n"
	    "mode %s %s\nflags %s\nthreads %s\n", DOJO_C_CODEGEN, cpu, cc,
	    dojo_c_mode_name(&opt->run), dojo_c_mode_flags(&opt->run),
	    opt->run.cflags ? opt->run.cflags : DOJO_C_CFLAGS, threads);
	dojo_sha1_hex(out, "", 0, text, strlen(text));
}

/*
 * The database.  Schema 3: "measurements" keeps each state's outcome and
 * its last estimate; "runs" keeps every timed run; "hosts" the best time
 * of the host probe on each fingerprint.  Older ones are migrated on
 * open, nothing dropped: schema 1 (no "runs", user_version 0): each of
 * its measurements becomes a run marked "migrated"; schema 2: the runs'
 * "host" column and the "hosts" table are added.
 */

struct db {
	sqlite3 *h;		/* NULL: measuring without a database */
	char path[1024];
	int lock;		/* the lock file beside it, or -1 */
	const struct dojo_measure_options *opt;
};

static void
say(const struct dojo_measure_options *opt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
say(const struct dojo_measure_options *opt, const char *fmt, ...)
{
	char line[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (opt->say)
		opt->say(line, opt->say_payload);
	else
		fprintf(stderr, "perfdojo: %s\n", line);
}

/* Give up the database "db" has, saying why: the measurement goes on
 * without it. */
static void
db_drop(struct db *db, const char *why)
{
	say(db->opt, "%s: %s; measuring without the database", db->path, why);
	sqlite3_close(db->h);
	db->h = NULL;
}

static int
db_exec(struct db *db, const char *sql)
{
	return sqlite3_exec(db->h, sql, NULL, NULL, NULL);
}

static int
db_version(struct db *db, int *version, bool *old_table)
{
	sqlite3_stmt *st;
	int rc;

	*version = -1;
	*old_table = false;
	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		*version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return -1;
	if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM sqlite_master WHERE "
	    "type = 'table' AND name = 'measurements'", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	*old_table = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

#define DOJO_STR_(x) #x
#define DOJO_STR(x) DOJO_STR_(x)

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS measurements ("
	" state TEXT NOT NULL, fingerprint TEXT NOT NULL,"
	" outcome TEXT NOT NULL, message TEXT,"
	" median_ns REAL, ci_low_ns REAL, ci_high_ns REAL, reps INTEGER,"
	" measured_at TEXT NOT NULL, runs INTEGER, spread REAL,"
	" disturbed INTEGER,"
	" PRIMARY KEY (state, fingerprint));"
	"CREATE TABLE IF NOT EXISTS runs ("
	" id INTEGER PRIMARY KEY, state TEXT NOT NULL,"
	" fingerprint TEXT NOT NULL, began REAL, ended REAL,"
	" median_ns REAL NOT NULL, ci_low_ns REAL, ci_high_ns REAL,"
	" reps INTEGER, threads INTEGER, load_before INTEGER,"
	" load_after INTEGER, nivcsw INTEGER, cpu_s REAL, wall_s REAL,"
	" delay_s REAL, disturbed INTEGER NOT NULL, why TEXT,"
	" source TEXT NOT NULL, stolen_s REAL, host REAL);"
	"CREATE INDEX IF NOT EXISTS runs_of_state ON runs (state, fingerprint);"
	"CREATE TABLE IF NOT EXISTS peaks ("
	" fingerprint TEXT PRIMARY KEY, gflops REAL NOT NULL,"
	" measured_at TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS hosts ("
	" fingerprint TEXT NOT NULL, probe TEXT NOT NULL,"
	" best_ns REAL NOT NULL, measured_at TEXT NOT NULL,"
	" PRIMARY KEY (fingerprint, probe));"
	"CREATE TABLE IF NOT EXISTS speedups ("
	" state TEXT NOT NULL, reference TEXT NOT NULL,"
	" fingerprint TEXT NOT NULL, speedup REAL NOT NULL, low REAL,"
	" high REAL, pairs INTEGER, disturbed INTEGER NOT NULL,"
	" measured_at TEXT NOT NULL, protocol INTEGER NOT NULL DEFAULT 1,"
	" PRIMARY KEY (state, reference, fingerprint));";

static const char migrate_1[] =
	"ALTER TABLE measurements ADD COLUMN runs INTEGER;"
	"ALTER TABLE measurements ADD COLUMN spread REAL;"
	"ALTER TABLE measurements ADD COLUMN disturbed INTEGER;"
	"@SCHEMA@"
	"INSERT INTO runs (state, fingerprint, began, ended, median_ns,"
	" ci_low_ns, ci_high_ns, reps, disturbed, why, source)"
	" SELECT state, fingerprint, CAST(strftime('%s', measured_at) AS REAL),"
	" CAST(strftime('%s', measured_at) AS REAL), median_ns, ci_low_ns,"
	" ci_high_ns, reps, 0, '', 'migrated' FROM measurements"
	" WHERE outcome = 'ok' AND median_ns > 0;"
	"UPDATE measurements SET runs = 1, spread = 0, disturbed = 0"
	" WHERE outcome = 'ok';";

static const char migrate_2[] =
	"ALTER TABLE runs ADD COLUMN host REAL;"
	"ALTER TABLE speedups ADD COLUMN protocol INTEGER NOT NULL DEFAULT 1;"
	"@SCHEMA@";

/* schema 3: the speedups' protocol; those kept are of protocol 1 (each
 * kernel of a pair on its own copy of the arguments), never taken again
 * (db_ratio), and replaced by the next pairs */
static const char migrate_3[] =
	"ALTER TABLE speedups ADD COLUMN protocol INTEGER NOT NULL DEFAULT 1;"
	"@SCHEMA@";

/* Whether the tables of a database of this schema have the columns this
 * code reads and writes (a file written by a development build may not):
 * 0, or -1 with the reason in "why". */
static int
db_columns(struct db *db, char *why, size_t len)
{
	static const char *const probes[] = {
		"SELECT state, fingerprint, outcome, message, median_ns, "
		"ci_low_ns, ci_high_ns, reps, measured_at, runs, spread, "
		"disturbed FROM measurements LIMIT 0",
		"SELECT id, state, fingerprint, began, ended, median_ns, "
		"ci_low_ns, ci_high_ns, reps, threads, load_before, load_after, "
		"nivcsw, cpu_s, wall_s, delay_s, disturbed, why, source, "
		"stolen_s, host FROM runs LIMIT 0",
		"SELECT fingerprint, gflops, measured_at FROM peaks LIMIT 0",
		"SELECT fingerprint, probe, best_ns, measured_at FROM hosts "
		"LIMIT 0",
		"SELECT state, reference, fingerprint, speedup, low, high, "
		"pairs, disturbed, measured_at, protocol FROM speedups "
		"LIMIT 0",
	};
	sqlite3_stmt *st;
	size_t i;

	for (i = 0; i < sizeof probes / sizeof *probes; i++) {
		if (sqlite3_prepare_v2(db->h, probes[i], -1, &st, NULL) !=
		    SQLITE_OK) {
			snprintf(why, len, "not the tables of schema %d (%s)",
			    DOJO_MEASURE_SCHEMA, sqlite3_errmsg(db->h));
			return -1;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

/* Bring the database to this schema: 0, or -1 with the reason in
 * "why". */
static int
db_schema(struct db *db, char *why, size_t len)
{
	struct dojo_strbuf sb;
	const char *at, *migrate;
	bool old_table;
	int version, rc;

	if (db_version(db, &version, &old_table) < 0)
		goto fail;
	if (version > DOJO_MEASURE_SCHEMA) {
		snprintf(why, len, "schema %d is newer than this perfdojo's "
		    "(%d)", version, DOJO_MEASURE_SCHEMA);
		return -1;
	}
	if (version == DOJO_MEASURE_SCHEMA)
		return db_columns(db, why, len);
	if (db_exec(db, "BEGIN IMMEDIATE") != SQLITE_OK)
		goto fail;
	/* another process may have migrated it meanwhile */
	if (db_version(db, &version, &old_table) < 0)
		goto fail_rollback;
	if (version == DOJO_MEASURE_SCHEMA) {
		if (db_exec(db, "COMMIT") != SQLITE_OK)
			goto fail_rollback;
		return 0;
	}
	dojo_strbuf_init(&sb);
	migrate = version == 3 ? migrate_3 : version == 2 ? migrate_2 :
	    old_table ? migrate_1 : NULL;
	if (migrate) {
		at = strstr(migrate, "@SCHEMA@");
		dojo_strbuf_printf(&sb, "%.*s%s%s", (int)(at - migrate),
		    migrate, schema, at + strlen("@SCHEMA@"));
	} else {
		dojo_strbuf_puts(&sb, schema);
	}
	dojo_strbuf_printf(&sb, "PRAGMA user_version = %d;",
	    DOJO_MEASURE_SCHEMA);
	rc = sb.s ? db_exec(db, sb.s) : SQLITE_NOMEM;
	dojo_strbuf_release(&sb);
	if (rc != SQLITE_OK)
		goto fail_rollback;
	/* a development build's file may still lack a column */
	if (db_columns(db, why, len) < 0) {
		db_exec(db, "ROLLBACK");
		return -1;
	}
	if (db_exec(db, "COMMIT") != SQLITE_OK)
		goto fail_rollback;
	return 0;
fail_rollback:
	snprintf(why, len, "%s", sqlite3_errmsg(db->h));
	db_exec(db, "ROLLBACK");
	return -1;
fail:
	snprintf(why, len, "%s", sqlite3_errmsg(db->h));
	return -1;
}

/* The database's path for "opt". */
static void
db_path(char *out, size_t len, const struct dojo_measure_options *opt)
{
	const char *home = getenv("HOME");

	if (opt->db)
		snprintf(out, len, "%s", opt->db);
	else if (getenv("PERFDOJO_DB") && *getenv("PERFDOJO_DB"))
		snprintf(out, len, "%s", getenv("PERFDOJO_DB"));
	else
		snprintf(out, len, "%s/.cache/perfdojo/measurements.db",
		    home && *home ? home : "/tmp");
}

/* Open the database of "opt", making its folder and tables; a database
 * that cannot be used is said, and "db->h" is NULL. */
static void
db_open(struct db *db, const struct dojo_measure_options *opt)
{
	char dir[1024], lock[1100], why[512], *slash;

	memset(db, 0, sizeof *db);
	db->opt = opt;
	db->lock = -1;
	db_path(db->path, sizeof db->path, opt);
	snprintf(dir, sizeof dir, "%s", db->path);
	for (slash = dir + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
			*slash = '/';
			break;
		}
		*slash = '/';
	}
	snprintf(lock, sizeof lock, "%s.lock", db->path);
	db->lock = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (sqlite3_open_v2(db->path, &db->h, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		db_drop(db, db->h ? sqlite3_errmsg(db->h) : "cannot open");
		return;
	}
	sqlite3_busy_timeout(db->h, 30000);
	why[0] = '\0';
	if (db_schema(db, why, sizeof why) < 0) {
		db_drop(db, why[0] ? why : "cannot read its schema");
		return;
	}
	/* WAL where it can be had: a read-only file keeps its mode */
	db_exec(db, "PRAGMA journal_mode=WAL");
}

static void
db_close(struct db *db)
{
	sqlite3_close(db->h);
	db->h = NULL;
	if (db->lock >= 0)
		close(db->lock);
	db->lock = -1;
}

/* A write that failed: the runs of this call are not kept, said once. */
static void
db_write_failed(struct db *db)
{
	char why[512];

	snprintf(why, sizeof why, "%s", sqlite3_errmsg(db->h));
	db_drop(db, why);
}

/* Run the prepared write "st" and finalize it: true when it was done,
 * else the database is given up, saying why. */
static bool
db_write(struct db *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		db_write_failed(db);
	return rc == SQLITE_DONE;
}

/* The outcome and message recorded for "m"'s state, 1 when there is one
 * (0: none, or no database). */
static int
db_outcome(struct db *db, struct dojo_measurement *m)
{
	sqlite3_stmt *st;
	const char *outcome;
	int found = 0, o;

	if (!db->h || sqlite3_prepare_v2(db->h, "SELECT outcome, message "
	    "FROM measurements WHERE state = ? AND fingerprint = ?", -1, &st,
	    NULL) != SQLITE_OK)
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
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

static const char *
column_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s ? s : "";
}

/* Call "fn" on the runs of "state" on "fingerprint", oldest first. */
static int
db_runs(struct db *db, const char *state, const char *fingerprint,
    int (*fn)(const struct dojo_measure_run *run, void *payload),
    void *payload)
{
	struct dojo_measure_run r;
	sqlite3_stmt *st;
	int rc;

	if (!db->h)
		return 0;
	if (sqlite3_prepare_v2(db->h, "SELECT began, ended, median_ns, "
	    "ci_low_ns, ci_high_ns, reps, threads, load_before, load_after, "
	    "nivcsw, cpu_s, wall_s, delay_s, disturbed, why, source, stolen_s, "
	    "host FROM runs "
	    "WHERE state = ? AND fingerprint = ? ORDER BY id", -1, &st,
	    NULL) != SQLITE_OK)
		return dojo_error_set("%s: %s", db->path,
		    sqlite3_errmsg(db->h));
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, fingerprint, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&r, 0, sizeof r);
		r.began = sqlite3_column_double(st, 0);
		r.ended = sqlite3_column_double(st, 1);
		r.median_ns = sqlite3_column_double(st, 2);
		r.ci_low_ns = sqlite3_column_double(st, 3);
		r.ci_high_ns = sqlite3_column_double(st, 4);
		r.reps = sqlite3_column_int(st, 5);
		r.threads = sqlite3_column_int(st, 6);
		r.load_before = sqlite3_column_int(st, 7);
		r.load_after = sqlite3_column_int(st, 8);
		r.nivcsw = sqlite3_column_int64(st, 9);
		r.cpu_s = sqlite3_column_double(st, 10);
		r.wall_s = sqlite3_column_double(st, 11);
		r.delay_s = sqlite3_column_double(st, 12);
		r.disturbed = sqlite3_column_int(st, 13) != 0;
		snprintf(r.why, sizeof r.why, "%s", column_text(st, 14));
		snprintf(r.source, sizeof r.source, "%s", column_text(st, 15));
		r.stolen_s = sqlite3_column_double(st, 16);
		r.host = sqlite3_column_double(st, 17);
		if (fn(&r, payload) < 0) {
			sqlite3_finalize(st);
			return dojo_error_set("out of memory");
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return dojo_error_set("%s: %s", db->path,
		    sqlite3_errmsg(db->h));
	return 0;
}

static void
db_add_run(struct db *db, const char *state, const char *fingerprint,
    const struct dojo_measure_run *r)
{
	sqlite3_stmt *st;

	if (!db->h)
		return;
	if (sqlite3_prepare_v2(db->h, "INSERT INTO runs (state, fingerprint, "
	    "began, ended, median_ns, ci_low_ns, ci_high_ns, reps, threads, "
	    "load_before, load_after, nivcsw, cpu_s, wall_s, delay_s, "
	    "disturbed, why, source, stolen_s, host) VALUES (?, ?, ?, ?, ?, ?, "
	    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK) {
		db_write_failed(db);
		return;
	}
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, fingerprint, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, r->began);
	sqlite3_bind_double(st, 4, r->ended);
	sqlite3_bind_double(st, 5, r->median_ns);
	sqlite3_bind_double(st, 6, r->ci_low_ns);
	sqlite3_bind_double(st, 7, r->ci_high_ns);
	sqlite3_bind_int(st, 8, r->reps);
	sqlite3_bind_int(st, 9, r->threads);
	sqlite3_bind_int(st, 10, r->load_before);
	sqlite3_bind_int(st, 11, r->load_after);
	sqlite3_bind_int64(st, 12, r->nivcsw);
	sqlite3_bind_double(st, 13, r->cpu_s);
	sqlite3_bind_double(st, 14, r->wall_s);
	sqlite3_bind_double(st, 15, r->delay_s);
	sqlite3_bind_int(st, 16, r->disturbed);
	sqlite3_bind_text(st, 17, r->why, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 18, r->source, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 19, r->stolen_s);
	if (r->host > 0)
		sqlite3_bind_double(st, 20, r->host);
	else
		sqlite3_bind_null(st, 20);
	db_write(db, st);
}

/* The best time of the host probe (of this build) on "fingerprint" that
 * the database has, 0 when none. */
static double
db_host_best(struct db *db, const char *fingerprint)
{
	sqlite3_stmt *st;
	double best = 0;

	if (db->h && sqlite3_prepare_v2(db->h, "SELECT best_ns FROM hosts "
	    "WHERE fingerprint = ? AND probe = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_text(st, 1, fingerprint, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, dojo_probe_build(), -1,
		    SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			best = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	return best;
}

static void
db_host_keep(struct db *db, const char *fingerprint, double best)
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);

	if (!db->h)
		return;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO hosts VALUES "
	    "(?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
		db_write_failed(db);
		return;
	}
	sqlite3_bind_text(st, 1, fingerprint, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, dojo_probe_build(), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, best);
	sqlite3_bind_text(st, 4, when, -1, SQLITE_STATIC);
	db_write(db, st);
}

/* The state's outcome and estimate, after its runs. */
static void
db_store(struct db *db, struct dojo_measurement *m)
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);

	m->stored = false;
	if (!db->h)
		return;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO measurements "
	    "(state, fingerprint, outcome, message, median_ns, ci_low_ns, "
	    "ci_high_ns, reps, measured_at, runs, spread, disturbed) VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) !=
	    SQLITE_OK) {
		db_write_failed(db);
		return;
	}
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
	sqlite3_bind_int(st, 10, m->runs);
	sqlite3_bind_double(st, 11, m->spread);
	sqlite3_bind_int(st, 12, m->disturbed);
	m->stored = db_write(db, st);
}

/* Take the lock beside the database for one timed run, saying so when
 * another process holds it. */
static void
db_lock(struct db *db)
{
	static bool said;

	if (db->lock < 0)
		return;
	if (flock(db->lock, LOCK_EX | LOCK_NB) == 0)
		return;
	if (!said) {
		say(db->opt, "waiting for another process's timed run "
		    "(%s.lock)", db->path);
		said = true;
	}
	while (flock(db->lock, LOCK_EX) < 0 && errno == EINTR)
		;
}

static void
db_unlock(struct db *db)
{
	if (db->lock >= 0)
		flock(db->lock, LOCK_UN);
}
double
dojo_buffer_rms(dojo_data *data, int b, enum dojo_dtype t)
{
	uint64_t i, n = dojo_data_count(data, b), k = 0;
	double s = 0, v, top = 0;

	if (t != DOJO_F32 && t != DOJO_F64)
		return 0;
	for (i = 0; i < n; i++) {
		v = t == DOJO_F32 ? ((float *)dojo_data_buffer(data, b))[i] :
		    ((double *)dojo_data_buffer(data, b))[i];
		if (isfinite(v)) {
			s += v * v;
			top = fabs(v) > top ? fabs(v) : top;
			k++;
		}
	}
	/* squares past the double range: the largest magnitude instead */
	return !k ? 0 : isfinite(s) ? sqrt(s / (double)k) : top;
}

bool
dojo_close_enough(enum dojo_dtype t, double want, double got, double rms)
{
	if (want == got || (isnan(want) && isnan(got)))
		return true;
	if (t == DOJO_F32)
		return fabs(want - got) <= 1e-4 * (fabs(want) + rms) + 1e-5;
	if (t == DOJO_F64)
		return fabs(want - got) <= 1e-10 * (fabs(want) + rms) + 1e-12;
	return false;
}

bool
dojo_outputs_agree(dojo_program *prog, dojo_data *got, dojo_program *ref,
    dojo_data *want, char *msg, size_t size)
{
	uint64_t i, n;
	int64_t gi, wi;
	double x, y, rms;
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
		rms = dojo_buffer_rms(want, r, t);
		for (i = 0; i < n; i++) {
			switch (t) {
			case DOJO_F32:
				x = ((float *)dojo_data_buffer(got, b))[i];
				y = ((float *)dojo_data_buffer(want, r))[i];
				break;
			case DOJO_F64:
				x = ((double *)dojo_data_buffer(got, b))[i];
				y = ((double *)dojo_data_buffer(want, r))[i];
				break;
			case DOJO_I32:
				x = ((int32_t *)dojo_data_buffer(got, b))[i];
				y = ((int32_t *)dojo_data_buffer(want, r))[i];
				break;
			default:
				/* as integers: a double holds no int64 exactly */
				gi = ((int64_t *)dojo_data_buffer(got, b))[i];
				wi = ((int64_t *)dojo_data_buffer(want, r))[i];
				if (gi == wi)
					continue;
				snprintf(msg, size, "%s[%llu] is %lld, expected "
				    "%lld", dojo_buffer_name(prog, b),
				    (unsigned long long)i, (long long)gi,
				    (long long)wi);
				return false;
			}
			if (!dojo_close_enough(t, y, x, rms)) {
				snprintf(msg, size, "%s[%llu] "
				    "is %.9g, expected %.9g",
				    dojo_buffer_name(prog, b),
				    (unsigned long long)i, x, y);
				return false;
			}
		}
	}
	return true;
}

/*
 * The protocol.
 */


void
dojo_measure_options_init(struct dojo_measure_options *opt)
{
	const char *wait = getenv("PERFDOJO_WAIT");
	const char *threads = getenv("PERFDOJO_THREADS");

	memset(opt, 0, sizeof *opt);
	if (threads && atoi(threads) > 0)
		opt->run.threads = atoi(threads);
	opt->runs = 3;
	opt->retries = 2;
	opt->wait = wait && *wait ? atof(wait) : 10;
	opt->run.timeout = 60;
	opt->run.memory = DOJO_RUN_MEMORY;
	opt->run.time = true;
	opt->run.precision = 0.01;
	opt->run.min_reps = 5;
	opt->run.max_reps = 1000;
	opt->run.budget = 2.0 / 3;
}

int
dojo_measure_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

int
dojo_measure_threads(const struct dojo_measure_options *opt)
{
	const char *env = getenv("OMP_NUM_THREADS");

	if (opt->run.threads > 0)
		return opt->run.threads;
	if (env && atoi(env) > 0)
		return atoi(env);
	return dojo_measure_cores();
}

/* The seconds the hypervisor gave this machine's processors to others
 * (the "steal" of /proc/stat), all processors together; 0 on bare metal
 * or when it cannot be read. */
static double
stolen_seconds(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	char line[512];
	FILE *f = fopen("/proc/stat", "r");
	int n = 0;

	if (f && fgets(line, sizeof line, f))
		n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (f)
		fclose(f);
	return n == 8 && hz > 0 ? (double)v[7] / hz : 0;
}

/* The threads of the machine that are runnable now, this one excepted
 * (/proc/stat's procs_running); 0 when it cannot be read. */
static int
others_running(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "procs_running %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n > 1 ? n - 1 : 0;
}

double
dojo_t975(int df)
{
	static const double t[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571,
	    2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
	    2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
	    2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };

	if (df < 1)
		return INFINITY;
	if (df <= 30)
		return t[df];
	return df <= 60 ? 2.000 : 1.960;
}

/* The geometric mean of the "n" positive values "x" and its 95% interval
 * (Student's t on their logarithms) around "center" (0: the mean). */
static void
log_interval(const double *x, int n, double center, double *mean,
    double *lo, double *hi)
{
	double s = 0, ss = 0, half;
	int i;

	for (i = 0; i < n; i++)
		s += log(x[i]);
	s /= n;
	for (i = 0; i < n; i++)
		ss += (log(x[i]) - s) * (log(x[i]) - s);
	*mean = exp(s);
	if (center <= 0)
		center = *mean;
	half = n > 1 ? dojo_t975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n) : 0;
	*lo = center * exp(-half);
	*hi = center * exp(half);
}

/* The runs of one state, and what they make of it. */
struct probe {
	dojo_program *prog;
	struct dojo_c_kernel *kernel;
	dojo_data *data;
	struct dojo_measurement *m;
	struct dojo_measure_run *runs;
	int n, cap;
	int keep;			/* > 0: no run kept after this many
					   clean ones (opt->stable) */
	bool lucky;			/* PERFDOJO_FAULT=look */
};

static int
probe_clean(const struct probe *p)
{
	int i, k = 0;

	for (i = 0; i < p->n; i++)
		k += !p->runs[i].disturbed;
	return k;
}

static int
probe_add(const struct dojo_measure_run *r, void *payload)
{
	struct probe *p = payload;
	struct dojo_measure_run *grown;

	if (p->keep > 0 && probe_clean(p) >= p->keep)
		return 0;
	if (p->n == p->cap) {
		grown = realloc(p->runs, sizeof *grown * (p->cap ? 2 * p->cap :
		    16));
		if (!grown)
			return -1;
		p->runs = grown;
		p->cap = p->cap ? 2 * p->cap : 16;
	}
	p->runs[p->n++] = *r;
	return 0;
}

/* The estimate of "p->m" from its runs: of the clean ones, of all when
 * none is clean. */
static void
probe_estimate(struct probe *p)
{
	struct dojo_measurement *m = p->m;
	double *x, mean;
	bool clean = probe_clean(p) > 0;
	int i, n = 0;

	m->runs = m->reps = 0;
	m->median_ns = m->ci_low_ns = m->ci_high_ns = m->spread = 0;
	m->disturbed = p->n > 0 && !clean;
	x = malloc(sizeof *x * (p->n + 1));
	if (!x)
		return;
	for (i = 0; i < p->n; i++)
		if ((!clean || !p->runs[i].disturbed) &&
		    p->runs[i].median_ns > 0) {
			x[n++] = p->runs[i].median_ns;
			m->reps += p->runs[i].reps;
		}
	m->runs = n;
	if (n == 1) {
		for (i = 0; i < p->n; i++)
			if (p->runs[i].median_ns == x[0]) {
				m->median_ns = x[0];
				m->ci_low_ns = p->runs[i].ci_low_ns;
				m->ci_high_ns = p->runs[i].ci_high_ns;
			}
	} else if (n > 1) {
		dojo_sort_doubles(x, n);
		m->median_ns = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
		m->spread = x[n - 1] / x[0] - 1;
		log_interval(x, n, m->median_ns, &mean, &m->ci_low_ns,
		    &m->ci_high_ns);
	}
	free(x);
}

/* The host probe's limit: $PERFDOJO_HOST_SLOW, else DOJO_HOST_SLOW; 0
 * (or "off"): the host probe judges nothing. */
static double
host_slow(void)
{
	const char *env = getenv("PERFDOJO_HOST_SLOW");
	char *end;
	double v;

	if (!env || !*env)
		return DOJO_HOST_SLOW;
	if (strcmp(env, "off") == 0)
		return 0;
	v = strtod(env, &end);
	return *end == '\0' && v >= 0 ? v : DOJO_HOST_SLOW;
}

/* Judge the run "r" of "res" disturbed or not: it waited in vain for
 * idle cores, a thread of the kernel waited for a processor (more than
 * 5% of the run and 2 ms), the kernel had less than 80% of a processor,
 * the hypervisor took the processors, or the host slowed the core down
 * (the probe's third quartile over its best, r->host, past
 * DOJO_HOST_SLOW).  The runnable threads after the run are only
 * recorded: a thread that became runnable as the run ended did not
 * disturb it, and one that did shows in the kernel's own account. */
static void
judge(struct dojo_measure_run *r, const struct dojo_run_result *res,
    int threads, bool waited_out)
{
	r->disturbed = true;
	if (waited_out)
		snprintf(r->why, sizeof r->why, "%d other threads were "
		    "runnable before the run, for %d threads on %d cores",
		    r->load_before, threads, dojo_measure_cores());
	else if (res->wall_s > 0 && res->delay_s > 0.05 * res->wall_s + 0.002)
		snprintf(r->why, sizeof r->why, "a thread of the kernel waited "
		    "%.3g ms for a processor in %.3g ms", res->delay_s * 1e3,
		    res->wall_s * 1e3);
	else if (res->wall_s > 0.01 && res->cpu_s < 0.8 * res->wall_s)
		snprintf(r->why, sizeof r->why, "the kernel had %.0f%% of the "
		    "processor time in %.3g ms", 100 * res->cpu_s /
		    res->wall_s, res->wall_s * 1e3);
	else if (r->stolen_s > 0.05 * r->child_s * dojo_measure_cores() + 0.02)
		snprintf(r->why, sizeof r->why, "the hypervisor took %.3g ms "
		    "of the processors in a run of %.3g ms", r->stolen_s * 1e3,
		    r->child_s * 1e3);
	else if (host_slow() > 0 && r->host > host_slow())
		snprintf(r->why, sizeof r->why, "the host slowed the core "
		    "down: a reference loop took %.2fx its best time here in "
		    "a quarter of the run", r->host);
	else
		r->disturbed = false;
	/* the test-only switch of doc/measure.md */
	if (dojo_fault_is("disturbed") && !r->disturbed) {
		r->disturbed = true;
		snprintf(r->why, sizeof r->why, "PERFDOJO_FAULT=disturbed");
	}
}

/* One pair of alternate runs (A B A B in one child): the median of the
 * ratios of their repetitions and its interval. */
struct pair {
	double ratio, low, high;
	bool clean;
};

/* Whether the deadline of "opt" has passed. */
static bool
past_deadline(const struct dojo_measure_options *opt)
{
	return opt->deadline > 0 && dojo_clock_seconds() >= opt->deadline;
}

/* Before a timed run: the lock, then at most opt->wait seconds for as
 * many idle cores as the run has threads; the load seen into "r", and
 * whether the wait was in vain. */
static bool
run_begin(struct db *db, const struct dojo_measure_options *opt,
    int threads, struct dojo_measure_run *r, bool *said_wait)
{
	double t0;

	if (threads > dojo_measure_cores())
		threads = dojo_measure_cores();	/* more cannot be idle */
	memset(r, 0, sizeof *r);
	db_lock(db);
	for (t0 = dojo_clock_seconds(); ; ) {
		r->load_before = others_running();
		if (r->load_before <= dojo_measure_cores() - threads)
			return false;
		if (dojo_clock_seconds() - t0 >= opt->wait ||
		    past_deadline(opt))
			return true;
		if (!*said_wait) {
			say(opt, "waiting up to %.0f s for %d idle cores (%d "
			    "other threads are runnable)", opt->wait, threads,
			    r->load_before);
			*said_wait = true;
		}
		usleep(50000);
	}
}

/* After the run "res" of "p" (begun with "r"): its outcome into p->m
 * when it failed (-1), else the run judged, kept and recorded (1 clean,
 * 0 disturbed; -2 no memory). */
static int
run_end(struct db *db, struct probe *p, struct dojo_measure_run *r,
    const struct dojo_run_result *res, int threads, bool waited_out)
{
	double best;

	p->m->new_runs++;
	if (res->outcome != DOJO_OUTCOME_OK || res->reps == 0) {
		p->m->outcome = res->outcome != DOJO_OUTCOME_OK ?
		    res->outcome : DOJO_OUTCOME_CRASH;
		snprintf(p->m->message, sizeof p->m->message, "%s",
		    res->outcome != DOJO_OUTCOME_OK ? res->message :
		    "the kernel was not timed");
		return -1;
	}
	r->began = res->began;
	r->ended = res->ended;
	r->median_ns = res->median_ns;
	r->ci_low_ns = res->ci_low_ns;
	r->ci_high_ns = res->ci_high_ns;
	r->reps = res->reps;
	r->threads = res->threads;
	r->nivcsw = res->nivcsw;
	r->cpu_s = res->cpu_s;
	r->wall_s = res->wall_s;
	r->delay_s = res->delay_s;
	snprintf(r->source, sizeof r->source, "run");
	if (res->probes > 0 && res->probe_min_ns > 0) {
		best = db_host_best(db, p->m->fingerprint);
		if (best <= 0 || res->probe_min_ns < best) {
			best = res->probe_min_ns;
			db_host_keep(db, p->m->fingerprint, best);
		}
		r->host = res->probe_q3_ns / best;
	}
	judge(r, res, threads, waited_out);
	if (probe_add(r, p) < 0) {
		dojo_error_set("out of memory");
		return -2;
	}
	db_add_run(db, p->m->state, p->m->fingerprint, r);
	return !r->disturbed;
}

/* One timed run of "p" (its kernel built), under the lock, after waiting
 * (at most opt->wait seconds) for as many idle cores as it has threads:
 * 1 clean, 0 disturbed, -1 failed (the outcome in p->m), -2 no result
 * (the last error set). */
static int
probe_run(struct db *db, struct probe *p,
    const struct dojo_measure_options *opt, bool *said_wait)
{
	struct dojo_run_options run = opt->run;
	struct dojo_run_result res;
	struct dojo_measure_run r;
	int threads = dojo_measure_threads(opt);
	double t0, stolen;
	bool waited_out;

	run.threads = threads;
	waited_out = run_begin(db, opt, threads, &r, said_wait);
	stolen = stolen_seconds();
	t0 = dojo_clock_seconds();
	if (dojo_c_kernel_run(p->kernel, p->data, &run, &res) < 0) {
		db_unlock(db);
		return -2;
	}
	r.child_s = dojo_clock_seconds() - t0;
	r.stolen_s = stolen_seconds() - stolen;
	r.load_after = others_running();
	db_unlock(db);
	if (p->lucky) {
		/* the test-only switch of doc/measure.md */
		res.median_ns /= 1.15;
		res.ci_low_ns /= 1.15;
		res.ci_high_ns /= 1.15;
	}
	return run_end(db, p, &r, &res, threads, waited_out);
}

/* One child timing "a" and "b" in alternate repetitions: a run of each
 * (judged alike) and the ratio of the pair into "pair".  1 clean, 0
 * disturbed, -1 failed, -2 no result. */
static int
probe_pair(struct db *db, struct probe *a, struct probe *b,
    const struct dojo_measure_options *opt, bool *said_wait,
    struct pair *pair)
{
	struct dojo_run_options run = opt->run;
	struct dojo_run_result res[2];
	struct dojo_measure_run r, r2;
	int threads = dojo_measure_threads(opt), ra, rb;
	double t0, stolen, ratio[3] = { 0, 0, 0 };
	bool waited_out;

	run.threads = threads;
	dojo_data_randomize(a->data, 1);
	dojo_data_randomize(b->data, 1);
	waited_out = run_begin(db, opt, threads, &r, said_wait);
	stolen = stolen_seconds();
	t0 = dojo_clock_seconds();
	if (dojo_c_kernel_run_pair(a->kernel, a->data, b->kernel, b->data,
	    &run, res, ratio) < 0) {
		db_unlock(db);
		return -2;
	}
	r.child_s = dojo_clock_seconds() - t0;
	r.stolen_s = stolen_seconds() - stolen;
	r.load_after = others_running();
	db_unlock(db);
	/* a pair that failed says nothing of either kernel alone (each
	 * passed its own run): no outcome is recorded, no pair counted */
	if (res[0].outcome != DOJO_OUTCOME_OK || res[0].reps == 0 ||
	    res[1].reps == 0)
		return -1;
	r2 = r;
	ra = run_end(db, a, &r, &res[0], threads, waited_out);
	rb = run_end(db, b, &r2, &res[1], threads, waited_out);
	if (ra < 0 || rb < 0)
		return ra < rb ? ra : rb;
	pair->ratio = ratio[0];
	pair->low = ratio[1];
	pair->high = ratio[2];
	pair->clean = ra == 1 && rb == 1;
	return pair->clean;
}

static void
probe_free(struct probe *p)
{
	dojo_c_kernel_free(p->kernel);
	dojo_data_free(p->data);
	free(p->runs);
}

/* Start "p" for "prog": its id, fingerprint, what the database knows.
 * 1 when that is enough ("fresh" aside), 0 when it has to run, -1 with
 * the last error set. */
static int
probe_init(struct db *db, struct probe *p, dojo_program *prog,
    const struct dojo_measure_options *opt, struct dojo_measurement *m,
    bool need_runs)
{
	memset(p, 0, sizeof *p);
	memset(m, 0, sizeof *m);
	p->prog = prog;
	p->m = m;
	dojo_program_id(m->state, prog);
	fingerprint(m->fingerprint, opt);
	p->keep = opt->stable ? opt->runs : 0;
	if (db_outcome(db, m) && m->outcome != DOJO_OUTCOME_OK &&
	    !opt->fresh) {
		m->cached = m->stored = true;
		return 1;
	}
	m->outcome = DOJO_OUTCOME_OK;
	m->message[0] = '\0';
	if (db_runs(db, m->state, m->fingerprint, probe_add, p) < 0)
		return -1;
	probe_estimate(p);
	if (!opt->fresh && !need_runs && probe_clean(p) >= opt->runs) {
		m->cached = m->stored = true;
		return 1;
	}
	return 0;
}

int
dojo_measure_want(dojo_program *reference, dojo_data **wantp,
    const struct dojo_measure_options *opt)
{
	dojo_data *want;

	if (*wantp)
		return 0;
	want = dojo_data_new(reference, 8ULL << 30);
	if (!want)
		return -1;
	dojo_data_randomize(want, 1);
	if (dojo_interp_run_limited(reference, want, opt->run.timeout) < 0) {
		dojo_data_free(want);
		return -1;
	}
	*wantp = want;
	return 0;
}

/* Compile "p", run it once and check its outputs against "*wantp" (the
 * interpreter's outputs of "reference", computed when NULL): 1 when it
 * is ok and that run counts (clean or not), 0 when it failed (the
 * outcome in p->m), -1 with the last error set. */
static int
probe_check(struct db *db, struct probe *p, dojo_program *reference,
    dojo_data **wantp, const struct dojo_measure_options *opt,
    bool *said_wait)
{
	struct dojo_run_result res;
	int rc;

	if (dojo_measure_want(reference, wantp, opt) < 0)
		return -1;
	p->data = dojo_data_new(p->prog, 8ULL << 30);
	if (!p->data)
		return -1;
	dojo_data_randomize(p->data, 1);
	if (dojo_c_build(p->prog, &opt->run, &p->kernel, &res) < 0)
		return -1;
	if (!p->kernel) {
		p->m->outcome = res.outcome;
		snprintf(p->m->message, sizeof p->m->message, "%s",
		    res.message);
		return 0;
	}
	rc = probe_run(db, p, opt, said_wait);
	if (rc == -2)
		return -1;
	if (rc == -1)
		return 0;
	if (!dojo_outputs_agree(p->prog, p->data, reference, *wantp,
	    p->m->message, sizeof p->m->message)) {
		p->m->outcome = DOJO_OUTCOME_WRONG;
		return 0;
	}
	return 1;
}

/* A later run: on the seeded inputs again (a kernel with inout
 * buffers changed them). */
static int
probe_again(struct db *db, struct probe *p,
    const struct dojo_measure_options *opt, bool *said_wait)
{
	dojo_data_randomize(p->data, 1);
	return probe_run(db, p, opt, said_wait);
}

/* The end of a measurement of "p": its estimate (or its failure) in the
 * database. */
static void
probe_finish(struct db *db, struct probe *p)
{
	if (p->m->outcome == DOJO_OUTCOME_OK)
		probe_estimate(p);
	else
		p->m->median_ns = p->m->ci_low_ns = p->m->ci_high_ns = 0;
	db_store(db, p->m);
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
	struct probe p;
	struct db db;
	bool said_wait = false;
	int rc, clean, retries = opt->retries, i, need;

	if (!reference)
		reference = prog;
	db_open(&db, opt);
	rc = probe_init(&db, &p, prog, opt, m, false);
	if (rc != 0) {
		rc = rc > 0 ? 0 : -1;	/* known, or no database answer */
		goto out;
	}
	p.lucky = reference != prog && dojo_fault_is("look");
	/* the runs it lacks: all with "fresh" */
	need = opt->fresh ? opt->runs : opt->runs - probe_clean(&p);
	if (need < 1)
		need = 1;
	rc = probe_check(&db, &p, reference, wantp, opt, &said_wait);
	if (rc < 0)
		goto out;
	if (rc == 0) {
		probe_finish(&db, &p);
		rc = 0;
		goto out;
	}
	clean = p.runs[p.n - 1].disturbed ? 0 : 1;
	if (!clean)
		retries--;
	for (i = clean; i < need && retries >= 0 && !past_deadline(opt); ) {
		rc = probe_again(&db, &p, opt, &said_wait);
		if (rc < 0)
			break;
		if (rc == 1)
			i++;
		else
			retries--;
	}
	probe_finish(&db, &p);
	rc = rc == -2 ? -1 : 0;
out:
	probe_free(&p);
	db_close(&db);
	return rc;
}

/* The speedup of "m" against "ref" the database knows, of at least
 * "pairs" pairs (disturbed ones too, flagged: their pairs ran
 * interleaved): 1 when there is one. */
static int
db_ratio(struct db *db, const struct dojo_measurement *m,
    const struct dojo_measurement *ref, int pairs,
    struct dojo_measure_ratio *r)
{
	sqlite3_stmt *st;
	int found = 0;

	if (!db->h || sqlite3_prepare_v2(db->h, "SELECT speedup, low, high, "
	    "pairs, disturbed FROM speedups WHERE state = ? AND reference = ? "
	    "AND fingerprint = ? AND pairs >= ? AND protocol = "
	    DOJO_STR(DOJO_PAIR_PROTOCOL), -1, &st,
	    NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, m->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ref->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->fingerprint, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, pairs);
	if (sqlite3_step(st) == SQLITE_ROW) {
		r->speedup = sqlite3_column_double(st, 0);
		r->low = sqlite3_column_double(st, 1);
		r->high = sqlite3_column_double(st, 2);
		r->pairs = sqlite3_column_int(st, 3);
		r->disturbed = sqlite3_column_int(st, 4) != 0;
		r->precise = r->low >= r->speedup * (1 - DOJO_RATIO_PRECISION) &&
		    r->high <= r->speedup * (1 + DOJO_RATIO_PRECISION);
		r->cached = true;
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}

/* Keep the ratio "r" of "m" against "ref": in place of the one known,
 * or with "stable" only where none is known or the known one is
 * disturbed (a search's ratios, so that it replays however many pairs
 * later confirmations add). */
static void
db_store_ratio(struct db *db, const struct dojo_measurement *m,
    const struct dojo_measurement *ref, const struct dojo_measure_ratio *r,
    bool stable)
{
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);

	if (!db->h || r->speedup <= 0)
		return;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (sqlite3_prepare_v2(db->h, stable ? "INSERT INTO speedups VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, " DOJO_STR(DOJO_PAIR_PROTOCOL) ") "
	    "ON CONFLICT DO UPDATE SET "
	    "speedup = excluded.speedup, low = excluded.low, "
	    "high = excluded.high, pairs = excluded.pairs, "
	    "disturbed = excluded.disturbed, "
	    "measured_at = excluded.measured_at, "
	    "protocol = excluded.protocol WHERE speedups.disturbed OR "
	    "speedups.protocol <> excluded.protocol" :
	    "INSERT OR REPLACE INTO speedups VALUES "
	    "(?, ?, ?, ?, ?, ?, ?, ?, ?, " DOJO_STR(DOJO_PAIR_PROTOCOL) ")",
	    -1, &st, NULL) != SQLITE_OK) {
		db_write_failed(db);
		return;
	}
	sqlite3_bind_text(st, 1, m->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ref->state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->fingerprint, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, r->speedup);
	sqlite3_bind_double(st, 5, r->low);
	sqlite3_bind_double(st, 6, r->high);
	sqlite3_bind_int(st, 7, r->pairs);
	sqlite3_bind_int(st, 8, r->disturbed);
	sqlite3_bind_text(st, 9, when, -1, SQLITE_STATIC);
	db_write(db, st);
}


/* The speedup of "n" pairs "p" into "ratio": of the clean ones when there
 * are at least two, else of all; flagged disturbed unless "need" (at
 * least two) are clean: the retries ran out before enough clean pairs
 * came, and the next time it matters it is measured again. */
static void
pairs_ratio(const struct pair *p, int n, int need,
    struct dojo_measure_ratio *ratio)
{
	double *x = malloc(sizeof *x * (n + 1)), mean;
	int i, k = 0, clean = 0;

	if (!x || n == 0) {
		free(x);
		return;
	}
	memset(ratio, 0, sizeof *ratio);
	for (i = 0; i < n; i++)
		clean += p[i].clean;
	ratio->disturbed = clean < (need > 2 ? need : 2);
	for (i = 0; i < n; i++)
		if (clean < 2 || p[i].clean)
			x[k++] = p[i].ratio;
	ratio->pairs = k;
	log_interval(x, k, 0, &mean, &ratio->low, &ratio->high);
	ratio->speedup = mean;
	for (i = 0; k == 1 && i < n; i++)
		if (clean < 2 || p[i].clean) {
			/* one pair: the intervals of its two runs */
			ratio->low = p[i].low;
			ratio->high = p[i].high;
		}
	ratio->precise = ratio->low >= mean * (1 - DOJO_RATIO_PRECISION) &&
	    ratio->high <= mean * (1 + DOJO_RATIO_PRECISION);
	free(x);
}

int
dojo_measure_speedup(dojo_program *prog, dojo_program *reference,
    dojo_data **wantp, const struct dojo_measure_options *opt,
    struct dojo_measurement *mprog, struct dojo_measurement *mref,
    struct dojo_measure_ratio *ratio)
{
	struct probe a, b;
	struct pair *pairs = NULL;
	struct db db;
	bool said_wait = false;
	int rc = -1, ra, rb, n = 0, clean = 0, k;
	/* disturbed pairs may take the place of as many clean ones */
	int retries = opt->retries > opt->runs ? opt->retries : opt->runs;

	memset(ratio, 0, sizeof *ratio);
	db_open(&db, opt);
	memset(&b, 0, sizeof b);
	ra = probe_init(&db, &a, reference, opt, mref, true);
	rb = ra < 0 ? -1 : probe_init(&db, &b, prog, opt, mprog, true);
	if (ra < 0 || rb < 0)
		goto out;
	if (ra > 0 || rb > 0) {
		/* a known failure: nothing to time */
		rc = 0;
		goto out;
	}
	if (!opt->fresh && mref->runs > 0 && mprog->runs > 0 &&
	    db_ratio(&db, mprog, mref, opt->runs, ratio)) {
		/* known, as clean alternate runs measured it */
		mref->cached = mprog->cached = true;
		mref->stored = mprog->stored = true;
		rc = 0;
		goto out;
	}
	pairs = malloc(sizeof *pairs * ((opt->runs > DOJO_RATIO_MAX_PAIRS ?
	    opt->runs : DOJO_RATIO_MAX_PAIRS) + retries + 1));
	if (!pairs) {
		dojo_error_set("out of memory");
		goto out;
	}
	/* the first pair checks both against the reference's outputs */
	ra = probe_check(&db, &a, reference, wantp, opt, &said_wait);
	if (ra < 0)
		goto out;
	rb = ra > 0 ? probe_check(&db, &b, reference, wantp, opt,
	    &said_wait) : 0;
	if (rb < 0)
		goto out;
	/* then pairs of the two in one child, repetition by repetition */
	while (ra > 0 && rb > 0) {
		k = probe_pair(&db, &a, &b, opt, &said_wait, &pairs[n]);
		if (k == -2)
			goto out;
		if (k < 0)
			break;
		if (pairs[n++].clean)
			clean++;
		else
			retries--;
		if (retries < 0 || (clean >= DOJO_RATIO_MAX_PAIRS &&
		    clean >= opt->runs) || past_deadline(opt))
			break;
		/* enough clean pairs, and their interval tight enough */
		if (clean >= opt->runs) {
			pairs_ratio(pairs, n, opt->runs, ratio);
			if (ratio->precise)
				break;
		}
	}
	probe_finish(&db, &a);
	if (ra > 0 || b.n > 0 || mprog->outcome != DOJO_OUTCOME_OK)
		probe_finish(&db, &b);
	else
		snprintf(mprog->message, sizeof mprog->message, "not "
		    "measured: the reference failed");
	if (mref->outcome == DOJO_OUTCOME_OK &&
	    mprog->outcome == DOJO_OUTCOME_OK) {
		pairs_ratio(pairs, n, opt->runs, ratio);
		db_store_ratio(&db, mprog, mref, ratio, opt->stable);
	}
	rc = 0;
out:
	free(pairs);
	probe_free(&a);
	probe_free(&b);
	db_close(&db);
	return rc;
}

int
dojo_measure_history(dojo_program *prog,
    const struct dojo_measure_options *opt, char fp[41],
    int (*fn)(const struct dojo_measure_run *run, void *payload),
    void *payload)
{
	char state[41];
	struct db db;
	int rc;

	dojo_program_id(state, prog);
	fingerprint(fp, opt);
	db_open(&db, opt);
	if (!db.h) {
		db_close(&db);
		return dojo_error_set("%s: no measurement database", db.path);
	}
	rc = db_runs(&db, state, fp, fn, payload);
	db_close(&db);
	return rc;
}

int
dojo_measure_peak(const struct dojo_measure_options *opt, double *gflops)
{
	struct dojo_run_options run = opt->run;
	char fp[41], when[32];
	sqlite3_stmt *st;
	time_t now = time(NULL);
	struct db db;
	int rc;

	*gflops = 0;
	fingerprint(fp, opt);
	db_open(&db, opt);
	if (db.h && !opt->fresh && sqlite3_prepare_v2(db.h, "SELECT gflops "
	    "FROM peaks WHERE fingerprint = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, fp, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			*gflops = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	if (*gflops > 0) {
		db_close(&db);
		return 0;
	}
	run.threads = dojo_measure_threads(opt);
	db_lock(&db);
	rc = dojo_c_peak(&run, gflops);
	db_unlock(&db);
	if (rc == 0 && db.h && sqlite3_prepare_v2(db.h, "INSERT OR REPLACE "
	    "INTO peaks VALUES (?, ?, ?)", -1, &st, NULL) == SQLITE_OK) {
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ",
		    gmtime(&now));
		sqlite3_bind_text(st, 1, fp, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 2, *gflops);
		sqlite3_bind_text(st, 3, when, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			db_write_failed(&db);
		sqlite3_finalize(st);
	}
	db_close(&db);
	return rc;
}

/* Keep the runs "runs" of "m" (its state, fingerprint and outcome) in
 * the database of "opt"; the estimate of every run of that state and
 * fingerprint into "m". */
static void
keep_runs(struct dojo_measurement *m, const struct dojo_measure_run *runs,
    int n, const struct dojo_measure_options *opt)
{
	struct probe p;
	struct db db;
	int i;

	memset(&p, 0, sizeof p);
	p.m = m;
	p.keep = opt->stable ? opt->runs : 0;
	db_open(&db, opt);
	for (i = 0; i < n; i++)
		db_add_run(&db, m->state, m->fingerprint, &runs[i]);
	if (m->outcome == DOJO_OUTCOME_OK) {
		if (db_runs(&db, m->state, m->fingerprint, probe_add, &p) < 0 ||
		    p.n == 0)
			for (i = 0; i < n; i++)
				probe_add(&runs[i], &p);
		probe_estimate(&p);
	}
	m->new_runs = n;
	db_store(&db, m);
	db_close(&db);
	free(p.runs);
}

int
dojo_measure_record_remote(dojo_program *prog, const char *target,
    const char *machine, const char *build, const struct dojo_run_result *res,
    const struct dojo_measure_options *opt, struct dojo_measurement *m)
{
	struct dojo_measure_run r;
	char text[2048];

	memset(m, 0, sizeof *m);
	memset(&r, 0, sizeof r);
	dojo_program_id(m->state, prog);
	/* what the runner's side said of its machine, not this one's */
	snprintf(text, sizeof text, "target %s\ncodegen %d\nmachine %s\n"
	    "build %s\n", target, DOJO_C_CODEGEN, machine, build);
	dojo_sha1_hex(m->fingerprint, "", 0, text, strlen(text));
	r.began = res->began;
	r.ended = res->ended;
	r.median_ns = res->median_ns;
	r.ci_low_ns = res->ci_low_ns;
	r.ci_high_ns = res->ci_high_ns;
	r.reps = res->reps;
	r.threads = res->threads;
	r.wall_s = res->wall_s;
	snprintf(r.source, sizeof r.source, "runner");
	m->outcome = DOJO_OUTCOME_OK;
	keep_runs(m, &r, 1, opt);
	return 0;
}

void
dojo_measure_fingerprint(char out[41], const struct dojo_measure_options *opt)
{
	fingerprint(out, opt);
}

int
dojo_measure_known(dojo_program *prog, const struct dojo_measure_options *opt,
    struct dojo_measurement *m)
{
	struct probe p;
	struct db db;
	int rc;

	db_open(&db, opt);
	rc = probe_init(&db, &p, prog, opt, m, false);
	probe_free(&p);
	db_close(&db);
	return rc;
}

int
dojo_measure_runs(const struct dojo_measurement *m,
    const struct dojo_measure_options *opt, struct dojo_measure_run **runs)
{
	struct probe p;
	struct db db;
	int rc;

	memset(&p, 0, sizeof p);
	db_open(&db, opt);
	rc = db_runs(&db, m->state, m->fingerprint, probe_add, &p);
	db_close(&db);
	if (rc < 0) {
		free(p.runs);
		return -1;
	}
	*runs = p.runs;
	return p.n;
}

void
dojo_measure_keep(struct dojo_measurement *m,
    const struct dojo_measure_run *runs, int n,
    const struct dojo_measure_options *opt)
{
	keep_runs(m, runs, n, opt);
}

int
dojo_measure_cross(dojo_program *prog, dojo_program *ref, dojo_data *want,
    const struct dojo_target *t, const char *target, const char *runner,
    int reps, const struct dojo_measure_options *opt,
    struct dojo_measurement *m, struct dojo_cross_result *xr)
{
	/* the time limit of one run, for the checked run and each
	 * repetition: the program runs them all at once */
	struct dojo_cross_options xo = { dojo_target_variant(target), runner,
	    opt->run.cflags, dojo_c_exact(&opt->run),
	    opt->run.timeout * (reps + 1), reps };
	dojo_data *data = dojo_data_new(prog, 0);
	char build[512], msg[512];
	int rc = -1;

	memset(m, 0, sizeof *m);
	if (!data)
		return -1;
	dojo_data_randomize(data, 1);
	if (dojo_cross_run(t->cross, prog, data, &xo, xr) < 0)
		goto out;
	dojo_program_id(m->state, prog);
	m->outcome = xr->run.outcome;
	snprintf(m->message, sizeof m->message, "%s", xr->run.message);
	if (m->outcome == DOJO_OUTCOME_OK &&
	    !dojo_outputs_agree(prog, data, ref, want, msg, sizeof msg)) {
		m->outcome = DOJO_OUTCOME_WRONG;
		snprintf(m->message, sizeof m->message, "%s", msg);
	}
	if (m->outcome == DOJO_OUTCOME_OK && !xr->emulated) {
		snprintf(build, sizeof build, "%s %s %s%s%s", t->cross->cc,
		    dojo_c_mode_name(&opt->run), target, opt->run.cflags ?
		    " " : "", opt->run.cflags ? opt->run.cflags : "");
		dojo_measure_record_remote(prog, target, xr->machine, build,
		    &xr->run, opt, m);
	} else if (m->outcome == DOJO_OUTCOME_OK) {
		m->median_ns = xr->run.median_ns;
		m->ci_low_ns = xr->run.ci_low_ns;
		m->ci_high_ns = xr->run.ci_high_ns;
		m->reps = xr->run.reps;
		m->runs = m->new_runs = 1;
	}
	rc = 0;
out:
	dojo_data_free(data);
	return rc;
}
