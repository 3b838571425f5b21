//! Writing one record (PRODUCE on its topic) with the cluster's producer, and Kafka's refusals
//! as the contract's errors.

use std::time::Duration;

use app::{ApiError, Privilege};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::FutureRecord;
use rdkafka::util::Timeout;

use super::{admin_error, clients_of, refusal};
use crate::auth::Grant;
use crate::kafka::Link;

/// A record to write, its bytes already made.
pub struct Outgoing {
    pub topic: String,
    /// `None`: the producer's partitioner places it.
    pub partition: Option<i32>,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    pub timestamp: i64,
}

/// `record` as librdkafka's producer takes it.
fn future_record(record: &Outgoing) -> FutureRecord<'_, [u8], [u8]> {
    let mut headers = OwnedHeaders::new_with_capacity(record.headers.len());
    for (key, value) in &record.headers {
        headers = headers.insert(Header { key, value: value.as_deref() });
    }
    let mut out =
        FutureRecord::<[u8], [u8]>::to(&record.topic).headers(headers).timestamp(record.timestamp);
    if let Some(p) = record.partition {
        out = out.partition(p);
    }
    if let Some(key) = &record.key {
        out = out.key(key.as_slice());
    }
    if let Some(value) = &record.value {
        out = out.payload(value.as_slice());
    }
    out
}

/// How long a record may wait in the producer's queue.
const QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

/// Writes `record` and waits for Kafka's acknowledgement (all in-sync replicas): the
/// partition and offset it got.
pub async fn produce(
    grant: &Grant, link: &Link, record: &Outgoing,
) -> Result<(i32, i64), ApiError> {
    grant.require_topic(Privilege::Produce, &record.topic)?;
    let clients = clients_of(link)?;
    let producer = clients.producer().ok_or_else(|| ApiError::read_only_cluster(&link.cluster))?;
    let out = future_record(record);
    match producer.send(out, Timeout::After(QUEUE_TIMEOUT)).await {
        Ok(delivery) => Ok((delivery.partition, delivery.offset)),
        Err((error, _)) => Err(write_error(&record.topic, &error)),
    }
}

/// Kafka's refusal of a record written to `topic`, as the contract's error.
fn write_error(topic: &str, error: &rdkafka::error::KafkaError) -> ApiError {
    match error.rdkafka_error_code() {
        Some(code) => refusal("write to topic", topic, code),
        None => admin_error("write to the topic", error),
    }
}

/// Why a record was not queued.
pub enum NotQueued {
    /// The producer's queue is full: wait for deliveries, then try again.
    Full,
    Refused(ApiError),
}

/// Queues `record` on the cluster's producer for many records without waiting: the delivery's
/// future, to await among others (a copy keeps many records in flight). Takes the grant for
/// PRODUCE on the record's topic, as [`produce`] does.
pub fn queue(
    grant: &Grant, link: &Link, record: &Outgoing,
) -> Result<rdkafka::producer::DeliveryFuture, NotQueued> {
    grant.require_topic(Privilege::Produce, &record.topic).map_err(NotQueued::Refused)?;
    let clients = clients_of(link).map_err(NotQueued::Refused)?;
    let producer = clients
        .bulk_producer()
        .ok_or_else(|| NotQueued::Refused(ApiError::read_only_cluster(&link.cluster)))?;
    let out = future_record(record);
    producer.send_result(out).map_err(|(error, _)| match error.rdkafka_error_code() {
        Some(rdkafka::types::RDKafkaErrorCode::QueueFull) => NotQueued::Full,
        _ => NotQueued::Refused(write_error(&record.topic, &error)),
    })
}

/// What a queued record's delivery came to: its partition and offset, or Kafka's refusal.
pub fn delivered(
    topic: &str,
    outcome: Result<
        rdkafka::producer::future_producer::OwnedDeliveryResult,
        futures::channel::oneshot::Canceled,
    >,
) -> Result<(i32, i64), ApiError> {
    match outcome {
        Ok(Ok(delivery)) => Ok((delivery.partition, delivery.offset)),
        Ok(Err((error, _))) => Err(write_error(topic, &error)),
        Err(_) => Err(ApiError::new(
            app::ErrorCode::Client,
            "The producer went away before the record was delivered.",
        )),
    }
}
