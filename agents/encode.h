/* encode.h: states and actions as vectors of numbers, for learned players
 *
 * A state is encoded by the built-in structural encoder "struct-2" (tree
 * shape, sizes, flags, buffers, access strides of the innermost scopes,
 * hashed token n-grams of the canonical text: DOJO_ENCODE_STATE_DIM
 * numbers) or by an external command: the command gets the canonical
 * text on its standard input and writes the numbers, separated by white
 * space, on its standard output.  Its first answer fixes the dimension
 * (or the dimension of a loaded model does); every later answer must
 * have as many numbers.
 *
 * A pair (state s, action a reaching s') is [phi(s), phi(s') - phi(s),
 * psi(a)] where psi(a) is DOJO_ENCODE_ACTION_DIM numbers: the move (one
 * of the move table), the depth and first index of its state, its numbers
 * and its memory location.  Encodings are kept per state id.
 */
#ifndef DOJO_ENCODE_H
#define DOJO_ENCODE_H

#include "ir/program.h"
#include "ir/moves.h"

#define DOJO_ENCODE_STATE_DIM 96
#define DOJO_ENCODE_ACTION_DIM 32

typedef struct dojo_encoder dojo_encoder;

/* The built-in encoder (cmd NULL) or the external command "cmd". */
__dojo_give dojo_encoder *dojo_encoder_new(const char *cmd);
void dojo_encoder_free(__dojo_take dojo_encoder *enc);

/* "struct-2" or "cmd"; the dimension of a state (0: an external encoder
 * not yet called) and of a pair. */
const char *dojo_encoder_name(__dojo_keep dojo_encoder *enc);
int dojo_encoder_state_dim(__dojo_keep dojo_encoder *enc);
int dojo_encoder_pair_dim(__dojo_keep dojo_encoder *enc);
/* Fix the dimension an external encoder must answer (from a model);
 * -1 with the last error when it already answered another. */
int dojo_encoder_expect_dim(__dojo_keep dojo_encoder *enc, int dim);

/* The encoding of "prog" (state id "id", or NULL to compute it), owned
 * by the encoder; NULL with the last error set. */
const float *dojo_encoder_state(__dojo_keep dojo_encoder *enc,
    __dojo_keep dojo_program *prog, const char *id);
/* The pair encoding of "a" taking "prog" to "next" into "out"
 * (dojo_encoder_pair_dim numbers).  0 or -1. */
int dojo_encoder_pair(__dojo_keep dojo_encoder *enc,
    __dojo_keep dojo_program *prog, const char *id,
    __dojo_keep const struct dojo_action *a, __dojo_keep dojo_program *next,
    const char *next_id, float *out);

#endif
