use axum::http::StatusCode;
use server::catalog::Catalog;

use crate::support::*;

#[tokio::test]
async fn subjects_show_what_the_registry_holds() {
    let subject = unique("it-subject");
    let schema = |fields: &str| {
        serde_json::json!({
            "schema": format!(r#"{{"type":"record","name":"R","fields":[{fields}]}}"#)
        })
    };
    let path = format!("subjects/{subject}/versions");
    registry(
        reqwest::Method::PUT,
        &format!("config/{subject}"),
        serde_json::json!({"compatibility": "FULL"}),
    )
    .await;
    registry(reqwest::Method::POST, &path, schema(r#"{"name":"a","type":"string"}"#)).await;
    let second = registry(
        reqwest::Method::POST,
        &path,
        schema(r#"{"name":"a","type":"string"},{"name":"b","type":"int","default":0}"#),
    )
    .await;
    let global = registry(reqwest::Method::GET, "config", serde_json::Value::Null).await;

    let config = config(&format!(
        "clusters:\n{}    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n",
        scram_cluster("local", "klens-secret")
    ));
    let catalog = Catalog::new(&config);
    let entry = catalog.get("local").expect("configured");
    entry.refresh_subjects().await;
    let list = entry.subjects();
    assert!(list.registry && list.error.is_none(), "{:?}", list.error);
    assert_eq!(list.global_compatibility.as_deref(), global["compatibilityLevel"].as_str());
    let ours =
        list.subjects.iter().find(|s| s.subject == subject).expect("the new subject is listed");
    assert_eq!(ours.versions, [1, 2]);
    let latest = ours.latest.clone().expect("latest");
    assert_eq!((latest.version, latest.schema_type.as_str()), (2, "AVRO"));
    assert_eq!(Some(latest.id), second["id"].as_i64());
    assert_eq!(ours.compatibility.as_deref(), Some("FULL"));
    assert!(ours.compatibility_overridden);
}

#[tokio::test]
async fn a_subject_and_its_texts_are_what_the_registry_holds() {
    let topic = unique("it-subject-topic");
    create_topic(&topic, 1).await;
    let subject = format!("{topic}-value");
    let path = format!("subjects/{subject}/versions");
    let v1 = r#"{"type":"record","name":"R","fields":[{"name":"a","type":"string"}]}"#;
    let v2 = r#"{"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int","default":0}]}"#;
    let first = registry(reqwest::Method::POST, &path, serde_json::json!({ "schema": v1 })).await;
    let second = registry(reqwest::Method::POST, &path, serde_json::json!({ "schema": v2 })).await;
    // A schema that references the subject's first version.
    let user = unique("it-ref-user");
    let referring = registry(
        reqwest::Method::POST,
        &format!("subjects/{user}/versions"),
        serde_json::json!({
            "schema": r#"{"type":"record","name":"U","fields":[{"name":"r","type":"R"}]}"#,
            "references": [{"name": "R", "subject": subject, "version": 1}]
        }),
    )
    .await;
    let yaml = format!(
        "clusters:\n{}    schema_registry:\n      url: http://127.0.0.1:18081/apis/ccompat/v7\n{}",
        scram_cluster("local", "klens-secret"),
        scram_cluster("bare", "klens-secret"),
    );
    let (router, catalog) = router_and_catalog(&yaml).await;
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic_metadata(&topic).ok().flatten().is_some()).await;

    let get = |path: String| {
        let router = router.clone();
        async move {
            let (status, body) = get_raw(&router, &path).await;
            (status, serde_json::from_slice::<serde_json::Value>(&body).expect("JSON"))
        }
    };
    let (status, detail) = get(format!("/api/subject?cluster=local&subject={subject}")).await;
    assert_eq!(status, StatusCode::OK, "{detail}");
    let ids: Vec<_> = detail["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| (v["version"].as_i64(), v["id"].as_i64(), v["type"].clone()))
        .collect();
    assert_eq!(
        ids,
        [
            (Some(1), first["id"].as_i64(), "AVRO".into()),
            (Some(2), second["id"].as_i64(), "AVRO".into())
        ]
    );
    assert_eq!(detail["topics"], serde_json::json!([[topic, "value"]]));
    // The subject sets no level of its own, so the global one applies. (Confluent's registry
    // answers 404 for its own level; Apicurio answers NONE, and klens tells that from a level
    // set to NONE.)
    let global = registry(reqwest::Method::GET, "config", serde_json::Value::Null).await;
    assert_eq!(detail["compatibility_overridden"], false, "{detail}");
    assert_eq!(detail["compatibility"], global["compatibilityLevel"], "{detail}");

    let (status, text) =
        get(format!("/api/schema?cluster=local&subject={subject}&version=1")).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let held = registry(reqwest::Method::GET, &format!("{path}/1"), serde_json::Value::Null).await;
    assert_eq!(text["schema"], held["schema"]);
    assert_eq!(text["id"], first["id"]);
    let (_, newest) = get(format!("/api/schema?cluster=local&subject={subject}")).await;
    assert_eq!(newest["version"], 2);
    let (_, refs) = get(format!("/api/subject?cluster=local&subject={user}")).await;
    assert_eq!(
        refs["versions"][0]["references"],
        serde_json::json!([{"name": "R", "subject": subject, "version": 1}])
    );
    assert_eq!(refs["versions"][0]["id"], referring["id"]);

    for (path, want) in [
        (format!("/api/subject?cluster=local&subject={}", unique("it-none")), "NOT_FOUND"),
        (format!("/api/schema?cluster=local&subject={subject}&version=9"), "NOT_FOUND"),
        (format!("/api/subject?cluster=bare&subject={subject}"), "NOT_CONFIGURED"),
        (format!("/api/schema?cluster=bare&subject={subject}"), "NOT_CONFIGURED"),
    ] {
        let (status, body) = get(path.clone()).await;
        assert_eq!((status.as_u16(), body["code"].as_str()), (404, Some(want)), "{path}: {body}");
    }
}
