/* prompt.c: the ':' command line and the '/' search, GNU readline in its
 * callback mode, drawn by curses on the last line */
#include "config.h"
#include "ui/explore.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <readline/history.h>
#include <readline/readline.h>

/* readline's callbacks carry no payload: the explorer being served */
static struct explorer *current;
static int pending[8];
static int npending;
static FILE *rl_null;
static char history_path[4096];
static bool installed;

static int
prompt_getc(FILE *f)
{
	int c;

	if (npending == 0)
		return EOF;
	c = pending[0];
	memmove(pending, pending + 1, --npending * sizeof *pending);
	return c;
}

static int
prompt_input_available(void)
{
	return npending > 0;
}

static void
prompt_redisplay(void)
{
	/* drawn with the screen, see ex_prompt_draw */
}

static void
prep_noop(int meta)
{
}

static void
deprep_noop(void)
{
}

/* Completion: command names first; then, by command, the words of the
 * legal actions, branch names, array names, addresses. */
static char **candidates;
static int ncandidates, candidate_next;

static void
clear_candidates(void)
{
	int i;

	for (i = 0; i < ncandidates; i++)
		free(candidates[i]);
	free(candidates);
	candidates = NULL;
	ncandidates = 0;
}

static void
add_candidate(const char *s, size_t n)
{
	char **p;
	int i;

	for (i = 0; i < ncandidates; i++)
		if (strlen(candidates[i]) == n &&
		    strncmp(candidates[i], s, n) == 0)
			return;
	p = realloc(candidates, (ncandidates + 1) * sizeof *p);
	if (!p)
		return;
	candidates = p;
	candidates[ncandidates] = strndup(s, n);
	if (candidates[ncandidates])
		ncandidates++;
}

static char *
generate(const char *text, int state)
{
	if (state == 0)
		candidate_next = 0;
	while (candidate_next < ncandidates) {
		const char *c = candidates[candidate_next++];

		if (strncmp(c, text, strlen(text)) == 0)
			return strdup(c);
	}
	return NULL;
}

struct action_words {
	const char *typed;	/* the action typed so far, before the word */
	size_t ntyped;
	dojo_program *prog;
};

/* The word of "text" after what was typed, if it goes on from it. */
static void
action_text_word(const struct action_words *w, const char *text)
{
	const char *word;

	if (strncmp(text, w->typed, w->ntyped) != 0)
		return;
	word = text + w->ntyped;
	add_candidate(word, strcspn(word, " "));
}

static int
action_word(const struct dojo_action *a, void *payload)
{
	struct action_words *w = payload;
	char text[128], named[192];
	dojo_node *node;
	size_t n;

	dojo_action_format(text, sizeof text, a);
	action_text_word(w, text);
	/* the same with the scope's name for its address: "split i 32" */
	node = a->npath ? dojo_program_lookup(w->prog, a->path, a->npath) :
	    NULL;
	if (!node || !*dojo_node_name(node))
		return 0;
	n = strcspn(text, " ");
	snprintf(named, sizeof named, "%.*s %s%s", (int)n, text,
	    dojo_node_name(node), text + n + 1 + strcspn(text + n + 1, " "));
	action_text_word(w, named);
	return 0;
}

/* A state's branches and, for checkout ("payload" not NULL), its short
 * commit id. */
static int
branch_name(const struct dojo_session_entry *e, void *payload)
{
	const char *p = e->branches;

	if (payload)
		add_candidate(e->commit, 7);
	while (*p) {
		size_t n = strcspn(p, " ");

		add_candidate(p, n);
		p += n;
		while (*p == ' ')
			p++;
	}
	return 0;
}

static char **
complete(const char *text, int start, int end)
{
	struct explorer *ex = current;
	const char *line = rl_line_buffer, *args;
	size_t n;
	int i;

	rl_attempted_completion_over = 1;
	clear_candidates();
	while (*line == ' ')
		line++;
	n = strcspn(line, " ");
	if (ex->prompt_kind != ':' || start <= (int)(line - rl_line_buffer)) {
		for (i = 0; ex->prompt_kind == ':' && i < ex_n_commands(); i++)
			add_candidate(ex_command_name(i),
			    strlen(ex_command_name(i)));
		return rl_completion_matches(text, generate);
	}
	for (args = line + n; *args == ' '; args++)
		;
	if (strncmp(line, "apply", n) == 0 && n > 0) {
		struct action_words w = { args, rl_line_buffer + start - args,
		    ex->prog };

		if (ex->moves && (int)(args - rl_line_buffer) <= start)
			dojo_legality_list(ex->moves, NULL, 0, action_word, &w);
	} else if ((strncmp(line, "checkout", n) == 0 ||
	    strncmp(line, "branch", n) == 0) && n > 0) {
		bool checkout = strncmp(line, "checkout", n) == 0;
		char best[64];

		dojo_session_walk(ex->session, branch_name, checkout ? ex :
		    NULL);
		snprintf(best, sizeof best, "best/%s", ex->target);
		add_candidate(best, strlen(best));
		add_candidate("best", 4);
		add_candidate("HEAD", 4);
	} else if (strncmp(line, "agent", n) == 0 && n > 0) {
		static const char *const words[] = { "run", "step", "suggest",
		    "pause", "stop", "auto", "random", "greedy", "beam", "maxq" };

		for (i = 0; i < (int)(sizeof words / sizeof *words); i++)
			add_candidate(words[i], strlen(words[i]));
	} else if (strncmp(line, "write", n) == 0 && n > 0) {
		rl_attempted_completion_over = 0;	/* file names */
		return NULL;
	}
	return rl_completion_matches(text, generate);
}

/* Several matches: show them on the message line. */
static void
display_matches(char **matches, int num, int max)
{
	char buf[512];
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 1; i <= num && len + 2 < sizeof buf; i++)
		len += snprintf(buf + len, sizeof buf - len, "%s  ", matches[i]);
	ex_message(current, false, "%s", buf);
}

static void
on_line(char *line)
{
	struct explorer *ex = current;
	char kind = ex->prompt_kind;

	rl_callback_handler_remove();
	installed = false;
	ex->prompting = false;
	curs_set(0);
	if (!line)
		return;
	if (kind == '/') {
		snprintf(ex->filter, sizeof ex->filter, "%s", line);
		ex_rebuild_moves(ex);
		ex_message(ex, false, "%d moves match '%s' (Esc clears)",
		    ex->nmv, ex->filter);
	} else if (*line) {
		add_history(line);
		if (history_path[0])
			append_history(1, history_path);
		ex_message(ex, false, "%s", "");
		ex_command(ex, line);
	}
	free(line);
}

void
ex_prompt_init(struct explorer *ex)
{
	const char *home = getenv("HOME");
	const char *state = getenv("XDG_STATE_HOME");
	char dir[2048];

	current = ex;
	rl_readline_name = "perfdojo";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_getc_function = prompt_getc;
	rl_input_available_hook = prompt_input_available;
	rl_redisplay_function = prompt_redisplay;
	rl_prep_term_function = prep_noop;
	rl_deprep_term_function = deprep_noop;
	rl_attempted_completion_function = complete;
	rl_completion_display_matches_hook = display_matches;
	/* the first Tab on an ambiguous word lists the candidates */
	rl_variable_bind("show-all-if-ambiguous", "on");
	if (!rl_null)
		rl_null = fopen("/dev/null", "w");
	rl_outstream = rl_null;
	rl_instream = NULL;
	using_history();
	/* the command history lives with the user's state */
	if (state && *state)
		snprintf(dir, sizeof dir, "%s/perfdojo", state);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/perfdojo", home);
	else
		dir[0] = '\0';
	if (dir[0]) {
		char parent[2048];

		snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(dir, '/') -
		    dir), dir);
		mkdir(parent, 0700);
		mkdir(dir, 0700);
		snprintf(history_path, sizeof history_path, "%s/history", dir);
		read_history(history_path);
		stifle_history(1000);
	}
}

void
ex_prompt_start(struct explorer *ex, char kind, const char *initial)
{
	char prompt[2] = { kind, '\0' };

	current = ex;
	ex->prompt_kind = kind;
	ex->prompting = true;
	ex->message[0] = '\0';		/* the row above shows the matches */
	rl_callback_handler_install(prompt, on_line);
	installed = true;
	if (initial && *initial) {
		rl_insert_text(initial);
		rl_point = rl_end;
	}
	curs_set(1);
}

/* Curses keys as the control characters readline knows them by. */
static int
translate(int key)
{
	switch (key) {
	case KEY_LEFT: return 2;	/* C-b */
	case KEY_RIGHT: return 6;	/* C-f */
	case KEY_UP: return 16;		/* C-p */
	case KEY_DOWN: return 14;	/* C-n */
	case KEY_HOME: return 1;	/* C-a */
	case KEY_END: return 5;		/* C-e */
	case KEY_BACKSPACE: return 127;
	case KEY_DC: return 4;		/* C-d */
	case KEY_ENTER: return '\r';
	}
	return -1;
}

void
ex_prompt_key(struct explorer *ex, int key, bool code)
{
	char mb[8];
	int i, n;

	current = ex;
	if (code) {
		if (key == KEY_RESIZE) {
			ex_layout(ex);
			return;
		}
		key = translate(key);
		if (key < 0)
			return;
		code = false;
	}
	/* Esc and C-c leave the prompt; C-d on an empty line too */
	if (key == 27 || key == 3 || (key == 4 && rl_end == 0)) {
		rl_replace_line("", 0);
		rl_callback_handler_remove();
		installed = false;
		ex->prompting = false;
		curs_set(0);
		ex_message(ex, false, "%s", "");
		return;
	}
	if (key == '\n')
		key = '\r';
	/* a wide character goes in as its UTF-8 bytes */
	if (key >= 0x80) {
		mbstate_t st;

		memset(&st, 0, sizeof st);
		n = (int)wcrtomb(mb, (wchar_t)key, &st);
		if (n <= 0)
			return;
	} else {
		mb[0] = (char)key;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		npending = 0;
		pending[npending++] = (unsigned char)mb[i];
		rl_callback_read_char();
		if (!installed)
			break;
	}
}

void
ex_prompt_draw(struct explorer *ex)
{
	int w = COLS, start = 0, cur;
	const char *buf = rl_line_buffer ? rl_line_buffer : "";

	cur = 1 + rl_point;
	if (cur >= w)
		start = cur - w + 1;
	move(ex->cmd_row, 0);
	clrtoeol();
	if (start == 0)
		addch((chtype)ex->prompt_kind);
	addnstr(buf + (start > 0 ? start - 1 : 0), w - (start == 0));
	move(ex->cmd_row, cur - start);
}

void
ex_prompt_end(void)
{
	if (installed)
		rl_callback_handler_remove();
	installed = false;
	clear_candidates();
}
