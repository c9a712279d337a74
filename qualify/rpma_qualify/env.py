# SPDX-License-Identifier: BSD-3-Clause
"""The environment of a host, recorded by the tool itself, and the RDMA
devices' counters (rdma statistic)."""

import glob
import json
import os
import platform
import re
import socket
import subprocess

from . import VERSION

# an engine's file: its bare name or NAME.so
_ENGINE_FILE = re.compile(r"^(librpma_\w+_(?:client|server))(?:\.so)?$")


def _run(cmd, timeout=20):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


# the packages whose versions the record names
PACKAGES = ("rdma-core", "libibverbs1", "librpma0", "perftest")


def _dpkg_versions():
    """{package: version} of PACKAGES: one dpkg-query, since each reads
    the whole package database (seconds on a cold cache, minutes in an
    emulated guest); a package it does not know is left out (its exit
    status is then 1)."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Version}\n"]
                           + list(PACKAGES), capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return dict(ln.split("\t", 1) for ln in r.stdout.splitlines()
                if "\t" in ln and ln.split("\t", 1)[1])


def parse_ibv_devinfo(text):
    """ibv_devinfo -v: each device's identity and its ports."""
    devs = []
    dev = port = None
    for line in text.splitlines():
        m = re.match(r"^hca_id:\s*(\S+)", line)
        if m:
            dev = {"name": m.group(1), "ports": []}
            devs.append(dev)
            port = None
            continue
        if dev is None:
            continue
        m = re.match(r"^\s+port:\s*(\d+)", line)
        if m:
            port = {"port": int(m.group(1))}
            dev["ports"].append(port)
            continue
        m = re.match(r"^\s+([a-z_]+):\s*(.*?)\s*$", line)
        if not m:
            continue
        k, v = m.group(1), m.group(2)
        if port is not None and k in ("state", "active_mtu", "active_speed",
                                      "active_width", "link_layer",
                                      "max_mtu"):
            port[k] = v
        elif port is None and k in ("transport", "fw_ver", "node_guid",
                                    "vendor_id", "vendor_part_id",
                                    "hw_ver", "board_id"):
            dev[k] = v
    return devs


def rdma_devices():
    devs = []
    out = _run(["ibv_devinfo", "-v"])
    if out:
        devs = parse_ibv_devinfo(out)
    for d in devs:
        base = "/sys/class/infiniband/%s" % d["name"]
        d["node_desc"] = _read(base + "/node_desc")
        d["hca_type"] = _read(base + "/hca_type")
        # a software device (rxe, siw) has no PCI device: its NUMA node is
        # that of the NIC under it
        numa = _read(base + "/device/numa_node")
        parent = _read(base + "/parent")
        if numa is None and parent:
            numa = _read("/sys/class/net/%s/device/numa_node" % parent)
        d["netdev"] = parent
        d["numa_node"] = numa
    return devs


def memory():
    info = {}
    mt = _read("/proc/meminfo")
    if mt:
        m = re.search(r"MemTotal:\s*(\d+)", mt)
        info["dram_kib"] = int(m.group(1)) if m else None
    info["devdax"] = sorted(glob.glob("/dev/dax*"))
    info["pmem"] = sorted(glob.glob("/dev/pmem*"))
    mounts = _read("/proc/mounts") or ""
    info["dax_mounts"] = [f[1] for f in (ln.split() for ln in
                                         mounts.splitlines())
                          if len(f) > 3 and "dax" in f[3].split(",")]
    return info


def _engines():
    """The fio engines found where fio loads them from, by name: the file
    (its bare name, or NAME.so) of the first directory that holds it. An
    engine found nowhere is left out, so this needs no list of names."""
    engines = {}
    paths = (os.environ.get("LD_LIBRARY_PATH", "").split(":")
             + ["/usr/lib/x86_64-linux-gnu", "/usr/local/lib/rpma"])
    for d in filter(None, paths):
        for p in sorted(glob.glob(os.path.join(d, "librpma_*_*"))):
            m = _ENGINE_FILE.match(os.path.basename(p))
            if m:
                engines.setdefault(m.group(1), os.path.realpath(p))
    return engines


def collect():
    """This host's environment, as a JSON-ready dict."""
    osr = _read("/etc/os-release") or ""
    pretty = re.search(r'^PRETTY_NAME="?(.*?)"?$', osr, re.M)
    cpu = _read("/proc/cpuinfo") or ""
    model = re.search(r"^model name\s*:\s*(.*)$", cpu, re.M)
    fio = _run(["fio", "--version"])
    rpma_pc = _run(["pkg-config", "--modversion", "librpma"])
    pkgs = _dpkg_versions()
    return {
        "hostname": socket.gethostname(),
        "os": pretty.group(1) if pretty else None,
        "debian_version": _read("/etc/debian_version"),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "rdma_core": pkgs.get("rdma-core") or pkgs.get("libibverbs1"),
        "fio": fio.strip() if fio else None,
        "rpma": {"rpma_qualify": VERSION,
                 "librpma_pkgconfig": rpma_pc.strip() if rpma_pc else None,
                 "librpma0_package": pkgs.get("librpma0"),
                 "engines": _engines()},
        "perftest": pkgs.get("perftest"),
        "cpu_model": model.group(1) if model else None,
        "cpus": os.cpu_count(),
        "rdma_devices": rdma_devices(),
        "memory": memory(),
    }


def parse_rdma_statistic(text):
    """`rdma -j statistic show`: {"dev/port": {counter: value}}."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    out = {}
    for entry in data if isinstance(data, list) else []:
        key = "%s/%s" % (entry.get("ifname"), entry.get("port"))
        out[key] = {k: v for k, v in entry.items()
                    if isinstance(v, int) and k != "port"}
    return out


def counters():
    """This host's RDMA counters, or None where rdma statistic has none."""
    out = _run(["rdma", "-j", "statistic", "show"])
    if out is None:
        return None
    return parse_rdma_statistic(out)


# counters that a clean run keeps at zero: what a threshold on "rnr_naks"
# or "retries" adds up (names of rxe and of mlx5)
ERROR_COUNTERS = {
    "rnr_naks": ("rcvd_rnr_err", "send_rnr_err", "rnr_nak_retry_err",
                 "rx_rnr_nak", "local_ack_timeout_err"),
    "retries": ("retry_exceeded_err", "retry_rnr_exceeded_err",
                "rcvd_seq_err", "duplicate_request", "out_of_sequence",
                "packet_seq_err", "implied_nak_seq_err"),
}


def delta(before, after):
    """Counter changes over a point: {"dev/port": {counter: change}} of
    the changed ones, and the sums of ERROR_COUNTERS."""
    if before is None or after is None:
        return None
    d = {}
    for key, vals in after.items():
        old = before.get(key, {})
        ch = {k: v - old.get(k, 0) for k, v in vals.items()
              if v != old.get(k, 0)}
        if ch:
            d[key] = ch
    sums = {name: sum(v.get(c, 0) for v in d.values() for c in names)
            for name, names in ERROR_COUNTERS.items()}
    return {"changed": d, **sums}


def local_addresses():
    addrs = {"127.0.0.1", "::1", "localhost", socket.gethostname()}
    out = _run(["ip", "-j", "addr"])
    if out:
        try:
            for link in json.loads(out):
                for a in link.get("addr_info", []):
                    addrs.add(a.get("local"))
        except json.JSONDecodeError:
            pass
    return addrs


def is_local(host):
    if host in local_addresses():
        return True
    try:
        return socket.gethostbyname(host) in local_addresses()
    except OSError:
        return False
