//! The copy and redrive jobs of every replica (`crate::jobs` keeps their records): listed and
//! stopped from any replica, and a job whose replica stopped mid-way ended by another, with the
//! outcome of its attempt in the audit.

use std::time::Duration;

use app::api::{AuditEvent, AuditOutcome, AuditPhase, CopyJob, CopyState};
use app::{ApiError, ErrorCode};

use super::Service;
use crate::auth::oidc::now_ms;
use crate::jobs::{replica, Held, LOST_AFTER};

fn unavailable(error: String) -> ApiError {
    tracing::error!(%error, "copy jobs");
    ApiError::new(
        ErrorCode::Client,
        "klens could not read or write its copy jobs; its log says why.",
    )
}

/// Every job record of every writable cluster klens knows (a cluster whose topic cannot be
/// read is left out, and logged).
pub async fn everywhere(
    service: &Service,
) -> Vec<(std::sync::Arc<crate::catalog::ClusterEntry>, Held)> {
    let mut all = Vec::new();
    // A cluster the last refresh could not reach is not waited for.
    let reachable = |e: &&std::sync::Arc<crate::catalog::ClusterEntry>| {
        e.state().health().status != app::api::HealthStatus::Unreachable
    };
    for entry in service.catalog.clusters().iter().filter(|e| e.writable).filter(reachable) {
        match entry.copy_jobs.held().await {
            Ok(held) => all.push((std::sync::Arc::clone(entry), held)),
            Err(error) => {
                tracing::warn!(cluster = %entry.name, %error, "copy jobs not read");
            }
        }
    }
    all
}

/// Ends every running job whose replica stopped writing its record ([`LOST_AFTER`]): its state
/// failed with the reason, its counts as last recorded, the outcome of its attempt in the
/// audit. Each is taken under its lease, so two replicas sweeping at once end it once. Called
/// every few seconds by each replica; answers the ids it ended.
pub async fn sweep(service: &Service) -> Vec<String> {
    let mut ended = Vec::new();
    let now = now_ms();
    for (entry, held) in everywhere(service).await {
        for kept in held.jobs.values() {
            let lost = kept.job.state == CopyState::Running && now - kept.beat > LOST_AFTER;
            if !lost || kept.holder == replica() {
                continue;
            }
            let id = kept.job.id.clone();
            let end = async {
                // Read again under the lease: another replica may have ended it since.
                let Some(now_kept) = entry.copy_jobs.fresh(&id).await.map_err(unavailable)? else {
                    return Ok(false);
                };
                if now_kept.job.state != CopyState::Running
                    || now_ms() - now_kept.beat <= LOST_AFTER
                {
                    return Ok(false);
                }
                let mut kept = now_kept;
                let reason = format!(
                    "The replica of klens running this job ({}) stopped while it ran; it ended \
                     after {} of {} records were read and {} written. Start it again for the rest.",
                    kept.holder, kept.job.scanned, kept.job.total, kept.job.copied
                );
                kept.job.state = CopyState::Failed;
                kept.job.ended = Some(now_ms());
                kept.job.error.get_or_insert(reason.clone());
                kept.beat = now_ms();
                kept.holder = replica().to_string();
                // The record first: a sweep that fails after it leaves the job ended, and the
                // audit is not told twice.
                entry.copy_jobs.put(&kept).await.map_err(unavailable)?;
                if let Some(attempt) = &kept.attempt {
                    let outcome = outcome_of(attempt, &kept.job, &reason);
                    service.audit().record(&outcome).await?;
                }
                Ok::<_, ApiError>(true)
            };
            match entry.leases.hold(&format!("copy/{id}"), &format!("copy job \"{id}\""), end).await
            {
                Ok(true) => ended.push(id),
                Ok(false) => {}
                Err(error) => {
                    tracing::warn!(job = %id, error = %error.message, "a lost copy job not ended")
                }
            }
        }
    }
    ended
}

/// The outcome event of a job's attempt, ended by another replica: the attempt's id, who and
/// what, its counts and the reason it did not finish.
fn outcome_of(attempt: &AuditEvent, job: &CopyJob, reason: &str) -> AuditEvent {
    let mut event = attempt.clone();
    event.time = now_ms();
    event.phase = AuditPhase::Outcome;
    event.mac = None;
    event.genuine = None;
    event.suppressed = None;
    if let serde_json::Value::Object(summary) = &mut event.summary {
        summary.insert("job".into(), job.id.clone().into());
        summary.insert("state".into(), "failed".into());
        summary.insert("scanned".into(), job.scanned.into());
        summary.insert("copied".into(), job.copied.into());
        summary.insert("skipped".into(), job.skipped.into());
        summary.insert("failed".into(), job.failed.into());
    }
    event.outcome =
        AuditOutcome { ok: false, code: Some("CLIENT".into()), message: Some(reason.to_string()) };
    event
}

/// Keeps every replica's jobs honest: a sweep every few seconds, for as long as klens runs.
pub fn sweep_forever(service: std::sync::Arc<Service>) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            let ended = sweep(&service).await;
            if !ended.is_empty() {
                tracing::warn!(jobs = ?ended, "copy jobs whose replica stopped were ended");
            }
        }
    });
}
