/* fuzz_parse.c: libFuzzer harness for the .dojo reader.  Any bytes give a
 * program or a one-line error; a program prints to a fixed point. */
#include "config.h"

#include "ir/program.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dojo_program *p, *q;
	char *text, *again;

	p = dojo_program_parse("fuzz", (const char *)data, size);
	if (!p) {
		if (strchr(dojo_error_last(), '\n') || !*dojo_error_last())
			abort();
		return 0;
	}
	text = dojo_program_print(p, true);
	free(text);
	text = dojo_program_print(p, false);
	q = dojo_program_parse("fuzz", text, strlen(text));
	if (!q)
		abort();	/* the canonical text must read back */
	again = dojo_program_print(q, false);
	if (strcmp(text, again) != 0)
		abort();	/* and print the same */
	free(again);
	free(text);
	dojo_program_free(q);
	dojo_program_free(p);
	return 0;
}
