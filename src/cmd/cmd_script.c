/* cmd_script.c: perfdojo script: run a Guile script with (perfdojo) */
#include "config.h"
#include "src/cmd/command.h"
#include "src/util/error.h"
#include "scripts/guile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int
script_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_script;
	FILE *f;

	/* the options end at FILE: what follows is the script's */
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		dojo_command_print_help(stdout, cmd);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--") == 0) {
		argc--;
		argv++;
	}
	if (argc < 2)
		return dojo_command_usage(cmd, "expected a FILE");
	if (argv[1][0] == '-' && argv[1][1])
		return dojo_command_usage(cmd, "unknown option '%s'", argv[1]);
	f = fopen(argv[1], "r");
	if (!f) {
		dojo_error_set("%s: %s", argv[1], strerror(errno));
		return dojo_command_fail();
	}
	fclose(f);
	return dojo_guile_run_script(argv[1], argc - 2, argv + 2);
}

const struct dojo_command dojo_command_script = {
	.name = "script",
	.args = "FILE.scm [ARGS...]",
	.summary = "run a Guile script that uses the module (perfdojo)",
	.help = "  (command-line) is FILE and ARGS; the script runs in "
	    "(guile-user) and\n"
	    "  may (use-modules (perfdojo)).  An uncaught error prints "
	    "one line,\n"
	    "  perfdojo: FILE:LINE:COL: message, and exits 1; (exit N) "
	    "exits N.\n",
	.run = script_run,
};
