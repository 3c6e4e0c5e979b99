/* Reference for tests/ref/conv2d.dojo: NCHW 3x3 convolution, stride 1, same
 * padding through an explicit zero-padded copy, plus bias.
 * Usage: ref INDIR OUTDIR */
#include "npy.h"

#define NN 2
#define CI 3
#define CO 4
#define H 5
#define W 6

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s INDIR OUTDIR\n", argv[0]);
		return 2;
	}
	float (*x)[CI][H][W] = npy_load(argv[1], "x", "<f4", 4, (const long[]){NN, CI, H, W});
	float (*w)[CI][3][3] = npy_load(argv[1], "w", "<f4", 4, (const long[]){CO, CI, 3, 3});
	float *bias = npy_load(argv[1], "bias", "<f4", 1, (const long[]){CO});
	float (*y)[CO][H][W] = npy_alloc(sizeof(float[NN][CO][H][W]));
	float (*xp)[CI][H + 2][W + 2] = npy_alloc(sizeof(float[NN][CI][H + 2][W + 2]));

	for (int n = 0; n < NN; n++)
		for (int c = 0; c < CI; c++)
			for (int h = 0; h < H + 2; h++)
				for (int q = 0; q < W + 2; q++)
					xp[n][c][h][q] = 0;
	for (int n = 0; n < NN; n++)
		for (int c = 0; c < CI; c++)
			for (int h = 0; h < H; h++)
				for (int q = 0; q < W; q++)
					xp[n][c][h + 1][q + 1] = x[n][c][h][q];
	for (int n = 0; n < NN; n++)
		for (int o = 0; o < CO; o++)
			for (int h = 0; h < H; h++)
				for (int q = 0; q < W; q++) {
					y[n][o][h][q] = bias[o];
					for (int c = 0; c < CI; c++)
						for (int r = 0; r < 3; r++)
							for (int s = 0; s < 3; s++)
								y[n][o][h][q] += xp[n][c][h + r][q + s] * w[o][c][r][s];
				}

	npy_save(argv[2], "y", "<f4", 4, (const long[]){NN, CO, H, W}, y);
	free(x);
	free(w);
	free(bias);
	free(y);
	free(xp);
	return 0;
}
