/* session_private.h: what the files of the session module share: the
 * session itself and its index of commits, kept by session.c (the git
 * history) and read by session_rows.c (the tree drawn as rows).  Not for
 * use outside src/core. */
#ifndef DOJO_SESSION_PRIVATE_H
#define DOJO_SESSION_PRIVATE_H

#include <git2.h>

#include "src/core/session.h"

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

/* Bring the session up to date with the repository. */
int dojo_session_refresh(dojo_session *s);
/* "e" for the commit of index "i". */
void dojo_session_fill_entry(dojo_session *s, int i,
    struct dojo_session_entry *e);

#endif
