/* apart.c: what two versions of a program do apart (dojo_program_apart)
 *
 * Two children of one state that change the same nest (two register
 * tiles of it) share every other top-level nest.  Timed whole, the
 * shared nests dilute their difference: two tiles of the second layer of
 * a perceptron 20% apart are 1.5% apart while the first layer is naive,
 * below the noise of a run.  Timed without what they share, the
 * difference is the tiles' own.
 */
#include "config.h"
#include "ir/moves_private.h"
#include "src/util/strbuf.h"

#include <stdlib.h>
#include <string.h>

enum { USE_READ = 1, USE_SET = 2, USE_UPDATE = 4 };

struct uses {
	dojo_program *prog;
	unsigned char *use;		/* by buffer */
};

static int
note_use(struct scan *sc, struct dojo_access *acc, bool write)
{
	struct uses *u = sc->payload;
	int b = u->prog->decls->arr[acc->array].buffer;

	if (!write)
		u->use[b] |= USE_READ;
	else
		u->use[b] |= sc->op->update == DOJO_SET ? USE_SET : USE_UPDATE;
	return 0;
}

/* The uses of each buffer by the top-level nodes "i" of "prog" with
 * keep[i] == want (keep NULL: node "only" alone) into "use". */
static void
uses_of(dojo_program *prog, const bool *keep, bool want, int only,
    unsigned char *use)
{
	struct uses u = { prog, use };
	struct scan sc;
	int i;

	memset(&sc, 0, sizeof sc);
	sc.fn = note_use;
	sc.payload = &u;
	memset(use, 0, prog->decls->nbuf);
	for (i = 0; i < prog->n; i++)
		if (keep ? keep[i] == want : i == only) {
			sc.depth = 0;
			scan_tree(&sc, prog->kids[i]);
		}
}

/* The text that decides whether two top-level nodes are the same: the
 * node printed alone, after the declarations of the buffers it uses (a
 * nest that reads a padded copy of an array is not the nest that reads
 * the array).  NULL on no memory. */
static char *
node_key(dojo_program *prog, int i, unsigned char *use)
{
	struct dojo_strbuf sb;
	dojo_program *one;
	char *text, *line, *end;
	int b;

	one = program_with(prog, NULL);
	if (!one)
		return NULL;
	if (dojo_kids_append(&one->kids, &one->n,
	    dojo_node_ref(prog->kids[i])) < 0) {
		dojo_program_free(one);
		return NULL;
	}
	text = dojo_program_print(one, false);
	dojo_program_free(one);
	if (!text)
		return NULL;
	uses_of(prog, NULL, false, i, use);
	dojo_strbuf_init(&sb);
	/* one declaration a line, one line a buffer, then the node */
	for (b = 0, line = text; b < prog->decls->nbuf && *line; b++) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		if (use[b])
			dojo_strbuf_add(&sb, line, (size_t)(end - line));
		line = end;
	}
	dojo_strbuf_puts(&sb, line);
	free(text);
	if (sb.oom) {
		dojo_strbuf_release(&sb);
		return NULL;
	}
	return dojo_strbuf_detach(&sb);
}

/* "prog" with the top-level nodes "i" of keep[i] only, its buffers
 * given the roles that let them run alone. */
static dojo_program *
alone(dojo_program *prog, const bool *keep, unsigned char *kept,
    unsigned char *left)
{
	struct dojo_decls *d;
	struct dojo_buffer *buf;
	dojo_program *p;
	int i, b;

	uses_of(prog, keep, true, -1, kept);
	uses_of(prog, keep, false, -1, left);
	d = decls_copy(prog->decls);
	if (!d)
		goto oom;
	for (b = 0; b < d->nbuf; b++) {
		buf = &d->buf[b];
		/* a temporary or an output that the nodes left out used:
		 * the data they left in it is the caller's now, and what
		 * the kept nodes write in it is their result */
		if (buf->loc != DOJO_HEAP || !left[b] ||
		    (buf->role != DOJO_TEMP && buf->role != DOJO_OUT))
			continue;
		if (!kept[b])
			buf->role = DOJO_TEMP;
		else if (kept[b] & (USE_READ | USE_UPDATE))
			buf->role = DOJO_INOUT;
		else
			buf->role = DOJO_OUT;
	}
	p = program_with(prog, d);
	if (!p) {
		dojo_decls_unref(d);	/* a copy's count is 0 */
		goto oom;
	}
	for (i = 0; i < prog->n; i++)
		if (keep[i] && dojo_kids_append(&p->kids, &p->n,
		    dojo_node_ref(prog->kids[i])) < 0) {
			dojo_program_free(p);
			goto oom;
		}
	return p;
oom:
	dojo_error_set("out of memory");
	return NULL;
}

static char **
keys_of(dojo_program *prog, unsigned char *use)
{
	char **key = calloc((size_t)prog->n + 1, sizeof *key);
	int i;

	for (i = 0; key && i < prog->n; i++)
		if (!(key[i] = node_key(prog, i, use))) {
			while (i-- > 0)
				free(key[i]);
			free(key);
			return NULL;
		}
	return key;
}

static void
keys_free(char **key, int n)
{
	int i;

	for (i = 0; key && i < n; i++)
		free(key[i]);
	free(key);
}

int
dojo_program_apart(dojo_program *a, dojo_program *b, dojo_program **pa,
    dojo_program **pb)
{
	unsigned char *ua, *ub, *va, *vb;
	char **ka = NULL, **kb = NULL;
	bool *keepa, *keepb;
	int i, j, shared = 0, rc = -1;

	*pa = *pb = NULL;
	ua = malloc((size_t)a->decls->nbuf + 1);
	ub = malloc((size_t)b->decls->nbuf + 1);
	va = malloc((size_t)a->decls->nbuf + 1);
	vb = malloc((size_t)b->decls->nbuf + 1);
	keepa = malloc(((size_t)a->n + 1) * sizeof *keepa);
	keepb = malloc(((size_t)b->n + 1) * sizeof *keepb);
	if (!ua || !ub || !va || !vb || !keepa || !keepb ||
	    !(ka = keys_of(a, ua)) || !(kb = keys_of(b, ub))) {
		dojo_error_set("out of memory");
		goto out;
	}
	for (i = 0; i < a->n; i++)
		keepa[i] = true;
	for (j = 0; j < b->n; j++)
		keepb[j] = true;
	for (i = 0; i < a->n; i++)
		for (j = 0; j < b->n; j++)
			if (keepb[j] && strcmp(ka[i], kb[j]) == 0) {
				keepa[i] = keepb[j] = false;
				shared++;
				break;
			}
	rc = 1;
	if (shared == 0 || shared == a->n || shared == b->n)
		goto out;
	rc = -1;
	if (!(*pa = alone(a, keepa, ua, va)) ||
	    !(*pb = alone(b, keepb, ub, vb))) {
		dojo_program_free(*pa);
		*pa = NULL;
		goto out;
	}
	rc = 0;
out:
	keys_free(ka, a->n);
	keys_free(kb, b->n);
	free(ua);
	free(ub);
	free(va);
	free(vb);
	free(keepa);
	free(keepb);
	return rc;
}
