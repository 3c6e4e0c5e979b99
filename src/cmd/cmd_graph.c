/* cmd_graph.c: perfdojo graph: the dependence graph of a kernel as DOT,
 * SVG, PNG or text */
#include "config.h"
#include "src/cmd/command.h"
#include "ir/program.h"
#include "src/core/graph.h"
#include "src/core/layout.h"
#include "src/core/session.h"
#include "ui/canvas.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_AT = 256, OPT_AROUND, OPT_NO_ARRAYS, OPT_TEXT, OPT_WIDTH,
	OPT_HEIGHT, OPT_ASCII, OPT_HISTORY
};

struct graph_args {
	const char *file, *out, *format, *at, *session;
	int around, width, height;
	bool text, ascii, no_arrays, history;
};

/* A positive integer option value into "*out"; false when it is not. */
static bool
positive(int *out, const char *text)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 1 || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

static int
read_args(struct graph_args *a, int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_graph;
	struct dojo_option_parser p;
	int c;

	memset(a, 0, sizeof *a);
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 'o':
			a->out = optarg;
			break;
		case 'f':
			a->format = optarg;
			break;
		case OPT_AT:
			a->at = optarg;
			break;
		case OPT_AROUND:
			if (!positive(&a->around, optarg))
				return dojo_command_usage(cmd, "--around needs "
				    "a positive number of edges, not '%s'",
				    optarg);
			break;
		case OPT_NO_ARRAYS:
			a->no_arrays = true;
			break;
		case OPT_TEXT:
			a->text = true;
			break;
		case OPT_WIDTH:
		case OPT_HEIGHT:
			if (!positive(c == OPT_WIDTH ? &a->width : &a->height,
			    optarg) || atoi(optarg) < 3 || atoi(optarg) > 10000)
				return dojo_command_usage(cmd, "%s needs a "
				    "number of cells from 3 to 10000, not '%s'",
				    c == OPT_WIDTH ? "--width" : "--height",
				    optarg);
			break;
		case OPT_ASCII:
			a->ascii = true;
			break;
		case OPT_HISTORY:
			a->history = true;
			break;
		case 's':
			a->session = optarg;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP) {
		if (p.status == 0)
			exit(0);	/* after --help */
		return p.status;
	}
	if (a->session && !a->history)
		return dojo_command_usage(cmd, "--session goes with --history");
	if (a->history) {
		if (optind < argc - 1)
			return dojo_command_usage(cmd, "expected at most one "
			    "FILE with --history");
		if (a->at || a->no_arrays)
			return dojo_command_usage(cmd, "--at, --around and "
			    "--no-arrays draw dependences, not --history");
		a->file = optind < argc ? argv[optind] : NULL;
		return 0;
	}
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	a->file = argv[optind];
	if (a->around && !a->at)
		return dojo_command_usage(cmd, "--around needs --at ADDRESS");
	if ((a->width || a->height || a->ascii) && !a->text)
		return dojo_command_usage(cmd, "--width, --height and --ascii "
		    "go with --text");
	if (a->text && a->format)
		return dojo_command_usage(cmd, "--text and --format exclude "
		    "each other");
	return 0;
}

/* Write "len" bytes of "data" to "path", or stdout when NULL. */
static int
write_bytes(const char *path, const char *data, size_t len)
{
	FILE *f = path ? fopen(path, "wb") : stdout;

	if (!f || fwrite(data, 1, len, f) != len) {
		if (f && path)
			fclose(f);
		return dojo_error_set("%s: %s", path ? path : "write error",
		    strerror(errno));
	}
	if (path ? fclose(f) != 0 : fflush(f) != 0)
		return dojo_error_set("%s: %s", path ? path : "write error",
		    strerror(errno));
	return 0;
}

/* The graph as text: 1:1 at its full size, or fitted to --width and
 * --height (either alone keeps the full size along the other axis). */
static char *
graph_text(Agraph_t *g, const struct graph_args *a)
{
	struct dojo_canvas_view view = { 0 };
	dojo_layout *layout;
	dojo_canvas *canvas;
	char *text = NULL;
	int w, h;

	layout = dojo_layout_new(g);
	if (!layout)
		return NULL;
	dojo_layout_cells(&w, &h, layout);
	view.fit = (a->width && a->width < w) || (a->height && a->height < h);
	view.ascii = a->ascii;
	canvas = dojo_canvas_new(a->width ? a->width : w,
	    a->height ? a->height : h);
	if (canvas) {
		dojo_canvas_draw(canvas, layout, &view);
		text = dojo_canvas_text(canvas);
	}
	dojo_canvas_free(canvas);
	dojo_layout_free(layout);
	return text;
}

static int
graph_run(int argc, char **argv)
{
	struct dojo_graph_options opt = { 0 };
	enum dojo_graph_format format = DOJO_GRAPH_DOT;
	struct graph_args a;
	int path[DOJO_MAX_DEPTH], rc = DOJO_EXIT_ERROR;
	dojo_program *prog = NULL;
	Agraph_t *g = NULL;
	char *data = NULL;
	size_t len;

	rc = read_args(&a, argc, argv);
	if (rc)
		return rc;
	rc = DOJO_EXIT_ERROR;
	if (a.format ? dojo_graph_format_parse(&format, a.format) < 0 :
	    a.out && !a.text &&
	    dojo_graph_format_of_path(&format, a.out) < 0)
		return dojo_command_fail();
	if (a.history) {
		dojo_session *s = dojo_session_at(a.session, a.file, NULL, false);

		if (!s)
			return dojo_command_fail();
		g = dojo_graph_history(s);
		dojo_session_free(s);
		if (!g)
			goto out_free;
		goto out_write;
	}
	prog = dojo_program_read_file(a.file);
	if (!prog)
		return dojo_command_fail();
	if (a.at) {
		opt.at_len = dojo_address_parse(path, a.at);
		if (opt.at_len < 0)
			goto out_free;
		opt.at = path;
	}
	opt.around = a.around;
	opt.no_arrays = a.no_arrays;
	g = dojo_graph_deps(prog, &opt);
	if (!g)
		goto out_free;
out_write:
	if (a.text) {
		data = graph_text(g, &a);
		if (!data || write_bytes(a.out, data, strlen(data)) < 0)
			goto out_free;
	} else if (dojo_graph_render(&data, &len, g, format) < 0 ||
	    write_bytes(a.out, data, len) < 0) {
		goto out_free;
	}
	rc = 0;
out_free:
	free(data);
	dojo_graph_free(g);
	dojo_program_free(prog);
	if (rc)
		dojo_command_fail();
	dojo_graph_cleanup();
	return rc ? DOJO_EXIT_ERROR : 0;
}

static const struct dojo_option graph_options[] = {
	{ "output", 'o', "OUT", "write to OUT, its format named by its "
	    "extension (.dot or .gv, .svg, .png); default: DOT on stdout" },
	{ "format", 'f', "F", "dot, svg or png, whatever OUT is called" },
	{ "at", OPT_AT, "ADDRESS", "only the operations under the node at "
	    "ADDRESS, their arrays and the dependences among them" },
	{ "around", OPT_AROUND, "N", "with --at: instead, those operations "
	    "highlighted and every node within N edges of them" },
	{ "no-arrays", OPT_NO_ARRAYS, NULL, "leave out the array nodes and the "
	    "access edges" },
	{ "text", OPT_TEXT, NULL, "draw the graph as text (Graphviz's layout, "
	    "box drawing)" },
	{ "width", OPT_WIDTH, "W", "with --text: fit in W columns (default: "
	    "full size)" },
	{ "height", OPT_HEIGHT, "H", "with --text: fit in H lines (default: "
	    "full size)" },
	{ "ascii", OPT_ASCII, NULL, "with --text: ASCII instead of box "
	    "drawing" },
	{ "history", OPT_HISTORY, NULL, "the exploration tree of a session "
	    "instead, FILE optional: FILE's (FILE.session), --session DIR's, "
	    "or the current directory's" },
	{ "session", 's', "DIR", "with --history: the session" },
	{ NULL }
};

const struct dojo_command dojo_command_graph = {
	.name = "graph",
	.args = "FILE.dojo",
	.options = graph_options,
	.summary = "draw the dependence graph of a kernel, or a session's "
	    "tree",
	.run = graph_run,
};
