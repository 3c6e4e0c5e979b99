/* explore.c: the terminal explorer: the model (session, cursor, moves),
 * the keys, the ':' commands, background measurements, the main loop */
#include "config.h"
#include "ui/explore.h"
#include "ir/data.h"
#include "src/util/error.h"
#include "src/util/strbuf.h"
#include "src/core/graph.h"
#include "targets/c.h"
#include "targets/runner.h"
#include "src/util/clock.h"
#include "targets/target.h"
#include "src/core/view.h"
#include "src/util/diff.h"
#include "src/core/verbs.h"
#include "agents/agent.h"

#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

static volatile sig_atomic_t got_signal;

void
ex_message(struct explorer *ex, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ex->message, sizeof ex->message, fmt, ap);
	va_end(ap);
	ex->message[strcspn(ex->message, "\n")] = '\0';
	ex->message_error = error;
}

static void take_over(struct explorer *ex);
static void person_branch(struct explorer *ex);
static void preview_update(struct explorer *ex);

/* The model. */

static void
free_lines(struct explorer *ex)
{
	int i;

	for (i = 0; i < ex->nlines; i++)
		free(ex->lines[i].text);
	free(ex->lines);
	ex->lines = NULL;
	ex->nlines = 0;
}

/* The line of "code" where the kernel's function begins (0: none). */
static int
code_start(const char *code)
{
	const char *at = code ? strstr(code, "\nvoid\n" DOJO_C_KERNEL "(") : NULL;
	int line = 0;

	if (!at)
		return 0;
	for (; code <= at; code++)
		line += *code == '\n';
	return line;
}

/* Split the printed program (with its address gutter) into lines. */
static int
build_lines(struct explorer *ex)
{
	char *text = dojo_program_print_named(ex->prog, true), *p, *nl;
	int n = 0, cap = 0, gutter = -1;

	free_lines(ex);
	if (!text)
		return dojo_error_set("out of memory");
	for (p = text; *p; p = nl + 1) {
		struct ex_line *l;
		char *body;
		int col, len;
		bool last;

		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		last = !*nl || !nl[1];
		*nl = '\0';
		if (n == cap) {
			struct ex_line *q;

			cap = cap ? 2 * cap : 32;
			q = realloc(ex->lines, cap * sizeof *q);
			if (!q) {
				free(text);
				return dojo_error_set("out of memory");
			}
			ex->lines = q;
		}
		l = &ex->lines[n];
		memset(l, 0, sizeof *l);
		/* the gutter is as wide as the first line's leading part */
		if (gutter < 0) {
			const char *q = p;

			while (*q && *q != ' ')
				q++;
			while (*q == ' ')
				q++;
			gutter = (int)(q - p);
		}
		len = (int)strlen(p);
		body = p + (len < gutter ? len : gutter);
		l->op = p[0] != ' ';
		if (l->op) {
			char addr[128];

			snprintf(addr, sizeof addr, "%.*s", (int)strcspn(p, " "),
			    p);
			l->naddr = dojo_address_parse(l->addr, addr);
			if (l->naddr < 0) {
				l->naddr = 0;
				l->op = false;
			}
		}
		l->text = strdup(body);
		if (!l->text) {
			free(text);
			return dojo_error_set("out of memory");
		}
		l->cell[0] = 0;
		l->ncells = 1;
		for (col = 0; l->op && body[col]; col++)
			if (body[col] == '|' && l->ncells <= DOJO_MAX_DEPTH) {
				l->cell[l->ncells++] = col + 2;
			}
		n++;
		ex->nlines = n;
		if (last)
			break;
	}
	ex->gutter = gutter > 0 ? gutter : 2;
	free(text);
	return 0;
}

int
ex_cursor_path(struct explorer *ex, int *path)
{
	const struct ex_line *l;
	int n;

	if (ex->cur_line < 0 || ex->cur_line >= ex->nlines)
		return 0;
	l = &ex->lines[ex->cur_line];
	if (!l->op)
		return 0;
	/* cell j names the scope of the first j + 1 parts; the last cell
	 * the operation */
	n = ex->cur_cell + 1 < l->naddr ? ex->cur_cell + 1 : l->naddr;
	memcpy(path, l->addr, n * sizeof *path);
	return n;
}

void
ex_cursor_address(struct explorer *ex, char *out, size_t len)
{
	int path[DOJO_MAX_DEPTH], n = ex_cursor_path(ex, path), i;
	size_t k = 0;

	out[0] = '\0';
	for (i = 0; i < n && k + 12 < len; i++)
		k += snprintf(out + k, len - k, "%s%d", i ? "." : "", path[i]);
}

/* What E measured of "action" from the current state, into "m". */
static void
child_score(struct explorer *ex, struct ex_move *m)
{
	int i;

	for (i = ex->nchildren - 1; i >= 0; i--)
		if (strcmp(ex->children[i].commit, ex->head.commit) == 0 &&
		    strcmp(ex->children[i].action, m->action) == 0) {
			m->here = ex->children[i].here;
			if (!m->outcome[0])
				snprintf(m->outcome, sizeof m->outcome, "%s",
				    ex->children[i].outcome);
			return;
		}
}

/* The measured speedup of the state "prog" leads to with "a". */
static void
move_score(struct explorer *ex, struct ex_move *m, const struct dojo_action *a)
{
	dojo_program *next = dojo_legality_apply_unchecked(ex->moves, a);
	char state[41];
	int i;

	m->speedup = 0;
	m->outcome[0] = '\0';
	if (!next)
		return;
	dojo_program_id(state, next);
	dojo_program_free(next);
	for (i = 0; i < ex->nrows; i++) {
		const struct dojo_session_entry *e = &ex->rows[i].e;

		if (strcmp(e->state, state) != 0 || !e->m.measured)
			continue;
		if (strcmp(e->m.outcome, "ok") == 0)
			m->speedup = e->m.speedup;
		else
			snprintf(m->outcome, sizeof m->outcome, "%s",
			    e->m.outcome);
		return;
	}
}

struct collect {
	struct explorer *ex;
	bool legal;
	bool any_measured;	/* a state of the session was measured: the
				   moves' scores are worth looking up */
	int cap;
};

static int
add_move(const struct dojo_action *a, void *payload)
{
	struct collect *c = payload;
	struct explorer *ex = c->ex;
	struct ex_move *m;
	int i;

	if (ex->nmv == c->cap) {
		struct ex_move *p;

		c->cap = c->cap ? 2 * c->cap : 64;
		p = realloc(ex->mv, c->cap * sizeof *p);
		if (!p)
			return dojo_error_set("out of memory");
		ex->mv = p;
	}
	m = &ex->mv[ex->nmv];
	memset(m, 0, sizeof *m);
	dojo_action_format(m->action, sizeof m->action, a);
	if (ex->filter[0] && !strstr(m->action, ex->filter))
		return 0;
	if (!c->legal) {
		/* a candidate: refused unless listed as legal already */
		for (i = 0; i < ex->nlegal; i++)
			if (strcmp(ex->mv[i].action, m->action) == 0)
				return 0;
		if (dojo_legality_check(ex->moves, a) == DOJO_DONE)
			return 0;
		snprintf(m->reason, sizeof m->reason, "%s", dojo_error_last());
	} else if (c->any_measured) {
		move_score(ex, m, a);
	}
	if (c->legal)
		child_score(ex, m);
	ex->nmv++;
	return 0;
}

void
ex_rebuild_moves(struct explorer *ex)
{
	struct collect c = { ex, true, false, 0 };
	int path[DOJO_MAX_DEPTH], n = ex_cursor_path(ex, path), i;
	char keep[128];

	snprintf(keep, sizeof keep, "%s", ex->mv_sel < ex->nmv ?
	    ex->mv[ex->mv_sel].action : "");
	free(ex->mv);
	ex->mv = NULL;
	ex->nmv = ex->nlegal = 0;
	if (!ex->moves)
		return;
	for (i = 0; i < ex->nrows && !c.any_measured; i++)
		c.any_measured = ex->rows[i].e.m.measured;
	if ((ex->all_moves || n > 0) && dojo_legality_list(ex->moves, path,
	    ex->all_moves ? 0 : n, add_move, &c) < 0)
		ex_message(ex, true, "%s", dojo_error_last());
	ex->nlegal = ex->nmv;
	/* the moves E measured first, the fastest first (a stable sort) */
	for (i = 1; i < ex->nlegal; i++) {
		struct ex_move t = ex->mv[i];
		int j;

		for (j = i; j > 0 && t.here > ex->mv[j - 1].here; j--)
			ex->mv[j] = ex->mv[j - 1];
		ex->mv[j] = t;
	}
	c.legal = false;
	if (!ex->all_moves && n > 0)
		dojo_legality_candidates(ex->moves, path, n, add_move, &c);
	ex->mv_sel = 0;
	for (n = 0; keep[0] && n < ex->nmv; n++)
		if (strcmp(ex->mv[n].action, keep) == 0)
			ex->mv_sel = n;
	if (ex->mv_sel < ex->mv_top)
		ex->mv_top = ex->mv_sel;
	preview_update(ex);
}

/* Reload everything from the session's current state. */
int
ex_reload(struct explorer *ex)
{
	struct dojo_strbuf sb;
	char best[41];
	int i;

	free(ex->rows);
	ex->rows = NULL;
	ex->nrows = 0;
	/* the rows first: they bring the session up to date with the
	 * repository, which another process (or Scheme) may have moved */
	if (dojo_session_rows(ex->session, &ex->rows, &ex->nrows) < 0)
		return -1;
	ex->prog = dojo_session_program(ex->session);
	dojo_legality_free(ex->moves);
	ex->moves = dojo_legality_new(ex->prog, dojo_target_machine(ex->target));
	memset(&ex->head, 0, sizeof ex->head);
	ex->has_best = false;
	for (i = 0; i < ex->nrows; i++)
		if (ex->rows[i].e.current) {
			ex->head = ex->rows[i].e;
			ex->hist_sel = i;
		}
	if (dojo_session_best(ex->session, DOJO_TARGET_HOST, best) == 0)
		for (i = 0; i < ex->nrows; i++)
			if (strcmp(ex->rows[i].e.commit, best) == 0) {
				ex->best = ex->rows[i].e;
				ex->has_best = true;
			}
	if (build_lines(ex) < 0)
		return -1;
	if (ex->cur_line >= ex->nlines || !ex->lines[ex->cur_line].op)
		for (ex->cur_line = 0; ex->cur_line < ex->nlines - 1 &&
		    !ex->lines[ex->cur_line].op; ex->cur_line++)
			;
	if (ex->nlines && ex->cur_cell >= ex->lines[ex->cur_line].ncells)
		ex->cur_cell = ex->lines[ex->cur_line].ncells - 1;
	/* an agent's suggestions and a preview are for the state they were
	 * made at */
	if (ex->output && (strstr(ex->output_title, "suggest") ||
	    strncmp(ex->output_title, "preview", 7) == 0) &&
	    strcmp(ex->output_commit, ex->head.commit) != 0) {
		free(ex->output);
		ex->output = NULL;
		ex->code_top = ex->code_start;
		ex->preview = false;
		ex_preview_clear(ex);
	}
	free(ex->code);
	ex->code = NULL;
	dojo_strbuf_init(&sb);
	if (dojo_c_emit_function(&sb, ex->prog, dojo_c_exact(NULL),
	    &(struct dojo_c_function){ .name = DOJO_C_KERNEL, .names = true })
	    == 0)
		ex->code = dojo_strbuf_detach(&sb);
	else
		ex->code = strdup(dojo_error_last());
	dojo_strbuf_release(&sb);
	{
		/* the code opens on the kernel, not on the helpers; a scroll
		 * of the person's is kept */
		int start = code_start(ex->code);

		if (!ex->output && ex->code_top == ex->code_start)
			ex->code_top = start;
		ex->code_start = start;
	}
	ex_rebuild_moves(ex);
	if (ex->r_prog.w > 0)
		ex_layout(ex);
	return 0;
}

/* Steps. */

static void
after_step(struct explorer *ex, const char *what,
    const struct dojo_session_step *st)
{
	if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
		return;
	}
	if (st && st->existing)
		ex_message(ex, false, "%s: reached before, at %.7s", what,
		    st->commit);
	else if (st && st->new_branch)
		ex_message(ex, false, "%s: %.7s on the new branch %s", what,
		    st->commit, st->branch);
	else if (st)
		ex_message(ex, false, "%s: %.7s%s%s", what, st->commit,
		    st->seen[0] ? ", a state seen at " : "",
		    st->seen[0] ? st->seen : "");
	else
		ex_message(ex, false, "%s: at %.7s %s", what, ex->head.commit,
		    ex->head.parent[0] ? ex->head.action : "(start)");
}

/* Carry out the session's verb "name" (src/core/verbs.h) with
 * "operand", then show where it led ("what" names the step): 0, or -1
 * with the reason shown.  A verb that moves in the tree first takes the
 * session over from a playing agent; a new branch does not. */
static int
run_verb(struct explorer *ex, const char *name, const char *operand,
    const char *what)
{
	struct dojo_session_step st;
	bool step = strcmp(name, "apply") == 0;

	if (strcmp(name, "branch") != 0)
		take_over(ex);
	if (dojo_verb_run(name, ex->session, operand, ex->target, &st) !=
	    DOJO_DONE) {
		ex_message(ex, true, "%s", dojo_error_last());
		return -1;
	}
	after_step(ex, what, step ? &st : NULL);
	return 0;
}

static void
apply_action(struct explorer *ex, const char *text)
{
	char action[256];

	/* "text" may be a move of the pane, which the step rebuilds */
	snprintf(action, sizeof action, "%s", text);
	run_verb(ex, "apply", action, action);
}

/* Background measurements: a child process runs "perfdojo measure" on
 * the current state and records it in the session; the explorer goes on
 * and reads the result when the child ends. */

void
ex_measure(struct explorer *ex, bool fresh)
{
	const char *args[] = { "measure", "@", "--session",
	    dojo_session_dir(ex->session), "--peak", fresh ? "--fresh" : NULL,
	    NULL };
	char what[64];

	snprintf(what, sizeof what, "the measurement of %.7s",
	    ex->head.commit);
	if (ex_job_start(ex, &ex->measure, what, args, false) < 0) {
		ex_message(ex, true, "measure: %s", dojo_error_last());
		return;
	}
	if (dojo_target_runs_here(ex->target))
		ex_message(ex, false, "measuring %.7s in the background",
		    ex->head.commit);
	else
		ex_message(ex, false, "measuring %.7s in the background with "
		    "the %s target (%s has no code to time here)",
		    ex->head.commit, dojo_target_default()->name, ex->target);
}

/* Take the result of a measurement that ended. */
static void
measure_done(struct explorer *ex, int status)
{
	const struct ex_job *j = &ex->measure;
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;

	if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
	} else if (ok && strcmp(ex->head.commit, j->commit) == 0 &&
	    ex->head.m.measured) {
		char t[32];

		const struct dojo_session_measurement *m = &ex->head.m;

		ex_format_time(t, sizeof t, m->median_ns);
		if (m->disturbed)
			ex_message(ex, true, "measured %.7s: %s, %.3gx the start, "
			    "DISTURBED: the machine was busy (M measures "
			    "again)", j->commit, t, m->speedup);
		else if (m->confirmed)
			ex_message(ex, false, "measured %.7s: %s +-%.1f%% in %d "
			    "runs, %.3gx [%.3g, %.3g] the start%s", j->commit, t,
			    100 * m->spread, m->runs, m->speedup,
			    m->speedup_low, m->speedup_high,
			    m->speedup_low > 1 ? "" : ", not significant");
		else
			ex_message(ex, false, "measured %.7s: %s +-%.1f%% in %d "
			    "runs, %.3gx the start", j->commit, t,
			    100 * m->spread, m->runs, m->speedup);
	} else {
		ex_message(ex, !ok, "measured %.7s: %s", j->commit,
		    ex_job_last_line(j));
	}
}

/* An agent in the background: "perfdojo tune --live" from the current
 * state, which moves its branch to each new best state; the explorer
 * reads the session as it grows. */

static void
agent_done(struct explorer *ex, int status)
{
	const struct ex_job *j = &ex->agent;
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	const char *best = strstr(j->out, "# best: ");

	if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
		return;
	}
	if (strstr(j->what, "suggest") && strcmp(j->commit,
	    ex->head.commit) != 0) {
		ex_message(ex, false, "%s: for %.7s, no longer the current "
		    "state: not shown", j->what, j->commit);
		return;
	}
	if (strstr(j->what, "suggest")) {
		ex_show_output(ex, j->what, strdup(j->out));
		ex_message(ex, !ok, ok ? "%s: best first in the lower pane" :
		    "%s: %s", j->what, ex_job_last_line(j));
		return;
	}
	person_branch(ex);
	if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
		return;
	}
	if (ok && best)
		ex_message(ex, false, "%s: %.*s", j->what,
		    (int)strcspn(best + 8, "\n"), best + 8);
	else
		ex_message(ex, !ok, "%s: %s", j->what, ex_job_last_line(j));
}

/* The lines E's job wrote so far: each move measured into ex->children
 * (the lines read are taken out of the job's buffer, so that it never
 * fills); how many moves they gave. */
static int
moves_lines(struct explorer *ex)
{
	struct ex_job *j = &ex->moves_job;
	char *p = j->out, *nl;
	int before = ex->moves_done;

	while ((nl = strchr(p, '\n')) || (j->pid <= 0 && *p)) {
		char line[512], *tab, *tab2;
		struct ex_child ch, *grown;

		if (!nl)
			nl = p + strlen(p);
		snprintf(line, sizeof line, "%.*s", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
		if (line[0] == '#') {
			char *legal = strstr(line, " legal moves");

			if (legal) {
				while (legal > line && legal[-1] != ' ')
					legal--;
				ex->moves_total = atoi(legal);
			}
			continue;
		}
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		memset(&ch, 0, sizeof ch);
		snprintf(ch.commit, sizeof ch.commit, "%s", j->commit);
		*tab++ = '\0';
		if (line[0] == '-') {
			tab2 = strchr(tab, '\t');
			if (!tab2)
				continue;
			*tab2++ = '\0';
			snprintf(ch.outcome, sizeof ch.outcome, "%s", tab);
			snprintf(ch.action, sizeof ch.action, "%s", tab2);
		} else {
			ch.here = atof(line);
			if ((tab2 = strchr(tab, '\t')))
				*tab2 = '\0';
			snprintf(ch.action, sizeof ch.action, "%s", tab);
		}
		grown = realloc(ex->children, (ex->nchildren + 1) *
		    sizeof *grown);
		if (!grown)
			break;
		ex->children = grown;
		ex->children[ex->nchildren++] = ch;
		ex->moves_done++;
	}
	j->len = strlen(p);
	memmove(j->out, p, j->len + 1);
	return ex->moves_done - before;
}

/* Poll the jobs; whether one still runs. */
static bool
poll_jobs(struct explorer *ex)
{
	int status;
	bool running = false;

	if (ex->moves_job.pid > 0) {
		bool on = ex_job_poll(&ex->moves_job, &status);
		const char *last = ex_job_last_line(&ex->moves_job);
		char failed[256];

		snprintf(failed, sizeof failed, "%s", last);
		/* the moves pane again only when a move came (a rebuild
		 * lists the legal moves again) */
		if (moves_lines(ex) > 0 || !on)
			ex_rebuild_moves(ex);
		if (on) {
			running = true;
			ex_message(ex, false, "%s: %d of %d (Esc stops)",
			    ex->moves_job.what, ex->moves_done, ex->moves_total);
		} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			ex_message(ex, false, "%s: %d measured, the fastest "
			    "first (their speedup against this state)",
			    ex->moves_job.what, ex->moves_done);
		} else if (ex->moves_done < ex->moves_total || !ex->moves_total) {
			ex_message(ex, !WIFSIGNALED(status), "%s: %s",
			    ex->moves_job.what, WIFSIGNALED(status) ?
			    "stopped" : failed);
		}
	}

	if (ex->measure.pid > 0) {
		if (ex_job_poll(&ex->measure, &status))
			running = true;
		else
			measure_done(ex, status);
	}
	if (ex->agent.pid > 0) {
		if (ex_job_poll(&ex->agent, &status)) {
			running = true;
			/* live: the agent's states as they come */
			if (dojo_clock_seconds() - ex->agent_refresh > 0.5) {
				ex->agent_refresh = dojo_clock_seconds();
				if (ex_reload(ex) < 0)
					ex_message(ex, true, "%s",
					    dojo_error_last());
			}
		} else {
			agent_done(ex, status);
		}
	}
	return running;
}

/* After an agent: when the session is on the agent's branch, a branch of
 * the person's there (their branch's name and "-N"), so that their next
 * moves do not go onto the agent's. */
static void
person_branch(struct explorer *ex)
{
	const char *base = ex->person_branch[0] ? ex->person_branch : "main";
	struct dojo_session_entry e;
	char name[96];
	int k;

	if (strncmp(dojo_session_branch(ex->session), "agent/", 6) != 0)
		return;
	/* the agent took no step: back on the person's branch */
	if (dojo_session_entry(ex->session, base, &e) == 0 &&
	    strcmp(e.commit, dojo_session_head(ex->session)) == 0) {
		dojo_session_jump(ex->session, base);
		dojo_error_clear();
		return;
	}
	for (k = 2; k < 1000; k++) {
		snprintf(name, sizeof name, "%s-%d", base, k);
		if (dojo_session_branch_create(ex->session, name) == DOJO_DONE)
			break;
	}
	dojo_error_clear();
}

/* A person's step while an agent plays: the person takes over. */
static void
take_over(struct explorer *ex)
{
	if (ex->agent.pid <= 0 || strstr(ex->agent.what, "suggest"))
		return;
	ex_job_release(&ex->agent);
	if (ex_reload(ex) < 0)
		ex_message(ex, true, "%s", dojo_error_last());
	person_branch(ex);
	if (ex_reload(ex) < 0)
		ex_message(ex, true, "%s", dojo_error_last());
}

void
ex_format_time(char *out, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(out, len, "%.3g ns", ns);
	else if (ns < 1e6)
		snprintf(out, len, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(out, len, "%.3g ms", ns / 1e6);
	else
		snprintf(out, len, "%.3g s", ns / 1e9);
}

/* The ':' commands. */

struct ex_command {
	const char *name;
	const char *args;
	const char *help;
	void (*run)(struct explorer *ex, const char *args);
};

void
ex_show_output(struct explorer *ex, const char *title, char *text)
{
	ex->graph_view = false;
	/* another output ends a preview */
	if (ex->preview && strncmp(title, "preview", 7) != 0) {
		ex->preview = false;
		ex_preview_clear(ex);
	}
	free(ex->output);
	ex->output = text;
	snprintf(ex->output_title, sizeof ex->output_title, "%s", title);
	snprintf(ex->output_commit, sizeof ex->output_commit, "%s",
	    ex->head.commit);
	ex->code_top = 0;
}

static void
cmd_apply(struct explorer *ex, const char *args)
{
	if (!*args) {
		/* never a move the person did not name: Enter on the moves
		 * pane takes the selected one */
		ex_message(ex, true, "apply: which move? (apply ACTION, or "
		    "Enter on a move)");
		return;
	}
	apply_action(ex, args);
}

static void
cmd_measure(struct explorer *ex, const char *args)
{
	while (args && *args == ' ')
		args++;
	if (args && *args && strcmp(args, "--fresh") != 0) {
		ex_message(ex, true, "measure: '%s'? (measure [--fresh])", args);
		return;
	}
	ex_measure(ex, args && *args);
}

static void
cmd_undo(struct explorer *ex, const char *args)
{
	run_verb(ex, "undo", "", "undo");
}

static void
cmd_redo(struct explorer *ex, const char *args)
{
	run_verb(ex, "redo", "", "redo");
}

static void
cmd_checkout(struct explorer *ex, const char *args)
{
	if (!*args) {
		ex_message(ex, true, "checkout: which state? (checkout REV)");
		return;
	}
	run_verb(ex, "checkout", args, "checkout");
}

static void
cmd_branch(struct explorer *ex, const char *args)
{
	if (!*args) {
		ex_message(ex, false, "on branch %s",
		    dojo_session_branch(ex->session)[0] ?
		    dojo_session_branch(ex->session) : "(none)");
		return;
	}
	if (run_verb(ex, "branch", args, "branch") == 0)
		ex_message(ex, false, "on the new branch %s", args);
}

static void
cmd_log(struct explorer *ex, const char *args)
{
	struct dojo_strbuf sb;
	int i;

	dojo_strbuf_init(&sb);
	for (i = 0; i < ex->nrows; i++) {
		const struct dojo_session_entry *e = &ex->rows[i].e;

		dojo_strbuf_printf(&sb, "%.7s %s%s", e->commit,
		    e->parent[0] ? e->action : "(start)",
		    e->current ? "  <- current" : "");
		if (e->m.measured && e->m.speedup > 0)
			dojo_strbuf_printf(&sb, "  %.3gx", e->m.speedup);
		dojo_strbuf_puts(&sb, "\n");
	}
	ex_show_output(ex, "log", dojo_strbuf_detach(&sb));
	ex->focus = PANE_HISTORY;
}

/* :states [RANK]: every state the last agent's run measured, best first,
 * in the lower pane; a rank goes to that state (played from the start
 * on a branch of its own when the history lacks it). */
static void
cmd_states(struct explorer *ex, const char *args)
{
	struct dojo_run_state *rows = NULL;
	char run[256], branch[300], title[64], *end;
	struct dojo_strbuf sb;
	long rank = 0;
	int n;

	while (*args == ' ')
		args++;
	if (*args) {
		rank = strtol(args, &end, 10);
		if (*end || rank < 1) {
			ex_message(ex, true, "states: '%s'? (states [RANK])",
			    args);
			return;
		}
		take_over(ex);
	}
	if (dojo_session_last_run(ex->session, run, sizeof run) < 0 ||
	    (n = dojo_session_read_run(ex->session, run, &rows)) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
		return;
	}
	if (!rank) {
		dojo_strbuf_init(&sb);
		dojo_run_states_format(&sb, run, rows, n);
		snprintf(title, sizeof title, "states of %.40s", run);
		ex_show_output(ex, title, dojo_strbuf_detach(&sb));
		ex_message(ex, false, "%d states of %s, best first: :states "
		    "RANK goes to one", n, run);
	} else if (rank > n) {
		ex_message(ex, true, "run %s has %d state%s: no rank %ld", run,
		    n, n == 1 ? "" : "s", rank);
	} else if (dojo_session_take_run_state(ex->session, run,
	    &rows[rank - 1], (int)rank, ex->target, branch, sizeof branch) !=
	    DOJO_DONE) {
		ex_message(ex, true, "%s", dojo_error_last());
		ex_reload(ex);
	} else if (ex_reload(ex) < 0) {
		ex_message(ex, true, "%s", dojo_error_last());
	} else {
		ex_message(ex, false, "rank %ld of %s: at %.7s%s%s", rank, run,
		    ex->head.commit, branch[0] ? " on the new branch " : "",
		    branch);
	}
	dojo_run_states_free(rows, n);
}

/* Compare revisions "a" and "b" of the session in view "v", into the
 * lower pane. */
static void
show_diff(struct explorer *ex, const char *a, const char *b,
    enum dojo_view v)
{
	struct dojo_diff_options opt = { a, b, 3, 0 };
	dojo_program *pa, *pb = NULL;
	char title[64], tag[64];
	struct dojo_strbuf sb;
	bool differ = false;

	dojo_strbuf_init(&sb);
	pa = dojo_session_program_at(ex->session, dojo_session_rev(tag, a,
	    ex->target));
	if (pa)
		pb = dojo_session_program_at(ex->session, dojo_session_rev(tag,
		    b, ex->target));
	if (!pa || !pb || dojo_view_diff(&sb, pa, pb, v, &opt, &differ) < 0) {
		ex_message(ex, true, "diff: %s", dojo_error_last());
		dojo_strbuf_release(&sb);
	} else if (!differ) {
		ex_message(ex, false, "diff: %s and %s: the same %s", a, b,
		    dojo_view_name(v));
		dojo_strbuf_release(&sb);
	} else {
		snprintf(title, sizeof title, "diff %.20s %.20s (%s)", a, b,
		    dojo_view_name(v));
		ex_show_output(ex, title, dojo_strbuf_detach(&sb));
		ex_message(ex, false, "diff %s %s (%s): in the lower pane", a,
		    b, dojo_view_name(v));
	}
	dojo_program_free(pa);
	dojo_program_free(pb);
}

static void
cmd_diff(struct explorer *ex, const char *args)
{
	char w[3][64] = { "", "", "" };
	enum dojo_view v = DOJO_VIEW_PROGRAM;
	const char *a = NULL, *b = "HEAD";
	int n = sscanf(args, "%63s %63s %63s", w[0], w[1], w[2]), i = 0;

	if (n > 0 && (strcmp(w[0], "--code") == 0 ||
	    strcmp(w[0], "--asm") == 0)) {
		v = w[0][2] == 'c' ? DOJO_VIEW_CODE : DOJO_VIEW_ASM;
		i = 1;
	} else if (n == 3) {
		ex_message(ex, true, "diff: [--code|--asm] [A [B]]");
		return;
	}
	if (n > i)
		a = w[i];
	if (n > i + 1)
		b = w[i + 1];
	if (!a) {
		if (!ex->head.parent[0]) {
			ex_message(ex, true, "diff: the start has no parent "
			    "(diff A [B])");
			return;
		}
		a = "HEAD~1";
	}
	show_diff(ex, a, b, v);
}

static void
cmd_emit(struct explorer *ex, const char *args)
{
	ex->graph_view = false;
	ex->preview = false;
	ex_preview_clear(ex);
	free(ex->output);
	ex->output = NULL;
	ex->code_top = ex->code_start;
	ex->focus = PANE_CODE;
}

static void
cmd_graph(struct explorer *ex, const char *args)
{
	static const char *const modes[GRAPH_MODES] = {
		[GRAPH_AROUND] = "around", [GRAPH_ALL] = "all",
		[GRAPH_HISTORY] = "history",
	};
	int i;

	if (strcmp(args, "off") == 0) {
		ex->graph_view = false;
		return;
	}
	for (i = 0; *args && i < GRAPH_MODES; i++)
		if (strcmp(args, modes[i]) == 0)
			break;
	if (i == GRAPH_MODES) {
		ex_message(ex, true, "graph: around, all, history or off");
		return;
	}
	if (*args)
		ex->graph_mode = i;
	ex->graph_view = true;
	ex->focus = PANE_CODE;
}

static void
cmd_scheme(struct explorer *ex, const char *args)
{
	ex_scheme_eval(ex, args);
}

static void
cmd_move(struct explorer *ex, const char *args)
{
	ex_scheme_move(ex, args);
}

/* :agent run|step|suggest [AGENT] [N], :agent pause|stop */
static void
cmd_agent(struct explorer *ex, const char *args)
{
	char verb[16] = "", name[32] = "", what[96], budget[16];
	const char *argv[16];
	int n = 0, k, nargs = 0;
	bool suggest, step;

	sscanf(args, "%15s %31s %d", verb, name, &n);
	if (name[0] >= '0' && name[0] <= '9') {
		n = atoi(name);
		name[0] = '\0';
	}
	if (strcmp(verb, "stop") == 0 || strcmp(verb, "pause") == 0) {
		if (ex->agent.pid <= 0) {
			ex_message(ex, true, "no agent is playing");
		} else if (verb[0] == 's') {
			take_over(ex);
			ex_message(ex, false, "agent stopped at %.7s: your turn",
			    ex->head.commit);
		} else {
			ex_job_signal(&ex->agent, ex->agent.paused ? SIGCONT :
			    SIGSTOP);
			ex_message(ex, false, "%s %s", ex->agent.what,
			    ex->agent.paused ? "paused (p again goes on)" :
			    "goes on");
		}
		return;
	}
	if (strcmp(verb, "run") && strcmp(verb, "step") &&
	    strcmp(verb, "suggest")) {
		ex_message(ex, true, "agent: run|step|suggest [AGENT] [N], "
		    "pause, stop");
		return;
	}
	if (ex->agent.pid > 0) {
		ex_message(ex, true, "%s is playing (:agent stop)",
		    ex->agent.what);
		return;
	}
	if (name[0])
		snprintf(ex->agent_name, sizeof ex->agent_name, "%s", name);
	else if (!ex->agent_name[0])
		snprintf(ex->agent_name, sizeof ex->agent_name, "%s",
		    DOJO_AGENT_DEFAULT);
	suggest = strcmp(verb, "suggest") == 0;
	step = strcmp(verb, "step") == 0;
	k = n > 0 ? n : step || suggest ? (suggest ? 5 : 1) : 20;
	/* step N: N moves, with the measurements that takes (20 a move at
	 * most); run N: N measurements; suggest K: 3K measurements */
	snprintf(budget, sizeof budget, "%d", suggest ? 3 * k : step ? 20 * k :
	    k);
	argv[nargs++] = "tune";
	argv[nargs++] = "@";
	argv[nargs++] = "--agent";
	argv[nargs++] = ex->agent_name;
	argv[nargs++] = "--budget";
	argv[nargs++] = budget;
	if (suggest) {
		/* suggest: its "k" best moves, from the measurements of
		 * "3k" children at most */
		static char kbuf[16];

		snprintf(kbuf, sizeof kbuf, "%d", k);
		argv[nargs++] = "--suggest";
		argv[nargs++] = kbuf;
		snprintf(what, sizeof what, "agent %s suggest",
		    ex->agent_name);
	} else {
		static char sbuf[16];

		argv[nargs++] = "--session";
		argv[nargs++] = dojo_session_dir(ex->session);
		argv[nargs++] = "--live";
		if (step) {
			snprintf(sbuf, sizeof sbuf, "%d", k);
			argv[nargs++] = "--steps";
			argv[nargs++] = sbuf;
			snprintf(what, sizeof what, "agent %s (%d step%s)",
			    ex->agent_name, k, k == 1 ? "" : "s");
		} else {
			snprintf(what, sizeof what, "agent %s (budget %s)",
			    ex->agent_name, budget);
		}
		snprintf(ex->person_branch, sizeof ex->person_branch, "%s",
		    dojo_session_branch(ex->session));
	}
	argv[nargs] = NULL;
	if (ex_job_start(ex, &ex->agent, what, argv, !suggest) < 0) {
		ex_message(ex, true, "agent: %s", dojo_error_last());
		return;
	}
	ex->agent_refresh = dojo_clock_seconds();
	ex_message(ex, false, "%s plays from %.7s%s", what, ex->head.commit,
	    suggest ? "" : "  (p pauses, s stops: your turn)");
}

static void
cmd_write(struct explorer *ex, const char *args)
{
	char *text;
	FILE *f;

	if (!*args) {
		ex_message(ex, true, "write: where? (write FILE)");
		return;
	}
	text = dojo_program_print(ex->prog, false);
	f = fopen(args, "w");
	if (!f || !text || fputs(text, f) < 0) {
		ex_message(ex, true, "%s: %s", args, strerror(errno));
	} else {
		ex_message(ex, false, "wrote %s", args);
	}
	if (f)
		fclose(f);
	free(text);
}

static void
cmd_help(struct explorer *ex, const char *args)
{
	ex->help = true;
}

static void
cmd_quit(struct explorer *ex, const char *args)
{
	ex->quit = true;
}

/* The session's verbs first, in the order of their table, their operands
 * and help from it (args and help NULL) unless the explorer's differ;
 * then the explorer's own. */
static const struct ex_command commands[] = {
	{ "apply", "ACTION", "take a move", cmd_apply },
	{ "measure", "[--fresh]", "measure the current state in the "
	    "background (--fresh: again, adding runs)", cmd_measure },
	{ "undo", NULL, NULL, cmd_undo },
	{ "redo", NULL, NULL, cmd_redo },
	{ "checkout", NULL, NULL, cmd_checkout },
	{ "branch", "[NAME]", "start a branch here (or name the current one)",
	    cmd_branch },
	{ "log", NULL, NULL, cmd_log },
	{ "diff", "[--code|--asm] [A [B]]", "compare two states (default: "
	    "the parent and the current one) in the lower pane", cmd_diff },
	{ "emit", NULL, NULL, cmd_emit },
	{ "graph", NULL, NULL, cmd_graph },
	{ "write", "FILE", "write the current kernel to FILE", cmd_write },
	{ "scheme", "EXPR", "evaluate Scheme with (perfdojo); C-c interrupts",
	    cmd_scheme },
	{ "move", "[NAME]", "take a move defined in Scheme (none: list them)",
	    cmd_move },
	{ "agent", "run|step|suggest [A] [N]", "an agent plays from here "
	    "(N measurements; pause, stop)", cmd_agent },
	{ "states", "[RANK]", "every state the last agent's run measured, "
	    "best first; RANK goes to one", cmd_states },
	{ "help", "", "the keys and commands", cmd_help },
	{ "quit", "", "leave (every step is already in the session)",
	    cmd_quit },
};
#define N_COMMANDS ((int)(sizeof commands / sizeof *commands))

int
ex_n_commands(void)
{
	return N_COMMANDS;
}

const char *
ex_command_name(int i)
{
	return commands[i].name;
}

const char *
ex_command_help(int i)
{
	const struct dojo_verb *v = commands[i].help ? NULL :
	    dojo_verb_find(commands[i].name);
	static char buf[160];

	snprintf(buf, sizeof buf, "%s %s", commands[i].name,
	    v ? v->operand : commands[i].args);
	snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%*s%s",
	    (int)(20 - strlen(buf) > 0 ? 20 - strlen(buf) : 1), "",
	    v ? v->summary : commands[i].help);
	return buf;
}

int
ex_command(struct explorer *ex, const char *line)
{
	char name[32];
	const char *args;
	size_t n;
	int i, found = -1;

	while (*line == ' ' || *line == ':')
		line++;
	n = strcspn(line, " ");
	if (n == 0)
		return 0;
	snprintf(name, sizeof name, "%.*s", (int)n, line);
	for (args = line + n; *args == ' '; args++)
		;
	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].name, name) == 0) {
			found = i;
			break;
		}
		/* a unique prefix will do: ":q", ":m" */
		if (strncmp(commands[i].name, name, strlen(name)) == 0)
			found = found == -1 ? i : -2;
	}
	if (found < 0) {
		ex_message(ex, true, "%s command '%s' (:help lists them)",
		    found == -2 ? "ambiguous" : "unknown", name);
		return -1;
	}
	{
		char copy[512];

		snprintf(copy, sizeof copy, "%s", args);
		n = strlen(copy);
		while (n > 0 && copy[n - 1] == ' ')
			copy[--n] = '\0';
		commands[found].run(ex, copy);
	}
	return 0;
}

/* The keys. */

static int
clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Move the cursor "dy" operation lines and "dx" cells. */
static void
cursor_move(struct explorer *ex, int dy, int dx)
{
	int l = ex->cur_line;

	while (dy != 0) {
		int step = dy > 0 ? 1 : -1, k = l + step;

		while (k >= 0 && k < ex->nlines && !ex->lines[k].op)
			k += step;
		if (k < 0 || k >= ex->nlines)
			break;
		l = k;
		dy -= step;
	}
	ex->cur_line = l;
	if (ex->nlines)
		ex->cur_cell = clamp(ex->cur_cell + dx, 0,
		    ex->lines[l].ncells - 1);
	ex_rebuild_moves(ex);
}

void
ex_preview_clear(struct explorer *ex)
{
	int i;

	for (i = 0; i < ex->pv_n; i++)
		free(ex->pv_lines[i]);
	free(ex->pv_lines);
	free(ex->pv_changed);
	ex->pv_lines = NULL;
	ex->pv_changed = NULL;
	ex->pv_n = ex->pv_first = 0;
	ex->pv_action[0] = '\0';
}

/* The program "next" that the move "action" leads to, for the program
 * pane: its lines (with the loops' names), each marked when the move adds
 * or changes it (dojo_diff_added). */
static void
preview_program(struct explorer *ex, const char *action, dojo_program *next)
{
	char *a = dojo_program_print_named(ex->prog, false);
	char *b = dojo_program_print_named(next, false);
	char *p;
	int n, i;

	ex_preview_clear(ex);
	if (!a || !b || (n = dojo_diff_added(a, b, &ex->pv_changed)) < 0 ||
	    !(ex->pv_lines = calloc(n + 1, sizeof *ex->pv_lines)))
		goto out;
	/* the lines of b, as the diff split them */
	for (i = 0, p = b; i < n; i++) {
		size_t len = strcspn(p, "\n");

		ex->pv_lines[i] = strndup(p, len);
		if (!ex->pv_lines[i])
			break;
		ex->pv_n = i + 1;
		p += len + (p[len] == '\n');
	}
	if (i < n) {
		ex_preview_clear(ex);
		goto out;
	}
	for (ex->pv_first = 0; ex->pv_first < n &&
	    !ex->pv_changed[ex->pv_first]; ex->pv_first++)
		;
	if (ex->pv_first == n)
		ex->pv_first = 0;
	snprintf(ex->pv_action, sizeof ex->pv_action, "%s", action);
out:
	free(a);
	free(b);
}

/* The preview of the selected move: in the program pane the program it
 * leads to, its changed lines marked; in the lower pane the diffs of the
 * program and of its C from the current state to that one.  Nothing is
 * recorded; Enter takes the move, Esc closes the preview. */
static void
preview_update(struct explorer *ex)
{
	struct dojo_diff_options opt = { "current", "after the move", 2, 0 };
	enum dojo_view views[2] = { DOJO_VIEW_PROGRAM, DOJO_VIEW_CODE };
	const char *action;
	dojo_program *next;
	struct dojo_strbuf sb;
	char title[64];
	bool differ;
	int v;

	ex_preview_clear(ex);
	if (!ex->preview)
		return;
	if (ex->mv_sel >= ex->nlegal || ex->nmv == 0) {
		ex_show_output(ex, "preview", strdup("(no legal move selected: "
		    "nothing to preview)\n"));
		return;
	}
	action = ex->mv[ex->mv_sel].action;
	next = dojo_program_apply_text(ex->prog, action,
	    dojo_target_machine(ex->target));
	if (next)
		preview_program(ex, action, next);
	dojo_strbuf_init(&sb);
	for (v = 0; next && v < 2; v++) {
		dojo_strbuf_printf(&sb, "%s%s of %s:\n", v ? "\n" : "",
		    v ? "the C" : "the program", action);
		if (dojo_view_diff(&sb, ex->prog, next, views[v], &opt,
		    &differ) < 0)
			dojo_strbuf_printf(&sb, "%s\n", dojo_error_last());
		else if (!differ)
			dojo_strbuf_puts(&sb, "(the same)\n");
	}
	if (!next)
		dojo_strbuf_printf(&sb, "%s\n", dojo_error_last());
	dojo_program_free(next);
	snprintf(title, sizeof title, "preview %.24s (Enter takes it, Esc "
	    "closes)", action);
	ex_show_output(ex, title, dojo_strbuf_detach(&sb));
}

static void
select_move(struct explorer *ex, int d)
{
	if (ex->nmv == 0)
		return;
	ex->mv_sel = clamp(ex->mv_sel + d, 0, ex->nmv - 1);
	if (ex->mv_sel >= ex->nlegal)
		ex_message(ex, false, "refused: %s", ex->mv[ex->mv_sel].reason);
	preview_update(ex);
}

/* E: every legal move at the cursor (or every one, 'a') measured in the
 * background, each shown with its speedup against this state. */
static void
key_measure_moves(struct explorer *ex, int arg)
{
	const char *argv[8];
	char addr[64], what[64];
	int n = 0;

	(void)arg;
	if (ex->moves_job.pid > 0) {
		ex_message(ex, true, "%s already (Esc stops)",
		    ex->moves_job.what);
		return;
	}
	ex_cursor_address(ex, addr, sizeof addr);
	argv[n++] = "measure";
	argv[n++] = "--moves";
	if (!ex->all_moves && addr[0]) {
		argv[n++] = "--at";
		argv[n++] = addr;
	}
	argv[n++] = "@";
	argv[n] = NULL;
	snprintf(what, sizeof what, "measuring the moves %s%.30s",
	    ex->all_moves || !addr[0] ? "everywhere" : "at ",
	    ex->all_moves ? "" : addr);
	ex->moves_total = ex->moves_done = 0;
	if (ex_job_start(ex, &ex->moves_job, what, argv, false) < 0) {
		ex_message(ex, true, "%s: %s", what, dojo_error_last());
		return;
	}
	ex_message(ex, false, "%s (Esc stops)", what);
}

/* v: preview the selected move, or close the preview. */
static void
key_preview(struct explorer *ex, int arg)
{
	ex->preview = !ex->preview;
	if (ex->preview) {
		preview_update(ex);
		return;
	}
	ex_preview_clear(ex);
	free(ex->output);
	ex->output = NULL;
	ex->code_top = ex->code_start;
}

static void
key_up_down(struct explorer *ex, int d)
{
	switch (ex->focus) {
	case PANE_PROGRAM:
		cursor_move(ex, d, 0);
		break;
	case PANE_MOVES:
		select_move(ex, d);
		break;
	case PANE_HISTORY:
		if (ex->nrows)
			ex->hist_sel = clamp(ex->hist_sel + d, 0, ex->nrows - 1);
		break;
	default:
		ex->code_top = ex->code_top + d < 0 ? 0 : ex->code_top + d;
		break;
	}
}

static void
key_enter(struct explorer *ex, int arg)
{
	if (ex->focus == PANE_HISTORY) {
		if (ex->hist_sel < ex->nrows)
			cmd_checkout(ex, ex->rows[ex->hist_sel].e.commit);
		return;
	}
	if (ex->mv_sel < ex->nlegal)
		apply_action(ex, ex->mv[ex->mv_sel].action);
	else if (ex->mv_sel < ex->nmv)
		ex_message(ex, true, "%s", ex->mv[ex->mv_sel].reason);
	else
		ex_message(ex, true, "no legal move here");
}

static void
handle_mouse(struct explorer *ex)
{
	MEVENT ev;
	struct ex_rect *r;
	bool dbl;

	if (getmouse(&ev) != OK)
		return;
	dbl = ev.bstate & BUTTON1_DOUBLE_CLICKED;
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED |
	    BUTTON1_DOUBLE_CLICKED)))
		return;
	r = &ex->r_prog;
	if (ev.y > r->y && ev.y < r->y + r->h - 1 && ev.x > r->x &&
	    ev.x < r->x + r->w - 1) {
		int l = ex->prog_top + ev.y - r->y - 1, c, col;

		ex->focus = PANE_PROGRAM;
		if (l < 0 || l >= ex->nlines || !ex->lines[l].op)
			return;
		ex->cur_line = l;
		col = ev.x - r->x - 1 - ex->gutter + ex->prog_left;
		for (c = 0; c + 1 < ex->lines[l].ncells &&
		    col >= ex->lines[l].cell[c + 1]; c++)
			;
		ex->cur_cell = c;
		ex_rebuild_moves(ex);
		return;
	}
	r = &ex->r_moves;
	if (ev.y > r->y && ev.y < r->y + r->h - 1 && ev.x > r->x &&
	    ev.x < r->x + r->w) {
		int i = ex->mv_top + ev.y - r->y - 1;

		ex->focus = PANE_MOVES;
		/* a line separates the refused moves */
		if (i > ex->nlegal)
			i--;
		if (i >= 0 && i < ex->nmv) {
			ex->mv_sel = i;
			select_move(ex, 0);
			if (dbl)
				key_enter(ex, 0);
		}
		return;
	}
	r = &ex->r_hist;
	if (ev.y > r->y && ev.y < r->y + r->h - 1 && ev.x > r->x &&
	    ev.x < r->x + r->w) {
		int i = ex->hist_top + ev.y - r->y - 1;

		ex->focus = PANE_HISTORY;
		if (i >= 0 && i < ex->nrows) {
			ex->hist_sel = i;
			if (dbl)
				key_enter(ex, 0);
		}
	}
}

/*
 * The key table: every key outside the prompt, what it does and what the
 * help (?) says of it.  handle_key dispatches from it and ex_key_help
 * writes the help from it, so that the two cannot drift apart.
 */

/* The modes with keys of their own: a key of the graph view, while the
 * view is in the lower pane and that pane in focus, comes before the main
 * key of the same name (keys that neither takes go to Scheme). */
enum key_mode { KEYS_MAIN, KEYS_GRAPH, N_KEY_MODES };

static const char *const key_mode_titles[N_KEY_MODES] = {
	[KEYS_MAIN] = "Keys",
	[KEYS_GRAPH] = "In the graph view (g, the lower pane in focus)",
};

/* A key: a character, or a curses KEY_ code when "code"; "arg" is what
 * the function of its entry gets. */
struct key_binding {
	int key;
	bool code;
	int arg;
};

#define N_BINDINGS 6

/* An entry of the table: its mode, its keys (up to the first key 0), the
 * function they call (NULL: a key served elsewhere, in the help only), the
 * help's words for them (NULL: not in the help), and for the key bar on
 * the focused pane's lower border, the panes it works in (P_ bits) with
 * its word there (NULL: not in the bar). */
struct key_entry {
	enum key_mode mode;
	struct key_binding keys[N_BINDINGS];
	void (*run)(struct explorer *ex, int arg);
	const char *help;
	unsigned panes;
	const char *bar;
};

#define P_PROG (1u << PANE_PROGRAM)
#define P_MOVES (1u << PANE_MOVES)
#define P_HIST (1u << PANE_HISTORY)
#define P_CODE (1u << PANE_CODE)
#define P_ALL (P_PROG | P_MOVES | P_HIST | P_CODE)

#define BIND(c, a) { (c), false, (a) }
#define BIND_CODE(k, a) { (k), true, (a) }

static void
key_left_right(struct explorer *ex, int d)
{
	if (ex->focus == PANE_PROGRAM)
		cursor_move(ex, 0, d);
}

/* The next ("d" 1) or the previous ("d" -1) pane. */
static void
key_pane(struct explorer *ex, int d)
{
	ex->focus = (ex->focus + N_PANES + d) % N_PANES;
}

static void
key_measure(struct explorer *ex, int arg)
{
	ex_measure(ex, arg != 0);
}

/* 'p' and 's' pause and stop an agent that plays; else they are free for
 * Scheme. */
static void
key_agent(struct explorer *ex, int key)
{
	if (ex->agent.pid > 0)
		cmd_agent(ex, key == 'p' ? "pause" : "stop");
	else
		ex_scheme_key(ex, key);
}

static void
key_undo_redo(struct explorer *ex, int d)
{
	if (d < 0)
		cmd_undo(ex, "");
	else
		cmd_redo(ex, "");
}

static void
key_branch(struct explorer *ex, int arg)
{
	ex_prompt_start(ex, ':', "branch ");
}

static void
key_all_moves(struct explorer *ex, int arg)
{
	ex->all_moves = !ex->all_moves;
	ex_rebuild_moves(ex);
	ex_message(ex, false, ex->all_moves ? "every legal move" :
	    "the moves at the cursor");
}

/* Start the search of the moves ("on"), or clear it. */
static void
key_search(struct explorer *ex, int on)
{
	if (on) {
		ex_prompt_start(ex, '/', ex->filter);
	} else if (ex->moves_job.pid > 0) {
		ex_job_release(&ex->moves_job);	/* Esc stops E */
		moves_lines(ex);
		ex_rebuild_moves(ex);
		ex_message(ex, false, "%s: stopped, %d of %d measured",
		    ex->moves_job.what, ex->moves_done, ex->moves_total);
	} else if (ex->agent.pid > 0 && !strstr(ex->agent.what, "suggest")) {
		cmd_agent(ex, "stop");		/* Esc stops a playing agent */
	} else if (ex->preview) {
		key_preview(ex, 0);		/* closes the preview */
	} else if (ex->filter[0]) {
		ex->filter[0] = '\0';
		ex_rebuild_moves(ex);
	}
}

/* d: in the history pane, mark the selected state, then compare it with
 * the next one selected; elsewhere, the parent with the current state. */
static void
key_diff(struct explorer *ex, int arg)
{
	const char *sel;
	char a[8], b[8];

	if (ex->focus != PANE_HISTORY || ex->nrows == 0) {
		cmd_diff(ex, "");
		return;
	}
	sel = ex->rows[ex->hist_sel].e.commit;
	if (!ex->diff_mark[0] || strcmp(ex->diff_mark, sel) == 0) {
		snprintf(ex->diff_mark, sizeof ex->diff_mark, "%s", sel);
		ex_message(ex, false, "marked %.7s: d on another state "
		    "compares them", sel);
		return;
	}
	snprintf(a, sizeof a, "%.7s", ex->diff_mark);
	snprintf(b, sizeof b, "%.7s", sel);
	ex->diff_mark[0] = '\0';
	show_diff(ex, a, b, DOJO_VIEW_PROGRAM);
}

static void
key_code(struct explorer *ex, int arg)
{
	cmd_emit(ex, "");
}

/* The graph view, or off when it is in focus. */
static void
key_graph(struct explorer *ex, int arg)
{
	if (ex->graph_view && ex->focus == PANE_CODE)
		ex->graph_view = false;
	else
		cmd_graph(ex, "");
}

static void
key_command(struct explorer *ex, int arg)
{
	ex_prompt_start(ex, ':', "");
}

static void
key_help_quit(struct explorer *ex, int quit)
{
	if (quit)
		ex->quit = true;
	else
		ex->help = true;
}

static void
key_redraw(struct explorer *ex, int arg)
{
	clearok(curscr, TRUE);
}

static void
key_resize(struct explorer *ex, int arg)
{
	ex_layout(ex);
}

static void
key_mouse(struct explorer *ex, int arg)
{
	handle_mouse(ex);
}

static const struct key_entry key_table[] = {
	{ KEYS_MAIN, { BIND('k', -1), BIND('j', 1), BIND_CODE(KEY_UP, -1),
	    BIND_CODE(KEY_DOWN, 1) }, key_up_down,
	    "move up, down in the program (or in the pane in focus)",
	    P_ALL, "move" },
	{ KEYS_MAIN, { BIND('h', -1), BIND('l', 1), BIND_CODE(KEY_LEFT, -1),
	    BIND_CODE(KEY_RIGHT, 1) }, key_left_right,
	    "move to the outer, the inner scope (program pane)", P_PROG,
	    "scope" },
	{ KEYS_MAIN, { BIND('K', -1), BIND('J', 1), BIND_CODE(KEY_PPAGE, -5),
	    BIND_CODE(KEY_NPAGE, 5) }, select_move,
	    "select a move (PgUp PgDn: five at a time)", P_PROG | P_CODE,
	    "moves" },
	{ KEYS_MAIN, { BIND('\n', 0), BIND('\r', 0), BIND_CODE(KEY_ENTER, 0) },
	    key_enter,
	    "take the selected move (history pane: go to that state)",
	    P_PROG | P_MOVES, "take" },
	{ KEYS_MAIN, { BIND('\t', 1), BIND_CODE(KEY_BTAB, -1) }, key_pane,
	    "the next, the previous pane", P_ALL, "pane" },
	{ KEYS_MAIN, { BIND('m', 0), BIND('M', 1) }, key_measure,
	    "measure the current state (in the background); M: measure it "
	    "again, adding runs", P_PROG | P_MOVES, "measure" },
	{ KEYS_MAIN, { BIND('u', -1), BIND('r', 1) }, key_undo_redo,
	    "undo, redo", P_PROG | P_HIST, "undo" },
	{ KEYS_MAIN, { BIND('b', 0) }, key_branch,
	    "start a branch (:branch NAME)" },
	{ KEYS_MAIN, { BIND('a', 0) }, key_all_moves,
	    "every legal move, or only those at the cursor", P_MOVES,
	    "all moves" },
	{ KEYS_MAIN, { BIND('/', 1), BIND(27, 0) }, key_search,
	    "search the moves; Esc: stop a playing agent, else clear the "
	    "search", P_MOVES, "search" },
	{ KEYS_MAIN, { BIND('c', 0) }, key_code,
	    "the generated code in the lower pane", P_CODE, "code" },
	{ KEYS_MAIN, { BIND('E', 0) }, key_measure_moves,
	    "measure every legal move at the cursor ('a': every one) in the "
	    "background: each shows its speedup against this state, the "
	    "fastest first (Esc stops)", P_PROG | P_MOVES, "measure all" },
	{ KEYS_MAIN, { BIND('v', 0) }, key_preview,
	    "preview the selected move: the diffs of the program and of its "
	    "C in the lower pane (again or Esc: close)", P_PROG | P_MOVES,
	    "preview" },
	{ KEYS_MAIN, { BIND('d', 0) }, key_diff,
	    "compare the parent with the current state (history pane: mark "
	    "a state, then d on another compares them)", P_HIST | P_CODE,
	    "diff" },
	{ KEYS_MAIN, { BIND('g', 0) }, key_graph,
	    "the dependence graph in the lower pane (again: off)", P_CODE,
	    "graph" },
	{ KEYS_MAIN, { BIND(':', 0) }, key_command,
	    "a command (Tab completes, Up/Down history)", P_ALL, "cmd" },
	/* SIGINT while Scheme evaluates; any other time, Scheme's */
	{ KEYS_MAIN, { BIND(3, 0) }, NULL,
	    "interrupt a Scheme evaluation (:scheme)" },
	{ KEYS_MAIN, { BIND('p', 'p'), BIND('s', 's') }, key_agent,
	    "while an agent plays (:agent run): pause or go on, stop" },
	{ KEYS_MAIN, { BIND('?', 0), BIND('q', 1) }, key_help_quit,
	    "this help, quit", P_ALL, "help" },
	{ KEYS_MAIN, { BIND(12, 0) }, key_redraw, "redraw the screen" },
	{ KEYS_MAIN, { BIND_CODE(KEY_MOUSE, 0) }, key_mouse,
	    "a click selects a node, a move, a state; a double click takes "
	    "the move or goes to the state" },
	{ KEYS_MAIN, { BIND_CODE(KEY_RESIZE, 0) }, key_resize, NULL },

	{ KEYS_GRAPH, { BIND('h', -8), BIND('l', 8), BIND_CODE(KEY_LEFT, -8),
	    BIND_CODE(KEY_RIGHT, 8) }, ex_graph_pan_x,
	    "pan left, right (at 1:1)" },
	{ KEYS_GRAPH, { BIND('k', -4), BIND('j', 4), BIND_CODE(KEY_UP, -4),
	    BIND_CODE(KEY_DOWN, 4) }, ex_graph_pan_y,
	    "pan up, down (at 1:1)" },
	{ KEYS_GRAPH, { BIND('f', 0) }, ex_graph_fit, "fit the pane, or 1:1" },
	{ KEYS_GRAPH, { BIND('n', 0) }, ex_graph_next,
	    "next view: around the cursor, whole, the session's tree" },
};
#define N_KEY_ENTRIES ((int)(sizeof key_table / sizeof *key_table))

/* The entry of "mode" that "key" calls, and the argument it gets, or
 * NULL. */
static const struct key_entry *
key_find(enum key_mode mode, int key, bool code, int *arg)
{
	const struct key_binding *b;
	int i, j;

	for (i = 0; i < N_KEY_ENTRIES; i++) {
		if (key_table[i].mode != mode)
			continue;
		for (j = 0; j < N_BINDINGS && key_table[i].keys[j].key; j++) {
			b = &key_table[i].keys[j];
			if (b->key == key && b->code == code) {
				*arg = b->arg;
				return &key_table[i];
			}
		}
	}
	return NULL;
}

/* A key as the help names it. */
static const char *
help_key_name(const struct key_binding *b, char buf[2])
{
	static const struct {
		struct key_binding key;
		const char *name;
	} names[] = {
		{ BIND_CODE(KEY_UP, 0), "Up" },
		{ BIND_CODE(KEY_DOWN, 0), "Down" },
		{ BIND_CODE(KEY_LEFT, 0), "Left" },
		{ BIND_CODE(KEY_RIGHT, 0), "Right" },
		{ BIND_CODE(KEY_PPAGE, 0), "PgUp" },
		{ BIND_CODE(KEY_NPAGE, 0), "PgDn" },
		{ BIND_CODE(KEY_ENTER, 0), "Enter" },
		{ BIND('\n', 0), "Enter" }, { BIND('\r', 0), "Enter" },
		{ BIND('\t', 0), "Tab" }, { BIND_CODE(KEY_BTAB, 0), "S-Tab" },
		{ BIND(27, 0), "Esc" }, { BIND(3, 0), "C-c" },
		{ BIND(12, 0), "C-l" }, { BIND_CODE(KEY_MOUSE, 0), "mouse" },
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].key.key == b->key &&
		    names[i].key.code == b->code)
			return names[i].name;
	buf[0] = (char)b->key;
	buf[1] = '\0';
	return buf;
}

/* One entry in the help: its keys, then its words from column 20,
 * wrapped at 76 (what an 80-column help screen shows). */
static void
help_entry(struct dojo_strbuf *sb, const struct key_entry *k)
{
	const int col = 20, width = 76 - col;
	const char *text = k->help, *name, *seen[N_BINDINGS];
	char label[64] = "", buf[N_BINDINGS][2];
	int i, j, n, nseen = 0;

	for (i = 0; i < N_BINDINGS && k->keys[i].key; i++) {
		name = help_key_name(&k->keys[i], buf[i]);
		for (j = 0; j < nseen && strcmp(seen[j], name); j++)
			;
		if (j < nseen)
			continue;
		seen[nseen++] = name;
		snprintf(label + strlen(label), sizeof label - strlen(label),
		    "%s%s", nseen > 1 ? " " : "", name);
	}
	dojo_strbuf_printf(sb, "  %-*s", col - 2, label);
	if ((int)strlen(label) > col - 3)
		dojo_strbuf_printf(sb, "\n%*s", col, "");
	while (*text) {
		n = strlen(text);
		if (n > width) {
			for (n = width; n > 0 && text[n] != ' '; n--)
				;
			if (n == 0)
				n = width;
		}
		dojo_strbuf_printf(sb, "%.*s\n", n, text);
		for (text += n; *text == ' '; text++)
			;
		if (*text)
			dojo_strbuf_printf(sb, "%*s", col, "");
	}
}

/* The table checked against its own dispatch, into "path": each key the
 * help or the bar lists must reach its own entry (not one before it that
 * binds the same key), and each entry with a function must be in the
 * help.  A line a problem, then "N keys: ..." (headless "keys FILE"). */
static int
key_check(const char *path)
{
	FILE *f = fopen(path, "w");
	int i, j, arg, n = 0, bad = 0;
	char buf[2];

	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	for (i = 0; i < N_KEY_ENTRIES; i++) {
		const struct key_entry *k = &key_table[i];

		if (k->run && !k->help && k->keys[0].key != KEY_RESIZE) {
			fprintf(f, "an entry of '%s' is not in the help\n",
			    help_key_name(&k->keys[0], buf));
			bad++;
		}
		if (k->bar && !k->help) {
			fprintf(f, "'%s' is in the bar, not in the help\n",
			    k->bar);
			bad++;
		}
		for (j = 0; j < N_BINDINGS && k->keys[j].key; j++, n++)
			if (key_find(k->mode, k->keys[j].key, k->keys[j].code,
			    &arg) != k) {
				fprintf(f, "%s: the help says '%s', another "
				    "entry takes it\n", help_key_name(&k->keys[j],
				    buf), k->help ? k->help : "");
				bad++;
			}
	}
	fprintf(f, "%d keys: %s\n", n, bad ? "not all as the help says" :
	    "each dispatched as the help and the bar say");
	return fclose(f) != 0 ? dojo_error_set("%s: %s", path,
	    strerror(errno)) : 0;
}

/* The key bar of the focused pane: "k/j up/down  Tab pane ..." from the
 * table (the keys that are characters, else the first key's name). */
const char *
ex_key_bar(struct explorer *ex)
{
	static char bar[512];
	size_t len = 0;
	int i, j;

	bar[0] = '\0';
	for (i = 0; i < N_KEY_ENTRIES; i++) {
		const struct key_entry *k = &key_table[i];
		char keys[32] = "", buf[2];
		size_t kl = 0;

		if (k->mode != KEYS_MAIN || !k->bar ||
		    !(k->panes & (1u << ex->focus)))
			continue;
		for (j = 0; j < N_BINDINGS && k->keys[j].key; j++)
			if (!k->keys[j].code && k->keys[j].key > ' ' &&
			    k->keys[j].key < 127 && kl + 3 < sizeof keys)
				kl += snprintf(keys + kl, sizeof keys - kl, "%s%c",
				    kl ? "/" : "", k->keys[j].key);
		if (!kl)
			snprintf(keys, sizeof keys, "%s",
			    help_key_name(&k->keys[0], buf));
		len += snprintf(bar + len, sizeof bar - len, "%s%s %s",
		    len ? "  " : " ", keys, k->bar);
		if (len >= sizeof bar - 1)
			break;
	}
	if (len && len < sizeof bar - 1)
		bar[len++] = ' ', bar[len] = '\0';
	return bar;
}

const char *
ex_key_help(void)
{
	static char *help;
	struct dojo_strbuf sb;
	int mode, i;

	if (help)
		return help;
	dojo_strbuf_init(&sb);
	for (mode = 0; mode < N_KEY_MODES; mode++) {
		dojo_strbuf_printf(&sb, "%s\n", key_mode_titles[mode]);
		for (i = 0; i < N_KEY_ENTRIES; i++)
			if (key_table[i].mode == (enum key_mode)mode &&
			    key_table[i].help)
				help_entry(&sb, &key_table[i]);
	}
	help = dojo_strbuf_detach(&sb);
	return help ? help : "";
}

/* One key outside the prompt: the graph view's (when in focus), else a
 * main key, else, for a character, one bound in Scheme. */
static void
handle_key(struct explorer *ex, int key, bool code)
{
	const struct key_entry *k = NULL;
	int arg = 0;

	if (ex->help) {
		ex->help = false;
		if (!code && key == 'q')
			return;
	}
	if (ex->graph_view && ex->focus == PANE_CODE)
		k = key_find(KEYS_GRAPH, key, code, &arg);
	if (!k)
		k = key_find(KEYS_MAIN, key, code, &arg);
	if (k && k->run)
		k->run(ex, arg);
	else if (!code)
		ex_scheme_key(ex, key);
}

/* Input: the terminal, or a script of keys (headless). */

struct script {
	FILE *f;
	const char *path;
	int line;
	/* keys still to deliver from the current line */
	int keys[512];
	bool codes[512];
	int nkeys, next;
};

static const struct {
	const char *name;
	int key;
	bool code;
} key_names[] = {
	{ "Enter", '\n', false }, { "Tab", '\t', false },
	{ "Esc", 27, false }, { "Space", ' ', false },
	{ "BSpace", KEY_BACKSPACE, true }, { "Up", KEY_UP, true },
	{ "Down", KEY_DOWN, true }, { "Left", KEY_LEFT, true },
	{ "Right", KEY_RIGHT, true }, { "PgUp", KEY_PPAGE, true },
	{ "PgDn", KEY_NPAGE, true }, { "Home", KEY_HOME, true },
	{ "End", KEY_END, true }, { "BTab", KEY_BTAB, true },
	{ "C-c", 3, false }, { "C-l", 12, false },
};

static void
script_error(struct script *sc, struct explorer *ex, const char *what)
{
	endwin();
	fprintf(stderr, "perfdojo: %s:%d: %s\n", sc->path, sc->line, what);
	ex->quit = true;
	ex->script_failed = true;
}

/* Wait (a few minutes at most) for the background measurement. */
static void
wait_measure(struct explorer *ex)
{
	time_t end = time(NULL) + 300;

	while (poll_jobs(ex) && time(NULL) < end)
		usleep(20000);
}

/* The next line of the script into keys, running the commands that are
 * not keys.  -1 at the end. */
static int
script_next(struct script *sc, struct explorer *ex)
{
	char buf[1024], *arg;
	size_t i;

	while (fgets(buf, sizeof buf, sc->f)) {
		sc->line++;
		buf[strcspn(buf, "\n")] = '\0';
		arg = strchr(buf, ' ');
		if (arg)
			*arg++ = '\0';
		else
			arg = buf + strlen(buf);
		sc->nkeys = sc->next = 0;
		if (buf[0] == '#' || buf[0] == '\0')
			continue;
		if (strcmp(buf, "type") == 0) {
			for (i = 0; arg[i] && sc->nkeys < 512; i++) {
				sc->codes[sc->nkeys] = false;
				sc->keys[sc->nkeys++] = (unsigned char)arg[i];
			}
			return 0;
		}
		if (strcmp(buf, "key") == 0) {
			for (i = 0; i < sizeof key_names / sizeof *key_names; i++)
				if (strcmp(arg, key_names[i].name) == 0) {
					sc->keys[0] = key_names[i].key;
					sc->codes[0] = key_names[i].code;
					sc->nkeys = 1;
					return 0;
				}
			if (strlen(arg) == 1) {
				sc->keys[0] = (unsigned char)arg[0];
				sc->codes[0] = false;
				sc->nkeys = 1;
				return 0;
			}
			script_error(sc, ex, "unknown key name");
			return -1;
		}
		if (strcmp(buf, "dump") == 0) {
			ex_draw(ex);
			if (ex_dump(ex, arg) < 0) {
				script_error(sc, ex, dojo_error_last());
				return -1;
			}
			continue;
		}
		if (strcmp(buf, "edges") == 0) {
			ex_draw(ex);
			if (ex_graph_edges(ex, arg) < 0) {
				script_error(sc, ex, dojo_error_last());
				return -1;
			}
			continue;
		}
		if (strcmp(buf, "wait") == 0) {
			wait_measure(ex);
			continue;
		}
		if (strcmp(buf, "keys") == 0) {
			if (key_check(arg) < 0) {
				script_error(sc, ex, dojo_error_last());
				return -1;
			}
			continue;
		}
		if (strcmp(buf, "resize") == 0) {
			int w, h;

			if (sscanf(arg, "%d %d", &w, &h) != 2 || w < 1 || h < 1) {
				script_error(sc, ex, "resize needs WIDTH HEIGHT");
				return -1;
			}
			resize_term(h, w);
			sc->keys[0] = KEY_RESIZE;
			sc->codes[0] = true;
			sc->nkeys = 1;
			return 0;
		}
		script_error(sc, ex, "unknown script command (type, key, dump, "
		    "edges, wait, resize, keys)");
		return -1;
	}
	return -1;
}

/* The next key: from the script, or from the terminal (waiting at most a
 * tenth of a second).  0 when there is none yet, -1 at the script's end. */
static int
next_key(struct explorer *ex, struct script *sc, int *key, bool *code)
{
	wint_t wc;
	int r;

	if (sc) {
		if (sc->next >= sc->nkeys && script_next(sc, ex) < 0)
			return -1;
		*key = sc->keys[sc->next];
		*code = sc->codes[sc->next++];
		return 1;
	}
	r = get_wch(&wc);
	if (r == ERR)
		return 0;
	*key = (int)wc;
	*code = r == KEY_CODE_YES;
	return 1;
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

/* Open the session of the kernel: created on the first run; on later
 * runs where it was left. */
static dojo_session *
open_session(const struct dojo_explore_options *opt, char *dir, size_t len)
{
	dojo_program *prog;
	dojo_session *s;
	char state[41], commit[41];

	if (opt->session)
		snprintf(dir, len, "%s", opt->session);
	else
		dojo_session_default_dir(dir, len, opt->file);
	prog = dojo_program_read_file(opt->file);
	if (!prog)
		return NULL;
	if (access(dir, F_OK) != 0) {
		s = dojo_session_create(dir, prog, opt->file);
		dojo_program_free(prog);
		return s;
	}
	s = dojo_session_open(dir);
	if (s) {
		dojo_program_id(state, prog);
		if (dojo_session_find_state(s, state, commit) < 0 ||
		    !commit[0]) {
			dojo_error_set("%s: its state %.7s is not in the session "
			    "%s (the kernel changed? give --session NEW)",
			    opt->file, state, dir);
			dojo_session_free(s);
			s = NULL;
		}
	}
	dojo_program_free(prog);
	return s;
}

static void
explorer_release(struct explorer *ex)
{
	ex_job_release(&ex->measure);
	ex_job_release(&ex->agent);
	ex_job_release(&ex->moves_job);
	free(ex->children);
	free_lines(ex);
	free(ex->mv);
	free(ex->rows);
	free(ex->code);
	free(ex->output);
	ex_preview_clear(ex);
	ex_graph_release(ex);
	dojo_graph_cleanup();
	dojo_legality_free(ex->moves);
	dojo_session_free(ex->session);
}

int
dojo_explore(const struct dojo_explore_options *opt)
{
	struct explorer ex;
	struct script sc, *scp = NULL;
	SCREEN *screen = NULL;
	FILE *null_out = NULL, *null_in = NULL;
	char dir[4096];
	int key, r, rc = 0;
	bool code;

	memset(&ex, 0, sizeof ex);
	ex.opt = opt;
	ex.target = opt->target ? opt->target : DOJO_TARGET_HOST;
	ex.measure.fd = ex.agent.fd = -1;
	ex.graph_fit = true;
	setlocale(LC_ALL, "");
	ex.session = open_session(opt, dir, sizeof dir);
	if (!ex.session) {
		fprintf(stderr, "perfdojo: %s\n", dojo_error_last());
		return 1;
	}
	/* the kernel's name, as titles show it */
	snprintf(ex.start_file, sizeof ex.start_file, "%s",
	    strrchr(opt->file, '/') ? strrchr(opt->file, '/') + 1 : opt->file);
	if (ex_reload(&ex) < 0) {
		fprintf(stderr, "perfdojo: %s\n", dojo_error_last());
		explorer_release(&ex);
		return 1;
	}
	if (opt->keys) {
		memset(&sc, 0, sizeof sc);
		sc.path = opt->keys;
		sc.f = fopen(opt->keys, "r");
		if (!sc.f) {
			fprintf(stderr, "perfdojo: %s: %s\n", opt->keys,
			    strerror(errno));
			explorer_release(&ex);
			return 1;
		}
		scp = &sc;
		ex.headless = true;
	}
	ex.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	if (ex.headless) {
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		screen = newterm(getenv("TERM") && *getenv("TERM") &&
		    strcmp(getenv("TERM"), "dumb") ? getenv("TERM") : "xterm",
		    null_out, null_in);
		if (!screen)
			screen = newterm("xterm", null_out, null_in);
		if (!screen) {
			fprintf(stderr, "perfdojo: no terminal description for "
			    "the headless screen\n");
			explorer_release(&ex);
			return 1;
		}
		resize_term(opt->height > 0 ? opt->height : 24,
		    opt->width > 0 ? opt->width : 80);
	} else {
		if (!isatty(0) || !isatty(1)) {
			fprintf(stderr, "perfdojo: explore needs a terminal "
			    "(or --keys SCRIPT for a headless run)\n");
			explorer_release(&ex);
			return 1;
		}
		initscr();
	}
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	timeout(100);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_DOUBLE_CLICKED,
	    NULL);
	mouseinterval(200);
	ex.color = has_colors() && !getenv("NO_COLOR");
	if (ex.color) {
		start_color();
		use_default_colors();
	}
	ex_prompt_init(&ex);
	ex_layout(&ex);
	ex_message(&ex, false, "%s: %s at %.7s   ? for help, : for commands",
	    opt->file, dir, ex.head.commit);
	ex_scheme_init_file(&ex);
	while (!ex.quit && !got_signal) {
		if (!scp)
			ex_draw(&ex);
		r = next_key(&ex, scp, &key, &code);
		poll_jobs(&ex);
		if (r < 0)
			break;
		if (r == 0)
			continue;
		if (!code && key == '\r')
			key = '\n';
		if (ex.prompting)
			ex_prompt_key(&ex, key, code);
		else
			handle_key(&ex, key, code);
	}
	ex_prompt_end();
	endwin();
	if (screen)
		delscreen(screen);
	if (null_out)
		fclose(null_out);
	if (null_in)
		fclose(null_in);
	if (scp) {
		fclose(scp->f);
		rc = ex.script_failed ? 1 : 0;
	}
	explorer_release(&ex);
	return rc;
}
