//! The registry writes against the dev stack's registry, each effect checked through the
//! registry's own REST API rather than by klens reading itself back.

use reqwest::Method;
use serde_json::{json, Value};

use crate::support::*;

const V1: &str = r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"}]}"#;
/// Adds a field without a default: records written with V1 cannot be read with it.
const V2: &str = r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}"#;
/// Adds the field with a default: records written with V1 read with it.
const V3: &str = r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}]}"#;

/// A V1 datum framed as Confluent's serializer frames it: magic byte, schema id, then `a` as a
/// zig-zag varint.
fn framed_v1(id: u32, a: i32) -> Vec<u8> {
    let mut out = vec![0];
    out.extend_from_slice(&id.to_be_bytes());
    let mut n = ((a << 1) ^ (a >> 31)) as u32;
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
    out
}

fn registry_yaml() -> String {
    format!(
        "clusters:\n{}    writable: true\n    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n{}    writable: true\n",
        scram_cluster("local", "klens-secret"),
        scram_cluster("bare", "klens-secret"),
    )
}

#[tokio::test]
async fn a_proposed_version_is_judged_by_the_registry_and_by_the_topics_records() {
    let topic = unique("it-recheck");
    create_topic(&topic, 2).await;
    let subject = format!("{topic}-value");
    let first =
        registry(Method::POST, &format!("subjects/{subject}/versions"), json!({ "schema": V1 }))
            .await;
    let id = first["id"].as_u64().expect("id") as u32;
    // Six records written with V1 over both partitions, a plain text value and a tombstone.
    let mut values: Vec<(i32, Option<Vec<u8>>)> =
        (0..6).map(|i| (i % 2, Some(framed_v1(id, i)))).collect();
    values.push((0, Some(b"not framed".to_vec())));
    values.push((1, None));
    produce_values(&topic, &values);

    let (router, catalog) = router_and_catalog(&registry_yaml()).await;
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic_metadata(&topic).ok().flatten().is_some()).await;
    let propose = |schema: &str, dry_run: bool| json!({"cluster": "local", "subject": subject, "schema": schema, "dry_run": dry_run});

    // V2: the registry finds it incompatible under the global BACKWARD level, and no V1 record
    // reads with it.
    let (status, v2) = post(&router, "/api/register_schema", propose(V2, true)).await;
    assert_eq!(status.as_u16(), 200, "{v2}");
    assert_eq!(v2["compatible"], false, "{v2}");
    let records = &v2["records"];
    assert_eq!(
        (
            &records["topic"],
            &records["part"],
            &records["read"],
            &records["fit"],
            &records["failed"],
            &records["unchecked"]
        ),
        (&json!(topic), &json!("value"), &json!(8), &json!(0), &json!(6), &json!(2)),
        "{v2}"
    );
    let failure = records["first_failure"]["reason"].as_str().expect("reason");
    assert!(failure.contains(&format!("schema {id}")), "{failure}");

    // V3: compatible, and every V1 record reads with it.
    let (status, v3) = post(&router, "/api/register_schema", propose(V3, true)).await;
    assert_eq!(status.as_u16(), 200, "{v3}");
    assert_eq!(v3["compatible"], true, "{v3}");
    assert_eq!((&v3["records"]["fit"], &v3["records"]["failed"]), (&json!(6), &json!(0)), "{v3}");
    assert_eq!(v3["version"], Value::Null, "a dry run registers nothing");
    let (_, versions) = registry_status(Method::GET, &format!("subjects/{subject}/versions")).await;
    assert_eq!(versions, json!([1]), "the dry runs registered nothing");

    // The version already held is named.
    let (_, again) = post(&router, "/api/register_schema", propose(V1, true)).await;
    assert_eq!(again["existing"]["version"], 1, "{again}");

    // Registering V3 gives version 2, which the registry holds under that id.
    let (status, done) = post(&router, "/api/register_schema", propose(V3, false)).await;
    assert_eq!(status.as_u16(), 200, "{done}");
    assert_eq!(done["version"], 2, "{done}");
    let held = registry(Method::GET, &format!("subjects/{subject}/versions/2"), Value::Null).await;
    assert_eq!(held["id"], done["id"]);
    assert_eq!(held["schema"].as_str().map(|s| s.contains("\"default\"")), Some(true));

    // A type change against the subject's level: ADMIN 409 with the registry's message.
    let retyped = r#"{"type":"record","name":"P","fields":[{"name":"a","type":"string"}]}"#;
    let (status, refused) = post(&router, "/api/register_schema", propose(retyped, false)).await;
    assert_eq!((status.as_u16(), refused["code"].as_str()), (409, Some("ADMIN")), "{refused}");
    assert!(!refused["message"].as_str().unwrap_or_default().is_empty());

    // A schema that does not parse is refused before the registry sees it, with the place.
    let broken = r#"{"type":"record","name":"P","fields":[{"name":"a","type":"int"}"#;
    let (status, bad) = post(&router, "/api/register_schema", propose(broken, false)).await;
    assert_eq!(
        (status.as_u16(), bad["code"].as_str(), bad["field"].as_str()),
        (400, Some("BAD_REQUEST"), Some("schema")),
        "{bad}"
    );
    assert!(bad["message"].as_str().unwrap_or_default().contains("line"), "{bad}");
    let (status, bad) = post(
        &router,
        "/api/register_schema",
        json!({"cluster": "local", "subject": subject, "type": "PROTOBUF",
               "schema": "syntax = \"proto3\"; message M { int32 a = 1 "}),
    )
    .await;
    assert_eq!((status.as_u16(), bad["field"].as_str()), (400, Some("schema")), "{bad}");
    let (_, versions) = registry_status(Method::GET, &format!("subjects/{subject}/versions")).await;
    assert_eq!(versions, json!([1, 2]), "nothing refused was registered");

    // A new subject has nothing to be compatible with (Apicurio would say "compatible").
    let (status, new) = post(
        &router,
        "/api/register_schema",
        json!({"cluster": "local", "subject": unique("it-new-subject"), "schema": V1, "dry_run": true}),
    )
    .await;
    assert_eq!(
        (status.as_u16(), &new["compatible"], &new["records"]),
        (200, &Value::Null, &Value::Null),
        "{new}"
    );

    let (status, none) = post(
        &router,
        "/api/register_schema",
        json!({"cluster": "bare", "subject": subject, "schema": V1}),
    )
    .await;
    assert_eq!((status.as_u16(), none["code"].as_str()), (404, Some("NOT_CONFIGURED")));
}

/// The records check of a dry run reads the topic's records: REGISTER_SCHEMAS alone does not
/// reach them. A caller without RECORDS on the topic (here a ceiling holding it on other topics
/// only) gets no counts and no failure, and the answer says why; with RECORDS it gets them.
#[tokio::test]
async fn the_records_check_needs_records_on_the_topic() {
    let topic = unique("it-recheck-priv");
    create_topic(&topic, 1).await;
    let subject = format!("{topic}-value");
    let first =
        registry(Method::POST, &format!("subjects/{subject}/versions"), json!({ "schema": V1 }))
            .await;
    let id = first["id"].as_u64().expect("id") as u32;
    produce_values(&topic, &(0..3).map(|i| (0, Some(framed_v1(id, i)))).collect::<Vec<_>>());
    let check = |privileges: &'static str, extra: &'static str| {
        let subject = subject.clone();
        async move {
            let service = ceiling_service(&registry_ceiling_yaml(privileges, extra)).await;
            let args = serde_json::from_value(json!({"cluster": "local", "subject": subject,
                "schema": V2, "dry_run": true}))
            .expect("arguments");
            server::service::schemas::register_schema(
                &service,
                &server::auth::Caller::Mcp(None),
                args,
            )
            .await
            .expect("a dry run")
            .records
            .expect("a check")
        }
    };

    let skipped = [
        check("register_schemas", "").await,
        check(
            "register_schemas, records",
            "  resources:\n    topics: [\"it-elsewhere-*\"]\n    subjects: [\"it-recheck-priv-*\"]\n",
        )
        .await,
    ];
    for check in skipped {
        assert_eq!(
            (check.read, check.fit, check.failed, check.unchecked),
            (0, 0, 0, 0),
            "{check:?}"
        );
        assert!(check.first_failure.is_none() && check.first_unchecked.is_none());
        assert!(check.skipped.as_deref().is_some_and(|why| why.contains("RECORDS")), "{check:?}");
        assert_eq!(check.error, None);
    }

    let read = check("register_schemas, records", "").await;
    assert_eq!((read.read, read.failed), (3, 3), "{read:?}");
    assert_eq!(read.skipped, None);
}

/// A subject name becomes a path segment of the registry's URL. The URL library drops `..` (so
/// `config/..` is `config`, the registry's global level) and removes a tab between dots before
/// they climb; the registry decodes `%2e` and `%2F`. Each such name is refused as the argument
/// it is before any request, and the registry's global level, read from its own REST API, never
/// moves, whatever the write.
#[tokio::test]
async fn a_subject_name_that_is_path_syntax_never_reaches_the_registry() {
    let router = router(&registry_yaml()).await;
    let own = unique("it-path");
    let names = [
        ".".to_string(),
        "..".to_string(),
        ".\t.".to_string(),
        ".\n".to_string(),
        format!("{own}/.."),
        format!("{own}\\..\\.."),
        format!("{own}%2e%2e"),
        format!("{own}%2E"),
        format!("{own}%2F..%2F.."),
        format!("{own}%5c"),
        format!("{own}\u{0}"),
    ];
    let global = || async { registry_status(Method::GET, "config").await };
    let before = global().await;
    assert_eq!(before.0, 200, "{before:?}");
    for name in &names {
        let calls = [
            ("set_compatibility", json!({"compatibility": "NONE"})),
            ("set_compatibility", json!({"compatibility": "GLOBAL"})),
            ("delete_schema", json!({})),
            ("delete_schema", json!({"permanent": true})),
            ("delete_schema", json!({"version": 1})),
            ("register_schema", json!({"schema": V1, "dry_run": true})),
            ("register_schema", json!({"schema": V1})),
        ];
        for (call, mut body) in calls {
            body["cluster"] = json!("local");
            body["subject"] = json!(name);
            let (status, answer) = post(&router, &format!("/api/{call}"), body.clone()).await;
            assert_eq!(
                (status.as_u16(), answer["code"].as_str(), answer["field"].as_str()),
                (400, Some("BAD_REQUEST"), Some("subject")),
                "{call} {body}: {answer}"
            );
            assert_eq!(global().await, before, "{call} {body} moved the global level");
        }
        // A reference cannot name such a subject either.
        let (status, answer) = post(
            &router,
            "/api/register_schema",
            json!({"cluster": "local", "subject": format!("{own}-value"), "schema": V1,
                   "references": [{"name": "r", "subject": name, "version": 1}]}),
        )
        .await;
        assert_eq!(
            (status.as_u16(), answer["field"].as_str()),
            (400, Some("references/0")),
            "{answer}"
        );
    }
    let (_, subjects) = registry_status(Method::GET, "subjects").await;
    let held: Vec<&str> = subjects
        .as_array()
        .map(|all| all.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(!held.iter().any(|s| s.starts_with(&own)), "the registry holds {held:?}");
}

/// A reference reads the referenced subject's schema: without SCHEMA_TEXT on it, or with a
/// scope that does not cover it, a reference answers exactly as one to a subject the registry
/// lacks; with SCHEMA_TEXT on it the proposal is judged.
#[tokio::test]
async fn a_reference_needs_schema_text_on_its_subject() {
    let own = unique("it-refpriv");
    let referenced = format!("{own}-base");
    let missing = format!("{own}-missing");
    registry(Method::POST, &format!("subjects/{referenced}/versions"), json!({ "schema": V1 }))
        .await;
    let user = r#"{"type":"record","name":"U","fields":[{"name":"p","type":"P"}]}"#;
    let propose = |service: std::sync::Arc<server::service::Service>, to: String| {
        let own = own.clone();
        async move {
            let args = serde_json::from_value(json!({"cluster": "local",
                "subject": format!("{own}-user"), "schema": user, "dry_run": true,
                "references": [{"name": "P", "subject": to, "version": 1}]}))
            .expect("arguments");
            server::service::schemas::register_schema(
                &service,
                &server::auth::Caller::Mcp(None),
                args,
            )
            .await
        }
    };
    let refusing = [
        registry_ceiling_yaml("register_schemas", ""),
        registry_ceiling_yaml(
            "register_schemas, schema_text",
            &format!("  resources:\n    subjects: [\"{own}-user\"]\n"),
        ),
    ];
    for yaml in refusing {
        let service = ceiling_service(&yaml).await;
        let refused = propose(std::sync::Arc::clone(&service), referenced.clone())
            .await
            .expect_err("refused");
        let lacking = propose(service, missing.clone()).await.expect_err("not found");
        let same = |e: &app::ApiError| {
            (
                e.code,
                e.message.replace(&referenced, "S").replace(&missing, "S"),
                e.field.clone(),
                e.privilege,
            )
        };
        assert_eq!(same(&refused), same(&lacking), "{yaml}");
        assert_eq!(refused.code.as_str(), "NOT_FOUND", "{}", refused.message);
    }
    let service =
        ceiling_service(&registry_ceiling_yaml("register_schemas, schema_text", "")).await;
    let judged = propose(service, referenced.clone()).await.expect("judged");
    assert!(judged.dry_run && judged.existing.is_none(), "{judged:?}");
}

/// A reference of a reference reads a third subject's schema: SCHEMA_TEXT on the subject
/// proposed and on the one it references is not enough; without it on the third, the proposal
/// answers as one whose reference the registry lacks, and with it the proposal is judged.
#[tokio::test]
async fn a_reference_of_a_reference_needs_schema_text_on_each_subject() {
    let own = unique("it-refdeep");
    let (base, mid) = (format!("{own}-base"), format!("{own}-mid"));
    registry(Method::POST, &format!("subjects/{base}/versions"), json!({ "schema": V1 })).await;
    let middle = r#"{"type":"record","name":"M","fields":[{"name":"p","type":"P"}]}"#;
    registry(
        Method::POST,
        &format!("subjects/{mid}/versions"),
        json!({ "schema": middle, "references": [{"name": "P", "subject": base, "version": 1}] }),
    )
    .await;
    let user = r#"{"type":"record","name":"U","fields":[{"name":"m","type":"M"}]}"#;
    let propose = |subjects: String| {
        let (own, mid) = (own.clone(), mid.clone());
        async move {
            let yaml = registry_ceiling_yaml(
                "register_schemas, schema_text",
                &format!("  resources:\n    subjects: [{subjects}]\n"),
            );
            let args = serde_json::from_value(json!({"cluster": "local",
                "subject": format!("{own}-user"), "schema": user, "dry_run": true,
                "references": [{"name": "M", "subject": mid, "version": 1}]}))
            .expect("arguments");
            server::service::schemas::register_schema(
                &*ceiling_service(&yaml).await,
                &server::auth::Caller::Mcp(None),
                args,
            )
            .await
        }
    };
    let refused = propose(format!("\"{own}-user\", \"{mid}\"")).await.expect_err("refused");
    // As a reference of a reference the registry lacks: the references are wrong.
    assert_eq!(
        (refused.code.as_str(), refused.field.as_deref()),
        ("BAD_REQUEST", Some("references")),
        "{}",
        refused.message
    );
    assert!(refused.message.ends_with("which the registry lacks"), "{}", refused.message);
    let judged = propose(format!("\"{own}-*\"")).await.expect("judged");
    assert!(judged.dry_run && judged.existing.is_none(), "{judged:?}");
}

#[tokio::test]
async fn a_subjects_level_is_set_and_given_back_to_the_global_one() {
    let subject = unique("it-level");
    registry(Method::POST, &format!("subjects/{subject}/versions"), json!({ "schema": V1 })).await;
    let router = router(&registry_yaml()).await;
    let global = registry(Method::GET, "config", Value::Null).await["compatibilityLevel"].clone();
    let set = |level: &str, dry_run: bool| json!({"cluster": "local", "subject": subject, "compatibility": level, "dry_run": dry_run});

    let (status, preview) =
        post(&router, "/api/set_compatibility", set("FULL_TRANSITIVE", true)).await;
    assert_eq!(status.as_u16(), 200, "{preview}");
    assert_eq!(
        (&preview["before"], &preview["before_own"], &preview["after"], &preview["after_own"]),
        (&global, &json!(false), &json!("FULL_TRANSITIVE"), &json!(true)),
        "{preview}"
    );
    let (_, level) =
        registry_status(Method::GET, &format!("config/{subject}?defaultToGlobal=true")).await;
    assert_eq!(level["compatibilityLevel"], global, "the dry run changed nothing");

    let (status, done) =
        post(&router, "/api/set_compatibility", set("FULL_TRANSITIVE", false)).await;
    assert_eq!(status.as_u16(), 200, "{done}");
    let (_, level) = registry_status(Method::GET, &format!("config/{subject}")).await;
    assert_eq!(level["compatibilityLevel"], "FULL_TRANSITIVE");

    // Back to the global level: Confluent's registry then answers 404 for the subject's own
    // level; Apicurio answers NONE, with the global level when asked to fall back to it.
    let (status, back) = post(&router, "/api/set_compatibility", set("GLOBAL", false)).await;
    assert_eq!(status.as_u16(), 200, "{back}");
    assert_eq!((&back["after"], &back["after_own"]), (&global, &json!(false)), "{back}");
    let (status, own) = registry_status(Method::GET, &format!("config/{subject}")).await;
    assert!(status == 404 || own["compatibilityLevel"] == "NONE", "{status} {own}");
    let (_, fallback) =
        registry_status(Method::GET, &format!("config/{subject}?defaultToGlobal=true")).await;
    assert_eq!(fallback["compatibilityLevel"], global);
    // And the subject's page says whose level it is.
    let shown = || async {
        let path = format!("/api/subject?cluster=local&subject={subject}");
        let (_, detail) = get_json(&router, &path).await;
        (detail["compatibility"].clone(), detail["compatibility_overridden"].clone())
    };
    assert_eq!(shown().await, (global.clone(), json!(false)));
    // A level of its own that happens to be NONE is the subject's own.
    post(&router, "/api/set_compatibility", set("NONE", false)).await;
    assert_eq!(shown().await, (json!("NONE"), json!(true)));

    for (body, status, code) in [
        (set("SIDEWAYS", false), 400, "BAD_REQUEST"),
        (
            json!({"cluster": "local", "subject": unique("it-none"), "compatibility": "FULL"}),
            404,
            "NOT_FOUND",
        ),
        (
            json!({"cluster": "bare", "subject": subject, "compatibility": "FULL"}),
            404,
            "NOT_CONFIGURED",
        ),
    ] {
        let (got, answer) = post(&router, "/api/set_compatibility", body.clone()).await;
        assert_eq!(
            (got.as_u16(), answer["code"].as_str()),
            (status, Some(code)),
            "{body}: {answer}"
        );
    }
}

#[tokio::test]
async fn versions_are_soft_deleted_then_deleted_for_good_and_references_keep_theirs() {
    let subject = unique("it-delete");
    let path = format!("subjects/{subject}/versions");
    registry(Method::POST, &path, json!({ "schema": V1 })).await;
    registry(Method::POST, &path, json!({ "schema": V3 })).await;
    let user = unique("it-delete-user");
    registry(
        Method::POST,
        &format!("subjects/{user}/versions"),
        json!({
            "schema": r#"{"type":"record","name":"U","fields":[{"name":"p","type":"P"}]}"#,
            "references": [{"name": "P", "subject": subject, "version": 2}]
        }),
    )
    .await;
    let router = router(&registry_yaml()).await;
    let delete = |version: Option<i32>, permanent: bool| {
        let mut body = json!({"cluster": "local", "subject": subject, "permanent": permanent});
        if let Some(v) = version {
            body["version"] = json!(v);
        }
        body
    };
    let listed = |deleted: bool| {
        let path = if deleted { format!("{path}?deleted=true") } else { path.clone() };
        async move { registry_status(Method::GET, &path).await }
    };

    // A version another subject references stays, and the refusal names the user.
    let (status, refused) = post(&router, "/api/delete_schema", delete(Some(2), false)).await;
    assert_eq!((status.as_u16(), refused["code"].as_str()), (409, Some("ADMIN")), "{refused}");
    assert!(refused["message"].as_str().unwrap_or_default().contains(&user), "{refused}");
    // Permanent before soft: refused, as the registry's API defines it.
    let (status, early) = post(&router, "/api/delete_schema", delete(Some(1), true)).await;
    assert_eq!((status.as_u16(), early["code"].as_str()), (409, Some("ADMIN")), "{early}");

    let (status, preview) = post(
        &router,
        "/api/delete_schema",
        json!({"cluster": "local", "subject": subject, "version": 1, "dry_run": true}),
    )
    .await;
    assert_eq!((status.as_u16(), &preview["versions"]), (200, &json!([1])), "{preview}");
    assert_eq!(listed(false).await.1, json!([1, 2]), "the dry run deleted nothing");

    let (status, soft) = post(&router, "/api/delete_schema", delete(Some(1), false)).await;
    assert_eq!((status.as_u16(), &soft["versions"]), (200, &json!([1])), "{soft}");
    assert_eq!(listed(false).await.1, json!([2]));
    assert_eq!(listed(true).await.1, json!([1, 2]), "soft-deleted, still held");
    let (_, detail) =
        get_json(&router, &format!("/api/subject?cluster=local&subject={subject}")).await;
    assert_eq!(detail["deleted_versions"], json!([1]), "{detail}");

    let (status, hard) = post(&router, "/api/delete_schema", delete(Some(1), true)).await;
    assert_eq!((status.as_u16(), &hard["versions"]), (200, &json!([1])), "{hard}");
    assert_eq!(listed(true).await.1, json!([2]), "gone for good");

    // The whole subject, once its user is gone: soft, then for good.
    registry_status(Method::DELETE, &format!("subjects/{user}")).await;
    registry_status(Method::DELETE, &format!("subjects/{user}?permanent=true")).await;
    let (status, soft) = post(&router, "/api/delete_schema", delete(None, false)).await;
    assert_eq!((status.as_u16(), &soft["versions"]), (200, &json!([2])), "{soft}");
    assert_eq!(listed(false).await.0, 404);
    let (status, detail) =
        get_json(&router, &format!("/api/subject?cluster=local&subject={subject}")).await;
    assert_eq!((status, &detail["deleted_versions"]), (200, &json!([2])), "{detail}");
    let (status, hard) = post(&router, "/api/delete_schema", delete(None, true)).await;
    assert_eq!((status.as_u16(), &hard["versions"]), (200, &json!([2])), "{hard}");
    assert_eq!(listed(true).await.0, 404, "the subject is gone for good");

    let (status, gone) = post(&router, "/api/delete_schema", delete(Some(1), false)).await;
    assert_eq!((status.as_u16(), gone["code"].as_str()), (404, Some("NOT_FOUND")), "{gone}");
}

/// A subject a scope covers by its own name, named after a topic the scoped catalog hides:
/// its page does not name that topic.
#[tokio::test]
async fn a_subject_s_page_never_names_a_topic_the_scope_hides() {
    let topic = unique("it-hidden-behind");
    create_topic(&topic, 1).await;
    let subject = format!("{topic}-value");
    registry(Method::POST, &format!("subjects/{subject}/versions"), json!({ "schema": V1 })).await;
    let yaml = registry_ceiling_yaml(
        "schema_text",
        &format!("  resources:\n    subjects: [\"{subject}\"]\n"),
    )
    .replace("    writable: true\n", "    writable: true\n    catalog: scoped\n");
    let service = ceiling_service(&yaml).await;
    let caller = server::auth::Caller::Mcp(None);
    let seen = server::service::schemas::subject(
        &service,
        &caller,
        "local",
        app::api::Arg::Given(subject.clone()),
    )
    .await
    .expect("the subject is in scope");
    assert!(seen.topics.is_empty(), "{:?}", seen.topics);
    // Without the scope the same page names it.
    let open = ceiling_service(&registry_ceiling_yaml("schema_text", "")).await;
    let all =
        server::service::schemas::subject(&open, &caller, "local", app::api::Arg::Given(subject))
            .await
            .expect("the subject");
    assert_eq!(all.topics, [(topic, "value".to_string())]);
}
