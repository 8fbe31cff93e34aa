package argo.example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Argo from Java with pgjdbc: create, read, update and delete documents,
 * every value passed as a parameter.
 *
 * <p>argo_query's parameters are jsonb. A value goes as its JSON text
 * (Jackson writes it) with {@code ?::jsonb}: {@code setString} alone binds
 * a varchar, and {@code setInt} an integer, for which PostgreSQL finds no
 * argo_query (42883); and the JSON text keeps the string "6" apart from
 * the number 6.
 */
public final class App {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Connection conn;

    App(Connection conn) {
        this.conn = conn;
    }

    /** The statement's results, one JSON tree per document. */
    List<JsonNode> query(String statement, Object... params) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT * FROM argo_query(?");
        for (int i = 0; i < params.length; i++) {
            sql.append(", ?::jsonb");
        }
        sql.append(')');
        try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
            ps.setString(1, statement);
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 2, toJson(params[i]));
            }
            List<JsonNode> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(JSON.readTree(rs.getString(1)));
                }
            }
            return out;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    public static void main(String[] args) throws SQLException {
        String env = System.getenv().getOrDefault("PGHOST", "localhost");
        String host = env.startsWith("/") ? "localhost" : env;
        String url = "jdbc:postgresql://" + host + ":" + System.getenv().getOrDefault("PGPORT", "5432")
                + "/" + System.getenv().getOrDefault("PGDATABASE", "postgres");
        Properties props = new Properties();
        props.setProperty("user", System.getenv().getOrDefault("PGUSER", System.getProperty("user.name")));
        if (System.getenv("PGPASSWORD") != null) {
            props.setProperty("password", System.getenv("PGPASSWORD"));
        }
        try (Connection conn = DriverManager.getConnection(url, props)) {
            App users = new App(conn);
            try (var st = conn.createStatement()) {
                st.execute("CREATE EXTENSION IF NOT EXISTS argo");
                st.execute("SELECT argo_drop_collection('java_users', true)");
            }

            // create
            JsonNode ids = users.query("INSERT INTO java_users OBJECT $1, $2 RETURNING ID",
                    Map.of("name", "Ada", "email", "ada@example.com", "tags", List.of("admin")),
                    Map.of("name", "Bob", "email", "bob@example.com", "logins", 0, "zip", "06510"))
                    .get(0).get("ids");
            long ada = ids.get(0).asLong();
            long bob = ids.get(1).asLong();

            // read by id, and by any key; user input is a parameter, never SQL
            check(users.query("SELECT * FROM java_users WHERE ID() = $1", ada).get(0).get("name").asText().equals("Ada"),
                    "read by id");
            check(users.query("SELECT * FROM java_users WHERE name = $1", "Bob' OR 1 = 1 --").isEmpty(),
                    "a hostile string is only a string");
            check(users.query("SELECT name FROM java_users WHERE zip = $1", "06510").size() == 1
                    && users.query("SELECT name FROM java_users WHERE zip = $1", 6510).isEmpty(),
                    "a string that looks like a number stays a string");

            // update in place
            users.query("UPDATE java_users SET logins += 1, tags ADD $1 WHERE ID() = $2", "beta", bob);
            JsonNode b = users.query("SELECT logins, tags FROM java_users WHERE ID() = $1", bob).get(0);
            check(b.get("logins").asInt() == 1 && b.get("tags").get(0).asText().equals("beta"), "update");

            // upsert: one object per (kind, day), counted
            for (int i = 0; i < 3; i++) {
                users.query("UPSERT java_users SET hits += 1 WHERE kind = $1 AND day = $2", "visit", "2026-11-23");
            }
            check(users.query("SELECT hits FROM java_users WHERE kind = $1", "visit").get(0).get("hits").asInt() == 3,
                    "upsert");

            // a list parameter: a JSON array
            check(users.query("SELECT name FROM java_users WHERE ID() IN $1", List.of(ada, bob)).size() == 2,
                    "list parameter");

            // delete
            check(users.query("DELETE FROM java_users WHERE ID() = $1", ada).get(0).get("deleted").asInt() == 1,
                    "delete");
            try (var st = conn.createStatement()) {
                st.execute("SELECT argo_drop_collection('java_users')");
            }
            System.out.println("java example: ok");
        }
    }
}
