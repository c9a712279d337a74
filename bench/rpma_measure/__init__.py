# SPDX-License-Identifier: BSD-3-Clause
"""rpma_measure: the one package for measuring and judging fio runs.

bench's summarizers, the engine suite's and the two-host judges, and
rpma-qualify all stand on it (docs/testing.md, "The measurement package"):

- fio: the one reader of fio's JSON report (fio 3.33 to 3.42, local and
  fio --client, json and json+);
- stats: the one median, the summary of repeats (median, range, spread),
  the comparison rule of two runs, fairness and steady state;
- provenance: where a figure came from (commit, build flags, kernel, fio,
  transport, date), measured where it ran, never typed;
- record: the one record format, PerfKitBenchmarker's sample (metric,
  value, unit, metadata, timestamp), one JSON object a line.

It imports nothing but the standard library, and nothing of the tree.
"""
