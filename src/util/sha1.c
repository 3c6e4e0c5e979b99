/* sha1.c: SHA-1 (FIPS 180-4), for git-compatible state ids */
#include "config.h"
#include "src/util/sha1.h"

#include <stdint.h>
#include <string.h>

struct sha1 {
	uint32_t h[5];
	uint64_t len;
	unsigned char block[64];
	size_t fill;
};

static uint32_t
rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void
sha1_compress(struct sha1 *s, const unsigned char *p)
{
	uint32_t w[80], a, b, c, d, e, f, k, t;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3]; e = s->h[4];
	for (i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d; d = c; c = rol(b, 30); b = a; a = t;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d; s->h[4] += e;
}

static void
sha1_update(struct sha1 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t take;

	s->len += len;
	while (len > 0) {
		take = 64 - s->fill;
		if (take > len)
			take = len;
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		len -= take;
		if (s->fill == 64) {
			sha1_compress(s, s->block);
			s->fill = 0;
		}
	}
}

/* Write in "out" the hex SHA-1 of "prefix" ("plen" bytes) then "data". */
void
dojo_sha1_hex(char out[41], const char *prefix, size_t plen,
    const char *data, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	struct sha1 s = { { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
	    0xc3d2e1f0 }, 0, { 0 }, 0 };
	unsigned char tail[8];
	uint64_t bits;
	int i;

	sha1_update(&s, prefix, plen);
	sha1_update(&s, data, len);
	bits = s.len * 8;
	sha1_update(&s, "\x80", 1);
	while (s.fill != 56)
		sha1_update(&s, "", 1);
	for (i = 0; i < 8; i++)
		tail[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_update(&s, tail, 8);
	for (i = 0; i < 20; i++) {
		out[2 * i] = hex[(s.h[i / 4] >> (24 - 8 * (i % 4)) >> 4) & 15];
		out[2 * i + 1] = hex[(s.h[i / 4] >> (24 - 8 * (i % 4))) & 15];
	}
	out[40] = '\0';
}
