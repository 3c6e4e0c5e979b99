"""NumPy references for the kernels in tests/ref (and examples/).

Each kernel NAME has a function NAME(inputs) -> outputs: INPUTS maps the
names of the kernel's `in`/`inout` arrays to NumPy arrays, and the result
maps the names of its `out`/`inout` arrays to float64 arrays (computed in
float64, independently of the .dojo loop nest; the caller compares them with
the declared type's tolerance). The functions take their sizes from the
input shapes, so they serve the small and the full-size variants alike.

read_decls(PATH) reads the buffer declarations of a .dojo file.
"""

import re
from collections import namedtuple

import numpy as np

# ---------------------------------------------------------------------------
# .dojo declarations

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}

Decl = namedtuple("Decl", "name dtype shape location role arrays")

_DECL = re.compile(
    r"^([A-Za-z_][A-Za-z0-9_]*)\s+(\w+)\s*\[([^\]]*)\]\s*(\w+)"
    r"(?:\s+(in|out|inout))?\s*(?:->\s*(.*))?$"
)


def read_decls(path):
    """Returns the buffer declarations of the .dojo file PATH, in order.

    A declaration line is `NAME DTYPE [DIM, ...] LOCATION [ROLE] [-> A, ...]`;
    `#` starts a comment; a line with `=` or `|` is an operation and skipped.
    Decl.shape holds the logical extents (a folded `E:F` dimension gives E),
    Decl.role is 'in', 'out', 'inout' or None, Decl.dtype the NumPy type.
    """
    decls = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line or "=" in line or "|" in line:
                continue
            m = _DECL.match(line)
            if not m or m.group(2) not in DTYPES:
                raise ValueError(f"{path}:{lineno}: not a buffer declaration: {line}")
            name, dtype, dims, location, role, arrays = m.groups()
            shape = tuple(int(d.split(":")[0]) for d in dims.split(","))
            arrays = [a.strip() for a in arrays.split(",")] if arrays else [name]
            decls.append(Decl(name, DTYPES[dtype], shape, location, role, arrays))
    return decls


def inputs_of(decls):
    """The declarations whose arrays a kernel reads from INDIR."""
    return [d for d in decls if d.role in ("in", "inout")]


def outputs_of(decls):
    """The declarations whose arrays a kernel writes to OUTDIR."""
    return [d for d in decls if d.role in ("out", "inout")]


# ---------------------------------------------------------------------------
# Kernels


def _get(inputs, *names):
    return [np.asarray(inputs[n], dtype=np.float64) for n in names]


def _softmax_rows(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _pad_hw(x):
    """Zero padding of one pixel around the two last (H, W) dimensions."""
    return np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))


def matmul(inputs):
    a, b = _get(inputs, "A", "B")
    return {"C": a @ b}


def batched_matmul(inputs):
    a, b = _get(inputs, "A", "B")
    return {"C": a @ b.transpose(0, 2, 1)}


def conv2d(inputs):
    x, w, bias = _get(inputs, "x", "w", "bias")
    n, _, h, wd = x.shape
    xp = _pad_hw(x)
    y = np.broadcast_to(bias[None, :, None, None], (n, w.shape[0], h, wd)).copy()
    for r in range(3):
        for s in range(3):
            y += np.einsum("nchw,oc->nohw", xp[:, :, r:r + h, s:s + wd], w[:, :, r, s])
    return {"y": y}


def depthwise_conv(inputs):
    x, w = _get(inputs, "x", "w")
    h, wd = x.shape[2:]
    xp = _pad_hw(x)
    y = np.zeros_like(x)
    for r in range(3):
        for s in range(3):
            y += xp[:, :, r:r + h, s:s + wd] * w[None, :, r, s, None, None]
    return {"y": y}


def softmax(inputs):
    (x,) = _get(inputs, "x")
    return {"y": _softmax_rows(x)}


def layernorm(inputs):
    x, gain, shift = _get(inputs, "x", "gain", "shift")
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return {"y": (x - mean) / np.sqrt(var + 1e-5) * gain + shift}


def batchnorm(inputs):
    x, mean, var, gain, shift = _get(inputs, "x", "mean", "var", "gain", "shift")

    def c(a):
        return a[None, :, None, None]

    return {"y": (x - c(mean)) / np.sqrt(np.abs(c(var)) + 1e-5) * c(gain) + c(shift)}


def bias_relu(inputs):
    x, b = _get(inputs, "x", "b")
    return {"y": np.maximum(x + b, 0.0)}


def bias_gelu(inputs):
    x, b = _get(inputs, "x", "b")
    v = x + b
    return {"y": 0.5 * v * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (v + 0.044715 * v**3)))}


def attention(inputs):
    q, k, v = _get(inputs, "Q", "K", "V")
    p = _softmax_rows(q @ k.T / np.sqrt(q.shape[1]))
    return {"O": p @ v}


def mlp(inputs):
    x, w1, b1, w2, b2 = _get(inputs, "x", "W1", "b1", "W2", "b2")
    h = np.maximum(x @ w1 + b1, 0.0)
    return {"y": h @ w2 + b2}


KERNELS = {
    f.__name__: f
    for f in (matmul, batched_matmul, conv2d, depthwise_conv, softmax, layernorm,
              batchnorm, bias_relu, bias_gelu, attention, mlp)
}
