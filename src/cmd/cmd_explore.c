/* cmd_explore.c: perfdojo explore: the terminal explorer */
#include "config.h"
#include "ui/explore.h"
#include "src/cmd/command.h"
#include "targets/target.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static int
explore_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 't' },
		{ "keys", required_argument, NULL, 'k' },
		{ "size", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const struct dojo_command *cmd = &dojo_command_explore;
	struct dojo_explore_options opt;
	int c;

	memset(&opt, 0, sizeof opt);
	opt.target = "c";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:t:k:h", longopts, NULL)) != -1) {
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
		case 'S':
			if (sscanf(optarg, "%dx%d", &opt.width, &opt.height) != 2 ||
			    opt.width < 1 || opt.height < 1 || opt.width > 1000 ||
			    opt.height > 1000)
				return dojo_command_usage(cmd, "--size needs "
				    "WIDTHxHEIGHT, e.g. 100x30");
			break;
		case 'h':
			dojo_command_print_help(stdout, cmd);
			return 0;
		default:
			return dojo_command_bad_option(cmd, c, argv);
		}
	}
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	if (!dojo_target_find(opt.target))
		return dojo_command_usage(cmd, "%s", dojo_error_last());
	opt.file = argv[optind];
	return dojo_explore(&opt);
}

const struct dojo_command dojo_command_explore = {
	.name = "explore",
	.args = "FILE.dojo [--session DIR] [--target T] [--keys SCRIPT "
	    "[--size WxH]]",
	.summary = "the explorer: play the game in the terminal",
	.help = "  -s, --session DIR  the session (default FILE.dojo.session, "
	    "created on the\n"
	    "                     first run; later runs resume where the last "
	    "one left)\n"
	    "  -t, --target T     c (default) or cuda: which moves are legal\n"
	    "  -k, --keys SCRIPT  headless: no terminal; keys from SCRIPT, one "
	    "command a line:\n"
	    "                     'key NAME' (a character, Enter, Tab, Esc, Up, "
	    "Down, Left,\n"
	    "                     Right, PgUp, PgDn, Home, End, BSpace, BTab, "
	    "C-c, C-l),\n"
	    "                     'type TEXT', 'dump FILE' (the screen as text), "
	    "'edges FILE'\n"
	    "                     (the graph's edges, highlighted or not), "
	    "'wait'\n"
	    "                     (for the background measurement), 'resize W "
	    "H'\n"
	    "      --size WxH     the headless screen (default 80x24)\n"
	    "In the explorer, '?' lists the keys and ':help' the commands.\n",
	.run = explore_run,
};
