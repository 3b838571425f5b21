//! What the forms of a change share: following the answer of a dry run or of the change
//! itself, and a confirmation that wants a name typed first (alone, or behind its button).

use leptos::prelude::*;

use crate::api::{ConnectorChanged, ProcessorChanged, ReplicationChanged};
use crate::error::ApiError;
use crate::format::query_value;

/// The answer of a change to one object of a page (a connector, a replication): its cluster and
/// the action done.
pub trait ObjectChanged {
    fn cluster(&self) -> &str;
    fn action(&self) -> &str;
}

impl ObjectChanged for ConnectorChanged {
    fn cluster(&self) -> &str {
        &self.cluster
    }
    fn action(&self) -> &str {
        &self.action
    }
}

impl ObjectChanged for ProcessorChanged {
    fn cluster(&self) -> &str {
        &self.cluster
    }
    fn action(&self) -> &str {
        &self.action
    }
}

impl ObjectChanged for ReplicationChanged {
    fn cluster(&self) -> &str {
        &self.cluster
    }
    fn action(&self) -> &str {
        &self.action
    }
}

/// The one action every change of an object's page goes through (`send` makes the call). A
/// deletion goes back to the cluster's `section` list, which reads afresh (the object's own
/// read would now be 404); any other change is said in `said`'s words through `changed`, which
/// reads the object again.
pub fn object_changes<I, R, Fut>(
    send: impl Fn(&I) -> Fut + 'static, section: &'static str, said: fn(&R) -> String,
    changed: Callback<String>,
) -> Action<I, Result<R, ApiError>>
where
    I: 'static,
    R: ObjectChanged + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<R, ApiError>> + 'static,
{
    let action = Action::new_local(send);
    let navigate = leptos_router::hooks::use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(done)) = action.value().get() {
            if done.action() == "delete" {
                let list = format!("/c/{}/{section}", query_value(done.cluster()));
                navigate(&list, Default::default());
                return;
            }
            changed.run(said(&done));
        }
    });
    action
}

/// Follows `send`, an action answering `(dry_run, answer)`: a dry run's answer becomes the
/// preview, the change's answer goes to `applied` (the preview cleared), an error is shown.
pub fn follow_change<I, T>(
    send: Action<I, (bool, Result<T, ApiError>)>, preview: RwSignal<Option<T>>,
    error: RwSignal<Option<String>>, applied: impl Fn(T) + 'static,
) where
    I: 'static,
    T: Clone + Send + Sync + 'static,
{
    Effect::new(move |_| {
        let Some((dry_run, answer)) = send.value().get() else {
            return;
        };
        match answer {
            Ok(answer) if dry_run => {
                error.set(None);
                preview.set(Some(answer));
            }
            Ok(answer) => {
                error.set(None);
                preview.set(None);
                applied(answer);
            }
            Err(e) => {
                preview.set(None);
                error.set(Some(e.message));
            }
        }
    });
}

/// A confirmation that wants `name` typed (into a field labelled `field`) before `act` runs.
#[component]
pub fn TypedConfirm(
    /// The button's name.
    #[prop(into)]
    label: Signal<String>,
    /// The field's label, e.g. "Topic name".
    field: &'static str, name: String,
    warning: String, #[prop(into)] ready: Signal<bool>, pending: Signal<bool>, act: Callback<()>,
    /// A Cancel button, when the confirmation has none around it.
    #[prop(optional)]
    cancel: Option<Callback<()>>,
) -> impl IntoView {
    let typed = RwSignal::new(String::new());
    let name = StoredValue::new(name);
    let confirmed = move || name.with_value(|n| typed.get() == *n);
    view! {
        <p>{warning}" Type "<strong class="mono">{name.get_value()}</strong>" to confirm."</p>
        <label>{field}
            <input type="text" autocomplete="off" bind:value=typed />
        </label>
        <div class="panel-actions">
            <button type="button" class="button button-danger"
                disabled=move || !confirmed() || !ready.get() || pending.get()
                on:click=move |_| act.run(())>{move || label.get()}</button>
            {cancel.map(|cancel| view! {
                <button type="button" class="button" on:click=move |_| cancel.run(())>"Cancel"</button>
            })}
        </div>
    }
}

/// A danger button that opens a confirmation wanting `name` typed before `act` runs: a sheet
/// over the page, or with `in_row` a panel in the table row the button stands in. `open` is
/// the caller's, so the change's answer can close it; `error`, when given, is said under it.
#[component]
pub fn ConfirmSheet(
    /// The text of the button that opens it.
    button: &'static str,
    /// The button's accessible name, when its text alone does not say which object.
    #[prop(optional, into)]
    button_label: Option<String>,
    /// The confirmation's name, and its confirming button's.
    title: &'static str,
    open: RwSignal<bool>, field: &'static str, name: String, warning: String,
    pending: Signal<bool>, act: Callback<()>,
    #[prop(optional)] error: Option<RwSignal<Option<String>>>, #[prop(optional)] in_row: bool,
) -> impl IntoView {
    let toggle = move |_| {
        open.update(|o| *o = !*o);
        if let Some(error) = error {
            error.set(None);
        }
    };
    let role = if in_row { "group" } else { "dialog" };
    view! {
        <button type="button" class="button button-danger" aria-label=button_label on:click=toggle>
            {button}
        </button>
        <Show when=move || open.get()>
            <div class="panel" role=role aria-label=title>
                <TypedConfirm label=title.to_string() field=field name=name.clone()
                    warning=warning.clone()
                    ready=true
                    pending=pending
                    act=act
                    cancel=Callback::new(move |()| open.set(false)) />
                {move || error.and_then(|e| e.get()).map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </div>
        </Show>
    }
}

/// The action of a confirmed change (`send` makes the call): its answer closes `open` and is
/// said through `on_done` in `said`'s words; a failure is kept in `error`, the sheet open.
pub fn confirmed_change<T, Fut>(
    open: RwSignal<bool>, error: RwSignal<Option<String>>, send: impl Fn() -> Fut + 'static,
    said: impl Fn(&T) -> String + 'static, on_done: Callback<String>,
) -> Action<(), Result<T, ApiError>>
where
    T: Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<T, ApiError>> + 'static,
{
    let action = Action::new_local(move |_: &()| send());
    Effect::new(move |_| match action.value().get() {
        Some(Ok(done)) => {
            open.set(false);
            on_done.run(said(&done));
        }
        Some(Err(e)) => error.set(Some(e.message)),
        None => {}
    });
    action
}

/// The buttons under a change's form: `check` asks for a dry run, `apply` makes the change
/// (held back while `blocked`), Cancel closes the form; all wait while a call is `pending`.
#[component]
pub fn DryRunButtons(
    check: &'static str, apply: &'static str, #[prop(optional)] danger: bool,
    pending: Signal<bool>, #[prop(into)] blocked: Signal<bool>, dispatch: Callback<bool>,
    open: RwSignal<bool>,
) -> impl IntoView {
    let apply_class = if danger { "button button-danger" } else { "button button-primary" };
    view! {
        <div class="panel-actions">
            <button type="button" class="button" disabled=pending
                on:click=move |_| dispatch.run(true)>{check}</button>
            <button type="button" class=apply_class disabled=move || pending.get() || blocked.get()
                on:click=move |_| dispatch.run(false)>{apply}</button>
            <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
        </div>
    }
}
