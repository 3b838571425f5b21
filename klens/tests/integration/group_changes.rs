//! Consumer-group changes through `/api` against the real Kafka: a reset by a plan applied
//! exactly as shown (and refused once stale), deleting a group's offsets on a topic, deleting a
//! group. Each effect is read back by a consumer of the test's own, never by klens.

use std::time::Duration;

use axum::http::StatusCode;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Offset, TopicPartitionList};

use crate::support::*;

fn clusters() -> String {
    format!(
        "clusters:\n{}    writable: true\n{}  - name: weak\n    bootstrap_servers: {SCRAM_PORT}\n    writable: true\n    sasl:\n      mechanism: SCRAM-SHA-512\n      username: reporting\n      password: reporting-secret\n",
        scram_cluster("rw", "klens-secret"),
        scram_cluster("ro", "klens-secret"),
    )
}

/// The committed offset of `group` on each of `partitions` of `topic` (`None`: none), as
/// librdkafka's consumer reads it.
fn committed(group: &str, topic: &str, partitions: i32) -> Vec<Option<i64>> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", OPEN_PORT)
        .set("group.id", group)
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let mut list = TopicPartitionList::new();
    for p in 0..partitions {
        list.add_partition(topic, p);
    }
    let got = consumer.committed_offsets(list, Duration::from_secs(10)).expect("committed offsets");
    (0..partitions)
        .map(|p| match got.find_partition(topic, p).map(|e| e.offset()) {
            Some(Offset::Offset(n)) => Some(n),
            _ => None,
        })
        .collect()
}

/// Whether Kafka still lists `group`, as librdkafka's group listing reads it.
fn group_listed(group: &str) -> bool {
    let consumer: BaseConsumer =
        ClientConfig::new().set("bootstrap.servers", OPEN_PORT).create().expect("consumer");
    consumer
        .fetch_group_list(Some(group), Duration::from_secs(10))
        .expect("group list")
        .groups()
        .iter()
        .any(|g| g.name() == group && g.state() != "Dead")
}

/// The partitions of a plan as a client sends them back to apply it.
fn to_apply(plan: &serde_json::Value) -> Vec<serde_json::Value> {
    plan["partitions"]
        .as_array()
        .expect("partitions")
        .iter()
        .map(|m| serde_json::json!({ "topic": m["topic"], "partition": m["partition"], "from": m["from"], "to": m["to"] }))
        .collect()
}

fn code(status: StatusCode, body: &serde_json::Value) -> (u16, String) {
    (status.as_u16(), body["code"].as_str().unwrap_or("(none)").to_string())
}

#[tokio::test]
async fn a_reset_applies_its_plan_exactly_and_refuses_a_stale_one() {
    let topic = unique("it-reset");
    create_topic(&topic, 2).await;
    produce(&topic, &[(0, 10), (1, 10)]);
    let group = unique("it-reset-group");
    commit_offsets(&group, &topic, &[(0, 5), (1, 7)]);
    let (router, _) = router_and_catalog(&clusters()).await;
    let reset = |body: serde_json::Value| {
        let router = router.clone();
        async move { post(&router, "/api/reset_offsets", body).await }
    };

    // The plan: where each partition is and goes, and what is read again.
    let (status, plan) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "to": "earliest", "dry_run": true
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    assert_eq!((plan["applied"].as_bool(), plan["stale"].as_bool()), (Some(false), Some(false)));
    let moves: Vec<(i64, i64, i64, u64)> = plan["partitions"]
        .as_array()
        .expect("partitions")
        .iter()
        .map(|m| {
            (
                m["partition"].as_i64().unwrap_or(-1),
                m["from"].as_i64().unwrap_or(-1),
                m["to"].as_i64().unwrap_or(-1),
                m["reread"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(moves, [(0, 5, 0, 5), (1, 7, 0, 7)]);
    assert_eq!(plan["reread"], 12);
    assert_eq!(committed(&group, &topic, 2), [Some(5), Some(7)], "a dry run moves nothing");

    // Applying needs the plan itself.
    let (status, body) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "to": "earliest"
    }))
    .await;
    assert_eq!(code(status, &body), (400, "BAD_REQUEST".into()));
    assert_eq!(body["field"], "plan");

    // A commit since the plan makes it stale: nothing changes, and the new plan comes back.
    let sent = to_apply(&plan);
    commit_offsets(&group, &topic, &[(0, 6)]);
    let (status, stale) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "to": "earliest", "plan": sent
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{stale}");
    assert_eq!((stale["applied"].as_bool(), stale["stale"].as_bool()), (Some(false), Some(true)));
    assert_eq!(stale["partitions"][0]["from"], 6);
    assert_eq!(committed(&group, &topic, 2), [Some(6), Some(7)]);

    // The fresh plan applies, exactly.
    let fresh = to_apply(&stale);
    let (status, done) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "to": "earliest", "plan": fresh
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["applied"], true);
    assert_eq!(committed(&group, &topic, 2), [Some(0), Some(0)]);

    // One partition, shifted forward by three.
    let (status, shift) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "topic": topic, "partitions": [1],
        "to": "shift", "value": 3, "dry_run": true
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{shift}");
    let only = shift["partitions"].as_array().expect("partitions");
    assert_eq!(only.len(), 1, "{shift}");
    assert_eq!((only[0]["partition"].as_i64(), only[0]["to"].as_i64()), (Some(1), Some(3)));
    assert_eq!(only[0]["skipped"], 3);
    let apply: Vec<serde_json::Value> = only
        .iter()
        .map(|m| serde_json::json!({ "topic": m["topic"], "partition": m["partition"], "from": m["from"], "to": m["to"] }))
        .collect();
    let (status, body) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "topic": topic, "partitions": [1],
        "to": "shift", "value": 3, "plan": apply
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(committed(&group, &topic, 2), [Some(0), Some(3)]);

    // A plan sent back that moves an offset past the end of its partition is refused.
    let mut beyond = to_apply(&shift);
    beyond[0]["from"] = serde_json::json!(3);
    beyond[0]["to"] = serde_json::json!(1_000);
    let (status, body) = reset(serde_json::json!({
        "cluster": "rw", "group": group, "topic": topic, "partitions": [1],
        "to": "shift", "value": 3, "plan": beyond
    }))
    .await;
    assert_eq!(code(status, &body), (400, "BAD_REQUEST".into()), "{body}");
    assert_eq!(body["field"], "plan");

    // The contract's refusals.
    for (body, want) in [
        (
            serde_json::json!({ "cluster": "ro", "group": group, "to": "latest", "dry_run": true }),
            (403, "READ_ONLY_CLUSTER"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "group": unique("it-none"), "to": "latest", "dry_run": true }),
            (404, "NOT_FOUND"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "group": group, "to": "sideways", "dry_run": true }),
            (400, "BAD_REQUEST"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "group": group, "to": "offset", "dry_run": true }),
            (400, "BAD_REQUEST"),
        ),
        (
            serde_json::json!({ "cluster": "rw", "group": group, "partitions": [0], "to": "latest", "dry_run": true }),
            (400, "BAD_REQUEST"),
        ),
    ] {
        let (status, answer) = reset(body.clone()).await;
        assert_eq!(code(status, &answer), (want.0, want.1.to_string()), "{body}: {answer}");
    }
    assert_eq!(committed(&group, &topic, 2), [Some(0), Some(3)]);
}

#[tokio::test]
async fn a_group_with_members_is_refused_naming_them_and_an_empty_kip_848_group_resets() {
    let topic = unique("it-reset-busy");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 4)]);
    let busy = unique("it-busy");
    let client = unique("it-client");
    let member = join_group(&busy, &topic, &client, "classic");
    let modern = unique("it-modern");
    let left = join_group(&modern, &topic, &unique("it-modern-client"), "consumer");
    left.unsubscribe();
    drop(left);
    let (router, catalog) = router_and_catalog(&clusters()).await;
    let entry = catalog.get("rw").expect("configured");
    // The KIP-848 group shows up empty once its member has left.
    for _ in 0..40 {
        entry.refresh_groups().await;
        if entry.group(&modern).is_some_and(|g| g.members.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    let (status, body) = post(
        &router,
        "/api/reset_offsets",
        serde_json::json!({ "cluster": "rw", "group": busy, "to": "earliest", "topic": topic, "dry_run": true }),
    )
    .await;
    assert_eq!(code(status, &body), (409, "ADMIN".into()), "{body}");
    assert!(body["message"].as_str().is_some_and(|m| m.contains(&client)), "{body}");
    let (status, body) =
        post(&router, "/api/delete_group", serde_json::json!({ "cluster": "rw", "group": busy }))
            .await;
    assert_eq!(code(status, &body), (409, "ADMIN".into()), "{body}");
    assert!(group_listed(&busy));
    drop(member);

    let (status, plan) = post(
        &router,
        "/api/reset_offsets",
        serde_json::json!({ "cluster": "rw", "group": modern, "to": "offset", "value": 2, "topic": topic, "dry_run": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    let sent = to_apply(&plan);
    let (status, done) = post(
        &router,
        "/api/reset_offsets",
        serde_json::json!({ "cluster": "rw", "group": modern, "to": "offset", "value": 2, "topic": topic, "plan": sent }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["applied"], true, "{done}");
    assert_eq!(committed(&modern, &topic, 1), [Some(2)]);
}

#[tokio::test]
async fn offsets_on_a_topic_and_then_the_group_are_deleted() {
    let topic = unique("it-del-offsets");
    let other = unique("it-del-other");
    create_topic(&topic, 2).await;
    create_topic(&other, 1).await;
    produce(&topic, &[(0, 3), (1, 3)]);
    produce(&other, &[(0, 3)]);
    let group = unique("it-del-group");
    commit_offsets(&group, &topic, &[(0, 1), (1, 2)]);
    commit_offsets(&group, &other, &[(0, 3)]);
    // A group `reporting` may read but not delete, on a topic it may read.
    let guarded = unique("reporting-it");
    let readable = unique("click-it-del");
    create_topic(&readable, 1).await;
    produce(&readable, &[(0, 2)]);
    commit_offsets(&guarded, &readable, &[(0, 1)]);
    let (router, _) = router_and_catalog(&clusters()).await;

    let (status, body) = post(
        &router,
        "/api/delete_offsets",
        serde_json::json!({ "cluster": "rw", "group": group, "topic": topic }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["partitions"], serde_json::json!([0, 1]));
    assert_eq!(committed(&group, &topic, 2), [None, None]);
    assert_eq!(committed(&group, &other, 1), [Some(3)], "the other topic keeps its offsets");
    let (status, body) = post(
        &router,
        "/api/delete_offsets",
        serde_json::json!({ "cluster": "rw", "group": group, "topic": topic }),
    )
    .await;
    assert_eq!(code(status, &body), (404, "NOT_FOUND".into()), "{body}");

    let (status, body) =
        post(&router, "/api/delete_group", serde_json::json!({ "cluster": "ro", "group": group }))
            .await;
    assert_eq!(code(status, &body), (403, "READ_ONLY_CLUSTER".into()));
    let (status, body) =
        post(&router, "/api/delete_group", serde_json::json!({ "cluster": "rw", "group": group }))
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(!group_listed(&group), "Kafka no longer lists the group");
    let (_, groups) = get_raw(&router, &format!("/api/group?cluster=rw&group={group}")).await;
    let groups: serde_json::Value = serde_json::from_slice(&groups).expect("JSON");
    assert_eq!(groups["code"], "NOT_FOUND", "the catalog drops it at once");

    // klens's own Kafka user may not delete this group: Kafka refuses, klens says REFUSED.
    for (path, body) in [
        ("/api/delete_group", serde_json::json!({ "cluster": "weak", "group": guarded })),
        (
            "/api/delete_offsets",
            serde_json::json!({ "cluster": "weak", "group": guarded, "topic": readable }),
        ),
    ] {
        let (status, answer) = post(&router, path, body).await;
        assert_eq!(code(status, &answer), (403, "REFUSED".into()), "{path}: {answer}");
    }
    assert!(group_listed(&guarded));
    assert_eq!(committed(&guarded, &readable, 1), [Some(1)]);
}

/// Cluster `rw`, writable with a scoped catalog, and sign-in where erin's team holds the group
/// changes on the topics `covered` starts.
fn scoped_yaml(covered: &str) -> String {
    format!(
        "clusters:\n{}    writable: true\n    catalog: scoped\n{}",
        scram_cluster("rw", "klens-secret"),
        auth_block(&format!(
            "  roles:\n    groups: [records, reset_offsets, delete_offsets, delete_groups]\n  bindings:\n    - groups: [payments-team]\n      role: groups\n      resources:\n        topics: [\"{covered}*\"]\n"
        )),
    )
}

/// A topic the caller's scope hides answers a reset (and a deletion of offsets) exactly as a
/// topic that does not exist: same status, same code, same words, whatever partitions are
/// named, so nothing tells whether it exists or how many partitions it has.
#[tokio::test]
async fn a_topic_the_scope_hides_answers_a_reset_as_a_missing_one() {
    let covered = unique("it-cover");
    let topic = format!("{covered}-t");
    create_topic(&topic, 2).await;
    produce(&topic, &[(0, 3), (1, 3)]);
    let group = format!("{covered}-g");
    commit_offsets(&group, &topic, &[(0, 1), (1, 1)]);
    let hidden = unique("it-hidden");
    let missing = hidden.replace("it-hidden", "it-absent");
    create_topic(&hidden, 3).await;
    produce(&hidden, &[(0, 2)]);
    let (router, _) = router_and_catalog(&scoped_yaml(&covered)).await;
    let erin = sign_in(&router, "erin").await;

    // The group and its own topic are hers to reset.
    let (status, plan) = post_as(
        &router,
        &erin,
        "/api/reset_offsets",
        serde_json::json!({ "cluster": "rw", "group": group, "topic": topic, "to": "earliest", "dry_run": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{plan}");

    let asks = |name: &str| {
        vec![
            (
                "/api/reset_offsets",
                serde_json::json!({ "cluster": "rw", "group": group, "topic": name, "to": "earliest", "dry_run": true }),
            ),
            (
                "/api/reset_offsets",
                serde_json::json!({ "cluster": "rw", "group": group, "topic": name, "partitions": [2], "to": "earliest", "dry_run": true }),
            ),
            (
                "/api/reset_offsets",
                serde_json::json!({ "cluster": "rw", "group": group, "topic": name, "partitions": [7], "to": "latest", "dry_run": true }),
            ),
            (
                "/api/reset_offsets",
                serde_json::json!({ "cluster": "rw", "group": group, "topic": name, "partitions": [0], "to": "offset", "value": 1, "dry_run": false, "plan": [] }),
            ),
            (
                "/api/delete_offsets",
                serde_json::json!({ "cluster": "rw", "group": group, "topic": name }),
            ),
        ]
    };
    for ((path, about_hidden), (_, about_missing)) in asks(&hidden).into_iter().zip(asks(&missing))
    {
        let (hidden_status, hidden_answer) = post_as(&router, &erin, path, about_hidden).await;
        let (missing_status, missing_answer) = post_as(&router, &erin, path, about_missing).await;
        assert_ne!(hidden_status, StatusCode::OK, "{path}: {hidden_answer}");
        assert_eq!(
            (hidden_status, hidden_answer.to_string().replace(&hidden, &missing)),
            (missing_status, missing_answer.to_string()),
            "{path}: a hidden topic answers as a missing one"
        );
    }
}

/// A group erin's scope names by a pattern, which also commits on a topic her scoped catalog
/// hides: a reset of all its topics plans her topic only and never names the hidden one.
#[tokio::test]
async fn a_reset_of_every_topic_leaves_out_and_never_names_a_hidden_one() {
    let covered = unique("it-cover");
    let topic = format!("{covered}-t");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 3)]);
    let hidden = unique("it-hidden");
    create_topic(&hidden, 1).await;
    produce(&hidden, &[(0, 3)]);
    let group = format!("{covered}-g");
    commit_offsets(&group, &topic, &[(0, 1)]);
    commit_offsets(&group, &hidden, &[(0, 1)]);
    let yaml = scoped_yaml(&covered).replace(
        &format!("        topics: [\"{covered}*\"]\n"),
        &format!("        topics: [\"{covered}*\"]\n        groups: [\"{covered}*\"]\n"),
    );
    assert!(yaml.contains("groups: [\""), "{yaml}");
    let (router, _) = router_and_catalog(&yaml).await;
    let erin = sign_in(&router, "erin").await;
    let (status, plan) = post_as(
        &router,
        &erin,
        "/api/reset_offsets",
        serde_json::json!({ "cluster": "rw", "group": group, "to": "earliest", "dry_run": true }),
    )
    .await;
    assert!(!plan.to_string().contains(&hidden), "{plan}");
    assert_eq!(status, StatusCode::OK, "{plan}");
    let topics: Vec<&str> = plan["partitions"]
        .as_array()
        .expect("partitions")
        .iter()
        .filter_map(|p| p["topic"].as_str())
        .collect();
    assert_eq!(topics, [topic.as_str()], "{plan}");
    // Nor does the group's page name it, nor its lag count it.
    let (status, page) =
        get_as(&router, &erin, &format!("/api/group?cluster=rw&group={group}")).await;
    assert_eq!(status, StatusCode::OK);
    let page = String::from_utf8_lossy(&page).to_string();
    assert!(page.contains(&topic) && !page.contains(&hidden), "{page}");
}

/// A group erin's scope covered when klens last read it, which has since committed offsets on
/// a topic her scope does not cover: the decision is made again on the group as its coordinator
/// describes it now, and the group stays.
#[tokio::test]
async fn a_group_now_on_an_uncovered_topic_is_not_deleted() {
    let covered = unique("it-cover");
    let topic = format!("{covered}-t");
    create_topic(&topic, 1).await;
    produce(&topic, &[(0, 3)]);
    let group = format!("{covered}-g");
    commit_offsets(&group, &topic, &[(0, 1)]);
    let outside = unique("it-outside");
    create_topic(&outside, 1).await;
    produce(&outside, &[(0, 3)]);
    let (router, _) = router_and_catalog(&scoped_yaml(&covered)).await;
    let erin = sign_in(&router, "erin").await;
    let (status, _) = get_as(&router, &erin, &format!("/api/group?cluster=rw&group={group}")).await;
    assert_eq!(status, StatusCode::OK, "klens last read the group on her topic");

    // Since then, the group has committed on a topic outside her scope.
    commit_offsets(&group, &outside, &[(0, 2)]);
    for (path, body) in [
        ("/api/delete_group", serde_json::json!({ "cluster": "rw", "group": group })),
        (
            "/api/delete_offsets",
            serde_json::json!({ "cluster": "rw", "group": group, "topic": topic }),
        ),
        (
            "/api/reset_offsets",
            serde_json::json!({ "cluster": "rw", "group": group, "topic": topic, "to": "earliest", "dry_run": true }),
        ),
    ] {
        let (status, answer) = post_as(&router, &erin, path, body).await;
        assert_eq!(code(status, &answer), (403, "MISSING_PRIVILEGE".into()), "{path}: {answer}");
    }
    assert!(group_listed(&group), "Kafka still lists the group");
    assert_eq!(committed(&group, &topic, 1), [Some(1)]);
    assert_eq!(committed(&group, &outside, 1), [Some(2)]);
    // The catalog now shows her what the decision saw: a group she does not see.
    let (_, body) = get_as(&router, &erin, &format!("/api/group?cluster=rw&group={group}")).await;
    let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
    assert_eq!(body["code"], "NOT_FOUND", "{body}");
}
