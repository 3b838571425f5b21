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
pub mod search;
pub mod sheet;
pub mod table;
pub mod theme;

/// A choice kept in the browser's localStorage under `key`; `None` without one (or storage).
/// Browser only: call it from effects and event handlers.
pub fn stored_choice(key: &str) -> Option<String> {
    leptos::prelude::window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(key).ok().flatten())
}
