//! Leases that let one change at a time through, across every replica of klens: a change of a
//! processor, of the replications into a cluster, of a connector. They live in the cluster's
//! compacted topic [`LEASES_TOPIC`], which only klens writes (a protected topic), one record per
//! key: who holds it, with which token, until when.
//!
//! Taking and giving back a lease is a compare-and-set that rests on Kafka's transactions. Every
//! replica writes the topic with one transactional id, [`TRANSACTIONAL_ID`]: a producer that
//! starts (`InitProducerId`) fences every earlier one and waits until the transaction that one
//! had under way is committed or aborted. So a replica first starts its producer, then reads the
//! topic (read committed), decides, and commits its record; if another replica started a
//! producer in between, that replica fenced this one and the commit fails: nothing is written and
//! this replica tries again. A commit that succeeds was therefore decided on the topic as it
//! stood when it was written.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::ClientConfig;
use serde::{Deserialize, Serialize};

use app::{ApiError, ErrorCode};

use crate::auth::oidc::now_ms;
use crate::config::ClusterConfig;
use crate::own_topics;

pub use crate::config::LEASES_TOPIC;

/// The transactional id every replica writes [`LEASES_TOPIC`] with (see the module's words).
pub const TRANSACTIONAL_ID: &str = "klens-leases";

/// How long a lease holds when its holder never gives it back (it stopped in the middle): longer
/// than any change under a lease takes (a savepoint waits at most a minute).
const TTL: Duration = Duration::from_secs(600);

/// How long a change waits for another replica's lease on the same thing before it is refused.
const WAIT_FOR: Duration = Duration::from_secs(30);

/// How long one step with Kafka may take.
const STEP: Duration = Duration::from_secs(10);

/// The leases of one cluster.
pub struct Leases {
    cluster: String,
    writer: ClientConfig,
    reader: ClientConfig,
    admin: ClientConfig,
    /// A plain client's settings, for a first look that fences no one.
    probe: ClientConfig,
}

/// What the topic holds for a key while it is held.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Held {
    token: String,
    /// The replica's host name and process id, for the refusal's words and the log.
    holder: String,
    /// Ms since the epoch.
    until: i64,
}

/// A lease taken: given back by [`Leases::hold`], or, when the change is dropped half-way (the
/// client left), by a task of its own.
struct Taken<'a> {
    leases: &'a Leases,
    key: String,
    token: String,
    given_back: bool,
    /// Set when the change is dropped: an attempt to take the lease that commits after that
    /// gives it back at once (`try_take`).
    abandoned: Arc<AtomicBool>,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::SeqCst);
        if self.given_back {
            return;
        }
        let (writer, reader, key, token) = (
            self.leases.writer.clone(),
            self.leases.reader.clone(),
            self.key.clone(),
            self.token.clone(),
        );
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn_blocking(move || give_back(&writer, &reader, &key, &token));
        }
    }
}

impl Leases {
    pub fn new(cluster: &ClusterConfig) -> Leases {
        let mut writer = crate::kafka::client_config(cluster);
        writer
            .set("transactional.id", TRANSACTIONAL_ID)
            .set("transaction.timeout.ms", STEP.as_millis().to_string())
            .set("acks", "all")
            .set("allow.auto.create.topics", "false")
            .set("linger.ms", "0")
            // A producer started right after another's commit is told to wait until that
            // transaction ends: asked again soon, not after librdkafka's default pause.
            .set("retry.backoff.ms", "20")
            .set("message.timeout.ms", STEP.as_millis().to_string());
        let mut reader = crate::kafka::reader_config(cluster);
        // The topic is read to its end at once: a fetch that finds nothing more answers now.
        reader.set("isolation.level", "read_committed").set("fetch.wait.max.ms", "10");
        let mut probe = crate::kafka::client_config(cluster);
        probe.set("allow.auto.create.topics", "false");
        Leases {
            cluster: cluster.name.clone(),
            writer,
            reader,
            admin: crate::kafka::client_config(cluster),
            probe,
        }
    }

    /// Runs `change` holding the lease on `key` (waiting up to [`WAIT_FOR`] for another
    /// replica's), then gives it back, whatever `change` answered. `what` names the thing in a
    /// refusal: `processor "big-orders"`.
    pub async fn hold<T>(
        &self, key: &str, what: &str, change: impl Future<Output = Result<T, ApiError>>,
    ) -> Result<T, ApiError> {
        let mut taken = self.take(key, what).await?;
        let answer = change.await;
        let (writer, reader, key, token) =
            (self.writer.clone(), self.reader.clone(), taken.key.clone(), taken.token.clone());
        taken.given_back = true;
        if let Ok(Err(e)) =
            tokio::task::spawn_blocking(move || give_back(&writer, &reader, &key, &token)).await
        {
            // It ends by itself at its time: the next change waits until then.
            tracing::warn!(cluster = %self.cluster, error = %e, "a lease was not given back");
        }
        answer
    }

    async fn take(&self, key: &str, what: &str) -> Result<Taken<'_>, ApiError> {
        self.make_topic().await?;
        // Made before the first attempt: a change dropped while an attempt runs gives back
        // what that attempt takes, whether the attempt commits before the drop or after it.
        let mut taken = Taken {
            leases: self,
            key: key.to_string(),
            token: format!("{:032x}", rand::random::<u128>()),
            given_back: false,
            abandoned: Arc::new(AtomicBool::new(false)),
        };
        let holder = crate::jobs::replica().to_string();
        let deadline = Instant::now() + WAIT_FOR;
        let mut last_holder = None;
        loop {
            let (writer, reader, probe) =
                (self.writer.clone(), self.reader.clone(), self.probe.clone());
            let (k, t, h) = (key.to_string(), taken.token.clone(), holder.clone());
            let abandoned = Arc::clone(&taken.abandoned);
            let tried = tokio::task::spawn_blocking(move || {
                let tried = try_take(&writer, &reader, &probe, &k, &t, &h);
                if matches!(tried, Ok(None)) && abandoned.load(Ordering::SeqCst) {
                    let _ = give_back(&writer, &reader, &k, &t);
                }
                tried
            })
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r);
            match tried {
                Ok(None) => return Ok(taken),
                Ok(Some(other)) => last_holder = Some(other),
                // Fenced by another replica taking a lease at the same moment: tried again.
                Err(e) => tracing::debug!(cluster = %self.cluster, error = %e, "lease attempt"),
            }
            if Instant::now() >= deadline {
                // No attempt is under way and none took it: nothing to give back.
                taken.given_back = true;
                return Err(match last_holder {
                    Some(other) => ApiError::new(
                        ErrorCode::Admin,
                        format!(
                            "The {what} is being changed by another klens ({other}) in cluster \
                             \"{}\"; nothing was changed here. Try again once that change ends.",
                            self.cluster
                        ),
                    ),
                    None => ApiError::new(
                        ErrorCode::Client,
                        format!(
                            "klens could not take its lease to change the {what} in cluster \
                             \"{}\"; its log says why. Nothing was changed.",
                            self.cluster
                        ),
                    ),
                });
            }
            // Jittered, so that two replicas that fenced each other do not meet again.
            let pause = 100 + u64::from(rand::random::<u8>()) * 2;
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
    }

    /// Creates the compacted topic when it does not exist.
    async fn make_topic(&self) -> Result<(), ApiError> {
        own_topics::make(&self.admin, LEASES_TOPIC, &[("cleanup.policy", "compact")], STEP)
            .await
            .map_err(|e| {
                tracing::error!(cluster = %self.cluster, error = %e, "make the leases' topic");
                ApiError::new(
                    ErrorCode::Client,
                    format!(
                        "klens cannot make its topic {LEASES_TOPIC} in cluster \"{}\"; its log \
                         says why. Nothing was changed.",
                        self.cluster
                    ),
                )
            })
    }
}

/// Takes the lease on `key` unless another holds it: `Ok(None)` taken, `Ok(Some(holder))` held
/// by another, `Err` when Kafka failed or another replica fenced this attempt. A first look
/// with a plain client sees a lease held by another without fencing anyone (its holder may be
/// giving it back); only a lease that looks free is then taken. Blocks.
fn try_take(
    writer: &ClientConfig, reader: &ClientConfig, probe: &ClientConfig, key: &str, token: &str,
    holder: &str,
) -> Result<Option<String>, String> {
    let looking: BaseProducer = probe.create().map_err(|e| e.to_string())?;
    if let Some(other) = read(&looking, reader, key)? {
        if other.until > now_ms() && other.token != token {
            return Ok(Some(other.holder));
        }
    }
    swap(writer, reader, key, |now, held| match held {
        Some(other) if other.until > now && other.token != token => Err(other.holder.clone()),
        _ => Ok(Some(Held {
            token: token.to_string(),
            holder: holder.to_string(),
            until: now + TTL.as_millis() as i64,
        })),
    })
    .map(|outcome| outcome.err())
}

/// Gives the lease on `key` back when `token` still holds it, trying again for a while when
/// another replica (one waiting for this very lease) fences the attempt. Blocks.
fn give_back(
    writer: &ClientConfig, reader: &ClientConfig, key: &str, token: &str,
) -> Result<(), String> {
    let deadline = Instant::now() + 2 * STEP;
    loop {
        let tried = swap(writer, reader, key, |_, held| match held {
            Some(h) if h.token == token => Ok(None),
            // Ended and taken by another already: nothing to give back.
            _ => Err(String::new()),
        });
        match tried {
            Ok(_) => return Ok(()),
            Err(e) if Instant::now() >= deadline => return Err(e),
            Err(_) => {
                let pause = 50 + u64::from(rand::random::<u8>());
                std::thread::sleep(Duration::from_millis(pause));
            }
        }
    }
}

/// The compare-and-set: starts the shared transactional producer (fencing every other), reads
/// `key`'s record as committed now, and writes what `decide` answers (`Ok(None)`: a tombstone),
/// or nothing when it answers `Err`. Blocks.
fn swap(
    writer: &ClientConfig, reader: &ClientConfig, key: &str,
    decide: impl FnOnce(i64, Option<&Held>) -> Result<Option<Held>, String>,
) -> Result<Result<(), String>, String> {
    let producer: BaseProducer = writer.create().map_err(|e| e.to_string())?;
    producer.init_transactions(STEP).map_err(|e| e.to_string())?;
    let held = read(&producer, reader, key)?;
    let now = now_ms();
    let next = match decide(now, held.as_ref()) {
        Ok(next) => next,
        Err(refused) => return Ok(Err(refused)),
    };
    producer.begin_transaction().map_err(|e| e.to_string())?;
    let value = next.map(|h| serde_json::to_vec(&h).unwrap_or_default());
    let mut record = BaseRecord::<str, [u8]>::to(LEASES_TOPIC).key(key);
    if let Some(value) = &value {
        record = record.payload(value);
    }
    producer.send(record).map_err(|(e, _)| e.to_string())?;
    producer.commit_transaction(STEP).map_err(|e| e.to_string())?;
    Ok(Ok(()))
}

/// `key`'s record in the topic, as committed.
fn read(producer: &BaseProducer, reader: &ClientConfig, key: &str) -> Result<Option<Held>, String> {
    let latest = own_topics::latest(producer.client(), reader, LEASES_TOPIC, false, STEP)?;
    Ok(latest.get(key).and_then(|v| serde_json::from_slice::<Held>(v).ok()))
}
