/* tune_mpi.h: perfdojo tune --mpi: rank 0 plays, the other ranks measure
 * (doc/cluster.md) */
#ifndef DOJO_TUNE_MPI_H
#define DOJO_TUNE_MPI_H

#include <stdbool.h>

#include "ir/program.h"
#include "src/core/env.h"
#include "targets/measure.h"

struct dojo_mpi_options {
	bool synthetic;		/* each state's time dojo_synthetic_ns */
	bool mixed;		/* ranks of other fingerprints kept apart */
	const char *log;	/* rank 0: a line a measurement a rank made
				   (NULL: none) */
	/* how every rank measures (rank 0 keeps the results in its
	 * database, the others measure into a scratch one on their node) */
	struct dojo_measure_options measure;
};

/* A deterministic stand-in for a time, from the state id of "prog" alone
 * (between 0.5 and 1.5 ms): tune --synthetic tests and benchmarks the
 * search and its distribution, not the kernels. */
double dojo_synthetic_ns(__dojo_keep dojo_program *prog);

/* Whether this perfdojo was built with Open MPI. */
bool dojo_mpi_built(void);
/* Start MPI: this process's rank and the number of ranks.  0, or -1 with
 * the last error set (not built with Open MPI). */
int dojo_mpi_start(int *rank, int *size);
/* Leave MPI (every rank, once, at the end). */
void dojo_mpi_stop(void);

/* A rank other than 0: measure what rank 0 sends, "start" (as rank 0
 * read it) the reference of the outputs, until rank 0 says stop.  0, or
 * -1 with the last error set. */
int dojo_mpi_serve(const struct dojo_mpi_options *opt);

/* Rank 0, before dojo_mpi_lead: tell the other ranks to stop. */
void dojo_mpi_abandon(void);

typedef struct dojo_mpi dojo_mpi;
/* Rank 0: meet the other ranks (each says its node and fingerprint: one
 * that differs from rank 0's is refused unless opt->mixed), send them the
 * start, and make them the measurements of "eo" (eo->remote).  NULL with
 * the last error set (the other ranks are then told to stop). */
__dojo_give dojo_mpi *dojo_mpi_lead(__dojo_keep dojo_program *start,
    __dojo_keep const struct dojo_mpi_options *opt,
    __dojo_keep struct dojo_env_options *eo);
/* Rank 0: tell the other ranks to stop; a line on what each measured
 * into "out" (may be NULL); free "c". */
void dojo_mpi_finish(__dojo_take dojo_mpi *c, char *out, size_t len);

#endif
