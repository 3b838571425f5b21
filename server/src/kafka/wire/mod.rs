//! klens's own Kafka protocol client, for what librdkafka's Rust binding does not offer:
//! metadata with Kafka's internal flag, consumer groups with their committed offsets, log dirs,
//! and the active controller and racks. `kafka-protocol` encodes and decodes; this client keeps
//! one connection per broker, with the cluster's own TLS and SASL settings.
//!
//! `kinds.rs` says which request kinds may be sent, by type: reads freely, changes only under
//! the grant for what they change (`topics.rs` holds the topic changes). `error.rs` says what
//! kind of failure each error is.

pub mod acls;
mod brokers;
mod conn;
mod error;
mod groups;
pub mod kinds;
mod metadata;
pub mod producers;
pub mod quotas;
mod scram;
pub mod topics;
mod users;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Buf, Bytes};
use futures::future::join_all;
use kafka_protocol::error::ParseResponseErrorCode;
use kafka_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
use kafka_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use kafka_protocol::messages::{
    ConsumerGroupDescribeRequest, DescribeClusterRequest, DescribeGroupsRequest,
    DescribeLogDirsRequest, DescribeQuorumRequest, GroupId, ListGroupsRequest, OffsetFetchRequest,
    TopicName,
};
use kafka_protocol::protocol::{Request, StrBytes};
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{ClientConfig as TlsClientConfig, RootCertStore};

use self::conn::{Connection, Security};
pub use self::error::WireError;
use self::kinds::{ReadRequest, WriteRequest};
use super::Broker;
use crate::auth::Grant;
use crate::config::{ClusterConfig, Secret, TlsConfig};

type WireResult<T> = Result<T, WireError>;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Groups per DescribeGroups or OffsetFetch request.
const GROUP_BATCH: usize = 200;
/// KRaft's metadata log, whose leader is the active controller.
const METADATA_LOG: &str = "__cluster_metadata";

/// Kafka's name for an error code, as Kafka's own tools print it.
fn describe_code(code: i16) -> String {
    match code.err() {
        Some(error) => format!("{error:?}"),
        None => "no error".to_string(),
    }
}

/// A broker's connection, when open; its lock keeps one request sequence at a time.
type Slot = Arc<AsyncMutex<Option<Connection>>>;

/// The protocol client of one cluster.
pub struct WireClient {
    security: Security,
    /// Where to ask for metadata before any broker is known.
    bootstrap: Vec<Broker>,
    /// One connection per broker address, opened on first use and dropped after any failure.
    slots: Mutex<HashMap<(String, u16), Slot>>,
}

/// A connection held for a sequence of requests to one broker.
pub struct Lease {
    label: String,
    guard: OwnedMutexGuard<Option<Connection>>,
}

impl Lease {
    /// Sends a read at the highest common version of at least `min`.
    async fn call<R: ReadRequest>(&mut self, request: &R, min: i16) -> WireResult<R::Response> {
        self.send(request, min).await
    }

    /// Sends a change, only under a grant for the privilege and resource it needs.
    pub async fn write<R: WriteRequest>(
        &mut self, grant: &Grant, request: &R, min: i16,
    ) -> WireResult<R::Response> {
        let needs = request.needs();
        if needs.is_empty() {
            let nothing = WireError::Withheld("a change that names nothing".to_string());
            return Err(WireError::at(&self.label, nothing));
        }
        for (privilege, resource) in &needs {
            grant
                .require(*privilege, resource)
                .map_err(|e| WireError::at(&self.label, WireError::Withheld(e.message)))?;
        }
        self.send(request, min).await
    }

    async fn send<R: Request>(&mut self, request: &R, min: i16) -> WireResult<R::Response> {
        let Some(conn) = self.guard.as_mut() else {
            let closed = WireError::Connection("the connection was closed".to_string());
            return Err(WireError::at(&self.label, closed));
        };
        let outcome = tokio::time::timeout(REQUEST_TIMEOUT, conn.call(request, min)).await;
        let error = match outcome {
            Ok(Ok(response)) => return Ok(response),
            Ok(Err(error)) => error,
            Err(_) => WireError::Connection("no answer in time".to_string()),
        };
        // After a failure the connection may be out of step with the broker: start afresh.
        *self.guard = None;
        Err(WireError::at(&self.label, error))
    }
}

impl WireClient {
    /// Prepares the client; it connects on first use. Fails only on unreadable TLS files.
    pub fn new(cluster: &ClusterConfig) -> WireResult<WireClient> {
        let tls = match &cluster.tls {
            Some(tls) => Some(Arc::new(tls_config(tls)?)),
            None => None,
        };
        Ok(WireClient {
            security: Security { sasl: cluster.sasl.clone(), tls },
            bootstrap: metadata::bootstrap_brokers(&cluster.bootstrap_servers),
            slots: Mutex::new(HashMap::new()),
        })
    }

    async fn lease(&self, broker: &Broker) -> WireResult<Lease> {
        let port = u16::try_from(broker.port)
            .map_err(|_| WireError::Connection("bad broker port".to_string()))?;
        let label = format!("broker {} ({}:{port})", broker.id, broker.host);
        let slot = {
            let mut slots = self
                .slots
                .lock()
                .map_err(|_| WireError::Internal("connection table poisoned".to_string()))?;
            Arc::clone(slots.entry((broker.host.clone(), port)).or_default())
        };
        let mut guard = slot.lock_owned().await;
        if guard.is_none() {
            let opened = tokio::time::timeout(
                CONNECT_TIMEOUT,
                Connection::open(&broker.host, port, &self.security),
            )
            .await
            .map_err(|_| {
                let slow = WireError::Connection("connecting took too long".to_string());
                WireError::at(&label, slow)
            })?
            .map_err(|e| WireError::at(&label, e))?;
            *guard = Some(opened);
        }
        Ok(Lease { label, guard })
    }

    /// The active controller (the leader of KRaft's metadata log) and each broker's rack, from
    /// the first broker that answers.
    pub async fn cluster_info(&self, brokers: &[Broker]) -> WireResult<ClusterInfo> {
        let mut last_error = WireError::Connection("no brokers".to_string());
        for broker in brokers {
            match self.cluster_info_from(broker).await {
                Ok(info) => return Ok(info),
                Err(error) => last_error = error,
            }
        }
        Err(last_error)
    }

    async fn cluster_info_from(&self, broker: &Broker) -> WireResult<ClusterInfo> {
        let mut lease = self.lease(broker).await?;
        let described = lease.call(&DescribeClusterRequest::default(), 0).await?;
        if described.error_code != 0 {
            return Err(WireError::Kafka {
                context: Some("DescribeCluster"),
                code: described.error_code,
            });
        }
        let racks = described
            .brokers
            .iter()
            .filter_map(|b| Some((b.broker_id.0, b.rack.as_ref()?.to_string())))
            .collect();
        // DescribeCluster's controller id is a random broker under KRaft; the quorum's leader
        // is the real one. Reading it needs DESCRIBE on the cluster.
        let quorum = DescribeQuorumRequest::default().with_topics(vec![TopicData::default()
            .with_topic_name(TopicName(StrBytes::from_static_str(METADATA_LOG)))
            .with_partitions(vec![PartitionData::default().with_partition_index(0)])]);
        let controller = match lease.call(&quorum, 0).await {
            Ok(answer) if answer.error_code == 0 => answer
                .topics
                .iter()
                .flat_map(|t| &t.partitions)
                .find(|p| p.error_code == 0)
                .map(|p| p.leader_id.0)
                .filter(|id| *id >= 0),
            Ok(answer) => {
                tracing::debug!(code = %describe_code(answer.error_code), "no quorum answer");
                None
            }
            Err(error) => {
                tracing::debug!(%error, "no quorum answer");
                None
            }
        };
        Ok(ClusterInfo { controller, racks })
    }

    /// Every broker's log dirs, each with its own outcome: one broker failing (or klens lacking
    /// DESCRIBE on the cluster) leaves the others' answers standing.
    pub async fn log_dirs(&self, brokers: &[Broker]) -> Vec<(i32, WireResult<Vec<LogDir>>)> {
        let asks = brokers.iter().map(|b| async move {
            let answer = async {
                let mut lease = self.lease(b).await?;
                // A null topic list (the default is an empty one) asks for every replica.
                let every = DescribeLogDirsRequest::default().with_topics(None);
                let response = lease.call(&every, 1).await?;
                if response.error_code != 0 {
                    return Err(WireError::Kafka { context: None, code: response.error_code });
                }
                Ok(response
                    .results
                    .into_iter()
                    .map(|dir| LogDir {
                        path: dir.log_dir.to_string(),
                        error: (dir.error_code != 0).then(|| describe_code(dir.error_code)),
                        total_bytes: u64::try_from(dir.total_bytes).ok(),
                        usable_bytes: u64::try_from(dir.usable_bytes).ok(),
                        replicas: dir
                            .topics
                            .into_iter()
                            .flat_map(|t| {
                                let name = t.name.0.to_string();
                                t.partitions.into_iter().filter(|p| !p.is_future_key).map(
                                    move |p| ReplicaSize {
                                        topic: name.clone(),
                                        partition: p.partition_index,
                                        size_bytes: u64::try_from(p.partition_size).unwrap_or(0),
                                    },
                                )
                            })
                            .collect(),
                    })
                    .collect())
            }
            .await;
            (b.id, answer)
        });
        join_all(asks).await
    }

    /// Every consumer group on the cluster: each broker lists the groups it coordinates, then
    /// describes them and reads their committed offsets, in batches. Fails if any broker does,
    /// so a partial list never replaces a whole one.
    pub async fn groups(&self, brokers: &[Broker]) -> WireResult<Vec<Group>> {
        let answers = join_all(brokers.iter().map(|b| self.groups_of(b))).await;
        let mut groups = Vec::new();
        for answer in answers {
            groups.extend(answer?);
        }
        groups.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(groups)
    }

    async fn groups_of(&self, broker: &Broker) -> WireResult<Vec<Group>> {
        let mut lease = self.lease(broker).await?;
        let listed = lease.call(&ListGroupsRequest::default(), 0).await?;
        if listed.error_code != 0 {
            let refused = WireError::Kafka { context: Some("ListGroups"), code: listed.error_code };
            return Err(WireError::at(&lease.label, refused));
        }
        let mut groups: Vec<Group> = listed
            .groups
            .into_iter()
            .map(|g| Group {
                id: g.group_id.0.to_string(),
                state: g.group_state.to_string(),
                protocol_type: g.protocol_type.to_string(),
                kind: g.group_type.to_string(),
                coordinator: broker.id,
                members: Vec::new(),
                offsets: Vec::new(),
                error: None,
            })
            .collect();
        for batch in groups.chunks_mut(GROUP_BATCH) {
            describe(&mut lease, batch).await?;
        }
        Ok(groups)
    }

    /// One group read afresh from its coordinator: what a page someone has open needs. `kind`
    /// is the group's type as the listing gave it (`consumer` for KIP-848 groups).
    pub async fn group(&self, coordinator: &Broker, id: &str, kind: &str) -> WireResult<Group> {
        let mut lease = self.lease(coordinator).await?;
        let mut one = [Group {
            id: id.to_string(),
            state: String::new(),
            protocol_type: String::new(),
            kind: kind.to_string(),
            coordinator: coordinator.id,
            members: Vec::new(),
            offsets: Vec::new(),
            error: None,
        }];
        describe(&mut lease, &mut one).await?;
        let [group] = one;
        Ok(group)
    }
}

/// Whether a group uses the consumer rebalance protocol of KIP-848, which DescribeGroups does
/// not describe.
fn is_modern(group: &Group) -> bool {
    group.kind == "consumer"
}

fn group_ids<'a>(groups: impl Iterator<Item = &'a Group>) -> Vec<GroupId> {
    groups.map(|g| GroupId(StrBytes::from_string(g.id.clone()))).collect()
}

/// The group of `batch` an answer is about, with the answer's error or state recorded; `None`
/// when the answer names no group of the batch or carries an error.
fn answered<'a>(
    batch: &'a mut [Group], id: &GroupId, error_code: i16, state: Option<&str>,
) -> Option<&'a mut Group> {
    let group = batch.iter_mut().find(|g| *g.id == *id.0)?;
    if error_code != 0 {
        group.error = Some(describe_code(error_code));
        return None;
    }
    if let Some(state) = state.filter(|s| !s.is_empty()) {
        group.state = state.to_string();
    }
    Some(group)
}

/// Describes a batch of groups and reads their committed offsets: DescribeGroups for classic
/// groups, ConsumerGroupDescribe for KIP-848 ones, and one OffsetFetch for all.
async fn describe(lease: &mut Lease, batch: &mut [Group]) -> WireResult<()> {
    let ids = group_ids(batch.iter());
    let classic = group_ids(batch.iter().filter(|g| !is_modern(g)));
    if !classic.is_empty() {
        describe_classic(lease, batch, classic).await?;
    }
    let modern = group_ids(batch.iter().filter(|g| is_modern(g)));
    if !modern.is_empty() {
        describe_modern(lease, batch, modern).await?;
    }
    fetch_offsets(lease, batch, ids).await
}

/// KIP-848 groups: members, their clients and the partitions each now holds.
async fn describe_modern(
    lease: &mut Lease, batch: &mut [Group], ids: Vec<GroupId>,
) -> WireResult<()> {
    let described =
        lease.call(&ConsumerGroupDescribeRequest::default().with_group_ids(ids), 0).await?;
    for answer in described.groups {
        let state = Some(answer.group_state.as_str());
        let Some(group) = answered(batch, &answer.group_id, answer.error_code, state) else {
            continue;
        };
        group.protocol_type = "consumer".to_string();
        group.members = answer
            .members
            .into_iter()
            .map(|m| {
                let mut assignments: Vec<(String, i32)> = m
                    .assignment
                    .topic_partitions
                    .into_iter()
                    .flat_map(|tp| {
                        let topic = tp.topic_name.0.to_string();
                        tp.partitions.into_iter().map(move |p| (topic.clone(), p))
                    })
                    .collect();
                assignments.sort();
                Member {
                    member_id: m.member_id.to_string(),
                    client_id: m.client_id.to_string(),
                    host: m.client_host.to_string(),
                    assignments,
                }
            })
            .collect();
    }
    Ok(())
}

/// Classic groups: members, and for consumer groups the partitions their leader assigned.
async fn describe_classic(
    lease: &mut Lease, batch: &mut [Group], ids: Vec<GroupId>,
) -> WireResult<()> {
    let described = lease.call(&DescribeGroupsRequest::default().with_groups(ids), 0).await?;
    for answer in described.groups {
        let state = Some(answer.group_state.as_str());
        let Some(group) = answered(batch, &answer.group_id, answer.error_code, state) else {
            continue;
        };
        group.members = answer
            .members
            .into_iter()
            .map(|m| Member {
                member_id: m.member_id.to_string(),
                client_id: m.client_id.to_string(),
                host: m.client_host.to_string(),
                assignments: if answer.protocol_type.as_str() == "consumer" {
                    decode_assignment(m.member_assignment)
                } else {
                    Vec::new()
                },
            })
            .collect();
    }
    Ok(())
}

/// The committed offsets of a batch of groups, in one OffsetFetch request.
async fn fetch_offsets(
    lease: &mut Lease, batch: &mut [Group], ids: Vec<GroupId>,
) -> WireResult<()> {
    // OffsetFetch for several groups at once needs version 8; no topic list (null, not
    // empty) asks for every topic the group has offsets on.
    let request = OffsetFetchRequest::default().with_groups(
        ids.into_iter()
            .map(|id| OffsetFetchRequestGroup::default().with_group_id(id).with_topics(None))
            .collect(),
    );
    let fetched = lease.call(&request, 8).await?;
    for answer in fetched.groups {
        let Some(group) = answered(batch, &answer.group_id, answer.error_code, None) else {
            continue;
        };
        for topic in answer.topics {
            let name = topic.name.0.to_string();
            for p in topic.partitions {
                if p.error_code == 0 && p.committed_offset >= 0 {
                    group.offsets.push((name.clone(), p.partition_index, p.committed_offset));
                }
            }
        }
        group.offsets.sort();
    }
    Ok(())
}

/// The partitions a member of a classic consumer group was given, from the assignment bytes
/// its leader wrote: the consumer protocol's version, then topics, each a name and a list of
/// partitions (then user data, which klens does not read). Any client that leads a group writes
/// these bytes, so they are read by hand, each count checked against the bytes that remain
/// before anything is kept: `kafka-protocol` would reserve memory for a count it has only just
/// read. Bytes klens cannot read give no partitions rather than an error.
fn decode_assignment(bytes: Bytes) -> Vec<(String, i32)> {
    let mut out = read_assignment(&bytes).unwrap_or_default();
    out.sort();
    out
}

/// The smallest topic entry: a name length and a partition count.
const MIN_TOPIC_ENTRY: usize = 2 + 4;

fn read_assignment(mut buf: &[u8]) -> Option<Vec<(String, i32)>> {
    let _version = buf.try_get_i16().ok()?;
    let topics = usize::try_from(buf.try_get_i32().ok()?).ok()?;
    if topics > buf.remaining() / MIN_TOPIC_ENTRY {
        return None;
    }
    let mut out = Vec::new();
    for _ in 0..topics {
        let length = usize::try_from(buf.try_get_i16().ok()?).ok()?;
        let name = buf.get(..length)?;
        let name = std::str::from_utf8(name).ok()?.to_string();
        buf.advance(length);
        let partitions = usize::try_from(buf.try_get_i32().ok()?).ok()?;
        if partitions > buf.remaining() / 4 {
            return None;
        }
        for _ in 0..partitions {
            out.push((name.clone(), buf.try_get_i32().ok()?));
        }
    }
    Some(out)
}

/// The rustls settings for a cluster's `tls` block: its CA (or the system's trust store) and,
/// for mutual TLS, its client certificate and key. Errors name the file, never its contents.
fn tls_config(tls: &TlsConfig) -> WireResult<TlsClientConfig> {
    let mut roots = RootCertStore::empty();
    match &tls.ca {
        Some(ca) => {
            let certs = CertificateDer::pem_file_iter(ca).map_err(|e| {
                WireError::Setup(format!("cannot read the CA file {}: {e}", ca.display()))
            })?;
            for cert in certs {
                let cert = cert.map_err(|e| {
                    WireError::Setup(format!("bad certificate in {}: {e}", ca.display()))
                })?;
                roots.add(cert).map_err(|e| {
                    WireError::Setup(format!("bad certificate in {}: {e}", ca.display()))
                })?;
            }
        }
        None => {
            for cert in rustls_native_certs::load_native_certs().certs {
                // A system certificate rustls cannot use is skipped, as librdkafka would.
                roots.add(cert).ok();
            }
        }
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let builder = TlsClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| WireError::Setup(format!("TLS set-up failed: {e}")))?
        .with_root_certificates(roots);
    match (&tls.cert, &tls.key) {
        (Some(cert), Some(key)) => {
            let chain = CertificateDer::pem_file_iter(cert)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| {
                    WireError::Setup(format!("cannot read the certificate {}: {e}", cert.display()))
                })?;
            let key = private_key(key, tls.key_password.as_ref())?;
            builder.with_client_auth_cert(chain, key).map_err(|e| {
                WireError::Setup(format!("the client certificate and key do not fit: {e}"))
            })
        }
        _ => Ok(builder.with_no_client_auth()),
    }
}

/// The client key of `path`: plain PEM, or PKCS#8 encrypted with `password` (what
/// `openssl pkcs8 -topk8 -v2 aes-256-cbc` writes, and what librdkafka reads with
/// `ssl.key.password`). Errors name the file, never its contents or the password.
fn private_key(path: &Path, password: Option<&Secret>) -> WireResult<PrivateKeyDer<'static>> {
    const BEGIN: &str = "-----BEGIN ENCRYPTED PRIVATE KEY-----";
    const END: &str = "-----END ENCRYPTED PRIVATE KEY-----";
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| WireError::Setup(format!("cannot read the key {shown}: {e}")))?;
    let Some(start) = text.find(BEGIN) else {
        if text.contains("Proc-Type: 4,ENCRYPTED") {
            return Err(WireError::Setup(format!(
                "the key {shown} is encrypted in the legacy PEM form; convert it with \
                 `openssl pkcs8 -topk8 -v2 aes-256-cbc`"
            )));
        }
        return PrivateKeyDer::from_pem_slice(text.as_bytes())
            .map_err(|e| WireError::Setup(format!("cannot read the key {shown}: {e}")));
    };
    let Some(password) = password else {
        return Err(WireError::Setup(format!(
            "the key {shown} is encrypted; give its password as properties[\"ssl.key.password\"]"
        )));
    };
    let block = text
        .get(start..)
        .and_then(|rest| rest.find(END).and_then(|end| rest.get(..end + END.len())))
        .ok_or_else(|| WireError::Setup(format!("the key {shown} has no end line")))?;
    let (_, document) = pkcs8::der::SecretDocument::from_pem(block)
        .map_err(|e| WireError::Setup(format!("cannot read the key {shown}: {e}")))?;
    let info = pkcs8::EncryptedPrivateKeyInfo::try_from(document.as_bytes())
        .map_err(|e| WireError::Setup(format!("cannot read the key {shown}: {e}")))?;
    let plain = info.decrypt(password.expose()).map_err(|_| {
        WireError::Setup(format!(
            "cannot decrypt the key {shown}: the password is wrong or its cipher unsupported"
        ))
    })?;
    Ok(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(plain.as_bytes().to_vec())))
}

/// What `cluster_info` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterInfo {
    /// The active controller's node id, when klens may read the quorum.
    pub controller: Option<i32>,
    /// Broker id → rack, for brokers that have one.
    pub racks: HashMap<i32, String>,
}

/// One log dir of one broker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogDir {
    pub path: String,
    /// Kafka's error name when the dir is offline or unreadable.
    pub error: Option<String>,
    pub total_bytes: Option<u64>,
    pub usable_bytes: Option<u64>,
    pub replicas: Vec<ReplicaSize>,
}

impl LogDir {
    /// The bytes of every replica in this dir.
    pub fn size_bytes(&self) -> u64 {
        self.replicas.iter().map(|r| r.size_bytes).sum()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaSize {
    pub topic: String,
    pub partition: i32,
    pub size_bytes: u64,
}

/// One consumer group as its coordinator describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub id: String,
    /// Kafka's state name: Stable, Empty, PreparingRebalance, …
    pub state: String,
    /// `consumer` for consumer groups, `connect` for Connect workers, empty for none.
    pub protocol_type: String,
    /// `classic` or `consumer` (KIP-848) where the broker says.
    pub kind: String,
    pub coordinator: i32,
    pub members: Vec<Member>,
    /// (topic, partition, committed offset), sorted.
    pub offsets: Vec<(String, i32, i64)>,
    /// Kafka's error when the group could not be described or its offsets not read.
    pub error: Option<String>,
}

impl Group {
    /// The group as the decision sees it: its id and the topics it has committed offsets on or
    /// its members are assigned, through which a resource scope may cover it.
    pub fn resource(&self) -> app::access::Resource {
        let offsets = self.offsets.iter().map(|(t, _, _)| t.clone());
        let assigned =
            self.members.iter().flat_map(|m| m.assignments.iter().map(|(t, _)| t.clone()));
        app::access::Resource::group_on(&self.id, offsets.chain(assigned))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub member_id: String,
    pub client_id: String,
    pub host: String,
    /// (topic, partition), sorted.
    pub assignments: Vec<(String, i32)>,
}

#[cfg(test)]
mod tests;
