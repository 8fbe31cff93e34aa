"""A small application on Argo: create, read, update and delete documents
from Python with psycopg, every value passed as a parameter.

Run against any database with the extension (the test suite runs it):
    PGDATABASE=mydb python3 examples/app.py
"""
import os

import psycopg
from psycopg.types.json import Jsonb


class Collection:
    """One Argo collection, spoken to in Argo/SQL with $n parameters."""

    def __init__(self, conn, name):
        self.conn = conn
        self.name = name  # a collection name is part of the statement text

    def query(self, statement, *params):
        """The statement's results as Python values (one per document)."""
        sql = "SELECT * FROM argo_query(%s" + ", %s" * len(params) + ")"
        with self.conn.cursor() as cur:
            cur.execute(sql, [statement.replace("{c}", self.name)] + [Jsonb(p) for p in params])
            return [row[0] for row in cur.fetchall()]

    def insert(self, *docs):
        """Insert documents; their ids."""
        holes = ", ".join("$%d" % (i + 1) for i in range(len(docs)))
        return self.query("INSERT INTO {c} OBJECT %s RETURNING ID" % holes, *docs)[0]["ids"]

    def insert_many(self, docs):
        """Insert a list of documents of any length as one parameter (one
        JSON array: PostgreSQL allows 100 function arguments, not 10,000);
        their ids, in the list's order."""
        return self.query("INSERT INTO {c} OBJECTS $1 RETURNING ID", docs)[0]["ids"]

    def get(self, oid):
        found = self.query("SELECT * FROM {c} WHERE ID() = $1", oid)
        return found[0] if found else None


def main():
    with psycopg.connect(dbname=os.environ.get("PGDATABASE", "postgres"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS argo")
        conn.execute("SELECT argo_drop_collection('app_users', true)")
        users = Collection(conn, "app_users")

        # create
        ada, bob = users.insert({"name": "Ada", "email": "ada@example.com", "tags": ["admin"]},
                                {"name": "Bob", "email": "bob@example.com", "logins": 0})
        print("inserted", ada, bob)

        # read: by id, and by any key, with a user's input as a parameter
        assert users.get(ada)["name"] == "Ada"
        hostile = "Bob' OR 1 = 1 --"
        assert users.query("SELECT * FROM {c} WHERE name = $1", hostile) == []
        print("by name:", users.query("SELECT name, email FROM {c} WHERE name = $1", "Bob"))

        # update in place, no read-modify-write in the client
        users.query("UPDATE {c} SET logins += 1, tags ADD $1, last_seen = $2 WHERE ID() = $3",
                    "beta", "2026-11-23", bob)
        users.query("UPDATE {c} SET logins += 1, tags ADD $1 WHERE ID() = $2", "beta", bob)
        b = users.get(bob)
        assert b["logins"] == 2 and b["tags"] == ["beta"], b
        users.query("UPDATE {c} SET tags REMOVE $1 UNSET email WHERE ID() = $2", "admin", ada)
        assert users.get(ada) == {"name": "Ada", "tags": []}

        # upsert: counts per day, one document per (user, day)
        for _ in range(3):
            users.query("UPSERT {c} SET hits += 1 WHERE kind = $1 AND user_id = $2 AND day = $3",
                        "visit", ada, "2026-11-23")
        visits = users.query("SELECT hits FROM {c} WHERE kind = $1 AND user_id = $2", "visit", ada)
        assert visits == [{"hits": 3}], visits

        # a list of values as one parameter
        names = users.query("SELECT name FROM {c} WHERE ID() IN $1 ORDER BY name", [bob, ada])
        assert [n["name"] for n in names] == ["Ada", "Bob"], names

        # a unique key: a second user with Bob's email is refused (23505)
        conn.execute("SELECT argo_unique('app_users', 'email')")
        try:
            users.insert({"name": "Bobby", "email": "bob@example.com"})
            raise AssertionError("a duplicate email was accepted")
        except psycopg.errors.UniqueViolation as e:
            print("refused:", e.diag.message_primary)

        # find one and update it, getting the object as updated
        [after] = users.query("UPDATE {c} SET logins += 1 WHERE email = $1 RETURNING *", "bob@example.com")
        assert after["logins"] == 3, after

        # 10,000 documents in one statement, as one parameter
        ids = users.insert_many([{"kind": "event", "n": i} for i in range(10000)])
        assert len(ids) == 10000 and ids == sorted(ids), len(ids)
        [total] = users.query("SELECT COUNT(*) AS n, SUM(n) AS s FROM {c} WHERE kind = 'event'")
        assert total == {"n": 10000, "s": 49995000}, total
        users.query("DELETE FROM {c} WHERE kind = 'event'")

        # delete
        assert users.query("DELETE FROM {c} WHERE ID() = $1", bob) == [{"deleted": 1}]
        assert users.get(bob) is None
        print("remaining:", users.query("SELECT * FROM {c}"))
        conn.execute("SELECT argo_drop_collection('app_users')")
    print("app example: ok")


if __name__ == "__main__":
    main()
