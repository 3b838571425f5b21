//! Where sessions live: process memory, bounded and evicting. Only signed-in people take room:
//! a sign-in under way lives in the browser's cookie (`sign_in.rs`), and a record without a
//! signed-in user is never kept, so anonymous requests can neither grow memory nor push
//! signed-in people out.

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

/// The session store of the UI port.
#[derive(Clone, Debug)]
pub struct BoundedStore {
    /// Records that hold a signed-in user (`user_key`).
    sessions: Cache<Id, Record>,
    user_key: &'static str,
}

/// A record lives until its own expiry.
struct Life;

impl Life {
    fn of(&self, record: &Record) -> Duration {
        let left = record.expiry_date - OffsetDateTime::now_utc();
        Duration::try_from(left).unwrap_or(Duration::ZERO)
    }
}

impl Expiry<Id, Record> for Life {
    fn expire_after_create(&self, _: &Id, record: &Record, _: Instant) -> Option<Duration> {
        Some(self.of(record))
    }

    fn expire_after_update(
        &self, _: &Id, record: &Record, _: Instant, _: Option<Duration>,
    ) -> Option<Duration> {
        Some(self.of(record))
    }
}

impl BoundedStore {
    /// `user_key` is the session key whose presence makes a record a signed-in session.
    pub fn new(user_key: &'static str) -> BoundedStore {
        BoundedStore::with_capacity(user_key, MAX_SESSIONS)
    }

    fn with_capacity(user_key: &'static str, sessions: u64) -> BoundedStore {
        BoundedStore {
            sessions: Cache::builder()
                .max_capacity(sessions)
                // Least recently used goes first; the default policy may refuse a new entry
                // instead.
                .eviction_policy(EvictionPolicy::lru())
                .expire_after(Life)
                .build(),
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
        while self.sessions.contains_key(&record.id) {
            record.id = Id::default();
        }
        self.save(record).await
    }

    /// Keeps a record that holds a signed-in user; forgets any other.
    async fn save(&self, record: &Record) -> Result<()> {
        if self.is_signed_in(record) {
            self.sessions.insert(record.id, record.clone()).await;
        } else {
            self.sessions.invalidate(&record.id).await;
        }
        Ok(())
    }

    async fn load(&self, id: &Id) -> Result<Option<Record>> {
        let found = self.sessions.get(id).await;
        Ok(found.filter(|r| r.expiry_date > OffsetDateTime::now_utc()))
    }

    async fn delete(&self, id: &Id) -> Result<()> {
        self.sessions.invalidate(id).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(signed_in: bool) -> Record {
        let mut data = std::collections::HashMap::new();
        let key = if signed_in { "user" } else { "other" };
        data.insert(key.to_string(), serde_json::json!("x"));
        Record {
            id: Id::default(),
            data,
            expiry_date: OffsetDateTime::now_utc() + Duration::from_secs(3600),
        }
    }

    /// Records without a signed-in user take no room, and push out no signed-in session.
    #[tokio::test]
    async fn only_signed_in_sessions_are_kept() {
        let store = BoundedStore::with_capacity("user", 10);
        let mut user = record(true);
        store.create(&mut user).await.expect("stored");
        for _ in 0..200 {
            let mut anonymous = record(false);
            store.create(&mut anonymous).await.expect("stored");
            assert!(store.load(&anonymous.id).await.expect("loads").is_none());
        }
        store.sessions.run_pending_tasks().await;
        assert_eq!(store.sessions.entry_count(), 1);
        assert!(store.load(&user.id).await.expect("loads").is_some());
    }

    #[tokio::test]
    async fn sessions_are_bounded_and_expired_records_are_gone() {
        let store = BoundedStore::with_capacity("user", 10);
        for _ in 0..100 {
            store.create(&mut record(true)).await.expect("stored");
        }
        store.sessions.run_pending_tasks().await;
        assert!(store.sessions.entry_count() <= 10);

        let mut old = record(true);
        old.expiry_date = OffsetDateTime::now_utc() - Duration::from_secs(1);
        store.create(&mut old).await.expect("stored");
        assert!(store.load(&old.id).await.expect("loads").is_none());

        // A session that loses its user is forgotten.
        let mut session = record(true);
        store.create(&mut session).await.expect("stored");
        session.data.clear();
        store.save(&session).await.expect("saved");
        assert!(store.load(&session.id).await.expect("loads").is_none());
        let mut again = record(true);
        store.create(&mut again).await.expect("stored");
        store.delete(&again.id).await.expect("deleted");
        assert!(store.load(&again.id).await.expect("loads").is_none());
    }
}
