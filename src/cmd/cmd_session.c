/* cmd_session.c: perfdojo log, checkout, replay, undo, redo, branch: the
 * exploration history */
#include "config.h"
#include "src/cmd/command.h"
#include "src/util/error.h"
#include "ir/program.h"
#include "src/util/strbuf.h"
#include "ir/moves.h"
#include "src/core/session.h"
#include "targets/target.h"
#include "src/core/verbs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dojo_session *
dojo_session_at(const char *dir, const char *file, dojo_program *prog,
    bool create)
{
	char path[4096], state[41], commit[41];
	dojo_session *s;
	struct stat st;

	if (dir)
		snprintf(path, sizeof path, "%s", dir);
	else if (file)
		dojo_session_default_dir(path, sizeof path, file);
	else if (access("HEAD", F_OK) == 0 && stat("refs", &st) == 0)
		snprintf(path, sizeof path, ".");
	else {
		dojo_error_set("no session here: give --session DIR");
		return NULL;
	}
	if (create && prog && access(path, F_OK) != 0)
		return dojo_session_create(path, prog, file);
	s = dojo_session_open(path);
	if (!s || !prog)
		return s;
	dojo_program_id(state, prog);
	if (dojo_session_find_state(s, state, commit) < 0)
		goto out_free;
	if (!commit[0]) {
		dojo_error_set("%s: its state %.7s is not in the session %s "
		    "(perfdojo checkout writes the session's states)",
		    file ? file : "kernel", state, path);
		goto out_free;
	}
	if (strcmp(commit, dojo_session_head(s)) != 0 &&
	    dojo_session_jump(s, commit) != DOJO_DONE)
		goto out_free;
	return s;
out_free:
	dojo_session_free(s);
	return NULL;
}

/* The options of the history commands (each takes some). */
struct session_args {
	const char *session, *out;
	const char *run;		/* states --run */
	const char *take;		/* states --take */
	bool graph, keep_going;
	int first;			/* argv index of the first operand */
};

/* Parse "argc"/"argv" for "cmd", whose table has some of the options
 * of struct session_args.  0, 1 after --help, or an exit status < 0
 * negated. */
static int
parse_args(struct session_args *a, const struct dojo_command *cmd, int argc,
    char **argv)
{
	struct dojo_option_parser p;
	int c;

	memset(a, 0, sizeof *a);
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 's':
			a->session = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'g':
			a->graph = true;
			break;
		case 'k':
			a->keep_going = true;
			break;
		case 'r':
			a->run = optarg;
			break;
		case 't':
			a->take = optarg;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status ? -p.status : 1;	/* 1: after --help */
	a->first = optind;
	return 0;
}

/* The session named by the options, or the one of a kernel file "file". */
static dojo_session *
open_session(const struct session_args *a, const char *file)
{
	return dojo_session_at(a->session, file, NULL, false);
}

/* perfdojo log */

/* What a commit's measurement says, in a few characters. */
static void
format_score(char *out, size_t len, const struct dojo_session_measurement *m)
{
	if (!m->measured)
		snprintf(out, len, "-");
	else if (strcmp(m->outcome, "ok") != 0)
		snprintf(out, len, "%s", m->outcome);
	else if (m->speedup > 0)
		snprintf(out, len, "%.3gx", m->speedup);
	else
		snprintf(out, len, "%.4g ms", m->median_ns / 1e6);
}

/* One line of the log: the drawing "prefix", then the state. */
static void
log_line(struct dojo_strbuf *sb, const struct dojo_session_entry *e,
    const char *prefix, const char *best)
{
	char score[32];

	format_score(score, sizeof score, &e->m);
	dojo_strbuf_printf(sb, "%s%c %.7s  %-28s %8s", prefix,
	    e->current ? '*' : 'o', e->commit,
	    e->parent[0] ? e->action : "(start)", score);
	if (e->branches[0])
		dojo_strbuf_printf(sb, "  [%s]", e->branches);
	if (strcmp(e->commit, best) == 0)
		dojo_strbuf_puts(sb, "  best/c");
	dojo_strbuf_puts(sb, "\n");
}

struct log_payload {
	struct dojo_strbuf *sb;
	const char *best;
};

static int
log_entry(const struct dojo_session_entry *e, void *payload)
{
	struct log_payload *p = payload;

	log_line(p->sb, e, "", p->best);
	return 0;
}

static int
log_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_log;
	struct dojo_session_row *rows = NULL;
	struct session_args a;
	struct dojo_strbuf sb;
	struct log_payload p = { &sb, "" };
	dojo_session *s;
	char best[41];
	int i, n, rc;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (argc - a.first > 1)
		return dojo_command_usage(cmd, "expected at most one FILE");
	s = open_session(&a, a.first < argc ? argv[a.first] : NULL);
	if (!s)
		return dojo_command_fail();
	if (dojo_session_best(s, DOJO_TARGET_HOST, best) == 0)
		p.best = best;
	dojo_strbuf_init(&sb);
	if (a.graph) {
		rc = dojo_session_rows(s, &rows, &n);
		for (i = 0; rc == 0 && i < n; i++)
			log_line(&sb, &rows[i].e, rows[i].prefix, p.best);
		free(rows);
	} else {
		rc = dojo_session_walk(s, log_entry, &p);
	}
	dojo_session_free(s);
	if (rc == 0)
		rc = dojo_command_write(NULL, sb.s ? sb.s : "");
	dojo_strbuf_release(&sb);
	return rc < 0 ? dojo_command_fail() : 0;
}

static const struct dojo_option log_options[] = {
	{ NULL, 0, "FILE.dojo", "the session FILE.dojo.session" },
	{ "session", 's', "DIR", "the session in DIR (default: FILE's, or the "
	    "current directory when it is a session)" },
	{ "graph", 'g', NULL, "draw the tree of states" },
	{ NULL }
};

const struct dojo_command dojo_command_log = {
	.name = "log",
	.args = "[FILE.dojo]",
	.options = log_options,
	.summary = "show a session's states: actions, speedups, branches",
	.help = "Each line: '*' marks the current state, then the commit, the "
	    "action, the\n"
	    "speedup against the start (or the outcome, or '-' when not "
	    "measured), the\n"
	    "branches whose tip it is, and best/c for the best state.\n",
	.run = log_run,
};

/* perfdojo states */

static void say_where(dojo_session *s);

static int
states_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_states;
	struct dojo_run_state *rows = NULL;
	struct session_args a;
	struct dojo_strbuf sb;
	char run[256], branch[300], *end, *text;
	dojo_session *s;
	int n = 0, rc;
	long take = 0;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (argc - a.first > 1)
		return dojo_command_usage(cmd, "expected at most one FILE");
	if (a.take) {
		take = strtol(a.take, &end, 10);
		if (*end || take < 1)
			return dojo_command_usage(cmd, "--take: '%s' is not a "
			    "rank (1, 2, ...)", a.take);
	}
	s = open_session(&a, a.first < argc ? argv[a.first] : NULL);
	if (!s)
		return dojo_command_fail();
	if (a.run)
		snprintf(run, sizeof run, "%s", a.run);
	else if (dojo_session_last_run(s, run, sizeof run) < 0)
		goto fail;
	n = dojo_session_read_run(s, run, &rows);
	if (n < 0) {
		n = 0;
		goto fail;
	}
	if (!take) {
		dojo_strbuf_init(&sb);
		dojo_run_states_format(&sb, run, rows, n);
		rc = dojo_command_write(a.out, sb.s ? sb.s : "");
		dojo_strbuf_release(&sb);
		goto out;
	}
	if (take > n) {
		dojo_error_set("run %s has %d state%s: no rank %ld", run, n,
		    n == 1 ? "" : "s", take);
		goto fail;
	}
	if (dojo_session_take_run_state(s, run, &rows[take - 1], (int)take,
	    DOJO_TARGET_HOST, branch, sizeof branch) != DOJO_DONE)
		goto fail;
	text = dojo_program_print(dojo_session_program(s), false);
	rc = text ? dojo_command_write(a.out, text) :
	    dojo_error_set("out of memory");
	free(text);
	if (rc == 0 && branch[0])
		fprintf(stderr, "rank %ld of %s: its %d move%s played on the "
		    "new branch %s\n", take, run, rows[take - 1].nmoves,
		    rows[take - 1].nmoves == 1 ? "" : "s", branch);
	if (rc == 0)
		say_where(s);
out:
	dojo_run_states_free(rows, n);
	dojo_session_free(s);
	return rc < 0 ? dojo_command_fail() : 0;
fail:
	dojo_run_states_free(rows, n);
	dojo_session_free(s);
	return dojo_command_fail();
}

static const struct dojo_option states_options[] = {
	{ NULL, 0, "FILE.dojo", "the session FILE.dojo.session" },
	{ "session", 's', "DIR", "the session in DIR (default: FILE's, or the "
	    "current directory when it is a session)" },
	{ "run", 'r', "BRANCH", "the run whose branch is BRANCH (default: the "
	    "current branch's, else the last run)" },
	{ "take", 't', "RANK", "go to the state of that rank and write its "
	    "kernel (a new branch BRANCH.RANK when the history lacks it)" },
	{ "output", 'o', "OUT", "write to OUT (default: stdout)" },
	{ NULL }
};

const struct dojo_command dojo_command_states = {
	.name = "states",
	.args = "[FILE.dojo]",
	.options = states_options,
	.summary = "list every state an agent's run measured, best first; "
	    "take one",
	.help = "perfdojo tune keeps each state its run measured, with its "
	    "moves from the\n"
	    "start, beside the session (runs/BRANCH.tsv).  Each line: the "
	    "rank, the speedup\n"
	    "against the start (confirmed in alternate pairs, with its 95% "
	    "interval, or a\n"
	    "first look; '!' disturbed), the moves, the state and its last "
	    "move.\n",
	.run = states_run,
};

/* The position of the session, on stderr. */
static void
say_where(dojo_session *s)
{
	struct dojo_session_entry e;

	if (dojo_session_entry(s, NULL, &e) < 0)
		return;
	fprintf(stderr, "at %.7s %s%s%s\n", e.commit,
	    e.parent[0] ? e.action : "(start)",
	    dojo_session_branch(s)[0] ? " on " : "", dojo_session_branch(s));
}

/* perfdojo checkout */

static int
checkout_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_checkout;
	struct session_args a;
	dojo_session *s;
	char *text;
	int rc;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (argc - a.first != 1)
		return dojo_command_usage(cmd, "expected one REV");
	s = open_session(&a, NULL);
	if (!s)
		return dojo_command_fail();
	if (dojo_verb_run("checkout", s, argv[a.first], NULL, NULL) !=
	    DOJO_DONE) {
		dojo_session_free(s);
		return dojo_command_fail();
	}
	text = dojo_program_print(dojo_session_program(s), false);
	rc = text ? dojo_command_write(a.out, text) :
	    dojo_error_set("out of memory");
	if (rc == 0)
		say_where(s);
	free(text);
	dojo_session_free(s);
	return rc < 0 ? dojo_command_fail() : 0;
}

static const struct dojo_option checkout_options[] = {
	{ NULL, 0, "REV", "a commit (or its prefix), a branch, a tag (best/c), "
	    "HEAD~N: any git revision of the session" },
	{ "session", 's', "DIR", "the session (default: the current "
	    "directory)" },
	{ "output", 'o', "OUT", "write the kernel to OUT (default: stdout)" },
	{ NULL }
};

const struct dojo_command dojo_command_checkout = {
	.name = "checkout",
	.args = "REV",
	.options = checkout_options,
	.summary = "go to a state of a session and write its kernel",
	.run = checkout_run,
};

/* perfdojo replay */

static int
replay_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_replay;
	struct session_args a;
	dojo_program *prog = NULL, *next;
	dojo_session *s;
	char **path = NULL, *text;
	int i, n = 0, total, failed = 0, rc = DOJO_EXIT_ERROR;

	i = parse_args(&a, cmd, argc, argv);
	if (i)
		return i < 0 ? -i : 0;
	if (argc - a.first != 2)
		return dojo_command_usage(cmd, "expected REV and FILE");
	s = open_session(&a, NULL);
	if (!s)
		return dojo_command_fail();
	path = dojo_session_path(s, argv[a.first]);
	prog = path ? dojo_program_read_file(argv[a.first + 1]) : NULL;
	if (!prog)
		goto out_fail;
	for (i = 0; path[i]; i++) {
		next = dojo_program_apply_text(prog, path[i],
		    dojo_target_machine(NULL));
		if (!next) {
			printf("step %d: %s: %s\n", i + 1, path[i],
			    dojo_error_last());
			failed++;
			if (!a.keep_going)
				break;
			continue;
		}
		printf("step %d: %s: ok\n", i + 1, path[i]);
		dojo_program_free(prog);
		prog = next;
		n++;
	}
	for (total = 0; path[total]; total++)
		;
	printf("%d of %d moves replayed on %s\n", n, total,
	    argv[a.first + 1]);
	if (a.out) {
		text = dojo_program_print(prog, false);
		if (!text || dojo_command_write(a.out, text) < 0) {
			free(text);
			goto out_fail;
		}
		free(text);
	}
	rc = failed ? DOJO_EXIT_ERROR : 0;
	goto out;
out_fail:
	dojo_command_fail();
out:
	dojo_session_path_free(path);
	dojo_program_free(prog);
	dojo_session_free(s);
	return rc;
}

static const struct dojo_option replay_options[] = {
	{ "session", 's', "DIR", "the session (default: the current "
	    "directory)" },
	{ "output", 'o', "OUT", "write the kernel after the moves that "
	    "applied" },
	{ "keep-going", 'k', NULL, "go on after a move that no longer "
	    "applies" },
	{ NULL }
};

const struct dojo_command dojo_command_replay = {
	.name = "replay",
	.args = "REV FILE.dojo",
	.options = replay_options,
	.summary = "replay the moves from a session's start to REV on another "
	    "kernel",
	.help = "Prints 'step N: ACTION: ok' or the reason the move does not "
	    "apply; exit\n"
	    "status 1 when one did not.\n",
	.run = replay_run,
};

/* perfdojo undo, redo */

/* The verb "verb" (undo, redo) on the session of the options. */
static int
move_run(const struct dojo_command *cmd, int argc, char **argv)
{
	struct session_args a;
	dojo_session *s;
	enum dojo_result r;
	int rc;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (argc - a.first > 1)
		return dojo_command_usage(cmd, "expected at most one FILE");
	s = open_session(&a, a.first < argc ? argv[a.first] : NULL);
	if (!s)
		return dojo_command_fail();
	r = dojo_verb_run(cmd->verb, s, NULL, NULL, NULL);
	if (r == DOJO_DONE)
		say_where(s);
	dojo_session_free(s);
	return r != DOJO_DONE ? dojo_command_fail() : 0;
}

static int
undo_run(int argc, char **argv)
{
	return move_run(&dojo_command_undo, argc, argv);
}

static int
redo_run(int argc, char **argv)
{
	return move_run(&dojo_command_redo, argc, argv);
}

static const struct dojo_option move_options[] = {
	{ NULL, 0, "FILE.dojo", "the session FILE.dojo.session" },
	{ "session", 's', "DIR", "the session in DIR (default: FILE's, or the "
	    "current directory when it is a session)" },
	{ NULL }
};

const struct dojo_command dojo_command_undo = {
	.name = "undo",
	.args = "[FILE.dojo]",
	.options = move_options,
	.verb = "undo",
	.run = undo_run,
};

const struct dojo_command dojo_command_redo = {
	.name = "redo",
	.args = "[FILE.dojo]",
	.options = move_options,
	.verb = "redo",
	.run = redo_run,
};

/* perfdojo branch */

static int
print_branch(const struct dojo_session_entry *e, void *payload)
{
	const char *current = payload;
	char *copy, *name, *save;

	if (!e->branches[0])
		return 0;
	copy = strdup(e->branches);
	if (!copy)
		return dojo_error_set("out of memory");
	for (name = strtok_r(copy, " ", &save); name;
	    name = strtok_r(NULL, " ", &save))
		printf("%c %-20s %.7s %s\n", strcmp(name, current) ? ' ' : '*',
		    name, e->commit, e->parent[0] ? e->action : "(start)");
	free(copy);
	return 0;
}

static int
branch_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_branch;
	struct session_args a;
	dojo_session *s;
	int rc;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (argc - a.first > 1)
		return dojo_command_usage(cmd, "expected at most one NAME");
	s = open_session(&a, NULL);
	if (!s)
		return dojo_command_fail();
	if (a.first < argc) {
		rc = dojo_verb_run("branch", s, argv[a.first], NULL, NULL) ==
		    DOJO_DONE ? 0 : -1;
		if (rc == 0)
			say_where(s);
	} else {
		rc = dojo_session_walk(s, print_branch,
		    (void *)dojo_session_branch(s));
	}
	dojo_session_free(s);
	return rc < 0 ? dojo_command_fail() : 0;
}

static const struct dojo_option branch_options[] = {
	{ NULL, 0, "NAME", "the new branch, which becomes current" },
	{ "session", 's', "DIR", "the session (default: the current "
	    "directory)" },
	{ NULL }
};

const struct dojo_command dojo_command_branch = {
	.name = "branch",
	.args = "[NAME]",
	.options = branch_options,
	.verb = "branch",
	.run = branch_run,
};
