#!/usr/bin/env bash
# The client examples in examples/ (node-postgres, pgjdbc, pgx), each run
# against the suite's server where its toolchain is on the machine; a
# missing toolchain is a skip with a message, a failing example a failure.
# The examples fetch their drivers from npm, Maven Central and the Go
# module proxy.  Uses the PG* environment (pg_virtualenv sets it).
set -uo pipefail
cd "$(dirname "$0")/.."
status=0

example() {		# example NAME TOOL... -- COMMAND...
	local name=$1 tool
	shift
	while [ "$1" != "--" ]; do
		if ! command -v "$1" >/dev/null; then
			echo "$name example: skipped ($1 is not on this machine)"
			return
		fi
		shift
	done
	shift
	# a registry's hiccup is not the example's failure: once more after a pause
	if ! "$@" && ! { sleep 5; "$@"; }; then
		echo "$name example: FAILED"
		status=1
	fi
}

example node node npm -- bash -c 'cd examples/node && npm ci --no-audit --no-fund --silent >/dev/null && node app.js'
example java java mvn -- mvn -q -B -Dstyle.color=never -f examples/java/pom.xml compile exec:java
example go go -- bash -c 'cd examples/go && go run .'
exit $status
