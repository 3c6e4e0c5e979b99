/* verbs.h: the verbs of a session, one table for the command line
 * (perfdojo undo ...) and the explorer's ':' line (:undo ...) */
#ifndef DOJO_VERBS_H
#define DOJO_VERBS_H

#include "src/core/session.h"
#include "src/util/error.h"

struct dojo_verb {
	const char *name;
	const char *operand;	/* "ACTION", "REV", "[NAME]"; "" for none */
	const char *summary;	/* one line, for both fronts' help */
	/* What it does to the session "s", "operand" as typed (NULL when
	 * none), for "target": DOJO_DONE, DOJO_REFUSED (nowhere to go, an
	 * illegal move) or DOJO_FAILED, the reason as the last error; "step"
	 * (may be NULL) says what a step recorded.  NULL for the verbs that
	 * each front carries out its own way, into a terminal or a pane
	 * (log, emit, graph, measure). */
	enum dojo_result (*run)(__dojo_keep dojo_session *s,
	    const char *operand, const char *target,
	    __dojo_keep struct dojo_session_step *step);
};

/* The verbs, in the order both fronts list them. */
int dojo_verb_count(void);
__dojo_keep const struct dojo_verb *dojo_verb_at(int i);
/* The verb called "name", or NULL (no error set). */
__dojo_keep const struct dojo_verb *dojo_verb_find(const char *name);
/* Carry out the verb "name" as its run does; DOJO_FAILED with the error
 * set when there is no such verb or each front carries it out its own
 * way. */
enum dojo_result dojo_verb_run(const char *name, __dojo_keep dojo_session *s,
    const char *operand, const char *target,
    __dojo_keep struct dojo_session_step *step);

#endif
