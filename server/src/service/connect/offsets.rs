//! A connector's offsets (KIP-875): read as Connect holds them (CONNECTORS on the connector),
//! and removed or set on a stopped connector (MANAGE_CONNECTORS on it) after a dry run that
//! shows them before and after, as `reset_offsets` does for a group.

use app::access::Resource;
use app::api::{
    Arg, ConnectorOffset, ConnectorOffsetList, ConnectorOffsetsArgs, ConnectorOffsetsPlan,
};
use app::error::Flavor;
use app::{ApiError, ErrorCode, Privilege};
use reqwest::Method;

use super::{connect_client, connectors_access, decide_on, manage_access};
use crate::audit::Attempt;
use crate::auth::{Caller, Grant};
use crate::connect::{Connector, MAX_OFFSETS};
use crate::service::Service;

pub async fn offsets(
    service: &Service, caller: &Caller, cluster: &str, connect: Arg<String>, name: Arg<String>,
) -> Result<ConnectorOffsetList, ApiError> {
    let args = serde_json::json!({ "connect": connect, "name": name });
    let read = async {
        let access = connectors_access(service, caller, cluster)?;
        let connect = connect.required("connect")?;
        let name = name.required("name")?;
        let (found, _, resource, granted) =
            decide_on(service, caller, &access, cluster, &connect, &name, Privilege::Connectors)?;
        let client = connect_client(service, cluster, &connect)?;
        let offsets = client.offsets(&granted.grant, &resource, &name).await?;
        Ok(ConnectorOffsetList {
            cluster: cluster.to_string(),
            connect,
            name,
            state: found.state,
            offsets,
        })
    };
    service.audited_read(caller, cluster, Privilege::Connectors, &args, read).await
}

/// The longest a connector's page waits for Connect's offsets.
const PAGE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// A connector's offsets for its page, under `grant` (CONNECTORS on `resource`): Connect is asked
/// unless its last refresh failed (then the page says so at once), and waited for briefly;
/// either way the rest of the page is answered.
pub(super) async fn on_page(
    service: &Service, grant: &Grant, cluster: &str, connect: &str, resource: &Resource,
) -> (Option<Vec<ConnectorOffset>>, Option<String>) {
    let Resource::Connector { name, .. } = resource else {
        return (None, None);
    };
    let down =
        service.catalog.get(cluster).and_then(|e| e.state().connect.get(connect)?.error.clone());
    if let Some(down) = down {
        return (None, Some(format!("Connect did not answer its last read: {down}")));
    }
    let Ok(client) = connect_client(service, cluster, connect) else {
        return (None, None);
    };
    match tokio::time::timeout(PAGE_WAIT, client.offsets(grant, resource, name)).await {
        Ok(Ok(offsets)) => (Some(offsets), None),
        Ok(Err(e)) => (None, Some(e.message)),
        Err(_) => (None, Some(format!("Connect did not answer within {} s.", PAGE_WAIT.as_secs()))),
    }
}

/// Removes every offset of a connector (`offsets` absent) or sets the partitions named
/// (`offset: null` removes one). Decided writable → MANAGE_CONNECTORS held → the connector
/// visible → MANAGE_CONNECTORS on it → a sink's partitions on topics it reads; recorded by the
/// audit (a dry run too) before Connect is asked. Connect changes the offsets of a STOPPED
/// connector only: a dry run says the state, a change of a connector in another is refused.
pub async fn reset(
    service: &Service, caller: &Caller, args: ConnectorOffsetsArgs,
) -> Result<ConnectorOffsetsPlan, ApiError> {
    let attempt = Attempt::of(&args.cluster, Privilege::ManageConnectors, &args, &[]);
    let cluster = args.cluster.clone();
    let write = async {
        let access = manage_access(service, caller, &cluster)?;
        let connect = args.connect.clone().required("connect")?;
        let name = args.name.clone().required("name")?;
        let dry_run = args.dry_run.clone().or("dry_run", false)?;
        let wanted = args.offsets.clone().optional("offsets")?;
        // Decided on the connector before its offsets are judged: what a sink reads is told
        // to no one who may not change it.
        let (found, _, resource, mut granted) = decide_on(
            service,
            caller,
            &access,
            &cluster,
            &connect,
            &name,
            Privilege::ManageConnectors,
        )?;
        if let Some(wanted) = &wanted {
            check_offsets(&found, wanted)?;
        }
        let client = connect_client(service, &cluster, &connect)?;
        service.open(&mut granted.grant).await?;
        let grant = &granted.grant;
        let before = client.offsets(grant, &resource, &name).await?;
        let now = client.state(&name).await.map_err(crate::rest::api_error)?;
        let state = now.unwrap_or_else(|| found.state.clone());
        let after = planned(&before, wanted.as_deref());
        let mut plan = ConnectorOffsetsPlan {
            cluster: cluster.clone(),
            connect: connect.clone(),
            name: name.clone(),
            dry_run,
            state,
            before,
            after,
            applied: false,
        };
        if dry_run {
            return Ok(plan);
        }
        if plan.state != "STOPPED" {
            return Err(ApiError {
                flavor: Flavor::ConflictOrTimeout,
                ..ApiError::new(
                    ErrorCode::Admin,
                    format!(
                        "Connector \"{name}\" is {}: Connect changes the offsets of a stopped \
                         connector only. Stop it first.",
                        plan.state
                    ),
                )
            });
        }
        let segments = ["connectors", name.as_str(), "offsets"];
        match &wanted {
            None => client.change(grant, &resource, Method::DELETE, &segments, &[]).await?,
            Some(wanted) => {
                let body = serde_json::json!({ "offsets": wanted });
                client
                    .send_json(grant, &resource, Method::PATCH, &segments, &[], Some(&body))
                    .await?
            }
        };
        // What Connect holds now; the plan's own `after` if it cannot say at once.
        if let Ok(now) = client.offsets(grant, &resource, &name).await {
            plan.after = now;
        }
        plan.applied = true;
        Ok(plan)
    };
    service.audited(caller, attempt, |_| None, write).await
}

/// The offsets after a change: those named replace the entry of the same partition (removed
/// when `offset` is null), new partitions added; `None` removes all.
pub(crate) fn planned(
    before: &[ConnectorOffset], wanted: Option<&[ConnectorOffset]>,
) -> Vec<ConnectorOffset> {
    let Some(wanted) = wanted else {
        return Vec::new();
    };
    let mut after = before.to_vec();
    for w in wanted {
        match after.iter().position(|o| o.partition == w.partition) {
            Some(i) if w.offset.is_none() => {
                after.remove(i);
            }
            Some(i) => after[i].offset = w.offset.clone(),
            None if w.offset.is_some() => after.push(w.clone()),
            None => {}
        }
    }
    after
}

/// The offsets a change names, checked before Connect sees them: at least one, at most
/// [`MAX_OFFSETS`]; for a sink, each a partition (`kafka_topic`, `kafka_partition` ≥ 0) of a
/// topic it reads, with `kafka_offset` ≥ 0, so that a change reaches no other topic's offsets.
pub(crate) fn check_offsets(
    connector: &Connector, wanted: &[ConnectorOffset],
) -> Result<(), ApiError> {
    let bad = |message: String| ApiError::bad_request("offsets", message);
    if wanted.is_empty() || wanted.len() > MAX_OFFSETS {
        return Err(bad(format!(
            "Name 1 to {MAX_OFFSETS} partitions, or leave offsets out to remove them all."
        )));
    }
    if connector.kind != "sink" {
        return Ok(());
    }
    // The topics it reads: its dead-letter topic is one it writes, not its group's.
    let dead_letter = connector.dead_letter();
    let topics = connector
        .topics()
        .map(|t| t.into_iter().filter(|t| Some(t.as_str()) != dead_letter).collect::<Vec<_>>());
    let whole = |n: Option<&serde_json::Value>| n.and_then(serde_json::Value::as_i64);
    for (i, o) in wanted.iter().enumerate() {
        let topic = o.partition.get("kafka_topic").and_then(|t| t.as_str());
        let partition = whole(o.partition.get("kafka_partition"));
        let (Some(topic), Some(0..)) = (topic, partition) else {
            return Err(bad(format!(
                "Entry {i}: a sink's partition is {{\"kafka_topic\": name, \"kafka_partition\": \
                 number}}."
            )));
        };
        if topics.as_ref().is_some_and(|t| !t.iter().any(|t| t == topic)) {
            return Err(bad(format!(
                "Entry {i}: connector \"{}\" does not read topic \"{topic}\".",
                connector.name
            )));
        }
        if let Some(offset) = &o.offset {
            if !matches!(whole(offset.get("kafka_offset")), Some(0..)) {
                return Err(bad(format!(
                    "Entry {i}: a sink's offset is {{\"kafka_offset\": number}}, 0 or more, or \
                     null to remove it."
                )));
            }
        }
    }
    Ok(())
}

serves!(app::api::ConnectorOffsets, |s, c, a| offsets(&s, &c, &a.cluster, a.connect, a.name));
serves!(app::api::ResetConnectorOffsets, |s, c, a| reset(&s, &c, a.args));

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(partition: serde_json::Value, offset: serde_json::Value) -> ConnectorOffset {
        serde_json::from_value(json!({ "partition": partition, "offset": offset }))
            .expect("an entry")
    }

    fn sink() -> Connector {
        Connector {
            name: "s".into(),
            kind: "sink".into(),
            class: "FileStreamSink".into(),
            state: "STOPPED".into(),
            worker: None,
            trace: None,
            tasks: Vec::new(),
            config: [("topics".to_string(), "a,b".to_string())].into(),
            active_topics: Vec::new(),
            password_keys: Default::default(),
        }
    }

    #[test]
    fn a_plan_replaces_removes_and_adds_by_partition() {
        let p = |n: i64| json!({ "kafka_topic": "a", "kafka_partition": n });
        let at = |n: i64| json!({ "kafka_offset": n });
        let before = vec![entry(p(0), at(5)), entry(p(1), at(7))];
        let wanted = vec![
            entry(p(0), at(2)),
            entry(p(1), json!(null)),
            entry(p(2), at(9)),
            entry(p(3), json!(null)),
        ];
        let after = planned(&before, Some(&wanted));
        assert_eq!(after, vec![entry(p(0), at(2)), entry(p(2), at(9))]);
        assert!(planned(&before, None).is_empty());
    }

    #[test]
    fn a_sink_change_stays_on_its_own_topics_with_whole_offsets() {
        let ok = entry(json!({ "kafka_topic": "b", "kafka_partition": 0 }), json!(null));
        assert!(check_offsets(&sink(), std::slice::from_ref(&ok)).is_ok());
        let cases = [
            entry(json!({ "kafka_topic": "other", "kafka_partition": 0 }), json!(null)),
            entry(json!({ "kafka_topic": "a", "kafka_partition": -1 }), json!(null)),
            entry(json!({ "kafka_topic": "a" }), json!({ "kafka_offset": 1 })),
            entry(
                json!({ "kafka_topic": "a", "kafka_partition": 0 }),
                json!({ "kafka_offset": -3 }),
            ),
            entry(json!({ "kafka_topic": "a", "kafka_partition": 0 }), json!({ "position": 3 })),
        ];
        for case in cases {
            let e = check_offsets(&sink(), std::slice::from_ref(&case)).expect_err("refused");
            assert_eq!(
                (e.code, e.field.as_deref()),
                (ErrorCode::BadRequest, Some("offsets")),
                "{case:?}"
            );
        }
        assert!(check_offsets(&sink(), &[]).is_err());
        // A source's partitions are its plugin's own: Connect judges them.
        let source = Connector { kind: "source".into(), ..sink() };
        assert!(check_offsets(
            &source,
            &[entry(json!({ "filename": "x" }), json!({ "position": 1 }))]
        )
        .is_ok());
    }
}
