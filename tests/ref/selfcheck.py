#!/usr/bin/env python3
"""Checks the two independent references against each other.

For every tests/ref/NAME.dojo: generates seeded random inputs, builds and runs
the C reference NAME.c on them, and compares its outputs with refs.NAME
(f32: rtol 1e-4, atol 1e-5). Also checks that examples/NAME.dojo, where it
exists, declares the same arrays (names, types, ranks, locations, roles).
Prints one line per kernel and exits 1 if anything failed.

Usage: selfcheck.py [REFDIR]   (default: the directory of this script)
"""

import glob
import os
import sys
import tempfile

try:
    import numpy  # noqa: F401
except ImportError:  # a python3 first on PATH without NumPy: use the system's
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, HERE)
import harness  # noqa: E402
import refs  # noqa: E402


def same_arrays(small, full):
    """None if the two declaration lists match up to extents, else a reason."""
    def key(d):
        return (d.name, d.dtype, len(d.shape), d.location, d.role)

    a, b = [key(d) for d in small], [key(d) for d in full]
    return None if a == b else f"declarations differ from the example: {a} vs {b}"


def check(name, refdir, tmp):
    dojo = os.path.join(refdir, name + ".dojo")
    decls = refs.read_decls(dojo)
    if name not in refs.KERNELS:
        return "no function in refs.py"
    example = os.path.join(refdir, "..", "..", "examples", name + ".dojo")
    if os.path.exists(example):
        why = same_arrays(decls, refs.read_decls(example))
        if why:
            return why
    inputs = harness.make_inputs(name, decls)
    indir, outdir = os.path.join(tmp, "in"), os.path.join(tmp, "out")
    harness.write_arrays(indir, inputs)
    os.makedirs(outdir)
    exe = os.path.join(tmp, "ref")
    why = harness.build_ref(os.path.join(refdir, name + ".c"), exe)
    why = why or harness.run([exe, indir, outdir], timeout=60)
    if why:
        return why
    got, why = harness.read_outputs(outdir, decls)
    if why:
        return "C reference: " + why
    err, why = harness.compare(decls, got, refs.KERNELS[name](inputs), "C vs refs.py")
    return why or err


def main():
    refdir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else HERE)
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(refdir, "*.dojo")))
    failed = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix="selfcheck-") as tmp:
            try:
                res = check(name, refdir, tmp)
            except Exception as e:  # report and go on with the next kernel
                res = f"{type(e).__name__}: {e}"
        if isinstance(res, float):
            print(f"ok   {name} (max abs error {res:.2e})")
        else:
            print(f"FAIL {name}: {res}")
            failed += 1
    if not names:
        print(f"FAIL: no .dojo files in {refdir}")
        failed = 1
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
