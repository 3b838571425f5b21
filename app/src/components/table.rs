//! Pieces of the catalog's list pages: list state kept in the URL (filter, sort, page), sortable
//! column headers, a pager, lag bars, and how fresh the data on screen is.

use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate, use_query_map};
use leptos_router::NavigateOptions;

use crate::api::{Window, WindowArgs, PAGE_SIZE};
use crate::format::thousands;

/// A list page's state as the URL holds it: `?q=…&sort=…&desc=1&page=…`, so a view can be
/// bookmarked and shared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub q: String,
    pub sort: Option<String>,
    pub desc: bool,
    /// Zero-based.
    pub page: u64,
}

impl ListQuery {
    /// The window the server is asked for: one page of rows.
    pub fn window(&self) -> Window {
        Window {
            q: Some(self.q.clone()).filter(|q| !q.trim().is_empty()),
            sort: self.sort.clone(),
            desc: self.desc,
            offset: self.page * PAGE_SIZE,
            limit: Some(PAGE_SIZE),
        }
    }

    /// The query string of this state, starting with `?` (or empty).
    pub fn search(&self) -> String {
        let mut parts = Vec::new();
        if !self.q.is_empty() {
            parts.push(format!("q={}", crate::format::query_value(&self.q)));
        }
        if let Some(sort) = &self.sort {
            parts.push(format!("sort={}", crate::format::query_value(sort)));
        }
        if self.desc {
            parts.push("desc=1".to_string());
        }
        if self.page > 0 {
            parts.push(format!("page={}", self.page + 1));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("?{}", parts.join("&"))
        }
    }

    /// Sorting by `column`: a second click on the current column flips the direction.
    fn sorted_by(&self, column: &str) -> ListQuery {
        let current = self.sort.as_deref().unwrap_or("name") == column;
        ListQuery {
            sort: (column != "name").then(|| column.to_string()),
            desc: current && !self.desc,
            page: 0,
            ..self.clone()
        }
    }
}

/// The list state of the current URL.
pub fn use_list_query() -> Memo<ListQuery> {
    let query = use_query_map();
    Memo::new(move |_| {
        let query = query.read();
        ListQuery {
            q: query.get("q").unwrap_or_default(),
            sort: query.get("sort").filter(|s| !s.is_empty()),
            desc: query.get("desc").is_some_and(|d| d == "1" || d == "true"),
            page: query
                .get("page")
                .and_then(|p| p.parse::<u64>().ok())
                .map(|p| p.saturating_sub(1))
                .unwrap_or(0),
        }
    })
}

/// The window of a cluster's list that the URL asks for, read by `fetch` for the page's
/// cluster, and read again when either changes.
pub fn use_window_list<T, Fut>(
    fetch: fn(String, WindowArgs) -> Fut,
) -> Resource<Result<T, crate::ApiError>>
where
    T: Clone + Send + Sync + serde::Serialize + serde::de::DeserializeOwned + 'static,
    Fut: std::future::Future<Output = Result<T, crate::ApiError>> + Send + 'static,
{
    let cluster = super::use_cluster();
    let state = use_list_query();
    Resource::new(
        move || (cluster(), state.get()),
        move |(cluster, state)| fetch(cluster, state.window().into()),
    )
}

/// A column of a [`DataTable`] whose header is a plain name (klens's own words, with no
/// markup in them).
#[derive(Clone, Copy)]
pub enum Col {
    /// A column of words, left-aligned.
    Text(&'static str),
    /// A column of figures, right-aligned.
    Num(&'static str),
    /// The last column, holding a row's buttons: named for screen readers only.
    Actions,
}

impl Col {
    /// The column's header cell as HTML.
    fn header(self) -> String {
        match self {
            Col::Text(name) => ["<th scope=\"col\">", name, "</th>"].concat(),
            Col::Num(name) => ["<th scope=\"col\" class=\"num\">", name, "</th>"].concat(),
            Col::Actions => {
                "<th scope=\"col\"><span class=\"visually-hidden\">Actions</span></th>".into()
            }
        }
    }
}

/// A data table in its own scrolling box: the page never scrolls sideways, and the header
/// stays in view inside the box. `class` adds to `data` (`compact`, `configs`, ...); `cols`,
/// when given, is its header (a table whose headers sort or explain themselves writes its own
/// `thead` among `children`).
#[component]
pub fn DataTable(
    label: &'static str, #[prop(optional)] class: &'static str,
    #[prop(optional)] cols: &'static [Col], children: Children,
) -> impl IntoView {
    let class = if class.is_empty() { "data".to_string() } else { format!("data {class}") };
    // Written as HTML: a header has nothing to hydrate, and so costs the bundle one element.
    let head = (!cols.is_empty()).then(|| {
        let cells: String = cols.iter().copied().map(Col::header).collect();
        view! { <thead inner_html=["<tr>", &cells, "</tr>"].concat() /> }
    });
    view! {
        <div class="table-box">
            <table class=class aria-label=label>{head}{children()}</table>
        </div>
    }
}

/// The name filter of a list; typing narrows the list at once and keeps the URL in step.
#[component]
pub fn FilterBox(label: &'static str) -> impl IntoView {
    let state = use_list_query();
    let location = use_location();
    let navigate = use_navigate();
    let on_input = move |ev: leptos::ev::Event| {
        let next = ListQuery { q: event_target_value(&ev), page: 0, ..state.get_untracked() };
        let url = format!("{}{}", location.pathname.get_untracked(), next.search());
        navigate(&url, NavigateOptions { replace: true, scroll: false, ..Default::default() });
    };
    view! {
        <input
            class="filter"
            type="search"
            aria-label=label
            placeholder=label
            prop:value=move || state.read().q.clone()
            on:input=on_input
        />
    }
}

/// A column header that sorts the list by its column.
#[component]
pub fn SortHeader(
    column: &'static str, label: &'static str, #[prop(optional)] num: bool,
    #[prop(optional)] title: Option<&'static str>,
) -> impl IntoView {
    let state = use_list_query();
    let location = use_location();
    let active = move || state.read().sort.as_deref().unwrap_or("name") == column;
    let aria = move || match (active(), state.read().desc) {
        (false, _) => "none",
        (true, false) => "ascending",
        (true, true) => "descending",
    };
    let href =
        move || format!("{}{}", location.pathname.get(), state.read().sorted_by(column).search());
    let arrow = move || match (active(), state.read().desc) {
        (false, _) => "",
        (true, false) => " ▲",
        (true, true) => " ▼",
    };
    view! {
        <th scope="col" class:num=num aria-sort=aria title=title>
            <a class="sort" href=href>{label}{arrow}</a>
        </th>
    }
}

/// "Rows 101–200 of 2,345" with previous and next links.
#[component]
pub fn Pager(matched: u64, total: u64, shown: u64) -> impl IntoView {
    let state = use_list_query();
    let location = use_location();
    let page = state.get_untracked().page;
    let first = page * PAGE_SIZE;
    let link = move |to: u64| {
        let next = ListQuery { page: to, ..state.get_untracked() };
        format!("{}{}", location.pathname.get_untracked(), next.search())
    };
    let has_next = first + shown < matched;
    let summary = if matched == 0 {
        format!("No matches among {}", thousands(total))
    } else if matched == total {
        format!("{}–{} of {}", thousands(first + 1), thousands(first + shown), thousands(total))
    } else {
        format!(
            "{}–{} of {} matching ({} in all)",
            thousands(first + 1),
            thousands(first + shown),
            thousands(matched),
            thousands(total)
        )
    };
    view! {
        <nav class="pager" aria-label="Pages">
            <span class="pager-summary">{summary}</span>
            {(page > 0).then(|| view! { <a class="button" rel="prev" href=link(page - 1)>"Previous"</a> })}
            {has_next.then(|| view! { <a class="button" rel="next" href=link(page + 1)>"Next"</a> })}
        </nav>
    }
}

/// A bar whose length shows `lag` against the largest lag in view.
#[component]
pub fn LagBar(lag: Option<u64>, max: u64) -> impl IntoView {
    let width = match lag {
        Some(lag) if max > 0 => (lag as f64 / max as f64 * 100.0).clamp(0.0, 100.0),
        _ => 0.0,
    };
    let text = lag.map(thousands).unwrap_or_else(|| "—".to_string());
    view! {
        <span class="lag">
            <span class="lag-figure">{text}</span>
            <span class="lag-track" aria-hidden="true">
                <span class="lag-fill" style=format!("width: {width:.1}%")></span>
            </span>
        </span>
    }
}

/// A small line chart of recent values, oldest first; nothing for fewer than two points.
#[component]
pub fn Sparkline(points: Vec<f32>, #[prop(optional)] label: &'static str) -> impl IntoView {
    let path = sparkline_points(&points, 80.0, 18.0);
    (!path.is_empty()).then(|| {
        view! {
            <svg class="spark" viewBox="0 0 80 20" width="80" height="20" role="img" aria-label=label>
                <polyline points=path fill="none" stroke="currentColor" stroke-width="1.5" />
            </svg>
        }
    })
}

/// SVG polyline points for `values` in a `width` × `height` box (plus one unit of margin), the
/// largest value at the top; all zero lies on the bottom.
pub fn sparkline_points(values: &[f32], width: f32, height: f32) -> String {
    if values.len() < 2 {
        return String::new();
    }
    let max = values.iter().copied().fold(0.0f32, f32::max);
    let step = width / (values.len() - 1) as f32;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let y = if max > 0.0 { height - v / max * height } else { height };
            format!("{:.1},{:.1}", i as f32 * step, y + 1.0)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How old a part of the catalog on screen is, counted from when klens answered and kept
/// current in the browser; with the error when the last read failed.
#[component]
pub fn Freshness(
    what: &'static str, at: Option<i64>, served_at: i64, #[prop(optional)] error: Option<String>,
) -> impl IntoView {
    let now = RwSignal::new(served_at);
    #[cfg(feature = "hydrate")]
    {
        Effect::new(move |_| {
            let tick = move || now.set(js_sys::Date::now() as i64);
            tick();
            let handle = set_interval_with_handle(tick, std::time::Duration::from_secs(5)).ok();
            on_cleanup(move || {
                if let Some(handle) = handle {
                    handle.clear();
                }
            });
        });
    }
    let text = move || match at {
        None => format!("{what} not read yet"),
        Some(at) => format!("{what} read {}", ago(now.get() - at)),
    };
    // Callers pass an empty text for "no error".
    let error = error.filter(|e| !e.is_empty());
    let stale = error.is_some();
    view! {
        <p class="fresh" class:stale=stale data-part=what>
            <span>{text}</span>
            {error.map(|e| view! { " — last attempt failed: " <span class="error">{e}</span> })}
        </p>
    }
}

/// `4_000` → `4 s ago`, `180_000` → `3 min ago`.
pub fn ago(ms: i64) -> String {
    let s = (ms / 1000).max(0);
    match s {
        0..=1 => "just now".to_string(),
        2..=119 => format!("{s} s ago"),
        120..=7199 => format!("{} min ago", s / 60),
        _ => format!("{} h ago", s / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_headers_say_which_hold_figures_and_name_the_actions_for_screen_readers() {
        let cells: Vec<String> = [Col::Text("Topic"), Col::Num("Lag"), Col::Actions]
            .into_iter()
            .map(Col::header)
            .collect();
        assert_eq!(cells[0], r#"<th scope="col">Topic</th>"#);
        assert_eq!(cells[1], r#"<th scope="col" class="num">Lag</th>"#);
        assert_eq!(
            cells[2],
            r#"<th scope="col"><span class="visually-hidden">Actions</span></th>"#
        );
    }

    #[test]
    fn list_state_round_trips_through_the_url() {
        let state = ListQuery { q: "a b&c".into(), sort: Some("lag".into()), desc: true, page: 2 };
        assert_eq!(state.search(), "?q=a%20b%26c&sort=lag&desc=1&page=3");
        assert_eq!(ListQuery::default().search(), "");
        let window = state.window();
        assert_eq!((window.offset, window.limit), (200, Some(PAGE_SIZE)));
    }

    #[test]
    fn sorting_twice_flips_and_resets_the_page() {
        let start = ListQuery { page: 3, ..ListQuery::default() };
        let by_lag = start.sorted_by("lag");
        assert_eq!((by_lag.sort.as_deref(), by_lag.desc, by_lag.page), (Some("lag"), false, 0));
        let flipped = by_lag.sorted_by("lag");
        assert!(flipped.desc);
        let by_name = flipped.sorted_by("name");
        assert_eq!((by_name.sort.as_deref(), by_name.desc), (None, false));
        assert!(by_name.sorted_by("name").desc);
    }

    #[test]
    fn sparklines_scale_to_the_largest_value() {
        assert_eq!(sparkline_points(&[1.0], 80.0, 18.0), "");
        assert_eq!(sparkline_points(&[0.0, 5.0, 10.0], 80.0, 18.0), "0.0,19.0 40.0,10.0 80.0,1.0");
        assert_eq!(sparkline_points(&[0.0, 0.0], 80.0, 18.0), "0.0,19.0 80.0,19.0");
    }

    #[test]
    fn ages_read_naturally() {
        assert_eq!(ago(-5), "just now");
        assert_eq!(ago(4_000), "4 s ago");
        assert_eq!(ago(180_000), "3 min ago");
        assert_eq!(ago(8_000_000), "2 h ago");
    }
}
