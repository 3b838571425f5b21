//! The service layer: every operation klens offers, as a plain async function of the caller and
//! the arguments as sent, grouped by capability (`identity`, `catalog`, `topics`, `records`).
//! Each one asks the decision first, then judges its arguments, then reaches the projection,
//! Kafka or the registry, and answers `Result<T, ApiError>`. The doors (server functions, the
//! streaming routes, later MCP tools) only find the caller and shape the answer.
//!
//! Each service function that a server function calls says so in its own file, with
//! [`serves!`]: the server function's arguments type and the call that answers it. The HTTP
//! door finds the handler of a call by its type ([`handler`]); it has no list of its own.
//!
//! What must never happen here: reading the caller from a request, or reaching Kafka without
//! the grant for exactly what is done.

/// Registers the service call that answers one server function: `serves!(Args, |s, c, a|
/// call)` where `Args` is the struct `#[server]` makes of the function's arguments, `s` the
/// service, `c` the caller and `a` the arguments as sent. The call is an unawaited future.
macro_rules! serves {
    ($call:ty, |$s:ident, $c:ident, $a:ident| $body:expr) => {
        inventory::submit! {
            $crate::service::Handler {
                call: || std::any::TypeId::of::<$call>(),
                name: stringify!($call),
                run: |call, $s, $c| {
                    Box::pin(async move {
                        let $a: $call = *call
                            .downcast::<$call>()
                            .map_err(|_| $crate::service::wrong_call(stringify!($call)))?;
                        let answer = $body.await?;
                        Ok(Box::new(answer) as app::api::backend::Erased)
                    })
                },
            }
        }
    };
}

pub mod acls;
pub mod audit;
pub mod brokers;
pub mod catalog;
pub mod connect;
pub mod copy;
pub mod copy_jobs;
pub mod findings;
pub mod groups;
pub mod identity;
pub mod limits;
pub mod processors;
pub mod produce;
pub mod quotas;
pub mod records;
pub mod replications;
pub mod schemas;
pub mod topics;
pub mod topology;
pub mod users;
pub mod views;

use std::sync::Arc;

use app::access::{Action, ClusterAccess, Resource};
use app::{ApiError, ErrorCode, Privilege};

use crate::audit::{Attempt, Audit};
use crate::auth::{Caller, Grant, Policy};
use crate::catalog::{Catalog, ClusterEntry};
use crate::kafka::{Link, Topic};
use crate::masking::{Masking, TopicMask};
use crate::records::decode::Schemas;

/// The write under way in this task, for [`Service::open`].
struct Pending {
    /// Its attempt as recorded before Kafka is reached.
    event: app::api::AuditEvent,
    /// Whether the attempt is in every sink.
    opened: std::sync::atomic::AtomicBool,
    audit: Arc<Audit>,
}

tokio::task_local! {
    static WRITE: Arc<Pending>;
}

/// One service call a server function reaches, registered by [`serves!`].
pub struct Handler {
    /// The type of the server function's arguments.
    pub call: fn() -> std::any::TypeId,
    /// That type's name, for the tests and the log.
    pub name: &'static str,
    pub run: fn(
        app::api::backend::Erased,
        Arc<Service>,
        Caller,
    ) -> app::api::backend::Reply<app::api::backend::Erased>,
}

inventory::collect!(Handler);

/// The handler of a call whose arguments have the type `call`.
pub fn handler(call: std::any::TypeId) -> Option<&'static Handler> {
    static BY_TYPE: std::sync::LazyLock<
        std::collections::HashMap<std::any::TypeId, &'static Handler>,
    > = std::sync::LazyLock::new(|| {
        inventory::iter::<Handler>.into_iter().map(|h| ((h.call)(), h)).collect()
    });
    BY_TYPE.get(&call).copied()
}

/// Every registered handler.
pub fn handlers() -> impl Iterator<Item = &'static Handler> {
    inventory::iter::<Handler>.into_iter()
}

pub(crate) fn wrong_call(name: &str) -> ApiError {
    ApiError::new(ErrorCode::Client, format!("klens handed {name} the arguments of another call."))
}

/// What every operation may reach.
pub struct Service {
    pub policy: Arc<Policy>,
    pub catalog: Arc<Catalog>,
    /// Per cluster, in config order: its registry schemas by id, for decoding records.
    schemas: Vec<(String, Arc<Schemas>)>,
    /// The record streams open now.
    pub streams: Arc<limits::StreamLimits>,
    /// The expensive reads running now: pages of records, find by key, schema dry runs.
    pub reads: Arc<limits::StreamLimits>,
    /// Where write attempts are recorded.
    audit: Arc<Audit>,
    /// What records show to callers without UNMASK.
    masking: Arc<Masking>,
    /// The lag each group showed when last described with findings.
    lags: std::sync::Mutex<findings::LagMemory>,
    /// The copy jobs running, and the last ones that ended.
    copies: copy::Jobs,
}

/// One cluster as an operation was granted it.
pub struct Granted {
    pub grant: Grant,
    pub entry: Arc<ClusterEntry>,
    /// For a decision on a topic, the topic as the projection listed it, when it did.
    pub topic: Option<Topic>,
}

impl Granted {
    pub fn link(&self) -> Arc<Link> {
        self.entry.link()
    }

    /// The topic as the projection listed it for the decision, or why it did not: not read
    /// yet, or `NOT_FOUND`.
    pub fn listed_topic(&self, name: &str) -> Result<Topic, ApiError> {
        if let Some(topic) = &self.topic {
            return Ok(topic.clone());
        }
        self.entry.topic_metadata(name)?.ok_or_else(|| {
            ApiError::not_found(format!(
                "There is no topic named \"{name}\" in cluster \"{}\".",
                self.entry.name
            ))
        })
    }
}

impl Service {
    pub fn new(policy: Arc<Policy>, catalog: Arc<Catalog>) -> Service {
        let schemas = catalog
            .clusters()
            .iter()
            .map(|c| (c.name.clone(), Arc::new(Schemas::new(c.registry()))))
            .collect();
        Service {
            policy,
            catalog,
            schemas,
            streams: limits::StreamLimits::new(limits::MAX_STREAMS, limits::MAX_STREAMS_PER_CALLER),
            reads: limits::StreamLimits::counting(
                "expensive reads",
                limits::MAX_READS,
                limits::MAX_READS_PER_CALLER,
            ),
            audit: Arc::new(Audit::none()),
            masking: Arc::new(Masking::default()),
            lags: std::sync::Mutex::default(),
            copies: copy::Jobs::default(),
        }
    }

    /// The service the config describes over `catalog`: its decision, its audit sinks and its
    /// masking. What `main` builds once and hands to every door.
    pub fn from_config(
        config: &crate::config::Config, catalog: Arc<Catalog>,
    ) -> Result<Service, String> {
        let policy = Arc::new(Policy::from_config(config));
        Ok(Service::new(policy, catalog)
            .with_audit(Audit::new(config.audit.as_ref(), &config.clusters)?)
            .with_masking(Masking::new(config.masking.clone(), config.masking_key.clone())))
    }

    /// The service with records masked by `masking` for callers without UNMASK.
    pub fn with_masking(self, masking: Masking) -> Service {
        Service { masking: Arc::new(masking), ..self }
    }

    /// How `caller` sees the records of `topic` in `cluster`: masked by the rules that name
    /// the topic, unless they hold UNMASK on it.
    pub fn mask(&self, caller: &Caller, cluster: &str, topic: &str) -> Option<Arc<TopicMask>> {
        let mask = self.masking.for_topic(topic)?;
        let unmasked = self
            .policy
            .decide(
                &caller.subject(),
                cluster,
                Action::new(Privilege::Unmask, Resource::topic(topic)),
            )
            .is_ok();
        (!unmasked).then(|| Arc::new(mask))
    }

    /// The service with its write attempts recorded in `audit`. Under a runtime, a task
    /// records the counts of rate-limited refusals once their minute is over.
    pub fn with_audit(self, audit: Audit) -> Service {
        let audit = Arc::new(audit);
        if audit.enabled() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let weak = Arc::downgrade(&audit);
                runtime.spawn(async move {
                    let mut every = tokio::time::interval(std::time::Duration::from_secs(5));
                    loop {
                        every.tick().await;
                        let Some(audit) = weak.upgrade() else { break };
                        audit.flush_refusals().await;
                    }
                });
            }
        }
        Service { audit, ..self }
    }

    /// The audit log.
    pub fn audit(&self) -> &Audit {
        &self.audit
    }

    /// Runs one write under the audit. The write decides, judges its arguments, then calls
    /// [`Self::open`] with its grant just before it reaches Kafka or the registry: that records
    /// the attempt in every sink (or refuses the write with `AUDIT_UNAVAILABLE`). After the
    /// write, its outcome is recorded under the same id; if that fails the change stands (its
    /// attempt is recorded) and the event goes to the log. A write refused before it was opened
    /// (the decision, its arguments) is recorded as one event when a sink can take it,
    /// rate-limited per caller, and answers its refusal either way. `noted` adds what the
    /// answer says to the event (the offset of a produced record).
    pub async fn audited<T>(
        &self, caller: &Caller, attempt: Attempt,
        noted: impl FnOnce(&T) -> Option<serde_json::Value>,
        write: impl std::future::Future<Output = Result<T, ApiError>>,
    ) -> Result<T, ApiError> {
        let pending = Arc::new(Pending {
            event: crate::audit::attempt_event(caller, &attempt),
            opened: std::sync::atomic::AtomicBool::new(false),
            audit: Arc::clone(&self.audit),
        });
        let answer = WRITE.scope(Arc::clone(&pending), write).await;
        if !self.audit.enabled() {
            return answer;
        }
        let opened = pending.opened.load(std::sync::atomic::Ordering::SeqCst);
        let mut event = crate::audit::event(caller, &attempt, answer.as_ref().map(noted));
        if opened {
            event.id = pending.event.id.clone();
            event.phase = app::api::AuditPhase::Outcome;
            if self.audit.record(&event).await.is_err() {
                let line = serde_json::to_string(&event).unwrap_or_default();
                tracing::error!(event = %line, "the outcome of a recorded attempt could not be written");
            }
            return answer;
        }
        match &answer {
            Err(_) => {
                self.audit.record_refusal(event).await;
                answer
            }
            // Answered without reaching Kafka (nothing to change): still recorded first.
            Ok(_) => self.audit.record(&event).await.and(answer),
        }
    }

    /// Records the attempt of the write under way in every audit sink, then opens its grant
    /// for Kafka: called by each write right before it reaches Kafka or the registry. Fails
    /// with `AUDIT_UNAVAILABLE` when a sink cannot take it (the write must then not happen),
    /// and for a write that does not run under [`Self::audited`].
    pub async fn open(&self, grant: &mut Grant) -> Result<(), ApiError> {
        let Ok(pending) = WRITE.try_with(Arc::clone) else {
            tracing::error!(cluster = %grant.cluster(), "a write ran outside the audit");
            return Err(ApiError::new(
                ErrorCode::AuditUnavailable,
                "klens did not record this change before making it, so it did not make it.",
            ));
        };
        if !pending.opened.load(std::sync::atomic::Ordering::SeqCst) {
            pending.audit.record(&pending.event).await?;
            pending.opened.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        grant.open();
        Ok(())
    }

    /// The attempt of the write under way, once it is recorded: what another replica needs to
    /// record its outcome (a copy job's, ended by another when its replica stops).
    pub fn attempt_under_way(&self) -> Option<app::api::AuditEvent> {
        WRITE
            .try_with(|p| {
                p.opened.load(std::sync::atomic::Ordering::SeqCst).then(|| p.event.clone())
            })
            .ok()
            .flatten()
    }

    /// Runs one privileged read under the audit when `audit.reads` is on: a read whose event
    /// no sink can take is not answered. The event's summary holds the arguments but `q` and
    /// `key`, which may be what someone searched records for.
    pub async fn audited_read<T>(
        &self, caller: &Caller, cluster: &str, privilege: Privilege, args: &impl serde::Serialize,
        read: impl std::future::Future<Output = Result<T, ApiError>>,
    ) -> Result<T, ApiError> {
        if !self.audit.records_reads() {
            return read.await;
        }
        let attempt = Attempt::of(cluster, privilege, args, &["q", "key"]);
        let answer = read.await;
        let event = crate::audit::event(caller, &attempt, answer.as_ref().map(|_| None));
        match &answer {
            Err(_) => {
                self.audit.record_refusal(event).await;
                answer
            }
            Ok(_) => self.audit.record(&event).await.and(answer),
        }
    }

    /// A read of the whole of `cluster` under `privilege` (the ACLs, the SCRAM users, the
    /// quotas), recorded as reads are: decided first, then `read` runs with the grant and the
    /// brokers the catalog knows now.
    pub async fn cluster_read<T, Fut>(
        &self, caller: &Caller, cluster: &str, privilege: Privilege,
        read: impl FnOnce(Granted, Vec<crate::kafka::Broker>) -> Fut,
    ) -> Result<T, ApiError>
    where
        Fut: std::future::Future<Output = Result<T, ApiError>>,
    {
        let run = async {
            let granted =
                self.decide(caller, cluster, Action::new(privilege, Resource::Cluster))?;
            let known = granted.entry.known_brokers_now();
            read(granted, known).await
        };
        self.audited_read(caller, cluster, privilege, &serde_json::json!({}), run).await
    }

    /// A read of one named topic under `privilege`, recorded as reads are: decided for the
    /// topic `topic` names, then `read` runs with the grant and the judged name.
    pub async fn topic_read<T, Fut>(
        &self, caller: &Caller, cluster: &str, privilege: Privilege, args: &impl serde::Serialize,
        topic: &app::api::Arg<String>, read: impl FnOnce(Granted, String) -> Fut,
    ) -> Result<T, ApiError>
    where
        Fut: std::future::Future<Output = Result<T, ApiError>>,
    {
        let run = async {
            let (granted, name) = self.decide_named_topic(caller, cluster, privilege, topic)?;
            read(granted, name).await
        };
        self.audited_read(caller, cluster, privilege, args, run).await
    }

    /// A write on the whole of the attempt's cluster, under the audit ([`Self::audited`]):
    /// decided for the attempt's privilege, so what is recorded and what is decided are one.
    pub async fn cluster_write<T, Fut>(
        &self, caller: &Caller, attempt: Attempt, write: impl FnOnce(Granted) -> Fut,
    ) -> Result<T, ApiError>
    where
        Fut: std::future::Future<Output = Result<T, ApiError>>,
    {
        let cluster = attempt.cluster.clone();
        let action = Action::new(attempt.privilege, Resource::Cluster);
        self.audited(caller, attempt, |_| None, async {
            write(self.decide(caller, &cluster, action)?).await
        })
        .await
    }

    /// A write on the topic `topic` names, under the audit ([`Self::audited`]): decided for
    /// the attempt's privilege on that topic, then `write` runs with the grant and the judged
    /// name.
    pub async fn topic_write<T, Fut>(
        &self, caller: &Caller, attempt: Attempt, topic: &app::api::Arg<String>,
        write: impl FnOnce(Granted, String) -> Fut,
    ) -> Result<T, ApiError>
    where
        Fut: std::future::Future<Output = Result<T, ApiError>>,
    {
        let decide =
            |cluster: &str, privilege| self.decide_named_topic(caller, cluster, privilege, topic);
        self.write_on(caller, attempt, |_| None, decide, write).await
    }

    /// A write on one named resource, under the audit ([`Self::audited`], `noted` adding to
    /// its outcome): `decide` answers for the attempt's cluster and privilege with the grant
    /// and the judged name, then `write` runs with them. What is recorded and what is decided
    /// are one privilege.
    pub async fn write_on<T, Fut>(
        &self, caller: &Caller, attempt: Attempt,
        noted: impl FnOnce(&T) -> Option<serde_json::Value>,
        decide: impl FnOnce(&str, Privilege) -> Result<(Granted, String), ApiError>,
        write: impl FnOnce(Granted, String) -> Fut,
    ) -> Result<T, ApiError>
    where
        Fut: std::future::Future<Output = Result<T, ApiError>>,
    {
        let cluster = attempt.cluster.clone();
        let privilege = attempt.privilege;
        self.audited(caller, attempt, noted, async {
            let (granted, name) = decide(&cluster, privilege)?;
            write(granted, name).await
        })
        .await
    }

    /// What `caller` holds on `cluster`; a cluster they cannot see answers as one that does
    /// not exist.
    pub fn access(&self, caller: &Caller, cluster: &str) -> Result<ClusterAccess, ApiError> {
        self.policy
            .access(&caller.subject(), cluster)
            .ok_or_else(|| ApiError::unknown_cluster(cluster))
    }

    /// The decision for `caller` doing `action` on `cluster`, and the cluster it was granted.
    /// Hidden and unknown clusters take the same path and give the same error.
    pub fn decide(
        &self, caller: &Caller, cluster: &str, action: Action,
    ) -> Result<Granted, ApiError> {
        let grant = self.policy.decide(&caller.subject(), cluster, action)?;
        let entry = self
            .catalog
            .entry(&grant)
            .cloned()
            .ok_or_else(|| ApiError::unknown_cluster(cluster))?;
        Ok(Granted { grant, entry, topic: None })
    }

    /// The decision for `privilege` on a topic of `cluster`. Whether the topic is internal is
    /// Kafka's word, read from the projection; a topic it does not list (or a name that is not
    /// one) is not internal, and its arguments are judged after the decision.
    pub fn decide_topic(
        &self, caller: &Caller, cluster: &str, privilege: Privilege, topic: Option<&str>,
    ) -> Result<Granted, ApiError> {
        // A cluster the caller cannot see is refused before klens looks anything up in it, on
        // the same path as one that does not exist.
        let access = self.access(caller, cluster)?;
        let name = topic.unwrap_or_default();
        // A topic a scoped catalog hides is taken as one Kafka does not list: its internal flag
        // (or anything else klens knows of it) cannot change the answer.
        let listed = self
            .catalog
            .get(cluster)
            .and_then(|entry| entry.topic_metadata(name).ok().flatten())
            .filter(|t| {
                access.sees(&Resource::Topic { name: t.name.clone(), internal: t.internal })
            });
        let resource = Resource::Topic {
            name: name.to_string(),
            internal: listed.as_ref().is_some_and(|t| t.internal),
        };
        let granted = self.decide(caller, cluster, Action::new(privilege, resource))?;
        Ok(Granted { topic: listed, ..granted })
    }

    /// The decision for `privilege` on the topic `topic` names, then the name judged: given,
    /// and one Kafka accepts.
    pub fn decide_named_topic(
        &self, caller: &Caller, cluster: &str, privilege: Privilege, topic: &app::api::Arg<String>,
    ) -> Result<(Granted, String), ApiError> {
        let named = topic.given().map(String::as_str);
        let granted = self.decide_topic(caller, cluster, privilege, named)?;
        let name = topic.clone().required("topic")?;
        app::names::TopicName::check(&name, "topic")?;
        Ok((granted, name))
    }

    /// For a change granted on a group: whether `privilege` also reaches the group's offsets
    /// on `topic`. A scoped caller needs the topic covered; the grant stays the group's.
    pub fn check_topic(
        &self, caller: &Caller, cluster: &str, privilege: Privilege, topic: &str,
    ) -> Result<(), ApiError> {
        self.policy
            .decide(&caller.subject(), cluster, Action::new(privilege, Resource::topic(topic)))
            .map(drop)
    }

    /// The registry schemas of a cluster, for decoding its records.
    pub fn schemas(&self, cluster: &str) -> Arc<Schemas> {
        self.schemas
            .iter()
            .find(|(name, _)| name == cluster)
            .map(|(_, s)| Arc::clone(s))
            .unwrap_or_else(|| Arc::new(Schemas::new(None)))
    }
}
