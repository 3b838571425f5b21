//! The Produce record form (a topic's Overview), and Duplicate this record (a record page), which
//! opens the same form filled with the record's exact bytes, to this topic or another one.

use leptos::prelude::*;

use crate::api::{
    produce, Encoded, Encoding, HeaderIn, Payload, ProduceArgs, Produced, Record, SchemaUsed,
    TopicDetail,
};
use crate::components::access::{allows, identity};
use crate::format::page_url;
use crate::Privilege;

/// One part of a record as the form holds it: how it is written, the text typed, and for a
/// schema encoding the schema chosen (empty: the default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartDraft {
    /// `text`, `json`, `base64`, `null`, or (key and value) `avro`, `protobuf`, `json_schema`.
    pub encoding: String,
    pub text: String,
    pub subject: String,
    pub version: String,
    pub message: String,
}

/// Whether an encoding goes through the registry.
fn through_registry(encoding: &str) -> bool {
    matches!(encoding, "avro" | "protobuf" | "json_schema")
}

impl PartDraft {
    fn empty(encoding: &str) -> PartDraft {
        PartDraft { encoding: encoding.to_string(), ..PartDraft::default() }
    }

    fn with_text(encoding: &str, text: String) -> PartDraft {
        PartDraft { encoding: encoding.to_string(), text, ..PartDraft::default() }
    }

    /// The part of a record shown on its page, as bytes to write again exactly: a value
    /// decoded through a schema (or JSON whose text differs from its compact form) goes back as
    /// its raw bytes.
    pub fn of(encoded: &Encoded) -> PartDraft {
        let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        if encoded.masked {
            // What the page shows of a masked part is not the record's: nothing is copied.
            return PartDraft::empty("json");
        }
        match (&encoded.encoding, &encoded.raw) {
            (Encoding::Null, _) => PartDraft::empty("null"),
            (_, Some(raw)) => PartDraft::with_text("base64", raw.clone()),
            (Encoding::Text, None) => PartDraft::with_text("text", text(&encoded.data)),
            (Encoding::Json, None) => PartDraft::with_text("json", encoded.data.to_string()),
            (_, None) => PartDraft::with_text("base64", text(&encoded.data)),
        }
    }

    /// The payload to send, or why the text does not fit the encoding.
    fn payload(&self, what: &str) -> Result<Payload, String> {
        let json = || {
            serde_json::from_str(&self.text).map_err(|e| format!("The {what} is not JSON: {e}."))
        };
        let (encoding, data) = match self.encoding.as_str() {
            "null" => (Encoding::Null, serde_json::Value::Null),
            "json" => (Encoding::Json, json()?),
            "avro" => (Encoding::Avro, json()?),
            "protobuf" => (Encoding::Protobuf, json()?),
            "json_schema" => (Encoding::JsonSchema, json()?),
            "base64" => (Encoding::Base64, serde_json::Value::String(self.text.trim().to_string())),
            _ => (Encoding::Text, serde_json::Value::String(self.text.clone())),
        };
        let mut payload = Payload { encoding, data, ..Payload::default() };
        if through_registry(&self.encoding) {
            let given = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
            payload.subject = given(&self.subject);
            payload.version = match given(&self.version) {
                None => None,
                Some(v) => Some(v.parse::<i32>().map_err(|_| {
                    format!("The {what}'s schema version is a number (empty: the newest).")
                })?),
            };
            if self.encoding == "protobuf" {
                payload.message = given(&self.message);
            }
        }
        Ok(payload)
    }
}

/// What the form starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordDraft {
    pub partition: Option<i32>,
    pub key: PartDraft,
    pub value: PartDraft,
    pub headers: Vec<(String, PartDraft)>,
}

impl RecordDraft {
    fn blank() -> RecordDraft {
        RecordDraft {
            partition: None,
            key: PartDraft::empty("null"),
            value: PartDraft::empty("json"),
            headers: Vec::new(),
        }
    }

    /// A record exactly as it is: key, value and headers.
    pub fn of(record: &Record) -> RecordDraft {
        RecordDraft {
            partition: None,
            key: PartDraft::of(&record.key),
            value: PartDraft::of(&record.value),
            headers: record
                .headers
                .iter()
                .map(|h| (h.key.clone(), PartDraft::of(&h.value)))
                .collect(),
        }
    }
}

/// The encoding choice and text of one part; a key or value (`subject` names its default
/// subject) may also be JSON encoded through the registry.
#[component]
fn PartField(
    label: &'static str, part: RwSignal<PartDraft>,
    #[prop(optional)] subject: Option<Signal<String>>,
) -> impl IntoView {
    let schemas = subject.is_some();
    let registry = move || through_registry(&part.read().encoding);
    view! {
        <fieldset class="choice">
            <legend>{label}</legend>
            <select aria-label=format!("{label} encoding") prop:value=move || part.read().encoding.clone()
                on:change=move |ev| part.update(|p| p.encoding = event_target_value(&ev))>
                <option value="text">"text"</option>
                <option value="json">"JSON"</option>
                {schemas.then(|| view! {
                    <option value="avro">"Avro (JSON, through the registry)"</option>
                    <option value="protobuf">"Protobuf (JSON, through the registry)"</option>
                    <option value="json_schema">"JSON Schema (through the registry)"</option>
                })}
                <option value="base64">"base64 bytes"</option>
                <option value="null">"null"</option>
            </select>
            <Show when=move || schemas && registry()>
                <div class="schema-choice">
                    <label>"Subject"
                        <input type="text" class="mono" autocomplete="off" aria-label=format!("{label} subject")
                            placeholder=move || subject.map(|s| s.get()).unwrap_or_default()
                            prop:value=move || part.read().subject.clone()
                            on:input=move |ev| part.update(|p| p.subject = event_target_value(&ev)) />
                    </label>
                    <label>"Version"
                        <input type="text" inputmode="numeric" autocomplete="off" aria-label=format!("{label} schema version")
                            placeholder="newest" prop:value=move || part.read().version.clone()
                            on:input=move |ev| part.update(|p| p.version = event_target_value(&ev)) />
                    </label>
                    <Show when=move || part.read().encoding == "protobuf">
                        <label>"Message"
                            <input type="text" class="mono" autocomplete="off" aria-label=format!("{label} message")
                                placeholder="the schema's first" prop:value=move || part.read().message.clone()
                                on:input=move |ev| part.update(|p| p.message = event_target_value(&ev)) />
                        </label>
                    </Show>
                </div>
            </Show>
            <Show when=move || part.read().encoding != "null">
                <textarea rows="3" class="mono" aria-label=label prop:value=move || part.read().text.clone()
                    on:input=move |ev| part.update(|p| p.text = event_target_value(&ev))></textarea>
            </Show>
        </fieldset>
    }
}

/// The form: topic (editable when duplicating), partition, key, value, headers; Preview asks
/// where the record would go, Produce writes it.
#[component]
pub fn ProduceRecord(
    cluster: String, topic: String,
    /// The topic's partition count, for a choice of partition; `None` (another topic may be
    /// typed) takes a number instead.
    partitions: Option<usize>,
    /// The button's name: "Produce record" or "Duplicate this record".
    label: &'static str,
    #[prop(optional)] draft: Option<RecordDraft>,
    /// Whether the topic may be changed in the form (a duplicate may go to another topic).
    #[prop(optional)]
    any_topic: bool,
) -> impl IntoView {
    let draft = draft.unwrap_or_else(RecordDraft::blank);
    let open = RwSignal::new(false);
    let topic = RwSignal::new(topic);
    let partition = RwSignal::new(draft.partition.map(|p| p.to_string()).unwrap_or_default());
    let key = RwSignal::new(draft.key.clone());
    let value = RwSignal::new(draft.value.clone());
    let headers: RwSignal<Vec<(RwSignal<String>, RwSignal<PartDraft>)>> = RwSignal::new(
        draft
            .headers
            .iter()
            .map(|(k, v)| (RwSignal::new(k.clone()), RwSignal::new(v.clone())))
            .collect(),
    );
    let preview = RwSignal::new(None::<Produced>);
    let done = RwSignal::new(None::<Produced>);
    let error = RwSignal::new(None::<String>);
    let cluster = StoredValue::new(cluster);

    let args = move |dry_run: bool| -> Result<ProduceArgs, String> {
        let partition = match partition.get().trim() {
            "" => None,
            p => Some(p.parse::<i32>().map_err(|_| "Pick a partition.".to_string())?),
        };
        let headers = headers
            .get()
            .iter()
            .map(|(k, v)| {
                let v = v.get();
                Ok(HeaderIn {
                    key: k.get(),
                    value: if v.encoding == "null" { None } else { Some(v.payload("header")?) },
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let key = key.get();
        Ok(ProduceArgs {
            cluster: cluster.get_value(),
            topic: topic.get().trim().to_string().into(),
            partition: partition.into(),
            key: if key.encoding == "null" { None } else { Some(key.payload("key")?) }.into(),
            value: value.get().payload("value")?.into(),
            headers: headers.into(),
            dry_run: dry_run.into(),
        })
    };
    let send = Action::new_local(move |args: &ProduceArgs| {
        let args = args.clone();
        async move { produce(args).await }
    });
    Effect::new(move |_| match send.value().get() {
        Some(Ok(answer)) if answer.dry_run => {
            error.set(None);
            preview.set(Some(answer));
        }
        Some(Ok(answer)) => {
            error.set(None);
            preview.set(None);
            done.set(Some(answer));
        }
        Some(Err(e)) => {
            preview.set(None);
            error.set(Some(e.message));
        }
        None => {}
    });
    let dispatch = move |dry_run: bool| match args(dry_run) {
        Ok(a) => {
            send.dispatch(a);
        }
        Err(e) => error.set(Some(e)),
    };
    let forget = move || {
        preview.set(None);
        done.set(None);
    };

    view! {
        <button type="button" class="button" on:click=move |_| { open.update(|o| *o = !*o); forget(); }>{label}</button>
        <Show when=move || open.get()>
            <form class="panel wide" aria-label="Produce record" on:submit=move |ev| { ev.prevent_default(); dispatch(true); }
                on:input=move |_| forget()>
                {any_topic.then(|| view! {
                    <label>"Topic"
                        <input type="text" class="mono" autocomplete="off" bind:value=topic />
                    </label>
                })}
                {match partitions {
                    Some(n) => view! {
                        <label>"Partition"
                            <select prop:value=move || partition.get() on:change=move |ev| { partition.set(event_target_value(&ev)); forget(); }>
                                <option value="">"where the key goes (any, without a key)"</option>
                                {(0..n).map(|p| view! { <option value=p.to_string()>{format!("Partition {p}")}</option> }).collect_view()}
                            </select>
                        </label>
                    }.into_any(),
                    None => view! {
                        <label>"Partition (empty: where the key goes)"
                            <input type="number" min="0" bind:value=partition />
                        </label>
                    }.into_any(),
                }}
                <PartField label="Key" part=key subject=Signal::derive(move || format!("{}-key", topic.get().trim())) />
                <PartField label="Value" part=value subject=Signal::derive(move || format!("{}-value", topic.get().trim())) />
                <fieldset class="choice">
                    <legend>"Headers"</legend>
                    {move || headers.get().into_iter().enumerate().map(|(i, (k, v))| view! {
                        <div class="header-row">
                            <input type="text" class="mono" aria-label=format!("Header {} name", i + 1) bind:value=k />
                            <PartField label="Header value" part=v />
                            <button type="button" class="button" on:click=move |_| headers.update(|h| { h.remove(i); })>
                                "Remove"
                            </button>
                        </div>
                    }).collect_view()}
                    <button type="button" class="button" on:click=move |_| headers.update(|h| {
                        h.push((RwSignal::new(String::new()), RwSignal::new(PartDraft::empty("text"))));
                    })>"Add header"</button>
                </fieldset>
                <div class="panel-actions">
                    <button type="submit" class="button" disabled=move || send.pending().get()>"Preview"</button>
                    <button type="button" class="button button-primary" disabled=move || send.pending().get()
                        on:click=move |_| dispatch(false)>"Produce"</button>
                    <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
                {move || preview.get().map(|p| view! { <p role="status">{describe(&p)}</p> })}
                {move || done.get().map(|d| {
                    let href = format!(
                        "{}/records/{}/{}",
                        page_url(&d.cluster, "topics", &d.topic),
                        d.partition.unwrap_or(0),
                        d.offset.unwrap_or(0)
                    );
                    view! {
                        <p class="note" role="status">
                            {format!("Written to partition {} at offset {}. ", d.partition.unwrap_or(-1), d.offset.unwrap_or(-1))}
                            <a href=href>"Open the record"</a>
                        </p>
                    }
                })}
                {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            </form>
        </Show>
    }
}

/// A dry run's answer in words.
fn describe(p: &Produced) -> String {
    let size = |n: Option<u64>| n.map_or("none".to_string(), |n| format!("{n} bytes"));
    let place = match (&p.partition, &p.key_partitions) {
        (Some(part), Some(k)) if k.murmur2 != k.consistent => format!(
            "partition {part} ({}). A Java client puts this key in partition {}, a librdkafka client with its default in {}.",
            p.partitioner, k.murmur2, k.consistent
        ),
        (Some(part), _) => format!("partition {part}"),
        (None, _) => "a partition the producer picks (no key)".to_string(),
    };
    let schema = |what: &str, s: &Option<SchemaUsed>| {
        s.as_ref().map_or(String::new(), |s| match (&s.subject, s.version) {
            (Some(subject), Some(version)) => format!(
                " The {what} is {} with schema {} ({subject} version {version}).",
                s.schema_type, s.id
            ),
            _ => format!(" The {what} is {} with schema {}.", s.schema_type, s.id),
        })
    };
    format!(
        "Kafka would get key {}, value {}, {} header{}, in {place}.{}{}",
        size(p.key_bytes),
        size(p.value_bytes),
        p.headers,
        if p.headers == 1 { "" } else { "s" },
        schema("key", &p.key_schema),
        schema("value", &p.value_schema),
    )
}

/// Duplicate this record, where the caller may produce to its topic: never on a topic Kafka
/// marks internal (the decision refuses a change to one, so it is not offered). `detail` is
/// the topic as the catalog has it, for Kafka's internal flag: the record page reads it once,
/// before anything suspends, so that the page hydrates with the resources it rendered with.
#[component]
pub fn DuplicateRecord(
    cluster: String, record: Record, detail: Resource<Result<TopicDetail, crate::ApiError>>,
) -> impl IntoView {
    let who = identity();
    let cluster = StoredValue::new(cluster);
    let record = StoredValue::new(record);
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let may = match (who.await, detail.await) {
                    (Ok(w), Ok(t)) => {
                        let target = crate::access::Resource::Topic { name: t.name, internal: t.internal };
                        allows(w.cluster(&cluster.get_value()), Privilege::Produce, &target)
                    }
                    _ => false,
                };
                may.then(|| {
                    let r = record.get_value();
                    let masked = r.key.masked || r.value.masked;
                    view! {
                        {masked.then(|| view! {
                            <p class="hint masked-note">
                                "Parts of this record are masked for you: Duplicate leaves them empty, to be typed anew."
                            </p>
                        })}
                        <ProduceRecord cluster=cluster.get_value() topic=r.topic.clone() partitions=None
                            label="Duplicate this record" draft=RecordDraft::of(&r) any_topic=true />
                    }
                })
            })}
        </Suspense>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(encoding: Encoding, data: serde_json::Value, raw: Option<&str>) -> Encoded {
        Encoded {
            encoding,
            data,
            schema_id: None,
            raw: raw.map(str::to_string),
            error: None,
            masked: false,
        }
    }

    /// A duplicate writes the bytes the record holds, whatever the page shows of them.
    #[test]
    fn a_duplicate_carries_the_exact_bytes() {
        use serde_json::json;
        let cases = [
            (encoded(Encoding::Null, json!(null), None), ("null", "")),
            (encoded(Encoding::Text, json!("hé"), None), ("text", "hé")),
            (encoded(Encoding::Json, json!({"a": 1}), None), ("json", r#"{"a":1}"#)),
            // Keys stay in the order written (the record's bytes), not sorted.
            (
                encoded(
                    Encoding::Json,
                    serde_json::from_str(r#"{"id":7,"amount":3}"#).expect("JSON"),
                    None,
                ),
                ("json", r#"{"id":7,"amount":3}"#),
            ),
            // JSON whose text was not compact, and a value decoded through a schema.
            (
                encoded(Encoding::Json, json!({"a": 1}), Some("eyAiYSI6IDEgfQ==")),
                ("base64", "eyAiYSI6IDEgfQ=="),
            ),
            (encoded(Encoding::Avro, json!({"id": 1}), Some("AAAAAAEC")), ("base64", "AAAAAAEC")),
            (encoded(Encoding::Base64, json!("/wA="), None), ("base64", "/wA=")),
        ];
        for (shown, (encoding, text)) in cases {
            let draft = PartDraft::of(&shown);
            assert_eq!(
                (draft.encoding.as_str(), draft.text.as_str()),
                (encoding, text),
                "{shown:?}"
            );
            let payload = draft.payload("value").expect("a payload");
            let back = match payload.encoding {
                Encoding::Json => payload.data.to_string(),
                Encoding::Null => String::new(),
                _ => payload.data.as_str().unwrap_or_default().to_string(),
            };
            assert_eq!(back, text);
        }
        assert!(PartDraft::with_text("json", "{".into()).payload("value").is_err());
    }

    /// A masked part is never copied into a duplicate, whatever form it is shown in; the
    /// parts that are not masked still are.
    #[test]
    fn a_duplicate_never_copies_a_masked_part() {
        use serde_json::json;
        let mut value = encoded(Encoding::Json, json!({"card": "************1111"}), None);
        value.masked = true;
        let mut whole = encoded(Encoding::Text, json!("****"), None);
        whole.masked = true;
        for part in [value, whole] {
            let draft = PartDraft::of(&part);
            assert_eq!(draft.text, "", "nothing of {part:?} is copied");
        }
        let key = encoded(Encoding::Text, json!("order-1"), None);
        assert_eq!(PartDraft::of(&key).text, "order-1");
    }

    /// A schema encoding sends the JSON typed and the schema chosen; empty choices are the
    /// server's defaults, and a version that is not a number is caught in the form.
    #[test]
    fn a_schema_part_names_its_schema() {
        let mut draft = PartDraft::with_text("avro", r#"{"id": 1}"#.into());
        let payload = draft.payload("value").expect("payload");
        assert_eq!(
            (payload.encoding, payload.subject, payload.version),
            (Encoding::Avro, None, None)
        );
        draft.subject = " orders-value ".into();
        draft.version = "3".into();
        draft.message = "shop.Order".into();
        let payload = draft.payload("value").expect("payload");
        assert_eq!(
            (payload.subject.as_deref(), payload.version, payload.message),
            (Some("orders-value"), Some(3), None)
        );
        draft.version = "newest".into();
        assert!(draft.payload("value").is_err());
        draft.encoding = "protobuf".into();
        draft.version = String::new();
        let payload = draft.payload("value").expect("payload");
        assert_eq!(payload.message.as_deref(), Some("shop.Order"));
    }
}
