/* cross.h: kernels for another machine (aarch64, riscv64): the C target's
 * code with a main of its own, cross-compiled into a standalone program,
 * run through a runner: qemu-user on this machine, or a command that runs
 * it on the machine itself (doc/targets.md) */
#ifndef DOJO_TARGET_CROSS_H
#define DOJO_TARGET_CROSS_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/data.h"
#include "ir/program.h"
#include "targets/runner.h"

/* One variant of a cross target: "aarch64:sve". */
struct dojo_cross_variant {
	const char *name;		/* "" for the default */
	const char *cflags;		/* the instruction set: -march=... */
	const char *qemu_cpu;		/* qemu's -cpu, NULL: its default */
	const char *about;
	/* NULL: the target's.  A variant that compiles with another
	 * compiler (cuda:emu: the host's C++ compiler) */
	const char *cc;
	const char *mode[2];		/* its flags of the fast and exact mode */
	const char *libs;
	/* run here, with neither qemu nor the target's device: an emulation
	 * for checking, whose times are never that machine's */
	bool emulated;
};

/* What a target of another machine needs: how its standalone program is
 * written, compiled and run. */
struct dojo_cross {
	const char *name;		/* the target's: "aarch64" */
	const char *cc;			/* "aarch64-linux-gnu-gcc", "nvcc" */
	/* "qemu-aarch64"; NULL: the program runs here directly, on the
	 * device named below */
	const char *qemu;
	const char *packages;		/* the Debian packages of both */
	const struct dojo_cross_variant *variants;	/* the first: default */
	int nvariants;
	const char *source;		/* the program's file name: "k.c" */
	/* the standalone program (dojo_cross_emit, dojo_cuda_emit) */
	int (*emit)(struct dojo_strbuf *out, dojo_program *prog, bool exact);
	const char *mode[2];		/* the flags of the fast and exact
					   modes (doc/measure.md), words */
	const char *libs;		/* after the source */
	/* where cc is when not on $PATH: $HOME_ENV/bin, else
	 * HOME_DEFAULT/bin ("CUDA_HOME", "/usr/local/cuda"); NULL: $PATH */
	const char *home_env, *home_default;
	/* a file that exists on a machine with the device ("/dev/nvidiactl");
	 * NULL: none needed */
	const char *device;
};

/* How a program is run. */
struct dojo_cross_options {
	const char *variant;		/* NULL or "": the default */
	/* The command (split on blanks, no shell) that runs "RUNNER...
	 * PROGRAM DIR REPS" on the machine: the program reads its inputs
	 * from DIR and writes its outputs, its times and the machine it ran
	 * on there; a runner without a shared file system copies PROGRAM
	 * and DIR there and DIR back.  NULL: the target's line in the
	 * runners file (dojo_cross_runner), else qemu-user here; "-":
	 * qemu-user here */
	const char *runner;
	const char *cflags;		/* more flags (NULL: none) */
	bool exact;			/* the exact mode (doc/measure.md) */
	double timeout;			/* seconds for the compiler and for the
					   run (0: none) */
	int reps;			/* timed repetitions (0: none) */
};

struct dojo_cross_result {
	/* outcome, message; with "reps" the median and its interval */
	struct dojo_run_result run;
	/* what the side that ran it says of its machine: "aarch64, 4 cpus,
	 * Neoverse-N1" (qemu-user: the emulated architecture with this
	 * machine's processor) */
	char machine[256];
	bool emulated;			/* run by qemu-user or an emulation, no
					   runner */
	char emulator[64];		/* what emulated it: "qemu-aarch64" */
};

/* The variant "name" of "x" (NULL or "": the default), or NULL with the
 * last error listing them. */
const struct dojo_cross_variant *dojo_cross_variant(
    __dojo_keep const struct dojo_cross *x, const char *name);
/* The runner of target "target" ("aarch64:sve", else "aarch64") in the
 * runners file into "out": $PERFDOJO_RUNNERS, else
 * $XDG_CONFIG_HOME/perfdojo/runners (~/.config/perfdojo/runners), a line
 * "TARGET COMMAND..." each, '#' comments.  Whether there is one. */
bool dojo_cross_runner(const char *target, char *out, size_t len);
/* Whether "program" is an executable file, on $PATH unless it names a
 * path. */
bool dojo_on_path(const char *program);
/* Whether the compiler and qemu of "x" (of its variant "v", NULL: the
 * default) are installed; the first missing program into "missing"
 * otherwise. */
bool dojo_cross_installed(__dojo_keep const struct dojo_cross *x,
    __dojo_keep const struct dojo_cross_variant *v, char *missing,
    size_t len);
/* The compiler of variant "v" of "x" into "out": its name on $PATH, or
 * its path under x->home_env or x->home_default; whether found. */
bool dojo_cross_compiler(__dojo_keep const struct dojo_cross *x,
    __dojo_keep const struct dojo_cross_variant *v, char *out, size_t len);
/* The standalone program's C: the kernel (the C target's, in the mode of
 * "exact") and a main that reads the kernel's arguments from
 * DIR/NAME.bin, runs it, writes DIR/NAME.out for the out and inout
 * ones, and with REPS > 0 times REPS more runs into DIR/times. */
int dojo_cross_emit(__dojo_keep struct dojo_strbuf *out,
    __dojo_keep dojo_program *prog, bool exact);
/* The standalone program's reading and writing: dojo_open(DIR, NAME,
 * EXT, MODE), dojo_machine(DIR) (DIR/machine: "aarch64, 4 cpus, MODEL"),
 * dojo_now() in nanoseconds; C that C++ compiles too. */
extern const char dojo_cross_io[];
/* The tables of the kernel's arguments (dojo_names, dojo_bytes,
 * dojo_writes, dojo_inout, DOJO_NARGS), then dojo_cross_io. */
void dojo_cross_args(__dojo_keep struct dojo_strbuf *out,
    __dojo_keep dojo_program *prog);
/* Compile "prog" for "x" and run it on "data" (its out and inout buffers
 * come back when the outcome is ok).  -1 with the last error set only
 * when it could not be attempted (nothing installed, no folder); a kernel
 * that fails is an outcome in "res". */
int dojo_cross_run(__dojo_keep const struct dojo_cross *x,
    __dojo_keep dojo_program *prog, __dojo_keep dojo_data *data,
    __dojo_keep const struct dojo_cross_options *opt,
    __dojo_keep struct dojo_cross_result *res);

#endif
