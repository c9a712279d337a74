# SPDX-License-Identifier: BSD-3-Clause
"""rpma-qualify: qualification runs of the librpma fio engines.

A plan (plans/*.json) names series of points; `run` drives each point
through fio's own client/server mode and keeps every result in
DIR/results.json; `report` turns that into DIR/report.html, verdict.json
and junit.xml; `compare` overlays runs and calls a change a regression
only beyond what the runs' own repeats allow.
"""

VERSION = "@VERSION@"
if VERSION.startswith("@"):
    # run from the source tree: `make install` writes the version in
    VERSION = "source tree"
