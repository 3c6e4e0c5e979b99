/* Reference for tests/ref/depthwise_conv.dojo: NCHW depthwise 3x3 convolution,
 * stride 1, same padding through an explicit zero-padded copy.
 * Usage: ref INDIR OUTDIR */
#include "npy.h"

#define NN 2
#define C 3
#define H 6
#define W 5

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*x)[C][H][W] = npy_load(argv[1], "x", "<f4", 4, (const long[]){NN, C, H, W});
	float (*w)[3][3] = npy_load(argv[1], "w", "<f4", 3, (const long[]){C, 3, 3});
	float (*y)[C][H][W] = npy_alloc(sizeof(float[NN][C][H][W]));
	float (*xp)[C][H + 2][W + 2] = npy_alloc(sizeof(float[NN][C][H + 2][W + 2]));

	for (int n = 0; n < NN; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H + 2; h++)
				for (int q = 0; q < W + 2; q++)
					xp[n][c][h][q] = 0;
	for (int n = 0; n < NN; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H; h++)
				for (int q = 0; q < W; q++)
					xp[n][c][h + 1][q + 1] = x[n][c][h][q];
	for (int n = 0; n < NN; n++)
		for (int c = 0; c < C; c++)
			for (int h = 0; h < H; h++)
				for (int q = 0; q < W; q++) {
					y[n][c][h][q] = 0;
					for (int r = 0; r < 3; r++)
						for (int s = 0; s < 3; s++)
							y[n][c][h][q] += xp[n][c][h + r][q + s] * w[c][r][s];
				}

	npy_save(argv[2], "y", "<f4", 4, (const long[]){NN, C, H, W}, y);
	free(x);
	free(w);
	free(y);
	free(xp);
	return 0;
}
