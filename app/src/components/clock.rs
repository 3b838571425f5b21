//! How times are shown: in UTC, the same on the server and in every browser, or in the
//! browser's own zone. One choice for the whole app, switched by [`ZoneSwitch`] and kept in
//! localStorage; the server's render is always UTC.

use leptos::prelude::*;

use crate::format::utc_timestamp;

const STORAGE_KEY: &str = "klens-time-zone";

/// True when times show in the browser's zone.
#[derive(Clone, Copy)]
pub struct LocalTime(pub RwSignal<bool>);

/// Provides the choice to the page tree, read from localStorage once hydrated.
pub fn provide_zone_choice() {
    let local = RwSignal::new(false);
    Effect::new(move |_| {
        local.set(super::stored_choice(STORAGE_KEY).as_deref() == Some("local"));
    });
    provide_context(LocalTime(local));
}

/// The choice; UTC where no layout provided one.
pub fn local_time() -> RwSignal<bool> {
    use_context::<LocalTime>().map(|LocalTime(l)| l).unwrap_or_else(|| RwSignal::new(false))
}

/// `ms` as the choice says.
pub fn shown_time(ms: i64, local: bool) -> String {
    #[cfg(feature = "hydrate")]
    if local {
        let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
        return String::from(date.to_string());
    }
    let _ = local;
    utc_timestamp(ms)
}

/// A button that switches between UTC and the browser's zone.
#[component]
pub fn ZoneSwitch() -> impl IntoView {
    let local = local_time();
    let switch = move |_| {
        let now_local = !local.get_untracked();
        local.set(now_local);
        if let Ok(Some(storage)) = window().local_storage() {
            let _ = storage.set_item(STORAGE_KEY, if now_local { "local" } else { "utc" });
        }
    };
    view! {
        <button type="button" class="button" on:click=switch>
            {move || if local.get() { "Show in UTC" } else { "Show in my time zone" }}
        </button>
    }
}
