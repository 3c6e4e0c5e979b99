/* Reference for tests/ref/batchnorm.dojo: inference batch norm, NCHW.
 * Usage: ref INDIR OUTDIR */
#include <math.h>
#include "npy.h"

#define NN 2
#define C 3
#define H 4
#define W 5

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*x)[C][H][W] = npy_load(argv[1], "x", "<f4", 4, (const long[]){NN, C, H, W});
	float *mean = npy_load(argv[1], "mean", "<f4", 1, (const long[]){C});
	float *var = npy_load(argv[1], "var", "<f4", 1, (const long[]){C});
	float *gain = npy_load(argv[1], "gain", "<f4", 1, (const long[]){C});
	float *shift = npy_load(argv[1], "shift", "<f4", 1, (const long[]){C});
	float (*y)[C][H][W] = npy_alloc(sizeof(float[NN][C][H][W]));

	for (int n = 0; n < NN; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H; h++)
				for (int q = 0; q < W; q++)
					y[n][c][h][q] = (x[n][c][h][q] - mean[c]) /
							sqrtf(fabsf(var[c]) + 1e-5f) * gain[c] + shift[c];

	npy_save(argv[2], "y", "<f4", 4, (const long[]){NN, C, H, W}, y);
	free(x);
	free(mean);
	free(var);
	free(gain);
	free(shift);
	free(y);
	return 0;
}
