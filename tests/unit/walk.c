/* walk.c: the collected actions and the comparison of outputs that the
 * random walks over the moves share */
#include "config.h"

#include "tests/unit/walk.h"
#include "targets/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
walk_actions_add(const struct dojo_action *a, void *payload)
{
	struct walk_actions *acts = payload;

	if (acts->n == acts->cap) {
		acts->cap = acts->cap ? 2 * acts->cap : 64;
		acts->v = realloc(acts->v, sizeof *acts->v * acts->cap);
		if (!acts->v)
			abort();
	}
	acts->v[acts->n].a = *a;
	acts->v[acts->n].move = dojo_action_move_index(a);
	acts->n++;
	return 0;
}

void
walk_actions_release(struct walk_actions *acts)
{
	free(acts->v);
	acts->v = NULL;
	acts->n = acts->cap = 0;
}

int
walk_actions_moves(const struct walk_actions *acts, int *out, int max)
{
	int i, k, n = 0;

	for (i = 0; i < acts->n; i++) {
		for (k = 0; k < n; k++)
			if (out[k] == acts->v[i].move)
				break;
		if (k == n && n < max)
			out[n++] = acts->v[i].move;
	}
	return n;
}

bool
walk_outputs_agree(dojo_program *pa, dojo_data *a, dojo_program *pb,
    dojo_data *b, bool tolerant, char *why, size_t len)
{
	int i, j;
	uint64_t k, n;

	for (i = 0; i < dojo_program_n_buffers(pa); i++) {
		enum dojo_role r = dojo_buffer_role(pa, i);
		enum dojo_dtype t = dojo_buffer_dtype(pa, i);
		const char *name = dojo_buffer_name(pa, i);
		double x, y, rms;

		if (r != DOJO_OUT && r != DOJO_INOUT)
			continue;
		j = dojo_program_find_buffer(pb, name);
		n = dojo_data_count(a, i);
		if (j < 0 || dojo_data_count(b, j) != n ||
		    dojo_buffer_dtype(pb, j) != t) {
			snprintf(why, len, "output '%s' missing", name);
			return false;
		}
		if (!memcmp(dojo_data_buffer(a, i), dojo_data_buffer(b, j),
		    n * dojo_dtype_size(t)))
			continue;
		rms = dojo_buffer_rms(a, i, t);
		for (k = 0; k < n; k++) {
			switch (t) {
			case DOJO_F32:
				x = ((float *)dojo_data_buffer(a, i))[k];
				y = ((float *)dojo_data_buffer(b, j))[k];
				break;
			case DOJO_F64:
				x = ((double *)dojo_data_buffer(a, i))[k];
				y = ((double *)dojo_data_buffer(b, j))[k];
				break;
			case DOJO_I32:
				x = ((int32_t *)dojo_data_buffer(a, i))[k];
				y = ((int32_t *)dojo_data_buffer(b, j))[k];
				break;
			default:
				if (((int64_t *)dojo_data_buffer(a, i))[k] ==
				    ((int64_t *)dojo_data_buffer(b, j))[k])
					continue;
				snprintf(why, len, "'%s'[%llu] = %lld, "
				    "expected %lld", name, (unsigned long long)k,
				    (long long)((int64_t *)
				    dojo_data_buffer(b, j))[k],
				    (long long)((int64_t *)
				    dojo_data_buffer(a, i))[k]);
				return false;
			}
			if (t == DOJO_I32 ? x == y : tolerant ?
			    dojo_close_enough(t, x, y, rms) :
			    !memcmp(&x, &y, sizeof x))
				continue;
			snprintf(why, len, "'%s'[%llu] = %.17g, expected %.17g%s",
			    name, (unsigned long long)k, y, x,
			    tolerant ? " (beyond the tolerance)" : "");
			return false;
		}
		/* equal element by element but not bitwise: the sign of a
		 * zero, or a NaN's payload */
		if (!tolerant) {
			snprintf(why, len, "'%s' differs in its bits (a zero's "
			    "sign or a NaN)", name);
			return false;
		}
	}
	return true;
}
