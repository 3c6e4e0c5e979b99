/* session_measure.c: what is measured in a session: a state's
 * measurement as a git note (or the measurement file of its commit), the
 * tag best/TARGET on the best state, and measuring a state and the start
 * through the measurement database (targets/measure.h) */
#include "config.h"
#include "src/core/session.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/util/error.h"
#include "src/util/strbuf.h"
#include "src/core/session_private.h"
#include "targets/target.h"

/* A measurement as text: "key: value" lines, in a note or the measurement
 * file of a commit. */

void
dojo_session_format_measurement(struct dojo_strbuf *sb,
    const struct dojo_session_measurement *m)
{
	if (!m || !m->measured) {
		dojo_strbuf_puts(sb, "outcome: unmeasured\n");
		return;
	}
	dojo_strbuf_printf(sb, "target: %s\nfingerprint: %s\noutcome: %s\n",
	    m->target, m->fingerprint, m->outcome);
	if (strcmp(m->outcome, "ok") == 0)
		dojo_strbuf_printf(sb, "median_ns: %.1f\nci_low_ns: %.1f\n"
		    "ci_high_ns: %.1f\nruns: %d\nspread: %.4f\n"
		    "disturbed: %s\n", m->median_ns, m->ci_low_ns,
		    m->ci_high_ns, m->runs, m->spread,
		    m->disturbed ? "yes" : "no");
	if (m->speedup > 0)
		dojo_strbuf_printf(sb, "speedup: %.6g\n", m->speedup);
	if (m->confirmed) {
		char low[32], high[32];

		dojo_format_ratio(low, m->speedup_low, 6);
		dojo_format_ratio(high, m->speedup_high, 6);
		dojo_strbuf_printf(sb, "speedup_low: %s\nspeedup_high: %s\n",
		    low, high);
	}
	if (m->ops > 0)
		dojo_strbuf_printf(sb, "ops: %.0f\n", m->ops);
	if (m->peak_gflops > 0)
		dojo_strbuf_printf(sb, "peak_gflops: %.4g\n", m->peak_gflops);
	dojo_strbuf_printf(sb, "when: %s\n", m->when);
}

static void
parse_measurement(struct dojo_session_measurement *m, const char *text)
{
	const char *p = text;

	memset(m, 0, sizeof *m);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[256], *v;

		snprintf(line, sizeof line, "%.*s", (int)n, p);
		p = nl ? nl + 1 : NULL;
		v = strstr(line, ": ");
		if (!v)
			continue;
		*v = '\0';
		v += 2;
		if (strcmp(line, "target") == 0)
			snprintf(m->target, sizeof m->target, "%s", v);
		else if (strcmp(line, "fingerprint") == 0)
			snprintf(m->fingerprint, sizeof m->fingerprint, "%s", v);
		else if (strcmp(line, "outcome") == 0)
			snprintf(m->outcome, sizeof m->outcome, "%s", v);
		else if (strcmp(line, "median_ns") == 0)
			m->median_ns = strtod(v, NULL);
		else if (strcmp(line, "ci_low_ns") == 0)
			m->ci_low_ns = strtod(v, NULL);
		else if (strcmp(line, "ci_high_ns") == 0)
			m->ci_high_ns = strtod(v, NULL);
		else if (strcmp(line, "speedup") == 0)
			m->speedup = strtod(v, NULL);
		else if (strcmp(line, "runs") == 0)
			m->runs = atoi(v);
		else if (strcmp(line, "spread") == 0)
			m->spread = strtod(v, NULL);
		else if (strcmp(line, "disturbed") == 0)
			m->disturbed = strcmp(v, "yes") == 0;
		else if (strcmp(line, "speedup_low") == 0) {
			m->speedup_low = strtod(v, NULL);
			m->confirmed = true;
		} else if (strcmp(line, "speedup_high") == 0)
			m->speedup_high = strtod(v, NULL);
		else if (strcmp(line, "ops") == 0)
			m->ops = strtod(v, NULL);
		else if (strcmp(line, "peak_gflops") == 0)
			m->peak_gflops = strtod(v, NULL);
		else if (strcmp(line, "when") == 0)
			snprintf(m->when, sizeof m->when, "%s", v);
	}
	m->measured = m->outcome[0] && strcmp(m->outcome, "unmeasured") != 0;
}

/* The measurement of a commit: its note if it has one, else the
 * measurement file of its tree. */
void
dojo_session_read_measurement(dojo_session *s, const git_oid *commit,
    struct dojo_session_measurement *m)
{
	git_note *note = NULL;
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_blob *blob = NULL;
	const git_tree_entry *te;

	memset(m, 0, sizeof *m);
	if (git_note_read(&note, s->repo, NOTES_REF, commit) == 0) {
		parse_measurement(m, git_note_message(note));
		git_note_free(note);
		return;
	}
	if (git_commit_lookup(&c, s->repo, commit) == 0 &&
	    git_commit_tree(&tree, c) == 0 &&
	    (te = git_tree_entry_byname(tree, MEASUREMENT_FILE)) &&
	    git_blob_lookup(&blob, s->repo, git_tree_entry_id(te)) == 0) {
		char *text = strndup(git_blob_rawcontent(blob),
		    (size_t)git_blob_rawsize(blob));

		if (text)
			parse_measurement(m, text);
		free(text);
	}
	git_blob_free(blob);
	git_tree_free(tree);
	git_commit_free(c);
}

/* Recording and measuring. */

static void
now_iso(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int
dojo_session_best(dojo_session *s, const char *target, char commit[41])
{
	char name[64];
	git_oid id;

	snprintf(name, sizeof name, "refs/tags/best/%s", target);
	if (git_reference_name_to_id(&id, s->repo, name) < 0)
		return -1;
	git_oid_tostr(commit, 41, &id);
	return 0;
}

/* Whether "m" may hold the tag best/TARGET: a speedup confirmed by
 * alternate runs against the start, its interval above 1. */
static bool
significant(const struct dojo_session_measurement *m)
{
	return m->measured && strcmp(m->outcome, "ok") == 0 &&
	    m->confirmed && m->speedup_low > 1 && m->target[0];
}

/* Move the tag best/TARGET to "commit" if "m" beats it. */
int
dojo_session_update_best(dojo_session *s, const git_oid *commit,
    const struct dojo_session_measurement *m)
{
	struct dojo_session_measurement bm;
	git_reference *ref = NULL;
	char name[64], hex[41];
	git_oid best;

	if (!significant(m))
		return 0;
	if (dojo_session_best(s, m->target, hex) == 0) {
		git_oid_fromstr(&best, hex);
		dojo_session_read_measurement(s, &best, &bm);
		if (git_oid_equal(&best, commit) ||
		    (significant(&bm) && bm.speedup >= m->speedup))
			return 0;
	}
	snprintf(name, sizeof name, "refs/tags/best/%s", m->target);
	if (git_reference_create(&ref, s->repo, name, commit, 1,
	    "perfdojo: best") < 0)
		return dojo_session_git_error(s->dir);
	git_reference_free(ref);
	return dojo_session_index_own(s, NULL);
}

int
dojo_session_record(dojo_session *s, const char *commit,
    const struct dojo_session_measurement *m)
{
	git_signature *sig = NULL;
	struct dojo_strbuf sb;
	git_oid id, note;
	int rc = -1;

	if (dojo_session_lock(s) < 0)
		return -1;
	if (dojo_session_refresh(s) < 0 ||
	    dojo_session_resolve(&id, s, commit) < 0)
		goto out;
	if (dojo_session_signature(&sig, s) < 0)
		goto out;
	dojo_strbuf_init(&sb);
	dojo_session_format_measurement(&sb, m);
	rc = git_note_create(&note, s->repo, NOTES_REF, sig, sig, &id, sb.s,
	    1);
	dojo_strbuf_release(&sb);
	git_signature_free(sig);
	if (rc < 0) {
		rc = dojo_session_git_error(s->dir);
		goto out;
	}
	rc = dojo_session_update_best(s, &id, m);
out:
	dojo_session_unlock(s);
	return rc;
}

void
dojo_session_measurement_from(struct dojo_session_measurement *out,
    const struct dojo_measurement *m, const char *target, double start_ns)
{
	memset(out, 0, sizeof *out);
	out->measured = true;
	snprintf(out->target, sizeof out->target, "%s", target);
	snprintf(out->fingerprint, sizeof out->fingerprint, "%s",
	    m->fingerprint);
	snprintf(out->outcome, sizeof out->outcome, "%s",
	    dojo_outcome_name(m->outcome));
	if (m->outcome == DOJO_OUTCOME_OK) {
		out->median_ns = m->median_ns;
		out->ci_low_ns = m->ci_low_ns;
		out->ci_high_ns = m->ci_high_ns;
		out->runs = m->runs;
		out->spread = m->spread;
		out->disturbed = m->disturbed;
		if (start_ns > 0 && m->median_ns > 0)
			out->speedup = start_ns / m->median_ns;
	}
	now_iso(out->when);
}

int
dojo_session_measure_start(dojo_session *s,
    const struct dojo_measure_options *opt, double *start_ns)
{
	struct dojo_measurement m;

	*start_ns = 0;
	if (dojo_measure(s->start, NULL, opt, &m) < 0)
		return -1;
	return dojo_session_record_start(s, &m, start_ns);
}

int
dojo_session_record_start(dojo_session *s, const struct dojo_measurement *m,
    double *start_ns)
{
	struct dojo_session_measurement sm;
	char hex[41];
	int r;

	*start_ns = 0;
	if (dojo_session_refresh(s) < 0)
		return -1;
	if (m->outcome == DOJO_OUTCOME_OK)
		*start_ns = m->median_ns;
	r = dojo_session_root_index(s);
	if (r < 0)
		return 0;
	dojo_session_read_measurement(s, &s->commits[r].id, &sm);
	if (sm.measured && strcmp(sm.fingerprint, m->fingerprint) == 0)
		return 0;
	dojo_session_measurement_from(&sm, m, DOJO_TARGET_HOST, *start_ns);
	git_oid_tostr(hex, sizeof hex, &s->commits[r].id);
	return dojo_session_record(s, hex, &sm);
}

void
dojo_session_measurement_confirm(struct dojo_session_measurement *out,
    const struct dojo_measure_ratio *r)
{
	if (!r || r->speedup <= 0)
		return;
	out->confirmed = true;
	out->speedup = r->speedup;
	out->speedup_low = r->low;
	out->speedup_high = r->high;
}

int
dojo_session_confirm(dojo_session *s, dojo_program *prog,
    const struct dojo_measure_options *opt,
    struct dojo_session_measurement *sm)
{
	struct dojo_session_measurement bm;
	struct dojo_measurement mp, ms;
	struct dojo_measure_ratio r;
	dojo_data *want = NULL;
	char hex[41];
	git_oid best;
	int rc;

	if (!sm->measured || strcmp(sm->outcome, "ok") != 0 ||
	    sm->speedup <= 1 || sm->confirmed)
		return 0;
	if (dojo_session_best(s, sm->target, hex) == 0) {
		git_oid_fromstr(&best, hex);
		dojo_session_read_measurement(s, &best, &bm);
		if (significant(&bm) && bm.speedup >= sm->speedup)
			return 0;
	}
	rc = dojo_measure_speedup(prog, s->start, &want, opt, &mp, &ms, &r);
	dojo_data_free(want);
	if (rc < 0)
		return -1;
	dojo_session_measurement_confirm(sm, &r);
	return 0;
}

int
dojo_session_measure(dojo_session *s, const char *commit,
    const struct dojo_measure_options *opt,
    struct dojo_session_measurement *out)
{
	struct dojo_session_measurement sm;
	struct dojo_measurement m;
	dojo_program *prog;
	double start_ns;
	char hex[41];
	git_oid id;
	int rc;

	if (dojo_session_refresh(s) < 0 ||
	    dojo_session_resolve(&id, s, commit) < 0)
		return -1;
	git_oid_tostr(hex, sizeof hex, &id);
	if (dojo_session_measure_start(s, opt, &start_ns) < 0)
		return -1;
	prog = dojo_session_read_program(s, &id);
	if (!prog)
		return -1;
	rc = dojo_measure(prog, s->start, opt, &m);
	if (rc == 0) {
		dojo_session_measurement_from(&sm, &m, DOJO_TARGET_HOST, start_ns);
		sm.ops = dojo_program_ops(prog);
		rc = dojo_session_confirm(s, prog, opt, &sm);
	}
	dojo_program_free(prog);
	if (rc < 0)
		return -1;
	if (dojo_session_record(s, hex, &sm) < 0)
		return -1;
	if (out)
		*out = sm;
	return 0;
}
