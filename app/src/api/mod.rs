//! Server functions and the shapes they answer. A server function lives at `/api/<name>`; its
//! body runs only on the server and reaches Kafka through [`backend::Backend`], which the
//! `server` crate provides, so this crate never links a Kafka client.

mod catalog;
mod identity;
mod topics;

pub use catalog::*;
pub use identity::*;
pub use topics::*;

#[cfg(feature = "ssr")]
pub mod backend;
