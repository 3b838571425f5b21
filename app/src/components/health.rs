//! Health shown with colour and text, never colour alone.

use leptos::prelude::*;

use crate::api::{Health, HealthStatus};

#[component]
pub fn HealthBadge(health: Health) -> impl IntoView {
    let (class, text) = match health.status {
        HealthStatus::Ok => ("badge badge-ok", "Healthy"),
        HealthStatus::Degraded => ("badge badge-warn", "Degraded"),
        HealthStatus::Unreachable => ("badge badge-bad", "Unreachable"),
    };
    view! { <span class=class title=health.error.unwrap_or_default()>{text}</span> }
}
