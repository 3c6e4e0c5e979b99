/* Reference for tests/ref/mlp.dojo: y = relu(x W1 + b1) W2 + b2.
 * Usage: ref INDIR OUTDIR */
#include <math.h>
#include "npy.h"

#define NB 5
#define DI 8
#define DH 12
#define DO 6

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*x)[DI] = npy_load(argv[1], "x", "<f4", 2, (const long[]){NB, DI});
	float (*W1)[DH] = npy_load(argv[1], "W1", "<f4", 2, (const long[]){DI, DH});
	float *b1 = npy_load(argv[1], "b1", "<f4", 1, (const long[]){DH});
	float (*W2)[DO] = npy_load(argv[1], "W2", "<f4", 2, (const long[]){DH, DO});
	float *b2 = npy_load(argv[1], "b2", "<f4", 1, (const long[]){DO});
	float (*y)[DO] = npy_alloc(sizeof(float[NB][DO]));
	float h[NB][DH];

	for (int i = 0; i < NB; i++)
		for (int j = 0; j < DH; j++) {
			h[i][j] = b1[j];
			for (int k = 0; k < DI; k++)
				h[i][j] += x[i][k] * W1[k][j];
			h[i][j] = fmaxf(h[i][j], 0.0f);
		}
	for (int i = 0; i < NB; i++)
		for (int j = 0; j < DO; j++) {
			y[i][j] = b2[j];
			for (int k = 0; k < DH; k++)
				y[i][j] += h[i][k] * W2[k][j];
		}

	npy_save(argv[2], "y", "<f4", 2, (const long[]){NB, DO}, y);
	free(x);
	free(W1);
	free(b1);
	free(W2);
	free(b2);
	free(y);
	return 0;
}
