/* jobs.c: the explorer's background work, each a child process running
 * perfdojo on the current state: a measurement, an agent.  The explorer
 * polls them between keys and never waits for one. */
#include "config.h"
#include "ui/explore.h"
#include "src/util/error.h"
#include "targets/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Start "perfdojo ARGS..." with the current state written to a
 * temporary file, which "args" names as "@" (NULL-terminated, at most
 * 30); with "hold_term", SIGTERM blocked until the program unblocks it.
 * 0, or -1 with the last error set. */
int
ex_job_start(struct explorer *ex, struct ex_job *j, const char *what,
    const char *const *args, bool hold_term)
{
	const char *tmpdir = getenv("TMPDIR"), *argv[32];
	char *text, exe[4096];
	int fd, pipefd[2], i;
	sigset_t term, old_mask;
	ssize_t n;
	pid_t pid, self = getpid();

	if (j->pid > 0)
		return dojo_error_set("%s is running", j->what);
	snprintf(j->file, sizeof j->file, "%s/perfdojo-XXXXXX.dojo",
	    tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemps(j->file, 5);
	text = dojo_program_print(ex->prog, false);
	if (fd < 0 || !text || write(fd, text, strlen(text)) !=
	    (ssize_t)strlen(text)) {
		dojo_error_set("%s: %s", j->file, strerror(errno));
		free(text);
		if (fd >= 0) {
			close(fd);
			unlink(j->file);
		}
		return -1;
	}
	free(text);
	close(fd);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		unlink(j->file);
		return dojo_error_set("%s: %s", what, strerror(errno));
	}
	exe[n] = '\0';
	argv[0] = "perfdojo";
	for (i = 0; args[i] && i < 30; i++)
		argv[i + 1] = strcmp(args[i], "@") == 0 ? j->file : args[i];
	argv[i + 1] = NULL;
	/* a stop that comes before the program can take it waits for it:
	 * the child starts with SIGTERM blocked (perfdojo tune unblocks it
	 * once it records its best path on SIGTERM) */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (hold_term)
		sigprocmask(SIG_BLOCK, &term, &old_mask);
	pid = fork();
	if (pid != 0 && hold_term)
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		unlink(j->file);
		return dojo_error_set("%s: %s", what, strerror(errno));
	}
	if (pid == 0) {
		int null;

		/* away from the terminal's signals (C-c for Scheme), and
		 * stopped or stopped for good as a group; gone with the
		 * explorer, however it ends (kill -9 included) */
		dojo_child_die_with_parent(self);
		null = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		dup2(null, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execv(exe, (char *const *)argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	j->pid = pid;
	j->fd = pipefd[0];
	j->len = 0;
	j->out[0] = '\0';
	j->paused = false;
	snprintf(j->what, sizeof j->what, "%s", what);
	snprintf(j->commit, sizeof j->commit, "%s", ex->head.commit);
	return 0;
}

bool
ex_job_poll(struct ex_job *j, int *status)
{
	ssize_t n;

	if (j->pid <= 0)
		return false;
	while (j->len < sizeof j->out - 1 && (n = read(j->fd, j->out + j->len,
	    sizeof j->out - 1 - j->len)) > 0)
		j->len += n;
	j->out[j->len] = '\0';
	if (waitpid(j->pid, status, WNOHANG) != j->pid)
		return true;
	/* what is left in the pipe */
	while (j->len < sizeof j->out - 1 && (n = read(j->fd, j->out + j->len,
	    sizeof j->out - 1 - j->len)) > 0)
		j->len += n;
	j->out[j->len] = '\0';
	close(j->fd);
	unlink(j->file);
	j->pid = 0;
	while (j->len > 0 && j->out[j->len - 1] == '\n')
		j->out[--j->len] = '\0';
	return false;
}

const char *
ex_job_last_line(const struct ex_job *j)
{
	const char *last = strrchr(j->out, '\n');

	last = last ? last + 1 : j->out;
	if (strncmp(last, j->file, strlen(j->file)) == 0)
		last += strlen(j->file);
	if (strncmp(last, ": ", 2) == 0)
		last += 2;
	return last;
}

void
ex_job_signal(struct ex_job *j, int sig)
{
	if (j->pid <= 0)
		return;
	if (j->paused && sig == SIGTERM)
		kill(-j->pid, SIGCONT);
	kill(-j->pid, sig);
	if (sig == SIGSTOP)
		j->paused = true;
	else if (sig == SIGCONT)
		j->paused = false;
}

void
ex_job_release(struct ex_job *j)
{
	int status;

	if (j->pid <= 0)
		return;
	ex_job_signal(j, SIGTERM);
	waitpid(j->pid, &status, 0);
	close(j->fd);
	unlink(j->file);
	j->pid = 0;
}
