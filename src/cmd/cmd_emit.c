/* cmd_emit.c: perfdojo emit: the generated code of a kernel */
#include "config.h"
#include "src/cmd/command.h"
#include "ir/program.h"
#include "src/util/strbuf.h"
#include "targets/runner.h"
#include "targets/target.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int
emit_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_emit;
	struct dojo_option_parser p;
	const char *target = dojo_target_default()->name, *out = NULL;
	bool exact = dojo_c_exact(NULL);
	const struct dojo_target *t;
	struct dojo_strbuf sb;
	dojo_program *prog;
	int c, rc = DOJO_EXIT_ERROR;

	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 't':
			target = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'x':
			exact = true;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	t = dojo_target_find(target);
	if (!t)
		return dojo_command_usage(cmd, "%s", dojo_error_last());
	if (!t->emit)
		return dojo_command_usage(cmd, "target %s: no code generator "
		    "yet", t->name);
	prog = dojo_program_read_file(argv[optind]);
	if (!prog)
		return dojo_command_fail();
	dojo_strbuf_init(&sb);
	if (t->emit(&sb, prog, exact) < 0)
		goto out_free;
	if (dojo_command_write(out, sb.s) < 0)
		goto out_free;
	rc = 0;
out_free:
	dojo_strbuf_release(&sb);
	dojo_program_free(prog);
	return rc ? dojo_command_fail() : 0;
}

static const struct dojo_option emit_options[] = {
	{ "target", 't', "T", "a target of 'perfdojo targets' (default: this "
	    "machine's, a C11 function dojo_kernel(void **args)); another "
	    "machine's is a standalone program" },
	{ "output", 'o', "OUT", "write the code to OUT" },
	{ "exact", 'x', NULL, "the exact mode's code: libm calls in vector "
	    "loops too (compile it with -ffp-contract=off; also "
	    "$PERFDOJO_EXACT=1)" },
	{ NULL }
};

const struct dojo_command dojo_command_emit = {
	.name = "emit",
	.args = "FILE.dojo",
	.options = emit_options,
	.summary = "print the code generated for a kernel",
	.run = emit_run,
};
