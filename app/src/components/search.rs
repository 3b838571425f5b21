//! Search: a box in the header that opens a palette (also on Ctrl-K or Cmd-K). Typing asks the
//! server, which matches topics, groups, brokers and subjects of every visible cluster, typos
//! and all; the arrow keys move through the hits and Enter opens one.

use leptos::ev::KeyboardEvent;
use leptos::html::Input;
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

use crate::api::{search, Arg, SearchHit};

#[component]
pub fn Search() -> impl IntoView {
    let open = RwSignal::new(false);
    let query = RwSignal::new(String::new());
    let active = RwSignal::new(0usize);
    let input = NodeRef::<Input>::new();
    let hits = LocalResource::new(move || {
        let q = query.get();
        async move {
            if q.trim().is_empty() {
                return Ok(Vec::new());
            }
            search(q.into(), Arg::Missing).await.map(|r| r.hits)
        }
    });
    let current = move || -> Vec<SearchHit> { hits.get().and_then(|r| r.ok()).unwrap_or_default() };

    // Ctrl-K / Cmd-K from anywhere opens the palette. Effects run only in the browser.
    Effect::new(move |_| {
        let handle = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
            if (ev.ctrl_key() || ev.meta_key()) && ev.key().eq_ignore_ascii_case("k") {
                ev.prevent_default();
                open.set(true);
            }
        });
        on_cleanup(move || handle.remove());
    });
    // Focus the palette's box whenever it opens.
    Effect::new(move |_| {
        if open.get() {
            if let Some(el) = input.get() {
                let _ = el.focus();
            }
        }
    });

    let navigate = use_navigate();
    let go = move |url: String| {
        open.set(false);
        query.set(String::new());
        navigate(&url, Default::default());
    };
    let go_key = go.clone();
    let on_keydown = move |ev: KeyboardEvent| match ev.key().as_str() {
        "Escape" => open.set(false),
        "ArrowDown" => {
            ev.prevent_default();
            let n = current().len();
            if n > 0 {
                active.update(|a| *a = (*a + 1) % n);
            }
        }
        "ArrowUp" => {
            ev.prevent_default();
            let n = current().len();
            if n > 0 {
                active.update(|a| *a = (*a + n - 1) % n);
            }
        }
        "Enter" => {
            ev.prevent_default();
            if let Some(hit) = current().get(active.get_untracked()) {
                go_key(hit.url.clone());
            }
        }
        _ => {}
    };

    view! {
        <button
            type="button"
            class="search"
            aria-keyshortcuts="Control+K Meta+K"
            aria-haspopup="dialog"
            on:click=move |_| open.set(true)
        >
            <span>"Search topics, groups, brokers, subjects"</span>
            <kbd>"Ctrl K"</kbd>
        </button>
        <Show when=move || open.get()>
            <div class="palette-backdrop" on:click=move |_| open.set(false)>
                <div
                    class="palette"
                    role="dialog"
                    aria-modal="true"
                    aria-label="Search"
                    on:click=|ev| ev.stop_propagation()
                >
                    <input
                        node_ref=input
                        type="search"
                        role="combobox"
                        aria-label="Search"
                        aria-controls="search-hits"
                        aria-expanded="true"
                        autocomplete="off"
                        placeholder="Search topics, groups, brokers, subjects"
                        prop:value=move || query.get()
                        on:input=move |ev| {
                            active.set(0);
                            query.set(event_target_value(&ev));
                        }
                        on:keydown=on_keydown.clone()
                    />
                    <ul id="search-hits" class="palette-hits" role="listbox" aria-label="Results">
                        {
                            let go = go.clone();
                            move || {
                                let list = current();
                                if list.is_empty() && !query.read().trim().is_empty() && hits.get().is_some() {
                                    return view! { <li class="empty">"Nothing matches."</li> }.into_any();
                                }
                                list.into_iter()
                                    .enumerate()
                                    .map(|(i, hit)| {
                                        let url = hit.url.clone();
                                        let go = go.clone();
                                        view! {
                                            <li
                                                role="option"
                                                aria-selected=move || (active.get() == i).to_string()
                                                class:active=move || active.get() == i
                                                on:mouseenter=move |_| active.set(i)
                                            >
                                                <a href=hit.url.clone() on:click=move |ev| {
                                                    ev.prevent_default();
                                                    go(url.clone());
                                                }>
                                                    <span class="badge">{hit.kind.label()}</span>
                                                    " "
                                                    <span class="mono">{hit.name.clone()}</span>
                                                    " "
                                                    <span class="hit-cluster">{hit.cluster.clone()}</span>
                                                </a>
                                            </li>
                                        }
                                    })
                                    .collect_view()
                                    .into_any()
                            }
                        }
                    </ul>
                </div>
            </div>
        </Show>
    }
}
