/* npy.h: a tiny standalone reader/writer for NumPy .npy files, for the C
 * reference programs in tests/ref.
 *
 * Supported: format version 1.0 (2.0 and 3.0 headers are read too), dtypes
 * '<f4', '<f8', '<i4', '<i8', C order, on a little-endian host.
 *
 *   void *npy_load(dir, name, descr, ndim, shape)
 *       reads DIR/NAME.npy, checks that its dtype is DESCR and its shape is
 *       SHAPE[0..NDIM-1], and returns the data (malloc'ed, C order).
 *   void npy_save(dir, name, descr, ndim, shape, data)
 *       writes DATA as DIR/NAME.npy (version 1.0).
 *   void *npy_alloc(bytes)
 *       malloc that never returns NULL (exits instead).
 *
 * Any error prints "npy: PATH: message" on stderr and exits with status 1.
 */
#ifndef PERFDOJO_TESTS_NPY_H
#define PERFDOJO_TESTS_NPY_H

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAX_DIMS 16

static void npy_die(const char *path, const char *msg)
{
	fprintf(stderr, "npy: %s: %s\n", path, msg);
	exit(1);
}

static void *npy_alloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);
	if (!p) {
		fprintf(stderr, "npy: out of memory\n");
		exit(1);
	}
	return p;
}

static size_t npy_itemsize(const char *descr)
{
	if (!strcmp(descr, "<f4") || !strcmp(descr, "<i4"))
		return 4;
	if (!strcmp(descr, "<f8") || !strcmp(descr, "<i8"))
		return 8;
	return 0;
}

static void npy_check_host(void)
{
	const uint16_t one = 1;
	if (*(const unsigned char *)&one != 1)
		npy_die("(host)", "big-endian hosts are not supported");
}

static void npy_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s.npy", dir, name);
	if (n < 0 || (size_t)n >= size)
		npy_die(name, "path too long");
}

/* Returns a pointer just after "KEY": (and any blanks) in the header, or NULL. */
static const char *npy_field(const char *header, const char *key)
{
	char quoted[32];
	const char *p;
	snprintf(quoted, sizeof quoted, "'%s'", key);
	p = strstr(header, quoted);
	if (!p)
		return NULL;
	p += strlen(quoted);
	while (isspace((unsigned char)*p))
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

static void *npy_load(const char *dir, const char *name, const char *descr,
		      int ndim, const long *shape)
{
	char path[4096], msg[512], got[16];
	unsigned char pre[8], len[4];
	unsigned long hlen;
	size_t item = npy_itemsize(descr), count = 1, i;
	long dims[NPY_MAX_DIMS];
	int nd = 0;
	char *header;
	const char *p;
	void *data;
	FILE *f;

	npy_check_host();
	npy_path(path, sizeof path, dir, name);
	if (!item)
		npy_die(path, "unsupported dtype requested");
	f = fopen(path, "rb");
	if (!f)
		npy_die(path, "cannot open");
	if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0)
		npy_die(path, "not a .npy file (bad magic)");
	if (pre[6] == 1) {
		if (fread(len, 1, 2, f) != 2)
			npy_die(path, "truncated header");
		hlen = len[0] | (unsigned long)len[1] << 8;
	} else if (pre[6] == 2 || pre[6] == 3) {
		if (fread(len, 1, 4, f) != 4)
			npy_die(path, "truncated header");
		hlen = len[0] | (unsigned long)len[1] << 8 |
		       (unsigned long)len[2] << 16 | (unsigned long)len[3] << 24;
	} else {
		npy_die(path, "unsupported .npy format version");
		return NULL;
	}
	if (hlen == 0 || hlen > (1ul << 20))
		npy_die(path, "bad header length");
	header = npy_alloc(hlen + 1);
	if (fread(header, 1, hlen, f) != hlen)
		npy_die(path, "truncated header");
	header[hlen] = '\0';

	/* 'descr': '<f4' */
	p = npy_field(header, "descr");
	if (!p || (*p != '\'' && *p != '"'))
		npy_die(path, "header has no 'descr'");
	{
		char q = *p++;
		size_t n = 0;
		while (*p && *p != q && n + 1 < sizeof got)
			got[n++] = *p++;
		got[n] = '\0';
		if (*p != q)
			npy_die(path, "bad 'descr' in header");
	}
	if (strcmp(got, descr) != 0) {
		snprintf(msg, sizeof msg, "dtype is '%s', expected '%s'", got, descr);
		npy_die(path, msg);
	}

	/* 'fortran_order': False */
	p = npy_field(header, "fortran_order");
	if (!p)
		npy_die(path, "header has no 'fortran_order'");
	if (strncmp(p, "False", 5) != 0)
		npy_die(path, "Fortran-order arrays are not supported");

	/* 'shape': (D, D, ...) */
	p = npy_field(header, "shape");
	if (!p || *p != '(')
		npy_die(path, "header has no 'shape'");
	p++;
	for (;;) {
		char *end;
		long v;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ')')
			break;
		v = strtol(p, &end, 10);
		if (end == p || v < 0)
			npy_die(path, "bad 'shape' in header");
		if (nd == NPY_MAX_DIMS)
			npy_die(path, "too many dimensions");
		dims[nd++] = v;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',')
			p++;
		else if (*p != ')')
			npy_die(path, "bad 'shape' in header");
	}
	free(header);

	if (nd != ndim)
		goto bad_shape;
	for (i = 0; i < (size_t)nd; i++) {
		if (dims[i] != shape[i])
			goto bad_shape;
		count *= (size_t)dims[i];
	}

	data = npy_alloc(count * item);
	if (fread(data, item, count, f) != count)
		npy_die(path, "truncated data");
	fclose(f);
	return data;

bad_shape:
	{
		size_t n = 0;
		int k;
		n += (size_t)snprintf(msg + n, sizeof msg - n, "shape is (");
		for (k = 0; k < nd && n < sizeof msg; k++)
			n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%ld", k ? ", " : "", dims[k]);
		if (n < sizeof msg)
			n += (size_t)snprintf(msg + n, sizeof msg - n, "), expected (");
		for (k = 0; k < ndim && n < sizeof msg; k++)
			n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%ld", k ? ", " : "", shape[k]);
		if (n < sizeof msg)
			snprintf(msg + n, sizeof msg - n, ")");
		npy_die(path, msg);
	}
	return NULL;
}

static void npy_save(const char *dir, const char *name, const char *descr,
		     int ndim, const long *shape, const void *data)
{
	char path[4096], dict[1024];
	size_t item = npy_itemsize(descr), count = 1, n, total;
	unsigned char pre[10];
	int k;
	FILE *f;

	npy_check_host();
	npy_path(path, sizeof path, dir, name);
	if (!item)
		npy_die(path, "unsupported dtype");
	if (ndim < 1 || ndim > NPY_MAX_DIMS)
		npy_die(path, "unsupported number of dimensions");

	n = (size_t)snprintf(dict, sizeof dict,
			     "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
	for (k = 0; k < ndim; k++) {
		n += (size_t)snprintf(dict + n, sizeof dict - n, "%s%ld", k ? ", " : "", shape[k]);
		count *= (size_t)shape[k];
	}
	n += (size_t)snprintf(dict + n, sizeof dict - n, "%s), }", ndim == 1 ? "," : "");
	/* Pad with spaces so that magic + length + header + '\n' is a multiple of 64. */
	total = (10 + n + 1 + 63) / 64 * 64;
	if (total - 10 > sizeof dict - 1)
		npy_die(path, "header too long");
	while (10 + n + 1 < total)
		dict[n++] = ' ';
	dict[n++] = '\n';

	memcpy(pre, "\x93NUMPY\x01\x00", 8);
	pre[8] = (unsigned char)(n & 0xff);
	pre[9] = (unsigned char)(n >> 8);

	f = fopen(path, "wb");
	if (!f)
		npy_die(path, "cannot create");
	if (fwrite(pre, 1, 10, f) != 10 || fwrite(dict, 1, n, f) != n ||
	    fwrite(data, item, count, f) != count || fclose(f) != 0)
		npy_die(path, "write failed");
}

#endif
