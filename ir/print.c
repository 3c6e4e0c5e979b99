/* print.c: the canonical text of a program (doc/ir.md section 7) */
#include "config.h"
#include "ir/program_private.h"
#include "src/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PREC_ADD = 1, PREC_MUL = 2, PREC_NEG = 3, PREC_ATOM = 4 };

static void
print_aff(struct dojo_strbuf *sb, const struct dojo_aff *aff)
{
	int64_t k;
	int i;

	for (i = 0; i < aff->n; i++) {
		k = aff->t[i].k;
		if (i == 0)
			dojo_strbuf_puts(sb, k < 0 ? "-" : "");
		else
			dojo_strbuf_puts(sb, k < 0 ? " - " : " + ");
		dojo_strbuf_printf(sb, "{%d}", aff->t[i].d);
		if (k != 1 && k != -1)
			dojo_strbuf_printf(sb, "*%llu", k < 0 ?
			    -(unsigned long long)k : (unsigned long long)k);
	}
	if (aff->n == 0)
		dojo_strbuf_printf(sb, "%lld", (long long)aff->c);
	else if (aff->c != 0)
		dojo_strbuf_printf(sb, " %c %llu", aff->c < 0 ? '-' : '+',
		    aff->c < 0 ? -(unsigned long long)aff->c :
		    (unsigned long long)aff->c);
}

static void
print_access(struct dojo_strbuf *sb, dojo_program *prog,
    const struct dojo_access *acc)
{
	int i;

	dojo_strbuf_puts(sb, prog->decls->arr[acc->array].name);
	dojo_strbuf_puts(sb, "[");
	for (i = 0; i < acc->nidx; i++) {
		if (i)
			dojo_strbuf_puts(sb, ", ");
		print_aff(sb, &acc->idx[i]);
	}
	dojo_strbuf_puts(sb, "]");
}

static int
expr_prec(const struct dojo_expr *e)
{
	switch (e->kind) {
	case DOJO_E_ADD:
	case DOJO_E_SUB:
		return PREC_ADD;
	case DOJO_E_MUL:
	case DOJO_E_DIV:
		return PREC_MUL;
	case DOJO_E_NEG:
		return PREC_NEG;
	case DOJO_E_NUM:
		return e->num < 0 || (e->num == 0 && 1 / e->num < 0) ?
		    PREC_NEG : PREC_ATOM;
	default:
		return PREC_ATOM;
	}
}

/* Print "e" where the context binds with "prec"; "right": as the right
 * operand, where an equal precedence needs parentheses. */
static void
print_expr(struct dojo_strbuf *sb, dojo_program *prog,
    const struct dojo_expr *e, int prec, bool right)
{
	static const char *const fns[] = {
		"exp", "log", "sqrt", "tanh", "abs", "max", "min"
	};
	static const char *const ops[] = {
		[DOJO_E_ADD] = " + ", [DOJO_E_SUB] = " - ",
		[DOJO_E_MUL] = " * ", [DOJO_E_DIV] = " / ",
	};
	int p = expr_prec(e);
	bool paren = p < prec || (p == prec && right);
	char num[32];

	if (paren)
		dojo_strbuf_puts(sb, "(");
	switch (e->kind) {
	case DOJO_E_NUM:
		dojo_format_number(num, e->num);
		dojo_strbuf_puts(sb, num);
		break;
	case DOJO_E_ACCESS:
		print_access(sb, prog, &e->acc);
		break;
	case DOJO_E_NEG:
		dojo_strbuf_puts(sb, "-");
		print_expr(sb, prog, e->a, PREC_NEG, true);
		break;
	case DOJO_E_CALL:
		dojo_strbuf_puts(sb, fns[e->fn]);
		dojo_strbuf_puts(sb, "(");
		print_expr(sb, prog, e->a, 0, false);
		if (e->b) {
			dojo_strbuf_puts(sb, ", ");
			print_expr(sb, prog, e->b, 0, false);
		}
		dojo_strbuf_puts(sb, ")");
		break;
	default:
		print_expr(sb, prog, e->a, p, false);
		dojo_strbuf_puts(sb, ops[e->kind]);
		print_expr(sb, prog, e->b, p, true);
		break;
	}
	if (paren)
		dojo_strbuf_puts(sb, ")");
}

/* The text of an operation, without its cells. */
void
dojo_op_print(struct dojo_strbuf *sb, dojo_program *prog,
    const struct dojo_node *op)
{
	static const char *const updates[] = {
		" = ", " += ", " -= ", " *= ", " max= ", " min= "
	};

	print_access(sb, prog, &op->lhs);
	dojo_strbuf_puts(sb, updates[op->update]);
	print_expr(sb, prog, op->rhs, 0, false);
}

/* The cell of scope "s": [NAME=]SIZE[:FLAG] into "out"; its length. */
static int
header(char *out, size_t len, const struct dojo_node *s, bool names)
{
	int n = 0;

	if (names && s->name[0])
		n = snprintf(out, len, "%s=", s->name);
	n += snprintf(out + n, len - n, "%lld", (long long)s->size);
	if (s->flag)
		n += snprintf(out + n, len - n, ":%c", s->flag);
	return n;
}

static void
measure(const struct dojo_node *node, int depth, int *width, bool names)
{
	char head[DOJO_MAX_NAME + 40];
	int i, w;

	if (node->kind != DOJO_SCOPE)
		return;
	w = header(head, sizeof head, node, names);
	if (w > width[depth])
		width[depth] = w;
	for (i = 0; i < node->n; i++)
		measure(node->kids[i], depth + 1, width, names);
}

struct printer {
	struct dojo_strbuf *sb;
	dojo_program *prog;
	int width[DOJO_MAX_DEPTH + 1];
	const struct dojo_node *chain[DOJO_MAX_DEPTH];
	bool pending[DOJO_MAX_DEPTH];	/* opened, header not printed */
	int path[DOJO_MAX_DEPTH + 1];
	int gutter;			/* 0: no addresses */
	bool names;			/* the loops' names in the cells */
};

static int
address_len(const int *path, int n)
{
	char buf[16];
	int i, len = 0;

	for (i = 0; i < n; i++)
		len += snprintf(buf, sizeof buf, "%d", path[i]) + (i > 0);
	return len;
}

static void
gutter_width(struct printer *pr, const struct dojo_node *node, int depth)
{
	int i, w;

	if (node->kind == DOJO_OP) {
		w = address_len(pr->path, depth + 1);
		if (w > pr->gutter)
			pr->gutter = w;
		return;
	}
	for (i = 0; i < node->n; i++) {
		pr->path[depth + 1] = i;
		gutter_width(pr, node->kids[i], depth + 1);
	}
}

static void
print_node(struct printer *pr, const struct dojo_node *node, int depth)
{
	struct dojo_strbuf *sb = pr->sb;
	char head[DOJO_MAX_NAME + 40];
	int i, j, n;

	if (node->kind == DOJO_SCOPE) {
		pr->chain[depth] = node;
		pr->pending[depth] = true;
		for (i = 0; i < node->n; i++) {
			pr->path[depth + 1] = i;
			print_node(pr, node->kids[i], depth + 1);
		}
		return;
	}
	if (pr->gutter) {
		n = 0;
		for (j = 0; j <= depth; j++) {
			dojo_strbuf_printf(sb, j ? ".%d" : "%d", pr->path[j]);
			n += snprintf(head, sizeof head, "%d", pr->path[j]) +
			    (j > 0);
		}
		dojo_strbuf_pad(sb, ' ', pr->gutter - n + 2);
	}
	for (j = 0; j < depth; j++) {
		if (pr->pending[j]) {
			n = header(head, sizeof head, pr->chain[j], pr->names);
			pr->pending[j] = false;
		} else {
			head[0] = '\0';
			n = 0;
		}
		dojo_strbuf_puts(sb, head);
		dojo_strbuf_pad(sb, ' ', pr->width[j] - n);
		dojo_strbuf_puts(sb, " | ");
	}
	dojo_op_print(sb, pr->prog, node);
	dojo_strbuf_puts(sb, "\n");
}

static void
print_decl(struct printer *pr, int b)
{
	struct dojo_decls *d = pr->prog->decls;
	const struct dojo_buffer *buf = &d->buf[b];
	struct dojo_strbuf *sb = pr->sb;
	int i, first = 1;

	if (pr->gutter)
		dojo_strbuf_pad(sb, ' ', pr->gutter + 2);
	dojo_strbuf_printf(sb, "%s %s [", buf->name, dojo_dtype_name(buf->dtype));
	for (i = 0; i < buf->ndim; i++) {
		dojo_strbuf_printf(sb, "%s%lld", i ? ", " : "",
		    (long long)buf->ext[i]);
		if (buf->fold[i])
			dojo_strbuf_printf(sb, ":%lld",
			    (long long)buf->fold[i]);
		if (buf->pad[i])
			dojo_strbuf_printf(sb, "+%lld", (long long)buf->pad[i]);
	}
	dojo_strbuf_printf(sb, "] %s", dojo_loc_name(buf->loc));
	if (buf->role != DOJO_TEMP)
		dojo_strbuf_printf(sb, " %s", dojo_role_name(buf->role));
	if (buf->explicit_arrays) {
		dojo_strbuf_puts(sb, " ->");
		for (i = 0; i < d->narr; i++)
			if (d->arr[i].buffer == b) {
				dojo_strbuf_printf(sb, "%s %s",
				    first ? "" : ",", d->arr[i].name);
				first = 0;
			}
	}
	dojo_strbuf_puts(sb, "\n");
}

static char *
print(dojo_program *prog, bool addresses, bool names)
{
	struct dojo_strbuf sb;
	struct printer *pr;
	int i;

	pr = calloc(1, sizeof *pr);
	if (!pr)
		return NULL;
	dojo_strbuf_init(&sb);
	pr->sb = &sb;
	pr->prog = prog;
	pr->names = names;
	for (i = 0; i < prog->n; i++)
		measure(prog->kids[i], 0, pr->width, names);
	if (addresses)
		for (i = 0; i < prog->n; i++) {
			pr->path[0] = i;
			gutter_width(pr, prog->kids[i], 0);
		}
	for (i = 0; i < prog->decls->nbuf; i++)
		print_decl(pr, i);
	for (i = 0; i < prog->n; i++) {
		pr->path[0] = i;
		print_node(pr, prog->kids[i], 0);
	}
	free(pr);
	return dojo_strbuf_detach(&sb);
}

char *
dojo_program_print(dojo_program *prog, bool addresses)
{
	return print(prog, addresses, false);
}

char *
dojo_program_print_named(dojo_program *prog, bool addresses)
{
	return print(prog, addresses, true);
}
