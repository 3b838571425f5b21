use std::collections::{BTreeMap, BTreeSet};

use super::secrets::{is_masked, masked, names_destination, restore, MASKED};
use super::topics::targets;
use super::*;

fn config(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn a_sink_uses_its_named_topics_and_a_pattern_makes_them_unknowable() {
    let sink = config(&[("topics", "orders, payments,,orders")]);
    assert_eq!(topics_of("sink", &sink, &[]), Some(vec!["orders".into(), "payments".into()]));
    let pattern = config(&[("topics.regex", "orders-.*")]);
    assert_eq!(topics_of("sink", &pattern, &["orders-1".into()]), None);
    assert_eq!(targets("sink", &pattern), None);
}

#[test]
fn a_source_is_known_by_its_topic_or_by_what_connect_saw_it_write() {
    let file = config(&[("topic", "lines")]);
    assert_eq!(topics_of("source", &file, &[]), Some(vec!["lines".into()]));
    // A plugin that picks its own topics: unknowable until Connect has seen some.
    let jdbc = config(&[("topic.prefix", "db-")]);
    assert_eq!(topics_of("source", &jdbc, &[]), None);
    assert_eq!(topics_of("source", &jdbc, &["db-users".into()]), Some(vec!["db-users".into()]));
    // A renaming transform: the named topic is not where records go.
    let renamed = config(&[("topic", "lines"), ("transforms", "route")]);
    assert_eq!(targets("source", &renamed), None);
    assert_eq!(
        topics_of("source", &renamed, &["routed".into()]),
        Some(vec!["lines".into(), "routed".into()])
    );
}

#[test]
fn secrets_are_masked_by_plugin_type_by_name_and_in_uris_but_references_show() {
    let declared: BTreeSet<String> = ["db.pass".to_string()].into();
    // key | value | masked
    let cases = "
        db.pass | hunter2 | yes
        connection.password | hunter2 | yes
        aws.secret.access.key | abc | yes
        ssl.truststore.password | changeit | yes
        producer.override.ssl.key | -----BEGIN | yes
        producer.override.sasl.jaas.config | x required password=\"p\"; | yes
        basic.auth.user.info | u:p | yes
        connection.uri | mongodb://klens:hunter2@db:27017/x | yes
        connection.uri | mongodb://db:27017/x | no
        connection.url | jdbc:mysql://db:3306/x?user=u&password=p | yes
        connection.url | jdbc:sqlserver://db:1433;databaseName=x;user=sa;password=p | yes
        connection.url | jdbc:postgresql://db:5432/x?user=u&PASSWORD=p | yes
        connection.url | jdbc:oracle:thin:scott/tiger@//db:1521/svc | yes
        connection.url | jdbc:oracle:thin:@//db:1521/svc | no
        connection.url | jdbc:postgresql://db:5432/x?ssl=true&user=u | no
        http.api.url | https://api.example/v1/x?token=abc | yes
        http.api.url | https://api.example/v1/x?api_key=abc&q=1 | yes
        http.api.url | https://u:p@api.example/v1/x | yes
        http.api.url | https://api.example/v1/x?page=1 | no
        connection.password | ${file:/etc/klens/secrets.properties:db} | no
        topics | orders | no
        key.converter | org.apache.kafka.connect.json.JsonConverter | no";
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let [key, value, hidden] =
            <[&str; 3]>::try_from(line.split('|').map(str::trim).collect::<Vec<_>>())
                .expect("three columns");
        assert_eq!(is_masked(key, value, &declared), hidden == "yes", "{key}={value}");
    }
    let shown = masked(&config(&[("connection.password", "hunter2"), ("topics", "t")]), &declared);
    assert_eq!(
        shown,
        [("connection.password".into(), MASKED.into(), true), ("topics".into(), "t".into(), false)]
    );
}

#[test]
fn an_edit_that_sends_the_mask_back_keeps_the_stored_secret() {
    let none = BTreeSet::new();
    let stored = config(&[("connection.password", "hunter2"), ("topics", "a")]);
    let edited = config(&[("connection.password", MASKED), ("topics", "a,b")]);
    let merged = restore(edited, &stored, &none).expect("restored");
    assert_eq!(merged, config(&[("connection.password", "hunter2"), ("topics", "a,b")]));
    // The mask on a key that holds no secret would store the mask itself.
    let wrong = config(&[("topics", MASKED)]);
    assert_eq!(restore(wrong, &stored, &none).map_err(|n| n.key), Err("topics".to_string()));
}

#[test]
fn a_stored_secret_never_follows_a_new_class_or_destination() {
    let none = BTreeSet::new();
    let stored = config(&[
        ("connector.class", "io.example.JdbcSink"),
        ("connection.url", "jdbc:postgresql://db:5432/x"),
        ("connection.password", "hunter2"),
        ("topics", "a"),
    ]);
    let with = |changes: &[(&str, &str)]| {
        let mut edited = stored.clone();
        edited.insert("connection.password".into(), MASKED.into());
        for (k, v) in changes {
            edited.insert(k.to_string(), v.to_string());
        }
        edited
    };
    // The rest may change under a kept secret.
    assert!(restore(with(&[("topics", "a,b"), ("tasks.max", "3")]), &stored, &none).is_ok());
    for moved in [
        with(&[("connection.url", "jdbc:postgresql://elsewhere:5432/x")]),
        with(&[("connector.class", "io.example.OtherSink")]),
        with(&[("connection.host", "elsewhere")]),
        with(&[("connection.user", "someone-else")]),
        with(&[("value.converter.schema.registry.url", "http://evil:8081")]),
    ] {
        let refused = restore(moved.clone(), &stored, &none).expect_err("the secret stays behind");
        assert_eq!(refused.key, "connection.password", "{moved:?}");
    }
    // A key naming a destination taken away counts too.
    let mut removed = with(&[]);
    removed.remove("connection.url");
    assert!(restore(removed, &stored, &none).is_err());
    // With the secret given again, nothing is kept and everything may change.
    let mut given = with(&[("connection.url", "jdbc:postgresql://elsewhere:5432/x")]);
    given.insert("connection.password".into(), "new".into());
    assert_eq!(restore(given.clone(), &stored, &none), Ok(given));
}

#[test]
fn destination_keys_are_known_by_their_words() {
    for key in [
        "connection.url",
        "connection.uri",
        "mongodb.hosts",
        "http.api.url",
        "hostname",
        "schema.registry.url",
        "database.server.name",
        "s3.bucket.name",
        "aws.region",
        "connection.user",
        "bootstrap.servers",
        "file",
    ] {
        assert!(names_destination(key), "{key}");
    }
    for key in ["topics", "tasks.max", "batch.size", "connection.password", "transforms"] {
        assert!(!names_destination(key), "{key}");
    }
}

#[test]
fn the_first_cause_of_a_trace_is_its_first_caused_by_line() {
    let trace = "org.apache.kafka.connect.errors.ConnectException: Couldn't find or create file\n\tat x.y(Z.java:1)\nCaused by: java.nio.file.NoSuchFileException: /proc/forbidden/x\n\tat a.b\nCaused by: other";
    assert_eq!(first_cause(trace), "java.nio.file.NoSuchFileException: /proc/forbidden/x");
    assert_eq!(first_cause("just one line\nat"), "just one line");
}

#[test]
fn a_rebalance_is_a_409_or_a_500_that_says_so() {
    let answer = |status: u16, message: &str| RestError {
        refused: false,
        status: Some(status),
        message: message.to_string(),
    };
    assert!(rebalancing(&answer(409, "Cannot complete request momentarily due to rebalance")));
    let leader = "Connect: POST connectors: HTTP 500: Request cannot be completed because a \
                  rebalance is expected";
    assert!(rebalancing(&answer(500, leader)));
    assert!(!rebalancing(&answer(500, "Connect: GET connectors: HTTP 500: out of memory")));
    assert!(!rebalancing(&answer(400, "a rebalance word in a bad request")));
    assert!(!rebalancing(&RestError::new("connection refused".into())));
}
