/* tune_mpi.c: perfdojo tune --mpi: rank 0 plays (the agent, the session,
 * the database: the only writer); the other ranks measure the states it
 * sends them, a batch at a time, and send back each measurement with its
 * runs, which rank 0 keeps as it arrives */
#include "config.h"
#include "src/cmd/tune_mpi.h"
#include "src/util/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double
dojo_synthetic_ns(dojo_program *prog)
{
	char id[41];
	uint64_t h = 1469598103934665603ULL;
	int i;

	dojo_program_id(id, prog);
	for (i = 0; id[i]; i++)
		h = (h ^ (unsigned char)id[i]) * 1099511628211ULL;
	return 5e5 + (double)(h % 1000000);
}

#ifndef HAVE_MPI

bool
dojo_mpi_built(void)
{
	return false;
}

int
dojo_mpi_start(int *rank, int *size)
{
	*rank = 0;
	*size = 1;
	return dojo_error_set("--mpi: this perfdojo was built without Open MPI "
	    "(install libopenmpi-dev and openmpi-bin, then configure "
	    "--with-mpi)");
}

void
dojo_mpi_stop(void)
{
}

void
dojo_mpi_abandon(void)
{
}

int
dojo_mpi_serve(const struct dojo_mpi_options *opt)
{
	(void)opt;
	return dojo_error_set("--mpi: built without Open MPI");
}

dojo_mpi *
dojo_mpi_lead(dojo_program *start, const struct dojo_mpi_options *opt,
    struct dojo_env_options *eo)
{
	(void)start;
	(void)opt;
	(void)eo;
	dojo_error_set("--mpi: built without Open MPI");
	return NULL;
}

void
dojo_mpi_finish(dojo_mpi *c, char *out, size_t len)
{
	(void)c;
	if (out && len)
		out[0] = '\0';
}

#else

#include <mpi.h>

enum {
	TAG_HELLO = 1,		/* rank -> 0: struct hello */
	TAG_START,		/* 0 -> rank: the job's key, then the start */
	TAG_WORK,		/* 0 -> rank: an index, then a program */
	TAG_RESULT,		/* rank -> 0: struct result, then its runs */
	TAG_STOP,		/* 0 -> rank: no more */
};

struct hello {
	char fingerprint[41];
	char host[128];
	char cpu[256];
	double start_ns;	/* with --mixed: the start's time there */
	int ok;			/* it could measure the start */
	char why[512];
};

struct result {
	int32_t index;
	int32_t nruns;
	int32_t error;		/* the measurement could not be made */
	struct dojo_measurement m;
};

struct dojo_mpi {
	struct dojo_mpi_options opt;
	int size;
	struct hello *hello;	/* by rank */
	double *scale;		/* by rank: into the first rank's times */
	int *count;		/* by rank: measurements made */
	int known;		/* from the database, not sent */
	FILE *log;
};

bool
dojo_mpi_built(void)
{
	return true;
}

int
dojo_mpi_start(int *rank, int *size)
{
	int ready = 0;

	MPI_Initialized(&ready);
	if (!ready && MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return dojo_error_set("--mpi: MPI_Init failed");
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	return 0;
}

void
dojo_mpi_stop(void)
{
	int done = 0;

	MPI_Finalized(&done);
	if (!done)
		MPI_Finalize();
}

/* Wait for a message of "tag" from "from" (either may be a wildcard)
 * asleep: MPI's own wait spins, and a spinning rank is a runnable thread
 * that disturbs the timed runs of the node (doc/measure.md). */
static void
wait_message(int from, int tag, MPI_Status *st)
{
	struct timespec nap = { 0, 250000 };	/* 0.25 ms */
	int flag = 0;

	for (;;) {
		MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, st);
		if (flag)
			return;
		nanosleep(&nap, NULL);
	}
}

/* Receive a message of "tag" from "from" whatever its length: a
 * malloc'd buffer (NUL-terminated past it) and its length in "*len";
 * NULL when out of memory. */
static char *
receive(int from, int tag, int *len, int *source)
{
	MPI_Status st;
	char *buf;
	int n;

	wait_message(from, tag, &st);
	MPI_Get_count(&st, MPI_BYTE, &n);
	buf = malloc((size_t)n + 1);
	if (!buf)
		return NULL;
	MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD,
	    MPI_STATUS_IGNORE);
	buf[n] = '\0';
	*len = n;
	if (source)
		*source = st.MPI_SOURCE;
	return buf;
}

/* The scratch database of a measuring rank: one a node and job, so that
 * the ranks of a node share its lock (never two timed runs at once). */
static void
scratch_path(char *out, size_t len, const char *key)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(out, len, "%s/perfdojo-mpi-%s.db", tmp && *tmp ? tmp : "/tmp",
	    key);
}

static void
scratch_remove(const char *path)
{
	static const char *const ext[] = { "", "-wal", "-shm", ".lock" };
	char f[4200];
	int i;

	for (i = 0; i < 4; i++) {
		snprintf(f, sizeof f, "%s%s", path, ext[i]);
		unlink(f);
	}
}

/* A measuring rank's measurement of "prog" into "r" and its runs (the
 * scratch database's) into "*runs". */
static void
measure_one(dojo_program *prog, dojo_program *start, dojo_data **want,
    const struct dojo_mpi_options *opt, struct result *r,
    struct dojo_measure_run **runs)
{
	*runs = NULL;
	r->nruns = 0;
	r->error = 0;
	if (opt->synthetic) {
		memset(&r->m, 0, sizeof r->m);
		dojo_program_id(r->m.state, prog);
		r->m.outcome = DOJO_OUTCOME_OK;
		r->m.median_ns = r->m.ci_low_ns = r->m.ci_high_ns =
		    dojo_synthetic_ns(prog);
		r->m.runs = r->m.reps = 1;
		return;
	}
	if (dojo_measure_against(prog, start, want, &opt->measure, &r->m) < 0) {
		r->error = 1;
		snprintf(r->m.message, sizeof r->m.message, "%s",
		    dojo_error_last());
		return;
	}
	if (r->m.outcome == DOJO_OUTCOME_OK) {
		int n = dojo_measure_runs(&r->m, &opt->measure, runs);

		r->nruns = n > 0 ? n : 0;
	}
}

int
dojo_mpi_serve(const struct dojo_mpi_options *given)
{
	struct dojo_mpi_options opt = *given;
	struct dojo_measure_run *runs;
	struct hello h;
	struct result r;
	dojo_program *start = NULL, *prog;
	dojo_data *want = NULL;
	char db[4096], *key, *text, *buf;
	int len, rc = -1;

	/* the job's key, then the start as rank 0 read it (or a stop: rank 0
	 * could not start) */
	{
		MPI_Status st;

		wait_message(0, MPI_ANY_TAG, &st);
		if (st.MPI_TAG == TAG_STOP) {
			MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_STOP,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			return 0;
		}
	}
	key = receive(0, TAG_START, &len, NULL);
	text = receive(0, TAG_START, &len, NULL);
	if (!key || !text || !(start = dojo_program_parse("start", text,
	    (size_t)len))) {
		free(key);
		free(text);
		return -1;
	}
	scratch_path(db, sizeof db, key);
	opt.measure.db = db;
	memset(&h, 0, sizeof h);
	dojo_measure_fingerprint(h.fingerprint, &opt.measure);
	gethostname(h.host, sizeof h.host - 1);
	dojo_cpu_model(h.cpu, sizeof h.cpu);
	h.ok = 1;
	if (opt.mixed && !opt.synthetic) {
		memset(&r, 0, sizeof r);
		measure_one(start, start, &want, &opt, &r, &runs);
		free(runs);
		h.ok = !r.error && r.m.outcome == DOJO_OUTCOME_OK;
		h.start_ns = r.m.median_ns;
		snprintf(h.why, sizeof h.why, "%s", r.m.message);
	}
	MPI_Send(&h, sizeof h, MPI_BYTE, 0, TAG_HELLO, MPI_COMM_WORLD);
	for (;;) {
		MPI_Status st;

		wait_message(0, MPI_ANY_TAG, &st);
		if (st.MPI_TAG == TAG_STOP) {
			MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_STOP,
			    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			rc = 0;
			break;
		}
		buf = receive(0, TAG_WORK, &len, NULL);
		if (!buf || len < 4)
			break;
		memset(&r, 0, sizeof r);
		memcpy(&r.index, buf, 4);
		prog = dojo_program_parse("state", buf + 4, (size_t)len - 4);
		runs = NULL;
		if (prog)
			measure_one(prog, start, &want, &opt, &r, &runs);
		else {
			r.error = 1;
			snprintf(r.m.message, sizeof r.m.message, "%s",
			    dojo_error_last());
		}
		dojo_program_free(prog);
		free(buf);
		/* the result, then its runs */
		buf = malloc(sizeof r + (size_t)r.nruns * sizeof *runs);
		if (!buf) {
			free(runs);
			break;
		}
		memcpy(buf, &r, sizeof r);
		if (r.nruns)
			memcpy(buf + sizeof r, runs, (size_t)r.nruns *
			    sizeof *runs);
		MPI_Send(buf, (int)(sizeof r + (size_t)r.nruns * sizeof *runs),
		    MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
		free(buf);
		free(runs);
	}
	scratch_remove(db);
	dojo_data_free(want);
	dojo_program_free(start);
	free(key);
	free(text);
	return rc;
}

/* Send the program "prog" to rank "to" as the work "index". */
static int
send_work(int to, int index, dojo_program *prog)
{
	char *text = dojo_program_print(prog, false), *buf;
	size_t n;

	if (!text)
		return dojo_error_set("out of memory");
	n = strlen(text);
	buf = malloc(n + 4);
	if (!buf) {
		free(text);
		return dojo_error_set("out of memory");
	}
	memcpy(buf, &index, 4);
	memcpy(buf + 4, text, n);
	MPI_Send(buf, (int)(n + 4), MPI_BYTE, to, TAG_WORK, MPI_COMM_WORLD);
	free(buf);
	free(text);
	return 0;
}

/* Rank 0: the "n" programs measured by the other ranks, each as soon as
 * one is free; each result kept in the database the moment it arrives.
 * States the database knows already are not sent. */
static int
measure_remote(dojo_program **progs, int n, struct dojo_measurement *out,
    void *payload)
{
	struct dojo_mpi *c = payload;
	int *busy = calloc(c->size, sizeof *busy), *todo = calloc(n + 1,
	    sizeof *todo);
	int i, k = 0, next = 0, pending = 0, w, from, len, rc = 0;
	struct result r;
	char *buf;

	if (!busy || !todo) {
		free(busy);
		free(todo);
		return dojo_error_set("out of memory");
	}
	for (i = 0; i < n; i++) {
		if (!c->opt.synthetic && dojo_measure_known(progs[i],
		    &c->opt.measure, &out[i]) == 1) {
			c->known++;
			continue;
		}
		todo[k++] = i;
	}
	while (rc == 0 && (next < k || pending > 0)) {
		for (w = 1; w < c->size && next < k; w++) {
			if (busy[w])
				continue;
			if (send_work(w, todo[next], progs[todo[next]]) < 0) {
				rc = -1;
				break;
			}
			busy[w] = 1;
			next++;
			pending++;
		}
		if (rc < 0 || pending == 0)
			break;
		buf = receive(MPI_ANY_SOURCE, TAG_RESULT, &len, &from);
		if (!buf || (size_t)len < sizeof r) {
			free(buf);
			rc = dojo_error_set("rank %d: a result that is not one",
			    from);
			break;
		}
		memcpy(&r, buf, sizeof r);
		busy[from] = 0;
		pending--;
		if (r.error || r.index < 0 || r.index >= n) {
			rc = dojo_error_set("rank %d (%s): %s", from,
			    c->hello[from].host, r.m.message);
			free(buf);
			break;
		}
		/* the runs, kept under the rank's fingerprint */
		if (!c->opt.synthetic)
			dojo_measure_keep(&r.m, (const struct dojo_measure_run *)
			    (buf + sizeof r), r.nruns, &c->opt.measure);
		free(buf);
		c->count[from]++;
		if (c->log) {
			fprintf(c->log, "%s\t%d\t%s\t%s\t%.0f\n", r.m.state, from,
			    c->hello[from].host, dojo_outcome_name(r.m.outcome),
			    r.m.median_ns);
			fflush(c->log);
		}
		r.m.median_ns *= c->scale[from];
		r.m.ci_low_ns *= c->scale[from];
		r.m.ci_high_ns *= c->scale[from];
		out[r.index] = r.m;
	}
	/* after an error, the results still on their way */
	while (pending-- > 0) {
		buf = receive(MPI_ANY_SOURCE, TAG_RESULT, &len, &from);
		free(buf);
	}
	free(busy);
	free(todo);
	return rc;
}

static void
stop_all(int size)
{
	int w;

	for (w = 1; w < size; w++)
		MPI_Send(NULL, 0, MPI_BYTE, w, TAG_STOP, MPI_COMM_WORLD);
}

void
dojo_mpi_abandon(void)
{
	int size;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	stop_all(size);
}

dojo_mpi *
dojo_mpi_lead(dojo_program *start, const struct dojo_mpi_options *opt,
    struct dojo_env_options *eo)
{
	struct dojo_mpi *c = calloc(1, sizeof *c);
	char key[256], host[128] = "", mine[41], *text = NULL;
	int w, size;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (!c)
		goto oom;
	c->opt = *opt;
	c->size = size;
	c->hello = calloc(size, sizeof *c->hello);
	c->scale = calloc(size, sizeof *c->scale);
	c->count = calloc(size, sizeof *c->count);
	text = dojo_program_print(start, false);
	if (!c->hello || !c->scale || !c->count || !text)
		goto oom;
	if (size < 2) {
		dojo_error_set("--mpi: one rank: start it with mpirun -np N "
		    "(N >= 2: rank 0 plays, the others measure)");
		goto fail;
	}
	gethostname(host, sizeof host - 1);
	snprintf(key, sizeof key, "%s-%ld", host, (long)getpid());
	for (w = 1; w < size; w++) {
		MPI_Send(key, (int)strlen(key), MPI_BYTE, w, TAG_START,
		    MPI_COMM_WORLD);
		MPI_Send(text, (int)strlen(text), MPI_BYTE, w, TAG_START,
		    MPI_COMM_WORLD);
	}
	dojo_measure_fingerprint(mine, &opt->measure);
	for (w = 1; w < size; w++) {
		c->scale[w] = 1;
		MPI_Status st;

		wait_message(w, TAG_HELLO, &st);
		MPI_Recv(&c->hello[w], sizeof *c->hello, MPI_BYTE, w, TAG_HELLO,
		    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	for (w = 1; w < size; w++) {
		struct hello *h = &c->hello[w];

		if (!h->ok) {
			dojo_error_set("--mpi: rank %d (%s): the start does not "
			    "run there: %s", w, h->host, h->why);
			goto fail;
		}
		if (!opt->mixed && !opt->synthetic &&
		    strcmp(h->fingerprint, mine) != 0) {
			char cpu[256];

			dojo_cpu_model(cpu, sizeof cpu);
			dojo_error_set("--mpi: rank %d (%s, %s) does not measure "
			    "as rank 0 (%s, %s): another CPU, compiler or flags; "
			    "--mixed keeps their times apart", w, h->host, h->cpu,
			    host, cpu);
			goto fail;
		}
		/* --mixed: each rank's times in the first's terms */
		if (opt->mixed && !opt->synthetic && h->start_ns > 0 &&
		    c->hello[1].start_ns > 0)
			c->scale[w] = c->hello[1].start_ns / h->start_ns;
	}
	if (opt->log && !(c->log = fopen(opt->log, "a"))) {
		dojo_error_set("%s: cannot open", opt->log);
		goto fail;
	}
	free(text);
	eo->remote = measure_remote;
	eo->remote_payload = c;
	/* the rewards are first looks: no pair runs on rank 0 */
	eo->no_confirm = true;
	eo->cost = NULL;
	return c;
oom:
	dojo_error_set("out of memory");
fail:
	if (!c)
		stop_all(size);
	free(text);
	dojo_mpi_finish(c, NULL, 0);
	return NULL;
}

void
dojo_mpi_finish(dojo_mpi *c, char *out, size_t len)
{
	size_t n = 0;
	int w;

	if (out && len)
		out[0] = '\0';
	if (!c)
		return;
	/* the measuring ranks stop (before their start, or after) */
	stop_all(c->size);
	if (out && len && c->count) {
		n += snprintf(out + n, len - n, "%d ranks measured:",
		    c->size - 1);
		for (w = 1; w < c->size && n < len; w++)
			n += snprintf(out + n, len - n, "%s %d on %s",
			    w > 1 ? "," : "", c->count[w], c->hello[w].host);
		if (n < len)
			snprintf(out + n, len - n, "; %d from the database",
			    c->known);
	}
	if (c->log)
		fclose(c->log);
	free(c->hello);
	free(c->scale);
	free(c->count);
	free(c);
}

#endif
