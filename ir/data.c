/* data.c: the values of a program's buffers; .npy files; seeded inputs */
#include "config.h"
#include "ir/data.h"
#include "ir/program_private.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dojo_data {
	dojo_program *prog;
	void **buf;
	uint64_t *count;
};

dojo_data *
dojo_data_new(dojo_program *prog, uint64_t max_bytes)
{
	struct dojo_decls *d = prog->decls;
	dojo_data *data;
	uint64_t n, total = 0;
	int b;

	data = calloc(1, sizeof *data);
	if (!data)
		goto out_oom;
	data->buf = calloc(d->nbuf ? d->nbuf : 1, sizeof *data->buf);
	data->count = calloc(d->nbuf ? d->nbuf : 1, sizeof *data->count);
	if (!data->buf || !data->count)
		goto out_free;
	data->prog = dojo_program_copy(prog);
	for (b = 0; b < d->nbuf; b++) {
		n = dojo_buffer_count(&d->buf[b]);
		data->count[b] = n;
		if (n > UINT64_MAX / 8 || (total += n *
		    dojo_dtype_size(d->buf[b].dtype)) > (max_bytes ? max_bytes :
		    UINT64_MAX) || n * 8 > SIZE_MAX / 2) {
			dojo_error_set("%s: the buffers need more than %llu "
			    "bytes (buffer '%s')", prog->file,
			    (unsigned long long)max_bytes, d->buf[b].name);
			goto out_free;
		}
		data->buf[b] = calloc(n, dojo_dtype_size(d->buf[b].dtype));
		if (!data->buf[b]) {
			dojo_error_set("%s: out of memory for buffer '%s'",
			    prog->file, d->buf[b].name);
			goto out_free;
		}
	}
	return data;
out_free:
	dojo_data_free(data);
	return NULL;
out_oom:
	dojo_error_set("out of memory");
	return NULL;
}

void
dojo_data_free(dojo_data *data)
{
	int b;

	if (!data)
		return;
	if (data->prog)
		for (b = 0; b < data->prog->decls->nbuf; b++)
			free(data->buf[b]);
	free(data->buf);
	free(data->count);
	dojo_program_free(data->prog);
	free(data);
}

void *
dojo_data_buffer(dojo_data *data, int b)
{
	return data->buf[b];
}

uint64_t
dojo_data_count(dojo_data *data, int b)
{
	return data->count[b];
}

/* splitmix64: the generator of seeded inputs */
uint64_t
dojo_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double
dojo_splitmix64_unit(uint64_t *state)
{
	return (double)(dojo_splitmix64(state) >> 11) / 9007199254740992.0;
}

static uint64_t
fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;

	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void
dojo_data_randomize(dojo_data *data, uint64_t seed)
{
	struct dojo_decls *d = data->prog->decls;
	uint64_t state, i, x;
	int b;

	for (b = 0; b < d->nbuf; b++) {
		if (d->buf[b].role != DOJO_IN && d->buf[b].role != DOJO_INOUT)
			continue;
		/* each buffer has its own stream: seed, then its name */
		state = fnv1a(d->buf[b].name, strlen(d->buf[b].name),
		    0xcbf29ce484222325ULL ^ seed);
		for (i = 0; i < data->count[b]; i++) {
			x = dojo_splitmix64(&state);
			switch (d->buf[b].dtype) {
			case DOJO_F32:
				((float *)data->buf[b])[i] =
				    (float)(x >> 40) * 0x1p-23f - 1.0f;
				break;
			case DOJO_F64:
				((double *)data->buf[b])[i] =
				    (double)(x >> 11) * 0x1p-52 - 1.0;
				break;
			case DOJO_I32:
				((int32_t *)data->buf[b])[i] =
				    (int32_t)(x >> 60) - 8;
				break;
			case DOJO_I64:
				((int64_t *)data->buf[b])[i] =
				    (int64_t)(x >> 60) - 8;
				break;
			}
		}
	}
}

static const char *const npy_descr[] = { "<f4", "<f8", "<i4", "<i8" };

/* Parse the header dictionary of a .npy file into dtype and shape. */
static int
npy_header(const char *path, const char *h, char *descr, size_t dlen,
    int64_t *shape, int *ndim, bool *fortran)
{
	const char *p, *q;
	char *end;

	p = strstr(h, "'descr'");
	if (!p || !(p = strchr(p + 7, '\'')) || !(q = strchr(p + 1, '\'')) ||
	    (size_t)(q - p - 1) >= dlen)
		return dojo_error_set("%s: malformed .npy header (descr)", path);
	memcpy(descr, p + 1, q - p - 1);
	descr[q - p - 1] = '\0';
	p = strstr(h, "'fortran_order'");
	if (!p)
		return dojo_error_set("%s: malformed .npy header "
		    "(fortran_order)", path);
	p += 15;
	while (*p == ' ' || *p == ':')
		p++;
	*fortran = strncmp(p, "True", 4) == 0;
	p = strstr(h, "'shape'");
	if (!p || !(p = strchr(p, '(')))
		return dojo_error_set("%s: malformed .npy header (shape)", path);
	p++;
	*ndim = 0;
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			return 0;
		if (*ndim == DOJO_MAX_DIMS || *p < '0' || *p > '9')
			return dojo_error_set("%s: malformed .npy header "
			    "(shape)", path);
		errno = 0;
		shape[(*ndim)++] = strtoll(p, &end, 10);
		if (errno)
			return dojo_error_set("%s: malformed .npy header "
			    "(shape)", path);
		p = end;
		if (*p == 'L')
			p++;
	}
}

static void
format_shape(char *out, size_t len, const int64_t *shape, int ndim)
{
	size_t n = 0;
	int i;

	n += snprintf(out + n, len - n, "[");
	for (i = 0; i < ndim && n < len; i++)
		n += snprintf(out + n, len - n, "%s%lld", i ? ", " : "",
		    (long long)shape[i]);
	if (n < len)
		snprintf(out + n, len - n, "]");
}

int
dojo_data_load_npy(dojo_data *data, int b, const char *path)
{
	const struct dojo_buffer *buf = &data->prog->decls->buf[b];
	unsigned char magic[12];
	char *header = NULL, descr[16], want[256], got[256];
	int64_t shape[DOJO_MAX_DIMS];
	uint32_t hlen;
	size_t esize = dojo_dtype_size(buf->dtype);
	bool fortran = false;
	int ndim, i, rc = -1;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	if (fread(magic, 1, 10, f) != 10 ||
	    memcmp(magic, "\x93NUMPY", 6) != 0) {
		dojo_error_set("%s: not a .npy file", path);
		goto out_close;
	}
	if (magic[6] == 1) {
		hlen = magic[8] | magic[9] << 8;
	} else if (magic[6] == 2 || magic[6] == 3) {
		if (fread(magic + 10, 1, 2, f) != 2) {
			dojo_error_set("%s: truncated .npy header", path);
			goto out_close;
		}
		hlen = magic[8] | magic[9] << 8 | (uint32_t)magic[10] << 16 |
		    (uint32_t)magic[11] << 24;
	} else {
		dojo_error_set("%s: unsupported .npy version %d", path,
		    magic[6]);
		goto out_close;
	}
	if (hlen > 1 << 20) {
		dojo_error_set("%s: .npy header too long", path);
		goto out_close;
	}
	header = calloc(1, hlen + 1);
	if (!header || fread(header, 1, hlen, f) != hlen) {
		dojo_error_set("%s: truncated .npy header", path);
		goto out_close;
	}
	if (npy_header(path, header, descr, sizeof descr, shape, &ndim,
	    &fortran) < 0)
		goto out_close;
	if (strcmp(descr, npy_descr[buf->dtype]) != 0 &&
	    !(descr[0] == '|' && esize == 1)) {
		dojo_error_set("%s: dtype '%s' does not match '%s' (%s, "
		    "expected '%s')", path, descr, buf->name,
		    dojo_dtype_name(buf->dtype), npy_descr[buf->dtype]);
		goto out_close;
	}
	if (fortran) {
		dojo_error_set("%s: Fortran-ordered array; '%s' needs C order",
		    path, buf->name);
		goto out_close;
	}
	format_shape(want, sizeof want, buf->ext, buf->ndim);
	format_shape(got, sizeof got, shape, ndim);
	if (ndim != buf->ndim) {
		dojo_error_set("%s: shape %s does not match '%s' %s", path, got,
		    buf->name, want);
		goto out_close;
	}
	for (i = 0; i < ndim; i++)
		if (shape[i] != buf->ext[i]) {
			dojo_error_set("%s: shape %s does not match '%s' %s",
			    path, got, buf->name, want);
			goto out_close;
		}
	if (fread(data->buf[b], esize, data->count[b], f) != data->count[b]) {
		dojo_error_set("%s: truncated data (expected %llu elements)",
		    path, (unsigned long long)data->count[b]);
		goto out_close;
	}
	rc = 0;
out_close:
	free(header);
	fclose(f);
	return rc;
}

int
dojo_data_save_npy(dojo_data *data, int b, const char *path)
{
	const struct dojo_buffer *buf = &data->prog->decls->buf[b];
	char header[1024];
	unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0 };
	size_t n, total;
	int i;
	FILE *f;

	n = snprintf(header, sizeof header, "{'descr': '%s', "
	    "'fortran_order': False, 'shape': (", npy_descr[buf->dtype]);
	for (i = 0; i < buf->ndim; i++)
		n += snprintf(header + n, sizeof header - n, "%lld%s",
		    (long long)buf->ext[i], buf->ndim == 1 ? "," :
		    i + 1 < buf->ndim ? ", " : "");
	n += snprintf(header + n, sizeof header - n, "), }");
	/* pad with spaces so that the data starts 64-byte aligned */
	total = (10 + n + 1 + 63) / 64 * 64;
	while (10 + n + 1 < total)
		header[n++] = ' ';
	header[n++] = '\n';
	pre[8] = n & 0xff;
	pre[9] = n >> 8;
	f = fopen(path, "wb");
	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	if (fwrite(pre, 1, 10, f) != 10 || fwrite(header, 1, n, f) != n ||
	    fwrite(data->buf[b], dojo_dtype_size(buf->dtype), data->count[b],
	    f) != data->count[b]) {
		fclose(f);
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	if (fclose(f) != 0)
		return dojo_error_set("%s: %s", path, strerror(errno));
	return 0;
}

void
dojo_data_print_checksum(FILE *out, dojo_data *data, int b)
{
	const struct dojo_buffer *buf = &data->prog->decls->buf[b];
	double sum = 0, asum = 0, v = 0;
	uint64_t i, n = data->count[b];

	for (i = 0; i < n; i++) {
		switch (buf->dtype) {
		case DOJO_F32:
			v = ((float *)data->buf[b])[i];
			break;
		case DOJO_F64:
			v = ((double *)data->buf[b])[i];
			break;
		case DOJO_I32:
			v = ((int32_t *)data->buf[b])[i];
			break;
		case DOJO_I64:
			v = (double)((int64_t *)data->buf[b])[i];
			break;
		}
		sum += v;
		asum += fabs(v);
	}
	fprintf(out, "%s sum=%.9g abs=%.9g hash=%016llx\n", buf->name, sum,
	    asum, (unsigned long long)fnv1a(data->buf[b],
	    n * dojo_dtype_size(buf->dtype), 0xcbf29ce484222325ULL));
}
