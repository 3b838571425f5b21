//! Changes to consumer groups over the protocol client: committing offsets (a reset), deleting
//! a group's offsets on a topic, deleting a group. Each goes to the group's coordinator, found
//! afresh, and is a [`WriteRequest`](super::kinds::WriteRequest) sent only under its grant.

use kafka_protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kafka_protocol::messages::offset_delete_request::{
    OffsetDeleteRequestPartition, OffsetDeleteRequestTopic,
};
use kafka_protocol::messages::{
    DeleteGroupsRequest, FindCoordinatorRequest, GroupId, OffsetCommitRequest, OffsetDeleteRequest,
    TopicName,
};
use kafka_protocol::protocol::StrBytes;

use super::topics::Refusal;
use super::{Group, WireClient, WireError, WireResult};
use crate::auth::Grant;
use crate::kafka::Broker;

/// FindCoordinator's key type for a consumer group.
const GROUP_KEY: i8 = 0;

fn text(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// What Kafka said about one partition of a change.
pub type PartitionOutcome = (String, i32, Result<(), Refusal>);

/// Each partition's outcome in a commit's or a deletion's answer, from each topic's name and
/// its partitions' error codes.
fn outcomes<T>(
    topics: Vec<T>, codes: impl Fn(&T) -> (String, Vec<(i32, i16)>),
) -> Vec<PartitionOutcome> {
    let mut all = Vec::new();
    for topic in &topics {
        let (name, partitions) = codes(topic);
        for (partition, code) in partitions {
            all.push((name.clone(), partition, Refusal::of(code, None)));
        }
    }
    all
}

impl WireClient {
    /// The broker that coordinates `group` now, asked of the first broker that answers.
    pub async fn coordinator(&self, known: &[Broker], group: &str) -> WireResult<Broker> {
        // Version 4 and later (Kafka 3.0 on) take a list of keys, and only that.
        let request = FindCoordinatorRequest::default()
            .with_key_type(GROUP_KEY)
            .with_coordinator_keys(vec![text(group)]);
        let response = self.ask_any(known, &request, 4).await?;
        let Some(c) = response.coordinators.first() else {
            return Err(WireError::Protocol(
                "FindCoordinator: an answer without the group".to_string(),
            ));
        };
        if c.error_code != 0 {
            return Err(WireError::Kafka { context: Some("FindCoordinator"), code: c.error_code });
        }
        Ok(Broker { id: c.node_id.0, host: c.host.to_string(), port: c.port })
    }

    /// `group` as its coordinator describes it now: state, members and committed offsets.
    pub async fn group_now(&self, known: &[Broker], id: &str, kind: &str) -> WireResult<Group> {
        let coordinator = self.coordinator(known, id).await?;
        self.group(&coordinator, id, kind).await
    }

    /// Commits `offsets` (topic, partition, offset) for `group`, as a tool does for a group with
    /// no members: no generation, no member id. Kafka refuses it while the group has members.
    pub async fn commit_offsets(
        &self, grant: &Grant, coordinator: &Broker, group: &str, offsets: &[(String, i32, i64)],
    ) -> WireResult<Vec<PartitionOutcome>> {
        let mut topics: Vec<OffsetCommitRequestTopic> = Vec::new();
        for (topic, partition, offset) in offsets {
            let entry = OffsetCommitRequestPartition::default()
                .with_partition_index(*partition)
                .with_committed_offset(*offset)
                .with_committed_leader_epoch(-1)
                .with_committed_metadata(Some(StrBytes::from_static_str("")));
            match topics.iter_mut().find(|t| *t.name.0 == **topic) {
                Some(t) => t.partitions.push(entry),
                None => topics.push(
                    OffsetCommitRequestTopic::default()
                        .with_name(TopicName(text(topic)))
                        .with_partitions(vec![entry]),
                ),
            }
        }
        let request = OffsetCommitRequest::default()
            .with_group_id(GroupId(text(group)))
            .with_generation_id_or_member_epoch(-1)
            .with_member_id(StrBytes::from_static_str(""))
            .with_group_instance_id(None)
            .with_retention_time_ms(-1)
            .with_topics(topics);
        let mut lease = self.lease(coordinator).await?;
        let response = lease.write(grant, &request, 2).await?;
        Ok(outcomes(response.topics, |t| {
            let codes = t.partitions.iter().map(|p| (p.partition_index, p.error_code));
            (t.name.0.to_string(), codes.collect())
        }))
    }

    /// Deletes the committed offsets of `group` on `partitions` of `topic`.
    pub async fn delete_offsets(
        &self, grant: &Grant, coordinator: &Broker, group: &str, topic: &str, partitions: &[i32],
    ) -> WireResult<Result<Vec<PartitionOutcome>, Refusal>> {
        let request = OffsetDeleteRequest::default()
            .with_group_id(GroupId(text(group)))
            .with_topics(vec![OffsetDeleteRequestTopic::default()
                .with_name(TopicName(text(topic)))
                .with_partitions(
                    partitions
                        .iter()
                        .map(|p| OffsetDeleteRequestPartition::default().with_partition_index(*p))
                        .collect(),
                )]);
        let mut lease = self.lease(coordinator).await?;
        let response = lease.write(grant, &request, 0).await?;
        if let Err(refusal) = Refusal::of(response.error_code, None) {
            return Ok(Err(refusal));
        }
        Ok(Ok(outcomes(response.topics, |t| {
            let codes = t.partitions.iter().map(|p| (p.partition_index, p.error_code));
            (t.name.0.to_string(), codes.collect())
        })))
    }

    /// Deletes `group`, which Kafka allows only while it has no members.
    pub async fn delete_group(
        &self, grant: &Grant, coordinator: &Broker, group: &str,
    ) -> WireResult<Result<(), Refusal>> {
        let request = DeleteGroupsRequest::default().with_groups_names(vec![GroupId(text(group))]);
        let mut lease = self.lease(coordinator).await?;
        let response = lease.write(grant, &request, 0).await?;
        match response.results.first() {
            Some(r) => Ok(Refusal::of(r.error_code, None)),
            None => {
                Err(WireError::Protocol("DeleteGroups: an answer without the group".to_string()))
            }
        }
    }
}
