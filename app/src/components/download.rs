//! The NDJSON download of the Data tab: a link to `/api/export` that, once the page is
//! hydrated, fetches the export itself so it can show how far it has got and be cancelled,
//! then saves the file. Without script it stays a plain download link.

use leptos::prelude::*;

use crate::format::{bytes, thousands};

/// Where a download stands. Only the browser moves it on from `Idle`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Status {
    Idle,
    Running {
        records: u64,
        bytes: u64,
        /// 0.0 to 1.0 of the offsets to read, when the server said which.
        fraction: Option<f64>,
    },
    Saved {
        records: u64,
        bytes: u64,
        /// Records the expression could not be evaluated on, left out.
        unevaluated: Option<crate::api::Unevaluated>,
    },
    Cancelled,
    Failed(String),
}

/// "Download NDJSON" for `href` (an `/api/export` URL), saved as `filename`.
#[component]
pub fn ExportDownload(#[prop(into)] href: Signal<String>, filename: String) -> impl IntoView {
    let status = RwSignal::new(Status::Idle);
    let filename = StoredValue::new(filename);
    #[cfg(feature = "hydrate")]
    let abort = StoredValue::new_local(None::<web_sys::AbortController>);
    let running = move || matches!(status.get(), Status::Running { .. });
    let start = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            ev.prevent_default();
            if matches!(status.get_untracked(), Status::Running { .. }) {
                return;
            }
            let Ok(controller) = web_sys::AbortController::new() else {
                status.set(Status::Failed("This browser cannot cancel downloads.".into()));
                return;
            };
            let signal = controller.signal();
            abort.set_value(Some(controller));
            status.set(Status::Running { records: 0, bytes: 0, fraction: None });
            let (url, name) = (href.get_untracked(), filename.get_value());
            leptos::task::spawn_local(async move {
                let outcome = browser::download(&url, &name, &signal, status).await;
                abort.set_value(None);
                status.set(match outcome {
                    Ok(done) => done,
                    Err(_) if signal.aborted() => Status::Cancelled,
                    Err(message) => Status::Failed(message),
                });
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = ev;
    };
    let cancel = move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(controller) = abort.get_value() {
            controller.abort();
        }
    };
    view! {
        <span class="download">
            {move || if running() {
                view! { <button type="button" class="button" on:click=cancel>"Cancel download"</button> }.into_any()
            } else {
                view! {
                    <a class="button" download=move || filename.get_value() href=move || href.get() on:click=start>
                        "Download NDJSON"
                    </a>
                }.into_any()
            }}
            <span role="status" class="fresh" data-figure="download">
                {move || match status.get() {
                    Status::Idle => ().into_any(),
                    Status::Running { records, bytes: size, fraction } => view! {
                        <progress max="1" value=fraction.map(|f| f.to_string()) aria-label="Download progress"></progress>
                        " "
                        {format!(
                            "{} records, {}{}",
                            thousands(records),
                            bytes(size),
                            fraction.map(|f| format!(" ({:.0}%)", f * 100.0)).unwrap_or_default()
                        )}
                    }.into_any(),
                    Status::Saved { records, bytes: size, unevaluated } => view! {
                        {format!("Saved {} records ({}) as {}.", thousands(records), bytes(size), filename.get_value())}
                        {unevaluated.map(|u| format!(
                            " {} left out: the expression could not be evaluated on them (the first: {}).",
                            thousands(u.records), u.first
                        ))}
                    }.into_any(),
                    Status::Cancelled => view! { "Download cancelled." }.into_any(),
                    Status::Failed(message) => view! {
                        <span class="error" role="alert">{format!("Download failed: {message}")}</span>
                    }.into_any(),
                }}
            </span>
        </span>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    //! The fetch, read and save, with the browser's own APIs.

    use js_sys::{Array, Reflect, Uint8Array};
    use leptos::prelude::*;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;

    use super::Status;
    use crate::api::{ExportProgress, ExportSpans, EXPORT_SPANS_HEADER};

    /// Chunks are gathered into one Blob each time this much has arrived, so the browser may
    /// keep what is done out of the page's memory.
    const FOLD_BYTES: usize = 8 << 20;
    /// The progress shown is brought up to date at most this often.
    const REDRAW_MS: f64 = 150.0;

    fn text(error: JsValue) -> String {
        error
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| error.as_string())
            .unwrap_or_else(|| "the connection failed".to_string())
    }

    fn blob(parts: &Array) -> Result<web_sys::Blob, String> {
        let options = web_sys::BlobPropertyBag::new();
        options.set_type("application/x-ndjson");
        web_sys::Blob::new_with_u8_array_sequence_and_options(parts, &options).map_err(text)
    }

    pub async fn download(
        url: &str, filename: &str, signal: &web_sys::AbortSignal, status: RwSignal<Status>,
    ) -> Result<Status, String> {
        let window = web_sys::window().ok_or("no window")?;
        let init = web_sys::RequestInit::new();
        init.set_signal(Some(signal));
        let response: web_sys::Response =
            JsFuture::from(window.fetch_with_str_and_init(url, &init))
                .await
                .map_err(text)?
                .unchecked_into();
        if !response.ok() {
            let body = match response.text() {
                Ok(promise) => JsFuture::from(promise).await.ok().and_then(|b| b.as_string()),
                Err(_) => None,
            };
            return Err(body
                .and_then(|b| serde_json::from_str::<crate::ApiError>(&b).ok())
                .map(|e| e.message)
                .unwrap_or_else(|| format!("the server answered {}", response.status())));
        }
        let spans = response
            .headers()
            .get(EXPORT_SPANS_HEADER)
            .ok()
            .flatten()
            .and_then(|h| h.parse::<ExportSpans>().ok())
            .unwrap_or_default();
        let mut progress = ExportProgress::new(spans);
        let parts = Array::new();
        let mut unfolded = 0usize;
        if let Some(body) = response.body() {
            let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
            let mut shown_at = 0.0;
            loop {
                let chunk = JsFuture::from(reader.read()).await.map_err(text)?;
                let done = Reflect::get(&chunk, &"done".into())
                    .ok()
                    .and_then(|d| d.as_bool())
                    .unwrap_or(true);
                if done {
                    break;
                }
                let Ok(value) = Reflect::get(&chunk, &"value".into()) else {
                    continue;
                };
                let bytes: Uint8Array = value.unchecked_into();
                progress.feed(&bytes.to_vec());
                parts.push(&bytes);
                unfolded += bytes.length() as usize;
                if unfolded >= FOLD_BYTES {
                    let folded = blob(&parts)?;
                    parts.set_length(0);
                    parts.push(&folded);
                    unfolded = 0;
                }
                let now = js_sys::Date::now();
                if now - shown_at >= REDRAW_MS {
                    shown_at = now;
                    status.set(Status::Running {
                        records: progress.records,
                        bytes: progress.bytes,
                        fraction: progress.fraction(),
                    });
                }
            }
        }
        if let Some(error) = progress.error {
            return Err(error);
        }
        save(&blob(&parts)?, filename)?;
        Ok(Status::Saved {
            records: progress.records,
            bytes: progress.bytes,
            unevaluated: progress.unevaluated,
        })
    }

    /// Hands the file to the browser's own download, then lets the object URL go.
    fn save(file: &web_sys::Blob, filename: &str) -> Result<(), String> {
        let url = web_sys::Url::create_object_url_with_blob(file).map_err(text)?;
        let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
        let link: web_sys::HtmlAnchorElement =
            document.create_element("a").map_err(text)?.unchecked_into();
        link.set_href(&url);
        link.set_download(filename);
        link.click();
        set_timeout(
            move || {
                let _ = web_sys::Url::revoke_object_url(&url);
            },
            std::time::Duration::from_secs(60),
        );
        Ok(())
    }
}
