//! What the forms of a change share: following the answer of a dry run or of the change
//! itself, and a confirmation that wants a name typed first.

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
