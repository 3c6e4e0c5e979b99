/* command.h: the subcommands of perfdojo, one table */
#ifndef DOJO_COMMAND_H
#define DOJO_COMMAND_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/program.h"

#include <getopt.h>

/* One row of a command's option table, from which its getopt options,
 * its synopsis and the list of options in its --help are all made.  A
 * row without a name describes an operand ("arg", such as REV) in the
 * list only; the table ends with { NULL }.  --help (-h) is every
 * command's and in no table. */
struct dojo_option {
	const char *name;	/* the long name, without "--" */
	int key;		/* the short letter, or a code > 255 for none */
	const char *arg;	/* the value's name, "N"; NULL for a flag */
	const char *help;	/* one paragraph, wrapped when printed */
	int flags;		/* DOJO_OPTION_* */
};

/* The value may be left out (--why, --why=ACTION). */
#define DOJO_OPTION_OPTIONAL_ARG 0x1
/* Written without brackets in the synopsis (the command checks it). */
#define DOJO_OPTION_REQUIRED 0x2

struct dojo_command {
	const char *name;
	const char *args;	/* the operands, after the options */
	const struct dojo_option *options;	/* NULL: none */
	const char *summary;	/* one line for the list of commands */
	/* a verb of the session's (src/core/verbs.h): the summary is the
	 * verb's, and what it does to a session its run */
	const char *verb;
	const char *help;	/* lines of text after the list of options */
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
extern const struct dojo_command dojo_command_states;
extern const struct dojo_command dojo_command_targets;
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
extern const struct dojo_command dojo_command_lib;
extern const struct dojo_command dojo_command_diff;

/* Exit statuses: 1 for an error in the work, 2 for a usage error. */
#define DOJO_EXIT_ERROR 1
#define DOJO_EXIT_USAGE 2

/* Report the core's last error, or a usage error, on stderr. */
int dojo_command_fail(void);
int dojo_command_usage(__dojo_keep const struct dojo_command *cmd,
    const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dojo_command_print_help(FILE *out,
    __dojo_keep const struct dojo_command *cmd);
/* The one-line summary of "cmd": its own, or its verb's. */
const char *dojo_command_summary(__dojo_keep const struct dojo_command *cmd);
/* Write "text" to the file "path", or to stdout when "path" is NULL; 0
 * or -1 with the last error set. */
int dojo_command_write(const char *path, const char *text);
/* The usage error for getopt's answer "c" (':' a missing value, else an
 * unknown option). */
int dojo_command_bad_option(__dojo_keep const struct dojo_command *cmd, int c,
    char **argv);

/* The most options a command takes (tune has 19). */
#define DOJO_OPTIONS_MAX 31

/* getopt_long's tables for one command, made from its option table. */
struct dojo_option_parser {
	struct option longopts[DOJO_OPTIONS_MAX + 2];	/* and --help, end */
	char shorts[3 * DOJO_OPTIONS_MAX + 5];
	int longindex;		/* the long option found last, or -1 */
	const struct dojo_command *cmd;
	int status;		/* after DOJO_OPTION_STOP: the exit status */
};

/* dojo_option_end's answer when the command is to stop: --help was
 * printed (status 0) or a usage error reported (status 2). */
#define DOJO_OPTION_STOP (-2)

/* Start "out" on the options of "cmd" and reset getopt for a new argv. */
void dojo_option_parser_init(__dojo_keep struct dojo_option_parser *out,
    __dojo_keep const struct dojo_command *cmd);
/* The next option of "argv" as getopt_long answers: its key (optarg
 * holds its value), 'h' for --help, ':' for a missing value, '?' for an
 * unknown option, -1 after the last (optind is the first operand). */
int dojo_option_next(__dojo_keep struct dojo_option_parser *p, int argc,
    char **argv);
/* The same, with --help printed and a missing value or an unknown option
 * reported here: the next option's key, -1 after the last, or
 * DOJO_OPTION_STOP with the exit status in p->status. */
int dojo_option_end(__dojo_keep struct dojo_option_parser *p, int argc,
    char **argv);
/* The synopsis of "cmd" after its name on "out": one line when "indent"
 * is 0, else wrapped at 80 columns with lines after the first indented
 * by "indent". */
void dojo_option_print_synopsis(FILE *out,
    __dojo_keep const struct dojo_command *cmd, int indent);
/* The list of the operands and options of "cmd", aligned, on "out". */
void dojo_option_print_list(FILE *out,
    __dojo_keep const struct dojo_command *cmd);

/* The session of a command: "dir" (--session), or "file".session when
 * "file" is given, or the current directory when it is a session.  With
 * "prog" (read from "file"), the session is created starting at it when
 * missing (if "create"), and moved to prog's state, which must be one of
 * its states.  NULL with the last error set. */
struct dojo_session;
__dojo_give struct dojo_session *dojo_session_at(const char *dir,
    const char *file, __dojo_keep dojo_program *prog, bool create);

/* From here on SIGTERM only asks the command to stop (unblocked, if a
 * caller such as the explorer held it back): dojo_command_stopping() says
 * whether it was asked, so that the command ends its work cleanly. */
void dojo_command_catch_term(void);
bool dojo_command_stopping(void);

/* "s" as a JSON string on "out". */
void dojo_print_json_string(FILE *out, const char *s);

/* The moves of an actions file ("-": standard input), one a line,
 * '#' comments and blank space dropped: "fn" is called with each and
 * "FILE:LINE:COL: " for its errors, until it returns non-zero.  0, or
 * -1 (the file cannot be read, or "fn" said -1). */
typedef int (*dojo_action_line_fn)(const char *text, const char *where,
    void *payload);
int dojo_action_lines(const char *path, dojo_action_line_fn fn,
    void *payload);

#endif
