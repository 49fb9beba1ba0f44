"""shorn in the engines that replicate SQLite: a dqlite Raft cluster through
two failovers, then sqld (libSQL's server) with a primary and replicas.

    cluster.py --version V --node build/cluster-node --sqld SQLD --extension build/shorn.so

dqlite: three nodes of tests/cluster/node.c on 127.0.0.1, joined into one
cluster; the registry, a table whose CHECK constraint calls shorn_valid and an
index on shorn_extract, written and read on the leader; the leader killed
(SIGKILL) and everything checked again, writes included, on the node elected
after it; the killed node restarted, and the new leader killed in turn.

sqld: a primary and two replicas that load the extension from
--extensions-path, a third replica without it, and one whose trusted.lst
names another build; through sqld's HTTP API (Hrana).  Then libSQL's
embedded replica of the primary (embedded.mjs, run by node).

Every process is started with a parent-death signal and stopped in a
`finally`, so none outlives the test, however it ends; only loopback ports
are used, and every wait polls against a deadline.
"""
import argparse
import base64
import ctypes
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

import dqlite_wire

HOST = "127.0.0.1"
HERE = os.path.dirname(os.path.abspath(__file__))
# Generous for a loaded two-core machine; a healthy run needs a fraction.
START_SECONDS = 30
ELECTION_SECONDS = 60
REPLICATION_SECONDS = 30

EVENT_SCHEMA = json.dumps({
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["view", "click", "buy"]},
        "user": {"type": "integer", "minimum": 0, "maximum": 9007199254740991},
        "at": {"type": "string", "format": "date-time"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["kind", "user", "at", "tags"],
    "additionalProperties": False,
}, separators=(",", ":"))
EVENT_FINGERPRINT = "e8b5ea54"
# A second schema, registered on a leader elected by a failover.
VISIT_SCHEMA = '{"type":"object","properties":{"page":{"type":"string"}},"required":["page"],"additionalProperties":false}'

SETUP = [
    "CREATE VIRTUAL TABLE shorn_schemas USING shorn_registry",
    f"INSERT INTO shorn_schemas(name, schema) VALUES ('event', '{EVENT_SCHEMA}')",
    "CREATE TABLE events(id INTEGER PRIMARY KEY, payload BLOB NOT NULL CHECK (shorn_valid(payload, 'event')))",
    "CREATE INDEX events_by_user ON events(shorn_extract(payload, 'event', '$.user'))",
]
BY_USER = "SELECT id FROM events WHERE shorn_extract(payload, 'event', '$.user') = 7 ORDER BY id"
BAD_EVENT = '{"kind":"view","user":"seven","at":"2026-09-01T10:00:00.000Z","tags":[]}'
ENCODE_ERROR = "shorn_encode: Expected an unsigned integer, got a string at $.user"
CHECK_ERROR = "CHECK constraint failed: shorn_valid(payload, 'event')"


def event(n):
    """The n-th event: JSON text in the order a writer might give it, and
    the JSON text shorn_decode returns (the schema's keys, sorted)."""
    value = {"user": (7, 12, 30)[n % 3], "kind": ("view", "click", "buy")[n % 3],
             "tags": ["home", "sale"][:n % 3], "at": f"2026-09-01T10:{n:02d}:00.000Z"}
    return json.dumps(value), json.dumps(dict(sorted(value.items())), separators=(",", ":"))


class SqlError(Exception):
    pass


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def equal(self, what, got, expected):
        if got == expected:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {what}\n  got:      {got!r}\n  expected: {expected!r}", flush=True)

    def contains(self, what, got, part):
        self.equal(what, part if isinstance(got, str) and part in got else got, part)

    def refused(self, what, run, part):
        """`run()` must fail, its message containing `part`."""
        try:
            self.equal(what, f"no error; answered {run()!r}", f"an error containing {part!r}")
        except SqlError as e:
            self.contains(what, str(e), part)


def wait_for(what, seconds, attempt, interval=0.1):
    """Call `attempt` until it returns something other than None, for at
    most `seconds`; its result.  Its last exception is in the timeout's
    message."""
    deadline, last = time.monotonic() + seconds, None
    while True:
        try:
            result = attempt()
            if result is not None:
                return result
        except (OSError, SqlError, dqlite_wire.DqliteError) as e:
            last = e
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {seconds} s" + (f" (last: {last})" if last else ""))
        time.sleep(interval)


def free_ports(count):
    """`count` distinct loopback ports that nothing listens on now."""
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind((HOST, 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Processes:
    """Every process the test starts, each logging to its own file."""

    def __init__(self, folder):
        self.folder, self.running, self.logs = folder, {}, []

    def start(self, name, argv):
        log = os.path.join(self.folder, name + ".log")
        if log not in self.logs:
            self.logs.append(log)
        with open(log, "ab") as out:
            self.running[name] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                                  stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)

    def check_alive(self, name):
        code = self.running[name].poll()
        if code is not None:
            raise RuntimeError(f"{name} exited with {code}; its log: {self.folder}/{name}.log")

    def kill(self, name):
        process = self.running.pop(name)
        process.kill()
        process.wait()

    def stop(self, name, seconds=20):
        """SIGTERM, then SIGKILL past the deadline; the exit code."""
        process = self.running.pop(name)
        process.terminate()
        try:
            return process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            return "killed after SIGTERM"

    def stop_all(self):
        for name in list(self.running):
            self.stop(name, 5)

    def print_logs(self):
        for log in self.logs:
            with open(log, errors="replace") as f:
                lines = f.readlines()[-15:]
            print(f"---- {os.path.basename(log)} (last lines)\n" + "".join(lines), end="", flush=True)


def port_open(port):
    with socket.create_connection((HOST, port), timeout=1):
        return True


# ---- dqlite -------------------------------------------------------------

class DqliteDatabase:
    """A database opened through the leader of a dqlite cluster."""

    def __init__(self, address, name="shorn"):
        self.address = address
        self.connection = dqlite_wire.Connection(address)
        try:
            self.connection.open(name)
        except dqlite_wire.DqliteError:
            self.connection.close()
            raise

    def close(self):
        self.connection.close()

    def query(self, sql):
        try:
            return self.connection.query(sql)
        except dqlite_wire.DqliteError as e:
            raise SqlError(str(e)) from None

    def execute(self, sql):
        try:
            return self.connection.execute(sql)[1]
        except dqlite_wire.DqliteError as e:
            raise SqlError(str(e)) from None


def leader_among(addresses, asking=None):
    """The address of the node that leads, if one of `asking` (by default
    `addresses`) knows it and it is among `addresses`; None otherwise."""
    for address in asking or addresses:
        try:
            with dqlite_wire.Connection(address, timeout=2) as c:
                _, leader = c.leader()
        except OSError:
            continue
        if leader in addresses:
            return leader
    return None


def write_on_new_leader(addresses, n):
    """The first write after a failover: the n-th event, by its id so that a
    retry after an unclear answer writes it once.  The leader's database."""
    leader = leader_among(addresses)
    if leader is None:
        return None
    db = DqliteDatabase(leader)
    try:
        db.execute(f"INSERT OR REPLACE INTO events(id, payload) VALUES ({n}, shorn_encode('{event(n)[0]}', 'event'))")
    except (SqlError, OSError):
        db.close()
        raise
    return db


def check_database(checks, where, db, version, count, schemas):
    """What every node that serves reads must answer: events 1..count, the
    registry's `schemas`, the index, and errors that keep their text."""
    checks.equal(f"{where}: shorn_version()", db.query("SELECT shorn_version()"), [(version,)])
    checks.equal(f"{where}: the registry", db.query("SELECT name FROM shorn_schemas ORDER BY name"),
                 [(s,) for s in schemas])
    checks.equal(f"{where}: the event schema's fingerprint",
                 db.query("SELECT fingerprint FROM shorn_schemas WHERE name = 'event'"), [(EVENT_FINGERPRINT,)])
    checks.equal(f"{where}: events decoded", db.query("SELECT id, shorn_decode(payload, 'event') FROM events ORDER BY id"),
                 [(n, event(n)[1]) for n in range(1, count + 1)])
    checks.equal(f"{where}: events of user 7, through the index", db.query(BY_USER),
                 [(n,) for n in range(1, count + 1) if n % 3 == 0])
    plan = " ".join(row[-1] for row in db.query("EXPLAIN QUERY PLAN " + BY_USER))
    checks.contains(f"{where}: the query plan", plan, "USING INDEX events_by_user")
    checks.equal(f"{where}: shorn_error reads a damaged payload",
                 db.query("SELECT shorn_error(x'ff', 'event')"), [("Unexpected end of input at byte 1",)])


def check_writes(checks, where, db, n):
    """Write the n-th event through `db`, and see bad values refused with
    their message."""
    checks.equal(f"{where}: event {n} written",
                 db.execute(f"INSERT INTO events(id, payload) VALUES ({n}, shorn_encode('{event(n)[0]}', 'event'))"), 1)
    checks.refused(f"{where}: an encode error keeps its text",
                   lambda: db.execute(f"INSERT INTO events(payload) VALUES (shorn_encode('{BAD_EVENT}', 'event'))"),
                   ENCODE_ERROR)
    checks.refused(f"{where}: the CHECK constraint refuses a damaged payload",
                   lambda: db.execute("INSERT INTO events(payload) VALUES (x'ff')"), CHECK_ERROR)


def all_voters(members):
    return members if all(role == "voter" for _, _, role in members) else None


def shell(addresses, command):
    """go-dqlite's `dqlite` shell, as an operator would use it."""
    done = subprocess.run(["dqlite", "-s", ",".join(addresses), "shorn", command], capture_output=True,
                          text=True, timeout=60)
    return done.stdout.strip() if done.returncode == 0 else "error: " + done.stderr.strip().split("\n")[0]


def dqlite_cluster(checks, processes, folder, node, version):
    ports = free_ports(3)
    addresses = [f"{HOST}:{p}" for p in ports]
    names = [f"node{i}" for i in (1, 2, 3)]

    def start(i):
        os.makedirs(os.path.join(folder, names[i]), exist_ok=True)
        processes.start(names[i], [node, str(i + 1), addresses[i], os.path.join(folder, names[i])])

    def wait_serving(i):
        wait_for(f"{names[i]} listening on {addresses[i]}", START_SECONDS,
                 lambda: processes.check_alive(names[i]) or port_open(ports[i]))

    began = time.monotonic()
    for i in range(3):
        start(i)
    for i in range(3):
        wait_serving(i)
    # Node 1 bootstraps the cluster and leads it alone; it adds the others
    # (as spares), then makes them voters.
    wait_for("node 1 leading", ELECTION_SECONDS, lambda: leader_among(addresses[:1]))
    with dqlite_wire.Connection(addresses[0]) as c:
        for i in (1, 2):
            c.add(i + 1, addresses[i])
            c.assign(i + 1, dqlite_wire.VOTER)
        members = wait_for("three voters", ELECTION_SECONDS, lambda: all_voters(c.cluster()))
    checks.equal("dqlite: the cluster", members, [(i + 1, addresses[i], "voter") for i in range(3)])
    checks.equal("dqlite shell: .cluster", shell(addresses, ".cluster"),
                 "\n".join(f"{i + 1}|{addresses[i]}|voter" for i in range(3)))
    print(f"dqlite: 3 nodes started and joined in {time.monotonic() - began:.1f} s", flush=True)

    db = DqliteDatabase(addresses[0])
    for sql in SETUP:
        db.execute(sql)
    events = 3
    checks.equal("dqlite node 1: events 1-3 written",
                 db.execute("INSERT INTO events(payload) SELECT shorn_encode(value, 'event') FROM json_each('["
                            + ",".join(event(n)[0] for n in range(1, events + 1)) + "]')"), events)
    check_writes(checks, "dqlite node 1", db, events + 1)
    events += 1
    check_database(checks, "dqlite node 1", db, version, events, ["event"])
    db.close()

    alive = list(range(3))
    schemas = ["event"]
    failovers = []
    for failover in (1, 2):
        leader = addresses.index(leader_among([addresses[i] for i in alive]))
        processes.kill(names[leader])
        killed = time.monotonic()
        alive.remove(leader)
        events += 1
        db = wait_for(f"a new leader after {names[leader]} was killed", ELECTION_SECONDS,
                      lambda: write_on_new_leader([addresses[i] for i in alive], events))
        took = time.monotonic() - killed
        new = names[addresses.index(db.address)]
        failovers.append(took)
        print(f"dqlite: failover {failover}: {names[leader]} killed, {new} leads and has written in {took:.1f} s",
              flush=True)
        where = f"dqlite {new} after failover {failover}"
        if failover == 1:
            checks.equal(f"{where}: a schema registered",
                         db.execute(f"INSERT INTO shorn_schemas(name, schema) VALUES ('visit', '{VISIT_SCHEMA}')"), 1)
            schemas.append("visit")
        check_writes(checks, where, db, events + 1)
        events += 1
        check_database(checks, where, db, version, events, schemas)
        db.close()
        checks.equal(f"dqlite shell after failover {failover}: finds the leader and reads",
                     shell(addresses, "SELECT count(*), max(shorn_extract(payload, 'event', '$.at')) FROM events"),
                     f"{events}|{json.loads(event(events)[0])['at']}")
        if failover == 1:
            # The killed node comes back with its data; the next failover
            # needs its vote, as one node of three is no majority.
            start(leader)
            wait_serving(leader)
            alive.append(leader)
            restarted = time.monotonic()
            wait_for(f"{names[leader]} back in the cluster", ELECTION_SECONDS,
                     lambda: leader_among([addresses[i] for i in alive], asking=[addresses[leader]]))
            print(f"dqlite: {names[leader]} restarted and following in {time.monotonic() - restarted:.1f} s",
                  flush=True)

    for i in sorted(alive):
        checks.equal(f"dqlite: {names[i]} stops on SIGTERM", processes.stop(names[i]), 0)
    return failovers


# ---- sqld ---------------------------------------------------------------

class SqldDatabase:
    """A sqld node's database through its HTTP API (Hrana over HTTP).

    A replica forwards what it cannot run to the primary, every statement
    until it has first synced with it; a statement the primary ran reports
    rows_read 0, so `rows_read` of the last query tells a local read."""

    def __init__(self, port):
        self.url = f"http://{HOST}:{port}/v2/pipeline"
        self.rows_read = 0

    def _execute(self, sql):
        body = json.dumps({"requests": [{"type": "execute", "stmt": {"sql": sql}}, {"type": "close"}]}).encode()
        request = urllib.request.Request(self.url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.load(response)["results"][0]
        if answer["type"] == "error":
            raise SqlError(answer["error"]["message"])
        return answer["response"]["result"]

    @staticmethod
    def _value(cell):
        kind = cell["type"]
        if kind == "integer":
            return int(cell["value"])
        if kind == "blob":
            return base64.b64decode(cell["base64"])
        return None if kind == "null" else cell["value"]

    def query(self, sql):
        result = self._execute(sql)
        self.rows_read = result["rows_read"]
        return [tuple(self._value(c) for c in row) for row in result["rows"]]

    def execute(self, sql):
        return self._execute(sql)["affected_row_count"]


def has_events(db, events):
    """True once `db` itself (not the primary it forwards to) has `events`."""
    return True if db.query("SELECT count(*) FROM events") == [(events,)] and db.rows_read > 0 else None


def check_replica(checks, where, db, version, events):
    check_database(checks, where, db, version, events, ["event"])
    db.query("SELECT shorn_decode(payload, 'event') FROM events")
    checks.equal(f"{where}: shorn_decode ran on the replica itself (rows_read)", db.rows_read, events)


def sqld_cluster(checks, processes, folder, sqld, extension, version):
    # The folder sqld loads extensions from: each file's sha256 in
    # trusted.lst, as sha256sum writes it; sqld refuses to start if one
    # differs.
    trusted = os.path.join(folder, "extensions")
    os.makedirs(trusted)
    shutil.copy(extension, os.path.join(trusted, "shorn.so"))
    with open(extension, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(trusted, "trusted.lst"), "w") as f:
        f.write(f"{digest}  shorn.so\n")
    # Another build: the same file under a hash that is not its own.
    other = os.path.join(folder, "other-build")
    os.makedirs(other)
    shutil.copy(extension, os.path.join(other, "shorn.so"))
    with open(os.path.join(other, "trusted.lst"), "w") as f:
        f.write(f"{hashlib.sha256(digest.encode()).hexdigest()}  shorn.so\n")

    http, grpc, replica_a, replica_b, bare, mismatched = free_ports(6)
    primary_url = f"http://{HOST}:{grpc}"

    def start(name, port, *options):
        processes.start(name, [sqld, "--no-welcome", "-d", os.path.join(folder, name + ".sqld"),
                               "--http-listen-addr", f"{HOST}:{port}", *options])

    began = time.monotonic()
    start("primary", http, "--grpc-listen-addr", f"{HOST}:{grpc}", "--extensions-path", trusted)
    for name, port in (("replica-a", replica_a), ("replica-b", replica_b)):
        start(name, port, "--primary-grpc-url", primary_url, "--extensions-path", trusted)
    start("replica-bare", bare, "--primary-grpc-url", primary_url)
    start("replica-other-build", mismatched, "--primary-grpc-url", primary_url, "--extensions-path", other)
    nodes = {"primary": http, "replica-a": replica_a, "replica-b": replica_b, "replica-bare": bare}
    dbs = {name: SqldDatabase(port) for name, port in nodes.items()}
    for name in nodes:
        wait_for(f"sqld {name} answering", START_SECONDS,
                 lambda: processes.check_alive(name) or dbs[name].query("SELECT 1"))
    print(f"sqld: a primary and 3 replicas answering in {time.monotonic() - began:.1f} s", flush=True)

    refused = wait_for("the replica with another build to exit", START_SECONDS,
                       lambda: processes.running["replica-other-build"].poll())
    processes.stop("replica-other-build")
    with open(os.path.join(folder, "replica-other-build.log"), errors="replace") as f:
        log = f.read()
    checks.equal("sqld: a replica whose trusted.lst names another build refuses to start", refused != 0, True)
    checks.contains("sqld: ... and says why", log, "sha256 differs for shorn.so")

    primary = dbs["primary"]
    for sql in SETUP:
        primary.execute(sql)
    events = 3
    checks.equal("sqld primary: events 1-3 written",
                 primary.execute("INSERT INTO events(payload) SELECT shorn_encode(value, 'event') FROM json_each('["
                                 + ",".join(event(n)[0] for n in range(1, events + 1)) + "]')"), events)
    check_writes(checks, "sqld primary", primary, events + 1)
    events += 1
    check_database(checks, "sqld primary", primary, version, events, ["event"])

    for name in ("replica-a", "replica-b"):
        wait_for(f"sqld {name} has {events} events", REPLICATION_SECONDS, lambda: has_events(dbs[name], events))
        check_replica(checks, f"sqld {name}", dbs[name], version, events)

    # A write sent to a replica is executed by the primary.
    replica = dbs["replica-a"]
    events += 1
    checks.equal("sqld replica-a: a write forwarded to the primary",
                 replica.execute(f"INSERT INTO events(id, payload) VALUES ({events}, shorn_encode('{event(events)[0]}', 'event'))"), 1)
    checks.refused("sqld replica-a: a forwarded encode error keeps its text",
                   lambda: replica.execute(f"INSERT INTO events(payload) VALUES (shorn_encode('{BAD_EVENT}', 'event'))"),
                   ENCODE_ERROR)
    check_database(checks, "sqld primary after the forwarded write", primary, version, events, ["event"])
    for name in ("replica-a", "replica-b"):
        wait_for(f"sqld {name} has the forwarded event", REPLICATION_SECONDS, lambda: has_events(dbs[name], events))
        check_replica(checks, f"sqld {name} after the forwarded write", dbs[name], version, events)

    # The replica without the extension has the rows, and refuses what needs
    # the functions or the registry's module.
    plain = dbs["replica-bare"]
    wait_for("sqld replica-bare has the events", REPLICATION_SECONDS, lambda: has_events(plain, events))
    checks.equal("sqld replica-bare: plain SQL reads the rows",
                 plain.query("SELECT id FROM events ORDER BY id"), [(n,) for n in range(1, events + 1)])
    checks.refused("sqld replica-bare: shorn_decode", lambda: plain.query("SELECT shorn_decode(payload, 'event') FROM events"),
                   "no such function: shorn_decode")
    checks.refused("sqld replica-bare: the indexed expression", lambda: plain.query(BY_USER),
                   "no such function: shorn_extract")
    checks.refused("sqld replica-bare: the registry", lambda: plain.query("SELECT name FROM shorn_schemas"),
                   "no such module: shorn_registry")

    events += 1
    embedded_replica(checks, primary, folder, http, extension, events)

    for name in nodes:
        code = processes.stop(name)
        checks.equal(f"sqld {name} stops on SIGTERM", code, 0)


def embedded_replica(checks, primary, folder, http, extension, events):
    """libSQL's embedded replica of the primary (embedded.mjs, with npm's
    libsql): it cannot load the extension, a second connection can."""
    began = time.monotonic()
    done = subprocess.run(["node", os.path.join(HERE, "embedded.mjs"), f"http://{HOST}:{http}", extension,
                           os.path.join(folder, "embedded.db"), str(events), event(events)[0]],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError("embedded.mjs failed: " + done.stderr.strip())
    seen = json.loads(done.stdout)
    where = "libSQL embedded replica"
    checks.equal(f"{where}: loadExtension refused", seen["loadExtension"], "error: LoadExtensionNotSupported")
    checks.equal(f"{where}: its own connection has no shorn_decode", seen["replicaDecode"],
                 "error: no such function: shorn_decode")
    checks.equal(f"{where}: a write through it, encoded by the primary", seen["write"], 1)
    checks.equal(f"{where}: the primary has it", primary.query(f"SELECT shorn_decode(payload, 'event') FROM events WHERE id = {events}"),
                 [(event(events)[1],)])
    checks.equal(f"{where}: a second connection decodes every event, synced",
                 [tuple(row) for row in seen["decoded"]], [(n, event(n)[1]) for n in range(1, events + 1)])
    checks.equal(f"{where}: ... reads through the index", seen["byUser"], [n for n in range(1, events + 1) if n % 3 == 0])
    checks.contains(f"{where}: ... whose plan uses it", seen["plan"], "USING INDEX events_by_user")
    checks.equal(f"{where}: ... and with query_only writes nothing", seen["readerWrite"],
                 "error: attempt to write a readonly database")
    checks.equal(f"{where}: libsql's readonly option lets writes through (docs/distributed.md says so)",
                 seen["readonlyOption"], "writes allowed")
    print(f"sqld: the embedded replica's checks in {time.monotonic() - began:.1f} s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", required=True, help="what shorn_version() must answer on every node")
    parser.add_argument("--node", required=True, help="the dqlite node program (tests/cluster/node.c)")
    parser.add_argument("--sqld", required=True, help="sqld's binary")
    parser.add_argument("--extension", required=True, help="the loadable extension, for sqld")
    args = parser.parse_args()
    # SIGTERM (make or CI stopping the test) unwinds through the finally.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    folder = tempfile.mkdtemp(prefix="shorn-cluster-")
    processes = Processes(folder)
    checks = Checks()
    began = time.monotonic()
    ok = False
    try:
        failovers = dqlite_cluster(checks, processes, folder, os.path.abspath(args.node), args.version)
        middle = time.monotonic()
        sqld_cluster(checks, processes, folder, os.path.abspath(args.sqld), os.path.abspath(args.extension),
                     args.version)
        ok = checks.failed == 0
        print(f"cluster: dqlite {middle - began:.1f} s (failovers "
              + ", ".join(f"{t:.1f} s" for t in failovers) + f"), sqld {time.monotonic() - middle:.1f} s")
    except Exception:
        # Whatever stopped the run is one failure; the processes still stop.
        traceback.print_exc()
        checks.failed += 1
    finally:
        processes.stop_all()
        if not ok:
            processes.print_logs()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"cluster: {checks.passed} passed, {checks.failed} failed")
    sys.exit(0 if checks.failed == 0 else 1)


if __name__ == "__main__":
    main()
