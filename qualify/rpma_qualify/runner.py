# SPDX-License-Identifier: BSD-3-Clause
"""run and continue: every point of a plan through fio's client/server
mode, every state in DIR/results.json (rewritten after each step, so that
a crash or a reboot loses at most the step under way)."""

import concurrent.futures
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from rpma_measure import fio

from . import VERSION, env, metrics, perftest, plan as planmod

FORMAT = 1


class RunError(Exception):
    pass


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def load(out):
    path = os.path.join(out, "results.json")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise RunError("%s: %s" % (path, e.strerror))


def save(out, res):
    res["updated"] = _now()
    path = os.path.join(out, "results.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _safe(name):
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", name)


def _interrupt(proc, grace_s):
    """Ends a fio --client: SIGINT first, so that fio ends the jobs it
    started on the servers; killed if it has not ended grace_s later."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _on_each(hosts, method):
    """{host name: method(host)}, every host at once: over ssh each may
    take seconds, and an emulated guest of a loaded machine minutes."""
    with concurrent.futures.ThreadPoolExecutor(len(hosts) or 1) as pool:
        return dict(zip([h.name for h in hosts], pool.map(method, hosts)))


def check_host(name, where):
    """Raises RunError unless name can be a host: ssh and perftest would
    take one beginning with "-" for an option, and a job file's line
    (serverip=) ends at a line break."""
    if (not isinstance(name, str) or not name or name.startswith("-")
            or any(c.isspace() or not c.isprintable() for c in name)):
        raise RunError("%s %r is not a host name or address (one that "
                       "begins with '-' or holds a space or a control "
                       "character is refused)" % (where, name))


def fio_host(host):
    """The address part of a fio --client host (fio accepts HOST,PORT)."""
    return host.split(",")[0]


class Host:
    """How the tool reaches a host other than through fio: here, over ssh
    (--ssh), or not at all.

    Over ssh a run logs in once per host: the first command opens a
    shared connection (ssh's ControlMaster, its socket in a private
    directory) that the later ones reuse, since a run asks each host for
    its counters twice a point and a login to an emulated guest of a
    loaded machine took over 60 s. close() ends it."""

    # the shared connections' sockets, one directory for the process
    _control_dir = None

    def __init__(self, name, ssh):
        self.name = name
        self.local = env.is_local(fio_host(name))
        self.ssh = ssh and not self.local

    @property
    def reachable(self):
        return self.local or self.ssh

    @classmethod
    def _ssh(cls):
        """The ssh command line up to the host's name. The lab's options
        (RPMA_QUALIFY_SSH: a config file, a user, a jump host, as git's
        GIT_SSH_COMMAND) come first, and ssh takes the first value given
        for an option: a lab's ControlMaster=no wins over ours."""
        if cls._control_dir is None:
            cls._control_dir = tempfile.mkdtemp(prefix="rpma-qualify-ssh.")
        ssh = shlex.split(os.environ.get("RPMA_QUALIFY_SSH") or "ssh")
        return ssh + ["-o", "BatchMode=yes",
                      "-o", "ControlMaster=auto",
                      "-o", "ControlPath=%s/%%C" % cls._control_dir,
                      # a bound for a run the tool could not close()
                      "-o", "ControlPersist=600"]

    def command(self, argv):
        if self.local:
            return argv
        # "--": whatever the name, ssh reads no option past it
        return self._ssh() + ["--", fio_host(self.name),
                              " ".join(shlex.quote(a) for a in argv)]

    def close(self):
        """Ends this host's shared ssh connection, if one is open."""
        if not self.ssh or Host._control_dir is None:
            return
        try:
            subprocess.run(self._ssh() + ["-O", "exit", "--",
                                          fio_host(self.name)],
                           capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def run(self, argv, timeout=60):
        """(exit status, stdout, stderr); a command given up after timeout
        s has status 1 and keeps what it said until then, which tells
        where it hung."""
        try:
            r = subprocess.run(self.command(argv), capture_output=True,
                               text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            said = "".join(x.decode(errors="replace")
                           if isinstance(x, bytes) else x
                           for x in (e.stdout, e.stderr) if x)
            return 1, said, "\n%s" % e
        except OSError as e:
            return 1, "", str(e)
        return r.returncode, r.stdout, r.stderr

    def environment(self):
        if self.local:
            return env.collect(), "measured here"
        if self.ssh:
            # once per host, and a slow one (an emulated guest of a loaded
            # machine took over 60 s) must not go unrecorded for it
            rc, out, err = self.run(["rpma-qualify", "env"], timeout=300)
            if rc == 0:
                try:
                    return json.loads(out), "over ssh"
                except json.JSONDecodeError:
                    pass
            return None, "ssh rpma-qualify env failed: %s" % err.strip()[:200]
        return None, "not reachable (no --ssh, no --env-file)"

    def counters(self):
        if self.local:
            return env.counters()
        if self.ssh:
            rc, out, _ = self.run(["rdma", "-j", "statistic", "show"])
            return env.parse_rdma_statistic(out) if rc == 0 else None
        return None


def new(plan, out, target, initiators, target_rdma=None, ssh=False,
        env_files=None):
    check_host(target, "--target")
    for h in initiators:
        check_host(h, "--initiator")
    if target_rdma is not None:
        check_host(target_rdma, "--target-rdma")
    os.makedirs(out, exist_ok=True)
    if os.path.exists(os.path.join(out, "results.json")):
        raise RunError("%s already holds a run: rpma-qualify continue %s, "
                       "or another --out" % (out, out))
    res = {
        "format": FORMAT, "tool_version": VERSION, "plan": plan,
        "setup": {"target": target, "initiators": initiators,
                  "target_rdma": target_rdma or fio_host(target),
                  "ssh": ssh, "env_files": env_files or {}},
        "hosts": {}, "baselines": {}, "started": _now(),
        "points": [dict(p, repeats=[{"status": "pending"}
                                    for _ in range(plan["repeats"])])
                   for p in planmod.points(plan)],
    }
    save(out, res)
    return res


class Runner:
    def __init__(self, out, res, quiet=False, stop_after=None):
        self.out = out
        self.res = res
        self.setup = res["setup"]
        # a results.json edited, or written by another tool
        where = "%s: setup" % os.path.join(out, "results.json")
        for h in ([self.setup["target"], self.setup["target_rdma"]]
                  + self.setup["initiators"]):
            check_host(h, where)
        self.plan = res["plan"]
        ssh = self.setup.get("ssh", False)
        self.target = Host(self.setup["target"], ssh)
        self.initiators = [Host(h, ssh) for h in self.setup["initiators"]]
        self.quiet = quiet
        self.stop_after = stop_after
        self.durations = []
        os.makedirs(os.path.join(out, "fio"), exist_ok=True)

    def say(self, msg):
        if not self.quiet:
            print(msg, file=sys.stderr, flush=True)

    # --- environment

    def record_environment(self):
        files = self.setup.get("env_files", {})
        roles = [(self.target, "target")] + [(h, "initiator")
                                             for h in self.initiators]
        todo = [h for h, _ in roles if h.name not in files and
                self.res["hosts"].get(h.name, {}).get("env") is None]
        measured = _on_each(todo, Host.environment)
        for host, role in roles:
            entry = self.res["hosts"].get(host.name, {})
            entry["role"] = role
            if host.name in files:
                with open(files[host.name]) as f:
                    entry["env"] = json.load(f)
                entry["env_source"] = "file %s" % files[host.name]
            elif host.name in measured:
                entry["env"], entry["env_source"] = measured[host.name]
            entry["memory_kinds"] = sorted(
                {self.plan["memory"][s["memory"]].get("kind", s["memory"])
                 for s in self.plan["series"]}) if role == "target" else None
            self.res["hosts"][host.name] = entry
        save(self.out, self.res)

    # --- fio

    def fio_client(self, jobs, stem, limit_s):
        """One fio --client invocation: jobs [(host, text)]; returns (rc,
        output text)."""
        d = os.path.join(self.out, "fio")
        cmd = ["fio", "--output-format=json"]
        for i, (host, text) in enumerate(jobs):
            path = os.path.join(d, "%s.%d.fio" % (stem, i))
            with open(path, "w") as f:
                f.write(text)
            cmd += ["--client=%s" % host, path]
        outp = os.path.join(d, stem + ".out")
        with open(outp, "w") as o:
            p = subprocess.Popen(cmd, stdout=o, stderr=subprocess.STDOUT)
            try:
                rc = p.wait(timeout=limit_s)
            except subprocess.TimeoutExpired:
                _interrupt(p, 20)
                rc = "hang"
        with open(outp) as f:
            return rc, f.read()

    # --- baselines

    def baselines(self):
        sizes = planmod.baseline_sizes(self.plan)
        tests = self.plan["baseline"]["tests"]
        dirs = {metrics.direction_of(s["rw"]) for s in self.plan["series"]}
        if any(s["rw"] == "randrw" for s in self.plan["series"]):
            dirs |= {"read", "write"}
        wanted = [(t, s) for s in sizes for t in tests
                  if t.split("_")[0] in dirs]
        b = self.res["baselines"]
        todo = [(t, s) for t, s in wanted
                if b.get("%s/%d" % (t, s), {}).get("status") not in
                ("done", "failed", "skipped")]
        if not todo:
            return
        first = self.initiators[0]
        if not first.reachable:
            for t, s in todo:
                b["%s/%d" % (t, s)] = {
                    "status": "skipped",
                    "reason": "initiator %s is neither this host nor "
                              "reachable over ssh" % first.name}
            save(self.out, self.res)
            return
        iters = perftest.amounts(self.plan["baseline"])
        self.say("baselines: perftest %s at %s bytes"
                 % (", ".join(sorted({t for t, _ in todo})),
                    ", ".join(str(s) for s in sorted({s for _, s in todo}))))
        # the bandwidth tests first: on the emulated bed the latency test
        # that came first, on a target still busy starting, was the one
        # that hung
        todo.sort(key=lambda ts: (ts[0].endswith("_lat"), ts[1], ts[0]))
        for k, (t, s) in enumerate(todo):
            self.baseline(t, s, perftest.BASE_PORT + k * perftest.ATTEMPTS,
                          iters, first)

    def baseline(self, t, s, port0, iters, first):
        """One perftest test, in up to perftest.ATTEMPTS attempts at ports
        from port0. A perftest server serves one client, and one whose
        client gave up after connecting may spin on the target's CPU: so
        each attempt has a server of its own, started for it and ended
        with it (attempt()), and no server is given a second client once
        it took a first (perftest.not_listening)."""
        b = self.res["baselines"]
        key = "%s/%d" % (t, s)
        amount = iters[t.split("_")[1]]
        limit = perftest.limit_s(t, amount)
        stem = "perftest-%s-%d" % (t, s)
        tries, outputs, r, text = [], [], None, ""
        for a in range(perftest.ATTEMPTS):
            name = "%s.a%d" % (stem, a + 1)
            rc, text, note = self.attempt(t, s, port0 + a, iters, amount,
                                          limit, first, name)
            path = os.path.join(self.out, "fio", name + ".out")
            with open(path, "w") as f:
                f.write(text)
            outputs.append(os.path.relpath(path, self.out))
            r = perftest.parse(t, text) if rc == 0 else None
            tries.append("attempt %d: exit %s%s%s" % (
                a + 1, rc, "" if r else ", no result", note))
            if r:
                break
        entry = {"tries": tries, "outputs": outputs, "output": outputs[-1]}
        if r:
            b[key] = dict(entry, status="done", result=r,
                          attempts=len(tries))
        else:
            b[key] = dict(entry, status="failed",
                          reason="; ".join(tries) + ": " + text.strip()[-160:])
        save(self.out, self.res)

    def attempt(self, t, s, port, iters, amount, limit, first, name):
        """One attempt of a perftest test: (client's exit status, its
        output, a note on why it stopped). Its server runs on the target
        as a job of fio's exec engine through a fio --client of its own,
        interrupted once the client is done: fio kills what its exec jobs
        started, so a server left spinning cannot starve the next
        attempt. A client refused because nothing listened yet (the server
        still starting) asks the same server again, for 60 s at most."""
        d = os.path.join(self.out, "fio")
        jf = os.path.join(d, name + "-server.fio")
        with open(jf, "w") as f:
            f.write(perftest.server_jobfile([(t, s, port)], iters,
                                            60 + limit + 70))
        sout = os.path.join(d, name + "-server.out")
        rc, text, note = 1, "", ""
        with open(sout, "w") as outp:
            server = subprocess.Popen(
                ["fio", "--client=%s" % self.target.name, jf],
                stdout=outp, stderr=subprocess.STDOUT)
            try:
                # the server runs once the target's fio says it started it
                end = time.time() + 60
                while time.time() < end and server.poll() is None:
                    with open(sout) as f:
                        if ": Running ib_" in f.read():
                            break
                    time.sleep(0.5)
                argv = ([perftest.TESTS[t]] + perftest.args(t, s, amount, port)
                        + [self.setup["target_rdma"]])
                wait_end = time.time() + 60
                while True:
                    rc, o, e = first.run(argv, timeout=limit)
                    text = o + e
                    if rc == 0 or not perftest.REJECTED.search(text):
                        break
                    if not perftest.not_listening(text):
                        note = (" (its own connection refused after the "
                                "server took the first: that server is spent)")
                        break
                    if time.time() > wait_end:
                        note = " (nothing listened at port %d)" % port
                        break
                    time.sleep(1)
            finally:
                _interrupt(server, 30)
        return rc, text, note

    # --- points

    def todo(self):
        """The pending repeats, round by round (every point's first
        repeat, then every point's second, ...): a drift of the platform
        over the run spreads over all points instead of falling on the
        last ones."""
        pend = [(i, k, p) for k, p in enumerate(self.res["points"])
                for i, r in enumerate(p["repeats"]) if r["status"] == "pending"]
        return [(p, i) for i, _, p in sorted(pend, key=lambda x: x[:2])]

    def eta(self, left):
        per = (sum(self.durations) / len(self.durations) if self.durations
               else self.plan["ramp_time"] + self.plan["runtime"] + 5)
        s = int(per * left)
        return "%d min %02d s" % (s // 60, s % 60)

    def run_points(self):
        todo = self.todo()
        total = sum(len(p["repeats"]) for p in self.res["points"])
        done = total - len(todo)
        limit = self.plan["ramp_time"] + self.plan["runtime"] + 120
        if self.stop_after is not None:
            todo = todo[:self.stop_after]
        for seq, (pt, rep) in enumerate(todo):
            self.say("point %d of %d: %s, repeat %d of %d; ETA %s"
                     % (done + seq + 1, total, pt["id"], rep + 1,
                        len(pt["repeats"]), self.eta(len(todo) - seq)))
            t0 = time.time()
            port = self.plan["port"] + (done + seq) % 100
            jobs = planmod.job_files(self.plan, pt, self.setup["target_rdma"],
                                     self.setup["initiators"], port)
            hosts = [self.target] + self.initiators
            before = _on_each(hosts, Host.counters)
            stem = "%s.rep%d" % (_safe(pt["id"]), rep + 1)
            rc, text = self.fio_client(
                [(self.target.name, jobs["server"])] + jobs["clients"],
                stem, limit)
            after = _on_each(hosts, Host.counters)
            r = {"status": "done", "fio_rc": rc, "port": port,
                 "fio_output": os.path.join("fio", stem + ".out"),
                 "started": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                          time.gmtime(t0)),
                 "counters": {h: env.delta(before[h], after[h])
                              for h in before},
                 "counters_missing": sorted(h for h in before
                                            if before[h] is None)}
            try:
                report, relayed = fio.split_output(text)
                r["metrics"] = metrics.point_metrics(report, relayed, pt["rw"])
            except fio.FioOutputError as e:
                r["status"] = "failed"
                r["reason"] = "%s (fio exit %s)" % (e, rc)
            else:
                m = r["metrics"]
                why = []
                if rc != 0:
                    why.append("fio exit %s" % rc)
                if m["errors"]:
                    # the engines' own words say why better than errno
                    why.append("job errors %s%s" % (", ".join(
                        "%s %s: %d" % (e["host"], e["job"], e["error"])
                        for e in m["errors"]), "".join(
                            " | " + ln for ln in m["engine_messages"])))
                if m["verify_errors"]:
                    why.append("%d verify errors" % m["verify_errors"])
                if m["server_jobs"] == 0:
                    why.append("no server job in the report")
                if why:
                    r["status"] = "failed"
                    r["reason"] = "; ".join(why)
            r["duration_s"] = round(time.time() - t0, 1)
            self.durations.append(r["duration_s"])
            pt["repeats"][rep] = r
            save(self.out, self.res)
            if r["status"] == "failed":
                self.say("  failed: %s" % r["reason"])

    def run(self):
        t0 = time.time()
        try:
            self.record_environment()
            self.baselines()
            self.run_points()
        finally:
            for h in [self.target] + self.initiators:
                h.close()
        left = len(self.todo())
        if left:
            self.res.pop("finished", None)
        else:
            self.res["finished"] = _now()
        self.res.setdefault("elapsed_s", 0)
        self.res["elapsed_s"] = round(self.res["elapsed_s"]
                                      + time.time() - t0, 1)
        save(self.out, self.res)
        failed = [p["id"] for p in self.res["points"]
                  if any(r["status"] == "failed" for r in p["repeats"])]
        if left:
            self.say("stopped with %d repeats to run: rpma-qualify continue %s"
                     % (left, self.out))
        else:
            self.say("done: %d points, %d with a failed repeat; %s"
                     % (len(self.res["points"]), len(failed),
                        "rpma-qualify report %s" % self.out))
        return failed
