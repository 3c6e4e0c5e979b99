/* encode.c: states and actions as vectors of numbers */
#include "config.h"
#include "agents/encode.h"
#include "src/util/error.h"
#include "src/core/env.h"
#include "ir/flag.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N_STRUCT 32		/* structural numbers; the rest: n-grams */
#define N_GRAMS (DOJO_ENCODE_STATE_DIM - N_STRUCT)
#define N_MOVES 20		/* move one-hot slots */

struct cached {
	char id[41];
	float *v;
};

struct dojo_encoder {
	char *cmd;			/* NULL: built-in */
	int dim;			/* of a state; 0: not known yet */
	struct cached *cache;
	size_t ncache, cap;		/* open addressing, cap a power of 2 */
};

dojo_encoder *
dojo_encoder_new(const char *cmd)
{
	dojo_encoder *enc = calloc(1, sizeof *enc);

	if (!enc)
		goto out_oom;
	if (cmd) {
		enc->cmd = strdup(cmd);
		if (!enc->cmd)
			goto out_oom;
	} else {
		enc->dim = DOJO_ENCODE_STATE_DIM;
	}
	return enc;
out_oom:
	free(enc);
	dojo_error_set("out of memory");
	return NULL;
}

void
dojo_encoder_free(dojo_encoder *enc)
{
	size_t i;

	if (!enc)
		return;
	for (i = 0; i < enc->cap; i++)
		free(enc->cache[i].v);
	free(enc->cache);
	free(enc->cmd);
	free(enc);
}

const char *
dojo_encoder_name(dojo_encoder *enc)
{
	return enc->cmd ? "cmd" : "struct-2";
}

int
dojo_encoder_state_dim(dojo_encoder *enc)
{
	return enc->dim;
}

int
dojo_encoder_pair_dim(dojo_encoder *enc)
{
	return 2 * enc->dim + DOJO_ENCODE_ACTION_DIM;
}

int
dojo_encoder_expect_dim(dojo_encoder *enc, int dim)
{
	if (enc->dim && enc->dim != dim)
		return dojo_error_set("encoder '%s' gives %d numbers, expected "
		    "%d", enc->cmd ? enc->cmd : "struct-2", enc->dim, dim);
	enc->dim = dim;
	return 0;
}

/* The built-in encoder. */

struct walk {
	float *v;
	dojo_program *prog;
	int64_t sizes[DOJO_MAX_DEPTH];
	char flags[DOJO_MAX_DEPTH];
	int nops, nscopes, maxdepth, nacc;
	double inner_log, work_log;
};

/* The element stride of access "acc" along the scope at depth "d". */
static int64_t
stride(dojo_program *prog, const dojo_access *acc, int d)
{
	int depth[DOJO_MAX_DEPTH], i, t, nt;
	int64_t coef[DOJO_MAX_DEPTH], c, row = 1, s = 0;
	int b = dojo_array_buffer(prog, dojo_access_array(acc));

	for (i = dojo_access_n_indices(acc) - 1; i >= 0; i--) {
		nt = dojo_access_index(acc, i, &c, depth, coef);
		for (t = 0; t < nt; t++)
			if (depth[t] == d)
				s += coef[t] * row;
		if (b >= 0 && i < dojo_buffer_ndim(prog, b))
			row *= dojo_buffer_extent(prog, b, i);
	}
	return s < 0 ? -s : s;
}

static void
walk_access(struct walk *w, const dojo_access *acc, int depth)
{
	int64_t s;

	if (depth == 0)
		return;
	s = stride(w->prog, acc, depth - 1);
	w->nacc++;
	if (s == 0)
		w->v[14] += 1;
	else if (s == 1)
		w->v[15] += 1;
	else if (s <= 16)
		w->v[16] += 1;
	else
		w->v[17] += 1;
}

static void
walk_expr(struct walk *w, const dojo_expr *e, int depth)
{
	if (!e)
		return;
	switch (dojo_expr_kind(e)) {
	case DOJO_E_NUM:
		return;
	case DOJO_E_ACCESS:
		walk_access(w, dojo_expr_access(e), depth);
		return;
	default:
		walk_expr(w, dojo_expr_arg(e, 0), depth);
		if (dojo_expr_kind(e) != DOJO_E_NEG)
			walk_expr(w, dojo_expr_arg(e, 1), depth);
	}
}

/* An operation under "depth" scopes, under its outermost parallel scope:
 * how often a parallel region is entered (the product of the sizes of
 * the scopes around it) and how many iterations it shares out.  An
 * inner parallel loop entered once per outer iteration costs a region
 * per iteration; one under scopes of size 1 does not. */
static void
walk_parallel(struct walk *w, int depth)
{
	double entries = 0;
	int d;

	for (d = 0; d < depth && d < DOJO_MAX_DEPTH; d++) {
		if (w->flags[d] == DOJO_FLAG_PARALLEL) {
			w->v[21] += 1;
			w->v[24] += (float)(entries / 16);
			w->v[25] += (float)(log2((double)w->sizes[d]) / 8);
			return;
		}
		entries += log2((double)w->sizes[d]);
	}
}

static void
walk_node(struct walk *w, dojo_node *node, int depth)
{
	double work = 0;
	int i, f;

	if (dojo_node_kind(node) == DOJO_OP) {
		w->nops++;
		walk_access(w, dojo_op_lhs(node), depth);
		walk_expr(w, dojo_op_rhs(node), depth);
		for (i = 0; i < depth; i++)
			work += log2((double)w->sizes[i]);
		w->work_log += work;
		if (depth > 0) {
			w->inner_log += log2((double)w->sizes[depth - 1]);
			if (w->flags[depth - 1] == DOJO_FLAG_VECTOR)
				w->v[20] += 1;
			if (w->flags[depth - 1] == DOJO_FLAG_UNROLL)
				w->v[23] += 1;
		}
		walk_parallel(w, depth);
		return;
	}
	w->nscopes++;
	if (depth + 1 > w->maxdepth)
		w->maxdepth = depth + 1;
	/* the counts of the flags u v p g b w, in slots 4 to 9: the order of
	 * their table */
	f = dojo_flag_index(dojo_node_flag(node));
	if (f >= 0)
		w->v[4 + f] += 1;
	if (depth < DOJO_MAX_DEPTH) {
		w->sizes[depth] = dojo_node_size(node);
		w->flags[depth] = dojo_node_flag(node);
	}
	if (depth == 0)
		w->v[22] += (float)log2((double)dojo_node_size(node));
	for (i = 0; i < dojo_node_n_children(node); i++)
		walk_node(w, dojo_node_child(node, i), depth + 1);
}

static uint32_t
fnv(const char *s, size_t n, uint32_t h)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Token unigrams and bigrams of the canonical text, hashed into
 * "out"[N_GRAMS] as log(1 + count). */
static void
ngrams(float *out, const char *text)
{
	const char *p = text, *prev = NULL, *start;
	size_t prevn = 0, n;
	uint32_t h;
	int i;

	while (*p) {
		if (isspace((unsigned char)*p) || *p == '|') {
			p++;
			continue;
		}
		start = p;
		if (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
			while (isalnum((unsigned char)*p) || *p == '_' ||
			    *p == '.')
				p++;
		else
			p++;
		n = (size_t)(p - start);
		h = fnv(start, n, 2166136261u);
		out[h % N_GRAMS] += 1;
		if (prev) {
			h = fnv(prev, prevn, 2166136261u);
			h = fnv(" ", 1, h);
			out[fnv(start, n, h) % N_GRAMS] += 1;
		}
		prev = start;
		prevn = n;
	}
	for (i = 0; i < N_GRAMS; i++)
		out[i] = (float)log1p(out[i]);
}

static int
builtin(float *v, dojo_program *prog)
{
	struct walk w;
	char *text;
	int i, b, nloc[4] = { 0 };

	memset(&w, 0, sizeof w);
	w.v = v;
	w.prog = prog;
	for (i = 0; i < dojo_program_n_children(prog); i++)
		walk_node(&w, dojo_program_child(prog, i), 0);
	for (b = 0; b < dojo_program_n_buffers(prog); b++)
		nloc[dojo_buffer_loc(prog, b)]++;
	v[0] = (float)log1p(w.nscopes);
	v[1] = (float)log1p(w.nops);
	v[2] = (float)w.maxdepth / 4;
	v[3] = (float)log1p(dojo_program_n_children(prog));
	for (i = 4; i < 10; i++)
		v[i] = (float)log1p(v[i]);
	v[10] = (float)log1p(nloc[DOJO_HEAP]);
	v[11] = (float)log1p(nloc[DOJO_STACK]);
	v[12] = (float)log1p(nloc[DOJO_REG]);
	if (w.nops) {
		v[13] = (float)(w.inner_log / w.nops / 4);
		v[18] = (float)(w.work_log / w.nops / 16);
		v[20] /= (float)w.nops;
		v[23] /= (float)w.nops;
	}
	if (v[21] > 0) {
		v[24] /= v[21];
		v[25] /= v[21];
	}
	if (w.nops)
		v[21] /= (float)w.nops;
	if (w.nacc)
		for (i = 14; i < 18; i++)
			v[i] /= (float)w.nacc;
	v[19] = (float)log1p(dojo_program_n_buffers(prog));
	v[22] = v[22] / 16;
	text = dojo_program_print(prog, false);
	if (!text)
		return dojo_error_set("out of memory");
	ngrams(v + N_STRUCT, text);
	free(text);
	return 0;
}

/* The external encoder. */

static int
external(dojo_encoder *enc, dojo_program *prog, const char *id, float **out)
{
	char path[] = "/tmp/perfdojo-encode.XXXXXX", *text, *p, *end;
	char *buf = NULL;
	size_t cap = 0, len = 0, n;
	float *v = NULL;
	int fd, pipefd[2], status, count = 0, vcap = 0, rc = -1;
	pid_t pid;
	FILE *f;

	text = dojo_program_print(prog, false);
	if (!text)
		return dojo_error_set("out of memory");
	fd = mkstemp(path);
	if (fd < 0) {
		free(text);
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	n = strlen(text);
	unlink(path);
	if (write(fd, text, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		free(text);
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	free(text);
	/* the command under sh -c, the text on its standard input: the
	 * shell reads only what the user wrote, no name of ours */
	fflush(NULL);
	if (pipe(pipefd) < 0) {
		dojo_error_set("encoder '%s': %s", enc->cmd, strerror(errno));
		close(fd);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		dojo_error_set("encoder '%s': %s", enc->cmd, strerror(errno));
		close(fd);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd, 0);
		dup2(pipefd[1], 1);
		close(fd);
		close(pipefd[0]);
		close(pipefd[1]);
		execl("/bin/sh", "sh", "-c", enc->cmd, (char *)NULL);
		_exit(127);
	}
	close(fd);
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	if (!f) {
		close(pipefd[0]);
		waitpid(pid, &status, 0);
		return dojo_error_set("encoder '%s': %s", enc->cmd,
		    strerror(errno));
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 8192);

			if (!nb)
				break;
			buf = nb;
		}
		n = fread(buf + len, 1, 4096, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (!buf) {
		dojo_error_set("out of memory");
		goto out;
	}
	buf[len] = '\0';
	if (status != 0) {
		dojo_error_set("encoder '%s' failed (%s %d) on state %.7s",
		    enc->cmd, WIFEXITED(status) ? "exit status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) :
		    WIFSIGNALED(status) ? WTERMSIG(status) : status, id);
		goto out;
	}
	for (p = buf;;) {
		double x;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		errno = 0;
		x = strtod(p, &end);
		if (end == p || (*end && !isspace((unsigned char)*end)) ||
		    !isfinite(x)) {
			for (end = p; *end && !isspace((unsigned char)*end);
			    end++)
				;
			dojo_error_set("encoder '%s': '%.*s' is not a finite "
			    "number (number %d, state %.7s)", enc->cmd,
			    (int)(end - p > 40 ? 40 : end - p), p, count + 1,
			    id);
			goto out;
		}
		if (count == vcap) {
			float *nv = realloc(v, (vcap = vcap * 2 + 64) *
			    sizeof *v);

			if (!nv) {
				dojo_error_set("out of memory");
				goto out;
			}
			v = nv;
		}
		v[count++] = (float)x;
		p = end;
	}
	if (count == 0) {
		dojo_error_set("encoder '%s' wrote no numbers for state %.7s",
		    enc->cmd, id);
		goto out;
	}
	if (enc->dim && count != enc->dim) {
		dojo_error_set("encoder '%s' wrote %d numbers for state %.7s, "
		    "expected %d", enc->cmd, count, id, enc->dim);
		goto out;
	}
	enc->dim = count;
	*out = v;
	v = NULL;
	rc = 0;
out:
	free(v);
	free(buf);
	return rc;
}


static int
cache_grow(dojo_encoder *enc)
{
	struct cached *old = enc->cache;
	size_t oldcap = enc->cap, i, j;

	enc->cap = oldcap ? 2 * oldcap : 256;
	enc->cache = calloc(enc->cap, sizeof *enc->cache);
	if (!enc->cache) {
		enc->cache = old;
		enc->cap = oldcap;
		return dojo_error_set("out of memory");
	}
	for (i = 0; i < oldcap; i++) {
		if (!old[i].v)
			continue;
		j = dojo_env_id_hash(old[i].id) & (enc->cap - 1);
		while (enc->cache[j].v)
			j = (j + 1) & (enc->cap - 1);
		enc->cache[j] = old[i];
	}
	free(old);
	return 0;
}

const float *
dojo_encoder_state(dojo_encoder *enc, dojo_program *prog, const char *id)
{
	char own[41];
	float *v = NULL;
	size_t j;

	if (!id) {
		dojo_program_id(own, prog);
		id = own;
	}
	if ((enc->ncache + 1) * 2 > enc->cap && cache_grow(enc) < 0)
		return NULL;
	j = dojo_env_id_hash(id) & (enc->cap - 1);
	for (; enc->cache[j].v; j = (j + 1) & (enc->cap - 1))
		if (strcmp(enc->cache[j].id, id) == 0)
			return enc->cache[j].v;
	if (enc->cmd) {
		if (external(enc, prog, id, &v) < 0)
			return NULL;
	} else {
		v = calloc(DOJO_ENCODE_STATE_DIM, sizeof *v);
		if (!v) {
			dojo_error_set("out of memory");
			return NULL;
		}
		if (builtin(v, prog) < 0) {
			free(v);
			return NULL;
		}
	}
	snprintf(enc->cache[j].id, sizeof enc->cache[j].id, "%s", id);
	enc->cache[j].v = v;
	enc->ncache++;
	return v;
}

/* psi(a): DOJO_ENCODE_ACTION_DIM numbers. */
static void
action_features(float *v, const struct dojo_action *a)
{
	int m = dojo_action_move_index(a), i;
	float named;

	memset(v, 0, DOJO_ENCODE_ACTION_DIM * sizeof *v);
	v[m < N_MOVES ? m : N_MOVES - 1] = 1;
	i = N_MOVES;
	v[i++] = (float)a->npath / 4;
	v[i++] = a->npath ? (float)a->path[0] / 4 : 0;
	v[i++] = a->npath ? (float)a->path[a->npath - 1] / 4 : 0;
	v[i++] = (float)a->nnum;
	v[i++] = a->nnum > 0 ? (float)log2(1.0 + fabs((double)a->num[0])) / 8 :
	    0;
	v[i++] = a->nnum > 1 ? (float)log2(1.0 + fabs((double)a->num[1])) / 8 :
	    0;
	named = a->buffer[0] || a->array[0];
	v[i++] = named;
	v[i + a->loc] = named;				/* 4 locations */
	i += 4;
	v[i++] = (float)a->nperm / 4;
}

int
dojo_encoder_pair(dojo_encoder *enc, dojo_program *prog, const char *id,
    const struct dojo_action *a, dojo_program *next, const char *next_id,
    float *out)
{
	const float *s, *t;
	int i, d;

	s = dojo_encoder_state(enc, prog, id);
	if (!s)
		return -1;
	t = dojo_encoder_state(enc, next, next_id);
	if (!t)
		return -1;
	d = enc->dim;
	for (i = 0; i < d; i++) {
		out[i] = s[i];
		out[d + i] = t[i] - s[i];
	}
	action_features(out + 2 * d, a);
	return 0;
}
