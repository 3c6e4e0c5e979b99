/* Reference for tests/ref/bias_relu.dojo: y = max(x + b, 0).
 * Usage: ref INDIR OUTDIR */
#include <math.h>
#include "npy.h"

#define R 6
#define L 10

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*x)[L] = npy_load(argv[1], "x", "<f4", 2, (const long[]){R, L});
	float *b = npy_load(argv[1], "b", "<f4", 1, (const long[]){L});
	float (*y)[L] = npy_alloc(sizeof(float[R][L]));

	for (int i = 0; i < R; i++)
		for (int j = 0; j < L; j++)
			y[i][j] = fmaxf(x[i][j] + b[j], 0.0f);

	npy_save(argv[2], "y", "<f4", 2, (const long[]){R, L}, y);
	free(x);
	free(b);
	free(y);
	return 0;
}
