//! Server functions and the shapes they answer. A server function lives at `/api/<name>`; its
//! body runs only on the server and reaches Kafka through [`backend::Backend`], which the
//! `server` crate provides, so this crate never links a Kafka client.

/// Declares server functions that hand their arguments, as sent, to the backend and do nothing
/// else: a server function cannot decide, judge or call Kafka on its own, so every door reaches
/// the same service function (`server::service`) through [`backend::run`]. Each entry reads
/// `<input codec> "<endpoint>" fn <name>(<arguments>) -> <answer> as <call>;`, where `<call>` is
/// the arguments' struct that `#[server]` makes of `<name>`, and answers with [`Answer`].
macro_rules! serve {
    ($(
        $(#[$meta:meta])*
        $input:ident $endpoint:literal fn $name:ident(
            $($(#[$arg_meta:meta])* $arg:ident: $ty:ty),* $(,)?
        ) -> $out:ty as $call:ident;
    )*) => {$(
        $(#[$meta])*
        #[leptos::server(endpoint = $endpoint, input = $input, output = Answer)]
        pub async fn $name($($(#[$arg_meta])* $arg: $ty),*) -> Result<$out, crate::ApiError> {
            super::backend::run($call { $($arg),* }).await
        }
    )*};
}

mod acls;
mod answer;
mod args;
mod audit;
mod broker_configs;
mod brokers;
mod catalog;
mod changes;
mod connect;
mod copy;
mod export;
mod group_changes;
mod groups;
mod identity;
mod processors;
mod produce;
mod quotas;
mod records;
mod replications;
mod schemas;
mod search;
mod topics;
mod topology;
mod users;
mod window;

pub use acls::*;
pub use answer::{Answer, JsonText};
pub use args::*;
pub use audit::*;
pub use broker_configs::*;
pub use brokers::*;
pub use catalog::*;
pub use changes::*;
pub use connect::*;
pub use copy::*;
pub use export::*;
pub use group_changes::*;
pub use groups::*;
pub use identity::*;
pub use processors::*;
pub use produce::*;
pub use quotas::*;
pub use records::*;
pub use replications::*;
pub use schemas::*;
pub use search::*;
pub use topics::*;
pub use topology::*;
pub use users::*;
pub use window::*;

#[cfg(feature = "ssr")]
pub mod backend;
