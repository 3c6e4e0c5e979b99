/* target.h: the table of targets: what each can do, and what the moves
 * need to know of it (doc/design.md) */
#ifndef DOJO_TARGET_H
#define DOJO_TARGET_H

#include <stdbool.h>

#include "ir/program.h"
#include "ir/moves.h"
#include "src/util/strbuf.h"

struct dojo_target {
	const char *name;		/* as --target names it: "c" */
	const char *about;		/* one line, for --help */
	struct dojo_machine machine;	/* what the moves may use */
	/* the code of a kernel (NULL: none yet), in the exact mode or not
	 * (doc/measure.md, "Modes"); 0 or -1 with the error */
	int (*emit)(struct dojo_strbuf *out, dojo_program *prog, bool exact);
	bool runs_here;			/* compiled and run on this machine:
					   run, measure, tune */
	/* a machine of another architecture (targets/cross.h): its
	 * compiler, qemu and variants ("aarch64:sve"); NULL for this one's */
	const struct dojo_cross *cross;
};

/* The name of the default target, this machine's ("c"): what a command
 * measures and records when no target is named. */
#define DOJO_TARGET_HOST (dojo_target_default()->name)

/* The targets, in the order of the table; the first is the default. */
int dojo_target_count(void);
const struct dojo_target *dojo_target_at(int i);
const struct dojo_target *dojo_target_default(void);
/* The target called "name" ("NAME" or "NAME:VARIANT", the variant one of
 * a cross target's), or NULL with "unknown target 'NAME' (c, aarch64,
 * riscv64 or cuda)" as the last error. */
const struct dojo_target *dojo_target_find(const char *name);
/* The target "name" when its code can run: here, or through qemu-user or
 * a runner (c, the cross targets); else NULL with the last error set
 * ("target cuda: no code of its own to run yet"). */
const struct dojo_target *dojo_target_runnable(const char *name);
/* The variant part of "name" ("sve" for "aarch64:sve"; "" for none). */
const char *dojo_target_variant(const char *name);
/* The machine of the target "name" (NULL: the default), or NULL with the
 * error of dojo_target_find. */
const struct dojo_machine *dojo_target_machine(const char *name);
/* Whether "name" is a target whose kernels run on this machine (no error
 * set either way). */
bool dojo_target_runs_here(const char *name);
/* The vector registers that the code of target "name" (NULL: this
 * machine's) has: their size in bytes and their count, which size the
 * register tiles players try (doc/agents.md, "Register tiles").  "c" is
 * this CPU (x86-64: 64x32 with AVX-512, 32x16 with AVX, else 16x16);
 * aarch64 16x32 (sve256: 32x32); riscv64 8x32 (rvv: 32x32); cuda 0x0
 * (none: the tiles of fixed factors).  $PERFDOJO_VECTORS ("32x16")
 * overrides them all: tuning for another CPU, or tests that must not
 * depend on this one.  0, or -1 with the error when that is malformed. */
int dojo_target_vectors(const char *name, int *bytes, int *count);
/* "c or cuda": the names, for messages and --help. */
const char *dojo_target_names(void);

#endif
