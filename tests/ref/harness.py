"""Shared helpers of selfcheck.py and check.py: input generation, building and
running the C references, reading outputs back, and comparing arrays."""

import os
import shlex
import subprocess
import zlib

import numpy as np

import refs

# Tolerances, per element: |got - want| <= ATOL + RTOL * |want|.
TOLERANCES = {
    np.float32: (1e-4, 1e-5),
    np.float64: (1e-10, 1e-12),
    np.int32: (0, 0),
    np.int64: (0, 0),
}

CFLAGS = ["-O0", "-std=c11", "-Wall", "-Wextra", "-ffp-contract=off"]


def make_inputs(name, decls):
    """Random inputs for the kernel NAME, the same on every run: floats uniform
    in [-1, 1), integers uniform in [-8, 8)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    inputs = {}
    for d in refs.inputs_of(decls):
        if np.issubdtype(d.dtype, np.floating):
            a = rng.uniform(-1.0, 1.0, d.shape)
        else:
            a = rng.integers(-8, 8, d.shape)
        inputs[d.name] = np.ascontiguousarray(a.astype(d.dtype))
    return inputs


def write_arrays(directory, arrays):
    os.makedirs(directory, exist_ok=True)
    for n, a in arrays.items():
        np.save(os.path.join(directory, n + ".npy"), a, allow_pickle=False)


def run(argv, timeout):
    """Runs ARGV; returns None on success, else a one-line reason."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"{argv[0]} timed out after {timeout} s"
    except OSError as e:
        return f"cannot run {argv[0]}: {e}"
    if p.returncode != 0:
        out = p.stdout.decode("utf-8", "replace").strip().splitlines()
        tail = " | ".join(out[-3:])
        return f"{os.path.basename(argv[0])} exited with status {p.returncode}: {tail}"
    return None


def build_ref(c_path, exe):
    """Compiles the C reference C_PATH into EXE; returns None or a reason."""
    cc = shlex.split(os.environ.get("CC", "cc"))
    return run(cc + CFLAGS + [c_path, "-o", exe, "-lm"], timeout=120)


def read_outputs(directory, decls):
    """Reads the `out`/`inout` arrays from DIRECTORY. Returns (arrays, None)
    or (None, reason) if one is missing or has the wrong dtype or shape."""
    arrays = {}
    for d in refs.outputs_of(decls):
        path = os.path.join(directory, d.name + ".npy")
        try:
            a = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            return None, f"cannot read {d.name}.npy: {e}"
        if a.dtype != np.dtype(d.dtype):
            return None, f"{d.name}.npy has dtype {a.dtype}, expected {np.dtype(d.dtype)}"
        if a.shape != d.shape:
            return None, f"{d.name}.npy has shape {a.shape}, expected {d.shape}"
        arrays[d.name] = a
    return arrays, None


def compare(decls, got, want, what):
    """Compares the output arrays GOT against WANT (both dicts by name).
    Returns (max abs error, None) or (None, reason)."""
    worst = 0.0
    for d in refs.outputs_of(decls):
        if d.name not in want:
            return None, f"{what}: no array {d.name}"
        g = np.asarray(got[d.name], dtype=np.float64)
        w = np.asarray(want[d.name], dtype=np.float64)
        if g.shape != w.shape:
            return None, f"{what}: {d.name} has shape {g.shape}, expected {w.shape}"
        if not np.all(np.isfinite(w)):
            return None, f"{what}: reference {d.name} is not finite"
        rtol, atol = TOLERANCES[d.dtype]
        err = np.abs(g - w)
        bad = ~(err <= atol + rtol * np.abs(w))  # also true where g is NaN
        if bad.any():
            i = tuple(int(k) for k in np.argwhere(bad)[0])
            return None, (f"{what}: {d.name}{list(i)} = {g[i]!r}, expected {w[i]!r} "
                          f"({int(bad.sum())} of {w.size} elements differ)")
        if err.size:
            worst = max(worst, float(err.max()))
    return worst, None
