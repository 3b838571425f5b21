//! Where sessions live: process memory, bounded and evicting. Sign-ins that have left for the
//! identity provider and not come back are kept apart from signed-in sessions, for at most ten
//! minutes and in a smaller space, so anonymous requests to `/auth/login` can neither grow
//! memory without limit nor push signed-in people out.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use moka::future::Cache;
use moka::policy::EvictionPolicy;
use moka::Expiry;
use tower_sessions::cookie::time::OffsetDateTime;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::Result;
use tower_sessions::SessionStore;

/// The most signed-in sessions kept at once; past it, the longest idle one goes.
const MAX_SESSIONS: u64 = 10_000;
/// The most sign-ins under way at once, and how long one may take.
const MAX_PENDING: u64 = 1_000;
pub const PENDING_FOR: Duration = Duration::from_secs(10 * 60);

/// The session store of the UI port.
#[derive(Clone, Debug)]
pub struct BoundedStore {
    /// Records that hold a signed-in user (`user_key`).
    sessions: Cache<Id, Record>,
    /// Every other record: a sign-in under way.
    pending: Cache<Id, Record>,
    user_key: &'static str,
}

/// A record lives until its own expiry, a pending one at most [`PENDING_FOR`].
struct Life {
    cap: Option<Duration>,
}

impl Life {
    fn of(&self, record: &Record) -> Duration {
        let left = record.expiry_date - OffsetDateTime::now_utc();
        let left = Duration::try_from(left).unwrap_or(Duration::ZERO);
        self.cap.map_or(left, |cap| left.min(cap))
    }
}

impl Expiry<Id, Record> for Life {
    fn expire_after_create(&self, _: &Id, record: &Record, _: Instant) -> Option<Duration> {
        Some(self.of(record))
    }

    fn expire_after_update(
        &self,
        _: &Id,
        record: &Record,
        _: Instant,
        _: Option<Duration>,
    ) -> Option<Duration> {
        Some(self.of(record))
    }
}

fn cache(capacity: u64, cap: Option<Duration>) -> Cache<Id, Record> {
    Cache::builder()
        .max_capacity(capacity)
        // Least recently used goes first; the default policy may refuse a new entry instead.
        .eviction_policy(EvictionPolicy::lru())
        .expire_after(Life { cap })
        .build()
}

impl BoundedStore {
    /// `user_key` is the session key whose presence makes a record a signed-in session.
    pub fn new(user_key: &'static str) -> BoundedStore {
        BoundedStore::with_capacity(user_key, MAX_SESSIONS, MAX_PENDING)
    }

    fn with_capacity(user_key: &'static str, sessions: u64, pending: u64) -> BoundedStore {
        BoundedStore {
            sessions: cache(sessions, None),
            pending: cache(pending, Some(PENDING_FOR)),
            user_key,
        }
    }

    fn is_signed_in(&self, record: &Record) -> bool {
        record.data.contains_key(self.user_key)
    }
}

#[async_trait]
impl SessionStore for BoundedStore {
    async fn create(&self, record: &mut Record) -> Result<()> {
        // A new id that no live record has.
        while self.sessions.contains_key(&record.id) || self.pending.contains_key(&record.id) {
            record.id = Id::default();
        }
        self.save(record).await
    }

    async fn save(&self, record: &Record) -> Result<()> {
        if self.is_signed_in(record) {
            self.pending.invalidate(&record.id).await;
            self.sessions.insert(record.id, record.clone()).await;
        } else {
            self.sessions.invalidate(&record.id).await;
            self.pending.insert(record.id, record.clone()).await;
        }
        Ok(())
    }

    async fn load(&self, id: &Id) -> Result<Option<Record>> {
        let found = match self.sessions.get(id).await {
            Some(record) => Some(record),
            None => self.pending.get(id).await,
        };
        Ok(found.filter(|r| r.expiry_date > OffsetDateTime::now_utc()))
    }

    async fn delete(&self, id: &Id) -> Result<()> {
        self.sessions.invalidate(id).await;
        self.pending.invalidate(id).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(signed_in: bool) -> Record {
        let mut data = std::collections::HashMap::new();
        let key = if signed_in { "user" } else { "pending" };
        data.insert(key.to_string(), serde_json::json!("x"));
        Record {
            id: Id::default(),
            data,
            expiry_date: OffsetDateTime::now_utc() + Duration::from_secs(3600),
        }
    }

    /// A flood of sign-ins that never come back is bounded, and pushes out no signed-in
    /// session.
    #[tokio::test]
    async fn pending_sign_ins_are_bounded_and_leave_sessions_alone() {
        let store = BoundedStore::with_capacity("user", 10, 5);
        let mut user = record(true);
        store.create(&mut user).await.expect("stored");
        for _ in 0..200 {
            store.create(&mut record(false)).await.expect("stored");
        }
        store.pending.run_pending_tasks().await;
        assert!(
            store.pending.entry_count() <= 5,
            "{}",
            store.pending.entry_count()
        );
        assert!(store.load(&user.id).await.expect("loads").is_some());
    }

    #[tokio::test]
    async fn sessions_are_bounded_and_expired_records_are_gone() {
        let store = BoundedStore::with_capacity("user", 10, 5);
        for _ in 0..100 {
            store.create(&mut record(true)).await.expect("stored");
        }
        store.sessions.run_pending_tasks().await;
        assert!(store.sessions.entry_count() <= 10);

        let mut old = record(true);
        old.expiry_date = OffsetDateTime::now_utc() - Duration::from_secs(1);
        store.create(&mut old).await.expect("stored");
        assert!(store.load(&old.id).await.expect("loads").is_none());

        // Signing in moves a record from the pending space to the sessions.
        let mut pending = record(false);
        store.create(&mut pending).await.expect("stored");
        pending
            .data
            .insert("user".into(), serde_json::json!("alice"));
        store.save(&pending).await.expect("saved");
        assert!(store.pending.get(&pending.id).await.is_none());
        assert!(store.sessions.get(&pending.id).await.is_some());
        store.delete(&pending.id).await.expect("deleted");
        assert!(store.load(&pending.id).await.expect("loads").is_none());
    }
}
