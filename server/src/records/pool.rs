//! Pages of records (and the offset lookups they start with) run on a pool of threads of their
//! own, apart from the blocking threads that the catalog's refreshes and everything else use: a
//! flood of pages never holds up a refresh or `/health`. Nothing waits in a queue here: a read
//! that finds every thread taken is refused at once with `TOO_MANY_REQUESTS`.
//!
//! The export and the tail stay on tokio's blocking pool. They are few by construction (at most
//! `service::limits::MAX_STREAMS`, far below that pool's 512 threads), and measured on this
//! pool they ran 17% slower: each batch they decode goes back to the main runtime for the
//! schemas it may need, and crossing runtimes for every batch costs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use app::{ApiError, ErrorCode};
use tokio::runtime::{Builder, Runtime};
use tokio::task::JoinHandle;

use crate::kafka::ClientError;

/// The most page reads running at once; more are refused, never queued.
const THREADS: usize = 64;
/// Reads taken on now, each holding one of the `THREADS` places until it ends.
static TAKEN: AtomicUsize = AtomicUsize::new(0);
/// The name of the pool's threads, as the OS shows them.
pub const THREAD_NAME: &str = "klens-records";

static POOL: OnceLock<Option<Runtime>> = OnceLock::new();

/// The pool, made on first use. Should the OS refuse its threads, reads share the async
/// runtime's blocking pool instead, as they did before the pool existed.
fn pool() -> Option<&'static Runtime> {
    POOL.get_or_init(|| {
        Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(THREADS)
            .thread_name(THREAD_NAME)
            .enable_time()
            .build()
            .map_err(|error| tracing::warn!(%error, "no pool of its own for record reads"))
            .ok()
    })
    .as_ref()
}

/// Runs a blocking page read on the pool.
pub fn spawn<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> JoinHandle<T> {
    match pool() {
        Some(runtime) => runtime.spawn_blocking(read),
        None => tokio::task::spawn_blocking(read),
    }
}

/// One place counted in `taken`, given back when dropped.
struct Place(&'static AtomicUsize);

impl Place {
    /// A place, unless `limit` are taken already.
    fn take(taken: &'static AtomicUsize, limit: usize) -> Option<Place> {
        taken
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < limit).then_some(n + 1))
            .ok()
            .map(|_| Place(taken))
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// [`spawn`] when a thread is free, answering the read's own error (`CLIENT`) or that the read
/// failed; `TOO_MANY_REQUESTS` at once when every thread is taken.
pub async fn run<T: Send + 'static>(
    what: &str, read: impl FnOnce() -> Result<T, ClientError> + Send + 'static,
) -> Result<T, ApiError> {
    run_within(&TAKEN, THREADS, what, read).await
}

/// [`run`] with `limit` places counted in `taken`.
async fn run_within<T: Send + 'static>(
    taken: &'static AtomicUsize, limit: usize, what: &str,
    read: impl FnOnce() -> Result<T, ClientError> + Send + 'static,
) -> Result<T, ApiError> {
    let Some(place) = Place::take(taken, limit) else {
        return Err(ApiError::new(
            ErrorCode::TooManyRequests,
            format!(
                "klens is reading as many pages of records as it can at once ({limit}). Try again in {} seconds.",
                app::RETRY_AFTER_SECONDS
            ),
        ));
    };
    let read = move || {
        // The place is given back when the read ends, not when its caller stops waiting.
        let _place = place;
        read()
    };
    match spawn(read).await {
        Ok(result) => result.map_err(ApiError::from),
        Err(e) => {
            Err(ApiError::from(ClientError::Lost { doing: what.to_string(), why: e.to_string() }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn record_reads_run_on_threads_of_their_own() {
        let name =
            run("naming the thread", || Ok(std::thread::current().name().map(str::to_string)))
                .await
                .expect("runs");
        assert_eq!(name.as_deref(), Some(THREAD_NAME));
    }

    /// A read that finds every place taken is refused at once, not queued; a place is free
    /// again when its read ends.
    #[tokio::test]
    async fn a_full_pool_refuses_instead_of_queueing() {
        static ONE: AtomicUsize = AtomicUsize::new(0);
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (started, running) = tokio::sync::oneshot::channel::<()>();
        let slow = tokio::spawn(run_within(&ONE, 1, "a slow read", move || {
            let _ = started.send(());
            let _ = wait.recv();
            Ok(1)
        }));
        running.await.expect("the slow read started");
        let refused =
            run_within(&ONE, 1, "one more", || Ok(2)).await.expect_err("every place is taken");
        assert_eq!((refused.code, refused.status()), (ErrorCode::TooManyRequests, 429));
        release.send(()).expect("release");
        assert_eq!(slow.await.expect("joined").expect("read"), 1);
        assert_eq!(ONE.load(Ordering::SeqCst), 0, "the place is given back");
        assert_eq!(run_within(&ONE, 1, "again", || Ok(3)).await.expect("a free place"), 3);
    }
}
