use super::*;

fn refusal(who: &str, time: i64) -> AuditEvent {
    let mut event = guard_refusal(
        Door::Api,
        "user",
        "/api/produce",
        &ApiError::new(ErrorCode::ReadOnlyCluster, "read-only"),
    );
    event.who.subject = Some(who.to_string());
    event.cluster = "c".into();
    event.time = time;
    event
}

#[test]
fn an_event_stays_small_however_large_what_it_names() {
    let huge = "é".repeat(1_000_000);
    let mut event = refusal(&huge, 0);
    event.cluster = huge.clone();
    event.resource.name = Some(huge.clone());
    event.who.groups = vec![huge.clone(); 1000];
    event.outcome.message = Some(huge.clone());
    event.summary = serde_json::json!({ "topic": huge, "configs": { "a": huge }, "n": 5 });
    bound(&mut event);
    let size = serde_json::to_string(&event).expect("JSON").len();
    assert!(size < 4 * 1024 + MAX_GROUPS * (MAX_NAME + 8), "{size} bytes");
    assert_eq!(event.resource.length, Some(huge.len() as u64));
    assert_eq!(event.summary["n"], 5);
    assert!(event.summary["summary_length"].as_u64().is_some());
    // A cut never splits a character.
    assert!(event.cluster.ends_with('…'));
}

#[test]
fn a_signature_holds_only_for_the_event_klens_wrote() {
    let key = Secret::new("k".repeat(32));
    let mut event = refusal("alice", 1);
    event.mac = mac_of(&key, &event);
    assert!(signed_by(&key, &event));
    let mut renamed = event.clone();
    renamed.who.subject = Some("mallory".into());
    assert!(!signed_by(&key, &renamed));
    let other_key = Secret::new("o".repeat(32));
    assert!(!signed_by(&other_key, &event));
    let mut unsigned = event.clone();
    unsigned.mac = None;
    assert!(!signed_by(&key, &unsigned));
    // Read back from JSON, the same event still verifies.
    let back: AuditEvent =
        serde_json::from_str(&serde_json::to_string(&event).expect("JSON")).expect("event");
    assert!(signed_by(&key, &back));
}

#[test]
fn refusals_past_the_limit_are_counted_and_recorded_once_the_minute_is_over() {
    let mut refusals = Refusals::default();
    let minute = 60_000 * 100;
    let mut recorded = 0;
    for i in 0..25 {
        let (admit, over) = refusals.admit(&refusal("alice", minute + i));
        assert!(over.is_empty() || i == 0);
        recorded += u32::from(admit);
    }
    // Another caller has a count of their own.
    assert!(refusals.admit(&refusal("bob", minute + 30)).0);
    assert_eq!(recorded, REFUSALS_PER_MINUTE);
    let over = refusals.over(minute + 60_000);
    assert_eq!(over.len(), 1, "only alice had refusals only counted");
    assert_eq!(over[0].suppressed, Some(25 - u64::from(REFUSALS_PER_MINUTE)));
    assert_eq!(over[0].who.subject.as_deref(), Some("alice"));
    assert!(refusals.admit(&refusal("alice", minute + 60_001)).0);
}

#[test]
fn an_outcome_takes_its_attempt_s_place() {
    let attempt = AuditEvent { phase: AuditPhase::Attempt, ..refusal("alice", 1) };
    let outcome = AuditEvent { phase: AuditPhase::Outcome, time: 2, ..attempt.clone() };
    let lone = AuditEvent { id: "lone".into(), ..attempt.clone() };
    let merged = merge_phases(vec![attempt, lone.clone(), outcome.clone()]);
    assert_eq!(merged, vec![outcome, lone]);
}
