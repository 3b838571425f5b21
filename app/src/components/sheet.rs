//! Forms and confirmations open as a sheet over the page (the stylesheet places every panel a
//! page head opens, and every panel with the dialog role, at the right edge), so the list
//! behind stays where it was. This module gives the sheets their keyboard: Escape closes the
//! open one as its Cancel button would, a sheet that opens takes the focus, and Tab and
//! Shift+Tab go round the sheet's own fields and buttons while it is open.

#[cfg(feature = "hydrate")]
use leptos::prelude::*;

/// What the stylesheet shows as a sheet.
#[cfg(feature = "hydrate")]
const SHEETS: &str = ".page-head .panel, .panel[role=\"dialog\"]";

/// Listens for Escape and for sheets opening, for as long as the layout lives.
pub fn provide_sheet_keys() {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        use wasm_bindgen::JsCast;
        let keys = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.key() == "Escape" {
                if let Some(cancel) = open_sheet().and_then(|s| dismiss_button(&s)) {
                    ev.prevent_default();
                    cancel.click();
                }
            }
            if ev.key() == "Tab" {
                let Some(sheet) = open_sheet() else { return };
                let stops = focusable(&sheet);
                let (Some(first), Some(last)) = (stops.first(), stops.last()) else { return };
                let active = document().active_element();
                let inside =
                    active.as_ref().is_some_and(|a| sheet.contains(Some(a.unchecked_ref())));
                let on = |e: &web_sys::HtmlElement| {
                    active.as_ref().is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>())
                };
                // Round the sheet: past its last stop to its first, before its first to its
                // last; from outside it, into it.
                let next = match (inside, ev.shift_key()) {
                    (false, false) => Some(first),
                    (false, true) => Some(last),
                    (true, false) if on(last) => Some(first),
                    (true, true) if on(first) => Some(last),
                    _ => None,
                };
                if let Some(next) = next {
                    ev.prevent_default();
                    let _ = next.focus();
                }
            }
        });
        // A click that opened a sheet leaves the focus on its button, behind the sheet: move it
        // to the sheet's first field once the page has drawn it.
        let clicks = window_event_listener(leptos::ev::click, move |_| {
            request_animation_frame(move || {
                let Some(sheet) = open_sheet() else { return };
                let active = document().active_element();
                if active.is_some_and(|a| sheet.contains(Some(a.unchecked_ref()))) {
                    return;
                }
                let first = sheet
                    .query_selector(
                        "input:not([type=hidden]):not([disabled]), select, textarea, button",
                    )
                    .ok()
                    .flatten()
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                if let Some(field) = first {
                    let _ = field.focus();
                }
            });
        });
        on_cleanup(move || {
            keys.remove();
            clicks.remove();
        });
    });
}

/// The sheet open now, if any.
#[cfg(feature = "hydrate")]
fn open_sheet() -> Option<web_sys::Element> {
    document().query_selector(SHEETS).ok().flatten()
}

/// The fields, buttons and links of a sheet the keyboard can reach, in the page's order.
#[cfg(feature = "hydrate")]
fn focusable(sheet: &web_sys::Element) -> Vec<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    let Ok(found) = sheet.query_selector_all(
        "input:not([type=hidden]):not([disabled]), select:not([disabled]), \
         textarea:not([disabled]), button:not([disabled]), a[href], [tabindex]:not([tabindex=\"-1\"])",
    ) else {
        return Vec::new();
    };
    (0..found.length())
        .filter_map(|i| found.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        // Drawn: an element hidden (or inside a closed `details`) has no offset parent.
        .filter(|e| e.offset_parent().is_some())
        .collect()
}

/// The sheet's Cancel (or Close) button, which every sheet has.
#[cfg(feature = "hydrate")]
fn dismiss_button(sheet: &web_sys::Element) -> Option<web_sys::HtmlElement> {
    use wasm_bindgen::JsCast;
    let buttons = sheet.query_selector_all("button").ok()?;
    (0..buttons.length())
        .filter_map(|i| buttons.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .find(|b| {
            let text = b.text_content().unwrap_or_default();
            matches!(text.trim(), "Cancel" | "Close" | "Keep it")
        })
}
