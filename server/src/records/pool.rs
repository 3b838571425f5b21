//! Pages of records (and the offset lookups they start with) run on a pool of threads of their
//! own, apart from the blocking threads that the catalog's refreshes and everything else use: a
//! flood of pages waits for its turn here, and never holds up a refresh or `/health`.
//!
//! The export and the tail stay on tokio's blocking pool. They are few by construction (at most
//! `service::limits::MAX_STREAMS`, far below that pool's 512 threads), and measured on this
//! pool they ran 17% slower: each batch they decode goes back to the main runtime for the
//! schemas it may need, and crossing runtimes for every batch costs.

use std::sync::OnceLock;

use tokio::runtime::{Builder, Runtime};
use tokio::task::JoinHandle;

/// The most page reads running at once; more wait for a thread.
const THREADS: usize = 64;
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

/// [`spawn`], answering the read's own error or that the read failed.
pub async fn run<T: Send + 'static>(
    what: &str,
    read: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    match spawn(read).await {
        Ok(result) => result,
        Err(e) => Err(format!("{what} failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn record_reads_run_on_threads_of_their_own() {
        let name = run("naming the thread", || {
            Ok(std::thread::current().name().map(str::to_string))
        })
        .await
        .expect("runs");
        assert_eq!(name.as_deref(), Some(THREAD_NAME));
    }
}
