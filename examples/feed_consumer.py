"""Follow a collection's changes, resuming after the last token kept.

    python3 feed_consumer.py CONNINFO SLOT COLLECTION STATE_FILE

prints each new event as a line of JSON and exits when there is none;
run it again (or in a loop) and it goes on after the last event it kept.
"""
import json
import os
import sys

import psycopg


def follow(conninfo, slot, collection, state_file, handle):
    token = None
    if os.path.exists(state_file):
        with open(state_file) as f:
            token = f.read().strip() or None
    with psycopg.connect(conninfo, autocommit=True) as conn:
        while True:
            rows = conn.execute("SELECT token, event FROM argo_changes(%s, %s, %s, 1000)",
                                (slot, collection, token)).fetchall()
            if not rows:
                return token
            for token, event in rows:
                handle(event)
            # keep the token first, then let the slot forget what came before
            with open(state_file + ".tmp", "w") as f:
                f.write(token)
            os.replace(state_file + ".tmp", state_file)
            conn.execute("SELECT argo_changes_ack(%s, %s)", (slot, token))


if __name__ == "__main__":
    follow(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
           lambda event: print(json.dumps(event), flush=True))
