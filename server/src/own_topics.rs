//! The topics only klens writes, beside the audit's: the processors' definitions, the leases,
//! the copy jobs. Each has one partition and is compacted (one record per key, a tombstone once
//! the key is gone); klens makes it when it is missing and reads it whole.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::{Client, ClientContext, DefaultClientContext};
use rdkafka::ClientConfig;

use crate::records::scan::{read_spans, Span};

/// Creates `topic` with one partition, the cluster's replication and `configs`, unless it
/// exists.
pub async fn make(
    admin: &ClientConfig, topic: &str, configs: &[(&str, &str)], wait: Duration,
) -> Result<(), String> {
    let admin: AdminClient<DefaultClientContext> = admin.create().map_err(|e| e.to_string())?;
    let mut new = NewTopic::new(topic, 1, TopicReplication::Fixed(-1));
    for (key, value) in configs {
        new = new.set(key, value);
    }
    let made = admin
        .create_topics([&new], &AdminOptions::new().operation_timeout(Some(wait)))
        .await
        .map_err(|e| e.to_string())?;
    for result in made {
        match result {
            Ok(_) | Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists)) => {}
            Err((_, code)) => return Err(format!("{topic}: {code}")),
        }
    }
    Ok(())
}

/// Each key's last value in `topic` (a tombstone removes the key), read to the end as `reader`
/// sees it (read committed, where it says so). A topic that does not exist yet holds nothing
/// when `may_be_missing`, else it is an error (as is any other answer about it). A topic of
/// more than one partition is not klens's: refused, since its keys would be spread. `client`
/// must not create topics it asks about (`allow.auto.create.topics=false`). Blocks.
pub fn latest<C: ClientContext>(
    client: &Client<C>, reader: &ClientConfig, topic: &str, may_be_missing: bool, wait: Duration,
) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let metadata = client.fetch_metadata(Some(topic), wait).map_err(|e| e.to_string())?;
    let Some(found) = metadata.topics().first() else {
        return Err(format!("{topic}: no metadata"));
    };
    match found.error() {
        Some(rdkafka::types::RDKafkaRespErr::RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
            if may_be_missing =>
        {
            return Ok(BTreeMap::new())
        }
        Some(error) => return Err(format!("{topic}: {error:?}")),
        None => {}
    }
    if found.partitions().len() != 1 {
        return Err(format!(
            "{topic} has {} partitions; klens keeps it in one: delete it and let klens make it",
            found.partitions().len()
        ));
    }
    let (low, high) = client.fetch_watermarks(topic, 0, wait).map_err(|e| e.to_string())?;
    let mut latest = BTreeMap::new();
    let spans = [Span { partition: 0, start: low, end: high }];
    let whole = read_spans(reader, topic, &spans, Instant::now() + wait, |record| {
        let Some(key) = record.key.and_then(|k| String::from_utf8(k).ok()) else { return };
        match record.value {
            Some(value) => latest.insert(key, value),
            None => latest.remove(&key),
        };
    })
    .map_err(|e| e.to_string())?;
    if !whole {
        return Err(format!("{topic} was not read to its end in time"));
    }
    Ok(latest)
}
