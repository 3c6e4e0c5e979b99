/* explore.h: the terminal explorer (ncurses + readline), shared between
 * the files of ui/ */
#ifndef DOJO_UI_EXPLORE_H
#define DOJO_UI_EXPLORE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "ir/program.h"
#include "ir/moves.h"
#include "src/core/session.h"

struct dojo_explore_options {
	const char *file;		/* the kernel */
	const char *session;		/* NULL: FILE.session */
	const char *target;		/* "c" (default) or "cuda" */
	const char *keys;		/* headless: a script of keys */
	int width, height;		/* headless screen size */
};

/* Run the explorer; an exit status. */
int dojo_explore(__dojo_keep const struct dojo_explore_options *opt);

/* Everything below is private to ui/. */

/* A line of the program pane: a declaration or an operation with the
 * scopes around it as cells. */
struct ex_line {
	char *text;			/* the line without the address gutter */
	bool op;
	int addr[DOJO_MAX_DEPTH];	/* the operation's address */
	int naddr;
	int cell[DOJO_MAX_DEPTH + 1];	/* column where each cell starts
					   (the last one: the operation) */
	int ncells;			/* scopes + 1 */
};

/* A move in the moves pane. */
struct ex_move {
	char action[128];
	char reason[384];		/* "" when legal */
	double speedup;			/* of the state it leads to, 0: not
					   measured */
	char outcome[32];		/* when measured and not ok */
	double here;			/* measured by E: the speedup against
					   the state it is taken from, 0: not */
};

/* A move measured by E (perfdojo measure --moves) from a state. */
struct ex_child {
	char commit[41];		/* the state it is taken from */
	char action[128];
	double here;			/* its speedup against that state */
	char outcome[32];		/* "" when measured */
};

enum ex_pane { PANE_PROGRAM, PANE_MOVES, PANE_HISTORY, PANE_CODE, N_PANES };

struct ex_rect {
	int y, x, h, w;
};

/* A child process at work on the current state. */
struct ex_job {
	pid_t pid;			/* 0: none */
	int fd;				/* its output */
	char file[256];			/* the state, in a temporary file */
	char out[4096];
	size_t len;
	char what[64];
	char commit[41];		/* the state it started from */
	bool paused;
};

/* What the graph view draws (":graph around|all|history"). */
enum graph_mode {
	GRAPH_AROUND,		/* the dependences around the cursor */
	GRAPH_ALL,		/* every dependence of the kernel */
	GRAPH_HISTORY,		/* the session's tree of states */
	GRAPH_MODES
};

struct explorer {
	const struct dojo_explore_options *opt;
	const char *target;
	dojo_session *session;
	dojo_program *prog;		/* the session's current state */
	dojo_legality *moves;
	char start_file[256];		/* the kernel's file name */

	/* the program pane: lines, the cursor (line, cell), scrolling */
	struct ex_line *lines;
	int nlines, cur_line, cur_cell, prog_top, prog_left;
	int gutter;			/* the address gutter's width: the
					   longest address and 2 spaces */
	int code_start;			/* the line of the kernel's function in
					   the code, after the helpers */

	/* the moves pane */
	struct ex_move *mv;
	int nmv, nlegal, mv_sel, mv_top;
	bool all_moves;			/* every legal move, not only at the
					   cursor */
	char filter[64];		/* '/' search */

	/* the history pane */
	struct dojo_session_row *rows;
	int nrows, hist_sel, hist_top;
	struct dojo_session_entry head, best;
	bool has_best;

	/* the code pane: the generated code, or a command's output */
	char *code;
	char *output;			/* when set, shown instead of code */
	char output_title[64];
	char output_commit[41];		/* the state the output is about */
	int code_top;

	/* the graph view, in the code pane's place */
	bool graph_view, graph_fit;
	bool preview;			/* the lower pane previews the selected
					   move (v) */
	/* the preview in the program pane: the program the move leads to,
	   each line marked when the move changes it */
	char **pv_lines;
	bool *pv_changed;
	int pv_n, pv_first;		/* lines; the first changed one */
	char pv_action[128];
	enum graph_mode graph_mode;
	struct dojo_layout *layout;
	char layout_key[256];
	int pan_x, pan_y;

	enum ex_pane focus;
	bool help;			/* the key overlay */
	bool quit;

	/* the message line */
	char message[512];
	bool message_error;

	/* the ':' or '/' prompt */
	bool prompting;
	char prompt_kind;		/* ':' or '/' */

	/* work in the background: a measurement, an agent */
	struct ex_job measure, agent;
	struct ex_job moves_job;	/* E: every move here measured */
	struct ex_child *children;	/* what E measured, every state */
	int nchildren, moves_total, moves_done;
	char agent_name[32];
	char diff_mark[41];		/* the state 'd' marked in the history */
	char person_branch[64];		/* the person's branch when an agent
					   started: after it, the person's
					   moves go on a branch of theirs */
	double agent_refresh;		/* when the session was last read */

	/* the screen */
	bool color, utf8, headless;
	struct ex_rect r_prog, r_moves, r_hist, r_code, r_chart;
	int status_row, cmd_row;
	bool too_small;
	bool script_failed;
	bool guile_started;		/* Scheme has run: key bindings may
					   exist */
};

/* explore.c */
void ex_message(struct explorer *ex, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ex_reload(struct explorer *ex);
void ex_rebuild_moves(struct explorer *ex);
int ex_command(struct explorer *ex, const char *line);
void ex_measure(struct explorer *ex, bool fresh);
/* Forget the preview of the program pane. */
void ex_preview_clear(struct explorer *ex);
/* Show "text" (taken) in the lower pane under "title". */
void ex_show_output(struct explorer *ex, const char *title, char *text);
/* The command names and their one-line help, for completion and help. */
int ex_n_commands(void);
const char *ex_command_name(int i);
const char *ex_command_help(int i);
/* The node under the cursor as an address ("0.1"), and its parts. */
void ex_cursor_address(struct explorer *ex, char *out, size_t len);
int ex_cursor_path(struct explorer *ex, int *path);

/* A time in nanoseconds with a unit that suits it: "812 ns", "1.24 ms". */
void ex_format_time(char *out, size_t len, double ns);

/* draw.c */
void ex_layout(struct explorer *ex);
void ex_frame(struct explorer *ex, const struct ex_rect *r, const char *title,
    bool focus);
/* The attribute of highlighted things (the cursor's). */
unsigned int ex_attr_highlight(struct explorer *ex);
void ex_draw(struct explorer *ex);
int ex_dump(struct explorer *ex, const char *path);
const char *ex_key_help(void);
/* The keys of the focused pane, for the bar on its lower border. */
const char *ex_key_bar(struct explorer *ex);

/* graphview.c */
void ex_graph_draw(struct explorer *ex, const struct ex_rect *r);
/* Its keys, for the key table. */
void ex_graph_pan_x(struct explorer *ex, int d);
void ex_graph_pan_y(struct explorer *ex, int d);
void ex_graph_fit(struct explorer *ex, int arg);
void ex_graph_next(struct explorer *ex, int arg);
int ex_graph_edges(struct explorer *ex, const char *path);
void ex_graph_release(struct explorer *ex);

/* jobs.c */
int ex_job_start(struct explorer *ex, struct ex_job *j, const char *what,
    const char *const *args, bool hold_term);
/* Read its output; whether it still runs (else "*status" is set). */
bool ex_job_poll(struct ex_job *j, int *status);
const char *ex_job_last_line(const struct ex_job *j);
/* Signal the job's process group; SIGSTOP and SIGCONT pause it. */
void ex_job_signal(struct ex_job *j, int sig);
/* Stop it and wait for it. */
void ex_job_release(struct ex_job *j);

/* scheme.c */
void ex_scheme_eval(struct explorer *ex, const char *expr);
void ex_scheme_move(struct explorer *ex, const char *name);
/* Run the command bound to "key" in Scheme; whether there was one. */
bool ex_scheme_key(struct explorer *ex, int key);
void ex_scheme_init_file(struct explorer *ex);

/* prompt.c: readline on the last line */
void ex_prompt_init(struct explorer *ex);
void ex_prompt_start(struct explorer *ex, char kind, const char *initial);
/* Feed one key (a character, or a curses KEY_ code when "code"). */
void ex_prompt_key(struct explorer *ex, int key, bool code);
void ex_prompt_draw(struct explorer *ex);
void ex_prompt_end(void);

#endif
