//! The rest of the config: fuzzed text, the audit file, masking, metrics, and what the
//! config module may import.

use super::*;

/// Arbitrary text made of YAML's and the config's own pieces: the reader never panics, and
/// every refusal is one line that names the file.
#[test]
fn fuzz_config_text() {
    let pieces = [
        "clusters:",
        "\n",
        "  - ",
        "    ",
        "name: ",
        "a",
        "bootstrap_servers: ",
        "k:1",
        "${X}",
        "$${",
        "{",
        "}",
        "[",
        "]",
        ":",
        "\"",
        "'",
        "&a ",
        "*a",
        "!!str ",
        "# c",
        "auth:",
        "oidc:",
        " ",
        "\t",
        "writable: ",
        "true",
        "properties:",
        "mcp:",
        "- ",
        ",",
        "---",
        "é",
        "\u{0}",
        "roles:",
        "bindings:",
        "tls:",
        "sasl:",
        "mechanism: PLAIN",
        "listen: ",
        "0",
    ];
    let mut inputs = crate::fuzz::Inputs::new(0x5eed_0004, 40);
    for _ in 0..crate::fuzz::cases(20_000) {
        let text = inputs.text(&pieces);
        if let Err(e) = parse(&text, "fuzz.yaml", &|_| Some("v".into()), Path::new("/")) {
            let message = e.to_string();
            assert!(message.starts_with("fuzz.yaml"), "{text:?}: {message}");
            assert!(!message.contains('\n'), "{text:?}: {message}");
        }
    }
}

#[test]
fn reads_the_audit_file_and_refuses_one_klens_cannot_write_to() {
    let dir = std::env::temp_dir();
    let config = parse_in(concat!(base!(), "audit:\n  file: audit.ndjson\n"), &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        config.audit.and_then(|a| a.file),
        Some(dir.join("audit.ndjson")),
        "a relative path is taken from the config's folder"
    );
    assert!(parse_ok(base!()).audit.is_none());
    let both = parse_ok(concat!(
        base!(),
        "audit:\n  file: /tmp/audit.ndjson\n  topic: { cluster: prod, name: _klens_audit }\n  reads: true\n"
    ))
    .audit
    .expect("an audit block");
    assert_eq!(
        both.topic,
        Some(crate::config::AuditTopic { cluster: "prod".into(), name: "_klens_audit".into() })
    );
    assert!(both.reads && both.file.is_some());
    let topic_only =
        parse_ok(concat!(base!(), "audit:\n  topic: { cluster: prod, name: _klens_audit }\n"))
            .audit
            .expect("an audit block");
    assert!(topic_only.file.is_none() && !topic_only.reads, "reads are off unless asked");
    check_table(
        &[
            (
                concat!(base!(), "audit:\n  file: /no/such/folder/audit.ndjson\n"),
                "config.yaml:5:9: audit.file: the folder /no/such/folder does not exist; create \
                 it, or name a file in a folder that does",
            ),
            (
                concat!(base!(), "audit:\n  file: /tmp\n"),
                "config.yaml:5:9: audit.file: /tmp is a folder; name the file inside it",
            ),
            (
                concat!(base!(), "audit: {}\n"),
                "config.yaml:4:8: audit: names no sink; give file (such as \
                 /var/log/klens/audit.ndjson), topic (such as { cluster: ops, name: _klens_audit \
                 }), or both",
            ),
            (
                concat!(base!(), "audit:\n  file: a.ndjson\n  topics: x\n"),
                "config.yaml:6:3: audit.topics: unknown key \"topics\"; did you mean \
                 \"topic\"? allowed keys in audit: file, topic, reads, key",
            ),
            (
                concat!(base!(), "audit:\n  file: a.ndjson\n  key: short\n"),
                "config.yaml:6:8: audit.key: is shorter than 16 bytes; give a long random key \
                 (such as 32 bytes from a password generator), the same on every replica",
            ),
            (
                concat!(base!(), "audit:\n  topic: { cluster: prd, name: _klens_audit }\n"),
                "config.yaml:5:21: audit.topic.cluster: unknown cluster \"prd\"; did you mean \
                 \"prod\"? configured clusters: prod",
            ),
            (
                concat!(base!(), "audit:\n  topic: { cluster: prod, name: \"a b\" }\n"),
                "config.yaml:5:33: audit.topic.name: \"a b\" is not a topic name: A topic name \
                 may hold letters, digits, '.', '_' and '-', not ' '.",
            ),
            (
                concat!(base!(), "audit:\n  topic: { cluster: prod }\n"),
                "config.yaml:5:10: audit.topic.name: missing required key \"name\" in \
                 audit.topic; give the topic's name, such as _klens_audit",
            ),
            (
                concat!(base!(), "audit:\n  file: a.ndjson\n  reads: sometimes\n"),
                "config.yaml:6:10: audit.reads: expected true or false, found \"sometimes\"",
            ),
        ],
        Path::new("/"),
    );
}

#[test]
fn reads_masking_rules_and_refuses_each_mistake_at_its_key() {
    let config = parse_ok(concat!(
        base!(),
        "masking:\n",
        "  - topics: [\"payments-*\", ledger]\n",
        "    fields: [card.number, customer.email]\n",
        "    keys: true\n",
        "    strategy: hash\n",
        "  - topics: [audit-?]\n",
        "    fields: [ssn]\n",
        "    strategy: drop\n",
        "masking_key: a-key-of-32-bytes-for-the-tests!\n",
    ));
    assert_eq!(config.masking.len(), 2);
    let first = &config.masking[0];
    assert_eq!(first.topics, ["payments-*", "ledger"]);
    assert_eq!(first.fields, [vec!["card", "number"], vec!["customer", "email"]]);
    assert!(first.keys);
    assert_eq!(first.strategy, crate::config::MaskStrategy::Hash);
    assert!(!config.masking[1].keys, "keys are not masked unless asked");
    assert_eq!(config.masking[1].strategy, crate::config::MaskStrategy::Drop);
    assert_eq!(
        config.masking_key.as_ref().map(Secret::expose),
        Some("a-key-of-32-bytes-for-the-tests!")
    );
    assert!(!format!("{config:?}").contains("a-key-of-32-bytes"));
    assert!(parse_ok(base!()).masking.is_empty());

    let rule = |body: &str| format!("{}masking:\n  - topics: [\"pay-*\"]\n{body}", base!());
    check_table(
        &[
            (
                &rule("    fields: [card.number]\n    strategy: hash\n"),
                "config.yaml:7:15: masking[0].strategy: hash needs masking_key, the HMAC key (at \
                 least 16 bytes, the same on every replica); set it, such as masking_key: \
                 ${KLENS_MASKING_KEY}",
            ),
            (
                &rule("    fields: [card.number]\n    strategy: mask\n"),
                "config.yaml:7:15: masking[0].strategy: unknown strategy \"mask\"; expected \
                 redact, last4, hash or drop",
            ),
            (
                &rule("    fields: [card..number]\n    strategy: redact\n"),
                "config.yaml:6:14: masking[0].fields[0]: \"card..number\" is not a field path; \
                 name fields from the top of the value, joined by dots, such as card.number",
            ),
            (
                &rule("    fields: [card.number]\n    keys: yes\n    strategy: redact\n"),
                "config.yaml:7:11: masking[0].keys: expected true or false, found \"yes\"",
            ),
            (
                &format!(
                    "{}masking:\n  - topics: []\n    fields: [a]\n    strategy: redact\n",
                    base!()
                ),
                "config.yaml:5:13: masking[0].topics: is an empty list; list at least one topic \
                 pattern such as \"payments-*\"",
            ),
            (
                &format!("{}masking_key: ${{KLENS_MCP_SECRET}}\n", base!()),
                "config.yaml:4:14: masking_key: is shorter than 16 bytes; give a long random key \
                 (such as 32 bytes from a password generator), the same on every replica",
            ),
            (
                &rule("    fields: [a]\n    strategy: redact\n    field: [b]\n"),
                "config.yaml:8:5: masking[0].field: unknown key \"field\"; did you mean \
                 \"fields\"? allowed keys in masking[0]: topics, fields, keys, strategy",
            ),
        ],
        Path::new("/"),
    );
}

#[test]
fn reads_metrics_listen_and_refuses_a_port_in_use_by_another_listener() {
    let config = parse_ok(concat!(base!(), "metrics:\n  listen: 127.0.0.1:9464\n"));
    assert_eq!(config.metrics_listen, Some("127.0.0.1:9464".parse().expect("address")));
    assert!(parse_ok(base!()).metrics_listen.is_none());
    check_table(
        &[
            (
                concat!(base!(), "metrics:\n  listen: 0.0.0.0:8080\n"),
                "config.yaml:5:11: metrics.listen: collides with listen or mcp.listen on the \
                 same port; give /metrics its own port",
            ),
            (
                concat!(
                    base!(),
                    "mcp:\n  listen: 127.0.0.1:8090\n  privileges: []\n",
                    "metrics:\n  listen: 127.0.0.1:8090\n"
                ),
                "config.yaml:8:11: metrics.listen: collides with listen or mcp.listen on the \
                 same port; give /metrics its own port",
            ),
            (
                concat!(base!(), "metrics: {}\n"),
                "config.yaml:4:10: metrics.listen: missing required key \"listen\" in metrics; \
                 give /metrics its own address, such as 127.0.0.1:9464, or remove the block to \
                 serve it on the UI's port",
            ),
        ],
        Path::new("/"),
    );
}

/// The config is read before any client exists and imports none of the rooms that talk to
/// Kafka or the registry: what it checks of a name comes from `app` (a topic name through
/// `app::names::TopicName`).
#[test]
fn the_config_imports_no_client() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/config");
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).expect("src/config") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") || path.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        for room in ["crate::kafka", "crate::registry", "crate::service", "crate::http"] {
            assert!(!text.contains(room), "{} uses {room}", path.display());
        }
        read += 1;
    }
    assert!(read >= 4, "read {read} files of src/config");
}

/// A Connect cluster's allow-list and storage topics: safe defaults (nothing allowed, Connect's
/// usual topic names), globs kept as written, and an engine class refused by its position.
#[test]
fn a_connect_allow_list_defaults_to_nothing_and_never_takes_an_engine_class() {
    let plain = parse_ok(concat!(
        base!(),
        "    connect:\n      - name: c\n        url: http://127.0.0.1:8083\n"
    ));
    let connect = &plain.clusters[0].connect[0];
    assert_eq!(connect.allow, crate::config::ConnectAllow::default());
    assert_eq!(connect.storage_topics, ["connect-configs", "connect-offsets", "connect-status"]);
    let listed = parse_ok(concat!(
        base!(),
        "    connect:\n      - name: c\n        url: http://127.0.0.1:8083\n",
        "        allow:\n          classes: [\"io.confluent.connect.jdbc.*\"]\n",
        "          overrides: [consumer.override.max.poll.records]\n",
        "          references: [\"*.basic.auth.user.info\"]\n",
        "        storage_topics: [a-configs, a-offsets, a-status]\n",
    ));
    let connect = &listed.clusters[0].connect[0];
    assert_eq!(connect.allow.classes, ["io.confluent.connect.jdbc.*"]);
    assert_eq!(connect.allow.overrides, ["consumer.override.max.poll.records"]);
    assert_eq!(connect.allow.references, ["*.basic.auth.user.info"]);
    assert_eq!(connect.storage_topics, ["a-configs", "a-offsets", "a-status"]);
    let connect_head =
        concat!(base!(), "    connect:\n      - name: c\n        url: http://127.0.0.1:8083\n");
    let refused = |tail: &str, expected: &str| {
        expect_error(&format!("{connect_head}{tail}"), Path::new("/"), expected)
    };
    let failures: Vec<String> = [
        (
            "        allow:\n          classes: [FileStreamSource]\n",
            "config.yaml:8:21: clusters[0].connect[0].allow.classes[0]: FileStreamSource names a \
             FileStream connector, which reads and writes the Connect worker's own files; klens \
             never creates one as a loose connector, so it cannot be allowed: remove it",
        ),
        (
            "        allow:\n          overrides: [\"a b\"]\n",
            "config.yaml:8:23: clusters[0].connect[0].allow.overrides[0]: \"a b\" is not a key or \
             class name; give one without spaces, or a glob",
        ),
        (
            "        allow:\n          everything: true\n",
            "config.yaml:8:11: clusters[0].connect[0].allow.everything: unknown key \"everything\"; \
             allowed keys in clusters[0].connect[0].allow: classes, overrides, references",
        ),
        (
            "        storage_topics: [\"no/such\"]\n",
            "config.yaml:7:26: clusters[0].connect[0].storage_topics[0]: \"no/such\" is not a Kafka \
             topic name",
        ),
    ]
    .iter()
    .filter_map(|(tail, expected)| refused(tail, expected).err())
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
