#!/usr/bin/env bash
# On demand: the regression suite against a server running under valgrind.
#
#   bash test/valgrind.sh        (root or the cluster owner; after 'make install')
#
# Debian's PostgreSQL is not built with USE_VALGRIND, so palloc'd memory is
# not tracked chunk by chunk and the server itself reports some errors of
# its own; the run passes when no valgrind error has an Argo frame
# (argo.so) in its stack.  Takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=/usr/lib/postgresql/15/bin
DIR=$(mktemp -d /tmp/argo-valgrind.XXXX)
PORT=5499
chmod 755 "$DIR"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
command -v valgrind >/dev/null || { sudo apt-get install -y -qq valgrind || apt-get install -y -qq valgrind; }

as_pg "$BIN/initdb" -D "$DIR/data" -A trust -U postgres >/dev/null
as_pg valgrind --quiet --trace-children=yes --error-limit=no --num-callers=30 \
	--log-file="$DIR/vg.%p.log" \
	"$BIN/postgres" -D "$DIR/data" -p $PORT -k "$DIR" -c listen_addresses= \
	-c max_parallel_workers_per_gather=0 -c jit=off >"$DIR/server.log" 2>&1 &
for i in $(seq 1 120); do
	as_pg "$BIN/pg_isready" -h "$DIR" -p $PORT -q && break
	sleep 1
done
status=0
PGHOST=$DIR PGPORT=$PORT PGUSER=postgres make -s installcheck || status=$?
as_pg "$BIN/pg_ctl" -D "$DIR/data" stop -m fast >/dev/null || true
sleep 2

# valgrind error records: blank-line separated, starting with "==pid== <kind>"
# An Argo frame: our library by name, or one of our sources (we have symbols).
ARGO_FRAME="argo\\.so|[ (]($(ls src/*/*.[cly] | xargs -n1 basename | sed 's/\.[cly]$//' | paste -sd'|'))\\.[cly]:[0-9]"
argo_errors=$(cat "$DIR"/vg.*.log | awk -v re="$ARGO_FRAME" 'BEGIN { RS = "==[0-9]+== \n" } $0 ~ re { n++ } END { print n + 0 }')
all_errors=$(cat "$DIR"/vg.*.log | grep -c "^==[0-9]*== [A-Z]" || true)
echo "valgrind: $all_errors error record(s) in all, $argo_errors with an Argo frame; logs in $DIR"
if [ "$argo_errors" -ne 0 ] || [ $status -ne 0 ]; then
	cat "$DIR"/vg.*.log | awk -v re="$ARGO_FRAME" 'BEGIN { RS = "==[0-9]+== \n" } $0 ~ re' | head -100
	echo "valgrind: 0 passed, 1 failed"
	exit 1
fi
echo "valgrind: 1 passed, 0 failed"
