/* cmd_moves.c: perfdojo actions, apply: the legal moves and taking them */
#include "config.h"
#include "src/cmd/command.h"
#include "ir/program.h"
#include "ir/moves.h"
#include "targets/measure.h"
#include "src/core/session.h"
#include "targets/target.h"
#include "src/util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
print_action(const struct dojo_action *a, void *payload)
{
	char text[512];

	dojo_action_format(text, sizeof text, a);
	puts(text);
	return 0;
}

struct why_ctx {
	dojo_legality *mv;
};

static int
print_refused(const struct dojo_action *a, void *payload)
{
	struct why_ctx *c = payload;
	char text[512];

	if (dojo_legality_check(c->mv, a) == DOJO_DONE) {
		dojo_action_format(text, sizeof text, a);
		puts(text);
	} else {
		printf("# %s\n", dojo_error_last());
	}
	return 0;
}

static int
actions_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_actions;
	struct dojo_option_parser p;
	const char *at = NULL, *why = NULL, *target = DOJO_TARGET_HOST;
	int path[DOJO_MAX_DEPTH], npath = 0, c, rc = DOJO_EXIT_ERROR;
	bool why_all = false;
	struct dojo_action a;
	struct why_ctx wc;
	dojo_program *prog;
	dojo_legality *mv;

	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 'a':
			at = optarg;
			break;
		case 'w':
			if (optarg)
				why = optarg;
			else
				why_all = true;
			break;
		case 't':
			target = optarg;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1 && !(why_all && optind == argc - 2))
		return dojo_command_usage(cmd, "expected one FILE");
	if (why_all && optind == argc - 2) {
		/* --why ACTION FILE, or FILE --why ACTION: the action is the
		 * argument that reads as one */
		size_t len = strcspn(argv[optind], " \t");
		int m;

		for (m = 0; m < dojo_move_count(); m++)
			if (strlen(dojo_move_name(m)) == len &&
			    !strncmp(dojo_move_name(m), argv[optind], len))
				break;
		if (m < dojo_move_count()) {
			why = argv[optind++];
		} else {
			why = argv[optind + 1];
			argv[optind + 1] = argv[optind];
			optind++;
		}
		why_all = false;
		dojo_error_clear();
	}
	if (!dojo_target_find(target))
		return dojo_command_usage(cmd, "%s", dojo_error_last());
	if (at && !isalpha((unsigned char)*at) && *at != '_' &&
	    (npath = dojo_address_parse(path, at)) < 0)
		return dojo_command_usage(cmd, "malformed address '%s'", at);
	prog = dojo_program_read_file(argv[optind]);
	if (!prog)
		return dojo_command_fail();
	/* --at a loop's name */
	if (at && (isalpha((unsigned char)*at) || *at == '_') &&
	    (npath = dojo_program_find_loop(prog, at, path)) < 0) {
		dojo_program_free(prog);
		return dojo_command_fail();
	}
	mv = dojo_legality_new(prog, dojo_target_machine(target));
	if (!mv)
		goto out_free_prog;
	if (npath && !dojo_program_lookup(prog, path, npath)) {
		dojo_error_set("%s: no node at address %s", argv[optind], at);
		goto out_free_moves;
	}
	if (why) {
		if (dojo_action_parse_in(&a, why, prog) < 0)
			goto out_free_moves;
		switch (dojo_legality_check(mv, &a)) {
		case DOJO_FAILED:
			goto out_free_moves;	/* not decided: an error */
		case DOJO_REFUSED:
			printf("%s\n", dojo_error_last());
			break;
		case DOJO_DONE:
			print_action(&a, NULL);
			printf("  is legal\n");
			break;
		}
		rc = 0;
	} else if (why_all) {
		wc.mv = mv;
		rc = dojo_legality_candidates(mv, path, npath, print_refused, &wc);
		if (rc == 0 && dojo_legality_undecided(mv)) {
			dojo_error_set("%s: legality of some moves could not "
			    "be decided (see above)", argv[optind]);
			rc = -1;
		}
	} else {
		rc = dojo_legality_list(mv, path, npath, print_action, NULL);
	}
	if (*dojo_error_last() && rc < 0)
		rc = DOJO_EXIT_ERROR;
out_free_moves:
	dojo_legality_free(mv);
out_free_prog:
	dojo_program_free(prog);
	return rc ? dojo_command_fail() : 0;
}

/* Where "apply --session" records its steps. */
struct recorder {
	dojo_session *session;
	bool measure;
	struct dojo_measure_options mopt;
	dojo_data *want;		/* the start's outputs, once */
	double start_ns;
};

/* Record the step "text" from "prev" to "next" in the session of "rec"
 * (the action with addresses, a loop's name resolved in "prev"). */
static int
record_step(struct recorder *rec, const char *text, dojo_program *prev,
    dojo_program *next)
{
	struct dojo_session_measurement sm, *smp = NULL;
	struct dojo_session_step step;
	struct dojo_measurement m;
	struct dojo_action a;
	char action[256];

	if (dojo_action_parse_in(&a, text, prev) == 0)
		dojo_action_format(action, sizeof action, &a);
	else
		snprintf(action, sizeof action, "%s", text);
	if (rec->measure) {
		if (dojo_measure_against(next, dojo_session_start(rec->session),
		    &rec->want, &rec->mopt, &m) < 0)
			return -1;
		dojo_session_measurement_from(&sm, &m, DOJO_TARGET_HOST, rec->start_ns);
		if (dojo_session_confirm(rec->session, next, &rec->mopt,
		    &sm) < 0)
			return -1;
		smp = &sm;
	}
	if (dojo_session_step(rec->session, action, next, smp, &step) < 0)
		return -1;
	fprintf(stderr, "%.7s %s%s%s%s", step.commit, action,
	    step.existing ? " (reached before: moved there)" : "",
	    step.new_branch ? " (new branch " : "",
	    step.new_branch ? step.branch : "");
	if (step.new_branch)
		fputc(')', stderr);
	if (smp && sm.confirmed) {
		char s[32], iv[80];

		dojo_format_ratio(s, sm.speedup, 3);
		dojo_format_interval(iv, sm.speedup_low, sm.speedup_high, 3);
		fprintf(stderr, " %sx %s%s", s, iv, sm.speedup_low > 1 ? "" :
		    " not significant");
	} else if (smp && sm.speedup > 0)
		fprintf(stderr, " %.3gx%s", sm.speedup, sm.disturbed ?
		    " (disturbed)" : "");
	else if (smp && strcmp(sm.outcome, "ok") != 0)
		fprintf(stderr, " %s", sm.outcome);
	fputc('\n', stderr);
	return 0;
}

/* Apply "text" to "*prog" (recording it in "rec" if not NULL); "where"
 * names it in the error. */
static int
apply_one(dojo_program **prog, const char *text, const char *target,
    const char *where, struct recorder *rec)
{
	dojo_program *next;
	char msg[DOJO_ERROR_MAX];

	next = dojo_program_apply_text(*prog, text,
	    dojo_target_machine(target));
	if (!next || (rec && record_step(rec, text, *prog, next) < 0)) {
		dojo_program_free(next);
		snprintf(msg, sizeof msg, "%s", dojo_error_last());
		return dojo_error_set("%s%s", where, msg);
	}
	dojo_program_free(*prog);
	*prog = next;
	return 0;
}

int
dojo_action_lines(const char *path, dojo_action_line_fn fn, void *payload)
{
	char *line = NULL, where[512];
	size_t cap = 0;
	FILE *f;
	int no = 0, rc = 0;
	char *p, *e;

	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f)
		return dojo_error_set("%s: %s", path, strerror(errno));
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		no++;
		if ((p = strchr(line, '#')))
			*p = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		for (e = p + strlen(p); e > p && (e[-1] == '\n' ||
		    e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'); e--)
			;
		*e = '\0';
		if (!*p)
			continue;
		snprintf(where, sizeof where, "%s:%d:%d: ", path, no,
		    (int)(p - line) + 1);
		rc = fn(p, where, payload);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return rc < 0 ? -1 : 0;
}

struct apply_payload {
	dojo_program **prog;
	const char *target;
	struct recorder *rec;
};

static int
apply_line(const char *text, const char *where, void *payload)
{
	struct apply_payload *ap = payload;

	return apply_one(ap->prog, text, ap->target, where, ap->rec);
}

static int
apply_file(dojo_program **prog, const char *path, const char *target,
    struct recorder *rec)
{
	struct apply_payload ap = { prog, target, rec };

	return dojo_action_lines(path, apply_line, &ap);
}

/* Whether "argv[*i]" is the option "o": exactly "--name" or "-c", or
 * with a value, "--name=V", "-cV" or "--name V" (the next argument, "*i"
 * moved to it); 1 with the value in "*value", -1 when it is missing. */
static int
is_option(const struct dojo_option *o, int argc, char **argv, int *i,
    const char **value)
{
	size_t n = strlen(o->name);
	const char *arg = argv[*i];
	char c = o->key < 256 ? (char)o->key : '\0';

	if ((c && arg[1] == c && arg[2] == '\0') ||
	    (arg[1] == '-' && strcmp(arg + 2, o->name) == 0)) {
		if (!o->arg)
			return 1;
		if (*i + 1 >= argc)
			return -1;
		*value = argv[++*i];
		return 1;
	}
	if (o->arg && arg[1] == '-' && strncmp(arg + 2, o->name, n) == 0 &&
	    arg[2 + n] == '=') {
		*value = arg + 3 + n;
		return 1;
	}
	if (o->arg && c && arg[1] == c && arg[2] != '\0') {
		*value = arg + 2;
		return 1;
	}
	return 0;
}

/* The option of "cmd" that "argv[*i]" is, for apply, whose options and
 * operands keep their order on the command line: its key with its value
 * in "*value", 'h' for --help, 0 for an operand, '?' for an unknown
 * option and ':' for a missing value. */
static int
take_option(const struct dojo_command *cmd, int argc, char **argv, int *i,
    const char **value)
{
	static const struct dojo_option help = { "help", 'h', NULL, NULL };
	const struct dojo_option *o;
	int r;

	*value = NULL;
	if (argv[*i][0] != '-' || argv[*i][1] == '\0')
		return 0;
	for (o = cmd->options; o->name || o->arg; o++)
		if (o->name && (r = is_option(o, argc, argv, i, value)) != 0)
			return r < 0 ? ':' : o->key;
	return is_option(&help, argc, argv, i, value) ? 'h' : '?';
}

/* The start's time, for the speedups of measured steps. */
static int
start_time(struct recorder *rec)
{
	return dojo_session_measure_start(rec->session, &rec->mopt,
	    &rec->start_ns);
}

static int
apply_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_apply;
	const char *out = NULL, *file = NULL, *target = DOJO_TARGET_HOST, *v;
	const char *session = NULL;
	struct recorder rec, *recp = NULL;
	const char **items;
	bool *is_file;
	int nitems = 0, i, r, rc = DOJO_EXIT_ERROR;

	memset(&rec, 0, sizeof rec);
	dojo_measure_options_init(&rec.mopt);
	bool addresses = false, names = false;
	dojo_program *prog;
	char *text;

	/* FILE, then actions and --actions files applied in the order of the
	 * command line; options anywhere; an action such as 'split 0 2' is
	 * one argument */
	items = calloc(argc, sizeof *items);
	is_file = calloc(argc, sizeof *is_file);
	if (!items || !is_file) {
		free(items);
		free(is_file);
		return dojo_command_fail();
	}
	for (i = 1; i < argc; i++) {
		switch (take_option(cmd, argc, argv, &i, &v)) {
		case 0:
			if (!file)
				file = argv[i];
			else
				items[nitems++] = argv[i];
			break;
		case 'o':
			out = v;
			break;
		case 'f':
			items[nitems] = v;
			is_file[nitems++] = true;
			break;
		case 't':
			target = v;
			break;
		case 'a':
			addresses = true;
			break;
		case 'n':
			names = true;
			break;
		case 's':
			session = v;
			break;
		case 'm':
			rec.measure = true;
			break;
		case 'h':
			free(items);
			free(is_file);
			dojo_command_print_help(stdout, cmd);
			return 0;
		case ':':
			r = dojo_command_usage(cmd, "option '%s' needs a value",
			    argv[i]);
			goto out_usage;
		default:
			r = dojo_command_usage(cmd, "unknown option '%s'",
			    argv[i]);
			goto out_usage;
		}
	}
	if (!file) {
		r = dojo_command_usage(cmd, "expected FILE");
		goto out_usage;
	}
	if (rec.measure && !session) {
		r = dojo_command_usage(cmd, "--measure records into a session:"
		    " give --session DIR");
		goto out_usage;
	}
	if (!dojo_target_find(target)) {
		r = dojo_command_usage(cmd, "%s", dojo_error_last());
		goto out_usage;
	}
	prog = dojo_program_read_file(file);
	if (!prog) {
		free(items);
		free(is_file);
		return dojo_command_fail();
	}
	if (session) {
		rec.session = dojo_session_at(session, file, prog, true);
		if (!rec.session || (rec.measure &&
		    start_time(&rec) < 0))
			goto out_free;
		recp = &rec;
	}
	for (i = 0; i < nitems; i++)
		if ((is_file[i] ? apply_file(&prog, items[i], target, recp) :
		    apply_one(&prog, items[i], target, "", recp)) < 0)
			goto out_free;
	text = names || dojo_program_names_given(prog) ?
	    dojo_program_print_named(prog, addresses) :
	    dojo_program_print(prog, addresses);
	if (!text) {
		dojo_error_set("out of memory");
		goto out_free;
	}
	if (dojo_command_write(out, text) < 0) {
		free(text);
		goto out_free;
	}
	free(text);
	rc = 0;
out_free:
	dojo_session_free(rec.session);
	dojo_data_free(rec.want);
	dojo_program_free(prog);
	free(items);
	free(is_file);
	return rc ? dojo_command_fail() : 0;
out_usage:
	free(items);
	free(is_file);
	return r;
}

static const struct dojo_option actions_options[] = {
	{ "at", 'a', "ADDRESS", "only the moves at this node" },
	{ "why", 'w', "ACTION", "say whether ACTION is legal, and if not why; "
	    "without ACTION, list every candidate, refused ones as "
	    "'# reason'", DOJO_OPTION_OPTIONAL_ARG },
	{ "target", 't', "T", "a target of 'perfdojo targets' (default: this "
	    "machine's): its moves (a GPU's add the GPU moves)" },
	{ NULL }
};

const struct dojo_command dojo_command_actions = {
	.name = "actions",
	.args = "FILE.dojo",
	.options = actions_options,
	.summary = "list the legal moves, or say why one is refused",
	.run = actions_run,
};

static const struct dojo_option apply_options[] = {
	{ NULL, 0, "ACTION", "one move per argument: 'split 0.0.1 32'" },
	{ "actions", 'f', "FILE", "read moves one per line ('#' comments; - "
	    "for stdin)" },
	{ "output", 'o', "OUT", "write the result to OUT" },
	{ "addresses", 'a', NULL, "print with the address gutter" },
	{ "names", 'n', NULL, "print each loop's name before its size "
	    "(i=512), as when FILE gives names" },
	{ "target", 't', "T", "a target of 'perfdojo targets': its moves" },
	{ "session", 's', "DIR", "record each move as a commit of the session "
	    "DIR (created, starting at FILE, if it does not exist); FILE must "
	    "be a state of the session" },
	{ "measure", 'm', NULL, "with --session: measure each state (C "
	    "target) and record its speedup" },
	{ NULL }
};

const struct dojo_command dojo_command_apply = {
	.name = "apply",
	.args = "FILE.dojo ACTION...",
	.options = apply_options,
	.summary = "apply moves in order and print the resulting kernel",
	.run = apply_run,
};
