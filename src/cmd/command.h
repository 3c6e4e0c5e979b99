/* command.h: the subcommands of perfdojo, one table */
#ifndef DOJO_COMMAND_H
#define DOJO_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/program.h"

struct dojo_command {
	const char *name;
	const char *args;	/* the synopsis after the name */
	const char *summary;	/* one line for the list of commands */
	const char *help;	/* the options, one per line */
	int (*run)(int argc, char **argv);
};

extern const struct dojo_command dojo_command_show;
extern const struct dojo_command dojo_command_check;
extern const struct dojo_command dojo_command_run;
extern const struct dojo_command dojo_command_actions;
extern const struct dojo_command dojo_command_apply;
extern const struct dojo_command dojo_command_emit;
extern const struct dojo_command dojo_command_measure;
extern const struct dojo_command dojo_command_log;
extern const struct dojo_command dojo_command_checkout;
extern const struct dojo_command dojo_command_replay;
extern const struct dojo_command dojo_command_undo;
extern const struct dojo_command dojo_command_redo;
extern const struct dojo_command dojo_command_branch;
extern const struct dojo_command dojo_command_tune;
extern const struct dojo_command dojo_command_train;
extern const struct dojo_command dojo_command_explore;	/* ui/ */
extern const struct dojo_command dojo_command_graph;
extern const struct dojo_command dojo_command_script;

/* Exit statuses: 1 for an error in the work, 2 for a usage error. */
#define DOJO_EXIT_ERROR 1
#define DOJO_EXIT_USAGE 2

/* Report the core's last error, or a usage error, on stderr. */
int dojo_command_fail(void);
int dojo_command_usage(const struct dojo_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dojo_command_print_help(FILE *out, const struct dojo_command *cmd);
/* Write "text" to the file "path", or to stdout when "path" is NULL; 0
 * or -1 with the last error set. */
int dojo_command_write(const char *path, const char *text);
/* The usage error for getopt's answer "c" (':' a missing value, else an
 * unknown option). */
int dojo_command_bad_option(const struct dojo_command *cmd, int c,
    char **argv);

/* The session of a command: "dir" (--session), or "file".session when
 * "file" is given, or the current directory when it is a session.  With
 * "prog" (read from "file"), the session is created starting at it when
 * missing (if "create"), and moved to prog's state, which must be one of
 * its states.  NULL with the last error set. */
struct dojo_session;
struct dojo_session *dojo_session_at(const char *dir, const char *file,
    dojo_program *prog, bool create);

#endif
