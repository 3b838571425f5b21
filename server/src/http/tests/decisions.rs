//! Every server function decides before it judges its arguments: the refusals a caller gets
//! for a cluster it cannot see, a privilege it lacks or a read-only cluster, before any
//! argument is looked at.

use super::*;

async fn call(router: &axum::Router, method: &str, uri: &str, body: &str) -> app::ApiError {
    let request = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let (status, text) = send_to(router.clone(), request).await;
    let error: app::ApiError = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{method} {uri} {body}: not an ApiError: {status} {text}"));
    assert_eq!(status.as_u16(), error.status(), "{method} {uri} {body}");
    error
}

/// Every server function, with one argument of the wrong type: the first bad argument is named
/// with BAD_REQUEST on a cluster the caller sees, and an unknown cluster answers
/// UNKNOWN_CLUSTER whatever the arguments are (the decision comes first). Regression for the
/// re-cut issue: a write with a mistyped argument used to answer 502 CLIENT.
#[tokio::test]
async fn every_server_function_decides_before_it_judges_its_arguments() {
    let router = router_for(TWO);
    // One case a line: method, endpoint, query or body (`{c}` for the cluster), the bad field.
    let cases = r#"
GET topics cluster={c}&limit=many limit
GET topics cluster={c}&desc=maybe desc
GET groups cluster={c}&offset=-1 offset
GET topic cluster={c} topic
GET group cluster={c} group
GET broker cluster={c}&id=first id
GET search cluster={c} q
GET records cluster={c}&topic=t&partition=x partition
GET records cluster={c}&topic=t&limit=0.5 limit
GET records cluster={c}&topic=bad%20name topic
GET record cluster={c}&topic=t&partition=0 offset
GET record cluster={c}&topic=t&partition=zero&offset=1 partition
GET export cluster={c}&topic=t&partition=x partition
GET tail cluster={c}&topic=t&exact=perhaps exact
POST create_topic {"cluster":"{c}","topic":"t","partitions":"three"} partitions
POST create_topic {"cluster":"{c}","partitions":3} topic
POST create_topic {"cluster":"{c}","topic":"t"} partitions
POST create_topic {"cluster":"{c}","topic":"t","partitions":1,"configs":[1]} configs
POST delete_topic {"cluster":"{c}","topic":7} topic
POST delete_topic {"cluster":"{c}"} topic
GET topic_configs cluster={c} topic
GET topic_configs cluster={c}&topic=a%2Fb topic
GET subject cluster={c} subject
GET schema cluster={c} subject
GET schema cluster={c}&subject=s&version=first version
GET schema cluster={c}&subject=s&version=0 version
POST alter_topic_configs {"cluster":"{c}","topic":"t","set":[1]} set
POST alter_topic_configs {"cluster":"{c}","topic":"t","remove":"retention.ms"} remove
POST alter_topic_configs {"cluster":"{c}","topic":"t","set":{"a":"1"},"dry_run":"maybe"} dry_run
POST alter_topic_configs {"cluster":"{c}","topic":"t"} set
POST add_partitions {"cluster":"{c}","topic":"t","count":"many"} count
POST add_partitions {"cluster":"{c}","count":3} topic
POST add_partitions {"cluster":"{c}","topic":"t","count":0} count
POST delete_records {"cluster":"{c}","topic":"t","partition":0,"offset":"x"} offset
POST delete_records {"cluster":"{c}","topic":"t","partition":"p","all":true} partition
POST delete_records {"cluster":"{c}","topic":"t","offset":3} partition
POST reset_offsets {"cluster":"{c}","to":"earliest"} group
POST reset_offsets {"cluster":"{c}","group":"g","to":"sideways"} to
POST reset_offsets {"cluster":"{c}","group":"g","to":"offset","dry_run":true} value
POST reset_offsets {"cluster":"{c}","group":"g","to":"latest"} plan
POST reset_offsets {"cluster":"{c}","group":"g","to":"latest","plan":{"a":1}} plan
POST delete_offsets {"cluster":"{c}","group":"g"} topic
POST delete_offsets {"cluster":"{c}","topic":"t"} group
POST delete_group {"cluster":"{c}","group":""} group
POST set_scram_credential {"cluster":"{c}","password":"p"} user
POST set_scram_credential {"cluster":"{c}","user":"u","mechanism":"SCRAM-SHA-1","password":"p"} mechanism
POST set_scram_credential {"cluster":"{c}","user":"u","iterations":1000,"password":"p"} iterations
POST set_scram_credential {"cluster":"{c}","user":"u"} password
POST delete_scram_credential {"cluster":"{c}","user":""} user
POST set_scram_credential {"cluster":"{c}","user":" u","password":"p"} user
POST create_acl {"cluster":"{c}","principal":"User:bob ","resource_type":"topic","resource_name":"t","operation":"read"} principal
POST create_acl {"cluster":"{c}","principal":"bob","resource_type":"topic","resource_name":"t","operation":"read"} principal
POST create_acl {"cluster":"{c}","principal":"User:bob","host":"everywhere","resource_type":"topic","resource_name":"t","operation":"read"} host
POST create_acl {"cluster":"{c}","principal":"User:bob","resource_type":"table","resource_name":"t","operation":"read"} resource_type
POST create_acl {"cluster":"{c}","principal":"User:bob","resource_type":"topic","operation":"read"} resource_name
POST create_acl {"cluster":"{c}","principal":"User:bob","resource_type":"topic","resource_name":"t","operation":"any"} operation
POST delete_acl {"cluster":"{c}","principal":"User:bob","resource_type":"topic","resource_name":"t","operation":"read","pattern_type":"match"} pattern_type
POST delete_acl {"cluster":"{c}","principal":"User:bob","resource_type":"topic","resource_name":"t","operation":"read","permission":"any"} permission
POST register_schema {"cluster":"{c}","schema":"{}"} subject
POST register_schema {"cluster":"{c}","subject":"s"} schema
POST register_schema {"cluster":"{c}","subject":"s","schema":"{}","type":"XML"} type
POST register_schema {"cluster":"{c}","subject":"s","schema":"{}","references":[{"name":"r","subject":"t","version":0}]} references/0
POST register_schema {"cluster":"{c}","subject":"s","schema":"{}","references":"r"} references
POST set_compatibility {"cluster":"{c}","subject":"s"} compatibility
POST set_compatibility {"cluster":"{c}","subject":"s","compatibility":"SIDEWAYS"} compatibility
POST set_compatibility {"cluster":"{c}","compatibility":"FULL"} subject
POST delete_schema {"cluster":"{c}","subject":"s","version":0} version
POST delete_schema {"cluster":"{c}","subject":"s","permanent":"yes"} permanent
POST delete_schema {"cluster":"{c}","subject":""} subject
POST produce {"cluster":"{c}","value":{"encoding":"text","data":"x"}} topic
POST produce {"cluster":"{c}","topic":"t","value":{"encoding":"base64","data":"@"}} value
POST produce {"cluster":"{c}","topic":"t","key":{"encoding":"pictures"}} key
POST produce {"cluster":"{c}","topic":"t","partition":"first"} partition
POST produce {"cluster":"{c}","topic":"t","headers":[{"key":"h","value":{"encoding":"text","data":1}}]} headers
"#;
    for case in cases.lines().filter(|l| !l.is_empty()) {
        let parts = case.split_once(' ').and_then(|(method, rest)| {
            let (endpoint, rest) = rest.split_once(' ')?;
            let (args, field) = rest.rsplit_once(' ')?;
            Some((method, endpoint, args, field))
        });
        let Some((method, endpoint, args, field)) = parts else {
            panic!("a case is a method, an endpoint, arguments and a field: {case}");
        };
        let request = |cluster: &str| -> (String, String) {
            let args = args.replace("{c}", cluster);
            if method == "GET" {
                (format!("/api/{endpoint}?{args}"), String::new())
            } else {
                (format!("/api/{endpoint}"), args)
            }
        };
        let (uri, body) = request("rw");
        let e = call(&router, method, &uri, &body).await;
        assert_eq!(
            (e.code, e.field.as_deref()),
            (app::ErrorCode::BadRequest, Some(field)),
            "{method} {uri} {body}: {}",
            e.message
        );
        let (uri, body) = request("hidden");
        let e = call(&router, method, &uri, &body).await;
        assert_eq!(e, app::ApiError::unknown_cluster("hidden"), "{method} {uri} {body}");
    }
}

/// A password sent as something other than a string is refused without repeating it.
#[tokio::test]
async fn a_password_of_the_wrong_type_is_not_repeated() {
    let router = router_for(TWO);
    let e = call(
        &router,
        "POST",
        "/api/set_scram_credential",
        r#"{"cluster":"rw","user":"u","password":987654321}"#,
    )
    .await;
    assert_eq!(e.field.as_deref(), Some("password"));
    assert!(!e.message.contains("987654321"), "{}", e.message);
}

/// The calls whose only argument is the cluster: without it, BAD_REQUEST names it; with an
/// unknown one, UNKNOWN_CLUSTER.
#[tokio::test]
async fn calls_of_a_cluster_name_the_missing_cluster() {
    let router = router_for(TWO);
    for endpoint in [
        "cluster",
        "brokers",
        "acls",
        "scram_users",
        "subjects",
        "subject",
        "schema",
        "topics",
        "groups",
        "records",
        "topic_configs",
        "export",
        "tail",
    ] {
        let e = call(&router, "GET", &format!("/api/{endpoint}"), "").await;
        assert_eq!(
            (e.code, e.field.as_deref()),
            (app::ErrorCode::BadRequest, Some("cluster")),
            "{endpoint}: {}",
            e.message
        );
        let e = call(&router, "GET", &format!("/api/{endpoint}?cluster=hidden"), "").await;
        assert_eq!(e, app::ApiError::unknown_cluster("hidden"), "{endpoint}");
    }
    for endpoint in [
        "create_topic",
        "delete_topic",
        "alter_topic_configs",
        "add_partitions",
        "delete_records",
        "reset_offsets",
        "delete_offsets",
        "delete_group",
        "produce",
        "register_schema",
        "set_compatibility",
        "delete_schema",
        "create_acl",
        "delete_acl",
        "set_scram_credential",
        "delete_scram_credential",
    ] {
        let e = call(&router, "POST", &format!("/api/{endpoint}"), r#"{"topic":"t"}"#).await;
        assert_eq!(
            (e.code, e.field.as_deref()),
            (app::ErrorCode::BadRequest, Some("cluster")),
            "{endpoint}: {}",
            e.message
        );
    }
}

/// A write with bad arguments on a read-only cluster is refused for the cluster, not for the
/// arguments; a body that is not JSON at all names no cluster and is a BAD_REQUEST.
#[tokio::test]
async fn a_write_on_a_read_only_cluster_is_refused_before_its_arguments() {
    let router = router_for(TWO);
    for (endpoint, body) in [
        ("create_topic", r#"{"cluster":"ro","topic":"t","partitions":"three"}"#),
        ("create_topic", r#"{"cluster":"ro"}"#),
        ("delete_topic", r#"{"cluster":"ro","topic":["x"]}"#),
        ("alter_topic_configs", r#"{"cluster":"ro","topic":"t","set":"x"}"#),
        ("add_partitions", r#"{"cluster":"ro","count":"many"}"#),
        ("delete_records", r#"{"cluster":"ro","topic":"t","offset":[]}"#),
        ("reset_offsets", r#"{"cluster":"ro","group":"g","to":"nowhere"}"#),
        ("delete_offsets", r#"{"cluster":"ro","group":5}"#),
        ("delete_group", r#"{"cluster":"ro"}"#),
        ("produce", r#"{"cluster":"ro","topic":"t","value":7}"#),
        ("register_schema", r#"{"cluster":"ro","schema":5}"#),
        ("set_compatibility", r#"{"cluster":"ro","subject":"s","compatibility":"SIDEWAYS"}"#),
        ("delete_schema", r#"{"cluster":"ro","version":"one"}"#),
        ("create_acl", r#"{"cluster":"ro","principal":5}"#),
        ("delete_acl", r#"{"cluster":"ro","operation":"sideways"}"#),
        ("set_scram_credential", r#"{"cluster":"ro","iterations":"many"}"#),
        ("delete_scram_credential", r#"{"cluster":"ro","user":7}"#),
    ] {
        let e = call(&router, "POST", &format!("/api/{endpoint}"), body).await;
        assert_eq!(e, app::ApiError::read_only_cluster("ro"), "{endpoint} {body}");
    }
    for body in ["not json", "[]", r#"{"topic":"t"}"#] {
        let e = call(&router, "POST", "/api/create_topic", body).await;
        assert_eq!(e.code, app::ErrorCode::BadRequest, "{body}: {}", e.message);
    }
}
