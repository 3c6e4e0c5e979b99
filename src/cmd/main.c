/* main.c: perfdojo, the command: dispatch over the command table */
#include "config.h"
#include "src/cmd/command.h"
#include "src/util/error.h"
#include "src/core/verbs.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct dojo_command *const commands[] = {
	&dojo_command_explore,
	&dojo_command_show,
	&dojo_command_check,
	&dojo_command_run,
	&dojo_command_actions,
	&dojo_command_apply,
	&dojo_command_emit,
	&dojo_command_targets,
	&dojo_command_measure,
	&dojo_command_log,
	&dojo_command_checkout,
	&dojo_command_replay,
	&dojo_command_undo,
	&dojo_command_redo,
	&dojo_command_branch,
	&dojo_command_states,
	&dojo_command_graph,
	&dojo_command_script,
	&dojo_command_lib,
	&dojo_command_diff,
	&dojo_command_tune,
	&dojo_command_train,
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

int
dojo_command_fail(void)
{
	/* a failure that left no reason is one of memory */
	fprintf(stderr, "perfdojo: %s\n", *dojo_error_last() ?
	    dojo_error_last() : "out of memory (no reason was recorded)");
	return DOJO_EXIT_ERROR;
}

int
dojo_command_usage(const struct dojo_command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perfdojo %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (usage: perfdojo %s", cmd->name);
	dojo_option_print_synopsis(stderr, cmd, 0);
	fprintf(stderr, ")\n");
	return DOJO_EXIT_USAGE;
}

int
dojo_command_write(const char *path, const char *text)
{
	FILE *f;

	if (!path)
		/* said as close_stdout says it, however much came first */
		return fputs(text, stdout) < 0 ? dojo_error_set("write error: "
		    "%s", strerror(errno)) : 0;
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0) {
		if (f)
			fclose(f);
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	if (fclose(f) != 0)
		return dojo_error_set("%s: %s", path, strerror(errno));
	return 0;
}

int
dojo_command_bad_option(const struct dojo_command *cmd, int c, char **argv)
{
	if (c == ':')
		return dojo_command_usage(cmd, "option '%s' needs a value",
		    argv[optind - 1]);
	return dojo_command_usage(cmd, "unknown option '%s'",
	    argv[optind - 1]);
}

const char *
dojo_command_summary(const struct dojo_command *cmd)
{
	const struct dojo_verb *v = cmd->verb ? dojo_verb_find(cmd->verb) :
	    NULL;

	return v ? v->summary : cmd->summary ? cmd->summary : "";
}

/* The help of "cmd" on "out": its synopsis, its summary, the list of its
 * operands and options, and the text after it. */
void
dojo_command_print_help(FILE *out, const struct dojo_command *cmd)
{
	int n;

	n = fprintf(out, "usage: perfdojo %s", cmd->name);
	dojo_option_print_synopsis(out, cmd, n + 1);
	fprintf(out, "\n\n%s\n", dojo_command_summary(cmd));
	if ((cmd->options && (cmd->options->name || cmd->options->arg)) ||
	    (cmd->help && *cmd->help))
		fputc('\n', out);
	dojo_option_print_list(out, cmd);
	if (cmd->help)
		fputs(cmd->help, out);
}

static void
print_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: perfdojo COMMAND [ARGS...]\n"
	    "       perfdojo --help | --version\n\n"
	    "PerfDojo: kernel optimization as a game of legal moves.\n\n"
	    "Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i]->name,
		    dojo_command_summary(commands[i]));
	fprintf(out, "\n'perfdojo COMMAND --help' describes one command.\n");
}

/* Flush and close stdout, so that a write that failed (a full disk, a
 * closed pipe) is seen whatever the command printed; "status" is the
 * command's exit status, which a failed write turns into an error (the
 * message is left to a command that failed already). */
static int
close_stdout(int status)
{
	bool failed;
	int err;

	errno = 0;
	failed = fflush(stdout) != 0 || ferror(stdout);
	err = errno;
	/* a closed stdout that nothing was written to is no error */
	if (fclose(stdout) != 0 && errno != EBADF && !failed) {
		failed = true;
		err = errno;
	}
	if (!failed)
		return status;
	if (status == 0) {
		if (err)
			fprintf(stderr, "perfdojo: write error: %s\n",
			    strerror(err));
		else
			fprintf(stderr, "perfdojo: write error\n");
	}
	return status ? status : DOJO_EXIT_ERROR;
}

/* The exit status of "argv" as a command line. */
static int
run(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		print_usage(stderr);
		return DOJO_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0)
			for (i = 0; i < N_COMMANDS; i++)
				if (strcmp(argv[2], commands[i]->name) == 0) {
					dojo_command_print_help(stdout,
					    commands[i]);
					return 0;
				}
		print_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("perfdojo %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (strcmp(argv[1], commands[i]->name) == 0)
			return commands[i]->run(argc - 1, argv + 1);
	fprintf(stderr, "perfdojo: unknown command '%s' (see perfdojo "
	    "--help)\n", argv[1]);
	return DOJO_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
