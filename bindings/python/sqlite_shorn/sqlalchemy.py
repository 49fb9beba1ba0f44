"""SQLAlchemy columns stored as shorn payloads: a value written is encoded by
shorn_encode in the statement itself (the schema's checks and errors are
the extension's), and a column selected is decoded by shorn_decode, so an
ORM attribute is a dict (or whatever JSON value the schema describes) in
Python and a compact BLOB on disk.  Tested with SQLAlchemy 1.4."""
import json

from sqlalchemy import event, func, literal_column, types

import sqlite_shorn


def _literal(text):
    """A SQL string literal, not a parameter, so that a WHERE or ORDER BY
    expression is the very text of an index's expression and SQLite's
    planner can use the index."""
    return literal_column("'" + str(text).replace("'", "''") + "'")


class Shorn(types.TypeDecorator):
    """A BLOB column of payloads of the schema registered under name; schema
    (a dict, or JSON Schema text) is what setup() registers, with fp_bytes
    (1-4; 0 for none) bytes of its fingerprint first in each payload.  A
    changed schema is the name's next version: rows written before read
    back in its shape."""

    impl = types.LargeBinary
    cache_ok = True

    def __init__(self, name, schema=None, fp_bytes=4):
        if not isinstance(name, str) or not name or name.lstrip().startswith("{"):
            raise TypeError(f"sqlite_shorn.sqlalchemy: Shorn() takes the name the schema is registered under, not {name!r}")
        super().__init__()
        self.name = name
        self.fp_bytes = fp_bytes
        # As text: SQLAlchemy's statement cache keys on the arguments, which must hash.
        self.schema = schema if schema is None or isinstance(schema, str) else \
            json.dumps(schema, ensure_ascii=False, separators=(",", ":"))

    def bind_expression(self, bindvalue):
        return func.shorn_encode(bindvalue, _literal(self.name), type_=types.LargeBinary)

    def column_expression(self, column):
        return func.shorn_decode(column, _literal(self.name), type_=self)

    # The parameter is the value's JSON text and the selected column is
    # shorn_decode's JSON text: neither goes through LargeBinary's bytes.
    def bind_processor(self, dialect):
        def process(value):
            return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return process

    def result_processor(self, dialect, coltype):
        def process(value):
            return None if value is None else json.loads(value)
        return process

    class comparator_factory(types.TypeDecorator.Comparator):
        def extract(self, path):
            """shorn_extract(column, name, path): the value at path, for
            select, where, order_by and an Index's expression."""
            return func.shorn_extract(self.expr, _literal(self.type.name), _literal(path))

        def set(self, path, value):
            """shorn_set(column, name, path, value): the payload with the
            value at path replaced, as json_set would, for an UPDATE."""
            return func.shorn_set(self.expr, _literal(self.type.name), _literal(path),
                                  func.json(json.dumps(value, ensure_ascii=False)), type_=types.LargeBinary)


def setup(engine, metadata=None):
    """Loads the extension into every connection the engine opens, and
    registers there the schema of each Shorn column of metadata's tables
    (a changed schema as the name's next version)."""
    schemas = {}
    for table in metadata.tables.values() if metadata is not None else ():
        for column in table.columns:
            if isinstance(column.type, Shorn) and column.type.schema is not None:
                schemas[column.type.name] = (column.type.schema, column.type.fp_bytes)

    @event.listens_for(engine, "connect")
    def load(connection, _record):
        sqlite_shorn.load(connection)
        for name, (schema, fp_bytes) in schemas.items():
            sqlite_shorn.register(connection, name, schema, fp_bytes=fp_bytes)
