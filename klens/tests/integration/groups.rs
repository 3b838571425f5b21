use std::time::Duration;

use crate::support::*;

#[tokio::test]
async fn groups_show_exact_committed_offsets_lag_and_members() {
    let topic = unique("it-lag");
    create_topic(&topic, 3).await;
    produce(&topic, &[(0, 10), (1, 4)]);
    let idle = unique("it-idle");
    commit_offsets(&idle, &topic, &[(0, 7), (1, 4)]);
    let active = unique("it-active");
    let client_id = unique("it-client");
    let _member = join_group(&active, &topic, &client_id, "classic");

    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| {
        e.topics(&Default::default())
            .topics
            .iter()
            .any(|t| t.name == topic && t.records == Some(14))
    })
    .await;
    entry.refresh_groups().await;

    let group = entry.group(&idle).expect("the committed group is listed");
    assert_eq!(group.state, "Empty");
    assert!(group.members.is_empty());
    let offsets: Vec<_> = group
        .offsets
        .iter()
        .map(|o| (o.topic.as_str(), o.partition, o.committed, o.end, o.lag))
        .collect();
    assert_eq!(
        offsets,
        [
            (topic.as_str(), 0, Some(7), Some(10), Some(3)),
            (topic.as_str(), 1, Some(4), Some(4), Some(0)),
            (topic.as_str(), 2, None, Some(0), Some(0)),
        ],
        "partition 2 has no committed offset: listed as such, its (no) records as lag"
    );
    assert_eq!(group.lag, Some(3));

    let listed = entry.groups(&Default::default());
    let row = listed.groups.iter().find(|g| g.group == idle).expect("listed");
    assert_eq!((row.members, row.topics, row.lag), (0, 1, Some(3)));
    assert!(listed.refreshed_at.is_some() && listed.error.is_none());

    let member_group = entry.group(&active).expect("the joined group is listed");
    assert_eq!(member_group.state, "Stable");
    assert_eq!(member_group.members.len(), 1);
    let member = &member_group.members[0];
    assert_eq!(member.client_id, client_id);
    assert!(!member.host.is_empty());
    let mut assigned: Vec<_> =
        member.assignments.iter().map(|a| (a.topic.as_str(), a.partition)).collect();
    assigned.sort();
    assert_eq!(assigned, [(topic.as_str(), 0), (topic.as_str(), 1), (topic.as_str(), 2)]);

    let consumers = entry.topic(&topic).expect("topic").consumers;
    let lag_of = |g: &str| consumers.iter().find(|c| c.group == g).map(|c| c.lag);
    assert_eq!(lag_of(&idle), Some(Some(3)));
}

#[tokio::test]
async fn kip_848_groups_show_their_members_and_assignments() {
    let topic = unique("it-848");
    create_topic(&topic, 3).await;
    let group = unique("it-848-group");
    let client_id = unique("it-848-client");
    let _member = join_group(&group, &topic, &client_id, "consumer");

    let catalog = scram_catalog();
    let entry = catalog.get("local").expect("configured");
    refresh_until(entry, |e| e.topic(&topic).is_some()).await;
    // The member holds all three partitions once the group has settled.
    let mut described = None;
    for _ in 0..40 {
        entry.refresh_groups().await;
        described = entry.group(&group);
        if described.as_ref().is_some_and(|g| {
            g.state == "Stable" && g.members.first().is_some_and(|m| m.assignments.len() == 3)
        }) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let described = described.expect("the KIP-848 group is listed");
    assert_eq!(described.state, "Stable", "{described:?}");
    assert_eq!(described.members.len(), 1, "{described:?}");
    let member = &described.members[0];
    assert_eq!(member.client_id, client_id);
    assert!(!member.host.is_empty());
    let assigned: Vec<_> =
        member.assignments.iter().map(|a| (a.topic.as_str(), a.partition)).collect();
    assert_eq!(assigned, [(topic.as_str(), 0), (topic.as_str(), 1), (topic.as_str(), 2)]);
    let row = entry
        .groups(&Default::default())
        .groups
        .into_iter()
        .find(|g| g.group == group)
        .expect("listed");
    assert_eq!(row.members, 1);
}
