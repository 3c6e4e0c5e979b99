/* Reference for tests/ref/softmax.dojo: row softmax.  Usage: ref INDIR OUTDIR */
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
	float (*y)[L] = npy_alloc(sizeof(float[R][L]));
	float m[R], s[R];

	for (int i = 0; i < R; i++) {
		m[i] = -INFINITY;
		for (int j = 0; j < L; j++)
			m[i] = fmaxf(m[i], x[i][j]);
		s[i] = 0;
		for (int j = 0; j < L; j++) {
			y[i][j] = expf(x[i][j] - m[i]);
			s[i] += y[i][j];
		}
		for (int j = 0; j < L; j++)
			y[i][j] = y[i][j] / s[i];
	}

	npy_save(argv[2], "y", "<f4", 2, (const long[]){R, L}, y);
	free(x);
	free(y);
	return 0;
}
