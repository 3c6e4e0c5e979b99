/* measure.h: measurements of kernels, checked and kept in SQLite */
#ifndef DOJO_MEASURE_H
#define DOJO_MEASURE_H

#include <stdbool.h>

#include "ir/data.h"
#include "ir/program.h"
#include "targets/runner.h"

struct dojo_measure_options {
	const char *db;		/* NULL: $PERFDOJO_DB or
				   ~/.cache/perfdojo/measurements.db */
	bool fresh;		/* measure again even when known */
	struct dojo_run_options run;
};

struct dojo_measurement {
	char state[41];
	char fingerprint[41];
	enum dojo_outcome outcome;
	char message[512];
	double median_ns, ci_low_ns, ci_high_ns;
	int reps;
	bool cached;
};

/* Default options: C target, 1% precision, a 2 s budget, 60 s limit. */
void dojo_measure_options_init(__dojo_keep struct dojo_measure_options *opt);

/* Measure "prog"; its outputs must agree with the interpreter's outputs
 * of "reference" (NULL: of "prog") on the seeded inputs, within the
 * tolerance of doc/measure.md.  -1 with the last error only when nothing
 * could be measured (no database, no memory); a failing kernel is an
 * outcome. */
int dojo_measure(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_program *reference,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *out);
/* The same, for callers that measure many kernels against one reference:
 * "*want" keeps the interpreter's outputs of "reference" between calls
 * (NULL at first: computed when a kernel is measured, not looked up; the
 * caller frees it with dojo_data_free).  Interpreting a large kernel
 * takes far longer than running its compiled code. */
int dojo_measure_against(__dojo_keep dojo_program *prog,
    __dojo_keep dojo_program *reference, __dojo_keep dojo_data **want,
    __dojo_keep const struct dojo_measure_options *opt,
    __dojo_keep struct dojo_measurement *out);

#endif
