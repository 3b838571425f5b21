use std::collections::{BTreeMap, BTreeSet};

use super::secrets::{is_masked, masked, restore, MASKED};
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
    assert_eq!(restore(wrong, &stored, &none), Err("topics".to_string()));
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
