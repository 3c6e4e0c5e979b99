/* guile.c: the primitives of module (perfdojo), programs and sessions as
 * foreign objects
 *
 * A program value holds a handle: the program and, made when first
 * needed, its moves for one target (the dependence analysis is done once
 * per program); a session value, a handle of the session.  Programs share
 * subtrees with non-atomic reference counts, and Guile may run finalizers
 * on its own thread, so a finalizer only moves the handle to a list of
 * dead ones; the next primitive frees them.  Live handles stay on a list
 * too, so that a leak checker sees what values still hold at exit.
 */
#include "config.h"
#include "targets/target.h"
#include "targets/cross.h"

#include <libguile.h>

#include "scripts/guile.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/data.h"
#include "ir/interp.h"
#include "ir/program.h"
#include "ir/moves.h"
#include "agents/agent.h"
#include "src/core/env.h"
#include "targets/measure.h"
#include "src/core/session.h"
#include "targets/runner.h"

/* The interpreter refuses programs whose buffers need more than this
 * (as perfdojo run does). */
#define RUN_MAX_BYTES (8ULL << 30)

/* The handle of a program value, or of a session value ("session" set,
 * "prog" NULL). */
struct handle {
	struct handle *prev, *next;	/* live: a ring; dead: "next" only */
	dojo_program *prog;
	dojo_legality *moves;		/* NULL until needed */
	char target[8];			/* the target of "moves" */
	dojo_session *session;
};

static SCM program_type, session_type;
static SCM sym_error;
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle live = { &live, &live, NULL, NULL, "", NULL };
static struct handle *dead;

/* Free the handles that finalizers gave up. */
static void
reap(void)
{
	struct handle *h, *next;

	pthread_mutex_lock(&handles_lock);
	h = dead;
	dead = NULL;
	pthread_mutex_unlock(&handles_lock);
	for (; h; h = next) {
		next = h->next;
		dojo_legality_free(h->moves);
		dojo_program_free(h->prog);
		dojo_session_free(h->session);
		free(h);
	}
}

/* The finalizer of program and session values. */
static void
finalize_handle(SCM obj)
{
	struct handle *h = scm_foreign_object_ref(obj, 0);

	if (!h)
		return;
	scm_foreign_object_set_x(obj, 0, NULL);
	pthread_mutex_lock(&handles_lock);
	h->prev->next = h->next;
	h->next->prev = h->prev;
	h->next = dead;
	dead = h;
	pthread_mutex_unlock(&handles_lock);
}

/* Throw the core's last error as (perfdojo-error MESSAGE). */
static SCM_NORETURN void
throw_last_error(void)
{
	const char *msg = dojo_error_last();

	scm_throw(sym_error, scm_list_1(scm_from_utf8_string(*msg ? msg :
	    "unknown error")));
	abort();	/* not reached */
}

/* A value of "type" for a program or a session, which it takes (freed
 * on error); on the ring of live handles. */
static SCM
wrap_handle(SCM type, __dojo_take dojo_program *prog,
    __dojo_take dojo_session *session)
{
	struct handle *h = calloc(1, sizeof *h);

	if (!h) {
		dojo_program_free(prog);
		dojo_session_free(session);
		dojo_error_set("out of memory");
		throw_last_error();
	}
	h->prog = prog;
	h->session = session;
	pthread_mutex_lock(&handles_lock);
	h->next = live.next;
	h->prev = &live;
	live.next->prev = h;
	live.next = h;
	pthread_mutex_unlock(&handles_lock);
	/* the memory is outside the collector's heap: a hint, so that a
	 * search making many programs collects the dead ones */
	scm_gc_register_allocation(4096);
	return scm_make_foreign_object_1(type, h);
}

/* A program value for "prog", which it takes (freed on error). */
static SCM
wrap_program(__dojo_take dojo_program *prog)
{
	return wrap_handle(program_type, prog, NULL);
}

/* The handle of the program value "obj", argument "pos" of "who". */
static struct handle *
unwrap_program(SCM obj, int pos, const char *who)
{
	struct handle *h;

	SCM_ASSERT_TYPE(SCM_IS_A_P(obj, program_type), obj, pos, who,
	    "program");
	h = scm_foreign_object_ref(obj, 0);
	if (!h)
		scm_misc_error(who, "program already freed: ~S",
		    scm_list_1(obj));
	return h;
}

SCM
dojo_guile_from_program(dojo_program *prog)
{
	return wrap_program(dojo_program_copy(prog));
}

dojo_program *
dojo_guile_to_program(SCM obj)
{
	return dojo_program_copy(unwrap_program(obj, 1, "program")->prog);
}

static void
check_string(SCM obj, int pos, const char *who)
{
	SCM_ASSERT_TYPE(scm_is_string(obj), obj, pos, who, "string");
}

/* The legality context of "h" for "target", kept in the handle. */
static dojo_legality *
handle_moves(struct handle *h, const char *target)
{
	if (!dojo_target_find(target))
		return NULL;
	if (h->moves && strcmp(h->target, target) == 0)
		return h->moves;
	dojo_legality_free(h->moves);
	h->moves = dojo_legality_new(h->prog, dojo_target_machine(target));
	snprintf(h->target, sizeof h->target, "%s", target);
	return h->moves;
}

#define FUNC_NAME "program?"
static SCM
prim_program_p(SCM obj)
{
	return scm_from_bool(SCM_IS_A_P(obj, program_type));
}
#undef FUNC_NAME

#define FUNC_NAME "parse-program"
static SCM
prim_parse_program(SCM text, SCM name)
{
	dojo_program *prog;
	char *t, *n;
	size_t len;

	reap();
	check_string(text, 1, FUNC_NAME);
	check_string(name, 2, FUNC_NAME);
	t = scm_to_utf8_stringn(text, &len);
	n = scm_to_utf8_string(name);
	prog = dojo_program_parse(n, t, len);
	if (prog && dojo_program_validate(prog) < 0) {
		dojo_program_free(prog);
		prog = NULL;
	}
	free(n);
	free(t);
	if (!prog)
		throw_last_error();
	return wrap_program(prog);
}
#undef FUNC_NAME

#define FUNC_NAME "load-program"
static SCM
prim_load_program(SCM path)
{
	dojo_program *prog;
	char *p;

	reap();
	check_string(path, 1, FUNC_NAME);
	p = scm_to_utf8_string(path);
	prog = dojo_program_read_file(p);
	if (prog && dojo_program_validate(prog) < 0) {
		dojo_program_free(prog);
		prog = NULL;
	}
	free(p);
	if (!prog)
		throw_last_error();
	return wrap_program(prog);
}
#undef FUNC_NAME

#define FUNC_NAME "program->string"
static SCM
prim_program_to_string(SCM p, SCM addresses)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME);
	char *text;
	SCM s;

	reap();
	text = dojo_program_print(h->prog, scm_is_true(addresses));
	if (!text) {
		dojo_error_set("out of memory");
		throw_last_error();
	}
	s = scm_from_utf8_string(text);
	free(text);
	return s;
}
#undef FUNC_NAME

#define FUNC_NAME "program-id"
static SCM
prim_program_id(SCM p)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME);
	char id[41];

	dojo_program_id(id, h->prog);
	return scm_from_utf8_string(id);
}
#undef FUNC_NAME

#define FUNC_NAME "legal-actions"
static SCM
prim_legal_actions(SCM p, SCM address, SCM target)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME);
	int path[DOJO_MAX_DEPTH], npath = 0, rc = -1, n = 0;
	char **texts = NULL;
	char *at = NULL, *t;
	dojo_legality *mv;
	SCM list = SCM_EOL;
	size_t i;

	if (scm_is_true(address))
		check_string(address, 2, FUNC_NAME);
	check_string(target, 3, FUNC_NAME);
	reap();
	t = scm_to_utf8_string(target);
	if (scm_is_true(address)) {
		at = scm_to_utf8_string(address);
		if ((npath = dojo_address_parse(path, at)) < 0)
			goto out;
		if (!dojo_program_lookup(h->prog, path, npath)) {
			dojo_error_set("no node at address %s", at);
			goto out;
		}
	}
	mv = handle_moves(h, t);
	if (!mv)
		goto out;
	n = dojo_legality_texts(mv, path, npath, &texts);
	rc = n < 0 ? -1 : 0;
out:
	free(at);
	free(t);
	if (rc != 0)
		throw_last_error();
	for (i = (size_t)n; i-- > 0;)
		list = scm_cons(scm_from_utf8_string(texts[i]), list);
	dojo_action_texts_free(texts);
	return list;
}
#undef FUNC_NAME

/* Parse "action" for "p" and find the moves for "target"; NULL with the
 * last error set. */
static dojo_legality *
action_moves(struct dojo_action *out, struct handle *h, SCM action,
    SCM target)
{
	char *a = scm_to_utf8_string(action), *t = scm_to_utf8_string(target);
	dojo_legality *mv = NULL;

	if (dojo_action_parse_in(out, a, h->prog) == 0)
		mv = handle_moves(h, t);
	free(a);
	free(t);
	return mv;
}

#define FUNC_NAME "action-refusal"
static SCM
prim_action_refusal(SCM p, SCM action, SCM target)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME);
	struct dojo_action a;
	dojo_legality *mv;

	check_string(action, 2, FUNC_NAME);
	check_string(target, 3, FUNC_NAME);
	reap();
	mv = action_moves(&a, h, action, target);
	if (!mv)
		throw_last_error();
	if (dojo_legality_check(mv, &a) == DOJO_DONE)
		return SCM_BOOL_F;
	return scm_from_utf8_string(dojo_error_last());
}
#undef FUNC_NAME

#define FUNC_NAME "apply-action"
static SCM
prim_apply_action(SCM p, SCM action, SCM target)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME);
	struct dojo_action a;
	dojo_program *next;
	dojo_legality *mv;

	check_string(action, 2, FUNC_NAME);
	check_string(target, 3, FUNC_NAME);
	reap();
	mv = action_moves(&a, h, action, target);
	if (!mv || !(next = dojo_legality_apply(mv, &a)))
		throw_last_error();
	return wrap_program(next);
}
#undef FUNC_NAME

/* The checksum of buffer "b" as an alist: sum, abs, hash, as
 * dojo_data_print_checksum writes them. */
static SCM
checksum(dojo_data *data, int b)
{
	char *line = NULL, hash[32] = "";
	size_t len = 0;
	double sum = 0, abs_sum = 0;
	FILE *f = open_memstream(&line, &len);

	if (f) {
		dojo_data_print_checksum(f, data, b);
		fclose(f);
	}
	if (!line || sscanf(line, "%*s sum=%lf abs=%lf hash=%31s", &sum,
	    &abs_sum, hash) != 3) {
		free(line);
		return SCM_BOOL_F;
	}
	free(line);
	return scm_list_3(scm_cons(scm_from_utf8_symbol("sum"),
	    scm_from_double(sum)),
	    scm_cons(scm_from_utf8_symbol("abs"), scm_from_double(abs_sum)),
	    scm_cons(scm_from_utf8_symbol("hash"), scm_from_utf8_string(hash)));
}

#define FUNC_NAME "run-program"
static SCM
prim_run_program(SCM p, SCM target, SCM seed, SCM timeout)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME);
	struct dojo_run_options ropt = { NULL, NULL, 60, DOJO_RUN_MEMORY };
	struct dojo_run_result res;
	const struct dojo_target *tg = NULL;
	dojo_program *prog = h->prog;
	const char *file;
	enum dojo_role role;
	uint64_t s;
	dojo_data *data;
	char *t;
	SCM out = SCM_EOL;
	int b, rc = -1;

	check_string(target, 2, FUNC_NAME);
	s = scm_to_uint64(seed);
	ropt.timeout = scm_to_double(timeout);
	if (!(ropt.timeout > 0))
		scm_out_of_range(FUNC_NAME, timeout);
	reap();
	t = scm_to_utf8_string(target);
	if (strcmp(t, "interp") && !(tg = dojo_target_runnable(t))) {
		dojo_error_set("unknown target '%s' (interp, or a target "
		    "whose code runs: c, aarch64, riscv64)", t);
		free(t);
		throw_last_error();
	}
	data = dojo_data_new(prog, RUN_MAX_BYTES);
	if (!data)
		goto out;
	dojo_data_randomize(data, s);
	if (tg) {
		/* a cross target through qemu-user or its runner */
		struct dojo_cross_options xo = { dojo_target_variant(t), NULL,
		    NULL, dojo_c_exact(NULL), ropt.timeout, 0 };
		struct dojo_cross_result xr;

		if (tg->cross) {
			if (dojo_cross_run(tg->cross, prog, data, &xo, &xr) < 0)
				goto out;
			res = xr.run;
		} else if (dojo_c_run(prog, data, &ropt, &res) < 0) {
			goto out;
		}
		if (res.outcome != DOJO_OUTCOME_OK) {
			file = dojo_program_file(prog);
			dojo_error_set("%s: %s: %s", file ? file : "<program>",
			    dojo_outcome_name(res.outcome), res.message);
			goto out;
		}
	} else if (dojo_interp_run(prog, data) < 0) {
		goto out;
	}
	rc = 0;
out:
	free(t);
	if (rc < 0) {
		dojo_data_free(data);
		throw_last_error();
	}
	for (b = dojo_program_n_buffers(prog) - 1; b >= 0; b--) {
		role = dojo_buffer_role(prog, b);
		if (role == DOJO_OUT || role == DOJO_INOUT)
			out = scm_cons(scm_cons(scm_from_utf8_string(
			    dojo_buffer_name(prog, b)), checksum(data, b)), out);
	}
	dojo_data_free(data);
	return out;
}
#undef FUNC_NAME

static SCM
pair(const char *key, SCM value)
{
	return scm_cons(scm_from_utf8_symbol(key), value);
}

#define FUNC_NAME "measure"
static SCM
prim_measure(SCM p, SCM baseline, SCM db, SCM fresh, SCM timeout,
    SCM cflags, SCM seconds, SCM precision)
{
	struct handle *h = unwrap_program(p, 1, FUNC_NAME), *bh = NULL;
	struct dojo_measure_options opt;
	struct dojo_measurement m, base;
	struct dojo_measure_ratio r;
	dojo_data *want = NULL;
	char *dbs = NULL, *cf = NULL;
	bool ok;
	int rc;

	if (scm_is_true(baseline))
		bh = unwrap_program(baseline, 2, FUNC_NAME);
	if (scm_is_true(db))
		check_string(db, 3, FUNC_NAME);
	if (scm_is_true(cflags))
		check_string(cflags, 6, FUNC_NAME);
	dojo_measure_options_init(&opt);
	opt.fresh = scm_is_true(fresh);
	opt.run.timeout = scm_to_double(timeout);
	if (!(opt.run.timeout > 0))
		scm_out_of_range(FUNC_NAME, timeout);
	opt.run.budget = scm_to_double(seconds);
	if (!(opt.run.budget > 0))
		scm_out_of_range(FUNC_NAME, seconds);
	opt.run.precision = scm_to_double(precision);
	if (!(opt.run.precision > 0))
		scm_out_of_range(FUNC_NAME, precision);
	reap();
	if (scm_is_true(db))
		opt.db = dbs = scm_to_utf8_string(db);
	if (scm_is_true(cflags))
		opt.run.cflags = cf = scm_to_utf8_string(cflags);
	/* the baseline is the reference the outputs are checked against,
	 * the two timed in alternate runs */
	memset(&r, 0, sizeof r);
	if (bh) {
		rc = dojo_measure_speedup(h->prog, bh->prog, &want, &opt, &m,
		    &base, &r);
		dojo_data_free(want);
	} else {
		rc = dojo_measure(h->prog, NULL, &opt, &m);
	}
	free(dbs);
	free(cf);
	if (rc < 0)
		throw_last_error();
	if (bh && base.outcome != DOJO_OUTCOME_OK)
		scm_misc_error(FUNC_NAME, "the baseline failed: ~A: ~A",
		    scm_list_2(scm_from_utf8_string(dojo_outcome_name(
		    base.outcome)), scm_from_utf8_string(base.message)));
	ok = m.outcome == DOJO_OUTCOME_OK;
	return scm_list_n(
	    pair("outcome", scm_from_utf8_string(dojo_outcome_name(m.outcome))),
	    pair("message", scm_from_utf8_string(m.message)),
	    pair("median", ok ? scm_from_double(m.median_ns) : SCM_BOOL_F),
	    pair("interval", ok ? scm_cons(scm_from_double(m.ci_low_ns),
		scm_from_double(m.ci_high_ns)) : SCM_BOOL_F),
	    pair("speedup", r.speedup > 0 ? scm_from_double(r.speedup) :
		SCM_BOOL_F),
	    pair("speedup-interval", r.speedup > 0 ?
		scm_cons(scm_from_double(r.low), scm_from_double(r.high)) :
		SCM_BOOL_F),
	    pair("speedup-disturbed", scm_from_bool(r.disturbed)),
	    pair("reps", scm_from_int(m.reps)),
	    pair("runs", scm_from_int(m.runs)),
	    pair("spread", scm_from_double(m.spread)),
	    pair("disturbed", scm_from_bool(m.disturbed)),
	    pair("cached", scm_from_bool(m.cached)),
	    pair("state", scm_from_utf8_string(m.state)),
	    pair("fingerprint", scm_from_utf8_string(m.fingerprint)),
	    SCM_UNDEFINED);
}
#undef FUNC_NAME

/* Sessions (src/core/session.h). */

static SCM
wrap_session(__dojo_take dojo_session *session)
{
	return wrap_handle(session_type, NULL, session);
}

static dojo_session *
unwrap_session(SCM obj, int pos, const char *who)
{
	struct handle *h;

	SCM_ASSERT_TYPE(SCM_IS_A_P(obj, session_type), obj, pos, who,
	    "session");
	h = scm_foreign_object_ref(obj, 0);
	if (!h)
		scm_misc_error(who, "session already freed: ~S",
		    scm_list_1(obj));
	return h->session;
}

#define FUNC_NAME "session?"
static SCM
prim_session_p(SCM obj)
{
	return scm_from_bool(SCM_IS_A_P(obj, session_type));
}
#undef FUNC_NAME

#define FUNC_NAME "open-session"
static SCM
prim_open_session(SCM path, SCM p)
{
	struct handle *h = NULL;
	dojo_session *session;
	char *dir;

	check_string(path, 1, FUNC_NAME);
	if (scm_is_true(p))
		h = unwrap_program(p, 2, FUNC_NAME);
	reap();
	dir = scm_to_utf8_string(path);
	if (h && access(dir, F_OK) != 0)
		session = dojo_session_create(dir, h->prog,
		    dojo_program_file(h->prog));
	else
		session = dojo_session_open(dir);
	free(dir);
	if (!session)
		throw_last_error();
	return wrap_session(session);
}
#undef FUNC_NAME

#define FUNC_NAME "session-current"
static SCM
prim_session_current(SCM s)
{
	dojo_session *session = unwrap_session(s, 1, FUNC_NAME);

	reap();
	return dojo_guile_from_program(dojo_session_program(session));
}
#undef FUNC_NAME

#define FUNC_NAME "session-head"
static SCM
prim_session_head(SCM s)
{
	dojo_session *session = unwrap_session(s, 1, FUNC_NAME);

	return scm_from_utf8_string(dojo_session_head(session));
}
#undef FUNC_NAME

#define FUNC_NAME "session-step!"
static SCM
prim_session_step(SCM s, SCM action, SCM target)
{
	dojo_session *session = unwrap_session(s, 1, FUNC_NAME);
	struct dojo_session_step st;
	char *a, *t;
	int rc;

	check_string(action, 2, FUNC_NAME);
	check_string(target, 3, FUNC_NAME);
	reap();
	a = scm_to_utf8_string(action);
	t = scm_to_utf8_string(target);
	rc = dojo_session_apply(session, a, t, &st);
	free(a);
	free(t);
	if (rc != DOJO_DONE)
		throw_last_error();
	return dojo_guile_from_program(dojo_session_program(session));
}
#undef FUNC_NAME

/* Undo, redo, checkout, branch: a move in the tree, then the current
 * program. */
static SCM
session_move(SCM s, SCM arg, const char *who, int which)
{
	dojo_session *session = unwrap_session(s, 1, who);
	char *text = NULL;
	int rc;

	if (which >= 2)
		check_string(arg, 2, who);
	reap();
	if (which >= 2)
		text = scm_to_utf8_string(arg);
	rc = which == 0 ? dojo_session_undo(session) :
	    which == 1 ? dojo_session_redo(session) :
	    which == 2 ? dojo_session_jump(session, text) :
	    dojo_session_branch_create(session, text);
	free(text);
	if (rc != DOJO_DONE)
		throw_last_error();
	return dojo_guile_from_program(dojo_session_program(session));
}

static SCM
prim_session_undo(SCM s)
{
	return session_move(s, SCM_BOOL_F, "session-undo!", 0);
}

static SCM
prim_session_redo(SCM s)
{
	return session_move(s, SCM_BOOL_F, "session-redo!", 1);
}

static SCM
prim_session_checkout(SCM s, SCM rev)
{
	return session_move(s, rev, "session-checkout!", 2);
}

static SCM
prim_session_branch(SCM s, SCM name)
{
	return session_move(s, name, "session-branch!", 3);
}

static int
log_entry(const struct dojo_session_entry *e, void *payload)
{
	SCM *list = payload;
	const struct dojo_session_measurement *m = &e->m;
	bool ok = m->measured && strcmp(m->outcome, "ok") == 0;

	*list = scm_cons(scm_list_n(
	    pair("commit", scm_from_utf8_string(e->commit)),
	    pair("parent", e->parent[0] ? scm_from_utf8_string(e->parent) :
		SCM_BOOL_F),
	    pair("action", e->parent[0] ? scm_from_utf8_string(e->action) :
		SCM_BOOL_F),
	    pair("state", scm_from_utf8_string(e->state)),
	    pair("depth", scm_from_int(e->depth)),
	    pair("current", scm_from_bool(e->current)),
	    pair("branches", scm_from_utf8_string(e->branches)),
	    pair("outcome", m->measured ? scm_from_utf8_string(m->outcome) :
		SCM_BOOL_F),
	    pair("median", ok ? scm_from_double(m->median_ns) : SCM_BOOL_F),
	    pair("speedup", ok && m->speedup > 0 ?
		scm_from_double(m->speedup) : SCM_BOOL_F),
	    SCM_UNDEFINED), *list);
	return 0;
}

#define FUNC_NAME "session-log"
static SCM
prim_session_log(SCM s)
{
	dojo_session *session = unwrap_session(s, 1, FUNC_NAME);
	SCM list = SCM_EOL;

	reap();
	if (dojo_session_walk(session, log_entry, &list) < 0)
		throw_last_error();
	return scm_reverse_x(list, SCM_EOL);
}
#undef FUNC_NAME

#define FUNC_NAME "session-measure!"
static SCM
prim_session_measure(SCM s, SCM db, SCM timeout, SCM seconds)
{
	dojo_session *session = unwrap_session(s, 1, FUNC_NAME);
	struct dojo_session_measurement m;
	struct dojo_measure_options opt;
	char *dbs = NULL;
	int rc;
	bool ok;

	if (scm_is_true(db))
		check_string(db, 2, FUNC_NAME);
	dojo_measure_options_init(&opt);
	opt.run.timeout = scm_to_double(timeout);
	opt.run.budget = scm_to_double(seconds);
	if (!(opt.run.timeout > 0))
		scm_out_of_range(FUNC_NAME, timeout);
	if (!(opt.run.budget > 0))
		scm_out_of_range(FUNC_NAME, seconds);
	reap();
	if (scm_is_true(db))
		opt.db = dbs = scm_to_utf8_string(db);
	rc = dojo_session_measure(session, NULL, &opt, &m);
	free(dbs);
	if (rc < 0)
		throw_last_error();
	ok = strcmp(m.outcome, "ok") == 0;
	return scm_list_n(
	    pair("outcome", scm_from_utf8_string(m.outcome)),
	    pair("median", ok ? scm_from_double(m.median_ns) : SCM_BOOL_F),
	    pair("interval", ok ? scm_cons(scm_from_double(m.ci_low_ns),
		scm_from_double(m.ci_high_ns)) : SCM_BOOL_F),
	    pair("speedup", ok && m.speedup > 0 ? scm_from_double(m.speedup) :
		SCM_BOOL_F),
	    SCM_UNDEFINED);
}
#undef FUNC_NAME

#define FUNC_NAME "run-agent"
static SCM
prim_run_agent(SCM name, SCM p, SCM budget, SCM seed, SCM db)
{
	struct handle *h = unwrap_program(p, 2, FUNC_NAME);
	const struct dojo_agent *agent;
	struct dojo_agent_options aopt;
	struct dojo_env_options eo;
	dojo_player *player = NULL;
	dojo_env *env = NULL;
	char *n, *dbs = NULL;
	int best, len, *path = NULL, k, rc = -1;
	SCM actions = SCM_EOL, result = SCM_BOOL_F;

	check_string(name, 1, FUNC_NAME);
	if (scm_is_true(db))
		check_string(db, 5, FUNC_NAME);
	dojo_env_options_init(&eo);
	eo.budget = scm_to_int(budget);
	if (eo.budget < 1)
		scm_out_of_range(FUNC_NAME, budget);
	dojo_agent_options_init(&aopt);
	aopt.seed = scm_to_uint64(seed);
	reap();
	n = scm_to_utf8_string(name);
	agent = dojo_agent_find(n);
	free(n);
	if (!agent)
		throw_last_error();
	if (agent == &dojo_agent_auto)
		aopt.model = dojo_agent_default_model();
	if (scm_is_true(db))
		eo.measure.db = dbs = scm_to_utf8_string(db);
	env = dojo_env_new(h->prog, &eo);
	if (env && (player = dojo_player_new(agent, env, &aopt)) &&
	    dojo_player_run(player) >= 0) {
		best = dojo_env_best(env);
		len = dojo_env_depth(env, best) + 1;
		path = malloc(len * sizeof *path);
		if (path) {
			dojo_env_path(env, best, path, len);
			for (k = len - 1; k > 0; k--)
				actions = scm_cons(scm_from_utf8_string(
				    dojo_env_action(env, path[k])), actions);
			result = scm_list_n(
			    pair("program", dojo_guile_from_program(
				dojo_env_program(env, best))),
			    pair("speedup", scm_from_double(exp(
				dojo_env_reward(env, best)))),
			    pair("actions", actions),
			    pair("measurements", scm_from_int(
				dojo_env_used(env))),
			    SCM_UNDEFINED);
			rc = 0;
		} else {
			dojo_error_set("out of memory");
		}
	}
	free(path);
	free(dbs);
	dojo_player_free(player);
	dojo_env_free(env);
	if (rc < 0)
		throw_last_error();
	return result;
}
#undef FUNC_NAME

void
dojo_guile_init(void)
{
	if (!program_type) {
		program_type = scm_make_foreign_object_type(
		    scm_from_utf8_symbol("program"),
		    scm_list_1(scm_from_utf8_symbol("handle")),
		    finalize_handle);
		scm_gc_protect_object(program_type);
		sym_error = scm_gc_protect_object(
		    scm_from_utf8_symbol("perfdojo-error"));
		session_type = scm_make_foreign_object_type(
		    scm_from_utf8_symbol("session"),
		    scm_list_1(scm_from_utf8_symbol("handle")),
		    finalize_handle);
		scm_gc_protect_object(session_type);
	}
	scm_c_define_gsubr("%program?", 1, 0, 0, prim_program_p);
	scm_c_define_gsubr("%parse-program", 2, 0, 0, prim_parse_program);
	scm_c_define_gsubr("%load-program", 1, 0, 0, prim_load_program);
	scm_c_define_gsubr("%program->string", 2, 0, 0,
	    prim_program_to_string);
	scm_c_define_gsubr("%program-id", 1, 0, 0, prim_program_id);
	scm_c_define_gsubr("%legal-actions", 3, 0, 0, prim_legal_actions);
	scm_c_define_gsubr("%action-refusal", 3, 0, 0, prim_action_refusal);
	scm_c_define_gsubr("%apply-action", 3, 0, 0, prim_apply_action);
	scm_c_define_gsubr("%run-program", 4, 0, 0, prim_run_program);
	scm_c_define_gsubr("%measure", 8, 0, 0, prim_measure);
	scm_c_define_gsubr("%session?", 1, 0, 0, prim_session_p);
	scm_c_define_gsubr("%open-session", 2, 0, 0, prim_open_session);
	scm_c_define_gsubr("%session-current", 1, 0, 0, prim_session_current);
	scm_c_define_gsubr("%session-head", 1, 0, 0, prim_session_head);
	scm_c_define_gsubr("%session-step!", 3, 0, 0, prim_session_step);
	scm_c_define_gsubr("%session-undo!", 1, 0, 0, prim_session_undo);
	scm_c_define_gsubr("%session-redo!", 1, 0, 0, prim_session_redo);
	scm_c_define_gsubr("%session-checkout!", 2, 0, 0,
	    prim_session_checkout);
	scm_c_define_gsubr("%session-branch!", 2, 0, 0, prim_session_branch);
	scm_c_define_gsubr("%session-log", 1, 0, 0, prim_session_log);
	scm_c_define_gsubr("%session-measure!", 4, 0, 0, prim_session_measure);
	scm_c_define_gsubr("%run-agent", 5, 0, 0, prim_run_agent);
}
