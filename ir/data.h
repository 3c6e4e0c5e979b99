/* data.h: the values of a program's buffers; .npy files; seeded inputs */
#ifndef DOJO_DATA_H
#define DOJO_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "ir/program.h"

typedef struct dojo_data dojo_data;

/* Storage for every buffer of "prog", zero-filled.  Refused (NULL, last
 * error set) when it would take more than "max_bytes" (0: no limit). */
__dojo_give dojo_data *dojo_data_new(__dojo_keep dojo_program *prog,
    uint64_t max_bytes);
void dojo_data_free(__dojo_take dojo_data *data);
void *dojo_data_buffer(__dojo_keep dojo_data *data, int b);
/* Elements stored for buffer "b" (folded dimensions count their slots). */
uint64_t dojo_data_count(__dojo_keep dojo_data *data, int b);

/* The next number of the splitmix64 generator whose state is "*state". */
uint64_t dojo_splitmix64(uint64_t *state);
/* The next number of the same generator as a double in [0, 1), 53 bits. */
double dojo_splitmix64_unit(uint64_t *state);

/* Fill every in and inout buffer with the seeded uniform values of the
 * documented generator (doc/ir.md): floats in [-1, 1), integers in
 * [-8, 8). */
void dojo_data_randomize(__dojo_keep dojo_data *data, uint64_t seed);
/* Read buffer "b" from the .npy file "path" (shape and dtype checked). */
int dojo_data_load_npy(__dojo_keep dojo_data *data, int b, const char *path);
int dojo_data_save_npy(__dojo_keep dojo_data *data, int b, const char *path);

/* Print "NAME sum=S abs=A hash=H" for buffer "b". */
void dojo_data_print_checksum(FILE *out, __dojo_keep dojo_data *data, int b);

#endif
