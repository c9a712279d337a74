# SPDX-License-Identifier: BSD-3-Clause
"""The record format: JSON Lines, one object a line. A figure is a
sample as PerfKitBenchmarker writes them: {metric, value, unit,
metadata, timestamp}, the metadata saying what was measured and where
(the point, the run, the provenance stamp: provenance.py). bench's
records.jsonl keep one object a run, its figures side by side, stamped;
samples() turns such a record into the samples it holds."""

import json
import os
import time


def sample(metric, value, unit, metadata=None, timestamp="now"):
    """one figure: METRIC's VALUE in UNIT, measured at TIMESTAMP (seconds
    since the epoch, "now", or None: not recorded), METADATA saying of
    what"""
    return {"metric": metric, "value": value, "unit": unit,
            "metadata": dict(metadata or {}),
            "timestamp": time.time() if timestamp == "now" else timestamp}


def samples(record, units, timestamp="now"):
    """the samples of RECORD (a bench record: figures side by side) whose
    figures UNITS names ({figure: unit}), the rest of it their metadata"""
    meta = {k: v for k, v in record.items() if k not in units}
    return [sample(k, record[k], u, meta, timestamp) for k, u in units.items()
            if record.get(k) is not None]


def write(path, records):
    """RECORDS to PATH, one JSON object a line"""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def read(path):
    """the records of PATH, [] when there is none"""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
