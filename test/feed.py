#!/usr/bin/env python3
"""The change feed's guarantees, on a server of its own at wal_level =
logical (the suite's server is not, and is not for killing).

Each check follows a collection through a slot of Argo's output plugin:
events in commit order with strictly increasing tokens, each
transaction's events together; nothing for ROLLBACK, ROLLBACK TO
SAVEPOINT, an error trapped in PL/pgSQL or a statement failing half-way;
resuming after any token (one in the middle of a transaction too) gives
exactly the events after it; a fast restart and a kill -9 of the server
during a write load lose nothing committed and show nothing that was
not; messages a role logs itself are not events; replaying the events
from nothing gives the collection back; every kind of event, in each
mode, is exactly the JSON test/expected/feed_events.json pins.

    python3 test/feed.py
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cluster import Cluster, check, outcome, q, summary  # noqa: E402

def changes(conn, after=None, coll="fc", slot="feed"):
    """A slot's events of a collection (None: of every one) after a token."""
    return conn.execute("SELECT token, event FROM argo_changes(%s, %s, %s, NULL)",
                        (slot, coll, after)).fetchall()


def replay(events):
    """The collection the events describe, from nothing: id -> object."""
    objs = {}
    for _, ev in events:
        op = ev["operationType"]
        if op in ("insert", "update"):
            objs[ev["documentKey"]["id"]] = ev["fullDocument"]
        elif op == "delete":
            objs.pop(ev["documentKey"]["id"], None)
        elif op == "drop":
            objs = {}
    return objs


def current(conn):
    rows = conn.execute("SELECT o.objid, argo_object('fc', o.objid) FROM argo_data.fc_obj o").fetchall()
    return {r[0]: r[1] for r in rows}


def order_case(conn, server):
    """Concurrent writers: tokens strictly increasing, transactions together."""
    def writer(k):
        c = server.connect()
        rng = random.Random(k)
        for t in range(15):
            c.execute("BEGIN")
            for s in range(rng.randint(1, 3)):
                q(c, "INSERT INTO fc OBJECT $1", {"w": k, "t": t, "s": s})
            q(c, "UPDATE fc SET n += 1 WHERE w = $1 AND t = $2", k, t)
            c.execute("COMMIT")
        c.close()

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    evs = [e for e in changes(conn) if "w" in (e[1].get("fullDocument") or {})]
    tokens = [t for t, _ in evs]
    increasing = all(a < b for a, b in zip(tokens, tokens[1:]))
    # a transaction is (writer, t): its events must not be interleaved with another's
    seen, together = set(), True
    last = None
    for _, ev in evs:
        doc = ev.get("fullDocument") or {}
        key = (doc.get("w"), doc.get("t"))
        if key != last:
            together &= key not in seen
            seen.add(key)
            last = key
    commits = [t[:16] for t in tokens]
    check(increasing and together and len(set(commits)) == 45,
          "%d events of 45 concurrent transactions: tokens strictly increasing, each transaction's together"
          % len(evs))
    return evs


def nothing_uncommitted_case(conn):
    before = changes(conn)
    conn.execute("BEGIN")
    q(conn, "INSERT INTO fc OBJECT {\"ghost\": \"rollback\"}")
    conn.execute("ROLLBACK")
    conn.execute("BEGIN")
    q(conn, "INSERT INTO fc OBJECT {\"kept\": \"savepoint\"}")
    conn.execute("SAVEPOINT s")
    q(conn, "INSERT INTO fc OBJECT {\"ghost\": \"savepoint\"}")
    q(conn, "UPDATE fc SET ghost = 'update' WHERE kept = 'savepoint'")
    conn.execute("ROLLBACK TO SAVEPOINT s")
    conn.execute("COMMIT")
    conn.execute("""DO $$ BEGIN
        PERFORM argo_query('INSERT INTO fc OBJECT {"ghost": "plpgsql"}');
        PERFORM 1 / 0;
      EXCEPTION WHEN division_by_zero THEN NULL; END $$""")
    try:
        q(conn, "INSERT INTO fc OBJECT {\"ghost\": \"half\"}, {\"ghost\": \"half\", \"n\": 1e400}")
    except psycopg.Error:
        pass
    try:
        q(conn, "UPDATE fc SET kept APPEND 1 WHERE EXISTS kept")
    except psycopg.Error:
        pass
    new = changes(conn, before[-1][0] if before else None)
    text = json.dumps([e for _, e in new])
    check("ghost" not in text and len(new) == 1 and new[0][1]["fullDocument"] == {"kept": "savepoint"},
          "ROLLBACK, ROLLBACK TO SAVEPOINT, a trapped PL/pgSQL error and statements failing half-way "
          "give no event (%d new: %s)" % (len(new), [e["operationType"] for _, e in new]))


def resume_case(conn):
    evs = changes(conn)
    bad = []
    rng = random.Random(7)
    # every token in the middle of a transaction, and some others
    mids = [i for i in range(1, len(evs)) if evs[i][0][:16] == evs[i - 1][0][:16]]
    picks = sorted(set(mids[:20] + rng.sample(range(len(evs)), min(10, len(evs)))))
    for i in picks:
        rest = changes(conn, evs[i][0])
        want = [t for t, _ in evs][i + 1:]
        if [t for t, _ in rest] != want:
            bad.append(i)
    check(not bad and mids, "resuming after %d tokens (%d in the middle of a transaction) gives exactly the "
          "events after each (%s)" % (len(picks), len(mids[:20]), bad or "all exact"))


def fake_case(conn, server):
    conn.execute("DROP ROLE IF EXISTS feed_nobody")
    conn.execute("CREATE ROLE feed_nobody LOGIN")
    before = changes(conn)
    with psycopg.connect(host="127.0.0.1", port=server.port, user="feed_nobody", dbname="postgres",
                         autocommit=True) as c:
        c.execute("SELECT pg_logical_emit_message(true, 'argo', E'insert\\tfc\\t1\\t\"fullDocument\": {\"fake\": 1}')")
        c.execute("SELECT pg_logical_emit_message(true, 'argo', E'drop\\tfc\\t0\\t')")
    after = changes(conn, before[-1][0])
    check(not after, "messages a role without write access logs itself are no events (%d)" % len(after))


def connect_as(server, role):
    return psycopg.connect(host="127.0.0.1", port=server.port, user=role, dbname="postgres",
                           autocommit=True)


def forge_case(conn, server):
    """A role that may write its own collection forges no event: not for
    another collection, not with fields of its own, not as text that is
    not JSON, not through tables it planted, not a second event for an
    object it changed once."""
    conn.execute("DROP ROLE IF EXISTS feed_writer")
    conn.execute("CREATE ROLE feed_writer LOGIN")
    conn.execute("GRANT CREATE ON SCHEMA argo_data TO feed_writer")
    conn.execute("SELECT argo_create_collection('fc3')")
    before = changes(conn, coll=None)
    emit = "SELECT pg_logical_emit_message(true, 'argo', %s)"
    with connect_as(server, "feed_writer") as c:
        q(c, "INSERT INTO mine OBJECT {\"x\": 1}")
        c.execute("SELECT argo_feed('mine')")
        # fields of its own after a real update of its own object
        c.execute("BEGIN")
        q(c, "UPDATE mine SET x = 2 WHERE ID() = 1")
        c.execute(emit, ('update\tmine\t1\t"ns": {"coll": "fc"}, "_id": "FFFFFFFFFFFFFFFFFFFFFFFF", '
                         '"operationType": "delete"',))
        c.execute("COMMIT")
        # a body that is not JSON
        c.execute("BEGIN")
        q(c, "UPDATE mine SET x = 3 WHERE ID() = 1")
        c.execute(emit, ('update\tmine\t1\t"x": ',))
        c.execute("COMMIT")
        # a second event, and one of another kind, for an object changed once
        c.execute("BEGIN")
        q(c, "UPDATE mine SET x = 4 WHERE ID() = 1")
        c.execute(emit, ('delete\tmine\t1\t',))
        c.execute(emit, ('update\tmine\t1\t"updateDescription": {"updatedFields": {"x": 99}, '
                         '"removedFields": []}',))
        c.execute("COMMIT")
        # a directory planted for a collection that is not there, a feed
        # table planted beside someone else's collection, and their events
        c.execute("CREATE TABLE argo_data.ghost_obj (objid bigint)")
        c.execute("CREATE TABLE argo_data.fc3_feed (x int)")
        c.execute("BEGIN")
        c.execute("INSERT INTO argo_data.ghost_obj VALUES (5)")
        c.execute(emit, ('delete\tghost\t5\t',))
        c.execute("INSERT INTO argo_data.fc3_feed VALUES (1)")
        c.execute(emit, ('drop\tfc3\t0\t',))
        c.execute("COMMIT")
    after = changes(conn, before[-1][0] if before else None, coll=None)
    evs = [e for _, e in after]
    updates = [e["updateDescription"]["updatedFields"] for e in evs if e["ns"]["coll"] == "mine"]
    others = [e for e in evs if e["ns"]["coll"] != "mine"]
    tokens = [t for t, _ in after]
    check(updates == [{"x": 2}, {"x": 3}, {"x": 4}] and not others and
          all(e["operationType"] == "update" for e in evs) and
          all(len(t) == 24 and t < "FFFFFFFF" for t in tokens),
          "a writer of one collection forges nothing: not another collection's event, not fields of its "
          "own, not text that is not JSON, not a second event for one change, not through planted "
          "tables (events: %s)" % [(e["ns"]["coll"], e["operationType"]) for e in evs])
    # the planted feed table is in the way of fc3's feed: said, not ignored
    state, err = outcome(lambda: conn.execute("SELECT argo_feed('fc3')"))
    check(state == "42P07" and "feed_writer" in str(err.diag.message_detail or ""),
          "a feed table another role planted is named as in the way: %s (%s)"
          % (state, err.diag.message_detail if err else ""))
    with connect_as(server, "feed_writer") as c:
        c.execute("DROP TABLE argo_data.ghost_obj, argo_data.fc3_feed")
        c.execute("SELECT argo_drop_collection('mine')")
    conn.execute("SELECT argo_drop_collection('fc3')")
    conn.execute("REVOKE CREATE ON SCHEMA argo_data FROM feed_writer")
    conn.execute("DROP ROLE feed_writer")


def member_case(conn, server):
    """A member of the role owning a collection switches its feed on."""
    conn.execute("DROP ROLE IF EXISTS feed_member")
    conn.execute("DROP ROLE IF EXISTS feed_team")
    conn.execute("CREATE ROLE feed_team")
    conn.execute("CREATE ROLE feed_member LOGIN IN ROLE feed_team")
    conn.execute("GRANT CREATE ON SCHEMA argo_data TO feed_team")
    before = changes(conn, coll="team")
    with connect_as(server, "feed_member") as c:
        c.execute("SET ROLE feed_team")
        c.execute("SELECT argo_create_collection('team')")
        c.execute("RESET ROLE")
        c.execute("SELECT argo_feed('team')")
        q(c, "INSERT INTO team OBJECT {\"by\": \"member\"}")
    evs = [e for _, e in changes(conn, before[-1][0] if before else None, coll="team")]
    owner = conn.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'team_feed'").fetchone()
    check([e.get("fullDocument") for e in evs] == [{"by": "member"}] and owner == ("feed_team",),
          "a member of the owning role switches the feed on: the table is the owner's (%s), events come (%d)"
          % (owner, len(evs)))
    conn.execute("SELECT argo_drop_collection('team')")
    conn.execute("REVOKE CREATE ON SCHEMA argo_data FROM feed_team")
    conn.execute("DROP ROLE feed_member, feed_team")


def empty_key_case(conn):
    """Paths under the empty key are not the top-level ones."""
    mark = changes(conn)[-1][0]
    q(conn, "INSERT INTO fc OBJECT {\"ek\": 0, \"\": {\"ek\": 1}}")
    q(conn, "UPDATE fc SET ``.ek = 2 WHERE ek = 0")
    q(conn, "UPDATE fc SET ek = 3 UNSET `` WHERE ek = 0")
    evs = [e["updateDescription"] for _, e in changes(conn, mark) if e["operationType"] == "update"]
    check(evs == [{"updatedFields": {".ek": 2}, "removedFields": []},
                  {"updatedFields": {"ek": 3}, "removedFields": [""]}],
          "paths under the empty key are their own: %s" % evs)


def replication_case(conn, server):
    """The documented decision: a REPLICATION role reads every event."""
    conn.execute("DROP ROLE IF EXISTS feed_repl")
    conn.execute("CREATE ROLE feed_repl LOGIN REPLICATION")
    with connect_as(server, "feed_repl") as c:
        state, _ = outcome(lambda: q(c, "SELECT * FROM fc"))
        evs = c.execute("SELECT event FROM argo_changes('feed', 'fc', NULL, 5)").fetchall()
    conn.execute("DROP ROLE feed_repl")
    check(state == "42501" and evs and all("fullDocument" in e[0] or e[0]["operationType"] == "delete"
                                          for e in evs),
          "a role with REPLICATION and no grants: argo_query %s, argo_changes gives the documents, "
          "as PostgreSQL's own decoding does (docs/operations.md, Security)" % state)


def stream_case(conn, server):
    """docs/feed.md's streaming consumer (examples/feed_stream.py): events
    as they commit over a replication connection, a second reader of its
    slot told to make its own, and a restart that resumes after the token
    kept."""
    here = os.path.dirname(os.path.abspath(__file__))
    examples = os.path.join(os.path.dirname(here), "examples")
    sys.path.insert(0, examples)
    import feed_stream
    with open(os.path.join(examples, "feed_stream.py")) as f:
        code = f.read()
    with open(os.path.join(os.path.dirname(here), "docs", "feed.md")) as f:
        in_docs = code.strip() in f.read()
    conn.execute("SELECT argo_feed_slot('streamer')")
    conninfo = "host=127.0.0.1 port=%d user=postgres dbname=postgres" % server.port
    state = tempfile.mktemp(prefix="argo_feed_stream_")

    def run(n, writes):
        got = []

        def handle(event):
            got.append(event.get("fullDocument"))
            return len(got) < n
        t = threading.Thread(target=feed_stream.stream, args=(conninfo, "streamer", "fc", state, handle))
        t.start()
        for _ in range(100):
            pid = conn.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'streamer'").fetchone()[0]
            if pid is not None:
                break
            time.sleep(0.05)
        state_, err = outcome(lambda: conn.execute("SELECT * FROM argo_changes('streamer')"))
        busy = (state_, err.diag.message_hint if err else None)
        for doc in writes:
            q(conn, "INSERT INTO fc OBJECT $1", doc)
        t.join(30)
        if t.is_alive():
            conn.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'streamer'")
            t.join(10)
        slot_released()
        return got, busy

    def slot_released():
        # The consumer's connection is closed when its thread ends, but the
        # walsender holding the slot leaves a moment later: the next reader
        # or the drop would find the slot still active.
        for _ in range(200):
            if conn.execute("SELECT active_pid FROM pg_replication_slots "
                            "WHERE slot_name = 'streamer'").fetchone()[0] is None:
                return
            time.sleep(0.05)

    first, busy = run(3, [{"s": 1}, {"s": 2}, {"s": 3}])
    q(conn, "INSERT INTO fc OBJECT {\"s\": 4}")
    second, _ = run(2, [{"s": 5}])
    os.unlink(state)
    conn.execute("SELECT pg_drop_replication_slot('streamer')")
    check(in_docs and first == [{"s": 1}, {"s": 2}, {"s": 3}] and second == [{"s": 4}, {"s": 5}],
          "docs/feed.md's streaming consumer gets events as they commit and resumes after its kept token: %s, %s"
          % (first, second))
    check(busy[0] == "55006" and "own slot" in (busy[1] or ""),
          "a second reader of a streaming slot: 55006 telling it to make its own slot (%s, %s)" % busy)


def incarnation_case(conn):
    """A dropped collection's stream ends with invalidate; one made again
    under the name is another incarnation; commit times are UTC in ISO 8601
    whatever the reader's time zone."""
    conn.execute("SELECT argo_create_collection('again')")
    conn.execute("SELECT argo_feed('again')")
    start = changes(conn, coll=None)[-1][0]
    q(conn, "INSERT INTO again OBJECT {\"n\": 1}")
    conn.execute("SELECT argo_drop_collection('again')")
    conn.execute("SELECT argo_create_collection('again')")
    conn.execute("SELECT argo_feed('again')")
    q(conn, "INSERT INTO again OBJECT {\"n\": 2}")
    conn.execute("SET TimeZone = 'America/New_York'")
    evs = [e for _, e in changes(conn, start, coll="again")]
    utc = conn.execute("SELECT pg_catalog.to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')").fetchone()[0]
    conn.execute("RESET TimeZone")
    conn.execute("SELECT argo_drop_collection('again')")
    ops = [(e["operationType"], e["ns"]["incarnation"], e.get("documentKey")) for e in evs]
    check([o for o, _, _ in ops] == ["insert", "drop", "invalidate", "insert"] and
          ops[0][1] == ops[1][1] == ops[2][1] != ops[3][1] and ops[0][2] == ops[3][2] == {"id": 1},
          "drop, invalidate, and the collection made again is another incarnation (ids restart): %s" % ops)
    times = [e["clusterTime"] for e in evs]
    check(all(t.endswith("Z") and t[10] == "T" and t[:10] in (utc, times[0][:10]) for t in times),
          "clusterTime is ISO 8601 UTC whatever the reader's time zone: %s" % times[:2])


def before_change_case(conn):
    """With before_change, update and delete events carry the object
    before (fullDocumentBeforeChange): a point update and delete, a
    many-object delete with an empty object among them, and a delete
    through SQL (row-level security on the value tables)."""
    conn.execute("SELECT argo_create_collection('bc')")
    conn.execute("SELECT argo_feed('bc', true, false, true)")
    start = changes(conn, coll=None)[-1][0]
    q(conn, "INSERT INTO bc OBJECT {\"k\": 1, \"v\": \"a\"}, {\"k\": 2, \"v\": \"b\"}, {\"k\": 3}, {}, {\"k\": 5}")
    q(conn, "UPDATE bc SET v = 'z' WHERE k = 1")
    q(conn, "DELETE FROM bc WHERE k = 2")
    q(conn, "DELETE FROM bc WHERE k = 3 OR ID() = 4")
    for t in ("str", "num", "bool"):
        conn.execute("ALTER TABLE argo_data.bc_%s ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY" % t)
        conn.execute("CREATE POLICY p ON argo_data.bc_%s USING (true)" % t)
    conn.execute("SET row_security = on")
    q(conn, "DELETE FROM bc WHERE k = 5 RETURNING *")
    conn.execute("RESET row_security")
    evs = [(e["operationType"], e.get("documentKey", {}).get("id"), e.get("fullDocumentBeforeChange"))
           for _, e in changes(conn, start, coll="bc") if e["operationType"] != "insert"]
    conn.execute("SELECT argo_drop_collection('bc')")
    check(evs == [("update", 1, {"k": 1, "v": "a"}), ("delete", 2, {"k": 2, "v": "b"}),
                  ("delete", 3, {"k": 3}), ("delete", 4, {}), ("delete", 5, {"k": 5})],
          "with before_change, updates and deletes carry the object before, from C and through SQL: %s" % evs)


def tokens_case(conn):
    """Tokens are input: exactly 24 hexadecimal digits, of events the slot gave out."""
    for i in range(6):
        q(conn, "INSERT INTO fc OBJECT $1", {"token_case": i})
    evs = changes(conn)
    first, last = evs[0][0], evs[-1][0]
    lower = changes(conn, first.lower())
    bad = []
    for t in ("+0000000+0000000+0000001", "0x00000000000000000000001", " 000000000000000000000001",
              "00000000000000000000000G", "000000000000000000000000", "1"):
        st, _ = outcome(lambda: changes(conn, t))
        st2, _ = outcome(lambda: conn.execute("SELECT argo_changes_ack('feed', %s)", (t,)))
        if st != "22023" or st2 != "22023":
            bad.append((t, st, st2))
    never, _ = outcome(lambda: conn.execute("SELECT argo_changes_ack('feed', 'FFFFFFFF0000000000000001')"))
    kept = changes(conn)[-1][0] == last
    check(lower == changes(conn, first) and lower and not bad and never == "22023" and kept,
          "tokens: either case, the same events; malformed ones and one never given out are 22023, "
          "and the slot keeps its events (%s, never given: %s)" % (bad or "all refused", never))
    middle = evs[len(evs) // 2][0]
    conn.execute("SELECT argo_changes_ack('feed', %s)", (middle,))
    lost, err = outcome(lambda: changes(conn, first))
    again, _ = outcome(lambda: conn.execute("SELECT argo_changes_ack('feed', %s)", (first,)))
    check(lost == "55000" and again == "ok" and changes(conn, middle) == [e for e in evs if e[0] > middle],
          "resuming from before the acknowledged point is an error (%s: %s), acknowledging an "
          "older token again does nothing" % (lost, str(err).splitlines()[0] if err else ""))


def load(server, stop, counter):
    c = server.connect()
    i = 0
    while not stop.is_set():
        try:
            q(c, "INSERT INTO fc OBJECT $1", {"load": i})
            if i % 3 == 0:
                q(c, "UPDATE fc SET n += 1 WHERE load = $1", i - 1)
            if i % 5 == 0:
                q(c, "DELETE FROM fc WHERE load = $1", i - 2)
            counter[0] = i
            i += 1
        except psycopg.Error:
            break
    try:
        c.close()
    except psycopg.Error:
        pass


def crash_case(server, mode):
    """Stop the server (fast), or kill -9 it, under a write load."""
    conn = server.connect()
    kept = changes(conn)[-1][0]
    stop, counter = threading.Event(), [0]
    th = threading.Thread(target=load, args=(server, stop, counter))
    th.start()
    time.sleep(1.5)
    if mode == "kill -9":
        server.kill9()
    else:
        server.stop(mode)
    stop.set()
    th.join()
    for attempt in range(20):
        try:
            server.start()
            break
        except RuntimeError:
            time.sleep(0.5)
    conn = server.connect()
    evs = changes(conn)
    rest = changes(conn, kept)
    want = [e for e in evs if e[0] > kept]
    same = replay(evs) == current(conn)
    check(rest == want and same and counter[0] > 0,
          "a %s stop during %d writes: the events after the kept token are exactly what committed, "
          "and replaying them gives the collection" % (mode, counter[0]))
    return conn


def consumer_case(conn, server):
    """The documented consumer (docs/feed.md), as written: it resumes after the token it kept."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(here), "examples", "feed_consumer.py")
    with open(path) as f:
        code = f.read()
    with open(os.path.join(os.path.dirname(here), "docs", "feed.md")) as f:
        in_readme = code.strip() in f.read()
    conninfo = "host=127.0.0.1 port=%d user=postgres dbname=postgres" % server.port
    state = tempfile.mktemp(prefix="argo_feed_token_")
    runs = []
    for doc in ({"consumer": 1}, {"consumer": 2}):
        q(conn, "INSERT INTO fc OBJECT $1", doc)
        r = subprocess.run([sys.executable, path, conninfo, "feed", "fc", state], capture_output=True, text=True)
        runs.append([json.loads(line).get("fullDocument") for line in r.stdout.splitlines()])
    os.unlink(state)
    check(in_readme and runs[0][-1] == {"consumer": 1} and runs[1] == [{"consumer": 2}],
          "docs/feed.md's consumer (examples/feed_consumer.py) resumes after its kept token: second run %s"
          % runs[1])


def feed_off_case(conn):
    """Following a collection whose feed is off says so (a notice), and
    says nothing of one whose feed is on."""
    heard = []
    conn.add_notice_handler(lambda d: heard.append(d.message_primary))
    conn.execute("SELECT argo_create_collection('quiet')")
    q(conn, "INSERT INTO quiet OBJECT {\"unheard\": 1}")
    off = changes(conn, coll="quiet")
    said_off = [m for m in heard if "quiet" in m and "off" in m]
    del heard[:]
    conn.execute("SELECT argo_feed('quiet', true, false)")
    q(conn, "INSERT INTO quiet OBJECT {\"heard\": 1}")
    on = [e.get("fullDocument") for _, e in changes(conn, coll="quiet")]
    check(off == [] and len(said_off) == 1 and not heard and on == [{"heard": 1}],
          "argo_changes of a collection whose feed is off: no events and a notice saying so (%s), "
          "none once it is on (%s, %s)" % (said_off, heard, on))
    conn.execute("SELECT argo_drop_collection('quiet')")


EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected", "feed_events.json")


def pinned(events):
    """Events with what changes from run to run named instead: tokens by
    their order, commit times and incarnations by a placeholder."""
    order = {}
    out = []
    for token, ev in events:
        ev = json.loads(json.dumps(ev))
        order.setdefault(token, "token %d" % (len(order) + 1))
        ev["_id"] = order[token]
        if "clusterTime" in ev:
            ev["clusterTime"] = "<commit time, UTC>"
        if "incarnation" in ev.get("ns", {}):
            ev["ns"]["incarnation"] = "<the collection's sequence OID>"
        out.append(ev)
    return out


def events_case(conn):
    """Every kind of event, in each of the feed's three modes, exactly as
    test/expected/feed_events.json pins it (the format consumers parse)."""
    got = {}
    for mode, args in (("changes", "false, false"), ("full", "true, false"), ("before", "true, true")):
        name = "ev_" + mode
        conn.execute("SELECT argo_create_collection(%s)", (name,))
        conn.execute("SELECT argo_feed(%%s, true, %s)" % args, (name,))
        start = (changes(conn, coll=None) or [[None]])[-1][0]
        q(conn, "INSERT INTO %s OBJECT {\"k\": 1, \"tags\": [\"a\"], \"sub\": {\"x\": 1}}, {\"k\": 2}" % name)
        q(conn, "UPDATE %s SET sub.x += 1, tags APPEND \"b\", new = null UNSET k WHERE k = 1" % name)
        q(conn, "DELETE FROM %s WHERE k = 2" % name)
        conn.execute("SELECT argo_drop_collection(%s)", (name,))
        got[mode] = pinned(changes(conn, start, coll=name))
    with open(EXPECTED, encoding="utf-8") as f:
        want = json.load(f)
    check(got == want, "the events' JSON is the pinned one (%s): %s"
          % (os.path.relpath(EXPECTED), "same" if got == want else json.dumps(got, sort_keys=True)))


def main():
    root = tempfile.mkdtemp(prefix="argo_feed_")
    server = Cluster("argo_feed", root, ["wal_level=logical",
                                         "output_plugin_libraries=pgoutput,test_decoding,argo"])
    try:
        server.start()
        conn = server.connect()
        conn.execute("CREATE EXTENSION argo")
        conn.execute("SELECT argo_create_collection('fc')")
        state, _ = outcome(lambda: conn.execute("SELECT argo_feed('nosuch')"))
        check(state == "42P01", "argo_feed of a missing collection: %s" % state)
        conn.execute("SELECT argo_feed('fc', true, true)")
        conn.execute("SELECT pg_create_logical_replication_slot('feed', 'argo')")
        conn.execute("SELECT pg_create_logical_replication_slot('other', 'test_decoding')")
        state, _ = outcome(lambda: conn.execute("SELECT * FROM argo_changes('other')"))
        conn.execute("SELECT pg_drop_replication_slot('other')")
        check(state == "55000", "argo_changes of another plugin's slot: %s" % state)
        q(conn, "INSERT INTO fc OBJECT {\"a\": 1, \"b\": {\"c\": 1, \"d\": [1, 2]}}")
        q(conn, "UPDATE fc SET b.c = 5, x = true UNSET b.d WHERE a = 1")
        ev = changes(conn)[-1][1]
        check(ev["operationType"] == "update" and ev["updateDescription"] ==
              {"updatedFields": {"b.c": 5, "x": True}, "removedFields": ["b.d"]} and
              ev["fullDocument"] == {"a": 1, "b": {"c": 5}, "x": True},
              "an update's event: the paths set and removed, and the object after (%s)" % ev)
        mark = changes(conn)[-1][0]
        conn.execute("SELECT argo_load('fc', 'SELECT jsonb_build_object(''loaded'', i) FROM generate_series(1, 3) i')")
        q(conn, "UPSERT fc SET hits += 1 WHERE page = 'home'")
        q(conn, "UPSERT fc SET hits += 1 WHERE page = 'home'")
        ops = [(e["operationType"], e.get("fullDocument")) for _, e in changes(conn, mark)]
        check(ops == [("insert", {"loaded": 1}), ("insert", {"loaded": 2}), ("insert", {"loaded": 3}),
                      ("insert", {"page": "home", "hits": 1}), ("update", {"page": "home", "hits": 2})],
              "argo_load and UPSERT are events too: %s" % ops)
        order_case(conn, server)
        nothing_uncommitted_case(conn)
        resume_case(conn)
        fake_case(conn, server)
        forge_case(conn, server)
        member_case(conn, server)
        empty_key_case(conn)
        replication_case(conn, server)
        conn = crash_case(server, "fast")
        conn = crash_case(server, "kill -9")
        evs = changes(conn)
        check(replay(evs) == current(conn) and len(current(conn)) > 0,
              "replaying all %d events from an empty collection gives the collection (%d objects)"
              % (len(evs), len(current(conn))))
        consumer_case(conn, server)
        stream_case(conn, server)
        incarnation_case(conn)
        before_change_case(conn)
        tokens_case(conn)
        feed_off_case(conn)
        events_case(conn)
        token = changes(conn)[-1][0]
        conn.execute("SELECT argo_changes_ack('feed', %s)", (token,))
        check(changes(conn, token) == [] and changes(conn)[-1][0] == token,
              "acknowledging a token keeps that transaction's events and lets earlier ones go")
        conn.execute("SELECT argo_drop_collection('fc')")
        last = changes(conn, token)
        check([e["operationType"] for _, e in last] == ["drop", "invalidate"],
              "dropping the collection is an event, and ends its stream (invalidate)")
        conn.execute("SELECT pg_drop_replication_slot('feed')")
        conn.close()
    finally:
        server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)
    return summary("feed")


if __name__ == "__main__":
    sys.exit(main())
