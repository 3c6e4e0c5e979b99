/* qnet.c: the Q-network of the Max-Q player */
#include "config.h"
#include "agents/qnet.h"
#include "ir/data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dojo_qnet {
	int dim, hidden;
	size_t np;			/* parameters */
	/* offsets of W1 [hidden x dim], b1, W2 [hidden x hidden], b2,
	 * W3 [hidden], b3 in each array */
	size_t w1, b1, w2, b2, w3, b3;
	double *p, *t;			/* online, target */
	double *g, *m, *v;		/* gradient, Adam's moments */
	double *h1, *h2, *d1, *d2;	/* activations and their errors */
	long updates;
};

dojo_qnet *
dojo_qnet_new(int dim, int hidden, uint64_t seed)
{
	dojo_qnet *q = calloc(1, sizeof *q);
	size_t i;
	double scale;

	if (!q)
		goto out_oom;
	q->dim = dim;
	q->hidden = hidden;
	q->w1 = 0;
	q->b1 = q->w1 + (size_t)hidden * dim;
	q->w2 = q->b1 + hidden;
	q->b2 = q->w2 + (size_t)hidden * hidden;
	q->w3 = q->b2 + hidden;
	q->b3 = q->w3 + hidden;
	q->np = q->b3 + 1;
	q->p = calloc(q->np, sizeof *q->p);
	q->t = calloc(q->np, sizeof *q->t);
	q->g = calloc(q->np, sizeof *q->g);
	q->m = calloc(q->np, sizeof *q->m);
	q->v = calloc(q->np, sizeof *q->v);
	q->h1 = calloc(4 * (size_t)hidden, sizeof *q->h1);
	if (!q->p || !q->t || !q->g || !q->m || !q->v || !q->h1)
		goto out_oom;
	q->h2 = q->h1 + hidden;
	q->d1 = q->h2 + hidden;
	q->d2 = q->d1 + hidden;
	/* He's initialisation: uniform of variance 2 / fan-in */
	for (i = 0; i < q->np; i++) {
		if (i >= q->b1 && i < q->w2)
			continue;
		if (i >= q->b2 && i < q->w3)
			continue;
		if (i == q->b3)
			continue;
		scale = sqrt(6.0 / (i < q->b1 ? dim : hidden));
		q->p[i] = scale * (dojo_splitmix64_unit(&seed) * 2 - 1);
	}
	dojo_qnet_sync(q);
	return q;
out_oom:
	dojo_qnet_free(q);
	dojo_error_set("out of memory");
	return NULL;
}

void
dojo_qnet_free(dojo_qnet *q)
{
	if (!q)
		return;
	free(q->p);
	free(q->t);
	free(q->g);
	free(q->m);
	free(q->v);
	free(q->h1);
	free(q);
}

int
dojo_qnet_dim(dojo_qnet *q)
{
	return q->dim;
}

long
dojo_qnet_updates(dojo_qnet *q)
{
	return q->updates;
}

void
dojo_qnet_sync(dojo_qnet *q)
{
	memcpy(q->t, q->p, q->np * sizeof *q->p);
}

/* The forward pass of parameters "w" on "x", keeping the activations. */
static double
forward(dojo_qnet *q, const double *w, const float *x)
{
	int i, j, h = q->hidden, d = q->dim;
	double s;

	for (i = 0; i < h; i++) {
		const double *row = w + q->w1 + (size_t)i * d;

		s = w[q->b1 + i];
		for (j = 0; j < d; j++)
			s += row[j] * x[j];
		q->h1[i] = s > 0 ? s : 0;
	}
	for (i = 0; i < h; i++) {
		const double *row = w + q->w2 + (size_t)i * h;

		s = w[q->b2 + i];
		for (j = 0; j < h; j++)
			s += row[j] * q->h1[j];
		q->h2[i] = s > 0 ? s : 0;
	}
	s = w[q->b3];
	for (i = 0; i < h; i++)
		s += w[q->w3 + i] * q->h2[i];
	return s;
}

double
dojo_qnet_eval(dojo_qnet *q, const float *x, bool target)
{
	return forward(q, target ? q->t : q->p, x);
}

double
dojo_qnet_train(dojo_qnet *q, const float *xs, const double *ys, int n,
    double lr)
{
	const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
	int r, i, j, h = q->hidden, d = q->dim;
	double loss = 0, out, dq, c1, c2;
	const float *x;
	size_t k;

	if (n <= 0)
		return 0;
	memset(q->g, 0, q->np * sizeof *q->g);
	for (r = 0; r < n; r++) {
		x = xs + (size_t)r * d;
		out = forward(q, q->p, x);
		loss += (out - ys[r]) * (out - ys[r]);
		dq = 2 * (out - ys[r]) / n;
		q->g[q->b3] += dq;
		for (i = 0; i < h; i++) {
			q->g[q->w3 + i] += dq * q->h2[i];
			q->d2[i] = q->h2[i] > 0 ? dq * q->p[q->w3 + i] : 0;
		}
		for (j = 0; j < h; j++)
			q->d1[j] = 0;
		for (i = 0; i < h; i++) {
			double *g = q->g + q->w2 + (size_t)i * h;
			const double *w = q->p + q->w2 + (size_t)i * h;

			if (q->d2[i] == 0)
				continue;
			q->g[q->b2 + i] += q->d2[i];
			for (j = 0; j < h; j++) {
				g[j] += q->d2[i] * q->h1[j];
				q->d1[j] += q->d2[i] * w[j];
			}
		}
		for (i = 0; i < h; i++) {
			double *g = q->g + q->w1 + (size_t)i * d;

			if (q->h1[i] <= 0 || q->d1[i] == 0)
				continue;
			q->g[q->b1 + i] += q->d1[i];
			for (j = 0; j < d; j++)
				g[j] += q->d1[i] * x[j];
		}
	}
	q->updates++;
	c1 = 1 - pow(b1, (double)q->updates);
	c2 = 1 - pow(b2, (double)q->updates);
	for (k = 0; k < q->np; k++) {
		q->m[k] = b1 * q->m[k] + (1 - b1) * q->g[k];
		q->v[k] = b2 * q->v[k] + (1 - b2) * q->g[k] * q->g[k];
		q->p[k] -= lr * (q->m[k] / c1) / (sqrt(q->v[k] / c2) + eps);
	}
	return loss / n;
}

double
dojo_maxq_target(double r, bool failed, double gamma, const double *qnext,
    int n)
{
	double best;
	int i;

	if (failed || n <= 0)
		return r;
	best = qnext[0];
	for (i = 1; i < n; i++)
		if (qnext[i] > best)
			best = qnext[i];
	return r > gamma * best ? r : gamma * best;
}

double
dojo_maxq_target_double(double r, bool failed, double gamma,
    const double *qnext, const double *qpick, int n)
{
	int i, best = 0;

	if (failed || n <= 0)
		return r;
	for (i = 1; i < n; i++)
		if (qpick[i] > qpick[best])
			best = i;
	return r > gamma * qnext[best] ? r : gamma * qnext[best];
}

int
dojo_qnet_save(dojo_qnet *q, const char *path, const char *encoder,
    int encoder_dim)
{
	FILE *f = fopen(path, "w");
	size_t k;

	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	fprintf(f, "%s %d\nagent maxq\nencoder %s %d\nlayers %d %d %d 1\n"
	    "updates %ld\nweights %zu\n", DOJO_MODEL_MAGIC, DOJO_MODEL_VERSION,
	    encoder, encoder_dim, q->dim, q->hidden, q->hidden, q->updates,
	    q->np);
	for (k = 0; k < q->np; k++)
		fprintf(f, "%.17g%c", q->p[k], k % 8 == 7 || k + 1 == q->np ?
		    '\n' : ' ');
	fprintf(f, "end\n");
	if (ferror(f) | (fclose(f) != 0))
		return dojo_error_set("%s: %s", path, strerror(errno));
	return 0;
}

dojo_qnet *
dojo_qnet_load(const char *path, const char *encoder, int encoder_dim,
    int *dim_out)
{
	char line[512], magic[64], enc[64], word[16];
	int version, edim, dim, h1, h2, one;
	long updates;
	size_t np, k;
	dojo_qnet *q = NULL;
	FILE *f = fopen(path, "r");

	if (!f) {
		dojo_error_set("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fgets(line, sizeof line, f) ||
	    sscanf(line, "%63s %d", magic, &version) != 2 ||
	    strcmp(magic, DOJO_MODEL_MAGIC) != 0) {
		dojo_error_set("%s: not a perfdojo model (no '%s' header)",
		    path, DOJO_MODEL_MAGIC);
		goto out;
	}
	if (version != DOJO_MODEL_VERSION) {
		dojo_error_set("%s: model format version %d, this perfdojo "
		    "reads version %d", path, version, DOJO_MODEL_VERSION);
		goto out;
	}
	if (!fgets(line, sizeof line, f) || strcmp(line, "agent maxq\n") ||
	    !fgets(line, sizeof line, f) ||
	    sscanf(line, "encoder %63s %d", enc, &edim) != 2 ||
	    !fgets(line, sizeof line, f) ||
	    sscanf(line, "layers %d %d %d %d", &dim, &h1, &h2, &one) != 4 ||
	    h1 != h2 || one != 1 || dim <= 0 || h1 <= 0 ||
	    !fgets(line, sizeof line, f) ||
	    sscanf(line, "updates %ld", &updates) != 1 ||
	    !fgets(line, sizeof line, f) ||
	    sscanf(line, "weights %zu", &np) != 1) {
		dojo_error_set("%s: a damaged model header", path);
		goto out;
	}
	if (strcmp(enc, encoder) != 0 || (encoder_dim && edim !=
	    encoder_dim)) {
		if (encoder_dim)
			dojo_error_set("%s: a model for encoder '%s' of "
			    "dimension %d, but this run encodes with '%s' of "
			    "dimension %d", path, enc, edim, encoder,
			    encoder_dim);
		else
			dojo_error_set("%s: a model for encoder '%s', but this "
			    "run encodes with '%s'", path, enc, encoder);
		goto out;
	}
	q = dojo_qnet_new(dim, h1, 0);
	if (!q)
		goto out;
	if (np != q->np) {
		dojo_error_set("%s: %zu weights, the layers need %zu", path, np,
		    q->np);
		goto out_free;
	}
	for (k = 0; k < np; k++)
		if (fscanf(f, "%lf", &q->p[k]) != 1 || !isfinite(q->p[k])) {
			dojo_error_set("%s: weight %zu is missing or not a "
			    "number", path, k + 1);
			goto out_free;
		}
	if (fscanf(f, "%15s", word) != 1 || strcmp(word, "end") != 0) {
		dojo_error_set("%s: no 'end' after the weights", path);
		goto out_free;
	}
	q->updates = updates;
	dojo_qnet_sync(q);
	if (dim_out)
		*dim_out = edim;
	fclose(f);
	return q;
out_free:
	dojo_qnet_free(q);
	q = NULL;
out:
	fclose(f);
	return NULL;
}
