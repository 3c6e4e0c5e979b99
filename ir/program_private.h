/* program_private.h: the body of the program tree, for ir/ only */
#ifndef DOJO_PROGRAM_PRIVATE_H
#define DOJO_PROGRAM_PRIVATE_H

#include "ir/program.h"

struct dojo_pos {
	int line;
	int col;
};

/* An affine index: c + sum of t[i].k * {t[i].d}, terms sorted by depth,
 * no zero coefficient, no depth twice. */
struct dojo_term {
	int d;
	int64_t k;
};
struct dojo_aff {
	int64_t c;
	int n;
	struct dojo_term *t;
	struct dojo_pos pos;
};

struct dojo_access {
	int array;
	int nidx;
	struct dojo_aff *idx;
	struct dojo_pos pos;
};


struct dojo_expr {
	enum dojo_expr_kind kind;
	double num;
	struct dojo_access acc;
	enum dojo_fn fn;
	struct dojo_expr *a, *b;
	struct dojo_pos pos;
};

struct dojo_node {
	int ref;
	enum dojo_node_kind kind;
	struct dojo_pos pos;
	/* scope */
	int64_t size;
	char flag;
	char name[DOJO_MAX_NAME + 1];	/* the loop's name ("": none yet) */
	int n;
	struct dojo_node **kids;
	/* operation */
	struct dojo_access lhs;
	enum dojo_update update;
	struct dojo_expr *rhs;
};

struct dojo_buffer {
	char name[DOJO_MAX_NAME + 1];
	enum dojo_dtype dtype;
	int ndim;
	int64_t ext[DOJO_MAX_DIMS];
	int64_t fold[DOJO_MAX_DIMS];
	int64_t pad[DOJO_MAX_DIMS];	/* slots stored past the extent */
	enum dojo_loc loc;
	enum dojo_role role;
	bool explicit_arrays;	/* written with "->" */
	struct dojo_pos pos;
};

struct dojo_array {
	char name[DOJO_MAX_NAME + 1];
	int buffer;
	struct dojo_pos pos;
};

/* Declarations, shared between the versions of a program. */
struct dojo_decls {
	int ref;
	int nbuf;
	struct dojo_buffer *buf;
	int narr;
	struct dojo_array *arr;
	bool named;	/* the file gave loop names: they print with it */
};

struct dojo_program {
	int ref;
	char *file;
	struct dojo_decls *decls;
	int n;
	struct dojo_node **kids;
};

/* The slots stored of dimension "d" of "b" (its fold, else its extent
 * and its pad), and the elements stored in all. */
int64_t dojo_buffer_slots(const struct dojo_buffer *b, int d);
uint64_t dojo_buffer_count(const struct dojo_buffer *b);

/* A program with the file of "prog", the declarations "decls" (NULL: its
 * own, a new reference either way) and no children yet. */
dojo_program *program_with(dojo_program *prog, struct dojo_decls *decls);
struct dojo_node *dojo_node_new_scope(int64_t size, char flag);
struct dojo_node *dojo_node_new_op(void);
struct dojo_node *dojo_node_ref(struct dojo_node *node);
void dojo_node_unref(struct dojo_node *node);
int dojo_node_append(struct dojo_node *parent, struct dojo_node *child);
int dojo_kids_append(struct dojo_node ***kids, int *n, struct dojo_node *c);

struct dojo_expr *dojo_expr_new(enum dojo_expr_kind kind);
void dojo_expr_free(struct dojo_expr *e);
void dojo_access_release(struct dojo_access *acc);
void dojo_aff_release(struct dojo_aff *aff);
void dojo_decls_unref(struct dojo_decls *decls);

/* Call "fn" on every access of "node"'s operation, the written one first
 * ("write" true), then the read ones in the order of the text. */
typedef int (*dojo_access_fn)(struct dojo_access *acc, bool write,
    void *payload);
int dojo_op_foreach_access(struct dojo_node *op, dojo_access_fn fn,
    void *payload);

/* Parse without the checks of dojo_program_validate. */
dojo_program *dojo_program_parse_only(const char *file, const char *text,
    size_t len);


bool dojo_access_uses(const struct dojo_access *acc, int d);

/* Loop names (ir/loops.c).  Set the name of a scope node that is not yet
 * shared, as "fmt" formats it (cut to DOJO_MAX_NAME). */
void loop_name_set(struct dojo_node *scope, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Whether "name" may name a loop: a letter or '_', then letters, digits
 * and "_.+*"; the length of its valid prefix in "*len". */
bool loop_name_valid(const char *name, size_t len);



#endif
