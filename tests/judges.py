#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""judges.py TEST-FILE... -- the unit tests of the VM suites' judges (the
Python that gives their verdicts), each on run files recorded in the VM and
committed next to it: no VM needed. Prints "N passed, N failed" (with ",
N skipped"), the line CI adds up; exits 1 on a failure."""
import importlib.util
import os
import sys
import unittest


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(paths):
    # the measurement package (bench/rpma_measure) and each test's own
    # directory, whose judge it imports (evaluate, judge, soak_judge, ...)
    sys.path[:0] = [os.path.join(TOP, "bench")] + sorted(
        {os.path.dirname(os.path.abspath(p)) for p in paths})
    suite = unittest.TestSuite()
    for path in paths:
        name = os.path.relpath(path).replace(os.sep, "_").removesuffix(".py")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        suite.addTests(unittest.defaultTestLoader.loadTestsFromModule(module))
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    print(f"{result.testsRun - failed - skipped} passed, {failed} failed"
          + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed or not result.testsRun else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
