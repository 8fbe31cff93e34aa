#!/usr/bin/env bash
# Upgrade from the last release: build and install 0.1 from git history,
# make collections of both formats with it, install this version, run
# ALTER EXTENSION argo UPDATE and compare every object.  Runs inside the
# suite's throwaway cluster (PG* set by pg_virtualenv); this version is
# installed again on the way out, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
RELEASE_0_1=e1ac65fb680e8c58cec037a01a7cb3b82e30dd2c  # main when 0.1 was the released version
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
SUDO=${SUDO:-}
DB=argo_upgrade

# the clone may belong to another user than the one running the suite
GIT=(git -c safe.directory="$PWD")
if ! "${GIT[@]}" cat-file -e "$RELEASE_0_1^{commit}" 2>/dev/null; then
	echo "upgrade: 0 passed, 1 failed (release commit $RELEASE_0_1 not in this clone's history)"
	exit 1
fi
old=$(mktemp -d)
reinstall() {
	$SUDO make -s install PG_CONFIG=$PG_CONFIG >/dev/null
	rm -rf "$old"
}
trap reinstall EXIT
"${GIT[@]}" archive "$RELEASE_0_1" | tar -x -C "$old"
make -s -C "$old" PG_CONFIG=$PG_CONFIG >/dev/null 2>&1 || {
	echo "upgrade: 0 passed, 1 failed (the 0.1 release does not build)"
	exit 1
}
$SUDO make -s -C "$old" install PG_CONFIG=$PG_CONFIG >/dev/null
# the 0.1 release has no upgrade script of ours: only its own files
psql -X -q -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d $DB -f test/upgrade/before.sql
$SUDO make -s install PG_CONFIG=$PG_CONFIG >/dev/null
psql -X -q -d $DB -f test/upgrade/after.sql
psql -X -q -c "DROP DATABASE $DB" -c "DROP ROLE argo_up_reader"
echo "upgrade: 1 passed, 0 failed"
