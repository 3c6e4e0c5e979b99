/* cmd_explore.c: perfdojo explore: the terminal explorer */
#include "config.h"
#include "ui/explore.h"
#include "src/cmd/command.h"
#include "targets/runner.h"
#include "targets/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The option without a short letter. */
enum { OPT_SIZE = 256 };

static int
explore_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_explore;
	struct dojo_option_parser p;
	struct dojo_explore_options opt;
	int c;

	memset(&opt, 0, sizeof opt);
	opt.target = DOJO_TARGET_HOST;
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 's':
			opt.session = optarg;
			break;
		case 't':
			opt.target = optarg;
			break;
		case 'k':
			opt.keys = optarg;
			break;
		case 'x':
			/* the measurements run in children: they inherit it */
			setenv("PERFDOJO_EXACT", "1", 1);
			break;
		case OPT_SIZE:
			if (sscanf(optarg, "%dx%d", &opt.width, &opt.height) != 2 ||
			    opt.width < 1 || opt.height < 1 || opt.width > 1000 ||
			    opt.height > 1000)
				return dojo_command_usage(cmd, "--size needs "
				    "WIDTHxHEIGHT, e.g. 100x30");
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	if (!dojo_target_find(opt.target))
		return dojo_command_usage(cmd, "%s", dojo_error_last());
	opt.file = argv[optind];
	return dojo_explore(&opt);
}

static const struct dojo_option explore_options[] = {
	{ "session", 's', "DIR", "the session (default FILE.dojo.session, "
	    "created on the first run; later runs resume where the last one "
	    "left)" },
	{ "target", 't', "T", "a target of 'perfdojo targets' (default: this "
	    "machine's): which moves are legal" },
	{ "keys", 'k', "SCRIPT", "headless: no terminal; keys from SCRIPT, "
	    "one command a line: 'key NAME' (a character, Enter, Tab, Esc, "
	    "Up, Down, Left, Right, PgUp, PgDn, Home, End, BSpace, BTab, C-c, "
	    "C-l), 'type TEXT', 'dump FILE' (the screen as text), 'edges "
	    "FILE' (the graph's edges, highlighted or not), 'wait' (for the "
	    "background measurement), 'resize W H'" },
	{ "size", OPT_SIZE, "WxH", "the headless screen (default 80x24)" },
	{ "exact", 'x', NULL, "measure in " DOJO_EXACT_HELP },
	{ NULL }
};

const struct dojo_command dojo_command_explore = {
	.name = "explore",
	.args = "FILE.dojo",
	.options = explore_options,
	.summary = "the explorer: play the game in the terminal",
	.help = "In the explorer, '?' lists the keys and ':help' the "
	    "commands.\n",
	.run = explore_run,
};
