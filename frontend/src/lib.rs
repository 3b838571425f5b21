//! The browser entry point: load the opened page's piece of the WASM, then hydrate the
//! server-rendered page. Nothing else lives here.

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    use app::lazy::{preload_on_hover, Page};
    use leptos::prelude::window;

    console_error_panic_hook::set_once();
    // Hydration is synchronous: the page's piece must be there before it starts (an
    // error here leaves the path empty, whose page is in the shell).
    let path = window().location().pathname().unwrap_or_default();
    wasm_bindgen_futures::spawn_local(async move {
        if let Some(page) = Page::of_path(&path) {
            page.preload().await;
        }
        leptos::mount::hydrate_body(app::App);
        preload_on_hover();
    });
}
