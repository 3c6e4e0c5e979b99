/* library.h: perfdojo lib: tuned kernels as a C library, with its
 * header, Makefile, pkg-config and CMake files, Python module, self-test,
 * benchmark and manifest (doc/library.md)
 *
 * A library is described by its manifest alone: each function's naive
 * kernel text and the moves to its tuned state, with what was measured
 * of it.  Every file of the library is made from that description, so
 * that "perfdojo lib --from manifest.json" makes the same bytes.  Kernels
 * whose arrays differ only in extents, and whose naive forms are the
 * same operation, make a family: one entry point that dispatches on the
 * extents, with a naive form for the others.
 */
#ifndef DOJO_LIBRARY_H
#define DOJO_LIBRARY_H

#include <stdbool.h>
#include <stdio.h>

#include "ir/program.h"

typedef struct dojo_lib dojo_lib;

/* One function of a library, as the manifest holds it. */
struct dojo_lib_function {
	const char *kernel;	/* its name after the library's: softmax */
	const char *source;	/* the file it came from, for the reader ("") */
	const char *text;	/* the naive kernel's text (comments kept) */
	const char *const *moves;	/* from the naive form to the tuned one */
	int nmoves;
	const char *state;	/* the tuned state's id the moves must reach
				   (NULL or "": not checked) */
	bool tuned;		/* from a session, not the naive form */
	/* what was measured of it against the naive form (speedup 0: not
	 * measured); the interval when "confirmed" */
	double speedup, low, high;
	bool confirmed;
	const char *fingerprint;	/* of the measurement ("") */
	const char *when;		/* ISO 8601 ("") */
};

/* A new library "name" (a C identifier) for target "target" ("c"), in the
 * exact mode or not; "machine" says where its kernels were measured (NULL:
 * this one).  NULL with the last error set. */
__dojo_give dojo_lib *dojo_lib_new(const char *name, const char *target,
    bool exact, const char *machine);
/* Whether "name" may name a library (a C identifier, not beginning with
 * "dojo"); false with the reason ("is not a C identifier") in "why". */
bool dojo_lib_name_allowed(const char *name, const char **why);
void dojo_lib_free(__dojo_take dojo_lib *lib);
const char *dojo_lib_name(__dojo_keep dojo_lib *lib);

/* Add "f" (copied): its text parsed ("where" names it in errors), its
 * moves applied and their state checked, its function name checked (a C
 * identifier, not taken).  0, or -1 with the last error set. */
int dojo_lib_add(__dojo_keep dojo_lib *lib,
    __dojo_keep const struct dojo_lib_function *f, const char *where);

/* The library that the manifest "path" describes, its functions rebuilt
 * from their moves; NULL with "PATH:LINE:COL: ..." or "PATH: ..." as the
 * last error. */
__dojo_give dojo_lib *dojo_lib_read_manifest(const char *path);

/* Write the library into the folder "outdir": made in a temporary folder
 * beside it and renamed at the end, replacing an earlier library there
 * (a folder holding anything else is refused), so that a failure leaves
 * nothing half-written.  One line a function (and family) on "log" (may
 * be NULL).  0, or -1 with the last error set. */
int dojo_lib_write(__dojo_keep dojo_lib *lib, const char *outdir, FILE *log);

#endif
