/* verbs.c: the verbs of a session, one table for both fronts */
#include "config.h"
#include "src/core/verbs.h"

#include <stdio.h>
#include <string.h>

static enum dojo_result
verb_apply(dojo_session *s, const char *operand, const char *target,
    struct dojo_session_step *step)
{
	struct dojo_session_step st;

	if (!operand || !*operand) {
		dojo_error_set("apply: which move? (apply ACTION)");
		return DOJO_REFUSED;
	}
	return dojo_session_apply(s, operand, target, step ? step : &st);
}

static enum dojo_result
verb_undo(dojo_session *s, const char *operand, const char *target,
    struct dojo_session_step *step)
{
	return dojo_session_undo(s);
}

static enum dojo_result
verb_redo(dojo_session *s, const char *operand, const char *target,
    struct dojo_session_step *step)
{
	return dojo_session_redo(s);
}

static enum dojo_result
verb_checkout(dojo_session *s, const char *operand, const char *target,
    struct dojo_session_step *step)
{
	char tag[64];

	if (!operand) {
		dojo_error_set("checkout: which state? (checkout REV)");
		return DOJO_REFUSED;
	}
	/* "best": the best state for the target, the tag best/TARGET */
	return dojo_session_jump(s, dojo_session_rev(tag, operand, target));
}

/* With no name, the verb only says where it is: each front lists the
 * branches its own way. */
static enum dojo_result
verb_branch(dojo_session *s, const char *operand, const char *target,
    struct dojo_session_step *step)
{
	return operand ? dojo_session_branch_create(s, operand) : DOJO_DONE;
}

static const struct dojo_verb verbs[] = {
	{ "apply", "ACTION", "take a move and record the step", verb_apply },
	{ "measure", "", "measure the current state and record it", NULL },
	{ "undo", "", "go back to the parent state (the child stays in the "
	  "session)", verb_undo },
	{ "redo", "", "go forward to the child state towards the branch's "
	  "tip", verb_redo },
	{ "checkout", "REV", "go to a state: a commit, branch, tag, "
	  "HEAD~N, or best (the tag best/TARGET)", verb_checkout },
	{ "branch", "[NAME]", "start a branch at the current state (none: "
	  "the branches)", verb_branch },
	{ "log", "", "list the session's states", NULL },
	{ "emit", "", "the code generated for the current state", NULL },
	{ "graph", "[around|all|history|off]", "the dependence graph, or the "
	  "session's tree", NULL },
};
static const int n_verbs = sizeof verbs / sizeof *verbs;

int
dojo_verb_count(void)
{
	return n_verbs;
}

const struct dojo_verb *
dojo_verb_at(int i)
{
	return i >= 0 && i < n_verbs ? &verbs[i] : NULL;
}

enum dojo_result
dojo_verb_run(const char *name, dojo_session *s, const char *operand,
    const char *target, struct dojo_session_step *step)
{
	const struct dojo_verb *v = dojo_verb_find(name);

	if (!v || !v->run) {
		dojo_error_set("%s: not a verb that a session carries out",
		    name);
		return DOJO_FAILED;
	}
	return v->run(s, operand, target, step);
}

const struct dojo_verb *
dojo_verb_find(const char *name)
{
	int i;

	for (i = 0; i < n_verbs; i++)
		if (strcmp(verbs[i].name, name) == 0)
			return &verbs[i];
	return NULL;
}
