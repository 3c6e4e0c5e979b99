/* target.c: the table of targets */
#include "config.h"
#include "targets/target.h"
#include "targets/c.h"
#include "targets/cross.h"
#include "targets/cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stack buffers are bounded so that a kernel's frame fits the default
 * thread stack; register buffers so that a compiler can keep them in
 * registers (more spills to the stack anyway). */
#define CPU_STACK_BYTES (256 << 10)
#define CPU_REG_ELEMS 256
/* A GPU thread's stack buffers are its local memory */
#define GPU_LOCAL_BYTES (16 << 10)

static const struct dojo_cross_variant aarch64_variants[] = {
	{ "", "-march=armv8-a", NULL, "Armv8-A with NEON (128-bit vectors)" },
	{ "sve", "-march=armv8.2-a+sve", "max", "SVE, vectors of the "
	  "machine's length (qemu: its largest)" },
	{ "sve256", "-march=armv8.2-a+sve -msve-vector-bits=256",
	  "max,sve256=on", "SVE with 256-bit vectors (as Graviton3's)" },
};
/* The C of the cross targets: their modes' flags (doc/measure.md), linked
 * static so that the program needs nothing on the machine but Linux */
#define CROSS_C "k.c", dojo_cross_emit, \
	{ "-ffp-contract=fast -O3 -fopenmp -fno-math-errno", \
	  "-ffp-contract=off -O3 -fopenmp -fno-math-errno" }, "-static -lm", \
	NULL, NULL, NULL

static const struct dojo_cross aarch64 = {
	"aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64",
	"gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user",
	aarch64_variants, 3, CROSS_C
};

static const struct dojo_cross_variant riscv64_variants[] = {
	{ "", "-march=rv64gc", NULL, "RV64GC, scalar" },
	{ "rvv", "-march=rv64gcv", "rv64,v=true,vlen=256", "RV64GCV with "
	  "the vector extension 1.0 (GCC 12 does not vectorize for it)" },
};
static const struct dojo_cross riscv64 = {
	"riscv64", "riscv64-linux-gnu-gcc", "qemu-riscv64",
	"gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user",
	riscv64_variants, 2, CROSS_C
};

static const struct dojo_cross_variant cuda_variants[] = {
	{ "", "-arch=sm_90", NULL, "sm_90: H100, H200, GH200", NULL,
	  { NULL, NULL }, NULL, false },
	{ "sm_80", "-arch=sm_80", NULL, "sm_80: A100", NULL, { NULL, NULL },
	  NULL, false },
	{ "emu", NULL, NULL, "the CUDA code on this CPU, blocks one after "
	  "another, threads as coroutines: checks, never times", "c++",
	  { "-O1 -x c++ -DDOJO_CUDA_EMULATE -ffp-contract=fast",
	    "-O1 -x c++ -DDOJO_CUDA_EMULATE -ffp-contract=off" }, "-lm", true },
};
static const struct dojo_cross cuda = {
	"cuda", "nvcc", NULL, "nvidia-cuda-toolkit (or NVIDIA's CUDA in "
	"/usr/local/cuda)", cuda_variants, 3, "k.cu", dojo_cuda_emit,
	{ "-O3 -fmad=true", "-O3 -fmad=false" }, NULL, "CUDA_HOME",
	"/usr/local/cuda", "/dev/nvidiactl"
};

static const struct dojo_target targets[] = {
	{ "c", "C11 with OpenMP, compiled and run on this machine",
	  { "c", false, CPU_STACK_BYTES, CPU_REG_ELEMS }, dojo_c_emit, true,
	  NULL },
	{ "aarch64", "C11 with OpenMP for 64-bit Arm, cross-compiled, run "
	  "by qemu-user or a runner", { "aarch64", false, CPU_STACK_BYTES,
	  CPU_REG_ELEMS }, dojo_cross_emit, false, &aarch64 },
	{ "riscv64", "C11 with OpenMP for 64-bit RISC-V, cross-compiled, run "
	  "by qemu-user or a runner", { "riscv64", false, CPU_STACK_BYTES,
	  CPU_REG_ELEMS }, dojo_cross_emit, false, &riscv64 },
	{ "cuda", "CUDA for NVIDIA GPUs: grid, block and warp scopes, shared "
	  "memory; compiled with nvcc, run on a GPU here or through a runner",
	  { "cuda", true, GPU_LOCAL_BYTES, CPU_REG_ELEMS,
	  DOJO_CUDA_SHARED_BYTES, 1024 }, dojo_cuda_emit, false, &cuda },
};
static const int n_targets = sizeof targets / sizeof *targets;

int
dojo_target_count(void)
{
	return n_targets;
}

const struct dojo_target *
dojo_target_at(int i)
{
	return i >= 0 && i < n_targets ? &targets[i] : NULL;
}

const struct dojo_target *
dojo_target_default(void)
{
	return &targets[0];
}

const char *
dojo_target_names(void)
{
	static char names[128];
	size_t n = 0;
	int i;

	if (!names[0])
		for (i = 0; i < n_targets && n < sizeof names; i++)
			n += snprintf(names + n, sizeof names - n, "%s%s",
			    !i ? "" : i == n_targets - 1 ? " or " : ", ",
			    targets[i].name);
	return names;
}

/* The target called "name" ("NAME" or "NAME:VARIANT"), or NULL (no error
 * set). */
static const struct dojo_target *
lookup(const char *name)
{
	size_t n = strcspn(name, ":");
	int i;

	for (i = 0; i < n_targets; i++)
		if (strlen(targets[i].name) == n &&
		    strncmp(targets[i].name, name, n) == 0)
			break;
	if (i == n_targets || (name[n] && (!targets[i].cross ||
	    !dojo_cross_variant(targets[i].cross, name + n + 1))))
		return NULL;
	return &targets[i];
}

const struct dojo_target *
dojo_target_runnable(const char *name)
{
	const struct dojo_target *t = dojo_target_find(name);

	if (t && !t->runs_here && !t->cross) {
		dojo_error_set("target %s: no code of its own to run yet",
		    t->name);
		return NULL;
	}
	return t;
}

const char *
dojo_target_variant(const char *name)
{
	const char *colon = name ? strchr(name, ':') : NULL;

	return colon ? colon + 1 : "";
}

const struct dojo_target *
dojo_target_find(const char *name)
{
	const struct dojo_target *t = lookup(name);
	size_t n = strcspn(name, ":");
	char why[DOJO_ERROR_MAX];
	int i;

	if (t)
		return t;
	for (i = 0; i < n_targets; i++)
		if (strlen(targets[i].name) == n &&
		    strncmp(targets[i].name, name, n) == 0)
			break;
	/* a known target, an unknown variant */
	if (i < n_targets && targets[i].cross) {
		dojo_cross_variant(targets[i].cross, name + n + 1);
		snprintf(why, sizeof why, "%s", dojo_error_last());
		dojo_error_set("target %s: %s", targets[i].name, why);
	} else if (i < n_targets) {
		dojo_error_set("target %s has no variants", targets[i].name);
	} else {
		dojo_error_set("unknown target '%s' (%s)", name,
		    dojo_target_names());
	}
	return NULL;
}

bool
dojo_target_runs_here(const char *name)
{
	const struct dojo_target *t = lookup(name);

	return t && t->runs_here;
}

const struct dojo_machine *
dojo_target_machine(const char *name)
{
	const struct dojo_target *t = name ? dojo_target_find(name) :
	    dojo_target_default();

	return t ? &t->machine : NULL;
}

/* The vector registers of this machine's CPU: x86-64 by its features,
 * aarch64 NEON's 32 of 16 bytes, else 16 of 16 bytes. */
static void
host_vectors(int *bytes, int *count)
{
	*bytes = 16;
	*count = 16;
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx512f")) {
		*bytes = 64;
		*count = 32;
	} else if (__builtin_cpu_supports("avx")) {
		*bytes = 32;
	}
#elif defined(__aarch64__)
	*count = 32;
#endif
}

int
dojo_target_vectors(const char *name, int *bytes, int *count)
{
	const char *env = getenv("PERFDOJO_VECTORS");
	const char *variant = dojo_target_variant(name);
	char end;

	if (env && *env) {
		if (sscanf(env, "%dx%d%c", bytes, count, &end) != 2 ||
		    *bytes < 4 || *bytes > 256 || *count < 2 || *count > 256)
			return dojo_error_set("PERFDOJO_VECTORS: '%s' is not "
			    "BYTESxREGISTERS (as 32x16: 16 registers of 32 "
			    "bytes)", env);
		return 0;
	}
	*bytes = 16;
	*count = 32;
	if (!name || strcmp(name, "c") == 0)
		host_vectors(bytes, count);
	else if (strncmp(name, "aarch64", 7) == 0)
		*bytes = strcmp(variant, "sve256") == 0 ? 32 : 16;
	else if (strncmp(name, "riscv64", 7) == 0)
		*bytes = strcmp(variant, "rvv") == 0 ? 32 : 8;
	else if (strncmp(name, "cuda", 4) == 0)
		*bytes = *count = 0;
	return 0;
}
