/* scheme.c: Guile in the explorer: ':scheme EXPR', ':move NAME' (a move
 * written in Scheme), key bindings and the init file */
#include "config.h"
#include "ui/explore.h"
#include "src/util/error.h"
#include "scripts/guile.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Evaluate "expr" for the explorer.  In a terminal, C-c sends SIGINT
 * while Scheme runs (the screen is in raw mode otherwise), which
 * interrupts a script that loops.  0 or -1 (error in "*out"). */
static int
eval(struct explorer *ex, const char *expr, char **out)
{
	struct sigaction old;
	int rc;

	sigaction(SIGINT, NULL, &old);
	if (!ex->headless) {
		noraw();
		cbreak();
	}
	ex->guile_started = true;
	rc = dojo_guile_explore_eval(ex->prog, dojo_session_dir(ex->session),
	    expr, out);
	if (!ex->headless)
		raw();
	sigaction(SIGINT, &old, NULL);
	if (rc < 0) {
		free(*out);
		*out = strdup(dojo_error_last());
	}
	return rc;
}

/* The first line of "text" after its output: the value, or the last
 * line. */
static const char *
summary(const char *text)
{
	const char *v = strstr(text, "=> "), *nl;

	if (v)
		return v;
	nl = strrchr(text, '\n');
	while (nl && nl > text && nl[1] == '\0') {
		const char *p = nl - 1;

		while (p > text && *p != '\n')
			p--;
		if (p == text)
			return text;
		nl = p;
	}
	return nl ? nl + 1 : text;
}

void
ex_scheme_eval(struct explorer *ex, const char *expr)
{
	char *out = NULL;
	int rc;

	if (!*expr) {
		ex_message(ex, true, "scheme: what? (scheme EXPR)");
		return;
	}
	rc = eval(ex, expr, &out);
	/* Scheme may have stepped the session */
	if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
		free(out);
		return;
	}
	ex_show_output(ex, "scheme", out ? out : strdup(""));
	ex_message(ex, rc < 0, "%s", rc < 0 ? ex->output : summary(ex->output));
}

void
ex_scheme_move(struct explorer *ex, const char *name)
{
	struct dojo_session_step st;
	char **actions;
	int n;

	if (!*name) {
		char **names = dojo_guile_registered("move"), **p;
		char list[400] = "";
		size_t len = 0;

		ex->guile_started = true;
		for (p = names; p && *p && len + 2 < sizeof list; p++)
			len += snprintf(list + len, sizeof list - len, "%s ", *p);
		dojo_guile_names_free(names);
		ex_message(ex, !list[0], "%s", list[0] ? list :
		    "no move defined in Scheme (define-move NAME PROC)");
		return;
	}
	ex->guile_started = true;
	actions = dojo_guile_move_actions(ex->prog, name);
	if (!actions) {
		ex_message(ex, true, "%s", dojo_error_last());
		return;
	}
	/* each of its moves a step of the session, checked again here */
	for (n = 0; actions[n]; n++)
		if (dojo_session_apply(ex->session, actions[n], ex->target,
		    &st) != DOJO_DONE)
			break;
	if (actions[n]) {
		ex_message(ex, true, "move %s: %s: %s", name, actions[n],
		    dojo_error_last());
		dojo_guile_names_free(actions);
		ex_reload(ex);
		return;
	}
	dojo_guile_names_free(actions);
	if (n == 0) {
		ex_message(ex, false, "move %s: no change", name);
		return;
	}
	if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
		return;
	}
	ex_message(ex, false, "move %s: %d move%s, %.7s%s", name, n,
	    n == 1 ? "" : "s", st.commit, st.existing ?
	    " (reached before)" : "");
}

bool
ex_scheme_key(struct explorer *ex, int key)
{
	char k[2] = { (char)key, '\0' }, *command;

	if (!ex->guile_started || key <= ' ' || key > '~')
		return false;
	command = dojo_guile_key_command(ex->prog, k);
	if (!command) {
		if (*dojo_error_last())
			ex_message(ex, true, "key %s: %s", k, dojo_error_last());
		return *dojo_error_last() != '\0';
	}
	ex_command(ex, command);
	free(command);
	return true;
}

void
ex_scheme_init_file(struct explorer *ex)
{
	const char *config = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char path[2048], expr[2200], *out = NULL;

	if (config && *config)
		snprintf(path, sizeof path, "%s/perfdojo/init.scm", config);
	else if (home && *home)
		snprintf(path, sizeof path, "%s/.config/perfdojo/init.scm", home);
	else
		return;
	if (access(path, R_OK) != 0 || strchr(path, '"') || strchr(path, '\\'))
		return;
	snprintf(expr, sizeof expr, "(load \"%s\")", path);
	if (eval(ex, expr, &out) < 0)
		ex_message(ex, true, "%s: %s", path, out ? out : "error");
	else
		ex_message(ex, false, "loaded %s", path);
	free(out);
}
