//! Which request kinds the protocol client may send, split by type: a [`ReadRequest`] reads,
//! a [`WriteRequest`] changes a cluster and is sent only with the grant for its privilege on
//! every resource it names. A kind with neither mark cannot be sent at all.

use app::access::Resource;
use app::Privilege;
use kafka_protocol::messages::{
    AlterClientQuotasRequest, AlterUserScramCredentialsRequest, ConsumerGroupDescribeRequest,
    CreateAclsRequest, CreatePartitionsRequest, DeleteAclsRequest, DeleteGroupsRequest,
    DeleteRecordsRequest, DescribeAclsRequest, DescribeClientQuotasRequest, DescribeClusterRequest,
    DescribeConfigsRequest, DescribeGroupsRequest, DescribeLogDirsRequest,
    DescribeProducersRequest, DescribeQuorumRequest, DescribeTransactionsRequest,
    DescribeUserScramCredentialsRequest, FindCoordinatorRequest, IncrementalAlterConfigsRequest,
    ListGroupsRequest, ListTransactionsRequest, MetadataRequest, OffsetCommitRequest,
    OffsetDeleteRequest, OffsetFetchRequest,
};
use kafka_protocol::protocol::Request;

use super::topics::TOPIC_RESOURCE;

/// A request that only reads.
pub trait ReadRequest: Request {}

impl ReadRequest for MetadataRequest {}
impl ReadRequest for ListGroupsRequest {}
impl ReadRequest for DescribeGroupsRequest {}
impl ReadRequest for ConsumerGroupDescribeRequest {}
impl ReadRequest for OffsetFetchRequest {}
impl ReadRequest for DescribeLogDirsRequest {}
impl ReadRequest for DescribeClusterRequest {}
impl ReadRequest for DescribeQuorumRequest {}
impl ReadRequest for DescribeConfigsRequest {}
impl ReadRequest for FindCoordinatorRequest {}
impl ReadRequest for DescribeAclsRequest {}
impl ReadRequest for DescribeUserScramCredentialsRequest {}
impl ReadRequest for DescribeClientQuotasRequest {}
impl ReadRequest for DescribeProducersRequest {}
impl ReadRequest for ListTransactionsRequest {}
impl ReadRequest for DescribeTransactionsRequest {}

/// A request that changes a cluster: the privilege it needs on each resource it names. A
/// request that names none is not sent.
pub trait WriteRequest: Request {
    fn needs(&self) -> Vec<(Privilege, Resource)>;
}

fn topic(name: &str) -> Resource {
    Resource::Topic { name: name.to_string(), internal: false }
}

impl WriteRequest for OffsetDeleteRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        vec![(Privilege::DeleteOffsets, Resource::group(self.group_id.0.to_string()))]
    }
}

impl WriteRequest for OffsetCommitRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        vec![(Privilege::ResetOffsets, Resource::group(self.group_id.0.to_string()))]
    }
}

impl WriteRequest for DeleteGroupsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.groups_names
            .iter()
            .map(|g| (Privilege::DeleteGroups, Resource::group(g.0.to_string())))
            .collect()
    }
}

impl WriteRequest for IncrementalAlterConfigsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.resources
            .iter()
            .map(|r| {
                if r.resource_type == TOPIC_RESOURCE {
                    (Privilege::AlterTopicConfigs, topic(&r.resource_name))
                } else {
                    // Brokers, the cluster-wide default and loggers.
                    (Privilege::AlterBrokerConfigs, Resource::Cluster)
                }
            })
            .collect()
    }
}

impl WriteRequest for CreatePartitionsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.topics.iter().map(|t| (Privilege::AddPartitions, topic(&t.name.0))).collect()
    }
}

impl WriteRequest for DeleteRecordsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.topics.iter().map(|t| (Privilege::DeleteRecords, topic(&t.name.0))).collect()
    }
}

impl WriteRequest for CreateAclsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.creations.iter().map(|_| (Privilege::CreateAcls, Resource::Cluster)).collect()
    }
}

impl WriteRequest for DeleteAclsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.filters.iter().map(|_| (Privilege::DeleteAcls, Resource::Cluster)).collect()
    }
}

impl WriteRequest for AlterClientQuotasRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        self.entries.iter().map(|_| (Privilege::AlterQuotas, Resource::Cluster)).collect()
    }
}

impl WriteRequest for AlterUserScramCredentialsRequest {
    fn needs(&self) -> Vec<(Privilege, Resource)> {
        let deletions =
            self.deletions.iter().map(|_| (Privilege::DeleteScramCredentials, Resource::Cluster));
        let upsertions =
            self.upsertions.iter().map(|_| (Privilege::SetScramCredentials, Resource::Cluster));
        deletions.chain(upsertions).collect()
    }
}
