/* guile.h: the Guile binding, module (perfdojo)
 *
 * Two halves.  The primitives (scripts/guile.c) are compiled both into
 * the extension that plain guile loads (guile-perfdojo.so, through
 * load-extension in scripts/perfdojo.scm) and into the perfdojo command.
 * The embedding (scripts/embed.c) is only in the command and the
 * explorer: it defines (perfdojo) in-process from the module's text built
 * into the program, runs scripts and evaluates expressions, every call
 * into Scheme under one catch that turns an error into a message.
 *
 * Errors of the core become Scheme exceptions with the key perfdojo-error
 * and the one-line message as the only argument.
 */
#ifndef DOJO_GUILE_H
#define DOJO_GUILE_H

#include <stdbool.h>

#include "ir/program.h"

/* The extension's entry point: defines the primitives (named %...) in
 * the current module.  (load-extension "guile-perfdojo" "dojo_guile_init") */
void dojo_guile_init(void);

/* Evaluate the Scheme text "expr" (any number of forms, in module
 * (guile-user), with (perfdojo) available) and set "*out_text" to the
 * written form of the last value (malloc'ed).  0, or -1 with "*out_text"
 * the one-line error message (malloc'ed) and the last error set to it.
 * Never exits: (exit) in "expr" is reported as an error.  May be called
 * in or out of Guile mode. */
int dojo_guile_eval(const char *expr, char **out_text);

/* Run the script "file" with (command-line) "file args..." ("argc"
 * arguments in "argv"); the exit status: 0, the status given to (exit),
 * or 1 after printing "perfdojo: FILE:LINE:COL: message" on stderr for an
 * uncaught error. */
int dojo_guile_run_script(const char *file, int argc, char **argv);

/* The names of the moves (kind "move") or agents ("agent") defined in
 * Scheme with define-move and define-agent, sorted: a NULL-terminated
 * array to free with dojo_guile_names_free, or NULL with the last error
 * set. */
__dojo_give char **dojo_guile_registered(const char *kind);
void dojo_guile_names_free(char **names);
/* The program after the Scheme move "name", or NULL with the last error
 * set. */
__dojo_give dojo_program *dojo_guile_apply_move(__dojo_keep dojo_program *prog,
    const char *name);
/* The legal actions that the Scheme move "name" takes from "prog", in
 * order (the apply-action steps that reach its program): a
 * NULL-terminated array to free with dojo_guile_names_free, or NULL with
 * the last error set, also when its program is not reached that way. */
__dojo_give char **dojo_guile_move_actions(__dojo_keep dojo_program *prog,
    const char *name);
/* The action (malloc'ed) that the Scheme agent "name" chooses in "prog",
 * or NULL with the last error set ("" set when the agent stops). */
__dojo_give char *dojo_guile_agent_choose(__dojo_keep dojo_program *prog,
    const char *name);

/* For the explorer: evaluate "expr" with explorer-program bound to
 * "prog" and (explorer-session) opening "session", the output and
 * warnings captured, C-c (SIGINT) an error; "*out_text" (malloc'ed) the
 * output then "=> VALUE".  0, or -1 with the last error set. */
int dojo_guile_explore_eval(__dojo_keep dojo_program *prog,
    const char *session, const char *expr, char **out_text);
/* The explorer command bound to "key" with bind-key (malloc'ed), or NULL:
 * none (the last error clear) or an error (set). */
__dojo_give char *dojo_guile_key_command(__dojo_keep dojo_program *prog,
    const char *key);

#ifdef SCM_MAJOR_VERSION
/* Programs as Scheme values (in Guile mode): a new reference either way;
 * dojo_guile_to_program throws wrong-type-arg on anything else. */
SCM dojo_guile_from_program(__dojo_keep dojo_program *prog);
__dojo_give dojo_program *dojo_guile_to_program(SCM obj);
#endif

#endif
