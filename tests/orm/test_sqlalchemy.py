"""sqlite_shorn.sqlalchemy with Debian's SQLAlchemy (1.4): an ORM model whose
attribute is a dict in Python and a payload on disk.  Run by
tests/bindings/python.sh in the venv the wheel is installed in; by hand,
with PYTHONPATH naming a folder whose sqlite_shorn/ holds the package's
files and build/shorn.so."""
import contextlib
import io
import os
import re
import tempfile
import unittest

from sqlalchemy import Column, Index, Integer, create_engine, exc, select, text, update
from sqlalchemy.orm import Session, declarative_base

from sqlite_shorn.sqlalchemy import Shorn, setup

PERSON = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 40},
                                           "age": {"type": "integer", "minimum": 0, "maximum": 150},
                                           "sex": {"enum": ["M", "F", "X"]}},
          "required": ["name", "age", "sex"], "additionalProperties": False}
GRACE = {"name": "Grace", "age": 45, "sex": "F"}
ADA = {"name": "Ada", "age": 36, "sex": "F"}
ALAN = {"name": "Alan", "age": 41, "sex": "M"}

Base = declarative_base()


class Person(Base):
    __tablename__ = "people"
    id = Column(Integer, primary_key=True)
    data = Column(Shorn("person", PERSON), nullable=False)


Index("people_by_age", Person.data.extract("$.age"))


class SQLAlchemyTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.engine = create_engine(f"sqlite:///{os.path.join(folder.name, 'app.db')}")
        self.addCleanup(self.engine.dispose)
        setup(self.engine, Base.metadata)
        Base.metadata.create_all(self.engine)
        with Session(self.engine) as session, session.begin():
            session.add_all([Person(data=GRACE), Person(data=ADA), Person(data=ALAN)])

    def test_the_attribute_is_a_dict_and_the_column_a_payload(self):
        with Session(self.engine) as session:
            self.assertEqual([p.data for p in session.scalars(select(Person).order_by(Person.id))], [GRACE, ADA, ALAN])
            self.assertEqual(session.execute(text("SELECT typeof(data), hex(data) FROM people WHERE id = 1")).one(),
                             ("blob", "2D05477261636500"))

    def test_a_field_filtered_and_ordered_through_its_expression_index(self):
        age = Person.data.extract("$.age")
        query = select(Person.id, Person.data.extract("$.name")).where(age > 40).order_by(age)
        with Session(self.engine) as session:
            self.assertEqual(session.execute(query).all(), [(3, "Alan"), (1, "Grace")])
            compiled = query.compile(self.engine)
            plan = session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}",
                                                        tuple(compiled.params.values())).all()
            self.assertEqual([row[-1] for row in plan], ["SEARCH people USING INDEX people_by_age (<expr>>?)"])

    def test_changes_through_the_attribute_and_with_shorn_set(self):
        with Session(self.engine) as session, session.begin():
            grace = session.get(Person, 1)
            grace.data = {**GRACE, "name": "Grace Hopper"}
        with Session(self.engine) as session, session.begin():
            session.execute(update(Person).where(Person.id == 1).values(data=Person.data.set("$.age", 46)))
        with Session(self.engine) as session:
            self.assertEqual(session.get(Person, 1).data, {"name": "Grace Hopper", "age": 46, "sex": "F"})

    def test_a_refused_value_raises_the_extensions_error(self):
        with Session(self.engine) as session:
            session.add(Person(data={**GRACE, "age": 500}))
            with self.assertRaises(exc.OperationalError) as caught:
                session.flush()
            self.assertEqual(str(caught.exception.orig), "shorn_encode: Too big: expected at most 150 at $.age")

    def test_every_connection_loads_the_extension(self):
        connections = [self.engine.raw_connection() for _ in range(2)]
        self.addCleanup(lambda: [connection.close() for connection in connections])
        self.assertEqual([c.execute("SELECT count(*) FROM shorn_schemas").fetchone() for c in connections], [(1,), (1,)])


class ReadmeTest(unittest.TestCase):
    def test_the_sqlalchemy_example_prints_what_its_comments_say(self):
        readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python", "README.md")
        with open(readme, encoding="utf-8") as f:
            example = next(block for block in re.findall(r"```python\n(.*?)```", f.read(), re.S)
                           if "sqlite_shorn.sqlalchemy" in block)
        expected = re.findall(r"\)  # (.*)", example)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(example, "bindings/python/README.md", "exec"), {})
        self.assertEqual(printed.getvalue().splitlines(), expected)
        self.assertTrue(expected)


if __name__ == "__main__":
    unittest.main()
