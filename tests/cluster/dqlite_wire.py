"""The few requests of dqlite's client protocol (version 1) that the cluster
test sends: LEADER, CLUSTER, ADD, ASSIGN, OPEN, EXEC_SQL and QUERY_SQL.

go-dqlite is dqlite's own client, but it is Go (a toolchain CI would install
for this alone) and its `dqlite` shell cannot add a node to a cluster; the
protocol is small enough to speak directly.  Every message is an 8-byte
header (the body's length in 8-byte words, the type, a schema version) and
a body of little-endian words; text is NUL-terminated and padded to a word.
"""
import socket
import struct

PROTOCOL_VERSION = 1

# Request types.
LEADER, OPEN, EXEC_SQL, QUERY_SQL, ADD, ASSIGN, CLUSTER = 0, 3, 8, 9, 12, 13, 16
# Response types.
FAILURE, NODE, NODES, DB, RESULT, ROWS, EMPTY = 0, 1, 3, 4, 6, 7, 8
# A node's role in the cluster.
ROLES = {0: "voter", 1: "standby", 2: "spare"}
VOTER = 0
# A column's type in a row's header, four bits each.
INTEGER, FLOAT, TEXT, BLOB, NULL, UNIXTIME, ISO8601, BOOLEAN = 1, 2, 3, 4, 5, 9, 10, 11
# The byte that stands where a row's header would: no more rows, or more in
# the next ROWS message.
ROWS_DONE, ROWS_PART = 0xFF, 0xEE


class DqliteError(Exception):
    """A FAILURE response: SQLite's or dqlite's error code and message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class Body:
    def __init__(self):
        self.data = bytearray()

    def u64(self, value):
        self.data += struct.pack("<Q", value)
        return self

    def text(self, value):
        raw = value.encode() + b"\0"
        self.data += raw + b"\0" * (-len(raw) % 8)
        return self


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def _take(self, fmt):
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return value

    def u32(self):
        return self._take("<I")

    def u64(self):
        return self._take("<Q")

    def i64(self):
        return self._take("<q")

    def f64(self):
        return self._take("<d")

    def text(self):
        end = self.data.index(0, self.at)
        value = self.data[self.at:end].decode()
        self.at = end + 1 + (-(end + 1 - self.at) % 8)
        return value

    def blob(self):
        length = self.u64()
        value = bytes(self.data[self.at:self.at + length])
        self.at += length + (-length % 8)
        return value

    def peek(self):
        return self.data[self.at]


class Connection:
    """One client connection to one node.  Statements go to the leader: a
    follower answers them with a FAILURE ("not leader")."""

    def __init__(self, address, timeout=5.0):
        host, port = address.rsplit(":", 1)
        self.address = address
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.sendall(struct.pack("<Q", PROTOCOL_VERSION))
        self.db = None

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _receive(self, length):
        data = bytearray()
        while len(data) < length:
            chunk = self.sock.recv(length - len(data))
            if not chunk:
                raise ConnectionError(f"{self.address} closed the connection")
            data += chunk
        return data

    def _response(self, expected):
        words, kind, _, _ = struct.unpack("<IBBH", self._receive(8))
        body = Reader(self._receive(8 * words))
        if kind == FAILURE:
            raise DqliteError(body.u64(), body.text())
        if kind != expected:
            raise ConnectionError(f"{self.address}: response type {kind}, expected {expected}")
        return body

    def _request(self, kind, body, expected):
        self.sock.sendall(struct.pack("<IBBH", len(body.data) // 8, kind, 0, 0) + body.data)
        return self._response(expected)

    def leader(self):
        """(id, address) of the leader this node knows of; (0, "") if none."""
        reply = self._request(LEADER, Body().u64(0), NODE)
        return reply.u64(), reply.text()

    def cluster(self):
        """[(id, address, role)] of every node in the configuration."""
        reply = self._request(CLUSTER, Body().u64(1), NODES)
        return [(reply.u64(), reply.text(), ROLES.get(reply.u64(), "?")) for _ in range(reply.u64())]

    def add(self, node_id, address):
        self._request(ADD, Body().u64(node_id).text(address), EMPTY)

    def assign(self, node_id, role):
        self._request(ASSIGN, Body().u64(node_id).u64(role), EMPTY)

    def open(self, name):
        reply = self._request(OPEN, Body().text(name).u64(0).text("volatile"), DB)
        self.db = reply.u32()

    def execute(self, sql):
        """Run one statement; (last insert rowid, rows changed)."""
        reply = self._request(EXEC_SQL, Body().u64(self.db).text(sql), RESULT)
        return reply.u64(), reply.u64()

    def query(self, sql):
        """Every row of one statement, as tuples."""
        reply = self._request(QUERY_SQL, Body().u64(self.db).text(sql), ROWS)
        rows = []
        while True:
            columns = reply.u64()
            for _ in range(columns):
                reply.text()
            marker = self._rows(reply, columns, rows)
            if marker == ROWS_DONE:
                return rows
            reply = self._response(ROWS)

    @staticmethod
    def _rows(reply, columns, rows):
        """Read rows into `rows` up to the end marker, and return it."""
        header_bytes = (columns + 15) // 16 * 8
        while True:
            if reply.peek() in (ROWS_DONE, ROWS_PART):
                return reply.peek()
            header = reply.data[reply.at:reply.at + header_bytes]
            reply.at += header_bytes
            row = []
            for i in range(columns):
                kind = header[i // 2] >> (4 * (i % 2)) & 0x0F
                if kind in (INTEGER, UNIXTIME, BOOLEAN):
                    row.append(reply.i64())
                elif kind == FLOAT:
                    row.append(reply.f64())
                elif kind in (TEXT, ISO8601):
                    row.append(reply.text())
                elif kind == BLOB:
                    row.append(reply.blob())
                elif kind == NULL:
                    reply.u64()
                    row.append(None)
                else:
                    raise ConnectionError(f"column type {kind} in a row")
            rows.append(tuple(row))
