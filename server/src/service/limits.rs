//! How many record streams (exports and tails) may be open at once, and how many expensive
//! reads (pages of records, find by key, schema dry runs with their records check) may run at
//! once: in all, and per caller (without sign-in, everyone is one caller, so only the limit in
//! all applies). A stream holds a reader, a blocking thread and a broker's fetches for as long
//! as it runs, and a read for up to its deadline, so past these limits klens answers
//! `TOO_MANY_REQUESTS` with a time to try again instead of running out of threads or queueing
//! without end.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use app::{ApiError, ErrorCode, RETRY_AFTER_SECONDS};

use crate::auth::Caller;

/// The most streams open at once, and per caller.
pub const MAX_STREAMS: usize = 64;
pub const MAX_STREAMS_PER_CALLER: usize = 4;
/// The most expensive reads running at once, and per caller. Below the record pool's threads
/// (`records::pool`), so pages alone never fill it.
pub const MAX_READS: usize = 32;
pub const MAX_READS_PER_CALLER: usize = 4;

#[derive(Debug, Default)]
struct Open {
    total: usize,
    by_caller: HashMap<String, usize>,
}

/// The open streams (or the expensive reads running).
#[derive(Debug)]
pub struct StreamLimits {
    open: Mutex<Open>,
    max: usize,
    max_per_caller: usize,
    /// What is counted, as a refusal names it.
    what: &'static str,
}

/// One open stream; the place is given back when it is dropped.
#[derive(Debug)]
pub struct StreamPermit {
    limits: Arc<StreamLimits>,
    caller: String,
}

impl StreamLimits {
    pub fn new(max: usize, max_per_caller: usize) -> Arc<StreamLimits> {
        Self::counting("record streams", max, max_per_caller)
    }

    /// Limits of `what` (as a refusal names it), in all and per caller.
    pub fn counting(what: &'static str, max: usize, max_per_caller: usize) -> Arc<StreamLimits> {
        Arc::new(StreamLimits { open: Mutex::new(Open::default()), max, max_per_caller, what })
    }

    /// A place for one more stream of `caller`, or `TOO_MANY_REQUESTS`.
    pub fn admit(self: &Arc<Self>, caller: &Caller) -> Result<StreamPermit, ApiError> {
        let key = caller_key(caller);
        let what = self.what;
        let mut open = self.open.lock().map_err(|_| busy(what, "klens cannot count them"))?;
        let mine = open.by_caller.get(&key).copied().unwrap_or(0);
        if open.total >= self.max {
            return Err(busy(what, &format!("{} are running for everyone", self.max)));
        }
        // Without sign-in everyone is the same caller: only the limit in all applies.
        if !matches!(caller, Caller::Anonymous(_)) && mine >= self.max_per_caller {
            return Err(busy(
                what,
                &format!("you have {} running; let one end", self.max_per_caller),
            ));
        }
        open.total += 1;
        open.by_caller.insert(key.clone(), mine + 1);
        Ok(StreamPermit { limits: Arc::clone(self), caller: key })
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.open.lock().map(|o| o.total).unwrap_or(0)
    }
}

fn busy(what: &str, why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::TooManyRequests,
        format!("Too many {what}: {why}. Try again in {RETRY_AFTER_SECONDS} seconds."),
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

/// Who a caller is, for what klens counts or keeps per caller (streams, copy jobs): a signed-in
/// user by their subject; without sign-in every caller is one; the MCP door is one.
pub fn caller_key(caller: &Caller) -> String {
    match caller {
        Caller::Anonymous(_) => "anonymous".to_string(),
        Caller::User(user, _) => format!("user:{}", user.subject),
        Caller::Mcp(_) => "mcp".to_string(),
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
        let e = limits.admit(&user("a")).expect_err("a third for one caller");
        assert_eq!((e.code, e.status()), (ErrorCode::TooManyRequests, 429));
        let _b = [
            limits.admit(&user("b")).expect("b"),
            limits.admit(&Caller::Anonymous(app::api::Door::Api)).expect("anonymous"),
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

    #[test]
    fn expensive_reads_are_bounded_per_caller_and_in_all_and_say_what() {
        let reads = StreamLimits::counting("expensive reads", MAX_READS, MAX_READS_PER_CALLER);
        let mine: Vec<StreamPermit> = (0..MAX_READS_PER_CALLER)
            .map(|_| reads.admit(&user("a")).expect("within the caller's bound"))
            .collect();
        let e = reads.admit(&user("a")).expect_err("one more for the same caller");
        assert_eq!((e.code, e.status()), (ErrorCode::TooManyRequests, 429));
        assert!(
            e.message.starts_with("Too many expensive reads: you have 4 running"),
            "{}",
            e.message
        );
        let others: Vec<StreamPermit> = (0..MAX_READS - MAX_READS_PER_CALLER)
            .map(|i| reads.admit(&user(&format!("u{}", i / 2))).expect("others"))
            .collect();
        let e = reads.admit(&user("z")).expect_err("past the bound in all");
        assert!(e.message.contains("32 are running for everyone"), "{}", e.message);
        drop(mine);
        drop(others);
        assert_eq!(reads.open(), 0, "every place is given back");
    }
}
