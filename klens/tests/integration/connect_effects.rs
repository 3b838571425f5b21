//! What a connector config can reach beyond its topics, against the dev stack's real Connect
//! worker: erin, a scoped member of payments-team holding MANAGE_CONNECTORS, PRODUCE and
//! RECORDS on her team's topics only, tries each side door a config offers (the worker's files,
//! another team's topic as dead letters, a pattern, a renaming transform, the worker's secrets by
//! reference, client overrides, another application's group, a loose MirrorMaker). Each is
//! refused with the key at fault; Connect's own REST API shows no such connector, and the other
//! team's topic, the group and the worker's secrets file are as they were. An operator's
//! allow-list lets exactly the keys it names through; a stored secret never follows a changed
//! destination.

use std::time::Duration;

use serde_json::{json, Value};

use crate::connect::{connect_get, connect_status, discard_sink, DISCARD_SINK, LINES_SOURCE};
use crate::support::*;

/// The worker's secrets file: MirrorMaker's login to the remote Kafka (dev/stack).
fn secrets_file() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/dev-stack/connect/secrets.properties")
}

/// A cluster whose Connect cluster `dev` allows `allow` (YAML under `allow:`), with erin's
/// payments-team scoped to `covered*` with `privileges`, and a masking rule on
/// `<covered>-masked`.
fn yaml(covered: &str, allow: &str, privileges: &str) -> String {
    format!(
        "clusters:\n{}    writable: true\n    mirror:\n      properties:\n        bootstrap.servers: 127.0.0.1:19092\n    connect:\n      - name: dev\n        url: {CONNECT}\n        allow:\n{allow}        storage_topics: [_klens-dev-connect-configs, _klens-dev-connect-offsets, _klens-dev-connect-status]\nmasking:\n  - topics: [\"{covered}-masked\"]\n    fields: [card]\n    strategy: redact\n{}",
        scram_cluster("local", "klens-secret"),
        auth_block(&format!(
            "  roles:\n    team: [{privileges}]\n    admin: [records, produce, connectors, manage_connectors, reset_offsets]\n  bindings:\n    - groups: [payments-team]\n      role: team\n      resources:\n        topics: [\"{covered}*\"]\n    - groups: [kafka-admins]\n      role: admin\n"
        )),
    )
}

const TEAM: &str = "connectors, manage_connectors, produce, records";

/// Whether Connect has a connector of that name, by its own REST API.
async fn connect_has(name: &str) -> bool {
    connect_status(&format!("connectors/{name}")).await == 200
}

#[tokio::test]
async fn every_side_door_of_a_connector_config_is_refused_by_its_key() {
    let covered = unique("it-cfx");
    let (mine, theirs) = (format!("{covered}-t"), unique("it-cfxother"));
    create_topic(&mine, 1).await;
    create_topic(&theirs, 1).await;
    create_topic(&format!("{covered}-masked"), 1).await;
    // Another application's group, live on erin's own topic.
    let billing = unique("it-cfx-billing");
    let member = join_group(&billing, &mine, "billing-service", "classic");
    let allow =
        "          classes: [\"*\"]\n          overrides: [\"consumer.override.group.id\"]\n";
    let (router, catalog) = router_and_catalog(&yaml(&covered, allow, TEAM)).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let erin = sign_in(&router, "erin").await;
    let secrets = std::fs::read(secrets_file()).expect("the worker's secrets file");
    let theirs_before = watermarks(&theirs, 1);

    let source = |extra: Value| {
        let mut c = json!({"connector.class": LINES_SOURCE, "topic": mine});
        c.as_object_mut().expect("object").extend(extra.as_object().cloned().unwrap_or_default());
        c
    };
    let sink = |extra: Value| {
        let mut c = json!({"connector.class": DISCARD_SINK, "topics": mine});
        c.as_object_mut().expect("object").extend(extra.as_object().cloned().unwrap_or_default());
        c
    };
    let file = secrets_file().to_string_lossy().into_owned();
    let attempts: Vec<(&str, Value, u16, &str, Option<&str>)> = vec![
        // The worker's own files, read into her topic.
        (
            "file",
            json!({"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "file": file, "topic": mine}),
            400,
            "connector.class",
            None,
        ),
        (
            "alias",
            json!({"connector.class": "FileStreamSource", "file": "/etc/hostname", "topic": mine}),
            400,
            "connector.class",
            None,
        ),
        // Another team's topic as dead letters.
        (
            "dlq",
            sink(json!({"errors.tolerance": "all", "errors.deadletterqueue.topic.name": theirs})),
            403,
            "errors.deadletterqueue.topic.name",
            Some("PRODUCE"),
        ),
        // A pattern reaching past her scope, and a transform renaming her source's topic.
        (
            "regex",
            json!({"connector.class": DISCARD_SINK, "topics.regex": format!("{covered}.*|.*")}),
            403,
            "topics.regex",
            Some("RECORDS"),
        ),
        (
            "router",
            source(
                json!({"transforms": "r", "transforms.r.type": "org.apache.kafka.connect.transforms.RegexRouter", "transforms.r.regex": ".*", "transforms.r.replacement": theirs}),
            ),
            400,
            "transforms.r.type",
            None,
        ),
        // The worker's secrets by reference, and its Kafka login through an override.
        (
            "reference",
            sink(json!({"connection.password": format!("${{file:{file}:remote.jaas}}")})),
            400,
            "connection.password",
            None,
        ),
        (
            "jaas",
            sink(json!({"consumer.override.sasl.jaas.config": "x"})),
            400,
            "consumer.override.sasl.jaas.config",
            None,
        ),
        // Another application's group, even where the operator allows the override.
        (
            "group",
            sink(json!({"consumer.override.group.id": billing})),
            403,
            "consumer.override.group.id",
            Some("RESET_OFFSETS"),
        ),
        // A masked topic carried out unmasked.
        (
            "masked",
            json!({"connector.class": DISCARD_SINK, "topics": format!("{covered}-masked")}),
            403,
            "topics",
            Some("UNMASK"),
        ),
        // A loose MirrorMaker by its short name.
        (
            "mirror",
            json!({"connector.class": "MirrorSourceConnector", "topics": format!("{covered}-x|.*"), "source.cluster.alias": "a", "target.cluster.alias": "b"}),
            400,
            "connector.class",
            None,
        ),
    ];
    for (what, config, code, key, privilege) in attempts {
        let name = format!("{covered}-{what}");
        for dry_run in [true, false] {
            let body = json!({"cluster": "local", "connect": "dev", "name": name, "config": config, "dry_run": dry_run});
            let (status, answer) = post_as(&router, &erin, "/api/create_connector", body).await;
            assert_eq!(status.as_u16(), code, "{what}: {answer}");
            let message = answer["message"].as_str().unwrap_or_default();
            assert!(message.starts_with(&format!("{key}: ")), "{what}: {answer}");
            if let Some(privilege) = privilege {
                assert_eq!(answer["privilege"], privilege, "{what}: {answer}");
            }
        }
        assert!(!connect_has(&name).await, "{what}: Connect has {name}");
    }
    // What the refused configs aimed at is as it was, as other clients read it.
    assert_eq!(watermarks(&theirs, 1), theirs_before);
    assert_eq!(std::fs::read(secrets_file()).expect("secrets"), secrets);
    let admin = rdkafka_admin_group_members(&billing).await;
    assert_eq!(admin, vec!["billing-service".to_string()]);
    drop(member);
    delete_group_once_empty(&billing).await;
}

/// The client ids of `group`'s members, as Kafka's own tool describes them.
async fn rdkafka_admin_group_members(group: &str) -> Vec<String> {
    let out = kafka_tool(
        "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
        &["--bootstrap-server", "127.0.0.1:19092", "--describe", "--members", "--group", group],
    );
    out.lines()
        .skip_while(|l| !l.starts_with("GROUP"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(3).map(str::to_string))
        .collect()
}

/// Connect's own topics and klens's own are nobody's, even an unscoped admin's: a pattern that
/// takes one is refused, and so is reading one's records.
#[tokio::test]
async fn connects_own_topics_are_protected_even_from_an_admin() {
    let covered = unique("it-cfxp");
    let allow = "          classes: [\"dev.klens.connect.*\"]\n";
    let (router, catalog) = router_and_catalog(&yaml(&covered, allow, TEAM)).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let alice = sign_in(&router, "alice").await;
    let name = format!("{covered}-regex");
    // Connect's storage topics, which exist; MirrorMaker's offset syncs of this cluster, which
    // do not here (a replication out of it would make them).
    for pattern in ["_klens-dev-connect-.*", "mm2-offset-syncs\\..*\\.internal"] {
        let config = json!({"connector.class": DISCARD_SINK, "topics.regex": pattern});
        let body = json!({"cluster": "local", "connect": "dev", "name": name, "config": config, "dry_run": true});
        let (status, answer) = post_as(&router, &alice, "/api/create_connector", body).await;
        assert_eq!(status, 403, "{pattern}: {answer}");
        assert_eq!(answer["code"], "PROTECTED_TOPIC", "{pattern}: {answer}");
        let message = answer["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("topics.regex: "), "{answer}");
        assert!(!connect_has(&name).await);
    }
    let (status, raw) =
        get_as(&router, &alice, "/api/records?cluster=local&topic=_klens-dev-connect-configs")
            .await;
    assert_eq!(status, 403, "{}", String::from_utf8_lossy(&raw));
    let body: Value = serde_json::from_slice(&raw).expect("JSON");
    assert_eq!(body["code"], "PROTECTED_TOPIC");
}

/// The operator's allow-list lets a permitted override through and nothing else.
#[tokio::test]
async fn an_allowed_override_passes_and_nothing_else_does() {
    let covered = unique("it-cfxa");
    let mine = format!("{covered}-t");
    create_topic(&mine, 1).await;
    let allow = "          classes: [\"dev.klens.connect.*\"]\n          overrides: [consumer.override.max.poll.records]\n";
    let (router, catalog) = router_and_catalog(&yaml(&covered, allow, TEAM)).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let erin = sign_in(&router, "erin").await;
    let name = format!("{covered}-sink");
    let with = |key: &str| {
        let mut c = json!({"connector.class": DISCARD_SINK, "topics": mine});
        c[key] = json!("50");
        json!({"cluster": "local", "connect": "dev", "name": name, "config": c})
    };
    let (status, answer) =
        post_as(&router, &erin, "/api/create_connector", with("consumer.override.fetch.min.bytes"))
            .await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("consumer.override.fetch.min.bytes: ")));
    assert!(!connect_has(&name).await);
    let (status, answer) = post_as(
        &router,
        &erin,
        "/api/create_connector",
        with("consumer.override.max.poll.records"),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let stored = connect_get(&format!("connectors/{name}/config")).await;
    assert_eq!(stored["consumer.override.max.poll.records"], "50", "{stored}");
    crate::support::delete_connector(CONNECT, &name).await;
}

/// A masked secret sent back with a changed destination is refused and changes nothing; the
/// same edit with the secret given again is applied. Secrets inside connection strings are
/// masked too.
#[tokio::test]
async fn a_stored_secret_never_follows_a_changed_destination() {
    let covered = unique("it-cfxs");
    let mine = format!("{covered}-t");
    create_topic(&mine, 1).await;
    let allow = "          classes: [\"dev.klens.connect.*\"]\n";
    let (router, catalog) = router_and_catalog(&yaml(&covered, allow, TEAM)).await;
    catalog.get("local").expect("local").refresh_connect("dev").await;
    let alice = sign_in(&router, "alice").await;
    let name = format!("{covered}-sink");
    let body = |config: &Value| json!({"cluster": "local", "connect": "dev", "name": name, "config": config});
    let original = discard_sink(&mine);
    let (status, answer) = post_as(&router, &alice, "/api/create_connector", body(&original)).await;
    assert_eq!(status, 200, "{answer}");

    let mut moved = original.clone();
    moved["connection.password"] = json!("********");
    moved["connection.url"] = json!("jdbc:postgresql://elsewhere.example:5432/orders");
    let (status, answer) = post_as(&router, &alice, "/api/update_connector", body(&moved)).await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["message"].as_str().is_some_and(|m| m.starts_with("connection.password: ")),
        "{answer}"
    );
    let stored = connect_get(&format!("connectors/{name}/config")).await;
    assert_eq!(stored["connection.url"], original["connection.url"], "{stored}");

    moved["connection.password"] = json!("a-new-secret");
    let (status, answer) = post_as(&router, &alice, "/api/update_connector", body(&moved)).await;
    assert_eq!(status, 200, "{answer}");
    let stored = connect_get(&format!("connectors/{name}/config")).await;
    assert_eq!(stored["connection.url"], moved["connection.url"], "{stored}");
    assert_eq!(stored["connection.password"], "a-new-secret", "{stored}");

    // A password inside a JDBC URL is masked in the connector's page.
    let mut in_url = moved.clone();
    in_url["connection.password"] = json!("");
    in_url["connection.url"] =
        json!("jdbc:sqlserver://db.example:1433;user=sa;password=url-secret-42");
    let (status, answer) = post_as(&router, &alice, "/api/update_connector", body(&in_url)).await;
    assert_eq!(status, 200, "{answer}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, raw) =
        get_as(&router, &alice, &format!("/api/connector?cluster=local&connect=dev&name={name}"))
            .await;
    assert_eq!(status, 200);
    assert!(!String::from_utf8_lossy(&raw).contains("url-secret-42"));
    crate::support::delete_connector(CONNECT, &name).await;
}
