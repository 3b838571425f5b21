//! Building events: who did what on which resource, bounded in size, signed with the audit
//! key, and refusals of one caller counted past a rate.

use super::*;

/// The longest resource, cluster or person name an event keeps, in bytes.
pub const MAX_NAME: usize = 256;

/// The longest outcome message an event keeps, in bytes.
pub const MAX_MESSAGE: usize = 512;

/// The longest summary an event keeps, as JSON text in bytes.
pub const MAX_SUMMARY: usize = 1024;

/// The most groups of a person an event names.
pub const MAX_GROUPS: usize = 32;

/// How many refused attempts of one caller a minute are recorded one by one.
pub const REFUSALS_PER_MINUTE: u32 = 10;

/// The most callers whose refusals are counted apart in one minute; past it they share a count.
pub(super) const REFUSAL_CALLERS: usize = 10_000;

/// Keeps `text` to at most `max` bytes (on a character boundary, with an ellipsis), answering
/// its original length when it was cut.
pub(super) fn cut(text: &mut String, max: usize) -> Option<u64> {
    if text.len() <= max {
        return None;
    }
    let length = text.len() as u64;
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    Some(length)
}

/// Cuts every part of `event` a caller can make long: so one event stays a few KiB however
/// large the request that caused it.
pub fn bound(event: &mut AuditEvent) {
    cut(&mut event.cluster, MAX_NAME);
    if let Some(name) = &mut event.resource.name {
        if let Some(length) = cut(name, MAX_NAME) {
            event.resource.length = Some(length);
        }
    }
    for text in [&mut event.who.name, &mut event.who.subject].into_iter().flatten() {
        cut(text, MAX_NAME);
    }
    event.who.groups.truncate(MAX_GROUPS);
    for group in &mut event.who.groups {
        cut(group, MAX_NAME);
    }
    for text in [&mut event.outcome.message, &mut event.outcome.code].into_iter().flatten() {
        cut(text, MAX_MESSAGE);
    }
    let length = serde_json::to_string(&event.summary).map_or(0, |t| t.len());
    if length > MAX_SUMMARY {
        // First each text of the summary, then, if that is not enough, the summary itself.
        if let Value::Object(map) = &mut event.summary {
            for value in map.values_mut() {
                match value {
                    Value::String(text) => {
                        cut(text, MAX_SUMMARY / 8);
                    }
                    Value::Array(_) | Value::Object(_)
                        if value.to_string().len() > MAX_SUMMARY / 8 =>
                    {
                        *value = Value::String("(cut)".into());
                    }
                    _ => {}
                }
            }
        }
        if serde_json::to_string(&event.summary).map_or(0, |t| t.len()) > MAX_SUMMARY {
            event.summary = serde_json::json!({ "cut": true });
        }
        if let Value::Object(map) = &mut event.summary {
            map.insert("summary_length".into(), length.into());
        }
    }
}

/// The HMAC of an event under `key`: over its JSON without `mac` and `genuine`, hex.
pub(super) fn mac_of(key: &Secret, event: &AuditEvent) -> Option<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key.expose().as_bytes()).ok()?;
    mac.update(&signed_bytes(event)?);
    Some(mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect())
}

pub(super) fn signed_bytes(event: &AuditEvent) -> Option<Vec<u8>> {
    let unsigned = AuditEvent { mac: None, genuine: None, ..event.clone() };
    serde_json::to_vec(&unsigned).ok()
}

/// Whether `event` carries klens's HMAC under `key` (compared in constant time).
pub(super) fn signed_by(key: &Secret, event: &AuditEvent) -> bool {
    let Some(given) = event.mac.as_deref().and_then(from_hex) else {
        return false;
    };
    let Some(bytes) = signed_bytes(event) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key.expose().as_bytes()) else {
        return false;
    };
    mac.update(&bytes);
    mac.verify_slice(&given).is_ok()
}

pub(super) fn from_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// Refused attempts of the current minute, per caller and cluster.
#[derive(Default)]
pub(super) struct Refusals {
    /// The minute counted, in minutes since the epoch.
    pub(super) minute: i64,
    pub(super) by_caller: HashMap<(String, String), Counted>,
}

pub(super) struct Counted {
    pub(super) recorded: u32,
    /// Those not recorded one by one, and the last of them, which stands for them.
    pub(super) suppressed: u64,
    pub(super) last: Option<AuditEvent>,
}

impl Refusals {
    /// Whether `event` is to be recorded, and the counts of a minute now over.
    pub(super) fn admit(&mut self, event: &AuditEvent) -> (bool, Vec<AuditEvent>) {
        let over = self.over(event.time);
        let mut key = (caller_key(event), event.cluster.clone());
        if self.by_caller.len() >= REFUSAL_CALLERS && !self.by_caller.contains_key(&key) {
            key = ("(many callers)".to_string(), String::new());
        }
        let counted =
            self.by_caller.entry(key).or_insert(Counted { recorded: 0, suppressed: 0, last: None });
        if counted.recorded < REFUSALS_PER_MINUTE {
            counted.recorded += 1;
            return (true, over);
        }
        counted.suppressed += 1;
        let mut last = event.clone();
        bound(&mut last);
        counted.last = Some(last);
        (false, over)
    }

    /// When `now` is past the counted minute: one event per caller whose refusals were only
    /// counted, and a fresh minute.
    pub(super) fn over(&mut self, now: i64) -> Vec<AuditEvent> {
        let minute = now.div_euclid(60_000);
        if minute == self.minute {
            return Vec::new();
        }
        self.minute = minute;
        self.by_caller
            .drain()
            .filter_map(|(_, counted)| {
                let mut event = counted.last?;
                event.id = uuid_like();
                event.time = now;
                event.suppressed = Some(counted.suppressed);
                Some(event)
            })
            .collect()
    }
}

/// Who made a refused attempt, for counting: a person by subject, else the door and the
/// forwarded name.
pub(super) fn caller_key(event: &AuditEvent) -> String {
    let door = format!("{:?}", event.door);
    match (&event.who.subject, &event.who.name) {
        (Some(subject), _) => format!("user {subject}"),
        (None, Some(name)) => format!("{} {door} {name}", event.who.kind),
        (None, None) => format!("{} {door}", event.who.kind),
    }
}

/// Who made an attempt, as the event names them.
pub(super) fn who(caller: &Caller) -> AuditWho {
    match caller {
        Caller::User(user, _) => AuditWho {
            kind: "user".into(),
            subject: Some(user.subject.clone()),
            name: user.name.clone(),
            groups: user.groups.clone(),
            forwarded: false,
        },
        Caller::Mcp(forwarded) => AuditWho {
            kind: "mcp".into(),
            subject: None,
            name: forwarded.clone(),
            groups: Vec::new(),
            forwarded: forwarded.is_some(),
        },
        Caller::Anonymous(_) => nobody("anonymous"),
    }
}

pub(super) fn nobody(kind: &str) -> AuditWho {
    AuditWho { kind: kind.into(), subject: None, name: None, groups: Vec::new(), forwarded: false }
}

pub(super) fn resource(resource: &Resource) -> AuditResource {
    let (kind, name) = match resource {
        Resource::Cluster => ("cluster", None),
        Resource::Topic { name, .. } => ("topic", Some(name.clone())),
        Resource::Group { name, .. } => ("group", Some(name.clone())),
        Resource::Subject(name) => ("subject", Some(name.clone())),
        Resource::Connector { connect, name, .. } => {
            ("connector", Some(format!("{connect}/{name}")))
        }
        Resource::Replication { name, .. } => ("replication", Some(name.clone())),
        Resource::Processor { name, .. } => ("processor", Some(name.clone())),
    };
    AuditResource { kind: kind.into(), name, length: None }
}

/// Whether an error is the decision's refusal rather than a failure after it.
pub fn refused_by_decision(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::Unauthenticated
            | ErrorCode::UnknownCluster
            | ErrorCode::ReadOnlyCluster
            | ErrorCode::InternalTopic
            | ErrorCode::ProtectedTopic
            | ErrorCode::MissingPrivilege
    )
}

/// The event of one attempt and how it ended, as one `whole` event; `result` adds to the
/// summary what the answer says (such as the offset a record got).
pub fn event(
    caller: &Caller, attempt: &Attempt, outcome: Result<Option<Value>, &ApiError>,
) -> AuditEvent {
    let mut summary = attempt.summary.clone();
    let (decision, outcome) = match outcome {
        Ok(result) => {
            if let (Some(Value::Object(extra)), Value::Object(map)) = (result, &mut summary) {
                map.extend(extra);
            }
            ("allowed", AuditOutcome { ok: true, code: None, message: None })
        }
        Err(e) => (
            if refused_by_decision(e.code) { "refused" } else { "allowed" },
            AuditOutcome {
                ok: false,
                code: Some(e.code.as_str().to_string()),
                message: Some(e.message.clone()),
            },
        ),
    };
    AuditEvent {
        id: uuid_like(),
        time: now_ms(),
        who: who(caller),
        door: caller.door(),
        cluster: attempt.cluster.clone(),
        privilege: Some(attempt.privilege),
        resource: resource(&attempt.resource),
        summary,
        dry_run: attempt.dry_run,
        decision: decision.to_string(),
        outcome,
        phase: AuditPhase::Whole,
        suppressed: None,
        mac: None,
        genuine: None,
    }
}

/// The event recorded before a write that the decision allowed reaches Kafka: how it ends is
/// not known yet.
pub fn attempt_event(caller: &Caller, attempt: &Attempt) -> AuditEvent {
    let mut event = event(caller, attempt, Ok(None));
    event.phase = AuditPhase::Attempt;
    event.outcome.ok = false;
    event
}

/// A request the HTTP or MCP guards refused before any cluster or privilege was asked: the
/// path it asked for stands as the resource.
pub fn guard_refusal(door: Door, who_kind: &str, path: &str, error: &ApiError) -> AuditEvent {
    AuditEvent {
        id: uuid_like(),
        time: now_ms(),
        who: nobody(who_kind),
        door,
        cluster: String::new(),
        privilege: None,
        resource: AuditResource {
            kind: "request".into(),
            name: Some(path.to_string()),
            length: None,
        },
        summary: Value::Object(serde_json::Map::new()),
        dry_run: false,
        decision: "refused".into(),
        outcome: AuditOutcome {
            ok: false,
            code: Some(error.code.as_str().to_string()),
            message: Some(error.message.clone()),
        },
        phase: AuditPhase::Whole,
        suppressed: None,
        mac: None,
        genuine: None,
    }
}

/// A guard's refusal of a request whose session names `caller`.
pub fn guard_refusal_by(caller: &Caller, path: &str, error: &ApiError) -> AuditEvent {
    AuditEvent { who: who(caller), ..guard_refusal(caller.door(), "", path, error) }
}

/// 128 random bits in hex: an event's id.
pub(super) fn uuid_like() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
