/* Reference for tests/ref/layernorm.dojo: layer norm over the last dimension.
 * Usage: ref INDIR OUTDIR */
#include <math.h>
#include "npy.h"

#define T 6
#define D 10

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*x)[D] = npy_load(argv[1], "x", "<f4", 2, (const long[]){T, D});
	float *gain = npy_load(argv[1], "gain", "<f4", 1, (const long[]){D});
	float *shift = npy_load(argv[1], "shift", "<f4", 1, (const long[]){D});
	float (*y)[D] = npy_alloc(sizeof(float[T][D]));
	float mean[T], var[T];

	for (int t = 0; t < T; t++) {
		mean[t] = 0;
		for (int d = 0; d < D; d++)
			mean[t] += x[t][d];
		mean[t] = mean[t] / D;
		var[t] = 0;
		for (int d = 0; d < D; d++)
			var[t] += (x[t][d] - mean[t]) * (x[t][d] - mean[t]);
		var[t] = var[t] / D;
		for (int d = 0; d < D; d++)
			y[t][d] = (x[t][d] - mean[t]) / sqrtf(var[t] + 1e-5f) * gain[d] + shift[d];
	}

	npy_save(argv[2], "y", "<f4", 2, (const long[]){T, D}, y);
	free(x);
	free(gain);
	free(shift);
	free(y);
	return 0;
}
