/* session_runs.c: the states an agent's run measured, kept beside the
 * session (RUNS_DIR/BRANCH.tsv), listed best first and taken into the
 * history on demand */
#include "config.h"
#include "src/core/session_private.h"
#include "ir/moves.h"
#include "targets/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNS_DIR "runs"
#define RUNS_HEADER "# perfdojo run 1\tstate\toutcome\tspeedup\tconfirmed" \
	"\tlow\thigh\tdisturbed\tmoves\n"

/* The file of run "run" (a branch name, "agent/auto-1") into "out";
 * -1 for a name that is no branch name of an agent's run. */
static int
run_path(char *out, size_t len, dojo_session *s, const char *run)
{
	if (!*run || strstr(run, "..") || run[0] == '/' ||
	    strcspn(run, " \t\n\\") != strlen(run))
		return dojo_error_set("'%s' is not the branch of a run", run);
	snprintf(out, len, "%s/" RUNS_DIR "/%s.tsv", s->dir, run);
	return 0;
}

/* mkdir -p of the directories of "path" below the session's. */
static int
make_dirs(const char *path, size_t from)
{
	char dir[4096];
	size_t i;

	snprintf(dir, sizeof dir, "%s", path);
	for (i = from; dir[i]; i++) {
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		if (mkdir(dir, 0777) < 0 && errno != EEXIST)
			return dojo_error_set("%s: %s", dir, strerror(errno));
		dir[i] = '/';
	}
	return 0;
}

int
dojo_session_write_run(dojo_session *s, const char *run,
    const struct dojo_run_state *rows, int n)
{
	char path[4096], tmp[4200];
	FILE *f;
	int i, fd;

	if (run_path(path, sizeof path, s, run) < 0 ||
	    make_dirs(path, strlen(s->dir) + 1) < 0)
		return -1;
	snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	fputs(RUNS_HEADER, f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s\t%s\t%.6g\t%d\t%.6g\t%.6g\t%d\t%s\n",
		    rows[i].state, rows[i].outcome, rows[i].speedup,
		    rows[i].confirmed, rows[i].low, rows[i].high,
		    rows[i].disturbed, rows[i].moves ? rows[i].moves : "");
	if (fflush(f) != 0 || fsync(fileno(f)) < 0 || ferror(f)) {
		dojo_error_set("%s: %s", path, strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fclose(f);
	if (rename(tmp, path) < 0) {
		dojo_error_set("%s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

void
dojo_run_states_free(struct dojo_run_state *rows, int n)
{
	int i;

	for (i = 0; rows && i < n; i++)
		free(rows[i].moves);
	free(rows);
}

/* The value by which the rows are ranked: the confirmed speedup, else the
 * first look; a failed state last. */
static double
rank_value(const struct dojo_run_state *r)
{
	if (strcmp(r->outcome, "ok") != 0)
		return -1;
	return r->speedup;
}

static int
by_rank(const void *a, const void *b)
{
	const struct dojo_run_state *x = a, *y = b;
	double vx = rank_value(x), vy = rank_value(y);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->confirmed != y->confirmed)
		return x->confirmed ? -1 : 1;
	return x->nmoves - y->nmoves;
}

/* Read one row of "line" (its newline cut); 0 or -1. */
static int
read_row(struct dojo_run_state *r, char *line)
{
	char *f[8], *p = line;
	int i, k;

	memset(r, 0, sizeof *r);
	for (i = 0; i < 7; i++) {
		f[i] = p;
		p = strchr(p, '\t');
		if (!p)
			return -1;
		*p++ = '\0';
	}
	f[7] = p;
	if (strlen(f[0]) != 40 || strlen(f[1]) >= sizeof r->outcome)
		return -1;
	memcpy(r->state, f[0], 41);
	snprintf(r->outcome, sizeof r->outcome, "%s", f[1]);
	r->speedup = strtod(f[2], NULL);
	r->confirmed = atoi(f[3]) != 0;
	r->low = strtod(f[4], NULL);
	r->high = strtod(f[5], NULL);
	r->disturbed = atoi(f[6]) != 0;
	r->moves = strdup(f[7]);
	if (!r->moves)
		return -1;
	for (k = 0, p = r->moves; *p; p++)
		k += *p == ';';
	r->nmoves = *r->moves ? k + 1 : 0;
	return 0;
}

int
dojo_session_read_run(dojo_session *s, const char *run,
    struct dojo_run_state **out)
{
	struct dojo_run_state *rows = NULL;
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0, alloc = 0, no = 0;
	FILE *f;

	*out = NULL;
	if (run_path(path, sizeof path, s, run) < 0)
		return -1;
	f = fopen(path, "r");
	if (!f)
		return dojo_error_set("%s: no states of a run '%s' (%s)",
		    s->dir, run, strerror(errno));
	while ((len = getline(&line, &cap, f)) >= 0) {
		no++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (n == alloc) {
			struct dojo_run_state *p;

			alloc = alloc ? 2 * alloc : 64;
			p = realloc(rows, alloc * sizeof *p);
			if (!p)
				goto fail;
			rows = p;
		}
		if (read_row(&rows[n], line) < 0) {
			free(rows[n].moves);
			dojo_error_at(path, no, 1, "not a row of a run's "
			    "states");
			goto fail_read;
		}
		n++;
	}
	free(line);
	fclose(f);
	if (n)
		qsort(rows, n, sizeof *rows, by_rank);
	*out = rows;
	return n;
fail:
	dojo_error_set("out of memory");
fail_read:
	free(line);
	fclose(f);
	dojo_run_states_free(rows, n);
	return -1;
}

/* The newest run file below "dir" (relative name "rel"), at most two
 * levels down, into "out". */
static void
newest_run(const char *dir, const char *rel, int depth, char *out,
    size_t len, double *newest)
{
	struct dirent *d;
	char path[4096], name[1024];
	struct stat st;
	DIR *dp = opendir(dir);
	size_t n;

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, d->d_name);
		snprintf(name, sizeof name, "%s%s%s", rel, *rel ? "/" : "",
		    d->d_name);
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < 2)
				newest_run(path, name, depth + 1, out, len,
				    newest);
			continue;
		}
		n = strlen(name);
		if (n < 5 || strcmp(name + n - 4, ".tsv") != 0 ||
		    (double)st.st_mtime + st.st_mtim.tv_nsec * 1e-9 <= *newest)
			continue;
		*newest = (double)st.st_mtime + st.st_mtim.tv_nsec * 1e-9;
		snprintf(out, len, "%.*s", (int)n - 4, name);
	}
	closedir(dp);
}

int
dojo_session_last_run(dojo_session *s, char *out, size_t len)
{
	char path[4096];
	struct stat st;
	double newest = -1;

	/* the current branch, if it is a run's */
	snprintf(out, len, "%s", s->branch);
	if (*out && run_path(path, sizeof path, s, out) == 0 &&
	    stat(path, &st) == 0)
		return 0;
	dojo_error_clear();
	out[0] = '\0';
	snprintf(path, sizeof path, "%s/" RUNS_DIR, s->dir);
	newest_run(path, "", 1, out, len, &newest);
	return out[0] ? 0 : dojo_error_set("%s: no agent's run has its "
	    "states here (perfdojo tune writes them)", s->dir);
}

enum dojo_result
dojo_session_take_run_state(dojo_session *s, const char *run,
    const struct dojo_run_state *row, int rank, const char *target,
    char *branch, size_t len)
{
	char commit[41], start[41], name[300], *moves = NULL, *p, *next;
	struct dojo_session_entry e;
	struct dojo_session_step step;
	enum dojo_result r;

	branch[0] = '\0';
	if (dojo_session_find_state(s, row->state, commit) < 0)
		return DOJO_FAILED;
	if (commit[0])
		return dojo_session_jump(s, commit);
	/* not in the history: its moves from the start, on a branch of its
	 * own */
	snprintf(name, sizeof name, "%s.%d", run, rank);
	if (dojo_session_entry(s, name, &e) == 0) {
		dojo_error_set("%s: the branch %s exists and does not hold "
		    "state %.7s", s->dir, name, row->state);
		return DOJO_REFUSED;
	}
	dojo_error_clear();
	dojo_program_id(start, dojo_session_start(s));
	if (dojo_session_find_state(s, start, commit) < 0)
		return DOJO_FAILED;
	if (!commit[0]) {
		dojo_error_set("%s: no commit holds the start", s->dir);
		return DOJO_FAILED;
	}
	if ((r = dojo_session_jump(s, commit)) == DOJO_FAILED)
		return DOJO_FAILED;
	snprintf(branch, len, "%s", name);
	if ((r = dojo_session_branch_create(s, branch)) != DOJO_DONE)
		return r;
	moves = strdup(row->moves);
	if (!moves) {
		dojo_error_set("out of memory");
		return DOJO_FAILED;
	}
	r = DOJO_DONE;
	for (p = moves; r == DOJO_DONE && *p; p = next) {
		next = p + strcspn(p, ";");
		if (*next)
			*next++ = '\0';
		while (*p == ' ')
			p++;
		if (*p)
			r = dojo_session_apply(s, p, target, &step);
	}
	free(moves);
	return r;
}

void
dojo_run_states_format(struct dojo_strbuf *sb, const char *run,
    const struct dojo_run_state *rows, int n)
{
	const char *last;
	int i;

	dojo_strbuf_printf(sb, "run %s: %d state%s measured, best first "
	    "(take one: its rank)\n", run, n, n == 1 ? "" : "s");
	dojo_strbuf_puts(sb, "rank  speedup  95% interval      moves  "
	    "state    last move\n");
	for (i = 0; i < n; i++) {
		const struct dojo_run_state *r = &rows[i];
		char speed[32], interval[80];

		if (strcmp(r->outcome, "ok") != 0)
			snprintf(speed, sizeof speed, "%s", r->outcome);
		else
			snprintf(speed, sizeof speed, "%.3fx%s", r->speedup,
			    r->disturbed ? "!" : "");
		if (r->confirmed)
			dojo_format_interval(interval, r->low, r->high, 3);
		else
			snprintf(interval, sizeof interval, "%s",
			    strcmp(r->outcome, "ok") ? "" : "first look");
		last = strrchr(r->moves, ';');
		last = last ? last + 1 + strspn(last + 1, " ") : r->moves;
		dojo_strbuf_printf(sb, "%-5d %-8s %-17s %-6d %.7s  %s\n", i + 1,
		    speed, interval, r->nmoves, r->state, *last ? last :
		    "(the start)");
	}
}
