// Argo from Go with pgx: create, read, update and delete documents, every
// value passed as a parameter.
//
//	PGDATABASE=mydb go run .
//
// argo_query's parameters are jsonb, and pgx encodes a Go value for a
// jsonb parameter itself: most values with encoding/json, but a Go string
// (or []byte) is taken to be JSON text already, so "Ada" is a syntax error
// (22P02) and "6" arrives as the number 6. Each value is therefore sent as
// its JSON encoding, a json.RawMessage.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/jackc/pgx/v5"
)

type doc = map[string]any

// query runs an Argo/SQL statement; its results, one document each.
func query(ctx context.Context, conn *pgx.Conn, statement string, params ...any) ([]doc, error) {
	args := []any{statement}
	holes := []string{"$1"}
	for i, p := range params {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		args = append(args, json.RawMessage(b))
		holes = append(holes, fmt.Sprintf("$%d", i+2))
	}
	rows, err := conn.Query(ctx, "SELECT * FROM argo_query("+strings.Join(holes, ", ")+")", args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (doc, error) {
		var d doc
		err := r.Scan(&d)
		return d, err
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		log.Fatal(err)
	}
	return v
}

func check(ok bool, what string) {
	if !ok {
		log.Fatalf("go example: %s is wrong", what)
	}
}

func main() {
	ctx := context.Background()
	conn := must(pgx.Connect(ctx, "")) // PGHOST, PGPORT, PGDATABASE, PGUSER from the environment
	defer conn.Close(ctx)
	must(conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS argo"))
	must(conn.Exec(ctx, "SELECT argo_drop_collection('go_users', true)"))

	// create
	res := must(query(ctx, conn, "INSERT INTO go_users OBJECT $1, $2 RETURNING ID",
		doc{"name": "Ada", "email": "ada@example.com", "tags": []string{"admin"}},
		doc{"name": "Bob", "email": "bob@example.com", "logins": 0, "zip": "06510"}))
	ids := res[0]["ids"].([]any)
	ada, bob := ids[0], ids[1]

	// read by id, and by any key; user input is a parameter, never SQL
	check(must(query(ctx, conn, "SELECT * FROM go_users WHERE ID() = $1", ada))[0]["name"] == "Ada", "read by id")
	check(len(must(query(ctx, conn, "SELECT * FROM go_users WHERE name = $1", "Bob' OR 1 = 1 --"))) == 0,
		"a hostile string")
	check(len(must(query(ctx, conn, "SELECT name FROM go_users WHERE zip = $1", "06510"))) == 1 &&
		len(must(query(ctx, conn, "SELECT name FROM go_users WHERE zip = $1", 6510))) == 0,
		"a string that looks like a number")

	// update in place
	must(query(ctx, conn, "UPDATE go_users SET logins += 1, tags ADD $1 WHERE ID() = $2", "beta", bob))
	b := must(query(ctx, conn, "SELECT logins, tags FROM go_users WHERE ID() = $1", bob))[0]
	check(b["logins"] == float64(1) && b["tags"].([]any)[0] == "beta", "update")

	// upsert: one object per (kind, day), counted
	for i := 0; i < 3; i++ {
		must(query(ctx, conn, "UPSERT go_users SET hits += 1 WHERE kind = $1 AND day = $2", "visit", "2026-11-23"))
	}
	check(must(query(ctx, conn, "SELECT hits FROM go_users WHERE kind = $1", "visit"))[0]["hits"] == float64(3), "upsert")

	// a list parameter: a JSON array
	check(len(must(query(ctx, conn, "SELECT name FROM go_users WHERE ID() IN $1", []any{ada, bob}))) == 2, "list parameter")

	// delete
	check(must(query(ctx, conn, "DELETE FROM go_users WHERE ID() = $1", ada))[0]["deleted"] == float64(1), "delete")
	must(conn.Exec(ctx, "SELECT argo_drop_collection('go_users')"))
	fmt.Println("go example: ok")
}
