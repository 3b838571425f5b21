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
    registry(
        reqwest::Method::POST,
        &path,
        schema(r#"{"name":"a","type":"string"}"#),
    )
    .await;
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
    assert_eq!(
        list.global_compatibility.as_deref(),
        global["compatibilityLevel"].as_str()
    );
    let ours = list
        .subjects
        .iter()
        .find(|s| s.subject == subject)
        .expect("the new subject is listed");
    assert_eq!(ours.versions, [1, 2]);
    let latest = ours.latest.clone().expect("latest");
    assert_eq!((latest.version, latest.schema_type.as_str()), (2, "AVRO"));
    assert_eq!(Some(latest.id), second["id"].as_i64());
    assert_eq!(ours.compatibility.as_deref(), Some("FULL"));
    assert!(ours.compatibility_overridden);
}
