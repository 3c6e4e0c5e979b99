/* cmd_measure.c: perfdojo measure: the time of a kernel, checked, cached */
#include "config.h"
#include "src/cmd/command.h"
#include "targets/measure.h"
#include "src/core/session.h"
#include "ir/program.h"
#include "targets/target.h"
#include "targets/cross.h"
#include "ir/data.h"
#include "ir/interp.h"

#include "ir/moves.h"
#include "src/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_MOVES = 256, OPT_AT, OPT_RUNNER };

/* perfdojo measure --moves [--at ADDR]: every legal move (at ADDR) of
 * "prog", the state it leads to measured as measure measures, its outputs
 * checked against those of "prog": a line a move, "SPEEDUP\tACTION"
 * against "prog" (or "-\tOUTCOME\tACTION"), as each is measured. */
static int
measure_moves(dojo_program *prog, const char *file, const char *at,
    const struct dojo_measure_options *opt)
{
	const struct dojo_machine *machine = dojo_target_machine(DOJO_TARGET_HOST);
	struct dojo_measurement base, m;
	int path[DOJO_MAX_DEPTH], n = 0, i, nact = 0, rc = -1;
	char **act = NULL;
	dojo_legality *mv;
	dojo_program *next;

	if (at && (n = dojo_address_parse(path, at)) < 0)
		return dojo_error_set("--at: '%s' is not an address", at);
	if (at && !dojo_program_lookup(prog, path, n))
		return dojo_error_set("--at: %s: no node there in %s", at, file);
	mv = dojo_legality_new(prog, machine);
	if (!mv || (nact = dojo_legality_texts(mv, n ? path : NULL, n,
	    &act)) < 0)
		goto out;
	if (dojo_measure(prog, NULL, opt, &base) < 0)
		goto out;
	if (base.outcome != DOJO_OUTCOME_OK) {
		dojo_error_set("%s: %s: %s", file,
		    dojo_outcome_name(base.outcome), base.message);
		goto out;
	}
	/* SIGTERM stops after the move being measured */
	dojo_command_catch_term();
	printf("# %s: %.4g ms; %d legal moves%s%s, the speedup of each "
	    "against it\n", file, base.median_ns / 1e6, nact, at ? " at " : "",
	    at ? at : "");
	fflush(stdout);
	for (i = 0; i < nact && !dojo_command_stopping(); i++) {
		next = dojo_program_apply_text(prog, act[i], machine);
		if (!next) {
			printf("-\trefused\t%s\n", act[i]);
		} else if (dojo_measure(next, prog, opt, &m) < 0) {
			dojo_program_free(next);
			goto out;
		} else if (m.outcome != DOJO_OUTCOME_OK) {
			printf("-\t%s\t%s\n", dojo_outcome_name(m.outcome),
			    act[i]);
		} else {
			printf("%.4gx\t%s%s\n", base.median_ns / m.median_ns,
			    act[i], m.disturbed ? "\t(disturbed)" : "");
		}
		dojo_program_free(next);
		fflush(stdout);
	}
	rc = 0;
out:
	dojo_action_texts_free(act);
	dojo_legality_free(mv);
	return rc;
}

/* Record "m", the measurement of "prog", on the commit of session "dir"
 * that holds its state, with its speedup against the session's start. */
static int
record(const char *dir, dojo_program *prog,
    const struct dojo_measure_options *opt, const struct dojo_measurement *m,
    double peak)
{
	struct dojo_session_measurement sm;
	double start_ns;
	char commit[41];
	dojo_session *s = dojo_session_open(dir);
	int rc = -1;

	if (!s)
		return -1;
	if (dojo_session_find_state(s, m->state, commit) < 0)
		goto out;
	if (!commit[0]) {
		dojo_error_set("%s: state %.7s is not in the session %s",
		    dojo_program_file(prog), m->state, dir);
		goto out;
	}
	if (dojo_session_measure_start(s, opt, &start_ns) < 0)
		goto out;
	dojo_session_measurement_from(&sm, m, DOJO_TARGET_HOST, start_ns);
	sm.ops = dojo_program_ops(prog);
	sm.peak_gflops = peak;
	if (dojo_session_confirm(s, prog, opt, &sm) == 0)
		rc = dojo_session_record(s, commit, &sm);
out:
	dojo_session_free(s);
	return rc;
}

static int
print_run(const struct dojo_measure_run *r, void *payload)
{
	char when[32], host[16];
	time_t t = (time_t)r->began;
	int *n = payload;

	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	if (!(*n)++)
		printf("%-20s %12s %12s %6s %7s %5s %5s %5s  %s\n", "began",
		    "median_ms", "interval_ms", "reps", "threads", "load",
		    "after", "host", "disturbed");
	if (r->host > 0)
		snprintf(host, sizeof host, "%.2f", r->host);
	else
		snprintf(host, sizeof host, "-");
	printf("%-20s %12.4g %5.4g-%-6.4g %6d %7d %5d %5d %5s  %s%s%s\n",
	    when, r->median_ns / 1e6, r->ci_low_ns / 1e6, r->ci_high_ns / 1e6,
	    r->reps, r->threads, r->load_before, r->load_after, host,
	    r->disturbed ? "yes: " : "no", r->disturbed ? r->why : "",
	    strcmp(r->source, "run") ? " (migrated)" : "");
	return 0;
}

static int
history(dojo_program *prog, const struct dojo_measure_options *opt)
{
	char fp[41];
	int n = 0;

	if (dojo_measure_history(prog, opt, fp, print_run, &n) < 0)
		return -1;
	if (n == 0)
		printf("%s: no runs on fingerprint %.12s\n",
		    dojo_program_file(prog), fp);
	return 0;
}

static void
print_json(const struct dojo_measurement *m,
    const struct dojo_measure_ratio *r, double ops, double peak)
{
	printf("{\"median_ns\": %.0f, \"ci_low_ns\": %.0f, "
	    "\"ci_high_ns\": %.0f, \"reps\": %d, \"runs\": %d, "
	    "\"new_runs\": %d, \"spread\": %.4f, \"disturbed\": %s, "
	    "\"outcome\": ", m->median_ns, m->ci_low_ns, m->ci_high_ns,
	    m->reps, m->runs, m->new_runs, m->spread,
	    m->disturbed ? "true" : "false");
	dojo_print_json_string(stdout, dojo_outcome_name(m->outcome));
	printf(", \"message\": ");
	dojo_print_json_string(stdout, m->message);
	if (m->outcome == DOJO_OUTCOME_OK && m->median_ns > 0 && ops > 0)
		printf(", \"ops\": %.0f, \"gflops\": %.4g", ops,
		    ops / m->median_ns);
	if (peak > 0)
		printf(", \"peak_gflops\": %.4g", peak);
	if (r && r->speedup > 0) {
		char s[32], low[32], high[32];

		dojo_format_ratio(s, r->speedup, 5);
		dojo_format_ratio(low, r->low, 5);
		dojo_format_ratio(high, r->high, 5);
		printf(", \"speedup\": %s, \"speedup_low\": %s, "
		    "\"speedup_high\": %s, \"pairs\": %d, "
		    "\"speedup_disturbed\": %s, \"speedup_precise\": %s",
		    s, low, high, r->pairs,
		    r->disturbed ? "true" : "false",
		    r->precise ? "true" : "false");
	}
	printf(", \"cached\": %s, \"stored\": %s, \"state\": \"%s\", "
	    "\"fingerprint\": \"%s\"}\n", m->cached ? "true" : "false",
	    m->stored ? "true" : "false", m->state, m->fingerprint);
}

static void
print_text(const char *file, const struct dojo_measurement *m,
    const struct dojo_measure_ratio *r, const char *baseline, double ops,
    double peak)
{
	if (m->outcome != DOJO_OUTCOME_OK) {
		printf("%s: %s: %s\n", file, dojo_outcome_name(m->outcome),
		    m->message);
		return;
	}
	printf("%s: median %.4g ms, 95%% interval [%.4g, %.4g] ms, %d run%s "
	    "(spread %.1f%%), %d reps%s%s\n", file, m->median_ns / 1e6,
	    m->ci_low_ns / 1e6, m->ci_high_ns / 1e6, m->runs,
	    m->runs == 1 ? "" : "s", 100 * m->spread, m->reps,
	    m->cached ? " (cached)" : "",
	    m->disturbed ? " DISTURBED: the machine was busy" : "");
	if (ops > 0 && m->median_ns > 0)
		printf("%.4g GFLOP/s%s", ops / m->median_ns, peak > 0 ? "" :
		    "\n");
	if (ops > 0 && m->median_ns > 0 && peak > 0)
		printf(", %.1f%% of this machine's peak (%.4g GFLOP/s)\n",
		    100 * ops / m->median_ns / peak, peak);
	if (r && r->speedup > 0) {
		char s[32], iv[80];

		dojo_format_ratio(s, r->speedup, 3);
		dojo_format_interval(iv, r->low, r->high, 3);
		printf("speedup %s, 95%% interval %s, against %s (%d "
		    "alternate pairs)%s%s\n", s, iv, baseline, r->pairs,
		    r->disturbed ? " DISTURBED" : r->low > 1 || r->high < 1 ?
		    "" : ", not significant",
		    r->precise ? "" : ", wider than +-5%");
	}
}

/* The timed repetitions of a cross target's program, after its first
 * run (checked). */
#define CROSS_REPS 10

/* perfdojo measure --target aarch64|riscv64: the program timed where it
 * runs, its outputs checked against the interpreter's; a time under
 * qemu-user is printed, never kept; one from a runner is kept under the
 * fingerprint of the machine the runner's side reports. */
static int
measure_cross(dojo_program *prog, const char *file, const char *target,
    const struct dojo_target *t, const char *runner,
    const struct dojo_measure_options *opt, bool json)
{
	struct dojo_cross_result xr;
	struct dojo_measurement m;
	dojo_data *want;
	int rc = -1;

	want = dojo_data_new(prog, 0);
	if (!want)
		goto out;
	dojo_data_randomize(want, 1);
	if (dojo_interp_run_limited(prog, want, opt->run.timeout) < 0 ||
	    dojo_measure_cross(prog, prog, want, t, target, runner, CROSS_REPS,
	    opt, &m, &xr) < 0)
		goto out;
	if (json) {
		print_json(&m, NULL, dojo_program_ops(prog), 0);
	} else {
		print_text(file, &m, NULL, NULL, dojo_program_ops(prog), 0);
		if (xr.machine[0])
			printf("on %s\n", xr.machine);
		if (m.outcome == DOJO_OUTCOME_OK && xr.emulated)
			printf("emulated by %s: not that machine's time, and not "
			    "kept (--runner runs it on the machine)\n",
			    xr.emulator);
		else if (m.outcome == DOJO_OUTCOME_OK)
			printf("kept under fingerprint %.12s, the machine the "
			    "runner reported%s\n", m.fingerprint, m.stored ? "" :
			    " (not stored: see above)");
	}
	rc = m.outcome == DOJO_OUTCOME_OK ? 0 : 1;
out:
	dojo_data_free(want);
	return rc;
}

static int
measure_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_measure;
	struct dojo_option_parser p;
	const char *baseline = NULL, *session = NULL, *target = NULL, *runner = NULL;
	const struct dojo_target *t = NULL;
	struct dojo_measure_options opt;
	struct dojo_measurement m, base;
	struct dojo_measure_ratio ratio;
	dojo_program *prog, *bprog = NULL;
	dojo_data *want = NULL;
	bool json = false, list = false, want_peak = false, moves = false;
	const char *at = NULL;
	double peak = 0;
	char *end;
	long n;
	int c, rc = DOJO_EXIT_ERROR;

	dojo_measure_options_init(&opt);
	memset(&ratio, 0, sizeof ratio);
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 't':
			target = optarg;
			if (!(t = dojo_target_runnable(optarg)))
				return dojo_command_usage(cmd, "%s",
				    dojo_error_last());
			break;
		case OPT_RUNNER:
			runner = optarg;
			break;
		case 'f':
			opt.fresh = true;
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			baseline = optarg;
			break;
		case 'd':
			opt.db = optarg;
			break;
		case 'C':
			opt.run.cflags = optarg;
			break;
		case 'x':
			opt.run.exact = true;
			break;
		case 'T':
			opt.run.timeout = strtod(optarg, &end);
			if (*end || opt.run.timeout <= 0)
				return dojo_command_usage(cmd, "--timeout needs "
				    "a positive number of seconds");
			break;
		case 's':
			session = optarg;
			break;
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 1000)
				return dojo_command_usage(cmd, "--threads needs "
				    "a number of threads from 1 to 1000");
			opt.run.threads = (int)n;
			break;
		case 'r':
			n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 100)
				return dojo_command_usage(cmd, "--runs needs a "
				    "number of runs from 1 to 100");
			opt.runs = (int)n;
			break;
		case 'H':
			list = true;
			break;
		case 'P':
			want_peak = true;
			break;
		case OPT_MOVES:
			moves = true;
			break;
		case OPT_AT:
			at = optarg;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	if (runner && (!t || !t->cross))
		return dojo_command_usage(cmd, "--runner runs a cross target's "
		    "program (--target aarch64, riscv64)");
	if (t && t->cross && (list || moves || baseline || session ||
	    want_peak))
		return dojo_command_usage(cmd, "target %s: a time and its "
		    "check only (no --history, --moves, --baseline, --session "
		    "or --peak yet)", t->name);
	prog = dojo_program_read_file(argv[optind]);
	if (!prog)
		return dojo_command_fail();
	if (t && t->cross) {
		rc = measure_cross(prog, argv[optind], target, t, runner, &opt,
		    json);
		dojo_program_free(prog);
		return rc < 0 ? dojo_command_fail() : rc ? DOJO_EXIT_ERROR : 0;
	}
	if (list) {
		rc = history(prog, &opt) < 0 ? dojo_command_fail() : 0;
		dojo_program_free(prog);
		return rc;
	}
	if (at && !moves) {
		dojo_program_free(prog);
		return dojo_command_usage(cmd, "--at goes with --moves");
	}
	if (moves) {
		rc = measure_moves(prog, argv[optind], at, &opt) < 0 ?
		    dojo_command_fail() : 0;
		dojo_program_free(prog);
		return rc;
	}
	if (baseline && !(bprog = dojo_program_read_file(baseline)))
		goto out_free;
	/* the baseline is the reference the outputs are checked against,
	 * and the two are timed in alternate runs */
	if (bprog) {
		rc = dojo_measure_speedup(prog, bprog, &want, &opt, &m, &base,
		    &ratio);
		dojo_data_free(want);
		if (rc < 0)
			goto out_free;
		if (base.outcome != DOJO_OUTCOME_OK) {
			dojo_error_set("%s: the baseline failed: %s: %s",
			    baseline, dojo_outcome_name(base.outcome),
			    base.message);
			goto out_free;
		}
	} else if (dojo_measure(prog, NULL, &opt, &m) < 0) {
		goto out_free;
	}
	if (want_peak && m.outcome == DOJO_OUTCOME_OK &&
	    dojo_measure_peak(&opt, &peak) < 0)
		goto out_free;
	if (session && record(session, prog, &opt, &m, peak) < 0)
		goto out_free;
	if (json)
		print_json(&m, &ratio, dojo_program_ops(prog), peak);
	else
		print_text(argv[optind], &m, &ratio, baseline,
		    dojo_program_ops(prog), peak);
	rc = m.outcome == DOJO_OUTCOME_OK ? 0 : DOJO_EXIT_ERROR;
	dojo_program_free(bprog);
	dojo_program_free(prog);
	return rc;
out_free:
	dojo_program_free(bprog);
	dojo_program_free(prog);
	return dojo_command_fail();
}

static const struct dojo_option measure_options[] = {
	{ "target", 't', "T", "a target of 'perfdojo targets' (default: this "
	    "machine's); another machine's program is timed under an emulation "
	    "(printed, never kept), on its device here or by --runner on the "
	    "machine (kept under that machine's fingerprint)" },
	{ "runner", OPT_RUNNER, "CMD", "with a cross target: run 'CMD PROGRAM "
	    "DIR REPS' (no shell) on the machine (doc/targets.md)" },
	{ "fresh", 'f', NULL, "measure again, even when the database knows "
	    "the state" },
	{ "json", 'j', NULL, "one JSON object: median_ns, ci_low_ns, "
	    "ci_high_ns, reps, runs, new_runs, spread, disturbed, outcome, "
	    "message, ops, gflops, peak_gflops, speedup, speedup_low, "
	    "speedup_high, pairs, speedup_disturbed, speedup_precise, cached, "
	    "stored, state, fingerprint" },
	{ "baseline", 'b', "BASE", "the speedup against BASE, whose outputs "
	    "are the reference, the two timed in alternate runs" },
	{ "threads", 'n', "N", "the kernel's OpenMP threads (default "
	    "$OMP_NUM_THREADS or all cores), part of the fingerprint" },
	{ "runs", 'r', "N", "the clean runs, each a separate child, that "
	    "make a state known (default 3)" },
	{ "peak", 'P', NULL, "also this machine's peak GFLOP/s (measured "
	    "once for the fingerprint) and the kernel's share of it" },
	{ "history", 'H', NULL, "list the runs recorded for the state on "
	    "this fingerprint, and measure nothing" },
	{ "moves", OPT_MOVES, NULL, "measure the state each legal move leads "
	    "to, checked against this one: a line a move, its speedup against "
	    "this state, as each is measured (SIGTERM stops)" },
	{ "at", OPT_AT, "ADDR", "with --moves: only the moves at the node "
	    "ADDR" },
	{ "db", 'd', "PATH", "the measurement database (default $PERFDOJO_DB "
	    "or ~/.cache/perfdojo/measurements.db)" },
	{ "timeout", 'T', "S", "the time limit of one run (default 60)" },
	{ "cflags", 'C', "F", "the compiler's flags (default \""
	    DOJO_C_CFLAGS "\"), part of the fingerprint" },
	{ "exact", 'x', NULL, DOJO_EXACT_HELP ", part of the fingerprint" },
	{ "session", 's', "DIR", "record the measurement (a git note) on the "
	    "session's commit of this state, with its speedup against the "
	    "start; the best state becomes the tag best/c" },
	{ NULL }
};

const struct dojo_command dojo_command_measure = {
	.name = "measure",
	.args = "FILE.dojo",
	.options = measure_options,
	.summary = "time a kernel's generated code, checked against the "
	    "interpreter",
	.run = measure_run,
};
