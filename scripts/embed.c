/* embed.c: Guile inside perfdojo: the module built in, scripts, eval
 *
 * The module's Scheme text (scripts/perfdojo.scm) is built into the
 * program (scripts/module.c, generated), and the extension it loads is
 * registered in-process, so the command needs nothing installed and
 * always speaks its own version of the module.  Every call into Scheme
 * goes through call_scheme: one catch, which turns any error into a
 * one-line message (with the script's file, line and column when the
 * error's source or the stack has them) and never exits.
 */
#include "config.h"

#include <libguile.h>

#include "scripts/guile.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util/error.h"

extern const char dojo_guile_module_text[];

/* One call into Scheme and what came of it. */
struct call {
	SCM (*body)(void *payload);
	void *payload;
	const char *file;	/* the script running, for locations */
	SCM stack;		/* at the throw */
	SCM value;
	char *error;		/* malloc'ed message, after an error */
	bool quit;		/* (exit) was called */
	int status;		/* its status */
};

static SCM
call_body(void *data)
{
	struct call *c = data;

	return c->body(c->payload);
}

static SCM
call_pre_unwind(void *data, SCM key, SCM args)
{
	struct call *c = data;

	if (!scm_is_eq(key, scm_from_utf8_symbol("quit")))
		c->stack = scm_make_stack(SCM_BOOL_T, SCM_EOL);
	return SCM_UNSPECIFIED;
}

struct format_args {
	struct call *c;
	SCM key, args;
};

static SCM
format_body(void *data)
{
	struct format_args *f = data;

	return scm_call_4(scm_c_private_ref("perfdojo", "%error-message"),
	    f->key, f->args, f->c->stack, f->c->file ?
	    scm_from_utf8_string(f->c->file) : SCM_BOOL_F);
}

/* When the module itself is broken: the plain key and arguments. */
static SCM
format_fallback(void *data, SCM key, SCM args)
{
	struct format_args *f = data;

	return scm_simple_format(SCM_BOOL_F,
	    scm_from_utf8_string("uncaught exception ~S: ~S"),
	    scm_list_2(f->key, f->args));
}

static SCM
call_handler(void *data, SCM key, SCM args)
{
	struct call *c = data;
	struct format_args f = { c, key, args };
	SCM msg;

	if (scm_is_eq(key, scm_from_utf8_symbol("quit"))) {
		c->quit = true;
		c->status = 0;
		if (scm_is_pair(args) && scm_is_integer(scm_car(args)))
			c->status = scm_to_int(scm_car(args));
		else if (scm_is_pair(args) && scm_is_false(scm_car(args)))
			c->status = 1;
		c->error = strdup("exit called");
		return SCM_BOOL_F;
	}
	msg = scm_c_catch(SCM_BOOL_T, format_body, &f, format_fallback, &f,
	    NULL, NULL);
	c->error = scm_is_string(msg) ? scm_to_utf8_string(msg) :
	    strdup("unknown error");
	return SCM_BOOL_F;
}

/* Call "c->body" under the catch; 0, or -1 with "c->error" set (and the
 * core's last error too). */
static int
call_scheme(struct call *c)
{
	c->stack = SCM_BOOL_F;
	c->error = NULL;
	c->quit = false;
	c->value = scm_c_catch(SCM_BOOL_T, call_body, c, call_handler, c,
	    call_pre_unwind, c);
	if (!c->error)
		return 0;
	dojo_error_set("%s", c->error);
	return -1;
}

static void
init_extension(void *unused)
{
	dojo_guile_init();
}

static SCM
define_module_body(void *unused)
{
	SCM port, form;

	port = scm_open_input_string(scm_from_utf8_string(
	    dojo_guile_module_text));
	scm_set_port_filename_x(port, scm_from_utf8_string("perfdojo.scm"));
	while (!SCM_EOF_OBJECT_P(form = scm_read(port)))
		scm_primitive_eval(form);
	return SCM_UNSPECIFIED;
}

static SCM
define_module_in(void *c)
{
	return scm_from_int(call_scheme(c));
}

/* Define the module (perfdojo) in this process, once.  0 or -1 with the
 * last error set. */
static int
define_module(void)
{
	static int state;	/* 0: not yet, 1: done, -1: failed */
	struct call c = { define_module_body, NULL, NULL };
	static char *error;

	if (state == 0) {
		scm_c_register_extension("guile-perfdojo", "dojo_guile_init",
		    init_extension, NULL);
		state = scm_to_int(scm_c_call_with_current_module(
		    scm_c_resolve_module("guile-user"), define_module_in,
		    &c)) < 0 ? -1 : 1;
		error = c.error;
	}
	if (state < 0)
		return dojo_error_set("the module (perfdojo): %s", error);
	return 0;
}

struct script {
	const char *file;
	int argc;
	char **argv;
	int status;
};

static SCM
script_body(void *data)
{
	struct script *s = data;

	return scm_call_1(scm_c_private_ref("perfdojo", "%load-script"),
	    scm_from_locale_string(s->file));
}

static void *
run_script(void *data)
{
	struct script *s = data;
	struct call c = { script_body, s, s->file };
	SCM args = SCM_EOL;
	int i;

	s->status = 1;
	if (define_module() < 0) {
		fprintf(stderr, "perfdojo: %s\n", dojo_error_last());
		return NULL;
	}
	for (i = s->argc - 1; i >= 0; i--)
		args = scm_cons(scm_from_locale_string(s->argv[i]), args);
	scm_set_program_arguments_scm(scm_cons(scm_from_locale_string(
	    s->file), args));
	s->status = call_scheme(&c) == 0 ? 0 : c.quit ? c.status : 1;
	scm_flush_all_ports();
	if (c.error && !c.quit)
		fprintf(stderr, "perfdojo: %s\n", c.error);
	free(c.error);
	return NULL;
}

int
dojo_guile_run_script(const char *file, int argc, char **argv)
{
	struct script s = { file, argc, argv, 1 };

	scm_with_guile(run_script, &s);
	return s.status;
}

struct eval {
	const char *expr;
	char *text;
	int rc;
};

static SCM
eval_body(void *data)
{
	struct eval *e = data;

	return scm_call_1(scm_c_private_ref("perfdojo", "%eval-string"),
	    scm_from_utf8_string(e->expr));
}

static void *
eval_in_guile(void *data)
{
	struct eval *e = data;
	struct call c = { eval_body, e, NULL };

	e->rc = -1;
	if (define_module() < 0) {
		e->text = strdup(dojo_error_last());
		return NULL;
	}
	if (call_scheme(&c) < 0) {
		if (c.quit) {
			free(c.error);
			c.error = strdup("exit is not available here");
			dojo_error_set("%s", c.error);
		}
		e->text = c.error;
		return NULL;
	}
	e->text = scm_to_utf8_string(c.value);
	e->rc = 0;
	return NULL;
}

int
dojo_guile_eval(const char *expr, char **out_text)
{
	struct eval e = { expr, NULL, -1 };

	scm_with_guile(eval_in_guile, &e);
	*out_text = e.text;
	if (!e.text) {
		dojo_error_set("out of memory");
		return -1;
	}
	return e.rc;
}

/* A call of the procedure "name" of (perfdojo) on up to two arguments:
 * a program and a string. */
struct named_call {
	const char *proc;
	dojo_program *prog;	/* NULL: no arguments */
	const char *name;
};

static SCM
named_call_body(void *data)
{
	struct named_call *n = data;
	SCM proc = scm_c_public_ref("perfdojo", n->proc);

	if (!n->prog)
		return scm_call_0(proc);
	return scm_call_2(proc, dojo_guile_from_program(n->prog),
	    scm_from_utf8_string(n->name));
}

struct named_result {
	struct named_call n;
	char **names;
	dojo_program *prog;
	char *action;
};

static void *
named_call_in_guile(void *data)
{
	struct named_result *r = data;
	struct call c = { named_call_body, &r->n, NULL };
	size_t i = 0, n;
	SCM v;

	if (define_module() < 0 || call_scheme(&c) < 0) {
		free(c.error);
		return NULL;
	}
	v = c.value;
	if (!r->n.prog || strcmp(r->n.proc, "move-actions") == 0) {
		/* a list of names or actions */
		n = scm_to_size_t(scm_length(v));
		if (!(r->names = calloc(n + 1, sizeof *r->names)))
			return NULL;
		for (; scm_is_pair(v); v = scm_cdr(v))
			if (scm_is_string(scm_car(v)))
				r->names[i++] = scm_to_utf8_string(scm_car(v));
	} else if (strcmp(r->n.proc, "apply-move") == 0) {
		r->prog = dojo_guile_to_program(v);
	} else if (scm_is_string(v)) {
		r->action = scm_to_utf8_string(v);
	} else {
		dojo_error_clear();	/* the agent stops */
	}
	return NULL;
}

char **
dojo_guile_registered(const char *kind)
{
	struct named_result r = { { NULL, NULL, NULL } };

	if (strcmp(kind, "move") == 0)
		r.n.proc = "registered-moves";
	else if (strcmp(kind, "agent") == 0)
		r.n.proc = "registered-agents";
	else {
		dojo_error_set("unknown kind '%s' (move or agent)", kind);
		return NULL;
	}
	scm_with_guile(named_call_in_guile, &r);
	return r.names;
}

void
dojo_guile_names_free(char **names)
{
	size_t i;

	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

dojo_program *
dojo_guile_apply_move(dojo_program *prog, const char *name)
{
	struct named_result r = { { "apply-move", prog, name } };

	scm_with_guile(named_call_in_guile, &r);
	return r.prog;
}

char **
dojo_guile_move_actions(dojo_program *prog, const char *name)
{
	struct named_result r = { { "move-actions", prog, name } };

	scm_with_guile(named_call_in_guile, &r);
	return r.names;
}

char *
dojo_guile_agent_choose(dojo_program *prog, const char *name)
{
	struct named_result r = { { "agent-choose", prog, name } };

	scm_with_guile(named_call_in_guile, &r);
	return r.action;
}

/* A call of the private procedure "proc" of (perfdojo) on a program (or
 * #f), and two strings (or #f); its value as text. */
struct text_call {
	const char *proc;
	dojo_program *prog;
	const char *a, *b;
	char *out;
	bool is_false;
};

static SCM
text_call_body(void *data)
{
	struct text_call *t = data;

	return scm_call_3(scm_c_private_ref("perfdojo", t->proc),
	    t->prog ? dojo_guile_from_program(t->prog) : SCM_BOOL_F,
	    t->a ? scm_from_utf8_string(t->a) : SCM_BOOL_F,
	    t->b ? scm_from_utf8_string(t->b) : SCM_BOOL_F);
}

static void *
text_call_in_guile(void *data)
{
	struct text_call *t = data;
	struct call c = { text_call_body, t, NULL };

	if (define_module() < 0)
		return NULL;
	if (call_scheme(&c) < 0) {
		if (c.quit) {
			free(c.error);
			dojo_error_set("exit is not available here");
		} else {
			free(c.error);
		}
		return NULL;
	}
	if (scm_is_string(c.value))
		t->out = scm_to_utf8_string(c.value);
	else if (scm_is_false(c.value))
		t->is_false = true;
	else
		t->out = scm_to_utf8_string(scm_object_to_string(c.value,
		    SCM_UNDEFINED));
	return NULL;
}

int
dojo_guile_explore_eval(dojo_program *prog, const char *session,
    const char *expr, char **out_text)
{
	struct text_call t = { "%explorer-eval", prog, session, expr, NULL,
	    false };

	scm_with_guile(text_call_in_guile, &t);
	*out_text = t.out;
	return t.out ? 0 : -1;
}

char *
dojo_guile_key_command(dojo_program *prog, const char *key)
{
	struct text_call t = { "%key-command", prog, key, NULL, NULL, false };

	scm_with_guile(text_call_in_guile, &t);
	if (t.is_false)
		dojo_error_clear();
	return t.out;
}
