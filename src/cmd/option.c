/* option.c: a command's option table made into getopt's tables, its
 * synopsis and the list of options of its --help */
#include "config.h"
#include "src/cmd/command.h"

#include <assert.h>
#include <getopt.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* The width that the help is wrapped to, and the widest left column of
 * the list of options (a wider row starts its help on the next line). */
#define WRAP_COLUMNS 79
#define LEFT_MAX 24

/* Whether "key" is a short option letter rather than a code. */
static inline bool
is_short(int key)
{
	return key > 0 && key < 256;
}

void
dojo_option_parser_init(struct dojo_option_parser *out,
    const struct dojo_command *cmd)
{
	const struct dojo_option *o;
	struct option *lo = out->longopts;
	char *s = out->shorts;

	out->longindex = -1;
	/* ':' first: a missing value is told from an unknown option */
	*s++ = ':';
	for (o = cmd->options; o && (o->name || o->arg); o++) {
		if (!o->name)
			continue;
		assert(lo < out->longopts + DOJO_OPTIONS_MAX);
		lo->name = o->name;
		lo->has_arg = !o->arg ? no_argument :
		    o->flags & DOJO_OPTION_OPTIONAL_ARG ? optional_argument :
		    required_argument;
		lo->flag = NULL;
		lo->val = o->key;
		if (is_short(o->key)) {
			*s++ = (char)o->key;
			if (lo->has_arg != no_argument)
				*s++ = ':';
			if (lo->has_arg == optional_argument)
				*s++ = ':';
		}
		lo++;
	}
	*lo++ = (struct option){ "help", no_argument, NULL, 'h' };
	*lo = (struct option){ NULL, 0, NULL, 0 };
	*s++ = 'h';
	*s = '\0';
	opterr = 0;
	optind = 1;
	out->cmd = cmd;
	out->status = 0;
}

int
dojo_option_next(struct dojo_option_parser *p, int argc, char **argv)
{
	p->longindex = -1;
	return getopt_long(argc, argv, p->shorts, p->longopts,
	    &p->longindex);
}

int
dojo_option_end(struct dojo_option_parser *p, int argc, char **argv)
{
	int c = dojo_option_next(p, argc, argv);

	switch (c) {
	case 'h':
		dojo_command_print_help(stdout, p->cmd);
		p->status = 0;
		return DOJO_OPTION_STOP;
	case ':':
	case '?':
		p->status = dojo_command_bad_option(p->cmd, c, argv);
		return DOJO_OPTION_STOP;
	}
	return c;
}

/* The left column of "o" in the list of options into "out". */
static void
format_left(char *out, size_t len, const struct dojo_option *o)
{
	const char *open = "", *close = "";

	if (!o->name) {
		snprintf(out, len, "%s", o->arg);
		return;
	}
	if (o->flags & DOJO_OPTION_OPTIONAL_ARG) {
		open = "[";
		close = "]";
	}
	snprintf(out, len, "%c%c%c --%s%s%s%s%s", is_short(o->key) ? '-' : ' ',
	    is_short(o->key) ? o->key : ' ', is_short(o->key) ? ',' : ' ',
	    o->name, o->arg ? " " : "", open, o->arg ? o->arg : "", close);
}

/* "text" on "out" from column "indent", wrapped at WRAP_COLUMNS, the
 * lines after the first indented as much; words are split on spaces, a
 * newline breaks the line. */
static void
print_wrapped(FILE *out, const char *text, int indent)
{
	int col = indent;
	const char *w = text, *e;
	int n;

	while (*w) {
		if (*w == ' ') {
			w++;
			continue;
		}
		if (*w == '\n') {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			w++;
			continue;
		}
		for (e = w; *e && *e != ' ' && *e != '\n'; e++)
			;
		n = e - w;
		if (col > indent && col + 1 + n > WRAP_COLUMNS) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(w, 1, n, out);
		col += n;
		w = e;
	}
}

/* One word of the synopsis, "word" of "n" bytes, on "out" at column
 * "*col", after a space or at the start of a line indented by "indent"
 * (0: no wrapping). */
static void
synopsis_word(FILE *out, const char *word, int n, int *col, int indent)
{
	if (indent && *col == indent) {
		/* the start of a line */
	} else if (indent && *col > indent && *col + 1 + n > WRAP_COLUMNS) {
		fprintf(out, "\n%*s", indent, "");
		*col = indent;
	} else {
		fputc(' ', out);
		(*col)++;
	}
	fwrite(word, 1, n, out);
	*col += n;
}

void
dojo_option_print_synopsis(FILE *out, const struct dojo_command *cmd,
    int indent)
{
	const struct dojo_option *o;
	const char *w, *e;
	char word[128];
	int col = indent ? indent - 1 : 0, n;

	for (o = cmd->options; o && (o->name || o->arg); o++) {
		bool req = o->flags & DOJO_OPTION_REQUIRED;

		if (!o->name)
			continue;
		if (!o->arg)
			n = snprintf(word, sizeof word, "%s--%s%s", req ? "" :
			    "[", o->name, req ? "" : "]");
		else if (o->flags & DOJO_OPTION_OPTIONAL_ARG)
			n = snprintf(word, sizeof word, "%s--%s [%s]%s", req ?
			    "" : "[", o->name, o->arg, req ? "" : "]");
		else
			n = snprintf(word, sizeof word, "%s--%s %s%s", req ?
			    "" : "[", o->name, o->arg, req ? "" : "]");
		synopsis_word(out, word, n < (int)sizeof word ? n :
		    (int)sizeof word - 1, &col, indent);
	}
	for (w = cmd->args ? cmd->args : ""; *w; w = e) {
		while (*w == ' ')
			w++;
		for (e = w; *e && *e != ' '; e++)
			;
		if (e > w)
			synopsis_word(out, w, e - w, &col, indent);
	}
}

void
dojo_option_print_list(FILE *out, const struct dojo_command *cmd)
{
	const struct dojo_option *o;
	char left[128];
	int width = 0, n;

	for (o = cmd->options; o && (o->name || o->arg); o++) {
		format_left(left, sizeof left, o);
		n = strlen(left);
		if (n > width && n <= LEFT_MAX)
			width = n;
	}
	for (o = cmd->options; o && (o->name || o->arg); o++) {
		format_left(left, sizeof left, o);
		n = strlen(left);
		/* a row too wide for the column has its help below */
		if (n > width)
			fprintf(out, "  %s\n%*s", left, 4 + width, "");
		else
			fprintf(out, "  %s%*s", left, 2 + width - n, "");
		print_wrapped(out, o->help ? o->help : "", 4 + width);
		fputc('\n', out);
	}
}

void
dojo_print_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static volatile sig_atomic_t stop_requested;

static void
request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void
dojo_command_catch_term(void)
{
	sigset_t term;

	signal(SIGTERM, request_stop);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &term, NULL);
}

bool
dojo_command_stopping(void)
{
	return stop_requested != 0;
}
