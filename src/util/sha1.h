/* sha1.h: SHA-1, for git-compatible ids */
#ifndef DOJO_SHA1_H
#define DOJO_SHA1_H

#include <stddef.h>

/* The hex SHA-1 of "prefix" ("plen" bytes) followed by "data". */
void dojo_sha1_hex(char out[41], const char *prefix, size_t plen,
    const char *data, size_t len);

#endif
