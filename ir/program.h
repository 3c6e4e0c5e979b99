/* program.h: the persistent program tree of a .dojo kernel */
#ifndef DOJO_PROGRAM_H
#define DOJO_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/util/error.h"

#define DOJO_MAX_NAME 63	/* characters in a name */
#define DOJO_MAX_DIMS 32	/* dimensions of a buffer */
#define DOJO_MAX_DEPTH 64	/* nesting depth of scopes */
#define DOJO_MAX_LINE 65536	/* bytes in a line */

typedef struct dojo_program dojo_program;
typedef struct dojo_node dojo_node;
typedef struct dojo_expr dojo_expr;

enum dojo_dtype { DOJO_F32, DOJO_F64, DOJO_I32, DOJO_I64 };
enum dojo_loc { DOJO_HEAP, DOJO_STACK, DOJO_REG, DOJO_SHARED };
enum dojo_role { DOJO_TEMP, DOJO_IN, DOJO_OUT, DOJO_INOUT };
enum dojo_node_kind { DOJO_SCOPE, DOJO_OP };
/* The update of an operation: =, +=, -=, *=, max=, min= */
enum dojo_update {
	DOJO_SET, DOJO_ADD_SET, DOJO_SUB_SET, DOJO_MUL_SET,
	DOJO_MAX_SET, DOJO_MIN_SET
};

/* The most copies of one operation that nested unrolled scopes make: the
 * moves refuse more, the code generators emit loops past it. */
#define DOJO_UNROLL_COPIES 256

/* Lifecycle.  Programs and nodes are reference counted and never change
 * once built; a transformation builds a new program that shares the
 * unchanged subtrees. */
__dojo_give dojo_program *dojo_program_copy(__dojo_keep dojo_program *prog);
void dojo_program_free(__dojo_take dojo_program *prog);

/* Read a program from "text" of "len" bytes; "file" names it in errors.
 * Returns NULL with the last error set to FILE:LINE:COL: message. */
__dojo_give dojo_program *dojo_program_parse(const char *file,
    const char *text, size_t len);
__dojo_give dojo_program *dojo_program_read_file(const char *path);

/* Check every rule of the language on a parsed program (bounds, roles,
 * reads before writes, registers).  0 or -1 with the last error set. */
int dojo_program_validate(__dojo_keep dojo_program *prog);
/* The same without the dependence analysis (bounds, roles, registers). */
int dojo_program_validate_structure(__dojo_keep dojo_program *prog);

/* The canonical text (malloc'ed, NUL-terminated); NULL on no memory. */
__dojo_give char *dojo_program_print(__dojo_keep dojo_program *prog,
    bool addresses);
/* The text with each scope's name before its size ("i=512 | ..."), which
 * reads back to the same names; its state id is the canonical text's. */
__dojo_give char *dojo_program_print_named(__dojo_keep dojo_program *prog,
    bool addresses);
/* Whether the file "prog" was read from gave loop names: a text of it to
 * keep ("apply -o", "show") is then written with dojo_program_print_named. */
bool dojo_program_names_given(__dojo_keep dojo_program *prog);
/* The state id: git's blob id of the canonical text, 40 hex digits. */
void dojo_program_id(char out[41], __dojo_keep dojo_program *prog);
bool dojo_program_equal(__dojo_keep dojo_program *a,
    __dojo_keep dojo_program *b);

/* What "a" and "b" do apart: each without the top-level nodes the other
 * has too (the same text, reading and writing buffers declared the same;
 * each matched once), into "*pa" and "*pb", so that timing the two
 * compares what differs between them alone.  A heap temporary or output
 * that a left-out node used becomes "inout" where the kept nodes read or
 * update it (its data came from the nodes left out), "out" where they
 * only set it (their result), a temporary where they do not use it.
 * The parts are not validated.  0; 1 when the two share no node, or
 * one is all shared (nothing to compare apart; both NULL); -1 with the
 * last error set. */
int dojo_program_apart(__dojo_keep dojo_program *a, __dojo_keep dojo_program *b,
    __dojo_give dojo_program **pa, __dojo_give dojo_program **pb);

/* Declarations. */
const char *dojo_program_file(__dojo_keep dojo_program *prog);
int dojo_program_n_buffers(__dojo_keep dojo_program *prog);
const char *dojo_buffer_name(__dojo_keep dojo_program *prog, int b);
enum dojo_dtype dojo_buffer_dtype(__dojo_keep dojo_program *prog, int b);
int dojo_buffer_ndim(__dojo_keep dojo_program *prog, int b);
int64_t dojo_buffer_extent(__dojo_keep dojo_program *prog, int b, int d);
/* 0: not folded */
int64_t dojo_buffer_fold(__dojo_keep dojo_program *prog, int b, int d);
/* 0: not padded */
int64_t dojo_buffer_pad(__dojo_keep dojo_program *prog, int b, int d);
/* The slots of dimension "d" in memory (the fold, else the extent and
 * the pad), and the elements of the buffer in memory: what strides and
 * sizes are computed from. */
int64_t dojo_buffer_stored(__dojo_keep dojo_program *prog, int b, int d);
uint64_t dojo_buffer_elements(__dojo_keep dojo_program *prog, int b);
enum dojo_loc dojo_buffer_loc(__dojo_keep dojo_program *prog, int b);
enum dojo_role dojo_buffer_role(__dojo_keep dojo_program *prog, int b);
int dojo_program_n_arrays(__dojo_keep dojo_program *prog);
const char *dojo_array_name(__dojo_keep dojo_program *prog, int a);
int dojo_array_buffer(__dojo_keep dojo_program *prog, int a);
int dojo_program_find_array(__dojo_keep dojo_program *prog, const char *name);
int dojo_program_find_buffer(__dojo_keep dojo_program *prog, const char *name);

/* The tree.  The root is implicit: its children are the top-level nodes. */
int dojo_program_n_children(__dojo_keep dojo_program *prog);
__dojo_keep dojo_node *dojo_program_child(__dojo_keep dojo_program *prog,
    int i);
enum dojo_node_kind dojo_node_kind(__dojo_keep dojo_node *node);
int dojo_node_n_children(__dojo_keep dojo_node *node);
__dojo_keep dojo_node *dojo_node_child(__dojo_keep dojo_node *node, int i);
int64_t dojo_node_size(__dojo_keep dojo_node *node);
/* 0 or the letter of one of the flags of ir/flag.h */
char dojo_node_flag(__dojo_keep dojo_node *node);

/* The arithmetic operations one run of "prog" does: each +, -, *, /,
 * negation, call and update (+=, max=, ...) of each operation, times
 * the iterations of its scopes (the numerator of GFLOP/s). */
double dojo_program_ops(__dojo_keep dojo_program *prog);

/* Loop names (doc/ir.md, "Loop names").  Every scope of a parsed or
 * moved program has a name, unique in it: the one its file gives
 * ("i=512"), one a move kept or made (split i: i.o and i.i; fuse i j:
 * i+j; join i.o i.i: i), or the default, the letter of its depth (i j k
 * l m n p q ...); a name taken before it in the program's order gets
 * "_2", "_3" ...  Names are no part of the state: the canonical text
 * and the state id have none. */
const char *dojo_node_name(__dojo_keep dojo_node *node);
/* "prog" with every scope named as above (a new reference to "prog"
 * itself when each already is); NULL with the last error set. */
__dojo_give dojo_program *dojo_program_name_loops(__dojo_keep dojo_program *prog);
/* The address of the scope named "name" into "path": its length, or -1
 * with the last error set (which lists the names). */
int dojo_program_find_loop(__dojo_keep dojo_program *prog, const char *name,
    int path[DOJO_MAX_DEPTH]);
/* The names of the scopes in the program's order, ", " between them. */
__dojo_give char *dojo_program_loop_names(__dojo_keep dojo_program *prog);

/* Operations, for code generators: the written access, the update and
 * the expression tree.  Accesses and expressions belong to their node. */
typedef struct dojo_access dojo_access;
enum dojo_expr_kind {
	DOJO_E_NUM, DOJO_E_ACCESS, DOJO_E_NEG,
	DOJO_E_ADD, DOJO_E_SUB, DOJO_E_MUL, DOJO_E_DIV, DOJO_E_CALL
};
enum dojo_fn {
	DOJO_FN_EXP, DOJO_FN_LOG, DOJO_FN_SQRT, DOJO_FN_TANH, DOJO_FN_ABS,
	DOJO_FN_MAX, DOJO_FN_MIN
};
const dojo_access *dojo_op_lhs(__dojo_keep const dojo_node *op);
enum dojo_update dojo_op_update(__dojo_keep const dojo_node *op);
const dojo_expr *dojo_op_rhs(__dojo_keep const dojo_node *op);
int dojo_access_array(__dojo_keep const dojo_access *acc);
int dojo_access_n_indices(__dojo_keep const dojo_access *acc);
/* Index "i" is c + sum of coef[t] * {depth[t]}; returns the term count
 * and fills at most DOJO_MAX_DEPTH terms. */
int dojo_access_index(__dojo_keep const dojo_access *acc, int i, int64_t *c,
    int *depth, int64_t *coef);
enum dojo_expr_kind dojo_expr_kind(__dojo_keep const dojo_expr *e);
double dojo_expr_num(__dojo_keep const dojo_expr *e);
const dojo_access *dojo_expr_access(__dojo_keep const dojo_expr *e);
enum dojo_fn dojo_expr_fn(__dojo_keep const dojo_expr *e);
const dojo_expr *dojo_expr_arg(__dojo_keep const dojo_expr *e, int i);
/* Append the text of operation "op" (without its cells) to "sb". */
struct dojo_strbuf;
void dojo_op_print(__dojo_keep struct dojo_strbuf *sb,
    __dojo_keep dojo_program *prog, __dojo_keep const dojo_node *op);

/* Addresses: "0.1.2".  Parse into "out" (at most DOJO_MAX_DEPTH indices);
 * returns the number of indices or -1 with the last error set. */
int dojo_address_parse(int out[DOJO_MAX_DEPTH], const char *text);
/* The text of the address "path" (n indices) into "out". */
void dojo_address_format(char *out, size_t len, const int *path, int n);
/* The node at an address, or NULL with the last error set. */
__dojo_keep dojo_node *dojo_program_lookup(__dojo_keep dojo_program *prog,
    const int *path, int n);

const char *dojo_dtype_name(enum dojo_dtype t);
size_t dojo_dtype_size(enum dojo_dtype t);
/* A number in an integer operation: truncated toward zero, saturated to
 * the 64-bit range, NaN as 0 (doc/ir.md, Arithmetic). */
int64_t dojo_double_to_int(double v);
/* The identity of the reduction "u" (+= *= max= min=) in type "t", as the
 * number a program's text holds: 0, 1, -inf and inf for floats; for
 * integers the extremes of the type (INT32_MIN ...; 2^63 stands for
 * INT64_MAX, to which an integer operation saturates it). */
double dojo_update_identity(enum dojo_update u, enum dojo_dtype t);
const char *dojo_loc_name(enum dojo_loc l);
const char *dojo_role_name(enum dojo_role r);

/* Whether "name" may name an array or buffer (not a keyword of the format,
 * C, C++ or CUDA, not reserved). */
bool dojo_name_allowed(const char *name, const char **why);

#endif
