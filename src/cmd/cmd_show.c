/* cmd_show.c: perfdojo show, check: read, validate, print canonical text */
#include "config.h"
#include "src/cmd/command.h"
#include "ir/program.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse the options of show and check ("cmd"); "addresses" NULL for
 * check, whose table has none. */
static int
read_args(const struct dojo_command *cmd, int argc, char **argv,
    bool *addresses, bool *names, const char **file)
{
	struct dojo_option_parser p;
	int c;

	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_next(&p, argc, argv)) != -1) {
		switch (c) {
		case 'a':
			*addresses = true;
			break;
		case 'n':
			*names = true;
			break;
		case 'h':
			dojo_command_print_help(stdout, cmd);
			exit(0);
		default:
			return dojo_command_usage(cmd, "unknown option '%s'",
			    argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	*file = argv[optind];
	return 0;
}

static int
show_run(int argc, char **argv)
{
	bool addresses = false, names = false;
	const char *file;
	dojo_program *prog;
	char *text;
	int r;

	r = read_args(&dojo_command_show, argc, argv, &addresses, &names,
	    &file);
	if (r)
		return r;
	prog = dojo_program_read_file(file);
	if (!prog)
		return dojo_command_fail();
	text = names || dojo_program_names_given(prog) ?
	    dojo_program_print_named(prog, addresses) :
	    dojo_program_print(prog, addresses);
	dojo_program_free(prog);
	if (!text) {
		fprintf(stderr, "perfdojo: out of memory\n");
		return DOJO_EXIT_ERROR;
	}
	fputs(text, stdout);
	free(text);
	return 0;
}

static int
check_run(int argc, char **argv)
{
	const char *file;
	dojo_program *prog;
	char id[41];
	int r;

	r = read_args(&dojo_command_check, argc, argv, NULL, NULL, &file);
	if (r)
		return r;
	prog = dojo_program_read_file(file);
	if (!prog)
		return dojo_command_fail();
	dojo_program_id(id, prog);
	printf("%s: valid, state %s\n", file, id);
	dojo_program_free(prog);
	return 0;
}

static const struct dojo_option show_options[] = {
	{ "addresses", 'a', NULL, "put each line's node address in a left "
	    "gutter (the scope in cell j of a line is the first j+1 parts)" },
	{ "names", 'n', NULL, "put each loop's name before its size (i=512), "
	    "as when FILE gives names" },
	{ NULL }
};

const struct dojo_command dojo_command_show = {
	.name = "show",
	.args = "FILE.dojo",
	.options = show_options,
	.summary = "print a kernel in canonical form",
	.run = show_run,
};

const struct dojo_command dojo_command_check = {
	.name = "check",
	.args = "FILE.dojo",
	.summary = "validate a kernel and print its state id",
	.run = check_run,
};
