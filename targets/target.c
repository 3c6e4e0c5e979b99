/* target.c: the table of targets */
#include "config.h"
#include "targets/target.h"
#include "targets/c.h"

#include <stdio.h>
#include <string.h>

/* Stack buffers are bounded so that a kernel's frame fits the default
 * thread stack; register buffers so that a compiler can keep them in
 * registers (more spills to the stack anyway). */
#define CPU_STACK_BYTES (256 << 10)
#define CPU_REG_ELEMS 256

static const struct dojo_target targets[] = {
	{ "c", "C11 with OpenMP, compiled and run on this machine",
	  { "c", false, CPU_STACK_BYTES, CPU_REG_ELEMS }, dojo_c_emit, true },
	{ "cuda", "CUDA: the GPU moves (grid, block, warp, shared memory); "
	  "no code yet", { "cuda", true, CPU_STACK_BYTES, CPU_REG_ELEMS },
	  NULL, false },
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

/* The target called "name", or NULL (no error set). */
static const struct dojo_target *
lookup(const char *name)
{
	int i;

	for (i = 0; i < n_targets; i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const struct dojo_target *
dojo_target_find(const char *name)
{
	const struct dojo_target *t = lookup(name);

	if (!t)
		dojo_error_set("unknown target '%s' (%s)", name,
		    dojo_target_names());
	return t;
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
