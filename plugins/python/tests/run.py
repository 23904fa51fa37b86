"""Runs the package's unittest suite and ends with "python: N passed, N failed"."""
import os
import sys
import unittest

if __name__ == "__main__":  # not in the processes a test's Dask cluster spawns, which import this file again
    suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)))
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    bad = len(result.failures) + len(result.errors)
    print(f"python: {result.testsRun - bad} passed, {bad} failed")
    sys.exit(1 if bad or not result.testsRun else 0)
