/* qnet.h: the Q-network of the Max-Q player: a small multilayer
 * perceptron in plain C (dim -> hidden -> hidden -> 1, ReLU), trained by
 * Adam on squared errors, with a target copy; models in a versioned
 * text file (doc/agents.md)
 */
#ifndef DOJO_QNET_H
#define DOJO_QNET_H

#include <stdbool.h>
#include <stdint.h>

#include "src/util/error.h"

#define DOJO_MODEL_MAGIC "perfdojo-model"
#define DOJO_MODEL_VERSION 1

typedef struct dojo_qnet dojo_qnet;

/* A network over "dim" inputs with two hidden layers of "hidden" units,
 * weights drawn from the splitmix64 stream of "seed" (He's scaling);
 * the target network is a copy. */
__dojo_give dojo_qnet *dojo_qnet_new(int dim, int hidden, uint64_t seed);
void dojo_qnet_free(__dojo_take dojo_qnet *q);
int dojo_qnet_dim(__dojo_keep dojo_qnet *q);
/* The updates made so far. */
long dojo_qnet_updates(__dojo_keep dojo_qnet *q);

/* Q(x) by the online network, or by the target network. */
double dojo_qnet_eval(__dojo_keep dojo_qnet *q, const float *x, bool target);
/* One Adam step of rate "lr" on the mean of (Q(x_i) - y_i)^2 over the
 * "n" rows of "xs" (n x dim); the loss before the step. */
double dojo_qnet_train(__dojo_keep dojo_qnet *q, const float *xs,
    const double *ys, int n, double lr);
/* The target network becomes a copy of the online one. */
void dojo_qnet_sync(__dojo_keep dojo_qnet *q);

/* The Max-Q target of a transition to a state of reward "r": the value
 * of a path is the best state on it, so y = max(r, gamma * max_i
 * qnext[i]); y = r when the state failed or has no actions ("n" 0). */
double dojo_maxq_target(double r, bool failed, double gamma,
    const double *qnext, int n);
/* The same with double Q: the action that "qpick" (the online
 * network's values) ranks first is valued by "qnext" (the target
 * network's), y = max(r, gamma * qnext[argmax_i qpick[i]]).  The max of
 * many noisy estimates sits above their mean; picking with one network
 * and valuing with the other keeps that bias out of the target. */
double dojo_maxq_target_double(double r, bool failed, double gamma,
    const double *qnext, const double *qpick, int n);

/* Write the model: the header "perfdojo-model 1", "encoder NAME DIM",
 * "layers", "updates", then the weights.  0 or -1. */
int dojo_qnet_save(__dojo_keep dojo_qnet *q, const char *path,
    const char *encoder, int encoder_dim);
/* Read a model written for "encoder" of state dimension "encoder_dim"
 * (0: any; then "*dim_out", if not NULL, gets the model's); a model of
 * another version or encoder is refused with a one-line error. */
__dojo_give dojo_qnet *dojo_qnet_load(const char *path, const char *encoder,
    int encoder_dim, int *dim_out);

#endif
