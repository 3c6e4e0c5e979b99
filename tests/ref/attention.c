/* Reference for tests/ref/attention.dojo: O = softmax(Q K^T * scale) V.
 * Usage: ref INDIR OUTDIR */
#include <math.h>
#include "npy.h"

#define LQ 6
#define LK 10
#define D 8
#define DV 4

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*Q)[D] = npy_load(argv[1], "Q", "<f4", 2, (const long[]){LQ, D});
	float (*K)[D] = npy_load(argv[1], "K", "<f4", 2, (const long[]){LK, D});
	float (*V)[DV] = npy_load(argv[1], "V", "<f4", 2, (const long[]){LK, DV});
	float (*O)[DV] = npy_alloc(sizeof(float[LQ][DV]));
	float S[LQ][LK], P[LQ][LK], m[LQ], s[LQ];

	for (int i = 0; i < LQ; i++) {
		for (int j = 0; j < LK; j++) {
			S[i][j] = 0;
			for (int d = 0; d < D; d++)
				S[i][j] += Q[i][d] * K[j][d];
			S[i][j] = S[i][j] * 0.35355339059327373f; /* 1 / sqrt(D) */
		}
		m[i] = -INFINITY;
		for (int j = 0; j < LK; j++)
			m[i] = fmaxf(m[i], S[i][j]);
		s[i] = 0;
		for (int j = 0; j < LK; j++) {
			P[i][j] = expf(S[i][j] - m[i]);
			s[i] += P[i][j];
		}
		for (int j = 0; j < LK; j++)
			P[i][j] = P[i][j] / s[i];
		for (int e = 0; e < DV; e++) {
			O[i][e] = 0;
			for (int j = 0; j < LK; j++)
				O[i][e] += P[i][j] * V[j][e];
		}
	}

	npy_save(argv[2], "O", "<f4", 2, (const long[]){LQ, DV}, O);
	free(Q);
	free(K);
	free(V);
	free(O);
	return 0;
}
