/* Reference for tests/ref/matmul.dojo: C = A B.  Usage: ref INDIR OUTDIR */
#include "npy.h"

#define M 8
#define K 12
#define N 10

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*A)[K] = npy_load(argv[1], "A", "<f4", 2, (const long[]){M, K});
	float (*B)[N] = npy_load(argv[1], "B", "<f4", 2, (const long[]){K, N});
	float (*C)[N] = npy_alloc(sizeof(float[M][N]));

	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			C[i][j] = 0;
			for (int k = 0; k < K; k++)
				C[i][j] += A[i][k] * B[k][j];
		}

	npy_save(argv[2], "C", "<f4", 2, (const long[]){M, N}, C);
	free(A);
	free(B);
	free(C);
	return 0;
}
