/* view.c: a state as text to compare (view.h) */
#include "config.h"
#include "src/core/view.h"
#include "src/util/diff.h"
#include "src/util/strbuf.h"
#include "targets/c.h"
#include "targets/runner.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *
dojo_view_name(enum dojo_view v)
{
	return v == DOJO_VIEW_CODE ? "code" : v == DOJO_VIEW_ASM ? "asm" :
	    "program";
}

/* "line" of objdump without what differs between two builds of the same
 * code: the address before ":\t", and a hex address before " <". */
static void
asm_line(struct dojo_strbuf *sb, const char *line, size_t len)
{
	const char *tab = memchr(line, '\t', len), *p, *end = line + len;

	/* "  1139:\tvmovss ..." -> "\tvmovss ..." */
	if (tab && tab > line && tab[-1] == ':' && len > 2 && line[0] == ' ')
		line = tab;
	for (p = line; p < end; p++) {
		if (p + 1 < end && *p == ' ' && isxdigit((unsigned char)p[1])) {
			const char *q = p + 1;

			while (q < end && isxdigit((unsigned char)*q))
				q++;
			if (q + 1 < end && q[0] == ' ' && q[1] == '<') {
				p = q - 1;	/* the address dropped */
				continue;
			}
		}
		dojo_strbuf_add(sb, p, 1);
	}
	dojo_strbuf_puts(sb, "\n");
}

/* The output of "objdump -d" of the kernel's function in "so". */
static char *
disassemble(const char *so)
{
	const char *argv[] = { "objdump", "-d", "--no-show-raw-insn",
	    "--disassemble=" DOJO_C_KERNEL, so, NULL };
	struct dojo_strbuf out, sb;
	char buf[65536], *text = NULL;
	int fd[2], st;
	ssize_t n;
	pid_t pid, self = getpid();

	if (pipe(fd) < 0) {
		dojo_error_set("pipe: %s", strerror(errno));
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		dojo_error_set("fork: %s", strerror(errno));
		return NULL;
	}
	if (pid == 0) {
		dojo_child_die_with_parent(self);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "objdump: %s (apt-get install binutils)\n",
		    strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	dojo_strbuf_init(&out);
	while ((n = read(fd[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		dojo_strbuf_add(&out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !out.s) {
		dojo_error_set("objdump failed on %s", so);
		dojo_strbuf_release(&out);
		return NULL;
	}
	/* from the function's label on, without the addresses */
	dojo_strbuf_init(&sb);
	{
		const char *p = strstr(out.s, "<" DOJO_C_KERNEL ">:");

		p = p ? strchr(p, '\n') : NULL;
		for (p = p ? p + 1 : out.s; *p; ) {
			size_t len = strcspn(p, "\n");

			if (len)
				asm_line(&sb, p, len);
			p += len + (p[len] == '\n');
		}
	}
	dojo_strbuf_release(&out);
	text = dojo_strbuf_detach(&sb);
	if (!text)
		dojo_error_set("out of memory");
	return text;
}

char *
dojo_view_text(dojo_program *prog, enum dojo_view v)
{
	struct dojo_run_options opt;
	struct dojo_run_result res;
	struct dojo_c_kernel *k;
	struct dojo_strbuf sb;
	char *text;

	if (v == DOJO_VIEW_PROGRAM) {
		text = dojo_program_print_named(prog, false);
		if (!text)
			dojo_error_set("out of memory");
		return text;
	}
	if (v == DOJO_VIEW_CODE) {
		dojo_strbuf_init(&sb);
		if (dojo_c_emit_function(&sb, prog, dojo_c_exact(NULL),
		    &(struct dojo_c_function){ .name = DOJO_C_KERNEL,
		    .names = true }) < 0) {
			dojo_strbuf_release(&sb);
			return NULL;
		}
		text = dojo_strbuf_detach(&sb);
		if (!text)
			dojo_error_set("out of memory");
		return text;
	}
	memset(&opt, 0, sizeof opt);
	if (dojo_c_build(prog, &opt, &k, &res) < 0)
		return NULL;
	if (!k) {
		dojo_error_set("the kernel does not compile: %s", res.message);
		return NULL;
	}
	text = disassemble(dojo_c_kernel_object(k));
	dojo_c_kernel_free(k);
	return text;
}

int
dojo_view_diff(struct dojo_strbuf *out, dojo_program *a, dojo_program *b,
    enum dojo_view v, const struct dojo_diff_options *opt, bool *differ)
{
	char *ta = dojo_view_text(a, v), *tb = ta ? dojo_view_text(b, v) : NULL;
	int rc = ta && tb ? dojo_diff(out, ta, tb, opt, differ) : -1;

	free(ta);
	free(tb);
	return rc;
}
