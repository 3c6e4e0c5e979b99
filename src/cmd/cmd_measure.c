/* cmd_measure.c: perfdojo measure: the time of a kernel, checked, cached */
#include "config.h"
#include "src/cmd/command.h"
#include "targets/measure.h"
#include "src/core/session.h"
#include "ir/program.h"
#include "targets/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
print_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Record "m", the measurement of "prog", on the commit of session "dir"
 * that holds its state, with its speedup against the session's start. */
static int
record(const char *dir, dojo_program *prog,
    const struct dojo_measure_options *opt, const struct dojo_measurement *m)
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
	dojo_session_measurement_from(&sm, m, "c", start_ns);
	rc = dojo_session_record(s, commit, &sm);
out:
	dojo_session_free(s);
	return rc;
}

static int
measure_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_measure;
	struct dojo_option_parser p;
	const char *baseline = NULL, *session = NULL;
	struct dojo_measure_options opt;
	struct dojo_measurement m, base;
	dojo_program *prog, *bprog = NULL;
	bool json = false;
	double speedup = 0;
	char *end;
	int c, rc = DOJO_EXIT_ERROR;

	dojo_measure_options_init(&opt);
	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 't':
			if (!dojo_target_runs_here(optarg))
				return dojo_command_usage(cmd, "unknown target "
				    "'%s' (c)", optarg);
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
		case 'T':
			opt.run.timeout = strtod(optarg, &end);
			if (*end || opt.run.timeout <= 0)
				return dojo_command_usage(cmd, "--timeout needs "
				    "a positive number of seconds");
			break;
		case 's':
			session = optarg;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	prog = dojo_program_read_file(argv[optind]);
	if (!prog)
		return dojo_command_fail();
	if (baseline && !(bprog = dojo_program_read_file(baseline)))
		goto out_free;
	/* the baseline is the reference the outputs are checked against */
	if (bprog && dojo_measure(bprog, NULL, &opt, &base) < 0)
		goto out_free;
	if (dojo_measure(prog, bprog, &opt, &m) < 0)
		goto out_free;
	if (bprog && base.outcome == DOJO_OUTCOME_OK &&
	    m.outcome == DOJO_OUTCOME_OK && m.median_ns > 0)
		speedup = base.median_ns / m.median_ns;
	if (session && record(session, prog, &opt, &m) < 0)
		goto out_free;
	if (json) {
		printf("{\"median_ns\": %.0f, \"ci_low_ns\": %.0f, "
		    "\"ci_high_ns\": %.0f, \"reps\": %d, \"outcome\": ",
		    m.median_ns, m.ci_low_ns, m.ci_high_ns, m.reps);
		print_json_string(dojo_outcome_name(m.outcome));
		printf(", \"message\": ");
		print_json_string(m.message);
		if (speedup > 0)
			printf(", \"speedup\": %.4f", speedup);
		printf(", \"cached\": %s, \"state\": \"%s\", "
		    "\"fingerprint\": \"%s\"}\n", m.cached ? "true" : "false",
		    m.state, m.fingerprint);
	} else if (m.outcome == DOJO_OUTCOME_OK) {
		printf("%s: median %.4g ms, 95%% interval [%.4g, %.4g] ms, %d "
		    "reps%s\n", argv[optind], m.median_ns / 1e6,
		    m.ci_low_ns / 1e6, m.ci_high_ns / 1e6, m.reps,
		    m.cached ? " (cached)" : "");
		if (speedup > 0)
			printf("speedup %.3g against %s\n", speedup, baseline);
	} else {
		printf("%s: %s: %s\n", argv[optind],
		    dojo_outcome_name(m.outcome), m.message);
	}
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
	{ "target", 't', "T", "c (default; the only target that runs here)" },
	{ "fresh", 'f', NULL, "measure again, even when the database knows "
	    "the state" },
	{ "json", 'j', NULL, "one JSON object: median_ns, ci_low_ns, "
	    "ci_high_ns, reps, outcome, message, speedup, cached, state, "
	    "fingerprint" },
	{ "baseline", 'b', "BASE", "the speedup against BASE, whose outputs "
	    "are the reference" },
	{ "db", 'd', "PATH", "the measurement database (default $PERFDOJO_DB "
	    "or ~/.cache/perfdojo/measurements.db)" },
	{ "timeout", 'T', "S", "the time limit of one run (default 60)" },
	{ "cflags", 'C', "F", "the compiler's flags (default \""
	    DOJO_C_CFLAGS "\"), part of the fingerprint" },
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
