#!/usr/bin/python3
# peers.py KERNEL THREADS [SECONDS]: the median time in nanoseconds of
# PyTorch eager (Debian python3-torch) on the example KERNEL, the same
# formulas and shapes as examples/KERNEL.dojo, f32, with THREADS threads.
# Prints "NAME THREADS MEDIAN_NS REPS"; exits 2 when torch is missing.
import os
import sys
import time

# torch.set_num_threads does not reach the BLAS under torch.mm (Debian's
# torch calls OpenBLAS, whose threads follow its own variable, read when
# it loads): the thread count goes to every pool before torch starts
if len(sys.argv) > 2 and sys.argv[2].isdigit():
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[v] = sys.argv[2]

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.stderr.write("peers.py: no torch (apt-get install python3-torch)\n")
    sys.exit(2)


def r(*shape):
    return torch.rand(*shape, dtype=torch.float32) * 2 - 1


def softmax():
    x = r(128, 1024)
    return lambda: torch.softmax(x, 1)


def attention():
    q, k, v = r(512, 64), r(512, 64), r(512, 64)
    return lambda: torch.softmax(q @ k.t() * 0.125, 1) @ v


def batched_matmul():
    a, b = r(8, 256, 128), r(8, 256, 128)
    return lambda: torch.bmm(a, b.transpose(1, 2))


def batchnorm():
    x, mean, var, gain, shift = r(8, 64, 56, 56), r(64), r(64), r(64), r(64)
    return lambda: F.batch_norm(x, mean, var.abs(), gain, shift, False,
                                0.0, 1e-5)


def bias_gelu():
    x, b = r(512, 3072), r(3072)
    return lambda: F.gelu(x + b, approximate="tanh")


def bias_relu():
    x, b = r(1024, 1024), r(1024)
    return lambda: torch.relu(x + b)


def conv2d():
    x, w, b = r(1, 64, 56, 56), r(64, 64, 3, 3), r(64)
    return lambda: F.conv2d(x, w, b, padding=1)


def depthwise_conv():
    x, w = r(1, 128, 112, 112), r(128, 1, 3, 3)
    return lambda: F.conv2d(x, w, None, padding=1, groups=128)


def layernorm():
    x, gain, shift = r(1024, 768), r(768), r(768)
    return lambda: F.layer_norm(x, (768,), gain, shift, 1e-5)


def matmul():
    a, b = r(512, 512), r(512, 512)
    return lambda: torch.mm(a, b)


def mlp():
    x, w1, b1, w2, b2 = r(128, 512), r(512, 1024), r(1024), r(1024, 512), \
        r(512)
    return lambda: torch.addmm(b2, torch.addmm(b1, x, w1).relu_(), w2)


KERNELS = {f.__name__: f for f in (softmax, attention, batched_matmul,
                                   batchnorm, bias_gelu, bias_relu, conv2d,
                                   depthwise_conv, layernorm, matmul, mlp)}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in KERNELS:
        sys.stderr.write("usage: peers.py KERNEL THREADS [SECONDS] "
                         "(KERNEL: %s)\n" % " ".join(sorted(KERNELS)))
        sys.exit(1)
    name, threads = sys.argv[1], int(sys.argv[2])
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 0.7
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    with torch.inference_mode():
        f = KERNELS[name]()
        for _ in range(3):
            f()
        times = []
        start = time.perf_counter()
        while len(times) < 5 or (time.perf_counter() - start < budget and
                                 len(times) < 10000):
            t0 = time.perf_counter_ns()
            f()
            times.append(time.perf_counter_ns() - t0)
    times.sort()
    print("%s %d %d %d" % (name, threads, times[len(times) // 2], len(times)))


main()
