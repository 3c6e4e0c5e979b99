#!/usr/bin/env python3
"""Checks the perfdojo interpreter against the references.

Usage: check.py PERFDOJO REFDIR [NAME ...]

For every REFDIR/NAME.dojo (or only the NAMEs given): generates the seeded
random inputs (as selfcheck.py does) as .npy files, runs

    PERFDOJO run REFDIR/NAME.dojo --inputs IN --outputs OUT

builds and runs the C reference REFDIR/NAME.c on the same inputs, computes
refs.NAME with NumPy, and compares perfdojo's `out`/`inout` arrays with both
(f32: rtol 1e-4, atol 1e-5). Prints `PASS: NAME` or `FAIL: NAME: why` per
kernel, then `N passed, N failed`; exits 1 if any failed.

PERFDOJO is split like a shell word list, so a wrapper such as
"valgrind -q ./perfdojo" works. Set CHECK_TIMEOUT (seconds, default 300) to
bound each perfdojo run, CC to choose the C compiler.
"""

import glob
import os
import shlex
import sys
import tempfile

try:
    import numpy  # noqa: F401
except ImportError:  # a python3 first on PATH without NumPy: use the system's
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import refs  # noqa: E402


def check(perfdojo, refdir, name, tmp, timeout):
    """Returns None if perfdojo's outputs match both references, else why."""
    dojo = os.path.join(refdir, name + ".dojo")
    csrc = os.path.join(refdir, name + ".c")
    if not os.path.exists(dojo):
        return f"no file {dojo}"
    if name not in refs.KERNELS:
        return "no function in refs.py"
    if not os.path.exists(csrc):
        return f"no C reference {csrc}"
    decls = refs.read_decls(dojo)
    inputs = harness.make_inputs(name, decls)
    indir = os.path.join(tmp, "in")
    pd_out = os.path.join(tmp, "perfdojo")
    c_out = os.path.join(tmp, "cref")
    harness.write_arrays(indir, inputs)
    os.makedirs(pd_out)
    os.makedirs(c_out)

    why = harness.run(perfdojo + ["run", dojo, "--inputs", indir, "--outputs", pd_out], timeout)
    if why:
        return why
    got, why = harness.read_outputs(pd_out, decls)
    if why:
        return "perfdojo output: " + why

    exe = os.path.join(tmp, "ref")
    why = harness.build_ref(csrc, exe) or harness.run([exe, indir, c_out], timeout=60)
    if why:
        return "C reference: " + why
    cref, why = harness.read_outputs(c_out, decls)
    if why:
        return "C reference: " + why

    _, why = harness.compare(decls, got, cref, "vs C reference")
    if why:
        return why
    _, why = harness.compare(decls, got, refs.KERNELS[name](inputs), "vs refs.py")
    return why


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    perfdojo = shlex.split(sys.argv[1])
    if perfdojo and os.sep in perfdojo[0]:
        perfdojo[0] = os.path.abspath(perfdojo[0])
    refdir = os.path.abspath(sys.argv[2])
    names = sys.argv[3:] or sorted(
        os.path.basename(p)[:-5] for p in glob.glob(os.path.join(refdir, "*.dojo")))
    timeout = float(os.environ.get("CHECK_TIMEOUT", "300"))

    failed = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix="check-" + name + "-") as tmp:
            try:
                why = check(perfdojo, refdir, name, tmp, timeout)
            except Exception as e:  # report and go on with the next kernel
                why = f"{type(e).__name__}: {e}"
        if why:
            print(f"FAIL: {name}: {why}")
            failed += 1
        else:
            print(f"PASS: {name}")
        sys.stdout.flush()
    if not names:
        print(f"FAIL: no .dojo files in {refdir}")
        failed = 1
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
