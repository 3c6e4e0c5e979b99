/* test_agents.c: the Max-Q core on a hand-made MDP, models saved and
 * loaded, the external encoder's protocol, and every agent on a kernel
 * whose "time" is a function of its text (no compiler) */
#include "config.h"
#include "agents/agent.h"
#include "ir/interp.h"
#include "agents/encode.h"
#include "agents/maxq.h"
#include "agents/qnet.h"
#include "src/util/error.h"
#include "ir/program.h"
#include "src/core/env.h"
#include "tests/unit/unit.h"
#include "targets/target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int unit_failed;

static char tmpdir[] = "/tmp/perfdojo-agents.XXXXXX";

/* The MDP: s0 -a-> s1 (r 0.1), s1 -b-> s2 (r 1.0, no actions), s0 -c->
 * s3 (r 0.5, no actions).  With gamma 0.9 the Max-Q values are
 * Q(s1,b) = 1, Q(s0,a) = max(0.1, 0.9 * 1) = 0.9, Q(s0,c) = 0.5: the path
 * through a is worth more although c pays more at once. */
static void
test_mdp(void)
{
	static const float x[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	const double r[3] = { 0.1, 0.5, 1.0 };	/* a, c, b */
	/* the pairs of the state reached: a -> s1 {b}; c, b -> none */
	float xs[3 * 3];
	double ys[3], qn;
	dojo_qnet *q = dojo_qnet_new(3, 16, 7);
	int it, k;

	CHECK(q != NULL);
	if (!q)
		return;
	memcpy(xs, x, sizeof xs);
	for (it = 0; it < 3000; it++) {
		qn = dojo_qnet_eval(q, x[2], true);
		ys[0] = dojo_maxq_target(r[0], false, 0.9, &qn, 1);
		ys[1] = dojo_maxq_target(r[1], false, 0.9, NULL, 0);
		ys[2] = dojo_maxq_target(r[2], false, 0.9, NULL, 0);
		dojo_qnet_train(q, xs, ys, 3, 1e-2);
		if (it % 20 == 19)
			dojo_qnet_sync(q);
	}
	printf("# Q(s0,a) %.3f Q(s0,c) %.3f Q(s1,b) %.3f\n",
	    dojo_qnet_eval(q, x[0], false), dojo_qnet_eval(q, x[1], false),
	    dojo_qnet_eval(q, x[2], false));
	CHECK(fabs(dojo_qnet_eval(q, x[2], false) - 1.0) < 0.02);
	CHECK(fabs(dojo_qnet_eval(q, x[0], false) - 0.9) < 0.02);
	CHECK(fabs(dojo_qnet_eval(q, x[1], false) - 0.5) < 0.02);
	CHECK(dojo_qnet_eval(q, x[0], false) > dojo_qnet_eval(q, x[1],
	    false));
	/* a failed state's target is its penalty, whatever follows */
	qn = 5;
	CHECK(dojo_maxq_target(-4.6, true, 0.9, &qn, 1) == -4.6);
	k = 0;
	(void)k;
	dojo_qnet_free(q);
}

/* Double Q: the online network picks a', the target network values it.
 * With 200 actions of true value 1 whose two estimates carry independent
 * noise, the plain max lifts the target far above 1 and the double
 * target does not. */
static void
test_double_target(void)
{
	const double qt[2] = { 1.0, 2.0 }, qo[2] = { 5.0, 1.0 };
	double tq[200], oq[200], plain = 0, twice = 0;
	uint64_t rng = 42;
	int i, k;

	CHECK(dojo_maxq_target_double(0.1, false, 0.5, qt, qo, 2) == 0.5);
	CHECK(dojo_maxq_target(0.1, false, 0.5, qt, 2) == 1.0);
	CHECK(dojo_maxq_target_double(0.7, false, 0.5, qt, qo, 2) == 0.7);
	CHECK(dojo_maxq_target_double(-4.6, true, 0.5, qt, qo, 2) == -4.6);
	CHECK(dojo_maxq_target_double(0.3, false, 0.5, NULL, NULL, 0) ==
	    0.3);
	for (k = 0; k < 50; k++) {
		for (i = 0; i < 200; i++) {
			tq[i] = 1 + (dojo_splitmix64_unit(&rng) - 0.5);
			oq[i] = 1 + (dojo_splitmix64_unit(&rng) - 0.5);
		}
		plain += dojo_maxq_target(-INFINITY, false, 1, tq, 200) / 50;
		twice += dojo_maxq_target_double(-INFINITY, false, 1, tq, oq,
		    200) / 50;
	}
	printf("# 200 noisy values of 1: max %.3f, double %.3f\n", plain,
	    twice);
	CHECK(plain > 1.4);
	CHECK(fabs(twice - 1) < 0.1);
}

static void
test_model_file(void)
{
	char path[256], bad[256];
	float x[10];
	dojo_qnet *q = dojo_qnet_new(10, 8, 3), *l;
	FILE *f;
	int i, dim = 0;

	for (i = 0; i < 10; i++)
		x[i] = (float)i / 10;
	snprintf(path, sizeof path, "%s/m.model", tmpdir);
	CHECK(dojo_qnet_save(q, path, "struct-1", 96) == 0);
	l = dojo_qnet_load(path, "struct-1", 96, &dim);
	CHECK(l != NULL);
	if (l) {
		CHECK(dim == 96);
		CHECK(dojo_qnet_eval(q, x, false) == dojo_qnet_eval(l, x,
		    false));
		dojo_qnet_free(l);
	}
	l = dojo_qnet_load(path, "cmd", 0, NULL);
	CHECK(l == NULL);
	CHECK(strstr(dojo_error_last(), "a model for encoder 'struct-1', but"
	    " this run encodes with 'cmd'") != NULL);
	l = dojo_qnet_load(path, "struct-1", 50, NULL);
	CHECK(l == NULL && strstr(dojo_error_last(), "dimension 96") &&
	    strstr(dojo_error_last(), "dimension 50"));
	snprintf(bad, sizeof bad, "%s/v2.model", tmpdir);
	f = fopen(bad, "w");
	fprintf(f, "perfdojo-model 2\nagent maxq\n");
	fclose(f);
	l = dojo_qnet_load(bad, "struct-1", 96, NULL);
	CHECK(l == NULL);
	CHECK_STR("", strstr(dojo_error_last(), "model format version 2, "
	    "this perfdojo reads version 1") ? "" : dojo_error_last());
	f = fopen(bad, "w");
	fprintf(f, "hello\n");
	fclose(f);
	l = dojo_qnet_load(bad, "struct-1", 96, NULL);
	CHECK(l == NULL && strstr(dojo_error_last(), "not a perfdojo model"));
	dojo_qnet_free(q);
}

static const char kernel[] =
    "A f32 [8, 12] heap in\n"
    "B f32 [12, 10] heap in\n"
    "C f32 [8, 10] heap out\n"
    "8 | 10 | C[{0}, {1}] = 0\n"
    "  |    | 12 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]\n";

/* struct-2's numbers for the parallel loops of "text": 21, the fraction
 * of operations under one; 24, log2 of how often their region is
 * entered / 16; 25, log2 of its size / 8. */
static void
parallel_at(const char *text, float f[3])
{
	dojo_program *p = dojo_program_parse("k.dojo", text, strlen(text));
	dojo_encoder *enc = dojo_encoder_new(NULL);
	const float *v = p ? dojo_encoder_state(enc, p, NULL) : NULL;

	CHECK(v != NULL);
	f[0] = v ? v[21] : -1;
	f[1] = v ? v[24] : -1;
	f[2] = v ? v[25] : -1;
	dojo_encoder_free(enc);
	dojo_program_free(p);
}

/* A loop of 64 shared out once (under a scope of 1) and the same loop
 * inside a scope of 256 are told apart: the second enters its region
 * 256 times. */
static void
parallel_features(void)
{
	float once[3], inner[3];

	parallel_at("A f32 [1, 64] heap out\n"
	    "1 | 64:p | A[{0}, {1}] = 1\n", once);
	parallel_at("A f32 [256, 64] heap out\n"
	    "256 | 64:p | A[{0}, {1}] = 1\n", inner);
	CHECK(once[0] == 1 && inner[0] == 1);
	CHECK(once[1] == 0 && inner[1] == 0.5f);	/* log2 256 / 16 */
	CHECK(once[2] == 0.75f && inner[2] == 0.75f);	/* log2 64 / 8 */
}

static void
test_encoders(void)
{
	dojo_program *p = dojo_program_parse("k.dojo", kernel, strlen(kernel));
	dojo_encoder *enc;
	const float *v;
	char cmd[512];

	CHECK(p != NULL);
	enc = dojo_encoder_new(NULL);
	v = dojo_encoder_state(enc, p, NULL);
	CHECK(v != NULL && dojo_encoder_state_dim(enc) == 96);
	CHECK(v && v[1] > 0);		/* ops */
	CHECK(v && v[21] == 0);		/* none parallel */
	dojo_encoder_free(enc);
	parallel_features();

	/* the protocol: text on stdin, numbers on stdout */
	enc = dojo_encoder_new("wc -l -c");
	v = dojo_encoder_state(enc, p, NULL);
	CHECK(v != NULL && dojo_encoder_state_dim(enc) == 2);
	CHECK(v && v[0] == 5);
	dojo_encoder_free(enc);

	enc = dojo_encoder_new("echo 1 2 oops");
	CHECK(dojo_encoder_state(enc, p, NULL) == NULL);
	CHECK(strstr(dojo_error_last(), "'oops' is not a finite number") !=
	    NULL);
	dojo_encoder_free(enc);

	enc = dojo_encoder_new("exit 3");
	CHECK(dojo_encoder_state(enc, p, NULL) == NULL);
	CHECK(strstr(dojo_error_last(), "failed (exit status 3)") != NULL);
	dojo_encoder_free(enc);

	enc = dojo_encoder_new("cat > /dev/null");
	CHECK(dojo_encoder_state(enc, p, NULL) == NULL);
	CHECK(strstr(dojo_error_last(), "wrote no numbers") != NULL);
	dojo_encoder_free(enc);

	enc = dojo_encoder_new("echo 1 2 3");
	CHECK(dojo_encoder_expect_dim(enc, 4) == 0);
	CHECK(dojo_encoder_state(enc, p, NULL) == NULL);
	CHECK(strstr(dojo_error_last(), "wrote 3 numbers") &&
	    strstr(dojo_error_last(), "expected 4"));
	dojo_encoder_free(enc);
	snprintf(cmd, sizeof cmd, "true");
	(void)cmd;
	dojo_program_free(p);
}

/* A "time" from the text: fewer bytes and more of the flags :v and :p
 * are faster; any :u (unroll) fails. */
static double
fake_cost(dojo_program *prog, void *payload)
{
	char *text = dojo_program_print(prog, false), *c;
	double t = 1000;

	(void)payload;
	for (c = text; *c; c++) {
		if (c[0] == ':' && c[1] == 'u')
			t = -1;
		if (t > 0 && c[0] == ':' && (c[1] == 'v' || c[1] == 'p'))
			t *= 0.8;
	}
	if (t > 0)
		t += (double)strlen(text) / 10;
	free(text);
	return t;
}

/* An environment on the kernel "text" whose times come from "cost". */
static dojo_env *
cost_env(const char *text, dojo_env_cost_fn cost, int budget)
{
	dojo_program *p = dojo_program_parse("k.dojo", text, strlen(text));
	struct dojo_env_options eo;
	dojo_env *env;

	dojo_env_options_init(&eo);
	eo.budget = budget;
	eo.cost = cost;
	env = dojo_env_new(p, &eo);
	dojo_program_free(p);
	return env;
}

/* Play "agent" for "budget" measurements; the best state's path as text
 * into "out". */
static int
play(const char *agent, int budget, uint64_t seed, char *out, size_t len,
    int *used)
{
	dojo_env *env = cost_env(kernel, fake_cost, budget);
	struct dojo_agent_options ao;
	dojo_player *pl;
	int path[64], n, i, best;

	if (!env)
		return -1;
	dojo_agent_options_init(&ao);
	ao.seed = seed;
	ao.depth = 4;
	pl = dojo_player_new(dojo_agent_find(agent), env, &ao);
	if (!pl || dojo_player_run(pl) < 0) {
		printf("# %s: %s\n", agent, dojo_error_last());
		dojo_player_free(pl);
		dojo_env_free(env);
		return -1;
	}
	best = dojo_env_best(env);
	n = dojo_env_path(env, best, path, 64);
	snprintf(out, len, "%.3f:", dojo_env_reward(env, best));
	for (i = 1; i < n; i++) {
		strncat(out, dojo_env_action(env, path[i]), len - strlen(out) -
		    2);
		strncat(out, ";", len - strlen(out) - 1);
	}
	*used = dojo_env_used(env);
	dojo_player_free(pl);
	dojo_env_free(env);
	return 0;
}

static void
test_agents(void)
{
	const struct dojo_agent *a;
	char p1[2048], p2[2048], p3[2048];
	int i, u1, u2, u3;

	for (i = 0; (a = dojo_agent_at(i)); i++) {
		CHECK(play(a->name, 40, 3, p1, sizeof p1, &u1) == 0);
		CHECK(play(a->name, 40, 3, p2, sizeof p2, &u2) == 0);
		CHECK(play(a->name, 40, 4, p3, sizeof p3, &u3) == 0);
		printf("# %s: %d measurements, best %s\n", a->name, u1, p1);
		CHECK_STR(p1, p2);	/* the same seed, the same path */
		CHECK(u1 == 40 && u2 == 40 && u3 <= 40);
		CHECK(atof(p1) > 0);	/* something faster was found */
	}
	CHECK(dojo_agent_find("nope") == NULL);
	CHECK(strstr(dojo_error_last(), "unknown agent 'nope'") != NULL);
}

/* A "time" where the only gain needs a move that gains nothing by
 * itself: the product in the order i, k, j (B by rows) is twice as fast,
 * and only a fission of the initialisation makes the swap of j and k
 * legal.  States that only permute loops or split statements apart are
 * as fast as the start; any other change (a flag, a new buffer, a split
 * loop) is 10% slower. */
static double
enabling_cost(dojo_program *prog, void *payload)
{
	char *text = dojo_program_print(prog, false), *c;
	double t = 1000;
	int arrays = 0;

	(void)payload;
	for (c = text; (c = strstr(c, " f32 [")); c++)
		arrays++;
	if (strstr(text, "* B[{1}, {2}]"))
		t = 500;
	else if (strchr(text, ':') || arrays != 3 || strstr(text, "}*"))
		t = 1100;
	free(text);
	return t;
}

/* "agent" with "seed" until the budget is spent. */
static const char *agent_model;	/* the model run_agent's players start
					   from (NULL: none) */

static void
run_agent(const struct dojo_agent *agent, dojo_env *env, uint64_t seed)
{
	struct dojo_agent_options ao;
	dojo_player *pl;

	dojo_agent_options_init(&ao);
	ao.seed = seed;
	ao.learn = true;
	ao.model = agent_model;
	pl = dojo_player_new(agent, env, &ao);
	CHECK(pl != NULL && dojo_player_run(pl) == 0);
	dojo_player_free(pl);
}

/* Greedy goes sideways through the neutral move that enables the gain,
 * and measures the enabled move first. */
static void
test_greedy_enabling(void)
{
	dojo_env *env;
	uint64_t seed;
	int best;

	for (seed = 1; seed <= 3; seed++) {
		env = cost_env(kernel, enabling_cost, 100);
		CHECK(env != NULL);
		if (!env)
			return;
		run_agent(&dojo_agent_greedy, env, seed);
		best = dojo_env_best(env);
		printf("# seed %d: best %s after %s, %d measurements\n",
		    (int)seed, dojo_env_action(env, best), best > 0 ?
		    dojo_env_action(env, dojo_env_parent(env, best)) : "-",
		    dojo_env_used(env));
		CHECK(best > 0);
		if (best > 0) {
			CHECK(fabs(dojo_env_reward(env, best) - log(2)) <
			    1e-9);
			CHECK_STR(dojo_env_action(env, best), "swap 0.1");
			CHECK_STR(dojo_env_action(env,
			    dojo_env_parent(env, best)), "fission 0.0 1");
		}
		dojo_env_free(env);
	}
}

/* A 16x32x8 matrix product. */
static const char product[] =
    "A f32 [16, 8] heap in\n"
    "B f32 [8, 32] heap in\n"
    "C f32 [16, 32] heap out\n"
    "16 | 32 | C[{0}, {1}] = 0\n"
    "   |    | 8 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]\n";

/* Only a register tile of C is fast: rows unrolled innermost but one,
 * columns a vector innermost, below k, C's tile in a local copy through
 * k; any other split loop is 10% slower than the start. */
static double
tile_cost(dojo_program *prog, void *payload)
{
	char *text = dojo_program_print(prog, false);
	double t = 1000;

	(void)payload;
	if (strstr(text, ":u | ") && strstr(text, ":v | C_c[{3}, {4}] += "))
		t = 250;
	else if (strstr(text, "}*"))
		t = 1100;
	free(text);
	return t;
}

/* The tiles of "state" (16 at most) into "tiles", each printed as a
 * comment "# WHAT i: moves"; their count. */
static int
listed(dojo_env *env, int state, struct dojo_tile *tiles, const char *what)
{
	int n = dojo_agent_tiles(env, state, tiles, 16), i;

	for (i = 0; i < n; i++)
		printf("# %s %d: %s\n", what, i, tiles[i].text);
	return n;
}

/* A batch of products: the tiles unroll the rows of C, whose vector of B
 * every unrolled copy shares, never the batch (each copy would load
 * its own B: a load a multiply-add); the batch scope is never split. */
static void
test_batch_tiles(void)
{
	static const char batched[] =
	    "A f32 [8, 32, 16] heap in\n"
	    "B f32 [8, 32, 16] heap in\n"
	    "C f32 [8, 32, 32] heap out\n"
	    "8 | 32 | 32 | C[{0}, {1}, {2}] = 0\n"
	    "  |    |    | 16 | C[{0}, {1}, {2}] += A[{0}, {1}, {3}] * "
	    "B[{0}, {2}, {3}]\n";
	dojo_env *env = cost_env(batched, tile_cost, 0);
	struct dojo_tile tiles[16];
	int n, i;

	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "batch tile");
	CHECK(n > 0);
	for (i = 0; i < n; i++)
		CHECK(!strstr(tiles[i].text, "split 0 ") &&
		    !strstr(tiles[i].text, "split 1 "));
	dojo_env_free(env);
}

/* A padded copy read by a stencil in a nest of its own: the first
 * compound move fuses the three nests by batch and channel, folds the
 * copy to one channel and moves it to the stack; none for a matrix
 * product's temporary (its reductions want their scopes for tiles). */
static void
test_fusions(void)
{
	static const char stencil[] =
	    "x f32 [1, 16, 30, 30] heap in\n"
	    "w f32 [16, 3, 3] heap in\n"
	    "y f32 [1, 16, 30, 30] heap out\n"
	    "xp f32 [1, 16, 32, 32] heap\n"
	    "1 | 16 | 32 | 32 | xp[{0}, {1}, {2}, {3}] = 0\n"
	    "1 | 16 | 30 | 30 | xp[{0}, {1}, {2} + 1, {3} + 1] = "
	    "x[{0}, {1}, {2}, {3}]\n"
	    "1 | 16 | 30 | 30 | y[{0}, {1}, {2}, {3}] = 0\n"
	    "  |    |    |    | 3 | 3 | y[{0}, {1}, {2}, {3}] += "
	    "xp[{0}, {1}, {2} + {4}, {3} + {5}] * w[{1}, {4}, {5}]\n";
	static const char layers[] =
	    "x f32 [16, 32] heap in\n"
	    "a f32 [32, 32] heap in\n"
	    "y f32 [16, 32] heap out\n"
	    "h f32 [16, 32] heap\n"
	    "16 | 32 | h[{0}, {1}] = 0\n"
	    "   |    | 32 | h[{0}, {1}] += x[{0}, {2}] * a[{2}, {1}]\n"
	    "16 | 32 | y[{0}, {1}] = 0\n"
	    "   |    | 32 | y[{0}, {1}] += h[{0}, {2}] * a[{2}, {1}]\n";
	static const char after[] =
	    "x f32 [16, 32] heap in\n"
	    "a f32 [32, 32] heap in\n"
	    "z f32 [16, 32] heap out\n"
	    "y f32 [16] heap out\n"
	    "t f32 [16] heap\n"
	    "16 | 32 | z[{0}, {1}] = 0\n"
	    "   |    | 32 | z[{0}, {1}] += x[{0}, {2}] * a[{2}, {1}]\n"
	    "16 | t[{0}] = x[{0}, 0] * 2\n"
	    "16 | y[{0}] = t[{0}] + 1\n";
	dojo_env *env = cost_env(stencil, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	int n, i;

	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "fusion");
	CHECK(n > 0);
	if (n > 0) {
		CHECK_STR(tiles[0].text, "fuse 0; fuse 0; fuse 0.0; "
		    "fuse 0.0; fold xp 1 1; move xp stack");
		text = dojo_program_print(dojo_env_program(env,
		    tiles[0].state), false);
		CHECK(text && strstr(text, "xp f32 [1, 16:1, 32, 32] stack"));
		free(text);
	}
	dojo_env_free(env);
	env = cost_env(layers, tile_cost, 0);
	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "layers");
	for (i = 0; i < n; i++)
		CHECK(!strstr(tiles[i].text, "fold h"));
	dojo_env_free(env);
	/* a product before the temporary's nests is no obstacle */
	env = cost_env(after, tile_cost, 0);
	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "after a product");
	CHECK(n > 0);
	if (n > 0)
		CHECK_STR(tiles[0].text, "fuse 1; fold t 0 1; move t stack");
	dojo_env_free(env);
}

/* A row sum (no tile: one scope indexes the sum): accumulators, 4
 * vectors of 8 partial sums (AVX2's registers here), the sum isolated
 * from the statement beside it first, which stays a vector. */
static void
test_accumulators(void)
{
	static const char rows[] =
	    "x f32 [16, 256] heap in\n"
	    "y f32 [16, 256] heap out\n"
	    "s f32 [16] heap out\n"
	    "16 | s[{0}] = 0\n"
	    "   | 256:v | y[{0}, {1}] = x[{0}, {1}] * 2\n"
	    "   |       | s[{0}] += x[{0}, {1}]\n";
	dojo_env *env = cost_env(rows, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	int n;

	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "accumulators");
	CHECK(n == 1);
	if (n == 1) {
		CHECK_STR(tiles[0].text, "clear 0.1; fission 0.1 1; "
		    "vectorize 0.1; split 0.2 32; rfactor 0.2; "
		    "vectorize 0.2; vectorize 0.3.0; vectorize 0.4");
		text = dojo_program_print(dojo_env_program(env,
		    tiles[0].state), false);
		CHECK(text && strstr(text, "s_r f32 [32] stack") &&
		    strstr(text, "| 8     | 32:v | s_r[{2}] += x[{0}, {1}*32 + {2}]"));
		free(text);
	}
	dojo_env_free(env);
}

/* The register tiles of a product: the moves of each, legal one by one,
 * the nest they reach; none of a tiled state. */
static void
test_tiles(void)
{
	dojo_env *env = cost_env(product, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	double r;
	int n, path[16], np, end;

	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "tile");
	/* 16 registers of 8 floats (main): 8 accumulators, 4x16 (two
	 * vectors a row) first as a tile that keeps its neighbours (the
	 * zeroing in the registers: rows outside, then the panel of A;
	 * columns outside, then the panel of B) and 8x8 (columns outside
	 * and the panel of B), then apart from them (also with the column
	 * blocks outside and the panel of B packed) and 8x8 (the same two
	 * ways), then 4 accumulators, 2x16 and 4x8 */
	CHECK(n == 12);
	CHECK_STR(tiles[0].text, "split 0 4; split 0.0.0 16; swap 0.0; "
	    "cache 0.0.0 C stack; fission 0.0.0.0 1; fission 0.0.0 1; "
	    "unroll 0.0.0; vectorize 0.0.0.0; swap 0.0.1.0; swap 0.0.1; "
	    "unroll 0.0.1.0; vectorize 0.0.1.0.0; unroll 0.0.2; "
	    "vectorize 0.0.2.0");
	CHECK(n == 12 && strstr(tiles[1].text, "; pack 0.0 A 1,0; "
	    "vectorize 0.0.0"));
	CHECK(n == 12 && strstr(tiles[2].text, "swap 0.0; swap 0; cache "));
	CHECK(n == 12 && strstr(tiles[3].text, "; pack 0.0 B 0,1; "
	    "vectorize 0.0.0"));
	CHECK(n == 12 && strstr(tiles[4].text, "split 0 8; split 0.0.0 8; "
	    "swap 0.0; swap 0; cache 0.0.0 C stack;") &&
	    !strstr(tiles[4].text, "pack"));
	CHECK(n == 12 && strstr(tiles[5].text, "split 0 8; split 0.0.0 8; ") &&
	    strstr(tiles[5].text, "; pack 0.0 B 0,1; vectorize 0.0.0"));
	if (n == 12) {
		text = dojo_program_print(dojo_env_program(env,
		    tiles[0].state), false);
		printf("%s", text);
		CHECK(strstr(text, "C_c f32 [4, 16] stack\n"
		    "4 | 2 | 4:u | 16:v | C_c[{2}, {3}] = 0\n"
		    "  |   | 8   | 4:u  | 16:v | C_c[{3}, {4}] += "
		    "A[{0}*4 + {3}, {2}] * B[{2}, {1}*16 + {4}]\n"
		    "  |   | 4:u | 16:v | C[{0}*4 + {2}, {1}*16 + {3}] = "
		    "C_c[{2}, {3}]\n") != NULL);
		free(text);
		memmove(tiles, tiles + 6, 6 * sizeof *tiles);
		n = 6;
	}
	CHECK_STR(tiles[0].text, "fission 0.0 1; fission 0 1; split 1 4; "
	    "split 1.0.0 16; swap 1.0.0.0; swap 1.0; swap 1.0.0; "
	    "unroll 1.0.0.0; vectorize 1.0.0.0.0; cache 1.0.0 C stack");
	CHECK_STR(tiles[1].text, "fission 0.0 1; fission 0 1; split 1 4; "
	    "split 1.0.0 16; swap 1.0; swap 1; swap 1.0.0.0; swap 1.0.0; "
	    "unroll 1.0.0.0; vectorize 1.0.0.0.0; cache 1.0.0 C stack; "
	    "pack 1.0 B 0,1; vectorize 1.0.0");
	CHECK(n == 6 && strstr(tiles[2].text, "split 1 8; split 1.0.0 8;") &&
	    !strstr(tiles[2].text, "pack"));
	CHECK(n == 6 && strstr(tiles[3].text, "split 1 8; split 1.0.0 8;") &&
	    strstr(tiles[3].text, "swap 1; ") &&
	    strstr(tiles[3].text, "; pack 1.0 B 0,1; vectorize 1.0.0"));
	CHECK(n == 6 && strstr(tiles[4].text, "split 1 2; split 1.0.0 16;"));
	CHECK(n == 6 && strstr(tiles[5].text, "split 1 4; split 1.0.0 8;"));
	if (n == 6) {
		text = dojo_program_print(dojo_env_program(env,
		    tiles[1].state), false);
		printf("%s", text);
		/* an 8x16 panel of B a column block, copied by vectors,
		 * read by the tile */
		CHECK(strstr(text, "B_p f32 [8, 16] heap\n") != NULL);
		CHECK(strstr(text, "2  | 8  | 16:v | B_p[{1}, {2}] = "
		    "B[{1}, {0}*16 + {2}]\n") != NULL);
		CHECK(strstr(text, "* B_p[{2}, {4}]\n") != NULL);
		free(text);
	}
	/* the tile is a path of the environment, none of it measured */
	np = dojo_env_path(env, tiles[0].state, path, 16);
	CHECK(np == 11);
	CHECK(!dojo_env_measured(env, tiles[0].state));
	text = dojo_program_print(dojo_env_program(env, tiles[0].state),
	    false);
	printf("%s", text);
	CHECK(strstr(text, "4  | 2  | 4 | 16  | C_c[{2}, {3}] = "
	    "C[{0}*4 + {2}, {1}*16 + {3}]\n") != NULL);
	CHECK(strstr(text, "   |    | 8 | 4:u | 16:v | C_c[{3}, {4}] += "
	    "A[{0}*4 + {3}, {2}] * B[{2}, {1}*16 + {4}]\n") != NULL);
	CHECK(strstr(text, "   |    | 4 | 16  | C[{0}*4 + {2}, "
	    "{1}*16 + {3}] = C_c[{2}, {3}]\n") != NULL);
	free(text);
	end = tiles[0].state;
	/* after the tile: no other tile; the panel of A (rows outside:
	 * B's would need a swap that the tile's local copy forbids), the
	 * rows of a step side by side */
	n = listed(env, end, tiles, "panel");
	CHECK(n == 1 && strcmp(tiles[0].text, "pack 1.0 A 1,0; "
	    "vectorize 1.0.0") == 0);
	/* a step to the tile's end: one measurement, the current state */
	CHECK(dojo_env_reset(env) == 0);
	CHECK(dojo_env_jump(env, end, &r) == 0);
	CHECK(dojo_env_current(env) == end);
	CHECK(fabs(r - log(4)) < 1e-9 && dojo_env_used(env) == 1);
	CHECK(dojo_env_jump(env, 100000, &r) == -1);
	dojo_env_free(env);
}

/* A layer: bias, product, ReLU in one nest. */
static const char layer[] =
    "x f32 [16, 8] heap in\n"
    "W f32 [8, 32] heap in\n"
    "b f32 [32] heap in\n"
    "h f32 [16, 32] heap out\n"
    "16 | 32 | h[{0}, {1}] = b[{1}]\n"
    "   |    | 8 | h[{0}, {1}] += x[{0}, {2}] * W[{2}, {1}]\n"
    "   |    | h[{0}, {1}] = max(h[{0}, {1}], 0)\n";

/* A product whose rows a later step of the same row reads (attention's
 * S = Q K^T then the max of each row of S). */
static const char block[] =
    "Q f32 [32, 8] heap in\n"
    "K f32 [16, 8] heap in\n"
    "O f32 [32] heap out\n"
    "S f32 [32, 16] heap\n"
    "32 | 16 | S[{0}, {1}] = 0\n"
    "   |    | 8 | S[{0}, {1}] += Q[{0}, {2}] * K[{1}, {2}]\n"
    "   | O[{0}] = 0\n"
    "   | 16 | O[{0}] max= S[{0}, {1}]\n";

/* Whether the output "out" of states "a" and "b" agrees on the same
 * random inputs (the interpreter). */
static bool
same_output(dojo_env *env, int a, int b, const char *out)
{
	dojo_program *pa = dojo_env_program(env, a);
	dojo_program *pb = dojo_env_program(env, b);
	dojo_data *da = dojo_data_new(pa, 0), *db = dojo_data_new(pb, 0);
	int ka = dojo_program_find_buffer(pa, out);
	int kb = dojo_program_find_buffer(pb, out);
	bool same = da && db && ka >= 0 && kb >= 0;
	uint64_t i, n;

	if (same) {
		dojo_data_randomize(da, 7);
		dojo_data_randomize(db, 7);
		same = dojo_interp_run(pa, da) == 0 &&
		    dojo_interp_run(pb, db) == 0;
	}
	n = same ? dojo_data_count(da, ka) : 0;
	for (i = 0; same && i < n; i++) {
		float x = ((float *)dojo_data_buffer(da, ka))[i];
		float y = ((float *)dojo_data_buffer(db, kb))[i];

		same = fabsf(x - y) <= 1e-5f * (1 + fabsf(x));
	}
	dojo_data_free(da);
	dojo_data_free(db);
	return same && n > 0;
}

/* The tiles that keep their neighbours: a layer's bias and ReLU stay in
 * the tile's registers; a block of rows keeps the later step beside the
 * tile and its temporary folded to the block, on the stack.  Each is the
 * same function as the start. */
static void
test_neighbours(void)
{
	dojo_env *env = cost_env(layer, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	int n;

	CHECK(env != NULL);
	if (!env)
		return;
	n = dojo_agent_tiles(env, 0, tiles, 16);
	CHECK(n >= 1);
	if (n >= 1) {
		printf("# %s\n", tiles[0].text);
		text = dojo_program_print(dojo_env_program(env,
		    tiles[0].state), false);
		printf("%s", text);
		CHECK(strstr(text, "h_c f32 [4, 16] stack\n"
		    "4 | 2 | 4:u | 16:v | h_c[{2}, {3}] = b[{1}*16 + {3}]\n"
		    "  |   | 8   | 4:u  | 16:v | h_c[{3}, {4}] += "
		    "x[{0}*4 + {3}, {2}] * W[{2}, {1}*16 + {4}]\n"
		    "  |   | 4:u | 16:v | h_c[{2}, {3}] = "
		    "max(h_c[{2}, {3}], 0)\n"
		    "  |   | 4:u | 16:v | h[{0}*4 + {2}, {1}*16 + {3}] = "
		    "h_c[{2}, {3}]\n") != NULL);
		free(text);
		CHECK(same_output(env, 0, tiles[0].state, "h"));
	}
	dojo_env_free(env);

	env = cost_env(block, tile_cost, 0);
	CHECK(env != NULL);
	if (!env)
		return;
	n = dojo_agent_tiles(env, 0, tiles, 16);
	CHECK(n >= 2);
	if (n >= 2) {
		printf("# %s\n", tiles[1].text);
		CHECK(strstr(tiles[0].text, "; fold S 0 8; move S stack") !=
		    NULL);
		/* and K transposed whole, so that the vector reads it
		 * contiguously */
		CHECK(strstr(tiles[1].text, "; move S stack; pack 0 K 1,0; "
		    "vectorize 0.0") != NULL);
		text = dojo_program_print(dojo_env_program(env,
		    tiles[0].state), false);
		printf("%s", text);
		CHECK(strstr(text, "S f32 [32:8, 16] stack\n") != NULL);
		CHECK(strstr(text, "  | 8 | O[{0}*8 + {1}] = 0\n"
		    "  |   | 16  | O[{0}*8 + {1}] max= "
		    "S[{0}*8 + {1}, {2}]\n") != NULL);
		free(text);
		CHECK(same_output(env, 0, tiles[0].state, "O"));
		CHECK(same_output(env, 0, tiles[1].state, "O"));
	}
	dojo_env_free(env);
}

/* The tiles follow the target's vector registers: 32 of 16 floats
 * (AVX-512) want 16 accumulators (none fits 16x32) or 8 (8x16), then the
 * fixed shapes; a malformed $PERFDOJO_VECTORS is an error. */
static void
test_tile_shapes(void)
{
	dojo_env *env = cost_env(product, tile_cost, 0);
	struct dojo_tile tiles[16];
	int n;

	CHECK(env != NULL);
	if (!env)
		return;
	setenv("PERFDOJO_VECTORS", "64x32", 1);
	n = dojo_agent_tiles(env, 0, tiles, 16);
	/* 16 rows are all of C's: the tile that keeps the zeroing splits
	 * only the columns; then 8x16 keeping it, the columns outside */
	CHECK(n == 10 && strncmp(tiles[0].text, "split 0.0 16; swap 0; "
	    "cache 0.0 C stack;", 39) == 0);
	CHECK(n == 10 && strncmp(tiles[2].text, "split 0 8; split 0.0.0 16; "
	    "swap 0.0; swap 0; cache 0.0.0 C stack;", 63) == 0);
	CHECK(n == 10 && strstr(tiles[4].text, "split 1 8; split 1.0.0 16;"));
	CHECK(n == 10 && strstr(tiles[5].text, "split 1 8; split 1.0.0 16;") &&
	    strstr(tiles[5].text, "pack 1.0 B 0,1"));
	/* the second shape packed too */
	CHECK(n == 10 && strstr(tiles[6].text, "split 1 4; split 1.0.0 16;") &&
	    !strstr(tiles[6].text, "pack"));
	CHECK(n == 10 && strstr(tiles[7].text, "split 1 4; split 1.0.0 16;") &&
	    strstr(tiles[7].text, "pack 1.0 B 0,1"));
	setenv("PERFDOJO_VECTORS", "wide", 1);
	CHECK(dojo_agent_tiles(env, 0, tiles, 16) == -1);
	CHECK_STR(dojo_error_last(), "PERFDOJO_VECTORS: 'wide' is not "
	    "BYTESxREGISTERS (as 32x16: 16 registers of 32 bytes)");
	setenv("PERFDOJO_VECTORS", "32x16", 1);
	dojo_env_free(env);
}

/* A product of 20 columns: no multiple of AVX2's 8 lanes divides them. */
static const char odd_product[] =
    "A f32 [16, 8] heap in\n"
    "B f32 [8, 20] heap in\n"
    "C f32 [16, 20] heap out\n"
    "16 | 20 | C[{0}, {1}] = 0\n"
    "   |    | 8 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]\n";

/* Where no tile's columns divide the row, the tiles take its first 16
 * columns (peel), vectors of 8 over them, the other 4 as they were; the
 * same function as the start, its moves a path of legal moves. */
static void
test_peeled_tiles(void)
{
	dojo_env *env = cost_env(odd_product, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	int n, i, peeled = 0;

	CHECK(env != NULL);
	if (!env)
		return;
	n = dojo_agent_tiles(env, 0, tiles, 16);
	for (i = 0; i < n; i++) {
		if (strncmp(tiles[i].text, "peel 0.0 16; ", 13) != 0)
			continue;
		printf("# %s\n", tiles[i].text);
		if (peeled++ == 0) {
			text = dojo_program_print(dojo_env_program(env,
			    tiles[i].state), false);
			printf("%s", text);
			/* the head's tile: 8 columns a vector, in a copy */
			CHECK(strstr(text, ":v | C_c[{") != NULL);
			CHECK(strstr(text, "C[{0}, {1} + 16] += A[{0}, {2}] "
			    "* B[{2}, {1} + 16]") != NULL);
			free(text);
		}
		CHECK(same_output(env, 0, tiles[i].state, "C"));
	}
	CHECK(peeled >= 1);
	/* the peel follows from the start like any other move */
	CHECK(dojo_env_follow(env, 0, "peel 0.0 16", &i) == DOJO_DONE);
	CHECK(dojo_env_follow(env, 0, "peel 0.0 20", &i) == DOJO_REFUSED);
	dojo_env_free(env);
}

/* Play "agent" on the product with "budget" measurements: 1 when its
 * best state is the register tile (4 times faster), 0 when not, -1 when
 * no environment was made. */
static int
tile_reached(const struct dojo_agent *agent, int budget, uint64_t seed)
{
	dojo_env *env = cost_env(product, tile_cost, budget);
	int best, found;

	CHECK(env != NULL);
	if (!env)
		return -1;
	run_agent(agent, env, seed);
	best = dojo_env_best(env);
	printf("# %s, seed %d: best %.3f after '%s', %d measurements\n",
	    agent->name, (int)seed, dojo_env_reward(env, best),
	    dojo_env_action(env, best), dojo_env_used(env));
	found = fabs(dojo_env_reward(env, best) - log(4)) < 1e-9;
	dojo_env_free(env);
	return found;
}

/* Greedy measures the tiles early and climbs to one: no path of single
 * moves that gain reaches it. */
static void
test_greedy_tiles(void)
{
	uint64_t seed;

	for (seed = 1; seed <= 3; seed++)
		CHECK(tile_reached(&dojo_agent_greedy, 30, seed) == 1);
}

/* Max-Q exploring draws a kind of move first, the tiles being one kind:
 * with 60 measurements it plays the tile of the product (from the start:
 * after any split the tile's cost is a loss) on most seeds. */
static void
test_maxq_tiles(void)
{
	uint64_t seed;
	int found = 0;

	for (seed = 1; seed <= 3; seed++)
		found += tile_reached(&dojo_agent_maxq, 60, seed) == 1;
	CHECK(found >= 2);
}

/* The values Max-Q learns for the start's unroll moves, which fail
 * (fake_cost), after 80 exploring steps with "floor": the lowest and the
 * highest into "lo" and "hi", the network's (valued in a fresh
 * environment, where nothing was measured). */
static void
unroll_values(double floor, double *lo, double *hi)
{
	dojo_env *env = cost_env(kernel, fake_cost, 0);
	dojo_env *fresh = cost_env(kernel, fake_cost, 0);
	struct dojo_maxq_options mo;
	const struct dojo_action *actions;
	const int *children;
	char text[256];
	double *q;
	dojo_maxq *mq;
	int i, n, step;

	*lo = INFINITY;
	*hi = -INFINITY;
	dojo_maxq_options_init(&mo);
	mo.seed = 5;
	mo.floor = floor;
	mq = dojo_maxq_new(&mo);
	for (step = 0; step < 80; step++) {
		if (step % 4 == 0)
			dojo_env_reset(env);
		CHECK(dojo_maxq_step(mq, env, 1.0, true, NULL) == 0);
	}
	n = dojo_env_expand(env, 0, &actions, &children);
	for (i = 0; i < n; i++)
		if (dojo_env_measured(env, children[i]) &&
		    strncmp(dojo_env_action(env, children[i]), "unroll", 6) == 0)
			CHECK(dojo_env_reward(env, children[i]) ==
			    DOJO_ENV_FAIL_REWARD);
	n = dojo_env_expand(fresh, 0, &actions, &children);
	q = calloc(n, sizeof *q);
	CHECK(dojo_maxq_scores(mq, fresh, 0, q, n) == 0);
	for (i = 0; i < n; i++) {
		dojo_action_format(text, sizeof text, &actions[i]);
		if (strncmp(text, "unroll", 6) != 0)
			continue;
		*lo = q[i] < *lo ? q[i] : *lo;
		*hi = q[i] > *hi ? q[i] : *hi;
	}
	free(q);
	dojo_maxq_free(mq);
	dojo_env_free(env);
	dojo_env_free(fresh);
}

/* A failure is still a failure (its reward), but Max-Q learns it as the
 * floor of its targets, -1: without it the penalty of log(1/100) pulls
 * the values of every move of its kind far below what other kernels
 * pay for them. */
static void
test_maxq_floor(void)
{
	double lo, hi;

	unroll_values(-1, &lo, &hi);
	printf("# unroll values, floor -1: %.3f to %.3f\n", lo, hi);
	CHECK(lo > -1.5 && hi < -0.5);
	unroll_values(-INFINITY, &lo, &hi);
	printf("# unroll values, no floor: %.3f to %.3f\n", lo, hi);
	CHECK(lo < -2.5);
}

/* Played without learning, a move is valued by the reward measured for
 * it from then on, not by the network's guess (which nothing updated). */
static void
test_maxq_measured(void)
{
	dojo_env *env = cost_env(kernel, fake_cost, 0);
	struct dojo_maxq_options mo;
	const struct dojo_action *actions;
	const int *children;
	double *q0, *q1;
	dojo_maxq *mq;
	int i, n, played = -1, changed = 0;

	dojo_maxq_options_init(&mo);
	mq = dojo_maxq_new(&mo);
	n = dojo_env_expand(env, 0, &actions, &children);
	q0 = calloc(n, sizeof *q0);
	q1 = calloc(n, sizeof *q1);
	CHECK(dojo_maxq_scores(mq, env, 0, q0, n) == 0);
	CHECK(dojo_maxq_step(mq, env, 0, false, NULL) == 0);
	CHECK(dojo_maxq_scores(mq, env, 0, q1, n) == 0);
	for (i = 0; i < n; i++) {
		if (dojo_env_measured(env, children[i]))
			played = i;
		else
			changed += q0[i] != q1[i];
	}
	CHECK(changed == 0 && played >= 0);
	if (played >= 0) {
		printf("# %s: guessed %.3f, measured %.3f, valued %.3f\n",
		    dojo_env_action(env, children[played]), q0[played],
		    dojo_env_reward(env, children[played]), q1[played]);
		CHECK(q1[played] == dojo_env_reward(env, children[played]));
	}
	free(q0);
	free(q1);
	dojo_maxq_free(mq);
	dojo_env_free(env);
}

/* Exploring draws are the seed's whatever is learned: learning draws
 * its batches from a stream of its own (before session 9 it drew from
 * play's, and 8 updates a step changed every later move). */
static void
test_maxq_draws(void)
{
	struct dojo_maxq_options mo;
	dojo_env *env[2];
	dojo_maxq *mq[2];
	char path[2][30][41];
	int k, step, same = 0;

	dojo_maxq_options_init(&mo);
	mo.seed = 9;
	for (k = 0; k < 2; k++) {
		env[k] = cost_env(kernel, fake_cost, 0);
		mq[k] = dojo_maxq_new(&mo);
		for (step = 0; step < 30; step++) {
			if (step % 5 == 0)
				dojo_env_reset(env[k]);
			CHECK(dojo_maxq_step(mq[k], env[k], 1.0, k == 1,
			    NULL) == 0);
			snprintf(path[k][step], sizeof path[k][step], "%s",
			    dojo_env_state_id(env[k],
			    dojo_env_current(env[k])));
		}
	}
	for (step = 0; step < 30; step++)
		same += strcmp(path[0][step], path[1][step]) == 0;
	CHECK(same == 30);
	for (k = 0; k < 2; k++) {
		dojo_maxq_free(mq[k]);
		dojo_env_free(env[k]);
	}
}

/* The environment: a failed step stays at the parent, the budget. */
static void
test_env(void)
{
	dojo_env *env = cost_env(kernel, fake_cost, 2);
	const struct dojo_action *actions;
	const int *children;
	char text[256];
	double r;
	int n, i, unroll = -1, reached;

	n = dojo_env_expand(env, 0, &actions, &children);
	CHECK(n > 10);
	for (i = 0; i < n; i++) {
		dojo_action_format(text, sizeof text, &actions[i]);
		if (strncmp(text, "unroll", 6) == 0 && unroll < 0)
			unroll = i;
	}
	CHECK(unroll >= 0);
	dojo_env_reset(env);
	CHECK(dojo_env_step(env, unroll, &r, &reached) == 0);
	CHECK(r == DOJO_ENV_FAIL_REWARD && dojo_env_failed(env, reached));
	CHECK(dojo_env_current(env) == 0);	/* back at the parent */
	CHECK(dojo_env_step(env, unroll, &r, &reached) == 0);
	CHECK(dojo_env_used(env) == 1);		/* known: counts 0 */
	CHECK(dojo_env_step(env, 0, &r, &reached) == 0);
	CHECK(dojo_env_used(env) == 2 && dojo_env_spent(env));
	CHECK(dojo_env_step(env, unroll == 1 ? 2 : 1, &r, &reached) == 1);
	CHECK(dojo_env_used(env) == 2);
	dojo_env_free(env);
}

/* Every candidate move of the product's start, followed one at a time in
 * a fresh environment, reaches the state of the same action in the whole
 * action set, and a move out of the set is refused. */
struct follow_check {
	dojo_env *env, *fresh;
	const struct dojo_action *actions;
	const int *children;
	int n, legal, refused, wrong;
};

static int
follow_candidate(const struct dojo_action *a, void *payload)
{
	struct follow_check *f = payload;
	char text[256], t[256];
	enum dojo_result r;
	int i, k;

	dojo_action_format(text, sizeof text, a);
	for (i = 0; i < f->n; i++) {
		dojo_action_format(t, sizeof t, &f->actions[i]);
		if (strcmp(t, text) == 0)
			break;
	}
	r = dojo_env_follow(f->fresh, 0, text, &k);
	if (i < f->n && r == DOJO_DONE) {
		f->legal++;
		/* (two actions may reach one state: the state keeps the
		 * first one's text) */
		f->wrong += strcmp(dojo_env_state_id(f->fresh, k),
		    dojo_env_state_id(f->env, f->children[i])) != 0;
	} else if (i == f->n && r == DOJO_REFUSED) {
		f->refused++;
	} else {
		printf("# %s: in the set %d, followed %d\n", text, i < f->n,
		    r);
		f->wrong++;
	}
	return 0;
}

static void
test_follow(void)
{
	struct follow_check f = { 0 };
	dojo_legality *mv;
	int k;

	f.env = cost_env(product, tile_cost, 30);
	f.fresh = cost_env(product, tile_cost, 30);
	CHECK(f.env && f.fresh);
	if (!f.env || !f.fresh)
		return;
	f.n = dojo_env_expand(f.env, 0, &f.actions, &f.children);
	CHECK(f.n > 20);
	mv = dojo_legality_new(dojo_env_program(f.env, 0), dojo_target_machine("c"));
	CHECK(dojo_legality_candidates(mv, NULL, 0, follow_candidate, &f) == 0);
	dojo_legality_free(mv);
	printf("# %d followed, %d refused, %d wrong\n", f.legal, f.refused,
	    f.wrong);
	CHECK(f.legal == f.n && f.refused > 0 && f.wrong == 0);
	/* not candidates: a split by a non-divisor, an operation's address */
	CHECK(dojo_env_follow(f.fresh, 0, "split 0 5", &k) == DOJO_REFUSED);
	CHECK(strstr(dojo_error_last(), "not a move of the action set"));
	CHECK(dojo_env_follow(f.fresh, 0, "unroll 0.0.1.0", &k) ==
	    DOJO_REFUSED);
	CHECK(dojo_env_follow(f.fresh, 0, "swap 0.0", &k) == DOJO_REFUSED);
	CHECK_STR(dojo_error_last(), "swap 0.0: the scope's only child must "
	    "be a scope (a perfect pair)");
	/* once a state is expanded, following is a look-up in its set */
	CHECK(dojo_env_follow(f.env, 0, "split 0 4", &k) == DOJO_DONE);
	CHECK(k > 0 && dojo_env_parent(f.env, k) == 0);
	CHECK(dojo_env_follow(f.env, 0, "swap 0.0", &k) == DOJO_REFUSED);
	CHECK(dojo_env_used(f.env) == 0 && dojo_env_used(f.fresh) == 0);
	dojo_env_free(f.env);
	dojo_env_free(f.fresh);
}

/* An environment on the kernel "text" that really measures, its
 * database NAME.db in the test's folder (the environment keeps the
 * path: one such environment at a time); NULL on failure. */
static dojo_env *
measured_env(const char *text, const char *name)
{
	dojo_program *p = dojo_program_parse("kernel.dojo", text,
	    strlen(text));
	struct dojo_env_options eo;
	static char db[sizeof tmpdir + 32];
	dojo_env *env;

	snprintf(db, sizeof db, "%s/%s.db", tmpdir, name);
	dojo_env_options_init(&eo);
	eo.measure.db = db;
	env = p ? dojo_env_new(p, &eo) : NULL;
	dojo_program_free(p);
	return env;
}

/* A gain checked in alternate pairs (dojo_env_compare), as a climb does:
 * really timed, the child's reward becomes its paired ratio against the
 * state it was timed with, which is kept; with a cost function nothing
 * is timed and the first look stays. */
static void
test_compare(void)
{
	static const char add[] =
	    "x f32 [256, 256] heap in\n"
	    "y f32 [256, 256] heap out\n"
	    "256 | 256 | y[{0}, {1}] = x[{0}, {1}] + 1\n";
	dojo_env *env = measured_env(add, "compare");
	struct dojo_measure_ratio r;
	double look;
	int k;

	CHECK(env != NULL);
	if (!env)
		return;
	CHECK(dojo_env_follow(env, 0, "split 0.0 8", &k) == DOJO_DONE);
	CHECK(dojo_env_evaluate(env, k, &look) == 0);
	CHECK(dojo_env_held(env, k, NULL) == -1);
	CHECK(dojo_env_compare(env, k, 0, 3, &r) == 0);
	printf("# first look %.3f, paired %.3f [%.3f, %.3f] in %d%s\n",
	    exp(look), r.speedup, r.low, r.high, r.pairs,
	    r.disturbed ? ", disturbed" : "");
	/* 3 clean pairs, or fewer flagged (a busy machine: the disturbed
	 * pairs ran out first) */
	CHECK((r.pairs >= 3 || (r.disturbed && r.pairs >= 1)) &&
	    r.speedup > 0 && r.low <= r.speedup && r.speedup <= r.high);
	CHECK(fabs(dojo_env_reward(env, k) - log(r.speedup)) < 1e-12);
	CHECK(dojo_env_held(env, k, &r) == 0 &&
	    (r.pairs >= 3 || r.disturbed));
	/* the used budget is measurements: pairs count none */
	CHECK(dojo_env_used(env) == 1);
	dojo_env_free(env);

	env = cost_env(product, tile_cost, 0);
	CHECK(env != NULL);
	if (!env)
		return;
	CHECK(dojo_env_follow(env, 0, "split 0 4", &k) == DOJO_DONE);
	CHECK(dojo_env_evaluate(env, k, &look) == 0);
	CHECK(dojo_env_compare(env, k, 0, 3, &r) == 1);
	CHECK(dojo_env_reward(env, k) == look && dojo_env_held(env, k,
	    NULL) == -1);
	dojo_env_free(env);
}

/* Two children that change one nest of two, told apart on that nest
 * alone (dojo_program_apart, dojo_env_duel): each part keeps the nest
 * it does not share, the temporary the left-out nest wrote is the
 * part's input, and what the nest writes its output; the two timed in
 * alternate pairs, the rewards and the budget left as they were. */
static void
test_duel(void)
{
	static const char two[] =
	    "x f32 [256, 256] heap in\n"
	    "t f32 [256, 256] heap\n"
	    "y f32 [256, 256] heap out\n"
	    "256 | 256 | t[{0}, {1}] = x[{0}, {1}] + 1\n"
	    "256 | 256 | y[{0}, {1}] = t[{0}, {1}] * 2\n";
	dojo_env *env = measured_env(two, "duel");
	dojo_program *pa, *pb;
	struct dojo_measure_ratio r;
	double ra, rb;
	int a, b, c, d;

	CHECK(env != NULL);
	if (!env)
		return;
	CHECK(dojo_env_follow(env, 0, "split 1.0 8", &a) == DOJO_DONE);
	CHECK(dojo_env_follow(env, 0, "split 1.0 16", &b) == DOJO_DONE);
	CHECK(dojo_env_follow(env, 0, "split 0.0 8", &c) == DOJO_DONE);
	CHECK(dojo_env_follow(env, 0, "split 0.0 16", &d) == DOJO_DONE);
	/* the second nest apart: t is read, its data the caller's */
	CHECK(dojo_program_apart(dojo_env_program(env, a),
	    dojo_env_program(env, b), &pa, &pb) == 0);
	CHECK(pa && pb && dojo_program_n_children(pa) == 1 &&
	    dojo_program_n_children(pb) == 1);
	CHECK(pa && dojo_buffer_role(pa, 1) == DOJO_INOUT &&
	    dojo_buffer_role(pa, 2) == DOJO_OUT &&
	    dojo_buffer_role(pa, 0) == DOJO_IN);
	CHECK(pa && pb && dojo_program_validate(pa) == 0 &&
	    dojo_program_validate(pb) == 0);
	dojo_program_free(pa);
	dojo_program_free(pb);
	/* the first apart: t its output, y unused */
	CHECK(dojo_program_apart(dojo_env_program(env, c),
	    dojo_env_program(env, d), &pa, &pb) == 0);
	CHECK(pa && dojo_buffer_role(pa, 1) == DOJO_OUT &&
	    dojo_buffer_role(pa, 2) == DOJO_TEMP &&
	    dojo_program_validate(pa) == 0);
	dojo_program_free(pa);
	dojo_program_free(pb);
	/* nothing shared, or all: nothing to compare apart */
	CHECK(dojo_program_apart(dojo_env_program(env, a),
	    dojo_env_program(env, c), &pa, &pb) == 1 && !pa && !pb);
	CHECK(dojo_program_apart(dojo_env_program(env, a),
	    dojo_env_program(env, a), &pa, &pb) == 1 && !pa && !pb);

	CHECK(dojo_env_evaluate(env, a, &ra) == 0);
	CHECK(dojo_env_evaluate(env, b, &rb) == 0);
	CHECK(dojo_env_dueled(env, a, NULL) == -1);
	CHECK(dojo_env_duel(env, a, b, 3, &r) == 0);
	printf("# apart: %.3f [%.3f, %.3f] in %d%s\n", r.speedup, r.low,
	    r.high, r.pairs, r.disturbed ? ", disturbed" : "");
	CHECK((r.pairs >= 3 || (r.disturbed && r.pairs >= 1)) &&
	    r.speedup > 0 && r.low <= r.speedup && r.speedup <= r.high);
	CHECK(dojo_env_dueled(env, a, &r) == b && r.speedup > 0);
	CHECK(dojo_env_reward(env, a) == ra && dojo_env_reward(env, b) == rb);
	CHECK(dojo_env_used(env) == 2);
	/* a state and one it shares no nest with: timed whole (their
	 * rewards unchanged) */
	CHECK(dojo_env_evaluate(env, c, &ra) == 0);
	rb = dojo_env_reward(env, a);
	CHECK(dojo_env_duel(env, a, c, 3, &r) == 0 && r.speedup > 0 &&
	    dojo_env_dueled(env, a, NULL) == c);
	CHECK(dojo_env_reward(env, a) == rb && dojo_env_reward(env, c) == ra);
	dojo_env_free(env);
}

/* The shipped model (models/default.model, trained on the examples) on
 * a matrix product it never saw: its first register tile is valued above
 * "parallelize 0.0", a parallel region of 32 iterations entered 16 times
 * around an initialisation that takes nanoseconds (a certain loss), and
 * above the median of the start's moves. */
static void
test_shipped_model(void)
{
	const char *path = dojo_agent_default_model();
	dojo_env *env = cost_env(product, tile_cost, 0);
	const struct dojo_action *actions;
	const int *children;
	struct dojo_maxq_options mo;
	struct dojo_tile tiles[16];
	char text[256];
	double *q, tile, bad = NAN;
	dojo_maxq *mq;
	int n, i, above = 0;

	CHECK(path != NULL && env != NULL);
	if (!path || !env)
		return;
	dojo_maxq_options_init(&mo);
	mo.model = path;
	mq = dojo_maxq_new(&mo);
	CHECK(mq != NULL);
	n = dojo_env_expand(env, 0, &actions, &children);
	q = calloc(n, sizeof *q);
	CHECK(mq && n > 0 && dojo_agent_tiles(env, 0, tiles, 16) > 0);
	CHECK(dojo_maxq_scores(mq, env, 0, q, n) == 0);
	CHECK(dojo_maxq_tile_score(mq, env, tiles[0].state, &tile) == 0);
	for (i = 0; i < n; i++) {
		dojo_action_format(text, sizeof text, &actions[i]);
		if (strcmp(text, "parallelize 0.0") == 0)
			bad = q[i];
		above += tile > q[i];
	}
	printf("# tile %.3f, parallelize 0.0 %.3f, the tile above %d of %d "
	    "moves\n", tile, bad, above, n);
	CHECK(!isnan(bad) && tile > bad);
	CHECK(above > n / 2);
	free(q);
	dojo_maxq_free(mq);
	dojo_env_free(env);
}

/* auto without a model plays greedy's climbs and settles (with a cost
 * function, settling confirms nothing): the same seed, the same path, the
 * tile reached; with the shipped model too. */
static void
test_auto(void)
{
	char p1[2048], p2[2048];
	int u1, u2, seed;

	CHECK(play("auto", 40, 3, p1, sizeof p1, &u1) == 0);
	CHECK(play("auto", 40, 3, p2, sizeof p2, &u2) == 0);
	CHECK_STR(p1, p2);
	CHECK(u1 == 40 && atof(p1) > 0);
	for (seed = 1; seed <= 3; seed++)
		CHECK(tile_reached(&dojo_agent_auto, 30, seed) == 1);
	agent_model = dojo_agent_default_model();
	CHECK(agent_model != NULL);
	for (seed = 1; agent_model && seed <= 3; seed++)
		CHECK(tile_reached(&dojo_agent_auto, 30, seed) == 1);
	agent_model = NULL;
}

/* A transpose where only its outer scope on threads gains, every other
 * change 10% slower than the start. */
static const char transpose[] =
    "A f32 [64, 96] heap in\n"
    "B f32 [96, 64] heap out\n"
    "64 | 96 | B[{1}, {0}] = A[{0}, {1}] * 2\n";

/* 500 when the program's text has "payload" (the one change that pays),
 * else 1100 when it changed anything (a flag, a split), else 1000. */
static double
only_cost(dojo_program *prog, void *payload)
{
	char *text = dojo_program_print(prog, false);
	double t = strstr(text, payload) ? 500 :
	    strchr(text, ':') || strstr(text, "}*") ? 1100 : 1000;

	free(text);
	return t;
}

/* The measurement that first timed an action. */
struct watch {
	const char *action;
	int at;
};

static void
watch_progress(dojo_env *env, int state, void *payload)
{
	struct watch *w = payload;

	if (!w->at && strcmp(dojo_env_action(env, state), w->action) == 0)
		w->at = dojo_env_used(env);
}

/* The players of the tests below: greedy, auto, and auto with the
 * shipped model (i == 2). */
static const struct dojo_agent *const players[] = {
	&dojo_agent_greedy, &dojo_agent_auto, &dojo_agent_auto
};

/* An environment of "p" for "budget" measurements of only_cost("pays")
 * on "threads" (0: the default), "progress" called with "payload" after
 * each; NULL when none was made. */
static dojo_env *
only_env(dojo_program *p, int budget, int threads, const char *pays,
    dojo_env_progress_fn progress, void *payload)
{
	struct dojo_env_options eo;
	dojo_env *env;

	dojo_env_options_init(&eo);
	eo.budget = budget;
	eo.cost = only_cost;
	eo.cost_payload = (void *)pays;
	eo.progress = progress;
	eo.progress_payload = payload;
	if (threads > 0)
		eo.measure.run.threads = threads;
	env = dojo_env_new(p, &eo);
	CHECK(env != NULL);
	return env;
}

/* "agent" (with the shipped model when "model") on "p" for "budget"
 * measurements of only_cost("pays") on "threads" with "seed",
 * "progress" called with "payload" after each: its environment, NULL
 * when none was made. */
static dojo_env *
played(const struct dojo_agent *agent, bool model, dojo_program *p,
    int budget, int threads, uint64_t seed, const char *pays,
    dojo_env_progress_fn progress, void *payload)
{
	dojo_env *env = only_env(p, budget, threads, pays, progress, payload);

	if (!env)
		return NULL;
	agent_model = model ? dojo_agent_default_model() : NULL;
	run_agent(agent, env, seed);
	agent_model = NULL;
	return env;
}

/* played() on one thread (as the suite runs: on more, the outer scopes
 * on threads come first), watching for w's action. */
static dojo_env *
watched_run(const struct dojo_agent *agent, bool model, dojo_program *p,
    int budget, const char *pays, struct watch *w)
{
	w->at = 0;
	return played(agent, model, p, budget, 1, 1, pays, watch_progress,
	    w);
}

/* A row's max, then the exponential of each element less it (contiguous
 * along the rows), then a transposed copy (not contiguous along its
 * innermost scope). */
static const char rows[] =
    "A f32 [64, 96] heap in\n"
    "B f32 [64, 96] heap out\n"
    "C f32 [96, 64] heap out\n"
    "m f32 [64] heap\n"
    "64 | m[{0}] = -inf\n"
    "   | 96 | m[{0}] max= A[{0}, {1}]\n"
    "   | 96 | B[{0}, {1}] = exp(A[{0}, {1}] - m[{0}])\n"
    "64 | 96 | C[{1}, {0}] = A[{0}, {1}]\n";

/* Greedy and auto measure the vectors along contiguous innermost scopes
 * early (in the trace: "inner"), never one along a strided access. */
static void
test_inner(void)
{
	dojo_program *p = dojo_program_parse("r.dojo", rows, sizeof rows - 1);
	struct watch w = { "vectorize 0.2", 0 };
	dojo_env *env;
	double pred;
	int i, k, at, inner;

	for (i = 0; i < 3; i++) {
		env = watched_run(players[i], i == 2, p, 30, "| 96:v | B[", &w);
		if (!env)
			continue;
		at = w.at;
		inner = 0;
		for (k = 1; k < dojo_env_n_states(env); k++) {
			const char *why = dojo_env_why(env, k, &pred);

			if (strcmp(why, "inner") != 0)
				continue;
			inner++;
			/* C's copy is strided along its innermost scope */
			CHECK(strncmp(dojo_env_action(env, k), "vectorize 1",
			    11) != 0);
		}
		printf("# %s%s: %d measured as 'inner', the exponential's "
		    "row %d-th\n", players[i]->name, i == 2 ?
		    " with the model" : "", inner, at);
		CHECK(inner >= 1);
		CHECK(at >= 1 && at <= 6);
		CHECK(dojo_env_reward(env, dojo_env_best(env)) > log(1.5));
		dojo_env_free(env);
	}
	dojo_program_free(p);
}

/* A layer whose output rows are 2 KiB apart, read by the next one. */
static const char layers[] =
    "x f32 [32, 64] heap in\n"
    "W f32 [64, 512] heap in\n"
    "V f32 [512, 16] heap in\n"
    "y f32 [32, 16] heap out\n"
    "h f32 [32, 512] heap\n"
    "32 | 512 | h[{0}, {1}] = 0\n"
    "   |     | 64 | h[{0}, {1}] += x[{0}, {2}] * W[{2}, {1}]\n"
    "32 | 16 | y[{0}, {1}] = 0\n"
    "   |    | 512 | y[{0}, {1}] += h[{0}, {2}] * V[{2}, {1}]\n";

/* Greedy, auto, and auto with the shipped model, on "text" for
 * "budget" measurements of only_cost("pays"): each measures "action"
 * among the first "at" measurements and its group "why" at least once
 * (in the trace), every action of that group starting with "prefix",
 * and finds 1.5x. */
static void
measured_early(const char *text, int budget, const char *pays,
    const char *action, const char *why, const char *prefix, int at)
{
	dojo_program *p = dojo_program_parse("k.dojo", text, strlen(text));
	struct watch w = { action, 0 };
	dojo_env *env;
	double pred;
	int i, k, count;

	for (i = 0; i < 3; i++) {
		env = watched_run(players[i], i == 2, p, budget, pays, &w);
		if (!env)
			continue;
		count = 0;
		for (k = 1; k < dojo_env_n_states(env); k++) {
			if (strcmp(dojo_env_why(env, k, &pred), why))
				continue;
			count++;
			CHECK(strncmp(dojo_env_action(env, k), prefix,
			    strlen(prefix)) == 0);
		}
		printf("# %s%s: %d measured as '%s', '%s' %d-th\n",
		    players[i]->name, i == 2 ? " with the model" : "", count,
		    why, action, w.at);
		CHECK(count >= 1);
		CHECK(w.at >= 1 && w.at <= at);
		CHECK(dojo_env_reward(env, dojo_env_best(env)) > log(1.5));
		dojo_env_free(env);
	}
	dojo_program_free(p);
}

/* Greedy and auto measure the pad of h's rows early (in the trace:
 * "layout"), where it pays: after the first step's tiles (12 a layer)
 * and a few more. */
static void
test_layout(void)
{
	measured_early(layers, 40, "h f32 [32, 512+16]", "pad h 1 16",
	    "layout", "pad ", 28);
}

/* Column sums: the reduction over the rows outside the output's loop,
 * so every row adds into all of s. */
static const char colsums[] =
    "x f32 [257, 96] heap in\n"
    "s f32 [96] heap out\n"
    "96 | s[{0}] = 0\n"
    "257 | 96 | s[{1}] += x[{0}, {1}]\n";

/* Greedy and auto measure s's copy at the rows' scope early (in the
 * trace: "local"), and no copy at a scope whose iterator moves along s
 * or of the input. */
static void
test_local(void)
{
	measured_early(colsums, 30, "s_c f32 [96] stack", "cache 1 s stack",
	    "local", "cache 1 s ", 8);
}

/* The columns that a register tile of a 75-column product leaves over:
 * each of the 11 a reduction of 300 inside the row's loop. */
static const char leftover[] =
    "A f32 [16, 300] heap in\n"
    "B f32 [300, 11] heap in\n"
    "C f32 [16, 11] heap out\n"
    "16 | 11 | C[{0}, {1}] = 0\n"
    "   |    | 300 | C[{0}, {1}] += A[{0}, {2}] * B[{2}, {1}]\n";

/* Greedy and auto measure the copy of C's row at the columns' scope
 * early (in the trace: "local"), where it pays, and no copy of C at the
 * rows' scope (the whole of C, no reduction directly inside). */
static void
test_local_row(void)
{
	measured_early(leftover, 30, "C_c f32 [1, 11] stack",
	    "cache 0.0 C stack", "local", "cache 0.0", 8);
}

/* The transpose of a batch of one: its outer scope below the batch's
 * scope of one iteration. */
static const char transpose1[] =
    "A f32 [1, 64, 96] heap in\n"
    "B f32 [1, 96, 64] heap out\n"
    "1 | 64 | 96 | B[{0}, {2}, {1}] = A[{0}, {1}, {2}] * 2\n";

/* A^T B accumulated into C: the reduction outermost, so that only its
 * rows swapped outward can go on threads. */
static const char tmatmul[] =
    "A f32 [16, 64] heap in\n"
    "B f32 [16, 48] heap in\n"
    "C f32 [64, 48] heap inout\n"
    "16 | 64 | 48 | C[{1}, {2}] += A[{0}, {1}] * B[{0}, {2}]\n";

/* With several threads, greedy and auto measure the outer scope on
 * threads first (the model's guess aside), whatever the model says,
 * below a batch of one as well, and a matmul's rows swapped outward of
 * its reduction; with one, it is one of the others. */
static void
test_outer(void)
{
	static const struct {
		const char *text, *move, *pays;
	} kernels[] = {
		{ transpose, "parallelize 0", "\n64:p | 96 | B" },
		{ transpose1, "parallelize 0.0", "\n1 | 64:p | 96 | B" },
		{ tmatmul, "parallelize 0", "\n64:p | 16 | 48 | C" },
	};
	dojo_program *p;
	dojo_env *env;
	double pred;
	int i, threads, k, x;

	for (x = 0; x < 3; x++) {
		struct watch w = { kernels[x].move, 0 };

		p = dojo_program_parse("t.dojo", kernels[x].text,
		    strlen(kernels[x].text));
		CHECK(p != NULL);
		if (!p)
			continue;
		for (threads = 1; threads <= 2; threads++)
			for (i = 0; i < 3; i++) {
				w.at = 0;
				env = played(players[i], i == 2, p, 40,
				    threads, 1, kernels[x].pays,
				    watch_progress, &w);
				if (!env)
					continue;
				for (k = 1; k < dojo_env_n_states(env); k++)
					if (strcmp(dojo_env_action(env, k),
					    kernels[x].move) == 0)
						break;
				printf("# %d threads, %s%s: %s measured "
				    "%d-th, as '%s'\n", threads,
				    players[i]->name, i == 2 ?
				    " with the model" : "", kernels[x].move,
				    w.at, k < dojo_env_n_states(env) ?
				    dojo_env_why(env, k, &pred) : "-");
				if (threads == 2) {
					CHECK(w.at >= 1 && w.at <= 2);
					CHECK(k < dojo_env_n_states(env) &&
					    strcmp(dojo_env_why(env, k,
					    &pred), "outer") == 0);
				} else {
					CHECK(k == dojo_env_n_states(env) ||
					    strcmp(dojo_env_why(env, k,
					    &pred), "outer") != 0);
				}
				dojo_env_free(env);
			}
		dojo_program_free(p);
	}
}

/* y = A^T x + b: the rows of A outermost, a reduction. */
static const char gemvt[] =
    "A f32 [64, 96] heap in\n"
    "x f32 [64] heap in\n"
    "b f32 [96] heap in\n"
    "y f32 [96] heap out\n"
    "96 | y[{0}] = b[{0}]\n"
    "64 | 96 | y[{1}] += A[{0}, {1}] * x[{0}]\n";

/* On 2 threads, where the outer scope is a reduction and its child the
 * contiguous columns, greedy and auto measure early the columns in two
 * blocks, the blocks outside and on threads (swapped whole, the
 * columns would stride A). */
static void
test_split_outward(void)
{
	static const char pays[] = "\n2:p | 64 | 48 | y[";
	dojo_program *p = dojo_program_parse("g.dojo", gemvt,
	    sizeof gemvt - 1);
	dojo_env *env;
	char *text;
	int i;

	CHECK(p != NULL);
	for (i = 0; p && i < 3; i++) {
		env = played(players[i], i == 2, p, 20, 2, 1, pays, NULL,
		    NULL);
		if (!env)
			continue;
		text = dojo_program_print(dojo_env_program(env,
		    dojo_env_best(env)), false);
		printf("# 2 threads, %s%s: the column blocks on threads %s\n",
		    players[i]->name, i == 2 ? " with the model" : "",
		    text && strstr(text, pays) ? "found" : "not found");
		CHECK(text && strstr(text, pays));
		free(text);
		dojo_env_free(env);
	}
	dojo_program_free(p);
}

/* The measurements that first timed "parallelize 0" and a tile (a
 * state the agent chose as a tile: why "tile"). */
struct first {
	int outer, tile;
};

static void
first_progress(dojo_env *env, int state, void *payload)
{
	struct first *f = payload;
	const char *why;
	double pred;

	if (!f->outer && strcmp(dojo_env_action(env, state),
	    "parallelize 0") == 0)
		f->outer = dojo_env_used(env);
	why = dojo_env_why(env, state, &pred);
	if (!f->tile && why && strcmp(why, "tile") == 0)
		f->tile = dojo_env_used(env);
}

/* On threads, the outer scope of a kernel with register tiles is timed
 * before any tile (mlp at 2 threads once spent a climb's 29
 * measurements on its tiles); on one thread, the tiles come first. */
static void
test_outer_tiles(void)
{
	struct first f;
	dojo_program *p;
	dojo_env *env;
	uint64_t seed;
	int i, threads;

	p = dojo_program_parse("t.dojo", product, strlen(product));
	CHECK(p != NULL);
	if (!p)
		return;
	for (threads = 1; threads <= 2; threads++)
		for (i = 0; i < 3; i++)
			for (seed = 1; seed <= 3; seed++) {
				memset(&f, 0, sizeof f);
				env = played(players[i], i == 2, p, 40,
				    threads, seed, "\n16:p | 32 |",
				    first_progress, &f);
				if (!env)
					continue;
				printf("# %d threads, %s%s, seed %d: "
				    "parallelize 0 measured %d-th, the first "
				    "tile %d-th\n", threads, players[i]->name,
				    i == 2 ? " with the model" : "",
				    (int)seed, f.outer, f.tile);
				CHECK(f.tile > 0);
				if (threads == 2 && i < 2)
					CHECK(f.outer == 1);
				else if (threads == 2)
					/* the model's guess, then greedy's */
					CHECK(f.outer >= 1 && f.outer <= 2);
				else
					CHECK(f.outer == 0 || f.outer > f.tile);
				dojo_env_free(env);
			}
	dojo_program_free(p);
}

/* A transpose: blocks of 32, 16 and 8 rows and columns, the outer
 * halves outside (the rows of A and of B that a block touches stay in
 * the cache); an elementwise nest whose arrays agree, and a transpose
 * of 20 columns (no block divides them), none. */
static void
test_blocks(void)
{
	static const char copy[] =
	    "A f32 [64, 96] heap in\n"
	    "B f32 [64, 96] heap out\n"
	    "64 | 96 | B[{0}, {1}] = A[{0}, {1}] * 2\n";
	static const char narrow[] =
	    "A f32 [64, 20] heap in\n"
	    "B f32 [20, 64] heap out\n"
	    "64 | 20 | B[{1}, {0}] = A[{0}, {1}]\n";
	dojo_env *env = cost_env(transpose, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	int n, k;

	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "block");
	CHECK(n == 3);
	CHECK(n == 3 && strcmp(tiles[0].text, "split 0 32; split 0.0.0 32; "
	    "swap 0.0") == 0);
	CHECK(n == 3 && strcmp(tiles[2].text, "split 0 8; split 0.0.0 8; "
	    "swap 0.0") == 0);
	text = n == 3 ? dojo_program_print(dojo_env_program(env,
	    tiles[1].state), false) : NULL;
	CHECK(text && strstr(text, "\n4 | 6 | 16 | 16 | B[{1}*16 + {3}, "
	    "{0}*16 + {2}] = A[{0}*16 + {2}, {1}*16 + {3}] * 2\n"));
	free(text);
	/* on threads (the first move of a climb on threads), the same */
	k = dojo_env_follow(env, 0, "parallelize 0", &k) == DOJO_DONE ? k :
	    -1;
	CHECK(k > 0 && dojo_agent_tiles(env, k, tiles, 16) == 3);
	text = k > 0 ? dojo_program_print(dojo_env_program(env,
	    tiles[1].state), false) : NULL;
	CHECK(text && strstr(text, "\n4:p | 6 | 16 | 16 | B["));
	free(text);
	dojo_env_free(env);
	env = cost_env(copy, tile_cost, 0);
	CHECK(env && dojo_agent_tiles(env, 0, tiles, 16) == 0);
	dojo_env_free(env);
	env = cost_env(narrow, tile_cost, 0);
	CHECK(env && dojo_agent_tiles(env, 0, tiles, 16) == 0);
	dojo_env_free(env);
}

/* Squared distances between the rows of P and of Q: a tile whose vector
 * runs along Q's rows (the columns of D) gathers Q unless Q is packed. */
static const char dist[] =
    "P f32 [32, 16] heap in\n"
    "Q f32 [64, 16] heap in\n"
    "D f32 [32, 64] heap out\n"
    "32 | 64 | D[{0}, {1}] = 0\n"
    "   |    | 16 | D[{0}, {1}] += (P[{0}, {2}] - Q[{1}, {2}]) * "
    "(P[{0}, {2}] - Q[{1}, {2}])\n";

/* The first tile measured (a state with a scope unrolled and one a
 * vector, D's tile on the stack), and whether it packs Q. */
struct tile_watch {
	int at;
	bool packed;
};

static void
tile_progress(dojo_env *env, int state, void *payload)
{
	struct tile_watch *t = payload;
	char *text;

	if (t->at)
		return;
	text = dojo_program_print(dojo_env_program(env, state), false);
	if (text && strstr(text, ":u") && strstr(text, ":v") &&
	    strstr(text, "D_c")) {
		t->at = dojo_env_used(env);
		t->packed = strstr(text, "Q_p") != NULL;
	}
	free(text);
}

/* A climb measures the tiles that read along their vector contiguously
 * (here those with Q packed) before those that gather; a climb once
 * measured eight of the others, none faster than 2x, and no tile after. */
static void
test_gather_tiles(void)
{
	struct tile_watch t;
	dojo_program *p;
	dojo_env *env;
	uint64_t seed;
	int i;

	p = dojo_program_parse("t.dojo", dist, strlen(dist));
	CHECK(p != NULL);
	if (!p)
		return;
	for (i = 0; i < 3; i++)
		for (seed = 1; seed <= 3; seed++) {
			memset(&t, 0, sizeof t);
			env = played(players[i], i == 2, p, 30, 1, seed, "Q_p",
			    tile_progress, &t);
			if (!env)
				continue;
			printf("# %s%s, seed %d: the first tile measured "
			    "%d-th, %s\n", players[i]->name, i == 2 ?
			    " with the model" : "", (int)seed, t.at,
			    t.packed ? "Q packed" : "gathering Q");
			CHECK(t.at > 0 && t.packed);
			dojo_env_free(env);
		}
	dojo_program_free(p);
}

/* A convolution of 6 columns: vectors of 8 along them would waste
 * lanes, so the first tiles run the vector along the 32 output channels
 * (16 of them, two vectors of AVX2) and unroll 3 columns, the tile's
 * copy stored columns first (permute), the weights packed channels last,
 * the taps and the input channels (short reductions) unrolled. */
static const char conv1[] =
    "x f32 [4, 8] heap in\n"
    "w f32 [32, 4, 3] heap in\n"
    "y f32 [32, 6] heap out\n"
    "32 | 6 | y[{0}, {1}] = 0\n"
    "   |   | 4 | 3 | y[{0}, {1}] += x[{2}, {1} + {3}] * w[{0}, {2}, "
    "{3}]\n";

static void
test_channel_tiles(void)
{
	dojo_env *env = cost_env(conv1, tile_cost, 0);
	struct dojo_tile tiles[16];
	char *text;
	int n;

	CHECK(env != NULL);
	if (!env)
		return;
	n = listed(env, 0, tiles, "tile");
	CHECK(n >= 3);
	if (n < 3) {
		dojo_env_free(env);
		return;
	}
	CHECK_STR(tiles[0].text, "fission 0.0 1; fission 0 1; split 1.0 3; "
	    "split 1 16; swap 1.0; swap 1.0.0; swap 1.0.0.0; "
	    "swap 1.0.0.0.0; swap 1.0.0; swap 1.0.0.0; unroll 1.0.0.0.0; "
	    "vectorize 1.0.0.0.0.0; unroll 1.0.0.0; unroll 1.0.0; "
	    "cache 1.0.0 y stack; permute y_c 1,0; pack 1.0 w 1,2,0; "
	    "vectorize 1.0.0.0");
	CHECK(strstr(tiles[1].text, "split 1.0 2; split 1 16;") != NULL);
	/* then the tiles of vectors along the columns */
	CHECK(strstr(tiles[2].text, "permute") == NULL);
	text = dojo_program_print(dojo_env_program(env, tiles[0].state),
	    false);
	printf("%s", text);
	CHECK(strstr(text, "y_c f32 [3, 16] stack\n") != NULL);
	CHECK(strstr(text, "w_p f32 [4, 3, 16] heap\n") != NULL);
	CHECK(strstr(text, "| 4:u | 3:u  | 3:u | 16:v | y_c[{4}, {5}] += "
	    "x[{2}, {1}*3 + {3} + {4}] * w_p[{2}, {3}, {5}]\n") != NULL);
	free(text);
	dojo_env_free(env);
}

static const struct unit_test tests[] = {
	{ "Max-Q values of a hand-made MDP", test_mdp },
	{ "Max-Q: the double-Q target", test_double_target },
	{ "model files: round trip, version and encoder errors",
	  test_model_file },
	{ "encoders: built-in, external protocol and its errors",
	  test_encoders },
	{ "environment: failures, budget", test_env },
	{ "environment: one move followed without the action set",
	  test_follow },
	{ "agents: deterministic per seed, budget kept, a faster state found",
	  test_agents },
	{ "greedy: a neutral move that enables a gain", test_greedy_enabling },
	{ "environment: a gain checked in alternate pairs", test_compare },
	{ "environment: two children timed on what they do apart", test_duel },
	{ "register tiles: moves, nest, none when tiled", test_tiles },
	{ "register tiles: a batch of products unrolls rows, not the batch",
	  test_batch_tiles },
	{ "fusions: a padded copy fused with its stencil, folded",
	  test_fusions },
	{ "accumulators: a row sum in vectors of partial sums",
	  test_accumulators },
	{ "channel tiles: the vector along the channels, permuted, packed",
	  test_channel_tiles },
	{ "register tiles: shapes from the vector registers",
	  test_tile_shapes },
	{ "register tiles: a row no vector divides, its head peeled",
	  test_peeled_tiles },
	{ "greedy: a gain only a register tile reaches", test_greedy_tiles },
	{ "Max-Q: exploring, it plays a register tile", test_maxq_tiles },
	{ "Max-Q: a failure teaches the floor of the targets",
	  test_maxq_floor },
	{ "Max-Q: a measured move is valued by its measurement",
	  test_maxq_measured },
	{ "Max-Q: learning does not change what is explored",
	  test_maxq_draws },
	{ "the shipped model ranks a register tile above a loss",
	  test_shipped_model },
	{ "auto: settled, the same seed the same path",
	  test_auto },
	{ "greedy, auto: the outer scope on threads early", test_outer },
	{ "greedy, auto: on threads, a reduction's columns in blocks outside",
	  test_split_outward },
	{ "greedy, auto: on threads, the outer scope before the tiles",
	  test_outer_tiles },
	{ "blocks of a transpose", test_blocks },
	{ "greedy, auto: tiles that gather after those that do not",
	  test_gather_tiles },
	{ "greedy, auto: contiguous innermost vectors early", test_inner },
	{ "greedy, auto: a temporary's rows padded early", test_layout },
	{ "greedy, auto: an output's accumulators copied locally early",
	  test_local },
	{ "greedy, auto: the row of outputs a reduction fills copied locally "
	  "early", test_local_row },
	{ "tiles that keep their neighbours, blocks of rows", test_neighbours },
	{ NULL, NULL }
};

int
main(void)
{
	int rc;
	char cmd[300];

	if (!mkdtemp(tmpdir))
		return 1;
	/* the tiles' shapes, whatever this CPU: AVX2's (test_tile_shapes) */
	setenv("PERFDOJO_VECTORS", "32x16", 1);
	rc = unit_run(tests);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
