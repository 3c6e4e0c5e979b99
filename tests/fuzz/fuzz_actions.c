/* fuzz_actions.c: libFuzzer harness for the actions.  The first line of
 * the input picks one of the fuzz kernels compiled in (by its name, such
 * as "mm_i32", or else by a hash of the line; "cuda " before it selects
 * the GPU target); each later line is an action applied to the state so
 * far, as `perfdojo apply` would.  Every
 * action gives either a valid program whose text reads back to the same
 * text, or a one-line non-empty error (which ends the input). */
#include "config.h"

#include "ir/program.h"
#include "ir/moves.h"
#include "targets/target.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 8		/* actions tried per input */
#define MAX_LINE 512

/* tests/fuzz/kernels.c, made by make from the files of tests/fuzz/kernels/ */
extern const char *const dojo_fuzz_kernel_names[];
extern const char *const dojo_fuzz_kernel_texts[];

static dojo_program *kernels[64];
static int nkernels;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *t;

	for (nkernels = 0; nkernels < 64 && dojo_fuzz_kernel_names[nkernels];
	    nkernels++) {
		t = dojo_fuzz_kernel_texts[nkernels];
		kernels[nkernels] = dojo_program_parse(
		    dojo_fuzz_kernel_names[nkernels], t, strlen(t));
		if (!kernels[nkernels])
			abort();	/* a fuzz kernel that does not read */
	}
	return 0;
}

/* The kernel that the first line "line" ("len" bytes) names. */
static dojo_program *
pick_kernel(const uint8_t *line, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;
	int k;

	for (k = 0; k < nkernels; k++)
		if (strlen(dojo_fuzz_kernel_names[k]) == len &&
		    !memcmp(dojo_fuzz_kernel_names[k], line, len))
			return kernels[k];
	for (i = 0; i < len; i++)
		h = (h ^ line[i]) * 16777619u;
	return kernels[h % (uint32_t)nkernels];
}

/* Abort unless "p" is valid and its text reads back to the same text. */
static void
check_program(dojo_program *p)
{
	char *text = dojo_program_print(p, false), *again;
	dojo_program *q;

	if (!text || dojo_program_validate(p) < 0)
		abort();
	q = dojo_program_parse("moved", text, strlen(text));
	if (!q)
		abort();	/* the canonical text must read back */
	again = dojo_program_print(q, false);
	if (!again || strcmp(text, again) != 0)
		abort();	/* and print the same */
	free(again);
	free(text);
	dojo_program_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *nl;
	dojo_program *p, *next;
	char line[MAX_LINE + 1];
	const char *err, *target = "c";
	size_t len;
	int steps;

	nl = memchr(data, '\n', size);
	len = nl ? (size_t)(nl - data) : size;
	if (len >= 5 && !memcmp(data, "cuda ", 5)) {
		target = "cuda";
		p = dojo_program_copy(pick_kernel(data + 5, len - 5));
	} else {
		p = dojo_program_copy(pick_kernel(data, len));
	}
	data += nl ? len + 1 : len;
	for (steps = 0; data < end && steps < MAX_STEPS; steps++) {
		nl = memchr(data, '\n', (size_t)(end - data));
		len = nl ? (size_t)(nl - data) : (size_t)(end - data);
		if (len > MAX_LINE)
			len = MAX_LINE;
		memcpy(line, data, len);
		line[len] = '\0';
		data = nl ? nl + 1 : end;
		dojo_error_clear();
		next = dojo_program_apply_text(p, line,
		    dojo_target_machine(target));
		if (!next) {
			err = dojo_error_last();
			if (!*err || strchr(err, '\n'))
				abort();	/* one line, not empty */
			break;
		}
		check_program(next);
		dojo_program_free(p);
		p = next;
	}
	dojo_program_free(p);
	return 0;
}
