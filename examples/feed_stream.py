"""Follow a collection's changes as a stream, for days, resuming after the last token kept.

    python3 feed_stream.py CONNINFO SLOT COLLECTION STATE_FILE

prints each new event as a line of JSON, as it commits (a handler that
returns False ends the stream after its event). A replication
connection (psycopg2's LogicalReplicationConnection; psycopg 3 has none)
runs the slot's decoding once, as a stream, where argo_changes decodes
the unacknowledged backlog again on every call. The server resends the
transaction of the last position acknowledged, so events up to the
token kept are skipped by their tokens, which sort as text.
"""
import json
import os
import sys

import psycopg2
import psycopg2.extras


class Stop(Exception):
    """Ends the stream, after the event that a handler returned False for."""


def keep(state_file, token):
    with open(state_file + ".tmp", "w") as f:
        f.write(token)
    os.replace(state_file + ".tmp", state_file)


def stream(conninfo, slot, collection, state_file, handle):
    token = None
    if os.path.exists(state_file):
        with open(state_file) as f:
            token = f.read().strip() or None
    conn = psycopg2.connect(conninfo, connection_factory=psycopg2.extras.LogicalReplicationConnection)
    cur = conn.cursor()
    cur.start_replication(slot_name=slot, decode=True)

    def consume(msg):
        nonlocal token
        event = json.loads(msg.payload)
        go_on = True
        if token is None or event["_id"] > token:
            if collection in (None, event["ns"]["coll"]):
                go_on = handle(event) is not False
            token = event["_id"]
            keep(state_file, token)
        # kept: the server may let go of what came before this message
        msg.cursor.send_feedback(flush_lsn=msg.data_start)
        if not go_on:
            raise Stop()

    try:
        cur.consume_stream(consume)
    except Stop:
        pass
    finally:
        conn.close()
    return token


if __name__ == "__main__":
    stream(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
           lambda event: print(json.dumps(event), flush=True))
