/* session_private.h: what the files of the session module share: the
 * session itself and its index of commits, kept by session.c (the git
 * history), read by session_measure.c (the measurements recorded in it)
 * and session_rows.c (the tree drawn as rows).  Not for use outside
 * src/core. */
#ifndef DOJO_SESSION_PRIVATE_H
#define DOJO_SESSION_PRIVATE_H

#include <git2.h>

#include "src/util/strbuf.h"
#include "src/core/session.h"

#define PROGRAM_FILE "program.dojo"
#define MEASUREMENT_FILE "measurement"
/* the program with its loops' names (a view: the state is PROGRAM_FILE) */
#define LOOPS_FILE "loops.dojo"
#define NOTES_REF "refs/notes/commits"
#define DEFAULT_BRANCH "main"

/* One commit as the session indexes it. */
struct commit {
	git_oid id, parent;		/* parent zero for the start */
	git_oid state;
	git_time_t time;
	int parent_index;		/* -1 for the start */
	int depth;
	char *action;
};

struct dojo_session {
	git_repository *repo;
	char *dir;
	int lock_fd;
	int lock_depth;
	dojo_program *prog;		/* the current state */
	dojo_program *start;
	char head[41];
	char branch[64];
	/* every commit reachable from a reference, parents first */
	struct commit *commits;
	int ncommits, acommits;
	char *refs_seen;		/* the references the index was built
					   from */
};

/* Set the last error to "what" and libgit2's last message; returns -1. */
int dojo_session_git_error(const char *what);
/* Take and release the session's lock (they nest). */
int dojo_session_lock(__dojo_keep dojo_session *s);
void dojo_session_unlock(__dojo_keep dojo_session *s);
/* Bring the session up to date with the repository. */
int dojo_session_refresh(__dojo_keep dojo_session *s);
/* Resolve "rev" (NULL: the current commit) to a commit of the session. */
int dojo_session_resolve(git_oid *out, __dojo_keep dojo_session *s,
    const char *rev);
/* The signature of the commits and notes the session writes. */
int dojo_session_signature(git_signature **out, __dojo_keep dojo_session *s);
/* After a write: index commit "id" (may be NULL), note the references. */
int dojo_session_index_own(__dojo_keep dojo_session *s, const git_oid *id);
/* The index of the first commit, or -1. */
int dojo_session_root_index(__dojo_keep dojo_session *s);
/* The program held by "commit". */
__dojo_give dojo_program *dojo_session_read_program(__dojo_keep dojo_session *s,
    const git_oid *commit);
/* "e" for the commit of index "i". */
void dojo_session_fill_entry(__dojo_keep dojo_session *s, int i,
    __dojo_keep struct dojo_session_entry *e);

/* The measurements (session_measure.c): "m" as the text of a note or of
 * the measurement file (NULL: unmeasured); the measurement of "commit";
 * the tag best/TARGET moved to "commit" if "m" beats it. */
void dojo_session_format_measurement(__dojo_keep struct dojo_strbuf *sb,
    __dojo_keep const struct dojo_session_measurement *m);
void dojo_session_read_measurement(__dojo_keep dojo_session *s,
    const git_oid *commit, __dojo_keep struct dojo_session_measurement *m);
int dojo_session_update_best(__dojo_keep dojo_session *s, const git_oid *commit,
    __dojo_keep const struct dojo_session_measurement *m);

#endif
