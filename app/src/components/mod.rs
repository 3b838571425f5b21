//! Building blocks shared by pages: the layout (header, navigation), the theme switch, and
//! small display helpers.

pub mod access;
pub mod change;
pub mod clock;
pub mod configs;
pub mod crumbs;
pub mod download;
pub mod health;
pub mod layout;
pub mod page;
pub mod search;
pub mod sheet;
pub mod table;
pub mod theme;

/// The cluster the page's route names (`/c/:cluster/...`), read through a closure that
/// follows the route.
pub fn use_cluster() -> impl Fn() -> String + Copy + Send + Sync + 'static {
    let params = leptos_router::hooks::use_params_map();
    move || {
        use leptos::prelude::Read;
        params.read().get("cluster").unwrap_or_default()
    }
}

/// The one way a page says that a read or a change failed: the error's own words, as an alert.
#[leptos::component]
pub fn ErrorAlert(error: crate::ApiError) -> impl leptos::IntoView {
    use leptos::prelude::*;
    view! { <p class="error" role="alert">{error.message}</p> }
}

/// A choice kept in the browser's localStorage under `key`; `None` without one (or storage).
/// Browser only: call it from effects and event handlers.
pub fn stored_choice(key: &str) -> Option<String> {
    leptos::prelude::window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(key).ok().flatten())
}
