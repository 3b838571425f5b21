//! Light and dark themes. Without a stored choice the page follows the system setting through
//! CSS; a choice made with the switch is kept in localStorage and set as `data-theme` on `<html>`.

use leptos::prelude::*;

const STORAGE_KEY: &str = "klens-theme";

/// Runs in `<head>` before first paint.
pub const EARLY_THEME_SCRIPT: &str = "try{var t=localStorage.getItem('klens-theme');if(t==='light'||t==='dark'){document.documentElement.dataset.theme=t;}}catch(e){}";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Theme::System => "Theme: system",
            Theme::Light => "Theme: light",
            Theme::Dark => "Theme: dark",
        }
    }

    fn stored(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }
}

/// A button that cycles system → light → dark.
#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let theme = RwSignal::new(Theme::System);
    // Read the stored choice once hydrated (the server cannot know it).
    Effect::new(move |_| {
        theme.set(match super::stored_choice(STORAGE_KEY).as_deref() {
            Some("light") => Theme::Light,
            Some("dark") => Theme::Dark,
            _ => Theme::System,
        });
    });
    let cycle = move |_| {
        let next = theme.get_untracked().next();
        theme.set(next);
        apply(next);
    };
    view! {
        <button type="button" class="theme-switch" on:click=cycle aria-label="Switch theme" title=move || theme.get().label()>
            {move || theme.get().label()}
        </button>
    }
}

fn apply(theme: Theme) {
    let root = document().document_element();
    let storage = window().local_storage().ok().flatten();
    match theme.stored() {
        Some(value) => {
            if let Some(root) = root {
                let _ = root.set_attribute("data-theme", value);
            }
            if let Some(storage) = storage {
                let _ = storage.set_item(STORAGE_KEY, value);
            }
        }
        None => {
            if let Some(root) = root {
                let _ = root.remove_attribute("data-theme");
            }
            if let Some(storage) = storage {
                let _ = storage.remove_item(STORAGE_KEY);
            }
        }
    }
}
