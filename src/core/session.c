/* session.c: the exploration history, a git repository (libgit2): the
 * session made, opened and locked, its index of commits, the steps,
 * undo, redo, jumps and branches, and the states read back.  What is
 * measured in it is session_measure.c; the tree as rows to draw,
 * session_rows.c. */
#include "config.h"
#include "src/core/session.h"
#include "src/core/session_private.h"
#include "src/util/error.h"
#include "src/util/strbuf.h"
#include "ir/moves.h"
#include "targets/target.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int
dojo_session_git_error(const char *what)
{
	const git_error *e = git_error_last();

	return dojo_error_set("%s: %s", what, e && e->message ? e->message :
	    "unknown libgit2 error");
}

/* Start libgit2 once per process, every write synced to disk. */
static void
git_start(void)
{
	static int started;

	if (started)
		return;
	started = 1;
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
}

void
dojo_session_default_dir(char *out, size_t len, const char *file)
{
	snprintf(out, len, "%s.session", file);
}

const char *
dojo_session_rev(char buf[64], const char *rev, const char *target)
{
	if (strcmp(rev, "best") != 0)
		return rev;
	snprintf(buf, 64, "best/%s", target ? target : DOJO_TARGET_HOST);
	return buf;
}

const char *
dojo_session_dir(dojo_session *s)
{
	return s->dir;
}

dojo_program *
dojo_session_program(dojo_session *s)
{
	return s->prog;
}

const char *
dojo_session_head(dojo_session *s)
{
	return s->head;
}

const char *
dojo_session_branch(dojo_session *s)
{
	return s->branch;
}

dojo_program *
dojo_session_start(dojo_session *s)
{
	return s->start;
}

/* Locking.  A session is written under an exclusive flock on
 * perfdojo.lock in the git directory; whoever holds it knows that git's own lock files are
 * left over from a killed process, and removes them. */

static int
remove_stale_lock(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	size_t n = strlen(path);

	if (type == FTW_F && n > 5 && strcmp(path + n - 5, ".lock") == 0 &&
	    strcmp(path + ftw->base, "perfdojo.lock") != 0)
		unlink(path);
	return 0;
}

int
dojo_session_lock(dojo_session *s)
{
	char path[PATH_MAX];
	const char *top[] = { "HEAD.lock", "config.lock", "packed-refs.lock",
	    "index.lock" };
	size_t i;

	const char *gitdir = git_repository_path(s->repo);

	if (s->lock_depth++ > 0)
		return 0;
	snprintf(path, sizeof path, "%sperfdojo.lock", gitdir);
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX) < 0) {
		if (s->lock_fd >= 0)
			close(s->lock_fd);
		s->lock_fd = -1;
		s->lock_depth = 0;
		return dojo_error_set("%s: %s", path, strerror(errno));
	}
	for (i = 0; i < sizeof top / sizeof *top; i++) {
		snprintf(path, sizeof path, "%s%s", gitdir, top[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%srefs", gitdir);
	nftw(path, remove_stale_lock, 16, FTW_PHYS);
	return 0;
}

void
dojo_session_unlock(dojo_session *s)
{
	if (--s->lock_depth > 0)
		return;
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	s->lock_fd = -1;
}

/* The index of commits. */

static int
find_commit(dojo_session *s, const git_oid *id)
{
	int i;

	for (i = s->ncommits - 1; i >= 0; i--)
		if (git_oid_equal(&s->commits[i].id, id))
			return i;
	return -1;
}

/* The first commit. */
int
dojo_session_root_index(dojo_session *s)
{
	int i;

	for (i = 0; i < s->ncommits; i++)
		if (git_oid_is_zero(&s->commits[i].parent))
			return i;
	return -1;
}

static void
clear_index(dojo_session *s)
{
	int i;

	for (i = 0; i < s->ncommits; i++)
		free(s->commits[i].action);
	s->ncommits = 0;
}

/* The action of a commit message: its first line, "" for the start. */
static char *
message_action(const char *msg, bool root)
{
	size_t n = strcspn(msg, "\n");

	if (root)
		return strdup("");
	return strndup(msg, n);
}

/* Whether the entry "te" of program.dojo in the tree of "commit" is a
 * file (a blob); 0, or -1 with the last error naming what it is. */
static int
check_program_entry(dojo_session *s, const git_oid *commit,
    const git_tree_entry *te)
{
	const char *what;

	switch (git_tree_entry_filemode(te)) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		return 0;
	case GIT_FILEMODE_TREE:
		what = "a directory";
		break;
	case GIT_FILEMODE_LINK:
		what = "a symbolic link";
		break;
	case GIT_FILEMODE_COMMIT:
		what = "a submodule";
		break;
	default:
		what = "not a file";
		break;
	}
	return dojo_error_set("%s: commit %.7s has %s at " PROGRAM_FILE
	    ", not a file: not a perfdojo session", s->dir,
	    git_oid_tostr_s(commit), what);
}

/* Add "c" (whose parent is indexed already) to the index. */
static int
index_commit(dojo_session *s, git_commit *c)
{
	struct commit *e;
	const git_tree_entry *te;
	git_tree *tree;
	unsigned np = git_commit_parentcount(c);

	if (s->ncommits == s->acommits) {
		int n = s->acommits ? 2 * s->acommits : 64;
		struct commit *p = realloc(s->commits, n * sizeof *p);

		if (!p)
			return dojo_error_set("out of memory");
		s->commits = p;
		s->acommits = n;
	}
	if (np > 1)
		return dojo_error_set("%s: commit %.7s has %u parents: not a "
		    "perfdojo session", s->dir,
		    git_oid_tostr_s(git_commit_id(c)), np);
	if (git_commit_tree(&tree, c) < 0)
		return dojo_session_git_error(s->dir);
	te = git_tree_entry_byname(tree, PROGRAM_FILE);
	if (!te) {
		git_tree_free(tree);
		return dojo_error_set("%s: commit %.7s has no " PROGRAM_FILE
		    ": not a perfdojo session", s->dir,
		    git_oid_tostr_s(git_commit_id(c)));
	}
	if (check_program_entry(s, git_commit_id(c), te) < 0) {
		git_tree_free(tree);
		return -1;
	}
	e = &s->commits[s->ncommits];
	memset(e, 0, sizeof *e);
	git_oid_cpy(&e->id, git_commit_id(c));
	git_oid_cpy(&e->state, git_tree_entry_id(te));
	git_tree_free(tree);
	e->time = git_commit_time(c);
	e->parent_index = -1;
	if (np == 1) {
		git_oid_cpy(&e->parent, git_commit_parent_id(c, 0));
		e->parent_index = find_commit(s, &e->parent);
		if (e->parent_index >= 0)
			e->depth = s->commits[e->parent_index].depth + 1;
	}
	e->action = message_action(git_commit_message(c), np == 0);
	if (!e->action)
		return dojo_error_set("out of memory");
	s->ncommits++;
	return 0;
}

/* The names and targets of the references that the index depends on
 * (HEAD aside: it moves without changing the set of commits). */
static char *
refs_signature(dojo_session *s)
{
	struct dojo_strbuf sb;
	git_reference_iterator *it;
	git_reference *ref;

	dojo_strbuf_init(&sb);
	if (git_reference_iterator_new(&it, s->repo) < 0)
		return dojo_strbuf_detach(&sb);
	while (git_reference_next(&ref, it) == 0) {
		if (git_reference_type(ref) == GIT_REFERENCE_DIRECT)
			dojo_strbuf_printf(&sb, "%s %s\n",
			    git_reference_name(ref),
			    git_oid_tostr_s(git_reference_target(ref)));
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return dojo_strbuf_detach(&sb);
}

/* Whether a reference holds states (notes do not). */
static bool
state_ref(const char *name)
{
	return strncmp(name, "refs/heads/", 11) == 0 ||
	    strncmp(name, "refs/tags/", 10) == 0;
}

/* Rebuild the index from every branch, tag and HEAD, parents first and
 * siblings in the order they were made, when the references changed. */
static int
refresh_index(dojo_session *s)
{
	git_revwalk *walk = NULL;
	git_reference_iterator *it = NULL;
	git_reference *ref;
	git_oid id;
	char *sig = refs_signature(s);
	int rc = -1;

	if (s->refs_seen && sig && strcmp(sig, s->refs_seen) == 0) {
		free(sig);
		return 0;
	}
	clear_index(s);
	if (git_revwalk_new(&walk, s->repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME |
	    GIT_SORT_REVERSE) < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	if (git_reference_name_to_id(&id, s->repo, "HEAD") == 0 &&
	    git_revwalk_push(walk, &id) < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	if (git_reference_iterator_new(&it, s->repo) < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	while (git_reference_next(&ref, it) == 0) {
		git_object *obj = NULL;
		int err = 0;

		if (state_ref(git_reference_name(ref))) {
			err = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
			if (err == 0)
				err = git_revwalk_push(walk, git_object_id(obj));
			git_object_free(obj);
		}
		git_reference_free(ref);
		if (err < 0) {
			dojo_session_git_error(s->dir);
			goto out;
		}
	}
	while (git_revwalk_next(&id, walk) == 0) {
		git_commit *c;

		if (git_commit_lookup(&c, s->repo, &id) < 0) {
			dojo_session_git_error(s->dir);
			goto out;
		}
		rc = index_commit(s, c);
		git_commit_free(c);
		if (rc < 0)
			goto out;
	}
	rc = 0;
	free(s->refs_seen);
	s->refs_seen = sig;
	sig = NULL;
out:
	if (rc < 0) {
		free(s->refs_seen);
		s->refs_seen = NULL;
	}
	free(sig);
	git_reference_iterator_free(it);
	git_revwalk_free(walk);
	return rc;
}

/* After a write of ours: index the new commit "id" (if not NULL) and
 * remember the references as they are now. */
int
dojo_session_index_own(dojo_session *s, const git_oid *id)
{
	git_commit *c;
	int rc;

	if (id && find_commit(s, id) < 0) {
		if (git_commit_lookup(&c, s->repo, id) < 0)
			return dojo_session_git_error(s->dir);
		rc = index_commit(s, c);
		git_commit_free(c);
		if (rc < 0)
			return -1;
	}
	free(s->refs_seen);
	s->refs_seen = refs_signature(s);
	return 0;
}

/* Reading states. */

/* The program of LOOPS_FILE in "tree" (its text with the loops' names),
 * named "name", when it reads as the state "state" (the blob id of
 * PROGRAM_FILE); else NULL (an older session has no such file). */
static dojo_program *
read_named(dojo_session *s, git_tree *tree, const char *name,
    const git_oid *state)
{
	const git_tree_entry *te = git_tree_entry_byname(tree, LOOPS_FILE);
	git_blob *blob = NULL;
	dojo_program *named;
	char id[41];

	if (!te || git_tree_entry_filemode(te) != GIT_FILEMODE_BLOB ||
	    git_blob_lookup(&blob, s->repo, git_tree_entry_id(te)) < 0)
		return NULL;
	named = dojo_program_parse(name, git_blob_rawcontent(blob),
	    (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	if (named) {
		dojo_program_id(id, named);
		if (strcmp(id, git_oid_tostr_s(state)) == 0)
			return named;
	}
	dojo_program_free(named);
	dojo_error_clear();
	return NULL;
}

__dojo_give dojo_program *
dojo_session_read_program(dojo_session *s, const git_oid *commit)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_blob *blob = NULL;
	const git_tree_entry *te;
	dojo_program *prog = NULL;
	char name[PATH_MAX];

	if (git_commit_lookup(&c, s->repo, commit) < 0 ||
	    git_commit_tree(&tree, c) < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	te = git_tree_entry_byname(tree, PROGRAM_FILE);
	if (!te) {
		dojo_error_set("%s: commit %.7s has no " PROGRAM_FILE ": not "
		    "a perfdojo session", s->dir, git_oid_tostr_s(commit));
		goto out;
	}
	if (check_program_entry(s, commit, te) < 0)
		goto out;
	snprintf(name, sizeof name, "%s/%.7s:" PROGRAM_FILE, s->dir,
	    git_oid_tostr_s(commit));
	/* the text with the names, when it is this state: one parse */
	prog = read_named(s, tree, name, git_tree_entry_id(te));
	if (prog)
		goto out;
	if (git_blob_lookup(&blob, s->repo, git_tree_entry_id(te)) < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	prog = dojo_program_parse(name, git_blob_rawcontent(blob),
	    (size_t)git_blob_rawsize(blob));
out:
	git_blob_free(blob);
	git_tree_free(tree);
	git_commit_free(c);
	return prog;
}

/* Read HEAD and the current branch; load the current program when HEAD
 * moved. */
static int
read_head(dojo_session *s)
{
	git_reference *head = NULL;
	git_config *cfg = NULL;
	git_buf buf = { 0 };
	git_oid id;
	char hex[41];
	dojo_program *prog;

	if (git_repository_head(&head, s->repo) < 0)
		return dojo_session_git_error(s->dir);
	git_oid_cpy(&id, git_reference_target(head));
	if (git_reference_is_branch(head))
		snprintf(s->branch, sizeof s->branch, "%s",
		    git_reference_shorthand(head));
	else if (git_repository_config_snapshot(&cfg, s->repo) == 0 &&
	    git_config_get_string_buf(&buf, cfg, "perfdojo.branch") == 0)
		snprintf(s->branch, sizeof s->branch, "%s", buf.ptr);
	else
		s->branch[0] = '\0';
	git_buf_dispose(&buf);
	git_config_free(cfg);
	git_reference_free(head);
	git_oid_tostr(hex, sizeof hex, &id);
	if (s->prog && strcmp(hex, s->head) == 0)
		return 0;
	prog = dojo_session_read_program(s, &id);
	if (!prog)
		return -1;
	dojo_program_free(s->prog);
	s->prog = prog;
	memcpy(s->head, hex, sizeof hex);
	return 0;
}

/* Bring the session up to date with the repository. */
int
dojo_session_refresh(dojo_session *s)
{
	git_oid head;

	if (read_head(s) < 0 || refresh_index(s) < 0)
		return -1;
	git_oid_fromstr(&head, s->head);
	if (find_commit(s, &head) < 0) {
		/* HEAD on a commit no reference holds */
		free(s->refs_seen);
		s->refs_seen = NULL;
		return refresh_index(s);
	}
	return 0;
}

static int
session_load(dojo_session *s)
{
	int i;

	if (dojo_session_refresh(s) < 0)
		return -1;
	i = dojo_session_root_index(s);
	if (i < 0)
		return dojo_error_set("%s: no start commit: not a perfdojo "
		    "session", s->dir);
	s->start = dojo_session_read_program(s, &s->commits[i].id);
	return s->start ? 0 : -1;
}

static dojo_session *
session_alloc(const char *dir)
{
	dojo_session *s = calloc(1, sizeof *s);

	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		dojo_error_set("out of memory");
		return NULL;
	}
	s->lock_fd = -1;
	return s;
}

void
dojo_session_free(dojo_session *s)
{
	if (!s)
		return;
	clear_index(s);
	free(s->commits);
	free(s->refs_seen);
	dojo_program_free(s->prog);
	dojo_program_free(s->start);
	git_repository_free(s->repo);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->dir);
	free(s);
}

dojo_session *
dojo_session_open(const char *dir)
{
	dojo_session *s;
	struct stat st;

	git_start();
	if (stat(dir, &st) < 0) {
		dojo_error_set("%s: no session here: %s", dir, strerror(errno));
		return NULL;
	}
	s = session_alloc(dir);
	if (!s)
		return NULL;
	if (git_repository_open_ext(&s->repo, dir,
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		const git_error *e = git_error_last();

		dojo_error_set("%s: not a perfdojo session (%s)", dir,
		    e && e->message ? e->message : "not a git repository");
		goto out_free;
	}
	if (git_repository_head_unborn(s->repo) == 1) {
		dojo_error_set("%s: an empty git repository, not a perfdojo "
		    "session", dir);
		goto out_free;
	}
	if (session_load(s) < 0)
		goto out_free;
	return s;
out_free:
	dojo_session_free(s);
	return NULL;
}

/* Writing. */

int
dojo_session_signature(git_signature **out, dojo_session *s)
{
	if (git_signature_default(out, s->repo) == 0)
		return 0;
	if (git_signature_now(out, "perfdojo", "perfdojo@localhost") < 0)
		return dojo_session_git_error(s->dir);
	return 0;
}

/* Write a commit of "prog" with parent "parent" (NULL for the start);
 * "blob" receives the state. */
static int
write_commit(git_oid *out, dojo_session *s, dojo_program *prog,
    const git_oid *parent, const char *message,
    const struct dojo_session_measurement *m)
{
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_commit *pc = NULL;
	git_tree *tree = NULL;
	git_oid blob, mblob, lblob, tid;
	struct dojo_strbuf sb;
	char *text = dojo_program_print(prog, false);
	char *named = dojo_program_print_named(prog, false);
	int rc = -1;

	dojo_strbuf_init(&sb);
	dojo_session_format_measurement(&sb, m);
	if (!text || !named) {
		dojo_error_set("out of memory");
		goto out;
	}
	if (git_blob_create_from_buffer(&blob, s->repo, text, strlen(text)) < 0 ||
	    git_blob_create_from_buffer(&mblob, s->repo, sb.s, sb.len) < 0 ||
	    git_blob_create_from_buffer(&lblob, s->repo, named,
	    strlen(named)) < 0 ||
	    git_treebuilder_new(&tb, s->repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, PROGRAM_FILE, &blob,
	    GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, LOOPS_FILE, &lblob,
	    GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, MEASUREMENT_FILE, &mblob,
	    GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_write(&tid, tb) < 0 ||
	    git_tree_lookup(&tree, s->repo, &tid) < 0 ||
	    (parent && git_commit_lookup(&pc, s->repo, parent) < 0)) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	if (dojo_session_signature(&sig, s) < 0)
		goto out;
	if (git_commit_create_v(out, s->repo, NULL, sig, sig, NULL, message,
	    tree, parent ? 1 : 0, pc) < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	rc = 0;
out:
	dojo_strbuf_release(&sb);
	free(text);
	free(named);
	git_signature_free(sig);
	git_commit_free(pc);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	return rc;
}

static void
commit_message(struct dojo_strbuf *sb, const char *subject,
    const char *action, const struct dojo_session_measurement *m,
    const char *state)
{
	dojo_strbuf_printf(sb, "%s\n\n", subject);
	if (action)
		dojo_strbuf_printf(sb, "Action: %s\n", action);
	if (m && m->measured) {
		if (m->speedup > 0)
			dojo_strbuf_printf(sb, "Speedup: %.4g\n", m->speedup);
		else if (strcmp(m->outcome, "ok") != 0)
			dojo_strbuf_printf(sb, "Outcome: %s\n", m->outcome);
		dojo_strbuf_printf(sb, "Target: %s\n", m->target);
	}
	dojo_strbuf_printf(sb, "State: %s\n", state);
}

static int
set_config_branch(dojo_session *s, const char *name)
{
	git_config *cfg = NULL;
	int rc;

	if (git_repository_config(&cfg, s->repo) < 0)
		return dojo_session_git_error(s->dir);
	rc = git_config_set_string(cfg, "perfdojo.branch", name);
	git_config_free(cfg);
	return rc < 0 ? dojo_session_git_error(s->dir) : 0;
}

/* Attach HEAD to branch "name" (its tip is the current commit). */
static int
attach_head(dojo_session *s, const char *name)
{
	char full[128];

	snprintf(full, sizeof full, "refs/heads/%s", name);
	if (git_repository_set_head(s->repo, full) < 0)
		return dojo_session_git_error(s->dir);
	if (set_config_branch(s, name) < 0)
		return -1;
	snprintf(s->branch, sizeof s->branch, "%s", name);
	return 0;
}

/* Sync directory "path" to disk (a rename in it). */
static void
sync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The parent directory of "path" into "out". */
static void
parent_dir(char *out, size_t len, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(out, len, ".");
	else if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

static int
remove_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Remove the directory tree "path"; the last error is kept. */
static void
remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Keep a reflog of every branch, also in a bare repository: a branch
 * moved off its states (an agent's live branch following a new best)
 * leaves them in the reflog, reachable, not dangling. */
static int
log_ref_updates(git_repository *repo)
{
	git_config *cfg = NULL;
	int rc;

	if (git_repository_config(&cfg, repo) < 0)
		return -1;
	rc = git_config_set_bool(cfg, "core.logAllRefUpdates", 1);
	git_config_free(cfg);
	return rc;
}

/* Write a new session with the start commit in "tmp". */
static int
create_in(const char *tmp, dojo_program *start, const char *source)
{
	git_repository_init_options init = GIT_REPOSITORY_INIT_OPTIONS_INIT;
	struct dojo_strbuf msg;
	git_reference *ref = NULL;
	dojo_session *s;
	git_oid id;
	char state[41], subject[PATH_MAX + 16];
	int rc = -1;

	s = session_alloc(tmp);
	if (!s)
		return -1;
	init.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH |
	    GIT_REPOSITORY_INIT_NO_REINIT;
	init.description = "A PerfDojo exploration session: each commit is "
	    "a state of the kernel";
	init.initial_head = DEFAULT_BRANCH;
	if (git_repository_init_ext(&s->repo, tmp, &init) < 0 ||
	    log_ref_updates(s->repo) < 0) {
		dojo_session_git_error(tmp);
		goto out;
	}
	dojo_program_id(state, start);
	snprintf(subject, sizeof subject, "start: %s", source ? source :
	    "kernel");
	dojo_strbuf_init(&msg);
	commit_message(&msg, subject, NULL, NULL, state);
	rc = write_commit(&id, s, start, NULL, msg.s, NULL);
	dojo_strbuf_release(&msg);
	if (rc < 0)
		goto out;
	rc = -1;
	if (git_reference_create(&ref, s->repo, "refs/heads/" DEFAULT_BRANCH,
	    &id, 0, "perfdojo: start") < 0) {
		dojo_session_git_error(tmp);
		goto out;
	}
	git_reference_free(ref);
	rc = attach_head(s, DEFAULT_BRANCH);
out:
	dojo_session_free(s);
	return rc;
}

/* A session appears whole or not at all: it is written in a temporary
 * directory beside "dir", then renamed into place. */
dojo_session *
dojo_session_create(const char *dir, dojo_program *start, const char *source)
{
	char tmp[PATH_MAX], head[PATH_MAX], parent[PATH_MAX];
	struct stat st;

	git_start();
	snprintf(head, sizeof head, "%s/HEAD", dir);
	if (stat(dir, &st) == 0 && access(head, F_OK) == 0) {
		dojo_error_set("%s: a session (or git repository) is already "
		    "there", dir);
		return NULL;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", dir, (long)getpid());
	if (create_in(tmp, start, source) < 0)
		goto out_remove;
	if (rename(tmp, dir) < 0) {
		dojo_error_set("%s: %s", dir, errno == ENOTEMPTY ||
		    errno == EEXIST ? "exists and is not a session" :
		    strerror(errno));
		goto out_remove;
	}
	parent_dir(parent, sizeof parent, dir);
	sync_dir(parent);
	return dojo_session_open(dir);
out_remove:
	remove_tree(tmp);
	return NULL;
}

/* The tip of branch "name", or -1. */
static int
branch_tip(git_oid *out, dojo_session *s, const char *name)
{
	char full[128];

	snprintf(full, sizeof full, "refs/heads/%s", name);
	return git_reference_name_to_id(out, s->repo, full) == 0 ? 0 : -1;
}

static bool
branch_exists(dojo_session *s, const char *name)
{
	git_oid id;

	return branch_tip(&id, s, name) == 0;
}

/* A fresh branch name after "base": "base-2", "base-3", ... */
static void
fresh_branch(char *out, size_t len, dojo_session *s, const char *base)
{
	char stem[48];
	size_t n = strlen(base);
	int i;

	/* "main-2" -> "main" */
	while (n > 0 && base[n - 1] >= '0' && base[n - 1] <= '9')
		n--;
	if (n > 1 && n < strlen(base) && base[n - 1] == '-')
		n--;
	else
		n = strlen(base);
	snprintf(stem, sizeof stem, "%.*s", (int)n, *base ? base :
	    DEFAULT_BRANCH);
	if (!*stem)
		snprintf(stem, sizeof stem, DEFAULT_BRANCH);
	for (i = 2;; i++) {
		snprintf(out, len, "%s-%d", stem, i);
		if (!branch_exists(s, out))
			return;
	}
}

/* The child of the current commit that holds "state", or -1. */
static int
child_with_state(dojo_session *s, const git_oid *head, const git_oid *state)
{
	int i;

	for (i = 0; i < s->ncommits; i++)
		if (git_oid_equal(&s->commits[i].parent, head) &&
		    git_oid_equal(&s->commits[i].state, state))
			return i;
	return -1;
}

static int
n_children(dojo_session *s, const git_oid *id)
{
	int i, n = 0;

	for (i = 0; i < s->ncommits; i++)
		if (git_oid_equal(&s->commits[i].parent, id))
			n++;
	return n;
}

/* Move HEAD to commit "id": attached to the current branch when "id" is
 * its tip, detached otherwise. */
static int
move_head(dojo_session *s, const git_oid *id)
{
	git_oid tip;

	if (s->branch[0] && branch_tip(&tip, s, s->branch) == 0 &&
	    git_oid_equal(&tip, id)) {
		if (attach_head(s, s->branch) < 0)
			return -1;
	} else if (git_repository_set_head_detached(s->repo, id) < 0) {
		return dojo_session_git_error(s->dir);
	}
	return dojo_session_refresh(s);
}

int
dojo_session_step(dojo_session *s, const char *action, dojo_program *next,
    const struct dojo_session_measurement *m, struct dojo_session_step *out)
{
	struct dojo_session_step step;
	struct dojo_strbuf msg;
	git_reference *ref = NULL;
	git_oid head, state, id, tip;
	char hex[41], name[64];
	int i, rc = -1;

	memset(&step, 0, sizeof step);
	if (strchr(action, '\n') || !*action)
		return dojo_error_set("an action is one non-empty line");
	if (dojo_session_lock(s) < 0)
		return -1;
	if (dojo_session_refresh(s) < 0)
		goto out;
	git_oid_fromstr(&head, s->head);
	dojo_program_id(hex, next);
	git_oid_fromstr(&state, hex);
	i = child_with_state(s, &head, &state);
	if (i >= 0) {
		/* reached before from here: go there */
		step.existing = true;
		git_oid_tostr(step.commit, sizeof step.commit,
		    &s->commits[i].id);
		if (move_head(s, &s->commits[i].id) < 0)
			goto out;
		snprintf(step.branch, sizeof step.branch, "%s", s->branch);
		rc = 0;
		goto out;
	}
	for (i = 0; i < s->ncommits; i++)
		if (git_oid_equal(&s->commits[i].state, &state)) {
			git_oid_tostr(step.seen, sizeof step.seen,
			    &s->commits[i].id);
			break;
		}
	dojo_strbuf_init(&msg);
	commit_message(&msg, action, action, m, hex);
	rc = write_commit(&id, s, next, &head, msg.s, m);
	dojo_strbuf_release(&msg);
	if (rc < 0)
		goto out;
	rc = -1;
	if (s->branch[0] && branch_tip(&tip, s, s->branch) == 0 &&
	    git_oid_equal(&tip, &head)) {
		snprintf(name, sizeof name, "%s", s->branch);
	} else {
		fresh_branch(name, sizeof name, s, s->branch);
		step.new_branch = true;
	}
	snprintf(s->branch, sizeof s->branch, "%s", name);
	snprintf(step.branch, sizeof step.branch, "%s", name);
	{
		char full[128];

		snprintf(full, sizeof full, "refs/heads/%s", name);
		if ((step.new_branch ?
		    git_reference_create(&ref, s->repo, full, &id, 0,
		    "perfdojo: branch") :
		    git_reference_create_matching(&ref, s->repo, full, &id, 1,
		    &head, "perfdojo: step")) < 0) {
			dojo_session_git_error(s->dir);
			goto out;
		}
		git_reference_free(ref);
	}
	if (attach_head(s, name) < 0 || dojo_session_index_own(s, &id) < 0 ||
	    read_head(s) < 0)
		goto out;
	git_oid_tostr(step.commit, sizeof step.commit, &id);
	if (m && m->measured && dojo_session_update_best(s, &id, m) < 0)
		goto out;
	rc = 0;
out:
	dojo_session_unlock(s);
	if (rc == 0 && out)
		*out = step;
	return rc;
}

enum dojo_result
dojo_session_apply(dojo_session *s, const char *action, const char *target,
    struct dojo_session_step *out)
{
	dojo_program *next = NULL;
	char text[256];
	struct dojo_action a;
	dojo_legality *mv;
	enum dojo_result r;

	if (dojo_session_refresh(s) < 0)
		return DOJO_FAILED;
	if (dojo_action_parse_in(&a, action, s->prog) < 0)
		return DOJO_REFUSED;
	mv = dojo_legality_new(s->prog, dojo_target_machine(target));
	if (!mv)
		return DOJO_FAILED;
	r = dojo_legality_check(mv, &a);
	if (r == DOJO_DONE && !(next = dojo_legality_apply_unchecked(mv, &a)))
		r = DOJO_FAILED;
	dojo_legality_free(mv);
	if (r != DOJO_DONE)
		return r;
	/* the action as it prints, so that paths compare */
	dojo_action_format(text, sizeof text, &a);
	r = dojo_session_step(s, text, next, NULL, out) < 0 ? DOJO_FAILED :
	    DOJO_DONE;
	dojo_program_free(next);
	return r;
}

/* Resolve "rev" to a commit of the session. */
int
dojo_session_resolve(git_oid *out, dojo_session *s, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;

	if (!rev)
		return git_oid_fromstr(out, s->head) == 0 ? 0 :
		    dojo_error_set("%s: no current commit", s->dir);
	if (git_revparse_single(&obj, s->repo, rev) < 0)
		return dojo_error_set("%s: unknown revision '%s'", s->dir, rev);
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		git_object_free(obj);
		return dojo_error_set("%s: '%s' is not a commit", s->dir, rev);
	}
	git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	if (find_commit(s, out) < 0)
		return dojo_error_set("%s: '%s' is not a state of this session",
		    s->dir, rev);
	return 0;
}

static bool
is_ancestor(dojo_session *s, int anc, int of)
{
	while (of >= 0) {
		if (of == anc)
			return true;
		of = s->commits[of].parent_index;
	}
	return false;
}

enum dojo_result
dojo_session_undo(dojo_session *s)
{
	git_oid head;
	enum dojo_result rc = DOJO_FAILED;
	int i;

	if (dojo_session_lock(s) < 0)
		return DOJO_FAILED;
	if (dojo_session_refresh(s) < 0)
		goto out;
	git_oid_fromstr(&head, s->head);
	i = find_commit(s, &head);
	if (i < 0 || git_oid_is_zero(&s->commits[i].parent)) {
		dojo_error_set("nothing to undo: at the start");
		rc = DOJO_REFUSED;
		goto out;
	}
	if (set_config_branch(s, s->branch) < 0)
		goto out;
	rc = move_head(s, &s->commits[i].parent) < 0 ? DOJO_FAILED : DOJO_DONE;
out:
	dojo_session_unlock(s);
	return rc;
}

enum dojo_result
dojo_session_redo(dojo_session *s)
{
	git_oid head, tip;
	enum dojo_result rc = DOJO_FAILED;
	int h, t, i, only = -1;

	if (dojo_session_lock(s) < 0)
		return DOJO_FAILED;
	if (dojo_session_refresh(s) < 0)
		goto out;
	git_oid_fromstr(&head, s->head);
	h = find_commit(s, &head);
	t = s->branch[0] && branch_tip(&tip, s, s->branch) == 0 ?
	    find_commit(s, &tip) : -1;
	if (t >= 0 && t != h && is_ancestor(s, h, t)) {
		while (s->commits[t].parent_index != h)
			t = s->commits[t].parent_index;
		rc = move_head(s, &s->commits[t].id) < 0 ? DOJO_FAILED :
		    DOJO_DONE;
		goto out;
	}
	for (i = 0; i < s->ncommits; i++)
		if (s->commits[i].parent_index == h) {
			if (only >= 0) {
				dojo_error_set("nothing to redo on branch '%s':"
				    " %d children here, name one", s->branch,
				    n_children(s, &head));
				rc = DOJO_REFUSED;
				goto out;
			}
			only = i;
		}
	if (only < 0) {
		dojo_error_set("nothing to redo");
		rc = DOJO_REFUSED;
		goto out;
	}
	rc = move_head(s, &s->commits[only].id) < 0 ? DOJO_FAILED : DOJO_DONE;
out:
	dojo_session_unlock(s);
	return rc;
}

/* The branch whose tip is commit "i", or failing that whose history holds
 * it, into "out" ("" if none). */
static void
branch_holding(char *out, size_t len, dojo_session *s, int i)
{
	git_branch_iterator *it;
	git_reference *ref;
	git_branch_t type;
	int best = INT_MAX;

	out[0] = '\0';
	if (git_branch_iterator_new(&it, s->repo, GIT_BRANCH_LOCAL) < 0)
		return;
	while (git_branch_next(&ref, &type, it) == 0) {
		int t = find_commit(s, git_reference_target(ref));
		int d = t >= 0 && is_ancestor(s, i, t) ?
		    s->commits[t].depth - s->commits[i].depth : INT_MAX;

		if (d < best || (d == best && d != INT_MAX &&
		    strcmp(git_reference_shorthand(ref), s->branch) == 0)) {
			best = d;
			snprintf(out, len, "%s", git_reference_shorthand(ref));
		}
		git_reference_free(ref);
	}
	git_branch_iterator_free(it);
}

enum dojo_result
dojo_session_jump(dojo_session *s, const char *rev)
{
	git_oid id, tip;
	char name[64];
	enum dojo_result rc = DOJO_FAILED;
	int i;

	if (dojo_session_lock(s) < 0)
		return DOJO_FAILED;
	if (dojo_session_refresh(s) < 0)
		goto out;
	if (dojo_session_resolve(&id, s, rev) < 0) {
		rc = DOJO_REFUSED;	/* no such state */
		goto out;
	}
	i = find_commit(s, &id);
	if (branch_exists(s, rev))
		snprintf(name, sizeof name, "%s", rev);
	else if (s->branch[0] && branch_tip(&tip, s, s->branch) == 0 &&
	    is_ancestor(s, i, find_commit(s, &tip)))
		snprintf(name, sizeof name, "%s", s->branch);
	else
		branch_holding(name, sizeof name, s, i);
	snprintf(s->branch, sizeof s->branch, "%s", name);
	if (set_config_branch(s, name) < 0)
		goto out;
	rc = move_head(s, &id) < 0 ? DOJO_FAILED : DOJO_DONE;
out:
	dojo_session_unlock(s);
	return rc;
}

/* Whether "name" reads, on a command line of git's or ours, as a
 * revision of git's own: @, FETCH_HEAD, ORIG_HEAD and the like. */
static bool
special_ref_name(const char *name)
{
	size_t n = strlen(name);

	if (strcmp(name, "@") == 0)
		return true;
	if (n < 6 || strcmp(name + n - 5, "_HEAD") != 0)
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == n;
}

/* 0 when "name" may be a new branch: a name git takes for a branch that
 * no command line reads as something else (a revision, an option, a
 * full reference, a commit's prefix); -1 with the last error saying why
 * not. */
static int
check_branch_name(const char *name)
{
	const char *why = NULL;
	int valid = 0;

	if (!*name || strlen(name) > 48 ||
	    git_branch_name_is_valid(&valid, name) < 0 || !valid)
		why = name[0] == '-' ? "it would read as an option" :
		    strcmp(name, "HEAD") == 0 ? "it is git's name for the "
		    "current commit" : "";
	else if (special_ref_name(name))
		why = "it is a revision of git's own";
	else if (strncmp(name, "refs/", 5) == 0)
		why = "it would read as a full reference name";
	else if (strlen(name) >= 4 &&
	    strspn(name, "0123456789abcdef") == strlen(name))
		why = "it would read as a commit's id";
	else if (strncmp(name, "best/", 5) == 0)
		why = "best/ holds the tags of the best states";
	if (!why)
		return 0;
	return dojo_error_set("'%s' is not a valid branch name%s%s%s", name,
	    *why ? " (" : "", why, *why ? ")" : "");
}

/* Point branch "name" at the current commit and make it current: a new
 * branch, or with "move" any branch, moved. */
static enum dojo_result
branch_write(dojo_session *s, const char *name, bool move)
{
	git_reference *ref = NULL;
	git_oid head;
	char full[128];
	enum dojo_result rc = DOJO_FAILED;

	if (check_branch_name(name) < 0)
		return DOJO_REFUSED;
	snprintf(full, sizeof full, "refs/heads/%s", name);
	if (dojo_session_lock(s) < 0)
		return DOJO_FAILED;
	if (dojo_session_refresh(s) < 0)
		goto out;
	if (!move && branch_exists(s, name)) {
		dojo_error_set("branch '%s' exists already", name);
		rc = DOJO_REFUSED;
		goto out;
	}
	git_oid_fromstr(&head, s->head);
	if (git_reference_create(&ref, s->repo, full, &head, move,
	    move ? "perfdojo: branch moved" : "perfdojo: branch") < 0) {
		dojo_session_git_error(s->dir);
		goto out;
	}
	git_reference_free(ref);
	rc = attach_head(s, name) < 0 || dojo_session_refresh(s) < 0 ?
	    DOJO_FAILED : DOJO_DONE;
out:
	dojo_session_unlock(s);
	return rc;
}

enum dojo_result
dojo_session_branch_create(dojo_session *s, const char *name)
{
	return branch_write(s, name, false);
}

enum dojo_result
dojo_session_branch_set(dojo_session *s, const char *name)
{
	return branch_write(s, name, true);
}

/* Reading the tree of states. */

void
dojo_session_fill_entry(dojo_session *s, int i, struct dojo_session_entry *e)
{
	const struct commit *c = &s->commits[i];
	git_branch_iterator *it;
	git_reference *ref;
	git_branch_t type;
	size_t len = 0;

	memset(e, 0, sizeof *e);
	git_oid_tostr(e->commit, sizeof e->commit, &c->id);
	if (!git_oid_is_zero(&c->parent))
		git_oid_tostr(e->parent, sizeof e->parent, &c->parent);
	git_oid_tostr(e->state, sizeof e->state, &c->state);
	snprintf(e->action, sizeof e->action, "%s", c->action);
	e->depth = c->depth;
	e->nchildren = n_children(s, &c->id);
	e->current = strcmp(e->commit, s->head) == 0;
	if (git_branch_iterator_new(&it, s->repo, GIT_BRANCH_LOCAL) == 0) {
		while (git_branch_next(&ref, &type, it) == 0) {
			if (git_oid_equal(git_reference_target(ref), &c->id)) {
				const char *n = git_reference_shorthand(ref);

				if (len + strlen(n) + 2 < sizeof e->branches)
					len += sprintf(e->branches + len, "%s%s",
					    len ? " " : "", n);
			}
			git_reference_free(ref);
		}
		git_branch_iterator_free(it);
	}
	dojo_session_read_measurement(s, &c->id, &e->m);
}

int
dojo_session_walk(dojo_session *s, dojo_session_fn fn, void *payload)
{
	struct dojo_session_entry e;
	int i, rc;

	if (dojo_session_refresh(s) < 0)
		return -1;
	for (i = 0; i < s->ncommits; i++) {
		dojo_session_fill_entry(s, i, &e);
		rc = fn(&e, payload);
		if (rc)
			return rc;
	}
	return 0;
}

int
dojo_session_entry(dojo_session *s, const char *rev,
    struct dojo_session_entry *out)
{
	git_oid id;

	if (dojo_session_refresh(s) < 0 ||
	    dojo_session_resolve(&id, s, rev) < 0)
		return -1;
	dojo_session_fill_entry(s, find_commit(s, &id), out);
	return 0;
}

dojo_program *
dojo_session_program_at(dojo_session *s, const char *rev)
{
	git_oid id;

	if (dojo_session_refresh(s) < 0 ||
	    dojo_session_resolve(&id, s, rev) < 0)
		return NULL;
	return dojo_session_read_program(s, &id);
}

char **
dojo_session_path(dojo_session *s, const char *rev)
{
	git_oid id;
	char **path;
	int i, n;

	if (dojo_session_refresh(s) < 0 ||
	    dojo_session_resolve(&id, s, rev) < 0)
		return NULL;
	i = find_commit(s, &id);
	n = s->commits[i].depth;
	path = calloc(n + 1, sizeof *path);
	if (!path) {
		dojo_error_set("out of memory");
		return NULL;
	}
	for (; i >= 0 && n > 0; i = s->commits[i].parent_index) {
		path[--n] = strdup(s->commits[i].action);
		if (!path[n]) {
			dojo_session_path_free(path);
			dojo_error_set("out of memory");
			return NULL;
		}
	}
	return path;
}

void
dojo_session_path_free(char **path)
{
	char **p;

	if (!path)
		return;
	for (p = path; *p; p++)
		free(*p);
	free(path);
}

int
dojo_session_find_state(dojo_session *s, const char *state, char commit[41])
{
	git_oid want, head;
	int i, h, found = -1;

	commit[0] = '\0';
	if (dojo_session_refresh(s) < 0)
		return -1;
	if (git_oid_fromstr(&want, state) < 0)
		return dojo_error_set("'%s' is not a state id", state);
	git_oid_fromstr(&head, s->head);
	h = find_commit(s, &head);
	for (i = h; i >= 0; i = s->commits[i].parent_index)
		if (git_oid_equal(&s->commits[i].state, &want)) {
			found = i;
			break;
		}
	for (i = 0; found < 0 && i < s->ncommits; i++)
		if (git_oid_equal(&s->commits[i].state, &want))
			found = i;
	if (found >= 0)
		git_oid_tostr(commit, 41, &s->commits[found].id);
	return 0;
}
