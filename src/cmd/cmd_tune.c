/* cmd_tune.c: perfdojo tune and perfdojo train: players at work */
#include "config.h"
#include "src/cmd/command.h"
#include "agents/agent.h"
#include "agents/maxq.h"
#include "ir/data.h"
#include "src/util/error.h"
#include "ir/program.h"
#include "src/core/env.h"
#include "src/core/session.h"
#include "src/util/clock.h"
#include "src/util/strbuf.h"
#include "targets/runner.h"
#include "targets/target.h"
#include "targets/cross.h"
#include "targets/measure.h"
#include "src/cmd/tune_mpi.h"
#include "ir/interp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The options of both commands (each takes some). */
struct tune_args {
	const char *agent, *model, *session, *encoder_cmd, *csv, *plot;
	const char *trace;		/* tune --trace FILE */
	const char *target, *runner;	/* tune --target CROSS --runner CMD */
	bool json;
	int budget, jobs, episodes, threads;
	bool exact;
	int suggest;			/* > 0: print the agent's best moves */
	int steps;			/* > 0: stop at a best state this many
					   moves from the start */
	bool live;			/* record each new best as it comes */
	bool demos;			/* train: replay FILE.actions first */
	bool mpi, mixed, resume;	/* tune --mpi [--mixed], --resume */
	bool synthetic;			/* dojo_synthetic_ns for times */
	const char *mpi_log;
	double seconds, timeout;
	struct dojo_agent_options aopt;
	int first;
};

enum {
	OPT_ENCODER = 256, OPT_CSV, OPT_PLOT, OPT_TIMEOUT, OPT_WIDTH,
	OPT_EPSILON, OPT_GAMMA, OPT_UPDATES, OPT_SUGGEST, OPT_LIVE,
	OPT_THREADS, OPT_DEMOS, OPT_TRACE, OPT_JSON, OPT_STEPS, OPT_TARGET,
	OPT_RUNNER, OPT_MPI, OPT_MIXED, OPT_RESUME, OPT_SYNTHETIC, OPT_MPI_LOG
};

/* A positive number from "text", or -1. */
static double
number(const char *text)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !(v >= 0))
		return -1;
	return v;
}

/* 0, 1 after --help, or minus an exit status. */
static int
parse_args(struct tune_args *a, const struct dojo_command *cmd, int argc,
    char **argv)
{
	struct dojo_option_parser p;
	double v;
	int c;

	memset(a, 0, sizeof *a);
	dojo_agent_options_init(&a->aopt);
	/* a compiler a core: a batch of children compiles in the time of
	 * its slowest, before any of them is timed (a tile of
	 * depthwise_conv took 9.7 s to compile; alone, 23 compilers took 70
	 * of a run's 90 s) */
	a->jobs = dojo_measure_cores() < 16 ? dojo_measure_cores() : 16;
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_next(&p, argc, argv)) != -1) {
		if (c == 'h') {
			dojo_command_print_help(stdout, cmd);
			return 1;
		}
		if (c == ':' || c == '?')
			return -dojo_command_bad_option(cmd, c, argv);
		v = 0;
		if ((c < 256 && strchr("nSrjde", c)) || c == OPT_WIDTH ||
		    c == OPT_TIMEOUT || c == OPT_EPSILON || c == OPT_GAMMA ||
		    c == OPT_UPDATES || c == OPT_SUGGEST || c == OPT_THREADS ||
		    c == OPT_STEPS) {
			bool rate = c == OPT_EPSILON || c == OPT_GAMMA;
			char shortname[2] = { (char)c, '\0' };

			v = number(optarg);
			if (v < 0 || (c != 'S' && c != OPT_TIMEOUT && !rate &&
			    v != floor(v)) || (rate && v > 1) ||
			    ((c == OPT_UPDATES || c == OPT_THREADS || c == OPT_STEPS) &&
		    v < 1) ||
			    (c == OPT_THREADS && v > 1000))
				return -dojo_command_usage(cmd, "'%s' is not "
				    "a valid value for -%s%s", optarg,
				    p.longindex >= 0 ? "-" : "",
				    p.longindex >= 0 ?
				    p.longopts[p.longindex].name : shortname);
		}
		switch (c) {
		case 'a': a->agent = optarg; break;
		case 'n': a->budget = (int)v; break;
		case 'S': a->seconds = v; break;
		case 'm': a->model = optarg; break;
		case 's': a->session = optarg; break;
		case 'r': a->aopt.seed = (uint64_t)v; break;
		case 'j': a->jobs = (int)v; break;
		case 'd': a->aopt.depth = (int)v; break;
		case 'e': a->episodes = (int)v; break;
		case OPT_WIDTH: a->aopt.width = (int)v; break;
		case OPT_ENCODER: a->encoder_cmd = optarg; break;
		case OPT_EPSILON: a->aopt.epsilon = v; break;
		case OPT_GAMMA: a->aopt.gamma = v; break;
		case OPT_UPDATES: a->aopt.updates = (int)v; break;
		case OPT_CSV: a->csv = optarg; break;
		case OPT_PLOT: a->plot = optarg; break;
		case OPT_TIMEOUT: a->timeout = v; break;
		case OPT_SUGGEST: a->suggest = (int)v; break;
		case OPT_LIVE: a->live = true; break;
		case OPT_DEMOS: a->demos = true; break;
		case OPT_TRACE: a->trace = optarg; break;
		case OPT_JSON: a->json = true; break;
		case OPT_THREADS: a->threads = (int)v; break;
		case OPT_STEPS: a->steps = (int)v; break;
		case OPT_TARGET: a->target = optarg; break;
		case OPT_RUNNER: a->runner = optarg; break;
		case OPT_MPI: a->mpi = true; break;
		case OPT_MIXED: a->mixed = true; break;
		case OPT_RESUME: a->resume = true; break;
		case OPT_SYNTHETIC: a->synthetic = true; break;
		case OPT_MPI_LOG: a->mpi_log = optarg; break;
		case 'x': a->exact = true; break;
		default:
			return -dojo_command_bad_option(cmd, '?', argv);
		}
	}
	a->aopt.encoder_cmd = a->encoder_cmd;
	a->first = optind;
	return 0;
}

static void
env_options(struct dojo_env_options *eo, const struct tune_args *a)
{
	dojo_env_options_init(eo);
	eo->budget = a->budget;
	eo->seconds = a->seconds;
	if (a->timeout > 0)
		eo->measure.run.timeout = a->timeout;
	/* one thread count for the whole run, part of the fingerprint */
	if (a->threads > 0)
		eo->measure.run.threads = a->threads;
	eo->measure.run.exact = a->exact;
	eo->jobs = a->jobs;
}

/* The progress bar on a terminal, and the trace. */
struct progress {
	const char *what;
	int budget;
	bool bar;
	FILE *trace;
	int last_best;
};

/* A number of the trace: "-" for none. */
static void
trace_number(FILE *f, double x)
{
	if (isnan(x))
		fputs("\t-", f);
	else
		fprintf(f, "\t%.4g", x);
}

/* "\tSPEEDUP [LOW, HIGH] PAIRS": a ratio of alternate pairs. */
static void
trace_ratio(FILE *f, const struct dojo_measure_ratio *r)
{
	char s[32], low[32], high[32];

	dojo_format_ratio(s, r->speedup, 4);
	dojo_format_ratio(low, r->low, 4);
	dojo_format_ratio(high, r->high, 4);
	fprintf(f, "\t%s [%s, %s] %d", s, low, high, r->pairs);
}

/* One line of the trace: what was measured, why, what it was expected
 * to gain and what it did (doc/agents.md). */
static void
trace_line(FILE *f, dojo_env *env, const char *step, int node, bool best)
{
	struct dojo_measure_ratio r;
	int parent = dojo_env_parent(env, node);
	double predicted;
	const char *why = dojo_env_why(env, node, &predicted);

	fprintf(f, "%s\t%.7s\t%.7s\t%s", step, dojo_env_state_id(env, node),
	    parent >= 0 ? dojo_env_state_id(env, parent) : "-", why);
	trace_number(f, predicted);
	if (dojo_env_failed(env, node))
		fputs("\tfailed", f);
	else
		trace_number(f, exp(dojo_env_reward(env, node)));
	if (dojo_env_confirmed(env, node, &r))
		trace_ratio(f, &r);
	else
		fputs("\t-", f);
	fprintf(f, "\t%s\t%s\n", best ? "best" : "-",
	    dojo_env_action(env, node));
}

static void
trace_header(FILE *f)
{
	fputs("step\tstate\tparent\twhy\tpredicted\tspeedup\tconfirmed\t"
	    "best\tmove\n", f);
}

static void
show_progress(dojo_env *env, int node, void *payload)
{
	struct progress *p = payload;
	int used = dojo_env_used(env), w = 30, fill, i;
	char bar[64], step[16];

	if (p->trace) {
		bool best = dojo_env_best(env) != p->last_best;

		p->last_best = dojo_env_best(env);
		snprintf(step, sizeof step, "%d", used);
		trace_line(p->trace, env, step, node, best);
	}
	if (!p->bar)
		return;
	fill = p->budget > 0 ? used * w / p->budget : used % (w + 1);
	for (i = 0; i < w; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[w] = '\0';
	fprintf(stderr, "\r%s [%s] %d", p->what, bar, used);
	if (p->budget > 0)
		fprintf(stderr, "/%d", p->budget);
	fprintf(stderr, "  best %.3gx ", exp(dojo_env_reward(env,
	    dojo_env_best(env))));
	fflush(stderr);
}

/* What the session records of a measured node. */
static void
session_measurement(struct dojo_session_measurement *sm, dojo_env *env,
    int node, double start_ns)
{
	const struct dojo_measurement *m = dojo_env_measurement(env, node);
	struct dojo_measure_ratio r;

	if (m)
		dojo_session_measurement_from(sm, m, DOJO_TARGET_HOST, start_ns);
	else
		memset(sm, 0, sizeof *sm);
	if (m && dojo_env_confirmed(env, node, &r))
		dojo_session_measurement_confirm(sm, &r);
}

/* The start's time in the session: the environment's measurement of it
 * when the session starts at the same state (not measured again: on a
 * kernel as slow as the naive 512 matmul that took seconds past tune's
 * time limit), else measured through the database. */
static int
record_start(dojo_session *s, dojo_env *env,
    const struct dojo_measure_options *mopt, double *start_ns)
{
	const struct dojo_measurement *m0 = dojo_env_measurement(env, 0);
	char id[41];

	dojo_program_id(id, dojo_session_start(s));
	if (m0 && strcmp(id, dojo_env_state_id(env, 0)) == 0)
		return dojo_session_record_start(s, m0, start_ns);
	return dojo_session_measure_start(s, mopt, start_ns);
}

/* Write the path "path" ("n" nodes from the start) as the branch
 * agent/AGENT-N of the session, a new one unless "branch" names one
 * already (a live run moving it to each new best); its name into
 * "branch". */
static int
record_path(const struct tune_args *a, const char *file, dojo_program *prog,
    dojo_env *env, const int *path, int n, char *branch, size_t len,
    const struct dojo_measure_options *mopt)
{
	struct dojo_session_measurement sm;
	struct dojo_session_step step;
	struct dojo_session_entry e;
	dojo_session *s;
	double start_ns;
	bool made = false;
	int i, k, rc = -1;

	s = dojo_session_at(a->session, file, prog, true);
	if (!s)
		return -1;
	/* the start's time here, the reference of the session's speedups
	 * (not for a cross target's run: its times are the machine's and
	 * stay out of the session) */
	start_ns = 0;
	if (!a->target && !a->synthetic &&
	    record_start(s, env, mopt, &start_ns) < 0)
		goto out;
	if (!branch[0]) {
		for (i = 1;; i++) {
			snprintf(branch, len, "agent/%s-%d", a->agent, i);
			if (dojo_session_entry(s, branch, &e) < 0)
				break;
		}
		dojo_error_clear();
		/* --resume: the agent's last branch goes on */
		if (a->resume && i > 1)
			snprintf(branch, len, "agent/%s-%d", a->agent, i - 1);
		else
			made = true;
	}
	if (made) {
		if (dojo_session_branch_create(s, branch) != DOJO_DONE)
			goto out;
	} else if (dojo_session_branch_set(s, branch) != DOJO_DONE) {
		goto out;
	}
	for (k = 1; k < n; k++) {
		bool measured = dojo_env_measurement(env, path[k]) != NULL;

		session_measurement(&sm, env, path[k], start_ns);
		if (dojo_session_step(s, dojo_env_action(env, path[k]),
		    dojo_env_program(env, path[k]), measured ? &sm : NULL,
		    &step) < 0)
			goto out;
		if (step.existing || strcmp(step.branch, branch) != 0) {
			if (dojo_session_branch_set(s, branch) != DOJO_DONE)
				goto out;
			if (measured && dojo_session_record(s, NULL, &sm) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	dojo_session_free(s);
	return rc;
}

/* Keep every state the run measured beside the session (runs/BRANCH.tsv),
 * each with its moves from the start: browsable and taken later
 * (perfdojo states, the explorer's :states). */
static int
record_run(const struct tune_args *a, const char *file,
    dojo_env *env, const char *branch)
{
	struct dojo_run_state *rows;
	struct dojo_measure_ratio r;
	struct dojo_strbuf sb;
	dojo_session *s;
	int i, k, n = 0, np, rc = -1, longest = 1;
	int *path = NULL;

	for (i = 0; i < dojo_env_n_states(env); i++)
		if (dojo_env_depth(env, i) + 1 > longest)
			longest = dojo_env_depth(env, i) + 1;
	rows = calloc(dojo_env_n_states(env), sizeof *rows);
	path = calloc(longest, sizeof *path);
	if (!rows || !path) {
		free(rows);
		free(path);
		return dojo_error_set("out of memory");
	}
	for (i = 1; i < dojo_env_n_states(env); i++) {
		const struct dojo_measurement *m = dojo_env_measurement(env, i);
		struct dojo_run_state *row = &rows[n];

		if (!dojo_env_measured(env, i))
			continue;
		snprintf(row->state, sizeof row->state, "%s",
		    dojo_env_state_id(env, i));
		snprintf(row->outcome, sizeof row->outcome, "%s",
		    dojo_env_failed(env, i) ? (m ?
		    dojo_outcome_name(m->outcome) : "failed") : "ok");
		row->speedup = dojo_env_failed(env, i) ? 0 :
		    exp(dojo_env_reward(env, i));
		if (dojo_env_confirmed(env, i, &r)) {
			row->confirmed = true;
			row->speedup = r.speedup;
			row->low = r.low;
			row->high = r.high;
		}
		row->disturbed = m && m->disturbed;
		np = dojo_env_path(env, i, path, longest);
		dojo_strbuf_init(&sb);
		for (k = 1; k < np; k++)
			dojo_strbuf_printf(&sb, "%s%s", k > 1 ? "; " : "",
			    dojo_env_action(env, path[k]));
		row->moves = dojo_strbuf_detach(&sb);
		if (!row->moves)
			row->moves = strdup("");
		row->nmoves = np - 1;
		n++;
	}
	/* opened where it is: the branch's path was just recorded */
	s = dojo_session_at(a->session, file, NULL, false);
	if (s) {
		rc = dojo_session_write_run(s, branch, rows, n);
		dojo_session_free(s);
	}
	for (i = 0; i < n; i++)
		free(rows[i].moves);
	free(rows);
	free(path);
	return rc;
}

/*
 * tune --target aarch64 --runner CMD: each state timed on the machine the
 * runner reaches (the environment's cost), its outputs checked against
 * the start's, every time kept under that machine's fingerprint.
 */

struct cross_cost {
	const struct dojo_target *t;
	const char *target, *runner;
	dojo_data *want;		/* the start's outputs (interpreter) */
	dojo_program *start;
	struct dojo_measure_options mopt;
	char machine[256];		/* as the runner's side said */
};

/* Reps a state is timed, after its checked run. */
#define CROSS_TUNE_REPS 10

static double
cross_cost(dojo_program *prog, void *payload)
{
	struct cross_cost *c = payload;
	struct dojo_cross_result xr;
	struct dojo_measurement m;

	if (dojo_measure_cross(prog, c->start, c->want, c->t, c->target,
	    c->runner, CROSS_TUNE_REPS, &c->mopt, &m, &xr) < 0 ||
	    m.outcome != DOJO_OUTCOME_OK || !(m.median_ns > 0))
		return -1;
	snprintf(c->machine, sizeof c->machine, "%s", xr.machine);
	return m.median_ns;
}

/* Set "c" up for "prog" and make it the cost of "eo": the target must be
 * a cross target with a runner (qemu-user's times rank moves by the
 * emulator's costs).  0, or -1 with the last error set. */
static int
cross_setup(struct cross_cost *c, const struct tune_args *a,
    dojo_program *prog, struct dojo_env_options *eo)
{
	char configured[4096];

	memset(c, 0, sizeof *c);
	c->t = dojo_target_find(a->target);
	if (!c->t)
		return -1;
	if (!c->t->cross)
		return dojo_error_set("tune --target: %s is this machine's; "
		    "the target of a tune is a cross target with a runner",
		    c->t->name);
	if (dojo_cross_variant(c->t->cross, dojo_target_variant(a->target))->
	    emulated)
		return dojo_error_set("tune --target %s: an emulation's times "
		    "are not the machine's (tune on %s with a runner)",
		    a->target, c->t->name);
	if ((!a->runner && !dojo_cross_runner(a->target, configured,
	    sizeof configured)) || (a->runner && !strcmp(a->runner, "-")))
		return dojo_error_set("tune --target %s needs a runner "
		    "(--runner CMD, or the runners file): times under "
		    "qemu-user are the emulator's, not the machine's",
		    a->target);
	c->target = a->target;
	c->runner = a->runner;
	c->start = prog;
	c->mopt = eo->measure;
	c->want = dojo_data_new(prog, 0);
	if (!c->want)
		return -1;
	dojo_data_randomize(c->want, 1);
	if (dojo_interp_run_limited(prog, c->want, c->mopt.run.timeout) < 0)
		return -1;
	eo->target = a->target;
	eo->cost = cross_cost;
	eo->cost_payload = c;
	return 0;
}

/* tune --synthetic: each state's time a function of its id alone. */
static double
synthetic_cost(dojo_program *prog, void *payload)
{
	(void)payload;
	return dojo_synthetic_ns(prog);
}

/* The path to the best node into "*path" (malloc'ed); its length. */
static int
best_path(dojo_env *env, int **path)
{
	int best = dojo_env_best(env), n = dojo_env_depth(env, best) + 1;

	free(*path);
	*path = malloc(n * sizeof **path);
	if (!*path)
		return dojo_error_set("out of memory");
	dojo_env_path(env, best, *path, n);
	return n;
}

/* perfdojo tune --suggest K: the agent's K best moves at the start. */
static int
print_suggestions(dojo_player *player, dojo_env *env, int k)
{
	struct dojo_suggestion *sg = calloc(k, sizeof *sg);
	char score[32];
	int i, n;

	if (!sg)
		return dojo_error_set("out of memory");
	n = dojo_player_suggest(player, 0, k, sg);
	if (n > 0)
		printf("# speedup\tfrom\tmove (best first; the speedup "
		    "against this state)\n");
	for (i = 0; i < n; i++) {
		const char *how = "measured";

		/* a child measured here, else the agent's estimate (the
		 * scores are logarithms of speedups) */
		if (dojo_env_measured(env, sg[i].state) &&
		    !dojo_env_failed(env, sg[i].state))
			snprintf(score, sizeof score, "%.3gx",
			    exp(dojo_env_reward(env, sg[i].state)));
		else if (dojo_env_failed(env, sg[i].state))
			snprintf(score, sizeof score, "-"), how = "failed";
		else if (sg[i].score != 0)
			snprintf(score, sizeof score, "%.3gx", exp(sg[i].score)),
			    how = "predicted";
		else
			snprintf(score, sizeof score, "-"), how = "unscored";
		printf("%s\t%s\t%s\n", score, how, sg[i].action);
	}
	free(sg);
	return n < 0 ? -1 : 0;
}

/* A trace line of "state" timed against "ref" in alternate pairs. */
static void
trace_pairs(FILE *f, dojo_env *env, const char *step, const char *why,
    int state, int ref, const struct dojo_measure_ratio *r)
{
	fprintf(f, "%s\t%.7s\t%.7s\t%s\t-", step,
	    dojo_env_state_id(env, state), dojo_env_state_id(env, ref), why);
	trace_number(f, exp(dojo_env_reward(env, state)));
	trace_ratio(f, r);
	fprintf(f, "\t-\t%s\n", dojo_env_action(env, state));
}

/* After the search: the gains a climb checked in pairs before it went
 * on ("held" or "refuted": the state, the one it was timed against, its
 * speedup against the start since, the pairs' ratio); the finalists
 * dojo_env_settle timed against its leader ("ahead", taking the lead,
 * or "behind"); then the states confirmed against the start in
 * alternate runs (the new bests as they came, and the leader at the
 * end), one "confirm" line each, the chosen one marked best.  0 or -1. */
static int
trace_settled(FILE *f, dojo_env *env, int best)
{
	struct dojo_measure_ratio r;
	int i, ref;

	/* the gains a climb checked in pairs against its state first, and
	 * the tiles it timed against its choice on their nest alone */
	for (i = 1; i < dojo_env_n_states(env); i++) {
		if ((ref = dojo_env_held(env, i, &r)) >= 0)
			trace_pairs(f, env, r.low > 1 ? "held" : "refuted",
			    "climb", i, ref, &r);
		if ((ref = dojo_env_dueled(env, i, &r)) >= 0)
			trace_pairs(f, env, r.low > 1 ? "won" : "lost",
			    "duel", i, ref, &r);
	}
	/* the finalists dojo_env_settle timed against its leader */
	for (i = 1; i < dojo_env_n_states(env); i++)
		if ((ref = dojo_env_finalist(env, i, &r)) >= 0)
			trace_pairs(f, env, r.low > 1 && r.speedup > 1 ?
			    "ahead" : "behind", "settle", i, ref, &r);
	for (i = 1; i < dojo_env_n_states(env); i++)
		if (dojo_env_confirmed(env, i, NULL))
			trace_line(f, env, "confirm", i, i == best);
	return ferror(f) ? dojo_error_set("the trace: %s",
	    strerror(errno)) : 0;
}

/* perfdojo tune --json: the result as one object. */
static void
print_result_json(const struct tune_args *a, const char *file,
    const struct dojo_agent *agent, const char *model, dojo_env *env,
    const int *path, int n, const char *branch, double seconds)
{
	struct dojo_measure_ratio r;
	int best = dojo_env_best(env), k;
	bool confirmed = best != 0 && dojo_env_confirmed(env, best, &r);

	fputs("{\"file\": ", stdout);
	dojo_print_json_string(stdout, file);
	fputs(", \"agent\": ", stdout);
	dojo_print_json_string(stdout, agent->name);
	printf(", \"seed\": %llu, \"measurements\": %d, \"seconds\": %.3f, "
	    "\"jobs\": %d, \"threads\": %d, \"model\": ",
	    (unsigned long long)a->aopt.seed, dojo_env_used(env), seconds,
	    a->jobs, dojo_env_threads(env));
	if (model)
		dojo_print_json_string(stdout, model);
	else
		fputs("null", stdout);
	fputs(", \"branch\": ", stdout);
	dojo_print_json_string(stdout, branch);
	printf(", \"state\": \"%s\", \"start_ns\": %.6g, \"speedup\": %.6g, "
	    "\"confirmed\": %s", dojo_env_state_id(env, best),
	    dojo_env_start_ns(env), confirmed ? r.speedup :
	    exp(dojo_env_reward(env, best)), confirmed ? "true" : "false");
	if (confirmed) {
		char low[32], high[32];

		dojo_format_ratio(low, r.low, 6);
		dojo_format_ratio(high, r.high, 6);
		printf(", \"speedup_low\": %s, \"speedup_high\": %s, "
		    "\"pairs\": %d", low, high, r.pairs);
	}
	fputs(", \"moves\": [", stdout);
	for (k = 1; k < n; k++) {
		if (k > 1)
			fputs(", ", stdout);
		dojo_print_json_string(stdout, dojo_env_action(env, path[k]));
	}
	fputs("]}\n", stdout);
}

static int
tune_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_tune;
	const struct dojo_agent *agent;
	struct dojo_env_options eo;
	struct progress pr;
	struct tune_args a;
	struct cross_cost cross;
	dojo_program *prog = NULL;
	dojo_player *player = NULL;
	dojo_env *env = NULL;
	char branch[64], ranks[1024] = "";
	const char *file, *model = NULL;
	int rc, *path = NULL, n, best, k, last_best, rank = 0, size = 1;
	double t0 = dojo_clock_seconds();
	struct dojo_measure_ratio ratio;
	struct dojo_mpi_options mo;
	dojo_mpi *mpi = NULL;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	if (argc - a.first != 1)
		return dojo_command_usage(cmd, "expected one FILE");
	if ((a.mixed || a.mpi_log) && !a.mpi)
		return dojo_command_usage(cmd, "--mixed and --mpi-log go with "
		    "--mpi");
	if (a.mpi && (a.target || a.suggest))
		return dojo_command_usage(cmd, "--mpi measures on this "
		    "machine's target, and plays (no --target, no --suggest)");
	if (a.mpi) {
		if (dojo_mpi_start(&rank, &size) < 0)
			return dojo_command_fail();
		memset(&mo, 0, sizeof mo);
		env_options(&eo, &a);
		mo.measure = eo.measure;
		mo.synthetic = a.synthetic;
		mo.mixed = a.mixed;
		mo.log = a.mpi_log;
		/* the measuring ranks: what rank 0 sends them, until it stops */
		if (rank > 0) {
			rc = dojo_mpi_serve(&mo);
			dojo_mpi_stop();
			return rc < 0 ? dojo_command_fail() : 0;
		}
	}
	file = argv[a.first];
	if (!a.agent)
		a.agent = DOJO_AGENT_DEFAULT;
	agent = dojo_agent_find(a.agent);
	if (!agent)
		return dojo_command_usage(cmd, "%s", dojo_error_last());
	if (a.budget <= 0 && a.seconds <= 0)
		return dojo_command_usage(cmd, "give --budget N or --seconds "
		    "S");
	if (a.jobs < 1)
		return dojo_command_usage(cmd, "--jobs must be at least 1");
	if (a.model && strcmp(agent->name, "maxq") != 0 &&
	    agent != &dojo_agent_auto)
		return dojo_command_usage(cmd, "--model is for the agents auto "
		    "and maxq");
	/* auto starts from the shipped model unless told otherwise */
	model = a.model ? a.model : agent == &dojo_agent_auto ?
	    dojo_agent_default_model() : NULL;
	if (model && strcmp(model, "none") == 0)
		model = NULL;
	a.aopt.model = model;
	prog = dojo_program_read_file(file);
	if (!prog) {
		if (a.mpi) {
			/* the other ranks wait for a start */
			dojo_mpi_abandon();
			dojo_mpi_stop();
		}
		return dojo_command_fail();
	}
	/* SIGTERM stops the search; the best so far is still recorded (a
	 * caller such as the explorer may hold SIGTERM back until here) */
	if (!a.suggest)
		dojo_command_catch_term();
	env_options(&eo, &a);
	memset(&cross, 0, sizeof cross);
	if (a.runner && !a.target) {
		dojo_program_free(prog);
		return dojo_command_usage(cmd, "--runner goes with --target "
		    "(a cross target)");
	}
	if (a.target && cross_setup(&cross, &a, prog, &eo) < 0) {
		dojo_data_free(cross.want);
		dojo_program_free(prog);
		return dojo_command_fail();
	}
	if (a.synthetic && !a.mpi) {
		eo.cost = synthetic_cost;
		eo.cost_payload = NULL;
	}
	if (a.mpi && !(mpi = dojo_mpi_lead(prog, &mo, &eo))) {
		dojo_mpi_stop();
		dojo_program_free(prog);
		return dojo_command_fail();
	}
	memset(&pr, 0, sizeof pr);
	pr.what = agent->name;
	pr.budget = a.budget;
	pr.bar = isatty(STDERR_FILENO);
	rc = DOJO_EXIT_ERROR;
	if (a.trace && !a.suggest) {
		pr.trace = fopen(a.trace, "w");
		if (!pr.trace) {
			dojo_error_set("%s: %s", a.trace, strerror(errno));
			goto out_fail;
		}
		trace_header(pr.trace);
	}
	if (pr.bar || pr.trace) {
		eo.progress = show_progress;
		eo.progress_payload = &pr;
	}
	env = dojo_env_new(prog, &eo);
	if (!env)
		goto out_fail;
	player = dojo_player_new(agent, env, &a.aopt);
	if (!player)
		goto out_fail;
	if (a.suggest > 0) {
		rc = print_suggestions(player, env, a.suggest) < 0 ?
		    dojo_command_fail() : 0;
		goto out;
	}
	branch[0] = '\0';
	last_best = 0;
	while (!dojo_command_stopping() &&
	    (k = dojo_player_step(player)) == 0) {
		best = dojo_env_best(env);
		/* --steps: the best state is far enough from the start */
		if (a.steps > 0 && dojo_env_depth(env, best) >= a.steps)
			break;
		if (!a.live || best == last_best)
			continue;
		last_best = best;
		if ((n = best_path(env, &path)) < 0 ||
		    record_path(&a, file, prog, env, path, n, branch,
		    sizeof branch, &eo.measure) < 0)
			goto out_fail;
	}
	if (!dojo_command_stopping() && k < 0)
		goto out_fail;
	if (pr.bar)
		fputc('\n', stderr);
	best = dojo_env_best(env);
	if (pr.trace && trace_settled(pr.trace, env, best) < 0)
		goto out_fail;
	if (mpi) {
		dojo_mpi_finish(mpi, ranks, sizeof ranks);
		mpi = NULL;
	}
	if ((n = best_path(env, &path)) < 0 ||
	    record_path(&a, file, prog, env, path, n, branch, sizeof branch,
	    &eo.measure) < 0 || record_run(&a, file, env, branch) < 0)
		goto out_fail;
	if (a.json) {
		print_result_json(&a, file, agent, model, env, path, n, branch,
		    dojo_clock_seconds() - t0);
		rc = 0;
		goto out;
	}
	printf("# perfdojo tune %s --agent %s --seed %llu: %d measurements "
	    "in %.1f s\n", file, agent->name,
	    (unsigned long long)a.aopt.seed, dojo_env_used(env), dojo_clock_seconds() - t0);
	if (agent == &dojo_agent_auto)
		printf("# model: %s\n", model ? model : "none (the children "
		    "ranked by their moves' rates of gains)");
	if (ranks[0])
		printf("# mpi: %s\n", ranks);
	if (best == 0)
		printf("# best: state %.7s, 0 moves, branch %s, the start (no "
		    "speedup confirmed against it)\n",
		    dojo_env_state_id(env, best), branch);
	else if (dojo_env_confirmed(env, best, &ratio)) {
		char iv[80];

		dojo_format_interval(iv, ratio.low, ratio.high, 3);
		printf("# best: state %.7s, %d moves, branch %s, %.3fx, 95%% "
		    "interval %s in %d alternate pairs against the start\n",
		    dojo_env_state_id(env, best), n - 1, branch,
		    ratio.speedup, iv, ratio.pairs);
	} else if (a.mpi && !a.synthetic)
		printf("# best: state %.7s, %d moves, branch %s, %.3fx (first "
		    "looks on the measuring ranks, not confirmed in pairs)\n",
		    dojo_env_state_id(env, best), n - 1, branch,
		    exp(dojo_env_reward(env, best)));
	else if (a.target)
		printf("# best: state %.7s, %d moves, branch %s, %.3fx on %s "
		    "through the runner (first looks, not confirmed in "
		    "pairs)\n", dojo_env_state_id(env, best), n - 1, branch,
		    exp(dojo_env_reward(env, best)), cross.machine);
	else
		printf("# best: state %.7s, %d moves, branch %s, %.3fx (the "
		    "agents' cost, not timed)\n", dojo_env_state_id(env, best),
		    n - 1, branch, exp(dojo_env_reward(env, best)));
	for (k = 1; k < n; k++)
		printf("%s\n", dojo_env_action(env, path[k]));
	rc = 0;
	goto out;
out_fail:
	if (pr.bar)
		fputc('\n', stderr);
	rc = dojo_command_fail();
out:
	if (pr.trace && fclose(pr.trace) != 0 && rc == 0) {
		dojo_error_set("%s: %s", a.trace, strerror(errno));
		rc = dojo_command_fail();
	}
	free(path);
	dojo_player_free(player);
	dojo_env_free(env);
	dojo_data_free(cross.want);
	dojo_program_free(prog);
	if (a.mpi) {
		dojo_mpi_finish(mpi, NULL, 0);
		dojo_mpi_stop();
	}
	return rc;
}

static const struct dojo_option tune_options[] = {
	{ "agent", 'a', "A", "auto (the default), random, greedy, beam or "
	    "maxq" },
	{ "budget", 'n', "N", "measurements to spend (a state measured before "
	    "in this run counts 0; see doc/agents.md)" },
	{ "seconds", 'S', "S", "stop after S seconds of wall time" },
	{ "seed", 'r', "S", "the seed of the agent's choices (default 1)" },
	{ "depth", 'd', "D", "steps of a walk or an episode; levels of beam" },
	{ "width", OPT_WIDTH, "W", "beam: states kept per level (default 4)" },
	{ "model", 'm', "M", "auto, maxq: start from the model M (perfdojo "
	    "train); auto's default is the shipped one, 'none' for no "
	    "model" },
	{ "encoder-cmd", OPT_ENCODER, "C", "maxq: encode states with command C "
	    "(program text on stdin, numbers on stdout)" },
	{ "epsilon", OPT_EPSILON, "E", "maxq: the exploration rate (default: "
	    "decays)" },
	{ "gamma", OPT_GAMMA, "G", "maxq: the discount of the target (default "
	    "0.5)" },
	{ "updates", OPT_UPDATES, "K", "maxq: learning updates per step "
	    "(default 8)" },
	{ "session", 's', "DIR", "the session (default FILE.session, made if "
	    "missing); the path to the best state becomes the branch "
	    "agent/A-N" },
	{ "target", OPT_TARGET, "T", "another machine's target ('perfdojo "
	    "targets'): each state timed on its machine through --runner (or the "
	    "runners file), its outputs checked, its time kept under that "
	    "machine's fingerprint; the legal moves are the target's" },
	{ "runner", OPT_RUNNER, "CMD", "with --target: run 'CMD PROGRAM DIR "
	    "REPS' on the machine (doc/targets.md)" },
	{ "steps", OPT_STEPS, "N", "stop as soon as the best state is N moves "
	    "from the start (within the budget)" },
	{ "live", OPT_LIVE, NULL, "move the branch to each new best state as "
	    "it is found (SIGTERM stops the search and records the best so "
	    "far)" },
	{ "suggest", OPT_SUGGEST, "K", "print the agent's K best moves at the "
	    "start, with their scores, and stop (no session written)" },
	{ "jobs", 'j', "J", "compile J candidates at once (greedy's children, "
	    "beam's levels; default: the cores, 16 at most); timed runs "
	    "never overlap" },
	{ "timeout", OPT_TIMEOUT, "S", "the time limit of one run (default "
	    "20)" },
	{ "threads", OPT_THREADS, "N", "the kernels' OpenMP threads for the "
	    "whole run (default $OMP_NUM_THREADS or all cores)" },
	{ "exact", 'x', NULL, "measure in " DOJO_EXACT_HELP },
	{ "trace", OPT_TRACE, "FILE", "write one line a measurement to FILE "
	    "(state, why, predicted and measured speedup, confirmed)" },
	{ "json", OPT_JSON, NULL, "print the result as one JSON object" },
	{ "mpi", OPT_MPI, NULL, "started by mpirun -np N (or srun -n N): rank "
	    "0 plays and keeps, the other ranks measure (doc/cluster.md)" },
	{ "mixed", OPT_MIXED, NULL, "--mpi: take ranks whose CPU, compiler or "
	    "flags differ from rank 0's, their times kept apart" },
	{ "mpi-log", OPT_MPI_LOG, "FILE", "--mpi: append a line a measurement "
	    "to FILE (state, rank, node, outcome, ns) as it arrives" },
	{ "resume", OPT_RESUME, NULL, "go on with the agent's last branch of "
	    "the session (after a stopped or killed run: what the database "
	    "knows is not measured again)" },
	{ "synthetic", OPT_SYNTHETIC, NULL, "no kernel runs: each state's "
	    "time is a function of its id (tests and benchmarks of the search "
	    "and of --mpi)" },
	{ NULL }
};

const struct dojo_command dojo_command_tune = {
	.name = "tune",
	.args = "FILE.dojo",
	.options = tune_options,
	.summary = "let an agent search for a fast version of a kernel",
	.help = "Give --budget N or --seconds S, or both.  Prints the best "
	    "speedup and its\n"
	    "moves, a file for perfdojo apply --actions.\n",
	.run = tune_run,
};

/* perfdojo train */

/* "s" as the text of a single-quoted string of gnuplot's (a quote
 * doubled), on "g". */
static void
gnuplot_quote(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		fputc(*s, g);
	}
	fputc('\'', g);
}

/* Draw the curve of "csv" into "png" with gnuplot; the names are only
 * data to it, whatever they hold. */
static int
plot(const char *csv, const char *png)
{
	FILE *g;

	if (system("command -v gnuplot > /dev/null 2>&1") != 0)
		return dojo_error_set("gnuplot is not installed (apt-get "
		    "install gnuplot-nox): %s not drawn; the curve is in %s",
		    png, csv);
	g = popen("gnuplot", "w");
	if (!g)
		return dojo_error_set("gnuplot: %s", strerror(errno));
	fputs("set terminal png size 800,500\nset output ", g);
	gnuplot_quote(g, png);
	fputs("\nset datafile separator ','\nset key top left\n"
	    "set xlabel 'episode'\nset ylabel 'speedup'\nplot ", g);
	gnuplot_quote(g, csv);
	fputs(" using 1:6 every ::1 with lines title 'episode best', "
	    "'' using 1:7 every ::1 with lines title 'best so far'\n", g);
	if (pclose(g) != 0)
		return dojo_error_set("gnuplot failed drawing %s", png);
	return 0;
}

/* A demonstration: the moves of a move file played from the start, each
 * state measured and learned from. */
struct demo {
	dojo_maxq *mq;
	dojo_env *env;
	int state, moves;
};

static int
demo_line(const char *text, const char *where, void *payload)
{
	struct demo *d = payload;
	char msg[DOJO_ERROR_MAX];
	int used = dojo_env_used(d->env), next, rc;

	if (dojo_env_apply(d->env, d->state, text, &next) != DOJO_DONE) {
		snprintf(msg, sizeof msg, "%s", dojo_error_last());
		return dojo_error_set("%s%s", where, msg);
	}
	rc = dojo_env_evaluate(d->env, next, NULL);
	if (rc != 0)
		return rc < 0 ? -1 : 1;
	if (dojo_maxq_observe(d->mq, d->env, next,
	    dojo_env_used(d->env) > used, true) < 0)
		return -1;
	d->state = next;
	d->moves++;
	return 0;
}

/* perfdojo train --demos: the move file beside "file" (NAME.actions for
 * NAME.dojo), when there is one, played on "env".  The moves played,
 * or -1. */
static int
play_demo(dojo_maxq *mq, dojo_env *env, const char *file)
{
	struct demo d = { mq, env, 0, 0 };
	size_t n = strlen(file);
	char *path;
	int rc;

	if (n < 5 || strcmp(file + n - 5, ".dojo") != 0)
		return 0;
	path = malloc(n + 4);
	if (!path)
		return dojo_error_set("out of memory");
	memcpy(path, file, n - 5);
	strcpy(path + n - 5, ".actions");
	rc = access(path, R_OK) == 0 ? dojo_action_lines(path, demo_line,
	    &d) : 0;
	free(path);
	return rc < 0 ? -1 : d.moves;
}

static int
train_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_train;
	struct dojo_maxq_options mo;
	struct dojo_env_options eo;
	struct tune_args a;
	struct progress pr;
	dojo_program *prog;
	dojo_env **envs = NULL;
	dojo_maxq *mq = NULL;
	FILE *csv = NULL;
	char tmpcsv[] = "/tmp/perfdojo-train.XXXXXX";
	const char *csvpath = NULL;
	double *best = NULL, loss, eps, ebest;
	int nfiles, i, e, k, step, rc;

	rc = parse_args(&a, cmd, argc, argv);
	if (rc)
		return rc < 0 ? -rc : 0;
	nfiles = argc - a.first;
	if (!a.agent || strcmp(a.agent, "maxq") != 0)
		return dojo_command_usage(cmd, "only --agent maxq learns");
	if (nfiles < 1)
		return dojo_command_usage(cmd, "expected FILES");
	if (a.episodes <= 0)
		return dojo_command_usage(cmd, "give --episodes N");
	if (!a.model)
		return dojo_command_usage(cmd, "give --model M to write");
	dojo_maxq_options_from(&mo, &a.aopt);
	rc = DOJO_EXIT_ERROR;
	envs = calloc(nfiles, sizeof *envs);
	best = calloc(nfiles, sizeof *best);
	mq = dojo_maxq_new(&mo);
	if (!envs || !best || !mq)
		goto out_fail;
	env_options(&eo, &a);
	/* the rewards it learns are first looks: no new best confirmed */
	eo.no_confirm = true;
	for (i = 0; i < nfiles; i++) {
		prog = dojo_program_read_file(argv[a.first + i]);
		if (!prog)
			goto out_fail;
		envs[i] = dojo_env_new(prog, &eo);
		dojo_program_free(prog);
		if (!envs[i])
			goto out_fail;
	}
	csvpath = a.csv;
	if (!csvpath && a.plot) {
		int fd = mkstemp(tmpcsv);

		if (fd < 0) {
			dojo_error_set("%s: %s", tmpcsv, strerror(errno));
			goto out_fail;
		}
		close(fd);
		csvpath = tmpcsv;
	}
	if (csvpath) {
		csv = fopen(csvpath, "w");
		if (!csv) {
			dojo_error_set("%s: %s", csvpath, strerror(errno));
			goto out_fail;
		}
		fprintf(csv, "episode,kernel,epsilon,steps,measurements,"
		    "episode_best_speedup,best_speedup,loss\n");
	}
	pr.what = "train";
	pr.budget = 0;
	for (i = 0; a.demos && i < nfiles; i++) {
		k = play_demo(mq, envs[i], argv[a.first + i]);
		if (k < 0)
			goto out_fail;
		if (k > 0)
			best[i] = dojo_env_reward(envs[i], dojo_env_best(envs[i]));
		if (k > 0 && isatty(STDERR_FILENO))
			fprintf(stderr, "train: %s: %d moves of its move file "
			    "played\n", argv[a.first + i], k);
	}
	for (e = 0; e < a.episodes; e++) {
		dojo_env *env = envs[e % nfiles];

		/* from random play to mostly learned choices over the first
		 * 80% of the episodes */
		eps = a.aopt.epsilon >= 0 ? a.aopt.epsilon :
		    1.0 - 0.9 * e / (0.8 * a.episodes);
		if (eps < 0.1)
			eps = 0.1;
		dojo_env_reset(env);
		ebest = 0;
		loss = 0;
		for (step = 0; step < a.aopt.depth; step++) {
			double l;

			k = dojo_maxq_step(mq, env, eps, true, &l);
			if (k < 0)
				goto out_fail;
			if (k == 1)
				break;
			loss += l;
			if (!dojo_env_failed(env, dojo_env_current(env)) &&
			    dojo_env_reward(env, dojo_env_current(env)) > ebest)
				ebest = dojo_env_reward(env,
				    dojo_env_current(env));
		}
		if (ebest > best[e % nfiles])
			best[e % nfiles] = ebest;
		if (csv)
			fprintf(csv, "%d,%s,%.3f,%d,%d,%.4f,%.4f,%.6g\n", e + 1,
			    argv[a.first + e % nfiles], eps, step,
			    dojo_env_used(env), exp(ebest),
			    exp(best[e % nfiles]), step ? loss / step : 0);
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\rtrain: episode %d/%d, epsilon %.2f,"
			    " best %.3gx ", e + 1, a.episodes, eps,
			    exp(best[e % nfiles]));
	}
	if (isatty(STDERR_FILENO))
		fputc('\n', stderr);
	(void)pr;
	if (csv) {
		if (fclose(csv) != 0) {
			csv = NULL;
			dojo_error_set("%s: %s", csvpath, strerror(errno));
			goto out_fail;
		}
		csv = NULL;
	}
	if (dojo_maxq_save(mq, a.model) < 0)
		goto out_fail;
	for (i = 0; i < nfiles; i++)
		printf("%s: best %.3fx in %d measurements\n", argv[a.first + i],
		    exp(best[i]), dojo_env_used(envs[i]));
	printf("model %s\n", a.model);
	rc = 0;
	if (a.plot && plot(csvpath, a.plot) < 0) {
		fprintf(stderr, "perfdojo train: %s\n", dojo_error_last());
		rc = DOJO_EXIT_ERROR;
		if (csvpath == tmpcsv)
			csvpath = NULL;
	}
	goto out;
out_fail:
	rc = dojo_command_fail();
out:
	if (csv)
		fclose(csv);
	if (csvpath == tmpcsv && rc == 0)
		unlink(tmpcsv);
	dojo_maxq_free(mq);
	for (i = 0; envs && i < nfiles; i++)
		dojo_env_free(envs[i]);
	free(envs);
	free(best);
	return rc;
}

static const struct dojo_option train_options[] = {
	{ "agent", 'a', "maxq", "the learning agent", DOJO_OPTION_REQUIRED },
	{ "episodes", 'e', "N", "episodes, taking the kernels in turn",
	    DOJO_OPTION_REQUIRED },
	{ "model", 'm', "M", "write the model to M", DOJO_OPTION_REQUIRED },
	{ "depth", 'd', "D", "steps per episode (default 8)" },
	{ "budget", 'n', "N", "measurements per kernel at most" },
	{ "seconds", 'S', "S", "measure each kernel for S seconds of wall "
	    "time at most" },
	{ "seed", 'r', "S", "the seed (default 1)" },
	{ "encoder-cmd", OPT_ENCODER, "C", "encode states with command C" },
	{ "epsilon", OPT_EPSILON, "E", "a fixed exploration rate (default: 1 "
	    "to 0.1)" },
	{ "gamma", OPT_GAMMA, "G", "the discount of the target (default "
	    "0.5)" },
	{ "updates", OPT_UPDATES, "K", "learning updates per step (default "
	    "8)" },
	{ "timeout", OPT_TIMEOUT, "S", "the time limit of one run (default "
	    "20)" },
	{ "demos", OPT_DEMOS, NULL, "first play each kernel's move file "
	    "(NAME.actions beside NAME.dojo) and learn from its states" },
	{ "csv", OPT_CSV, "OUT", "the training curve: one line per episode" },
	{ "plot", OPT_PLOT, "OUT.png", "draw the curve with gnuplot" },
	{ "exact", 'x', NULL, "measure in " DOJO_EXACT_HELP },
	{ NULL }
};

const struct dojo_command dojo_command_train = {
	.name = "train",
	.args = "FILE.dojo...",
	.options = train_options,
	.summary = "train the Max-Q agent on kernels and save its model",
	.run = train_run,
};
