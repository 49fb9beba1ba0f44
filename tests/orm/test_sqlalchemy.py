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
from sqlalchemy.ext.mutable import MutableDict
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
                             ("blob", "A3B4E3DE2D05477261636500"))

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


# A schema an app changes between two runs: version 2 adds email (optional)
# and lang (with a default), and drops nick.
PERSON_V1 = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                                              "nick": {"type": "string"}},
             "required": ["name", "age", "nick"], "additionalProperties": False}
PERSON_V2 = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                                              "email": {"type": "string"}, "lang": {"type": "string", "default": "en"}},
             "required": ["name", "age", "lang"], "additionalProperties": False}


def model(schema, **options):
    """The app's model, as one run of it declares it."""
    base = declarative_base()

    class Member(base):
        __tablename__ = "members"
        id = Column(Integer, primary_key=True)
        data = Column(Shorn("member", schema, **options), nullable=False)
    return base, Member


class VersionsTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.url = f"sqlite:///{os.path.join(folder.name, 'app.db')}"

    def run_app(self, schema, **options):
        """One run of the app: a new engine on the same file, set up with its model."""
        engine = create_engine(self.url)
        self.addCleanup(engine.dispose)
        base, member = model(schema, **options)
        setup(engine, base.metadata)
        base.metadata.create_all(engine)
        return engine, member

    def test_rows_written_before_a_change_read_back_in_the_new_schema(self):
        engine, Member = self.run_app(PERSON_V1)
        with Session(engine) as session, session.begin():
            session.add_all([Member(data={"name": "Grace", "age": 45, "nick": "Amazing Grace"}),
                             Member(data={"name": "Ada", "age": 36, "nick": "Enchantress"})])
        engine.dispose()
        engine, Member = self.run_app(PERSON_V2)
        with Session(engine) as session, session.begin():
            session.add(Member(data={"name": "Alan", "age": 41, "email": "alan@example.org"}))
        with Session(engine) as session:
            self.assertEqual([m.data for m in session.scalars(select(Member).order_by(Member.id))],
                             [{"name": "Grace", "age": 45, "lang": "en"}, {"name": "Ada", "age": 36, "lang": "en"},
                              {"name": "Alan", "age": 41, "email": "alan@example.org", "lang": "en"}])
            query = select(Member.id).where(Member.data.extract("$.lang") == "en", Member.data.extract("$.age") > 40)
            self.assertEqual(session.scalars(query.order_by(Member.id)).all(), [1, 3])
            self.assertEqual(session.execute(text("SELECT version, fp_bytes FROM shorn_schemas ORDER BY version")).all(),
                             [(1, 4), (2, 4)])
            self.assertEqual(session.execute(text("SELECT shorn_payload_version(data, 'member') FROM members "
                                                  "ORDER BY id")).scalars().all(), [1, 1, 2])
        with Session(engine) as session, session.begin():
            session.execute(update(Member).where(Member.id == 1).values(data=Member.data.set("$.age", 46)))
        with Session(engine) as session:
            self.assertEqual(session.get(Member, 1).data, {"name": "Grace", "age": 46, "lang": "en"})

    def test_a_change_the_registry_refuses_raises_its_message(self):
        self.run_app(PERSON_V1)[0].dispose()
        retyped = {**PERSON_V1, "properties": {**PERSON_V1["properties"], "age": {"type": "string"}}}
        with self.assertRaises(exc.OperationalError) as caught:
            self.run_app(retyped)
        self.assertEqual(str(caught.exception.orig), "shorn_schemas: version 2 of 'member' cannot read what version 1 "
                                                     "wrote: #/properties/age: an integer cannot be read as a string")

    def test_fp_bytes_is_the_width_of_the_fingerprint_payloads_start_with(self):
        engine, Member = self.run_app(PERSON_V1, fp_bytes=3)
        with Session(engine) as session, session.begin():
            session.add(Member(data={"name": "Grace", "age": 45, "nick": "G"}))
        with Session(engine) as session:
            prefix, fingerprint = session.execute(text("SELECT hex(substr(data, 1, 3)), "
                                                       "upper(shorn_fingerprint(schema, 3)) FROM members, shorn_schemas"
                                                       )).one()
            self.assertEqual(prefix, fingerprint)
            self.assertEqual(session.get(Member, 1).data, {"name": "Grace", "age": 45, "nick": "G"})


class InPlaceTest(unittest.TestCase):
    """What the package README says of changes made inside an attribute's dict."""

    def test_a_plain_column_misses_a_change_inside_its_dict_and_mutable_dict_sees_a_key_set(self):
        base = declarative_base()

        class Plain(base):
            __tablename__ = "plain"
            id = Column(Integer, primary_key=True)
            data = Column(Shorn("person", PERSON))

        class Tracked(base):
            __tablename__ = "tracked"
            id = Column(Integer, primary_key=True)
            data = Column(MutableDict.as_mutable(Shorn("person", PERSON)))

        engine = create_engine("sqlite://")
        self.addCleanup(engine.dispose)
        setup(engine, base.metadata)
        base.metadata.create_all(engine)
        with Session(engine) as session, session.begin():
            session.add_all([Plain(data=dict(GRACE)), Tracked(data=dict(GRACE))])
        with Session(engine) as session, session.begin():
            plain, tracked = session.get(Plain, 1), session.get(Tracked, 1)
            plain.data["age"] = 46
            tracked.data["age"] = 46
        with Session(engine) as session:
            self.assertEqual((session.get(Plain, 1).data, session.get(Tracked, 1).data), (GRACE, {**GRACE, "age": 46}))

    def test_mutable_dict_misses_a_change_inside_a_member(self):
        base = declarative_base()

        class Profile(base):
            __tablename__ = "profiles"
            id = Column(Integer, primary_key=True)
            data = Column(MutableDict.as_mutable(Shorn("profile", {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}}}})))

        engine = create_engine("sqlite://")
        self.addCleanup(engine.dispose)
        setup(engine, base.metadata)
        base.metadata.create_all(engine)
        with Session(engine) as session, session.begin():
            session.add(Profile(data={"tags": []}))
        with Session(engine) as session, session.begin():
            profile = session.get(Profile, 1)
            profile.data["tags"].append("navy")
        with Session(engine) as session:
            self.assertEqual(session.get(Profile, 1).data, {"tags": []})


class ReadmeTest(unittest.TestCase):
    def test_the_sqlalchemy_examples_print_what_their_comments_say(self):
        readme = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python", "README.md")
        with open(readme, encoding="utf-8") as f:
            examples = [block for block in re.findall(r"```python\n(.*?)```", f.read(), re.S)
                        if "sqlite_shorn.sqlalchemy" in block]
        self.assertEqual(len(examples), 2)
        for number, example in enumerate(examples, 1):
            with self.subTest(example=number):
                expected = re.findall(r"\)  # (.*)", example)
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(example, "bindings/python/README.md", "exec"), {})
                self.assertEqual(printed.getvalue().splitlines(), expected)
                self.assertTrue(expected)


if __name__ == "__main__":
    unittest.main()
