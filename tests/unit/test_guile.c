/* test_guile.c: the embedding API of scripts/guile.h, called from C as
 * the explorer calls it: eval, the registries, Scheme moves and agents */
#include "config.h"

#include "targets/target.h"
#include <stdlib.h>
#include <string.h>

#include "ir/program.h"
#include "ir/moves.h"
#include "scripts/guile.h"
#include "unit.h"

int unit_failed;

static const char matmul[] =
    "A f32 [8, 12] heap in\n"
    "B f32 [12, 10] heap in\n"
    "C f32 [8, 10] heap out\n"
    "8 | 10 | C[{0}, {1}] = 0\n"
    "  |    | 12 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]\n";

/* Evaluate "expr": its result text, or "ERROR: message". */
static char *
eval(const char *expr)
{
	static char buf[1024];
	char *text = NULL;
	int rc = dojo_guile_eval(expr, &text);

	snprintf(buf, sizeof buf, "%s%s", rc < 0 ? "ERROR: " : "",
	    text ? text : "(null)");
	free(text);
	return buf;
}

static void
test_eval_values(void)
{
	CHECK_STR("3", eval("(+ 1 2)"));
	CHECK_STR("25", eval("(define x 5) (* x x)"));
	CHECK_STR("5", eval("x"));
	CHECK_STR("\"a b\"", eval("(string-append \"a\" \" b\")"));
	CHECK_STR("#<unspecified>", eval(""));
}

static void
test_eval_perfdojo(void)
{
	CHECK_STR("#t", eval("(program? (parse-program \"A f32 [4] heap out\\n"
	    "4 | A[{0}] = 1\\n\"))"));
	CHECK_STR("ERROR: nope.dojo: No such file or directory",
	    eval("(load-program \"nope.dojo\")"));
	CHECK_STR("nope.dojo: No such file or directory", dojo_error_last());
}

static void
test_eval_errors(void)
{
	CHECK(strncmp(eval("(car 1)"), "ERROR: car: Wrong type", 22) == 0);
	CHECK_STR("ERROR: Unbound variable: nothing-here",
	    eval("nothing-here"));
	CHECK(strncmp(eval("(+ 1"), "ERROR: ", 7) == 0);
	CHECK_STR("ERROR: boom 42", eval("(error \"boom\" 42)"));
	/* (exit) is an error, not the end of the process */
	CHECK_STR("ERROR: exit is not available here", eval("(exit 2)"));
	CHECK_STR("7", eval("(+ 3 4)"));
}

static void
test_registries(void)
{
	char **names;

	CHECK_STR("#<unspecified>", eval(
	    "(use-modules (srfi srfi-1))"
	    "(define-move \"fission-all\" (lambda (p) (apply-actions p "
	    "'(\"fission 0.0 1\" \"fission 0 1\"))))"
	    "(define-move 'nothing (lambda (p) p))"
	    "(define-agent \"swapper\" (lambda (p actions) (or (find "
	    "(lambda (a) (string-prefix? \"swap\" a)) actions) (car actions))))"
	    "(define-agent \"quitter\" (lambda (p actions) #f))"
	    "(define-agent \"liar\" (lambda (p actions) 42))"
	    "*unspecified*"));
	names = dojo_guile_registered("move");
	CHECK(names && names[0] && names[1] && !names[2]);
	if (names && names[0] && names[1]) {
		CHECK_STR("fission-all", names[0]);
		CHECK_STR("nothing", names[1]);
	}
	dojo_guile_names_free(names);
	names = dojo_guile_registered("agent");
	CHECK(names && names[0] && names[1] && names[2] && !names[3]);
	if (names && names[0])
		CHECK_STR("liar", names[0]);
	dojo_guile_names_free(names);
	CHECK(!dojo_guile_registered("pane"));
	CHECK_STR("unknown kind 'pane' (move or agent)", dojo_error_last());
}

static void
test_scheme_move(void)
{
	dojo_program *p = dojo_program_parse("m.dojo", matmul, strlen(matmul));
	dojo_program *q, *r, *want;
	char **names;

	CHECK(p);
	q = dojo_program_apply_text(p, "fission 0.0 1", dojo_target_machine("c"));
	want = q ? dojo_program_apply_text(q, "fission 0 1", dojo_target_machine("c")) : NULL;
	r = dojo_guile_apply_move(p, "fission-all");
	CHECK(r && want && dojo_program_equal(r, want));
	dojo_program_free(r);
	r = dojo_guile_apply_move(p, "nothing");
	CHECK(r && dojo_program_equal(r, p));
	dojo_program_free(r);
	CHECK(!dojo_guile_apply_move(p, "missing"));
	CHECK_STR("unknown move 'missing'", dojo_error_last());

	/* the legal moves a Scheme move takes, for the session */
	names = dojo_guile_move_actions(p, "fission-all");
	CHECK(names && names[0] && names[1] && !names[2]);
	if (names && names[0] && names[1]) {
		CHECK_STR("fission 0.0 1", names[0]);
		CHECK_STR("fission 0 1", names[1]);
	}
	dojo_guile_names_free(names);
	names = dojo_guile_move_actions(p, "nothing");
	CHECK(names && !names[0]);
	dojo_guile_names_free(names);
	CHECK_STR("#<unspecified>", eval("(define-move 'forged (lambda (p) "
	    "(parse-program \"x f32 [2] heap out\\n2 | x[{0}] = 1\\n\"))) "
	    "*unspecified*"));
	CHECK(!dojo_guile_move_actions(p, "forged"));
	CHECK(strstr(dojo_error_last(), "move 'forged': its program is not "
	    "reached from the state by legal moves") != NULL);
	dojo_program_free(want);
	dojo_program_free(q);
	dojo_program_free(p);
}

static void
test_scheme_agent(void)
{
	dojo_program *p = dojo_program_parse("m.dojo", matmul, strlen(matmul));
	char *a;

	a = dojo_guile_agent_choose(p, "swapper");
	CHECK_STR("swap 0", a);
	free(a);
	CHECK(!dojo_guile_agent_choose(p, "quitter"));
	CHECK_STR("", dojo_error_last());
	CHECK(!dojo_guile_agent_choose(p, "liar"));
	CHECK_STR("agent 'liar' chose 42, not an action", dojo_error_last());
	CHECK(!dojo_guile_agent_choose(p, "nobody"));
	CHECK_STR("unknown agent 'nobody'", dojo_error_last());
	dojo_program_free(p);
}

static const struct unit_test tests[] = {
	{ "eval: values, definitions kept between calls", test_eval_values },
	{ "eval: (perfdojo) is there, its errors are messages",
	    test_eval_perfdojo },
	{ "eval: errors are one line, (exit) does not exit", test_eval_errors },
	{ "registries of Scheme moves and agents from C", test_registries },
	{ "a Scheme move applied from C", test_scheme_move },
	{ "a Scheme agent asked from C", test_scheme_agent },
	{ NULL, NULL }
};

int
main(void)
{
	return unit_run(tests);
}
