/* cmd_run.c: perfdojo run: execute a kernel, write or checksum outputs */
#include "config.h"
#include "src/cmd/command.h"
#include "ir/data.h"
#include "ir/interp.h"
#include "ir/program.h"
#include "targets/measure.h"
#include "targets/runner.h"
#include "targets/target.h"
#include "targets/cross.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The interpreter refuses programs whose buffers need more than this. */
#define RUN_MAX_BYTES (8ULL << 30)

static int
array_path(char *out, size_t len, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, len, "%s/%s.npy", dir, name) >= len)
		return dojo_error_set("%s: path too long", dir);
	return 0;
}

/* Copy every buffer of "from" into "to" (both of "prog"). */
static void
copy_data(dojo_data *to, dojo_data *from, dojo_program *prog)
{
	int b;

	for (b = 0; b < dojo_program_n_buffers(prog); b++)
		memcpy(dojo_data_buffer(to, b), dojo_data_buffer(from, b),
		    dojo_data_count(from, b) *
		    dojo_dtype_size(dojo_buffer_dtype(prog, b)));
}

static int
run_run(int argc, char **argv)
{
	const struct dojo_command *cmd = &dojo_command_run;
	struct dojo_option_parser p;
	const char *inputs = NULL, *outputs = NULL, *file, *target = NULL;
	const char *runner = NULL;
	const struct dojo_target *t = NULL;
	char ran[400] = "";
	struct dojo_run_result res;
	struct dojo_run_options ropt = { NULL, NULL, 60, DOJO_RUN_MEMORY };
	double interp_limit = 0;	/* the interpreter's: only --timeout */
	bool check = false;
	dojo_data *want = NULL;
	char msg[512];
	unsigned long long seed = 1;
	char path[PATH_MAX], *end;
	dojo_program *prog;
	dojo_data *data;
	enum dojo_role role;
	int c, b, rc = DOJO_EXIT_ERROR;

	dojo_option_parser_init(&p, cmd);
	while ((c = dojo_option_end(&p, argc, argv)) >= 0) {
		switch (c) {
		case 'i':
			inputs = optarg;
			break;
		case 'o':
			outputs = optarg;
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-')
				return dojo_command_usage(cmd, "--seed needs a "
				    "non-negative integer, not '%s'", optarg);
			break;
		case 't':
			target = optarg;
			if (strcmp(target, "interp") == 0)
				break;
			if (!(t = dojo_target_runnable(target)))
				return dojo_command_usage(cmd, "%s (or interp)",
				    dojo_error_last());
			break;
		case 'R':
			runner = optarg;
			break;
		case 'C':
			ropt.cflags = optarg;
			break;
		case 'x':
			ropt.exact = true;
			break;
		case 'c':
			check = true;
			break;
		case 'T':
			ropt.timeout = strtod(optarg, &end);
			if (*end || ropt.timeout <= 0)
				return dojo_command_usage(cmd, "--timeout needs "
				    "a positive number of seconds, not '%s'",
				    optarg);
			interp_limit = ropt.timeout;
			break;
		}
	}
	if (c == DOJO_OPTION_STOP)
		return p.status;
	if (optind != argc - 1)
		return dojo_command_usage(cmd, "expected one FILE");
	if (runner && (!t || !t->cross))
		return dojo_command_usage(cmd, "--runner runs a cross target's "
		    "program (--target aarch64, riscv64)");
	file = argv[optind];
	prog = dojo_program_read_file(file);
	if (!prog)
		return dojo_command_fail();
	data = dojo_data_new(prog, RUN_MAX_BYTES);
	if (!data)
		goto out_free_prog;
	dojo_data_randomize(data, seed);
	for (b = 0; inputs && b < dojo_program_n_buffers(prog); b++) {
		role = dojo_buffer_role(prog, b);
		if (role != DOJO_IN && role != DOJO_INOUT)
			continue;
		if (array_path(path, sizeof path, inputs,
		    dojo_buffer_name(prog, b)) < 0 ||
		    dojo_data_load_npy(data, b, path) < 0)
			goto out_free_data;
	}
	if (t) {
		/* --check: the interpreter on the same inputs */
		if (check) {
			want = dojo_data_new(prog, RUN_MAX_BYTES);
			if (!want)
				goto out_free_data;
			copy_data(want, data, prog);
			if (dojo_interp_run_limited(prog, want,
			    interp_limit) < 0)
				goto out_free_data;
		}
		if (t->cross) {
			struct dojo_cross_options xo = {
				dojo_target_variant(target), runner,
				ropt.cflags, dojo_c_exact(&ropt), ropt.timeout, 0
			};
			struct dojo_cross_result xr;

			if (dojo_cross_run(t->cross, prog, data, &xo, &xr) < 0)
				goto out_free_data;
			res = xr.run;
			/* where it ran, as that side says */
			if (xr.machine[0])
				snprintf(ran, sizeof ran, "# ran on %s%s%s%s\n",
				    xr.machine, xr.emulated ? " (emulated by " :
				    "", xr.emulated ? xr.emulator : "",
				    xr.emulated ? ")" : "");
		} else if (dojo_c_run(prog, data, &ropt, &res) < 0) {
			goto out_free_data;
		}
		if (res.outcome != DOJO_OUTCOME_OK) {
			dojo_error_set("%s: %s: %s", file,
			    dojo_outcome_name(res.outcome), res.message);
			goto out_free_data;
		}
		if (want && !dojo_outputs_agree(prog, data, prog, want, msg,
		    sizeof msg)) {
			dojo_error_set("%s: wrong answer (%s mode): %s", file,
			    dojo_c_mode_name(&ropt), msg);
			goto out_free_data;
		}
	} else if (dojo_interp_run_limited(prog, data, interp_limit) < 0) {
		goto out_free_data;
	}
	if (outputs && mkdir(outputs, 0777) < 0 && errno != EEXIST) {
		dojo_error_set("%s: %s", outputs, strerror(errno));
		goto out_free_data;
	}
	for (b = 0; b < dojo_program_n_buffers(prog); b++) {
		role = dojo_buffer_role(prog, b);
		if (role != DOJO_OUT && role != DOJO_INOUT)
			continue;
		if (outputs && (array_path(path, sizeof path, outputs,
		    dojo_buffer_name(prog, b)) < 0 ||
		    dojo_data_save_npy(data, b, path) < 0))
			goto out_free_data;
		dojo_data_print_checksum(stdout, data, b);
	}
	fputs(ran, stderr);
	rc = 0;
out_free_data:
	dojo_data_free(want);
	dojo_data_free(data);
out_free_prog:
	dojo_program_free(prog);
	return rc ? dojo_command_fail() : 0;
}

static const struct dojo_option run_options[] = {
	{ "inputs", 'i', "DIR", "read each in/inout array from DIR/NAME.npy "
	    "(default: seeded uniform random values)" },
	{ "outputs", 'o', "DIR", "write each out/inout array to DIR/NAME.npy" },
	{ "seed", 's', "N", "seed of the random inputs (default 1)" },
	{ "target", 't', "T", "interp (default: the reference interpreter), "
	    "or a target of 'perfdojo targets': this machine's (compiled with "
	    "$CC, run in a child), another's (compiled for it, run by "
	    "qemu-user, a GPU or --runner) or an emulation (NAME:emu)" },
	{ "runner", 'R', "CMD", "with another machine's target: run 'CMD PROGRAM DIR "
	    "REPS' (no shell) instead of qemu-user, e.g. a script that runs it "
	    "on the machine itself (doc/targets.md)" },
	{ "timeout", 'T', "S", "the time limit: the child's with -t c "
	    "(default 60), the interpreter's otherwise (default none)" },
	{ "cflags", 'C', "F", "the compiler's flags with -t c (default \""
	    DOJO_C_CFLAGS "\"); more flags with a cross target" },
	{ "exact", 'x', NULL, DOJO_EXACT_HELP },
	{ "check", 'c', NULL, "with -t c: also run the interpreter, and fail "
	    "unless the outputs agree within the tolerance (doc/measure.md)" },
	{ NULL }
};

const struct dojo_command dojo_command_run = {
	.name = "run",
	.args = "FILE.dojo",
	.options = run_options,
	.summary = "execute a kernel and print a checksum per output",
	.run = run_run,
};
