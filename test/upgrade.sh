#!/usr/bin/env bash
# Upgrade from each release: build and install it from git history, make
# collections of both formats with it, install this version, run ALTER
# EXTENSION argo UPDATE and compare every object.  Runs inside the
# suite's throwaway cluster (PG* set by pg_virtualenv); this version is
# installed again on the way out, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
# release -> the commit of main when it was the released version
RELEASES=(
	"0.1 e1ac65fb680e8c58cec037a01a7cb3b82e30dd2c"
	"0.2 cf8d0e7c0cae5c7661b3809b12e88fc47bdb1eaa"
	"0.3 04c6aecfe8f9f75566789dd0e3f4a0c5d91e2939"
	"0.4 4470041214582f05d032089436ecd2fa93761237"
	"0.5 f839fc2158cd0ef292921c32dd142372f3db1706"
	"0.6 d4aec58fff5ff72591dde7ae84de6079028b69b9"
	"0.7 417defbd0ef89d2e6ece689469bd4c0a6c3e6636"
	"0.8 b0085c42f5411ad628372dc2371b24fe4d80e31e"
	"0.9 81d0b5aa7f02883fda08e19d9d75b3aa98283616"
	"0.10 e0e3069f48f6d0f4b46a546f8211c0830b9ecece"
)
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
SUDO=${SUDO:-}
DB=argo_upgrade

# the clone may belong to another user than the one running the suite
GIT=(git -c safe.directory="$PWD")
old=$(mktemp -d)
reinstall() {
	$SUDO make -s install PG_CONFIG=$PG_CONFIG >/dev/null
	rm -rf "$old"
}
trap reinstall EXIT
passed=0
failed=0
# What the extension is made of, as SQL sees it: every function's
# signature, settings (in any order) and comment, and every view's
# definition.  An upgraded database must have exactly what a fresh
# install has.
SIGNATURE="SELECT CASE WHEN d.classid = 'pg_proc'::regclass THEN
    (SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' ||
            pg_get_function_result(p.oid) || ' ' || p.provolatile::text || p.proparallel::text ||
            p.proisstrict::text || p.prosecdef::text || ' ' || coalesce((SELECT string_agg(c, ',' ORDER BY c) FROM unnest(p.proconfig) c), '') ||
            ' -- ' || coalesce(obj_description(p.oid, 'pg_proc'), '')
       FROM pg_proc p WHERE p.oid = d.objid)
  ELSE (SELECT 'view ' || c.relname || ': ' || pg_get_viewdef(c.oid) FROM pg_class c WHERE c.oid = d.objid)
  END AS object
  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'argo'
 WHERE d.deptype = 'e' AND (d.classid = 'pg_proc'::regclass OR
       (d.classid = 'pg_class'::regclass AND (SELECT relkind FROM pg_class WHERE oid = d.objid) = 'v'))
 ORDER BY 1"
psql -X -q -c "DROP DATABASE IF EXISTS argo_fresh" -c "CREATE DATABASE argo_fresh"
psql -X -q -d argo_fresh -c "CREATE EXTENSION argo"
fresh=$(psql -X -A -t -d argo_fresh -c "$SIGNATURE")
psql -X -q -c "DROP DATABASE argo_fresh"
for r in "${RELEASES[@]}"; do
	read -r version commit <<<"$r"
	if ! "${GIT[@]}" cat-file -e "$commit^{commit}" 2>/dev/null; then
		echo "upgrade from $version: release commit $commit not in this clone's history"
		failed=$((failed + 1))
		continue
	fi
	rm -rf "$old" && mkdir -p "$old"
	"${GIT[@]}" archive "$commit" | tar -x -C "$old"
	if ! make -s -C "$old" PG_CONFIG=$PG_CONFIG >/dev/null 2>&1; then
		echo "upgrade from $version: the release does not build"
		failed=$((failed + 1))
		continue
	fi
	$SUDO make -s -C "$old" install PG_CONFIG=$PG_CONFIG >/dev/null
	psql -X -q -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS argo_up_reader" -c "DROP ROLE IF EXISTS argo_up_writer" -c "CREATE DATABASE $DB"
	psql -X -q -d $DB -f test/upgrade/before.sql
	$SUDO make -s install PG_CONFIG=$PG_CONFIG >/dev/null
	psql -X -q -d $DB -f test/upgrade/after.sql
	upgraded=$(psql -X -A -t -d $DB -c "$SIGNATURE")
	psql -X -q -c "DROP DATABASE $DB" -c "DROP ROLE argo_up_reader" -c "DROP ROLE argo_up_writer"
	if [ "$upgraded" != "$fresh" ]; then
		echo "upgrade from $version: the updated extension differs from a fresh install:"
		diff <(echo "$fresh") <(echo "$upgraded") || true
		failed=$((failed + 1))
		continue
	fi
	echo "upgrade from $version: ok"
	passed=$((passed + 1))
done
echo "upgrade: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
