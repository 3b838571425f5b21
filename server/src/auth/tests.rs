//! The decision over real config text: every privilege × binding shape × writable flag ×
//! subject kind.

use std::collections::BTreeSet;
use std::path::Path;

use app::access::{Action, Resource};
use app::{ErrorCode, Privilege};

use super::{Policy, Subject};

fn policy(yaml: &str) -> Policy {
    let config =
        crate::config::parse(yaml, "test.yaml", &|_| Some("s3cret".into()), Path::new("."))
            .unwrap_or_else(|e| panic!("test config is invalid: {e}"));
    Policy::from_config(&config)
}

const CLUSTERS: &str = "clusters:
  - name: prod
    bootstrap_servers: p:9092
  - name: staging
    bootstrap_servers: s:9092
    writable: true
";

const AUTH: &str = "auth:
  oidc:
    issuer: http://127.0.0.1:19000
    client_id: klens
    client_secret: ${SECRET}
    redirect_uri: http://127.0.0.1:8080/auth/callback
";

fn user(groups: &[&str]) -> Subject {
    Subject::User { groups: groups.iter().map(|g| g.to_string()).collect() }
}

fn all() -> BTreeSet<Privilege> {
    Privilege::ALL.iter().copied().collect()
}

fn set(privileges: &[Privilege]) -> BTreeSet<Privilege> {
    privileges.iter().copied().collect()
}

fn held(policy: &Policy, subject: &Subject, cluster: &str) -> Option<BTreeSet<Privilege>> {
    policy.access(subject, cluster).map(|a| a.privileges)
}

#[test]
fn without_auth_everyone_holds_everything_everywhere() {
    let p = policy(CLUSTERS);
    for subject in [Subject::Anonymous, user(&[]), user(&["x"])] {
        for cluster in ["prod", "staging"] {
            assert_eq!(held(&p, &subject, cluster), Some(all()), "{subject:?} {cluster}");
        }
    }
    assert_eq!(held(&p, &Subject::Anonymous, "nope"), None);
    // No mcp block: the MCP subject sees nothing.
    assert_eq!(held(&p, &Subject::Mcp, "prod"), None);
}

#[test]
fn auth_without_roles_gives_every_user_everything() {
    let p = policy(&format!("{CLUSTERS}{AUTH}"));
    for groups in [&[][..], &["anything"][..]] {
        assert_eq!(held(&p, &user(groups), "prod"), Some(all()));
        assert_eq!(held(&p, &user(groups), "staging"), Some(all()));
    }
    // With auth on, nobody is anonymous.
    assert_eq!(held(&p, &Subject::Anonymous, "prod"), None);
}

const ROLES: &str = "  roles:
    admin: [records, topic_configs, create_topics, delete_topics]
    auditor: [acls, schema_text]
    viewer: []
  bindings:
    - groups: [kafka-admins]
      role: admin
      clusters: [staging]
    - groups: [kafka-auditors]
      role: auditor
    - groups: [kafka-viewers]
      role: viewer
";

#[test]
fn roles_add_up_per_cluster_not_across_clusters() {
    let p = policy(&format!("{CLUSTERS}{AUTH}{ROLES}"));
    use Privilege::*;
    let admin = set(&[Records, TopicConfigs, CreateTopics, DeleteTopics]);
    let auditor = set(&[Acls, SchemaText]);
    // A scoped binding covers only its cluster: the admin does not see prod at all.
    assert_eq!(held(&p, &user(&["kafka-admins"]), "staging"), Some(admin.clone()));
    assert_eq!(held(&p, &user(&["kafka-admins"]), "prod"), None);
    // A binding without clusters covers every cluster.
    assert_eq!(held(&p, &user(&["kafka-auditors"]), "prod"), Some(auditor.clone()));
    assert_eq!(held(&p, &user(&["kafka-auditors"]), "staging"), Some(auditor.clone()));
    // Two bindings on one cluster: the union. The wide role scoped to staging adds nothing on prod.
    let both = user(&["kafka-admins", "kafka-auditors"]);
    assert_eq!(held(&p, &both, "staging"), Some(admin.union(&auditor).copied().collect()));
    assert_eq!(held(&p, &both, "prod"), Some(auditor));
    // An empty role still makes the cluster visible: catalog only.
    assert_eq!(held(&p, &user(&["kafka-viewers"]), "prod"), Some(BTreeSet::new()));
    // No covering binding, or no groups at all: no clusters.
    assert_eq!(held(&p, &user(&["strangers"]), "prod"), None);
    assert!(p.visible(&user(&[])).is_empty());
    assert_eq!(
        p.visible(&user(&["kafka-admins"])).into_iter().map(|a| a.name).collect::<Vec<_>>(),
        ["staging"]
    );
}

/// For each privilege alone in a role bound on one cluster: exactly that privilege there,
/// nothing elsewhere, and every action decided in the documented order.
#[test]
fn every_privilege_alone_on_each_writable_flag() {
    for &granted in Privilege::ALL {
        for writable in [false, true] {
            let yaml = format!(
                "clusters:
  - name: a
    bootstrap_servers: a:9092
    writable: {writable}
  - name: b
    bootstrap_servers: b:9092
    writable: true
{AUTH}  roles:
    only: [{}]
  bindings:
    - groups: [g]
      role: only
      clusters: [a]
",
                granted.config_name()
            );
            let p = policy(&yaml);
            let subject = user(&["g"]);
            assert_eq!(held(&p, &subject, "a"), Some(set(&[granted])));
            assert_eq!(held(&p, &subject, "b"), None);
            for &asked in Privilege::ALL {
                for internal in [false, true] {
                    let action = Action::new(asked, Resource::Topic { name: "t".into(), internal });
                    let got = p.decide(&subject, "a", action.clone()).err().map(|e| e.code);
                    let want = if asked.is_write() && !writable {
                        Some(ErrorCode::ReadOnlyCluster)
                    } else if asked.is_write() && internal {
                        Some(ErrorCode::InternalTopic)
                    } else if asked != granted {
                        Some(ErrorCode::MissingPrivilege)
                    } else {
                        None
                    };
                    assert_eq!(got, want, "granted {granted:?} asked {asked:?} writable={writable} internal={internal}");
                    // Cluster b is invisible: the same answer as a made-up name.
                    let hidden = p.decide(&subject, "b", action.clone()).expect_err("hidden");
                    let unknown = p.decide(&subject, "made-up", action).expect_err("unknown");
                    assert_eq!(hidden, app::ApiError::unknown_cluster("b"));
                    assert_eq!(unknown, app::ApiError::unknown_cluster("made-up"));
                }
            }
        }
    }
}

#[test]
fn the_mcp_ceiling_ignores_roles_and_honours_its_clusters() {
    let yaml = format!(
        "{CLUSTERS}{AUTH}{ROLES}mcp:
  listen: 127.0.0.1:8090
  privileges: [records, create_topics]
  clusters: [staging]
"
    );
    let p = policy(&yaml);
    use Privilege::*;
    assert_eq!(held(&p, &Subject::Mcp, "staging"), Some(set(&[Records, CreateTopics])));
    assert_eq!(held(&p, &Subject::Mcp, "prod"), None);
    let create = Action::new(CreateTopics, Resource::Topic { name: "t".into(), internal: false });
    assert!(p.decide(&Subject::Mcp, "staging", create.clone()).is_ok());
    let produce = Action::new(Produce, Resource::Topic { name: "t".into(), internal: false });
    let refused = p.decide(&Subject::Mcp, "staging", produce).expect_err("not in the ceiling");
    assert_eq!((refused.code, refused.privilege), (ErrorCode::MissingPrivilege, Some(Produce)));
    assert_eq!(
        p.decide(&Subject::Mcp, "prod", create).expect_err("outside").code,
        ErrorCode::UnknownCluster
    );
}

#[test]
fn a_grant_names_what_was_allowed() {
    let p = policy(CLUSTERS);
    let grant =
        p.decide(&Subject::Anonymous, "staging", Action::catalog()).expect("catalog is open");
    assert_eq!(grant.cluster(), "staging");
    assert_eq!(grant.action(), &Action::catalog());
}

/// A grant opens exactly the action it was given for: a catalog grant opens no read of records
/// and no write, a grant on one topic opens no other topic, and a read grant no write.
#[test]
fn a_grant_opens_only_what_it_names() {
    let p = policy(CLUSTERS);
    let topic = |name: &str| Resource::Topic { name: name.to_string(), internal: false };
    let catalog =
        p.decide(&Subject::Anonymous, "staging", Action::catalog()).expect("the catalog is open");
    for privilege in [Privilege::Records, Privilege::CreateTopics, Privilege::DeleteTopics] {
        let e =
            catalog.require_topic(privilege, "orders").expect_err("a catalog grant opens nothing");
        assert_eq!(e.code, ErrorCode::MissingPrivilege);
        assert_eq!(e.privilege, Some(privilege));
    }
    let read = p
        .decide(&Subject::Anonymous, "staging", Action::new(Privilege::Records, topic("orders")))
        .expect("allowed");
    assert!(read.require_topic(Privilege::Records, "orders").is_ok());
    assert!(read.require_topic(Privilege::Records, "payments").is_err());
    assert!(read.require_topic(Privilege::DeleteTopics, "orders").is_err());
    assert!(read.require(Privilege::Records, &Resource::group("orders")).is_err());
    let mut write = p
        .decide(
            &Subject::Anonymous,
            "staging",
            Action::new(Privilege::DeleteOffsets, Resource::group("g")),
        )
        .expect("allowed");
    // A write's grant opens nothing until the audit has recorded its attempt.
    let unrecorded = write
        .require(Privilege::DeleteOffsets, &Resource::group("g"))
        .expect_err("not recorded yet");
    assert_eq!(unrecorded.code, ErrorCode::AuditUnavailable);
    write.open();
    assert!(write.require(Privilege::DeleteOffsets, &Resource::group("g")).is_ok());
    assert!(write.require(Privilege::DeleteOffsets, &Resource::group("h")).is_err());
}

/// A failover's commit grant comes only from a recorded grant of REPLICATION_OFFSETS on a
/// replication, and opens the commit of its one group and nothing else.
#[test]
fn a_failover_grant_comes_only_from_a_recorded_replication_offsets_grant() {
    let p = policy(CLUSTERS);
    let on = |privilege, resource| {
        p.decide(&Subject::Anonymous, "staging", Action::new(privilege, resource)).expect("allowed")
    };
    let replication = Resource::Replication { name: "eu".into(), connect: None };
    let mut offsets = on(Privilege::ReplicationOffsets, replication.clone());
    let e = offsets.for_failover("g").expect_err("not recorded yet");
    assert_eq!(e.code, ErrorCode::MissingPrivilege);
    offsets.open();
    let commit = offsets.for_failover("g").expect("from a recorded grant");
    assert!(commit.require(Privilege::ResetOffsets, &Resource::group("g")).is_ok());
    assert!(commit.require(Privilege::ResetOffsets, &Resource::group("h")).is_err());
    assert!(commit.require(Privilege::DeleteGroups, &Resource::group("g")).is_err());
    for (privilege, resource) in [
        (Privilege::ManageReplications, replication.clone()),
        (Privilege::Replications, replication),
        (Privilege::ResetOffsets, Resource::group("g")),
    ] {
        let mut other = on(privilege, resource);
        other.open();
        assert!(other.for_failover("g").is_err(), "{privilege:?}");
    }
}

/// Scoped bindings: their privileges land in `scopes`, not in the cluster-wide set; with an
/// unscoped binding beside them a scoped catalog is open; the MCP ceiling scopes the same way.
#[test]
fn scoped_bindings_grant_on_their_resources_and_add_up() {
    let p = policy(&format!(
        "clusters:
  - name: prod
    bootstrap_servers: p:9092
    writable: true
    catalog: scoped
{AUTH}  roles:
    payments: [records, produce, reset_offsets, schema_text]
    viewer: []
  bindings:
    - groups: [payments-team]
      role: payments
      resources:
        topics: [\"payments-*\"]
        groups: [\"pay-app-*\"]
    - groups: [kafka-viewers]
      role: viewer
mcp:
  listen: 127.0.0.1:8090
  privileges: [records]
  resources: {{ topics: [ledger] }}
"
    ));
    use Privilege::*;
    let erin = user(&["payments-team"]);
    let access = p.access(&erin, "prod").expect("visible");
    assert!(access.privileges.is_empty());
    assert_eq!(access.scopes.len(), 1);
    assert_eq!(access.scopes[0].privileges, set(&[Records, Produce, ResetOffsets, SchemaText]));
    assert!(access.scoped_catalog);
    let on = |subject: &Subject, privilege, resource: Resource| {
        p.decide(subject, "prod", Action::new(privilege, resource))
    };
    assert!(on(&erin, Produce, Resource::topic("payments-eu")).is_ok());
    let refused = on(&erin, Produce, Resource::topic("orders")).expect_err("not covered");
    assert_eq!(refused.code, ErrorCode::MissingPrivilege);
    assert_eq!(
        refused.message,
        "This needs the PRODUCE privilege on topic \"orders\" in cluster \"prod\"."
    );
    assert!(on(&erin, ResetOffsets, Resource::group("pay-app-1")).is_ok());
    assert!(on(&erin, SchemaText, Resource::Subject("payments-eu-value".into())).is_ok());
    assert!(on(&erin, SchemaText, Resource::Subject("orders-value".into())).is_err());
    // With a viewer binding on the whole cluster beside it, the catalog is open.
    let both = user(&["payments-team", "kafka-viewers"]);
    assert!(!p.access(&both, "prod").expect("visible").scoped_catalog);
    // The MCP ceiling, scoped to one topic.
    let mcp = p.access(&Subject::Mcp, "prod").expect("visible");
    assert!(mcp.privileges.is_empty() && mcp.scoped_catalog);
    assert!(on(&Subject::Mcp, Records, Resource::topic("ledger")).is_ok());
    assert!(on(&Subject::Mcp, Records, Resource::topic("payments-eu")).is_err());
}

/// A cluster with Flink keeps its processors' definitions in a topic nobody reads or changes
/// through klens, whatever they hold; a cluster without Flink has no such topic.
#[test]
fn the_definitions_topic_of_a_cluster_with_flink_is_protected() {
    let policy = policy(
        "clusters:
  - name: prod
    bootstrap_servers: p:9092
    writable: true
    flink:
      sql_gateway: http://gw:8083
      rest: http://jm:8081
      properties:
        bootstrap.servers: p:9092
  - name: staging
    bootstrap_servers: s:9092
    writable: true
",
    );
    let topic = Resource::topic(crate::processor::DEFINITIONS_TOPIC);
    for privilege in
        [Privilege::Records, Privilege::Produce, Privilege::DeleteTopics, Privilege::Unmask]
    {
        let refused =
            policy.decide(&Subject::Anonymous, "prod", Action::new(privilege, topic.clone()));
        assert_eq!(
            refused.map(|_| ()).map_err(|e| e.code),
            Err(ErrorCode::ProtectedTopic),
            "{privilege}"
        );
        let elsewhere =
            policy.decide(&Subject::Anonymous, "staging", Action::new(privilege, topic.clone()));
        assert!(elsewhere.is_ok(), "{privilege} on staging");
    }
    // Its configs stay readable, as the audit topic's do.
    assert!(policy
        .decide(&Subject::Anonymous, "prod", Action::new(Privilege::TopicConfigs, topic))
        .is_ok());
}

/// A writable cluster keeps the leases of changes made on it, and the records of the copy jobs
/// writing to it, in topics nobody reads or changes through klens; a read-only cluster, where
/// klens changes nothing, has no such topics.
#[test]
fn the_leases_and_jobs_topics_of_a_writable_cluster_are_protected() {
    let policy = policy(
        "clusters:
  - name: prod
    bootstrap_servers: p:9092
    writable: true
  - name: archive
    bootstrap_servers: a:9092
",
    );
    for name in [crate::config::LEASES_TOPIC, crate::config::JOBS_TOPIC] {
        let topic = Resource::topic(name);
        for privilege in [Privilege::Records, Privilege::Produce, Privilege::DeleteTopics] {
            let refused =
                policy.decide(&Subject::Anonymous, "prod", Action::new(privilege, topic.clone()));
            assert_eq!(
                refused.map(|_| ()).map_err(|e| e.code),
                Err(ErrorCode::ProtectedTopic),
                "{name} {privilege}"
            );
        }
        let records = Action::new(Privilege::Records, topic);
        assert!(policy.decide(&Subject::Anonymous, "archive", records).is_ok(), "{name}");
    }
}
