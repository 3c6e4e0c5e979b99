/* cmd_diff.c: perfdojo diff: two states side by side or as a unified
 * diff: their programs, their C, their assembly */
#include "config.h"
#include "src/cmd/command.h"
#include "src/core/session.h"
#include "src/core/view.h"
#include "src/util/diff.h"
#include "src/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { OPT_CODE = 256, OPT_ASM, OPT_CONTEXT, OPT_WIDTH };

static bool
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The program that "what" names: a kernel file, or a revision of "s"
 * ("best": the tag best/c).  NULL with the error. */
static dojo_program *
program_of(const char *what, dojo_session *s)
{
	char tag[64];

	if (is_file(what))
		return dojo_program_read_file(what);
	if (!s)
		return NULL;
	return dojo_session_program_at(s, dojo_session_rev(tag, what, NULL));
}

static int
diff_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_diff;
	struct dojo_diff_options dopt = { NULL, NULL, 3, 0 };
	struct dojo_option_parser p;
	enum dojo_view view = DOJO_VIEW_PROGRAM;
	const char *session = NULL, *a, *b, *file = NULL;
	dojo_program *pa = NULL, *pb = NULL;
	dojo_session *s = NULL;
	struct dojo_strbuf out;
	char la[300], lb[300], *end;
	bool differ, side = false;
	int c, rc = DOJO_EXIT_ERROR;

	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 's': session = optarg; break;
		case OPT_CODE: view = DOJO_VIEW_CODE; break;
		case OPT_ASM: view = DOJO_VIEW_ASM; break;
		case 'y': side = true; break;
		case OPT_CONTEXT:
			dopt.context = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || dopt.context < 0)
				return dojo_command_usage(cmd, "'%s' is not a "
				    "valid value for --context", optarg);
			break;
		case OPT_WIDTH:
			dopt.width = (int)strtol(optarg, &end, 10);
			if (*end || end == optarg || dopt.width < 20)
				return dojo_command_usage(cmd, "'%s' is not a "
				    "valid value for --width (20 or more)",
				    optarg);
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1 && optind != argc - 2)
		return dojo_command_usage(cmd, "expected A and B, or A (B: "
		    "the current state)");
	a = argv[optind];
	b = optind + 1 < argc ? argv[optind + 1] : "HEAD";
	if (side && !dopt.width)
		dopt.width = 160;
	if (!side)
		dopt.width = 0;
	/* a session when a side is no file: --session, else the session of
	 * the file given, else the current folder's */
	if (!is_file(a) || !is_file(b)) {
		if (is_file(a))
			file = a;
		else if (is_file(b))
			file = b;
		s = dojo_session_at(session, file, NULL, false);
		if (!s)
			return dojo_command_fail();
	}
	if (!(pa = program_of(a, s)) || !(pb = program_of(b, s)))
		goto fail;
	snprintf(la, sizeof la, "%s (%s)", a, dojo_view_name(view));
	snprintf(lb, sizeof lb, "%s (%s)", b, dojo_view_name(view));
	dopt.label_a = la;
	dopt.label_b = lb;
	dojo_strbuf_init(&out);
	if (dojo_view_diff(&out, pa, pb, view, &dopt, &differ) < 0) {
		dojo_strbuf_release(&out);
		goto fail;
	}
	if (out.s)
		fputs(out.s, stdout);
	else if (!differ)
		fprintf(stderr, "perfdojo diff: %s and %s: the same %s\n", a, b,
		    dojo_view_name(view));
	dojo_strbuf_release(&out);
	rc = 0;
	goto out;
fail:
	dojo_command_fail();
out:
	dojo_program_free(pa);
	dojo_program_free(pb);
	dojo_session_free(s);
	return rc;
}

static const struct dojo_option diff_options[] = {
	{ NULL, 0, "A, B", "a state of the session (a commit, branch, tag, "
	    "HEAD~N, best) or a kernel file; B is the current state when "
	    "left out" },
	{ "session", 's', "DIR", "the session (default: the session of the "
	    "file given, else the current folder)" },
	{ "code", OPT_CODE, NULL, "compare their generated C" },
	{ "asm", OPT_ASM, NULL, "compare their assembly (the C compiled as a "
	    "measurement compiles it, objdump -d of the kernel's function, "
	    "without addresses)" },
	{ "side-by-side", 'y', NULL, "two columns instead of a unified "
	    "diff" },
	{ "width", OPT_WIDTH, "W", "side by side: the columns of the two "
	    "together (default 160)" },
	{ "context", OPT_CONTEXT, "N", "unified: lines around a change "
	    "(default 3)" },
	{ NULL }
};

const struct dojo_command dojo_command_diff = {
	.name = "diff",
	.args = "A [B]",
	.options = diff_options,
	.summary = "compare two states: programs, generated C or assembly",
	.help = "Prints nothing when they are the same (and says so on "
	    "stderr); exits 0 either way.\n",
	.run = diff_run,
};
