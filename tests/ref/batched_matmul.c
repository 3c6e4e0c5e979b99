/* Reference for tests/ref/batched_matmul.dojo: C[b] = A[b] B[b]^T.
 * Usage: ref INDIR OUTDIR */
#include "npy.h"

#define NB 4
#define M 6
#define N 5
#define K 8

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*A)[M][K] = npy_load(argv[1], "A", "<f4", 3, (const long[]){NB, M, K});
	float (*B)[N][K] = npy_load(argv[1], "B", "<f4", 3, (const long[]){NB, N, K});
	float (*C)[M][N] = npy_alloc(sizeof(float[NB][M][N]));

	for (int b = 0; b < NB; b++)
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				C[b][i][j] = 0;
				for (int k = 0; k < K; k++)
					C[b][i][j] += A[b][i][k] * B[b][j][k];
			}

	npy_save(argv[2], "C", "<f4", 3, (const long[]){NB, M, N}, C);
	free(A);
	free(B);
	free(C);
	return 0;
}
