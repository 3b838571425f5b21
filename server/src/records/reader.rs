//! The consumers that read records: they join no group, commit nothing, and close away from
//! the answer.

use crate::kafka::ClientError;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::{Offset, TopicPartitionList};

/// The context of the consumers that read records. Their failures reach the request that
/// reads (and its answer); what librdkafka says besides (the end of a partition, which is how
/// every read ends, or a connection cut while a short-lived reader closes) is only debug.
pub struct ReaderContext;

impl rdkafka::client::ClientContext for ReaderContext {
    fn log(&self, _level: rdkafka::config::RDKafkaLogLevel, facility: &str, message: &str) {
        tracing::debug!(facility, "record reader: {message}");
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::debug!(%error, "record reader: {reason}");
    }
}

impl rdkafka::consumer::ConsumerContext for ReaderContext {}

/// A consumer that reads records.
pub type Reader = BaseConsumer<ReaderContext>;

/// Closes a reader away from the answer: closing waits for librdkafka to leave cleanly, which
/// takes up to a poll interval and would otherwise delay every response.
pub fn close_later(reader: Reader) {
    std::thread::spawn(move || drop(reader));
}

/// How a reader treats the end of a partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A page: small fetches, since a page shows few records.
    Page,
    /// The export: the cluster's fetch sizes, for throughput.
    Export,
    /// The tail: the end of a partition is where it waits, not where it stops.
    Tail,
}

/// A reader assigned to `starts` (partition, offset) of `topic`.
pub fn open(
    config: &ClientConfig, topic: &str, starts: &[(i32, i64)], kind: Kind,
) -> Result<Reader, ClientError> {
    let mut config = config.clone();
    config.set("enable.auto.commit", "false");
    config.set("enable.partition.eof", if kind == Kind::Tail { "false" } else { "true" });
    if kind == Kind::Page {
        // A page shows few records: fetch a little per partition at a time, not a megabyte
        // (a record larger than this still comes, alone). Its reader reads one span and is
        // closed, so what it fetches past the span's end is waste (on a compressed topic,
        // decompressed for nothing): a queue of 2 MiB ahead instead of the export readers'
        // 8 MiB, refilled as the export's is.
        config
            .set("auto.offset.reset", "error")
            .set("queued.max.messages.kbytes", "2048")
            .set("fetch.queue.backoff.ms", "5")
            .set("max.partition.fetch.bytes", "262144");
    }
    if kind == Kind::Export {
        // An export reads as fast as it writes: a smaller queue ahead than a page's holds less
        // memory (librdkafka counts it in decompressed bytes), and a shorter wait when it is
        // full keeps the reader from idling. dev/bench-records, three exports of lz4 JSON back
        // to back: 2 MiB and 5 ms held 31-46 MiB above idle at the peak, at the speed of
        // 8 MiB and 10 ms, which held 69-88 MiB. Fetches of 256 KiB a partition rather than
        // 1 MiB arrive sooner and overshoot the queue less: the zstd JSON export ran a fifth
        // faster, and three exports of 1 GiB of lz4 JSON held 27 MiB above idle against 46.
        config
            .set("queued.max.messages.kbytes", "2048")
            .set("fetch.queue.backoff.ms", "5")
            .set("max.partition.fetch.bytes", "262144");
    }
    let consumer: Reader = config
        .create_with_context(ReaderContext)
        .map_err(ClientError::while_("creating a reader"))?;
    let mut list = TopicPartitionList::new();
    for (partition, offset) in starts {
        list.add_partition_offset(topic, *partition, Offset::Offset(*offset))
            .map_err(ClientError::while_("listing partitions"))?;
    }
    consumer.assign(&list).map_err(ClientError::while_("assigning partitions"))?;
    Ok(consumer)
}
