use std::collections::BTreeMap;

use app::api::Naming;

use super::progress::progress;
use super::records::{checkpoint, offset_sync, OffsetSync};
use super::*;

fn spec(name: &str, source: &str, target: &str, naming: Naming, topics: &[&str]) -> Spec {
    Spec {
        name: name.into(),
        source: source.into(),
        target: target.into(),
        connect: "dev-connect".into(),
        topics: topics.iter().map(|t| t.to_string()).collect(),
        exclude: vec!["orders-tmp*".into()],
        naming,
        sync_configs: true,
        groups: vec!["billing-*".into()],
    }
}

#[test]
fn globs_become_regexes_and_come_back() {
    for (glob, regex) in [
        ("orders", "orders"),
        ("orders.*", "orders\\..*"),
        ("a?b", "a.b"),
        ("?*", "..*"),
        ("pay-eu_1", "pay-eu_1"),
        ("*", ".*"),
    ] {
        assert_eq!(glob_to_regex(glob), regex, "{glob}");
        assert_eq!(regex_to_glob(regex).as_deref(), Some(glob), "{regex}");
    }
    // Regexes klens never writes are not read back as globs.
    for regex in ["a|b", "[ab]", "a+", "a\\d", "(x)"] {
        assert_eq!(regex_to_glob(regex), None, "{regex}");
    }
}

#[test]
fn a_replications_connectors_read_back_as_it() {
    let props =
        |servers: &str| BTreeMap::from([("bootstrap.servers".to_string(), servers.to_string())]);
    for naming in [Naming::Identity, Naming::Prefix] {
        let s = spec("eu-copy", "remote", "dev", naming, &["orders", "pay.*"]);
        let made = s.connectors(&props("r:1"), &props("d:1"));
        let names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["eu-copy.mirror-source", "eu-copy.mirror-checkpoint", "eu-copy.mirror-heartbeat"]
        );
        for (name, config) in &made {
            let class = &config["connector.class"];
            let (replication, role) = role_of(name, class).expect("klens's own");
            assert_eq!((replication.as_str(), role.class()), ("eu-copy", class.as_str()));
            assert_eq!(config["source.cluster.bootstrap.servers"], "r:1");
            assert_eq!(config["target.cluster.bootstrap.servers"], "d:1");
            assert_eq!(config["value.converter"], BYTES);
        }
        let source = &made[0].1;
        assert_eq!(source["topics"], "orders,pay\\..*");
        assert_eq!(source["topics.exclude"], "orders-tmp.*,mm2.*\\.internal,.*\\.replica,__.*");
        let back = Spec::from_configs("eu-copy", "dev-connect", source, Some(&made[1].1));
        assert_eq!(back, Some(s.clone()));
        // Without groups there is no checkpoint connector, and none reads back.
        let quiet = Spec { groups: Vec::new(), ..s };
        assert_eq!(quiet.connectors(&props("r:1"), &props("d:1")).len(), 2);
    }
    // Another's MirrorMaker connector, or a name with klens's suffix on another class.
    assert_eq!(role_of("mm2-source", Role::Source.class()), None);
    assert_eq!(role_of("x.mirror-source", Role::Heartbeat.class()), None);
    assert_eq!(role_of("X.mirror-source", Role::Source.class()), None);
}

#[test]
fn names_and_copies_follow_the_naming_and_leave_internal_topics() {
    let prefix = spec("r", "remote", "dev", Naming::Prefix, &["orders*", "*"]);
    assert_eq!(prefix.target_topic("orders"), "remote.orders");
    let identity = spec("r", "remote", "dev", Naming::Identity, &["orders*"]);
    assert_eq!(identity.target_topic("orders"), "orders");
    assert!(identity.copies("orders-eu"));
    assert!(!identity.copies("orders-tmp-1"), "excluded");
    assert!(!identity.copies("payments"));
    for internal in
        ["__consumer_offsets", "mm2-offset-syncs.dev.internal", "x.checkpoints.internal"]
    {
        assert!(!prefix.copies(internal), "{internal}");
    }
}

#[test]
fn loops_self_copies_and_internal_selections_are_refused() {
    let ab = spec("ab", "a", "b", Naming::Identity, &["orders"]);
    let ba = spec("ba", "b", "a", Naming::Identity, &["ord*"]);
    assert_eq!(ab.problem(&[]), None);
    let (field, message) = ba.problem(std::slice::from_ref(&ab)).expect("a loop");
    assert_eq!(field, "topics");
    assert!(message.contains("Replication \"ab\""), "{message}");
    // Prefix naming on either side, or topics apart, is no loop; an update is not its own.
    let ba_prefix = Spec { naming: Naming::Prefix, ..ba.clone() };
    assert_eq!(ba_prefix.problem(std::slice::from_ref(&ab)), None);
    let apart = spec("ba", "b", "a", Naming::Identity, &["payments"]);
    assert_eq!(apart.problem(std::slice::from_ref(&ab)), None);
    assert_eq!(ab.problem(std::slice::from_ref(&ab)), None);
    // Two globs that only meet in the middle: `orders-*` and `*-eu` both take `orders-eu`.
    let ab_glob = spec("ab", "a", "b", Naming::Identity, &["orders-*"]);
    let ba_glob = spec("ba", "b", "a", Naming::Identity, &["*-eu"]);
    assert_eq!(ba_glob.problem(std::slice::from_ref(&ab_glob)).map(|p| p.0), Some("topics"));
    let ba_apart = spec("ba", "b", "a", Naming::Identity, &["payments-*"]);
    assert_eq!(ba_apart.problem(std::slice::from_ref(&ab_glob)), None);

    let onto_itself = spec("aa", "a", "a", Naming::Identity, &["orders"]);
    assert_eq!(onto_itself.problem(&[]).map(|p| p.0), Some("naming"));
    assert_eq!(Spec { naming: Naming::Prefix, ..onto_itself }.problem(&[]), None);

    for glob in ["*.internal", "heartbeats", "__*", "mm2-*", "*checkpoints*", "m*"] {
        let s = spec("x", "a", "b", Naming::Prefix, &[glob]);
        assert_eq!(s.problem(&[]).map(|p| p.0), Some("topics"), "{glob}");
    }
    for glob in ["*", "orders", "payments-*"] {
        let s = spec("x", "a", "b", Naming::Prefix, &[glob]);
        assert_eq!(s.problem(&[]), None, "{glob}");
    }
}

#[test]
fn copies_from_the_target_never_go_back_and_a_pair_copies_a_topic_once() {
    // Under prefix naming a topic that came from the target, at any depth, is not copied back.
    let ab = spec("ab", "a", "b", Naming::Prefix, &["*"]);
    assert!(ab.copies("orders"));
    assert!(!ab.copies("b.orders"));
    assert!(!ab.copies("c.b.orders"));
    assert!(ab.copies("c.orders"));
    // A second replication of the same pair may not take the same topics.
    let twin = spec("ab2", "a", "b", Naming::Prefix, &["orders"]);
    let (field, message) = twin.problem(std::slice::from_ref(&ab)).expect("twin");
    assert_eq!(field, "topics");
    assert!(message.contains("Replication \"ab\""), "{message}");
    let other = spec("ab3", "a", "b", Naming::Prefix, &["payments"]);
    let narrow = spec("ab", "a", "b", Naming::Prefix, &["orders"]);
    assert_eq!(other.problem(std::slice::from_ref(&narrow)), None);
    let (eu, orders) = (
        spec("ab4", "a", "b", Naming::Prefix, &["*-eu"]),
        spec("ab", "a", "b", Naming::Prefix, &["orders-*"]),
    );
    assert_eq!(eu.problem(std::slice::from_ref(&orders)).map(|p| p.0), Some("topics"));
    // The internal topics of these very clusters, named outright or by a pattern.
    for glob in ["mm2-offset-syncs.b.internal", "a.checkpoints.internal", "__transaction_state"] {
        let s = spec("x", "a", "b", Naming::Prefix, &[glob]);
        assert_eq!(s.problem(&[]).map(|p| p.0), Some("topics"), "{glob}");
    }
    // The reserved names of replications' connectors.
    assert!(is_reserved("x.mirror-source") && is_reserved("y.mirror-heartbeat"));
    assert!(!is_reserved("mirror-source") && !is_reserved("x.mirror"));
}

#[test]
fn a_failover_plan_holds_only_while_from_and_to_are_as_planned() {
    let now = |from: Option<i64>, to: i64| app::api::OffsetMove {
        topic: "t".into(),
        partition: 0,
        from,
        to,
        low: 0,
        end: 100,
        lag_before: None,
        lag_after: 0,
        skipped: 0,
        reread: 0,
    };
    let sent = |from: Option<i64>, to: i64| app::api::PlannedOffset {
        topic: "t".into(),
        partition: 0,
        from,
        to,
    };
    assert!(plan_holds(&[sent(None, 40)], &[now(None, 40)]));
    // The group moved, or newer checkpoints translate elsewhere, or the caller's own offset.
    assert!(!plan_holds(&[sent(None, 40)], &[now(Some(3), 40)]));
    assert!(!plan_holds(&[sent(None, 40)], &[now(None, 55)]));
    assert!(!plan_holds(&[sent(None, 99)], &[now(None, 40)]));
    // The same partition twice, or one missing.
    assert!(!plan_holds(&[sent(None, 40), sent(None, 40)], &[now(None, 40)]));
    assert!(!plan_holds(&[], &[now(None, 40)]));
}

#[test]
fn names_and_patterns_are_judged() {
    assert_eq!(name_problem("eu-copy_1.v2"), None);
    for bad in ["", "Upper", "a b", ".dot", "a/b", &"x".repeat(MAX_NAME + 1)] {
        assert!(name_problem(bad).is_some(), "{bad:?}");
    }
    assert_eq!(pattern_problem("orders-*.v?"), None);
    for bad in ["", "a,b", "a b", "[x]", "a|b"] {
        assert!(pattern_problem(bad).is_some(), "{bad:?}");
    }
}

/// Bytes as MirrorMaker 4.1 writes them (Kafka's protocol types), built by hand.
fn string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as i16).to_be_bytes().to_vec();
    out.extend_from_slice(s.as_bytes());
    out
}

#[test]
fn offset_syncs_and_checkpoints_decode_and_refuse_what_is_not_theirs() {
    let mut key = string("orders");
    key.extend_from_slice(&3i32.to_be_bytes());
    let mut value = 120i64.to_be_bytes().to_vec();
    value.extend_from_slice(&80i64.to_be_bytes());
    assert_eq!(
        offset_sync(&key, &value),
        Some(OffsetSync { topic: "orders".into(), partition: 3, upstream: 120, downstream: 80 })
    );
    let mut ckey = string("billing");
    ckey.extend_from_slice(&string("remote.orders"));
    ckey.extend_from_slice(&1i32.to_be_bytes());
    let mut cvalue = 0i16.to_be_bytes().to_vec();
    cvalue.extend_from_slice(&50i64.to_be_bytes());
    cvalue.extend_from_slice(&41i64.to_be_bytes());
    cvalue.extend_from_slice(&string(""));
    let got = checkpoint(&ckey, &cvalue).expect("a checkpoint");
    assert_eq!(
        (got.group.as_str(), got.topic.as_str(), got.partition, got.upstream, got.downstream),
        ("billing", "remote.orders", 1, 50, 41)
    );
    // Cut short anywhere, a length past the end, a negative length, another version.
    for n in 0..key.len() {
        assert_eq!(offset_sync(&key[..n], &value), None);
    }
    assert_eq!(offset_sync(&key, &value[..15]), None);
    assert_eq!(offset_sync(&[0x7f, 0xff, b'a'], &value), None);
    assert_eq!(offset_sync(&[0xff, 0xff], &value), None);
    let mut v1 = cvalue.clone();
    v1[1] = 1;
    assert_eq!(checkpoint(&ckey, &v1), None);
    // Negative offsets are nobody's offsets.
    let mut negative = (-5i64).to_be_bytes().to_vec();
    negative.extend_from_slice(&80i64.to_be_bytes());
    assert_eq!(offset_sync(&key, &negative), None);
}

#[test]
fn progress_counts_past_the_newest_sync() {
    let sync = OffsetSync { topic: "t".into(), partition: 0, upstream: 100, downstream: 90 };
    // The copy holds 90..95: source 100..105 are there, 105.. not yet.
    assert_eq!(progress(Some((0, 130)), Some(&sync), Some(95)), (Some(105), Some(25)));
    // Never past the source's end.
    assert_eq!(progress(Some((0, 101)), Some(&sync), Some(99)), (Some(101), Some(0)));
    // Nothing to copy on an empty partition; no sync yet on a full one: unknown.
    assert_eq!(progress(Some((7, 7)), None, None), (Some(7), Some(0)));
    assert_eq!(progress(Some((0, 7)), None, Some(3)), (None, None));
    // Extreme offsets saturate rather than overflow.
    let huge =
        OffsetSync { topic: "t".into(), partition: 0, upstream: i64::MAX - 1, downstream: 0 };
    assert_eq!(progress(Some((0, 5)), Some(&huge), Some(i64::MAX)), (Some(5), Some(0)));
    // A source end klens could not read: how far, but not the lag.
    assert_eq!(progress(None, Some(&sync), Some(90)), (Some(100), None));
}
