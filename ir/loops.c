/* loops.c: the names of loops (doc/ir.md, "Loop names")
 *
 * Every scope of a program has a name, unique in the program: the one its
 * file gives ("i=512 | ..."), the one a move made from the names it had
 * (split i: i.o and i.i), or by default the letter of its depth.  Names
 * are a view and an alias: the canonical text, and so the state id, has
 * none.  A move makes its names (ir/move_*.c); this file gives the scopes
 * that have none their default, makes repeated names unique, and finds a
 * scope by its name.
 */
#include "config.h"
#include "ir/program_private.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util/strbuf.h"

void
loop_name_set(struct dojo_node *scope, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(scope->name, sizeof scope->name, fmt, ap);
	va_end(ap);
}

bool
loop_name_valid(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > DOJO_MAX_NAME ||
	    !(isalpha((unsigned char)name[0]) || name[0] == '_'))
		return false;
	for (i = 1; i < len; i++)
		if (!isalnum((unsigned char)name[i]) &&
		    !strchr("_.+*", name[i]))
			return false;
	return true;
}

bool
dojo_program_names_given(dojo_program *prog)
{
	return prog->decls->named;
}

const char *
dojo_node_name(dojo_node *node)
{
	return node->kind == DOJO_SCOPE ? node->name : "";
}

/*
 * Naming every scope.
 */

struct namer {
	char (*names)[DOJO_MAX_NAME + 1];	/* taken so far */
	int n, cap;
	bool failed;
};

static bool
taken(const struct namer *nm, const char *name)
{
	int i;

	for (i = 0; i < nm->n; i++)
		if (strcmp(nm->names[i], name) == 0)
			return true;
	return false;
}

static void
take(struct namer *nm, const char *name)
{
	if (nm->n == nm->cap) {
		int cap = nm->cap ? 2 * nm->cap : 32;
		void *p = realloc(nm->names, cap * sizeof *nm->names);

		if (!p) {
			nm->failed = true;
			return;
		}
		nm->names = p;
		nm->cap = cap;
	}
	snprintf(nm->names[nm->n++], DOJO_MAX_NAME + 1, "%s", name);
}

/* The default name of a scope at "depth": i j k l m n p ... z for the
 * depths 0 to 16, then "d17", "d18" ... */
static void
default_name(char *out, int depth)
{
	static const char letters[] = "ijklmnpqrstuvwxyz";

	if (depth < (int)sizeof letters - 1)
		snprintf(out, DOJO_MAX_NAME + 1, "%c", letters[depth]);
	else
		snprintf(out, DOJO_MAX_NAME + 1, "d%d", depth);
}

/* "base", or "base_2", "base_3" ... the first that neither "a" nor "b"
 * holds. */
static void
fresh(char *out, const struct namer *a, const struct namer *b,
    const char *base)
{
	int k;

	snprintf(out, DOJO_MAX_NAME + 1, "%s", base);
	for (k = 2; taken(a, out) || taken(b, out); k++) {
		char tmp[DOJO_MAX_NAME + 16];

		snprintf(tmp, sizeof tmp, "%.*s_%d", DOJO_MAX_NAME - 8, base,
		    k % 1000000);
		memcpy(out, tmp, DOJO_MAX_NAME + 1);
	}
}

/* The names given, the first time each is met in the program's order. */
static void
collect(struct namer *nm, const struct dojo_node *node)
{
	int i;

	if (node->kind != DOJO_SCOPE)
		return;
	if (node->name[0] && !taken(nm, node->name))
		take(nm, node->name);
	for (i = 0; i < node->n; i++)
		collect(nm, node->kids[i]);
}

/* "node" with its subtree named (a new reference: "node" itself when
 * nothing changes); "given" holds the names given, "done" those that a
 * scope met before already holds. */
static struct dojo_node *
name_tree(struct dojo_node *node, int depth, const struct namer *given,
    struct namer *done)
{
	struct dojo_node **kids, *copy;
	char name[DOJO_MAX_NAME + 1];
	bool same;
	int i;

	if (node->kind != DOJO_SCOPE)
		return dojo_node_ref(node);
	if (node->name[0] && !taken(done, node->name)) {
		snprintf(name, sizeof name, "%s", node->name);
	} else {
		char base[DOJO_MAX_NAME + 1];

		/* a default, or a repeated name made unique: taken by no
		 * scope before it, and given to none after it */
		if (node->name[0])
			snprintf(base, sizeof base, "%s", node->name);
		else
			default_name(base, depth);
		fresh(name, done, given, base);
	}
	take(done, name);
	kids = calloc(node->n ? node->n : 1, sizeof *kids);
	if (!kids)
		return NULL;
	same = strcmp(name, node->name) == 0;
	for (i = 0; i < node->n; i++) {
		kids[i] = name_tree(node->kids[i], depth + 1, given, done);
		if (!kids[i])
			goto out_free;
		same = same && kids[i] == node->kids[i];
	}
	if (same) {
		for (i = 0; i < node->n; i++)
			dojo_node_unref(kids[i]);
		free(kids);
		return dojo_node_ref(node);
	}
	copy = dojo_node_new_scope(node->size, node->flag);
	if (!copy)
		goto out_free;
	copy->pos = node->pos;
	snprintf(copy->name, sizeof copy->name, "%s", name);
	for (i = 0; i < node->n; i++) {
		if (dojo_node_append(copy, kids[i]) < 0) {
			kids[i] = NULL;
			dojo_node_unref(copy);
			goto out_free;
		}
		kids[i] = NULL;
	}
	free(kids);
	return copy;
out_free:
	for (i = 0; i < node->n; i++)
		dojo_node_unref(kids[i]);
	free(kids);
	return NULL;
}

dojo_program *
dojo_program_name_loops(dojo_program *prog)
{
	struct namer given = { 0 }, done = { 0 };
	struct dojo_node **kids;
	dojo_program *p = NULL;
	bool same = true;
	int i;

	if (!prog)
		return NULL;
	for (i = 0; i < prog->n; i++)
		collect(&given, prog->kids[i]);
	kids = calloc(prog->n ? prog->n : 1, sizeof *kids);
	if (!kids || given.failed)
		goto out;
	for (i = 0; i < prog->n; i++) {
		kids[i] = name_tree(prog->kids[i], 0, &given, &done);
		if (!kids[i] || done.failed)
			goto out;
		same = same && kids[i] == prog->kids[i];
	}
	if (same) {
		p = dojo_program_copy(prog);
		goto out;
	}
	p = program_with(prog, NULL);
	if (!p)
		goto out;
	p->kids = kids;
	p->n = prog->n;
	kids = NULL;
out:
	for (i = 0; kids && i < prog->n; i++)
		dojo_node_unref(kids[i]);
	free(kids);
	free(given.names);
	free(done.names);
	if (!p)
		dojo_error_set("out of memory");
	return p;
}

/*
 * Finding a scope by its name.
 */

static int
find(const struct dojo_node *node, const char *name, int *path, int depth)
{
	int i, n;

	if (node->kind != DOJO_SCOPE)
		return -1;
	if (strcmp(node->name, name) == 0)
		return depth + 1;
	for (i = 0; i < node->n; i++) {
		if (node->kids[i]->kind != DOJO_SCOPE ||
		    depth + 1 >= DOJO_MAX_DEPTH)
			continue;
		path[depth + 1] = i;
		n = find(node->kids[i], name, path, depth + 1);
		if (n > 0)
			return n;
	}
	return -1;
}

static void
list(struct dojo_strbuf *sb, const struct dojo_node *node)
{
	int i;

	if (node->kind != DOJO_SCOPE)
		return;
	dojo_strbuf_printf(sb, "%s%s", sb->len ? ", " : "", node->name);
	for (i = 0; i < node->n; i++)
		list(sb, node->kids[i]);
}

char *
dojo_program_loop_names(dojo_program *prog)
{
	struct dojo_strbuf sb;
	int i;

	dojo_strbuf_init(&sb);
	for (i = 0; i < prog->n; i++)
		list(&sb, prog->kids[i]);
	return dojo_strbuf_detach(&sb);
}

int
dojo_program_find_loop(dojo_program *prog, const char *name,
    int path[DOJO_MAX_DEPTH])
{
	char *names;
	int i, n;

	for (i = 0; i < prog->n; i++) {
		path[0] = i;
		n = find(prog->kids[i], name, path, 0);
		if (n > 0)
			return n;
	}
	names = dojo_program_loop_names(prog);
	dojo_error_set("no loop named '%s' (the loops: %s)", name,
	    names && *names ? names : "none");
	free(names);
	return -1;
}
