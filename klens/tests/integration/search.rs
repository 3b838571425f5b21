use axum::http::StatusCode;

use crate::support::*;

#[tokio::test]
async fn search_finds_a_topic_despite_a_typo() {
    let topic = unique("it-searchable");
    create_topic(&topic, 1).await;
    let router = router(&format!("clusters:\n{}", scram_cluster("local", "klens-secret"))).await;
    // Swap two letters of the name: "it-saerchable-…".
    let typo = topic.replacen("searchable", "saerchable", 1);
    let (status, bytes) = get_raw(&router, &format!("/api/search?q={typo}")).await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    let first = &json["hits"][0];
    assert_eq!(first["kind"], "topic", "{json}");
    assert_eq!(first["name"], topic.as_str());
    assert_eq!(first["url"], format!("/c/local/topics/{topic}"));
}
