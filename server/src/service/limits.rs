//! How many record streams (exports and tails) may be open at once: in all, and per caller
//! (without sign-in, everyone is one caller, so only the limit in all applies).
//! A stream holds a reader, a blocking thread and a broker's fetches for as long as it runs,
//! so past these limits klens answers `TOO_MANY_REQUESTS` with a time to try again instead of
//! running out of threads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::{ApiError, ErrorCode};

use crate::auth::Caller;

/// The most streams open at once, and per caller.
pub const MAX_STREAMS: usize = 64;
pub const MAX_STREAMS_PER_CALLER: usize = 4;
/// What `Retry-After` says, in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 5;

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_caller: HashMap<String, usize>,
}

/// The open streams.
#[derive(Debug)]
pub struct StreamLimits {
    open: Mutex<Open>,
    max: usize,
    max_per_caller: usize,
}

/// One open stream; the place is given back when it is dropped.
#[derive(Debug)]
pub struct StreamPermit {
    limits: Arc<StreamLimits>,
    caller: String,
}

impl StreamLimits {
    pub fn new(max: usize, max_per_caller: usize) -> Arc<StreamLimits> {
        Arc::new(StreamLimits {
            open: Mutex::new(Open::default()),
            max,
            max_per_caller,
        })
    }

    /// A place for one more stream of `caller`, or `TOO_MANY_REQUESTS`.
    pub fn admit(self: &Arc<Self>, caller: &Caller) -> Result<StreamPermit, ApiError> {
        let key = match caller {
            Caller::Anonymous(_) => "anonymous".to_string(),
            Caller::User(user, _) => format!("user:{}", user.subject),
            Caller::Mcp(_) => "mcp".to_string(),
        };
        let mut open = self.open.lock().map_err(|_| busy("klens"))?;
        let mine = open.by_caller.get(&key).copied().unwrap_or(0);
        if open.total >= self.max {
            return Err(busy(&format!("{} record streams are open", self.max)));
        }
        // Without sign-in everyone is the same caller: only the limit in all applies.
        if !matches!(caller, Caller::Anonymous(_)) && mine >= self.max_per_caller {
            return Err(busy(&format!(
                "you have {} record streams open; close one",
                self.max_per_caller
            )));
        }
        open.total += 1;
        open.by_caller.insert(key.clone(), mine + 1);
        Ok(StreamPermit {
            limits: Arc::clone(self),
            caller: key,
        })
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.open.lock().map(|o| o.total).unwrap_or(0)
    }
}

fn busy(why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::TooManyRequests,
        format!("Too many streams: {why}. Try again in {RETRY_AFTER_SECONDS} seconds."),
    )
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        if let Ok(mut open) = self.limits.open.lock() {
            open.total = open.total.saturating_sub(1);
            if let Some(count) = open.by_caller.get_mut(&self.caller) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    open.by_caller.remove(&self.caller);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::oidc::SignedIn;

    fn user(subject: &str) -> Caller {
        Caller::User(
            SignedIn {
                subject: subject.into(),
                name: None,
                email: None,
                groups: vec![],
                expires_at_ms: i64::MAX,
                id_token: String::new(),
            },
            app::api::Door::Api,
        )
    }

    #[test]
    fn streams_are_limited_per_caller_and_in_all() {
        let limits = StreamLimits::new(5, 2);
        let a1 = limits.admit(&user("a")).expect("first");
        let _a2 = limits.admit(&user("a")).expect("second");
        let e = limits
            .admit(&user("a"))
            .expect_err("a third for one caller");
        assert_eq!((e.code, e.status()), (ErrorCode::TooManyRequests, 429));
        let _b = [
            limits.admit(&user("b")).expect("b"),
            limits
                .admit(&Caller::Anonymous(app::api::Door::Api))
                .expect("anonymous"),
            limits
                .admit(&Caller::Anonymous(app::api::Door::Api))
                .expect("anonymous, past the per-caller limit"),
        ];
        let e = limits.admit(&user("d")).expect_err("the sixth in all");
        assert_eq!(e.code, ErrorCode::TooManyRequests);
        assert_eq!(limits.open(), 5);
        drop(a1);
        assert_eq!(limits.open(), 4);
        let _again = limits.admit(&user("a")).expect("a place was given back");
    }
}
