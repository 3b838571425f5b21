//! Which request kinds the protocol client may send, split by type: a [`ReadRequest`] reads,
//! a [`WriteRequest`] changes a cluster and is sent only with the grant for its privilege on its
//! resource. A kind with neither mark cannot be sent at all.

use app::access::Resource;
use app::Privilege;
use kafka_protocol::messages::{
    ConsumerGroupDescribeRequest, DescribeClusterRequest, DescribeGroupsRequest,
    DescribeLogDirsRequest, DescribeQuorumRequest, ListGroupsRequest, MetadataRequest,
    OffsetDeleteRequest, OffsetFetchRequest,
};
use kafka_protocol::protocol::Request;

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

/// A request that changes a cluster: the privilege it needs, on which resource.
pub trait WriteRequest: Request {
    fn needs(&self) -> (Privilege, Resource);
}

impl WriteRequest for OffsetDeleteRequest {
    fn needs(&self) -> (Privilege, Resource) {
        (
            Privilege::DeleteOffsets,
            Resource::Group(self.group_id.0.to_string()),
        )
    }
}
