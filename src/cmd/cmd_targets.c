/* cmd_targets.c: perfdojo targets: the target table, and what is
 * installed for each target */
#include "config.h"
#include "src/cmd/command.h"
#include "targets/cross.h"
#include "targets/target.h"
#include "src/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a target needs that this machine has, in a few words. */
static void
installed(char *out, size_t len, const struct dojo_target *t)
{
	char missing[128], **ccw;
	const char *cc = getenv("CC");

	if (t->cross && !t->cross->qemu) {
		char found[256];

		snprintf(out, len, "%s: %s; GPU: %s (without one, emit works, "
		    "%s:emu checks the code on this CPU, --runner runs it on "
		    "a machine with one)", t->cross->cc,
		    dojo_cross_compiler(t->cross, NULL, found, sizeof found) ?
		    found : "missing", access(t->cross->device, F_OK) == 0 ?
		    "present" : "none", t->name);
	} else if (t->cross) {
		if (dojo_cross_installed(t->cross, NULL, missing,
		    sizeof missing))
			snprintf(out, len, "%s and %s: installed; runs here "
			    "emulated (times not cached), or on the machine "
			    "with --runner", t->cross->cc, t->cross->qemu);
		else
			snprintf(out, len, "%s missing (apt-get install %s)",
			    missing, t->cross->packages);
	} else {
		/* $CC's first word, as the runner runs it */
		ccw = dojo_split_words(cc && *cc ? cc : "cc", NULL);
		snprintf(out, len, "%s: %s; compiled and run here", ccw &&
		    ccw[0] ? ccw[0] : "cc", dojo_on_path(ccw && ccw[0] ?
		    ccw[0] : "cc") ? "installed" : "missing");
		free(ccw);
	}
}

static int
targets_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_targets;
	struct dojo_option_parser p;
	char what[1024];
	int c, i, v;

	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0)
		;
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc)
		return dojo_command_usage(cmd, "no operand expected");
	for (i = 0; i < dojo_target_count(); i++) {
		const struct dojo_target *t = dojo_target_at(i);

		printf("%-8s %s%s\n", t->name, t->about,
		    t == dojo_target_default() ? " (the default)" : "");
		installed(what, sizeof what, t);
		printf("         %s\n", what);
		for (v = 1; t->cross && v < t->cross->nvariants; v++)
			printf("         %s:%s: %s\n", t->name,
			    t->cross->variants[v].name,
			    t->cross->variants[v].about);
	}
	return 0;
}

static const struct dojo_option targets_options[] = {
	{ NULL }
};

const struct dojo_command dojo_command_targets = {
	.name = "targets",
	.args = "",
	.options = targets_options,
	.summary = "list the targets and what is installed for each",
	.run = targets_run,
};
