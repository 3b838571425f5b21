//! The seam between server functions and the `server` crate. The server puts an
//! `Arc<dyn Backend>` into the Leptos context; server functions fetch it with [`current`] and
//! hand it their arguments as sent. The server's side finds the caller of the request and calls
//! its service, which asks the authorization decision before it judges any argument.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::use_context;

use crate::error::{ApiError, ErrorCode};

/// A server function's own arguments (the struct `#[server]` makes of them), or an answer,
/// with its type forgotten on the way through the seam and found again on the other side.
pub type Erased = Box<dyn Any + Send>;

/// What server functions may ask of the server: run the operation whose arguments `call`
/// holds. The server finds the service function that answers that type of call (each one
/// registers itself beside its service function), so a new operation adds nothing here.
pub trait Backend: Send + Sync + 'static {
    fn serve(&self, call: Erased) -> Reply<Erased>;
}

/// Runs `call` (a server function's arguments) through the backend of the current request,
/// and gives back its answer as the server function's own type.
pub async fn run<C: Any + Send, T: Any + Send>(call: C) -> Result<T, ApiError> {
    let answer = current()?.serve(Box::new(call)).await?;
    answer.downcast::<T>().map(|answer| *answer).map_err(|_| {
        ApiError::new(
            ErrorCode::Client,
            "klens answered this call with something else than it asks for.",
        )
    })
}

/// The answer of a backend method.
pub type Reply<T> = Pin<Box<dyn Future<Output = Result<T, ApiError>> + Send>>;

pub type SharedBackend = Arc<dyn Backend>;

/// The backend of the current request.
pub fn current() -> Result<SharedBackend, ApiError> {
    use_context::<SharedBackend>().ok_or_else(|| {
        ApiError::new(ErrorCode::Client, "klens is not ready to answer this request.")
    })
}
