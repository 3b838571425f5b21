//! What keeps a tool's result within about [`RESULT_CAP`] bytes: a list cut with a note on how
//! to page on, a page of records cut where a continuation can start, a record's parts and a
//! schema's text shortened with a pointer to the call that gives them whole.

use serde_json::{json, Value};

/// The most text of JSON one result carries; a longer list is cut and says how to go on.
pub const RESULT_CAP: usize = 24_000;

/// The bytes `value` takes inside a result, escapes included.
pub(super) fn size(value: &Value) -> usize {
    super::super::boundary::json_without_markers(value).len()
}

/// Drops items from the end of the list `field` of `value` until the whole, with `room` bytes
/// to spare, fits the result cap (one item stays); answers how many there were and the items
/// dropped, first dropped last.
fn cut_list(value: &mut Value, field: &str, room: usize) -> Option<(usize, Vec<Value>)> {
    let mut total_size = size(value);
    if total_size <= RESULT_CAP {
        return None;
    }
    let Some(Value::Array(items)) = value.get_mut(field) else {
        return None;
    };
    let total = items.len();
    let mut dropped = Vec::new();
    while items.len() > 1 && total_size.saturating_add(room) > RESULT_CAP {
        if let Some(item) = items.pop() {
            // The item and the comma before it.
            total_size = total_size.saturating_sub(size(&item) + 1);
            dropped.push(item);
        }
    }
    Some((total, dropped))
}

/// `value` cut to the result cap by dropping items from the end of its list `field`, with a
/// note of how many went and `how` to see them.
pub fn fit(mut value: Value, field: &str, how: &str) -> Value {
    let Some((total, dropped)) = cut_list(&mut value, field, 400) else {
        return value;
    };
    let shown = total - dropped.len();
    if let Value::Object(map) = &mut value {
        map.insert(
            "cut".into(),
            json!({
                "field": field,
                "shown": shown,
                "of": total,
                "why": format!("A result carries at most about {RESULT_CAP} bytes; {} more were left out: {how}.", dropped.len()),
            }),
        );
    }
    value
}

/// A page of records cut to the result cap: the records that fit, and where to go on from
/// the first one left out (the page's own cursor would skip what was cut).
pub(super) fn fit_records(mut page: Value, cluster: &str) -> Value {
    let Some((total, dropped)) = cut_list(&mut page, "records", 600) else {
        return page;
    };
    if dropped.is_empty() {
        // One record larger than the cap: it is cut as `klens_record_get` cuts one, and the
        // page's cursor still holds.
        let others = size(&page).saturating_sub(size(&page["records"][0]));
        if let Some(record) = page.get_mut("records").and_then(|r| r.get_mut(0)) {
            let one = fit_record_to(record.take(), cluster, RESULT_CAP.saturating_sub(others));
            *record = one;
        }
        return page;
    }
    let shown = total - dropped.len();
    let first_cut =
        dropped.last().map(|r| json!({"partition": r["partition"], "offset": r["offset"]}));
    if let Value::Object(map) = &mut page {
        map.insert("next".into(), Value::Null);
        map.insert(
            "cut".into(),
            json!({
                "shown": shown,
                "of": total,
                "continue_from": first_cut,
                "why": format!("A result carries at most about {RESULT_CAP} bytes: ask again with a smaller limit, or with `partition` and `offset` from continue_from."),
            }),
        );
    }
    page
}

/// A value as a query string carries it: what is not a letter, digit, `-`, `.`, `_` or `~`
/// percent-encoded.
pub(super) fn query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The start of `text`, cut at a character boundary so that it takes at most `room` bytes
/// inside a result (quotes and escapes included).
fn text_start(text: &str, room: usize) -> String {
    let mut end = text.len().min(room);
    loop {
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let taken = size(&Value::String(text[..end].to_string()));
        if taken <= room || end == 0 {
            return text[..end].to_string();
        }
        // Every byte left out takes at least one byte of the escaped text with it.
        end = end.saturating_sub(taken - room);
    }
}

/// The text of an encoded part's `data`: a string as it is, anything else as compact JSON.
fn data_text(data: &Value) -> String {
    match data {
        Value::String(text) => text.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// One record of `cluster` cut to the result cap.
pub(super) fn fit_record(record: Value, cluster: &str) -> Value {
    fit_record_to(record, cluster, RESULT_CAP)
}

/// One record of `cluster` cut to `cap` bytes: the `raw` copies go first, then the largest of its key,
/// value and header values shows only the start of its text, then the next largest, until it
/// fits; last, headers from the end. A `cut` field names what was cut and where the whole
/// record is.
fn fit_record_to(mut record: Value, cluster: &str, cap: usize) -> Value {
    // Room for the `cut` note and the marks on each part.
    let room = 600;
    if size(&record) <= cap {
        return record;
    }
    let budget = cap.saturating_sub(room);
    // Where the encoded parts are: the key, the value, each header's value.
    let headers = record["headers"].as_array().map_or(0, Vec::len);
    let mut parts: Vec<(String, Vec<Value>)> =
        vec![("key".into(), vec![json!("key")]), ("value".into(), vec![json!("value")])];
    for i in 0..headers {
        parts.push((
            format!("headers[{i}].value"),
            vec![json!("headers"), json!(i), json!("value")],
        ));
    }
    fn at<'a>(value: &'a mut Value, path: &[Value]) -> Option<&'a mut Value> {
        path.iter().try_fold(value, |v, step| match step {
            Value::String(k) => v.get_mut(k.as_str()),
            Value::Number(i) => v.get_mut(i.as_u64()? as usize),
            _ => None,
        })
    }
    let mut raw_dropped = false;
    for (_, path) in &parts {
        if let Some(Value::Object(part)) = at(&mut record, path) {
            raw_dropped |= part.remove("raw").is_some();
        }
    }
    let mut cut: Vec<String> = Vec::new();
    while size(&record) > budget {
        // The largest part not cut yet.
        let largest = parts
            .iter()
            .filter(|(name, _)| !cut.contains(name))
            .filter_map(|(name, path)| {
                let data = at(&mut record, path)?.get("data")?;
                (!data.is_null()).then(|| (size(data), name.clone(), path.clone()))
            })
            .max_by_key(|(bytes, _, _)| *bytes);
        let Some((bytes, name, path)) = largest else {
            break;
        };
        let over = size(&record) - budget;
        if let Some(Value::Object(part)) = at(&mut record, &path) {
            let text = data_text(&part["data"]);
            let start = text_start(&text, bytes.saturating_sub(over));
            part.insert("cut".into(), json!({"shown_bytes": start.len(), "of_bytes": text.len()}));
            part.insert("data".into(), Value::String(start));
        }
        cut.push(name);
    }
    let mut headers_shown = headers;
    while size(&record) > budget && headers_shown > 0 {
        if let Some(Value::Array(list)) = record.get_mut("headers") {
            list.pop();
        }
        headers_shown -= 1;
    }
    let whole = format!(
        "GET /api/record?cluster={}&topic={}&partition={}&offset={} gives the whole record",
        query_value(cluster),
        query_value(record["topic"].as_str().unwrap_or_default()),
        record["partition"],
        record["offset"],
    );
    if let Value::Object(map) = &mut record {
        map.insert(
            "cut".into(),
            json!({
                "parts": cut,
                "raw_left_out": raw_dropped,
                "headers_shown": headers_shown,
                "headers_of": headers,
                "why": format!("A result carries at most about {RESULT_CAP} bytes: each part named shows only the start of its text (JSON as compact text), with its own `cut` saying how much; {whole}."),
            }),
        );
    }
    record
}

/// A schema's text cut to the result cap: the start of the text, and `whole` saying where the
/// rest is. References that still do not fit are cut from the end.
pub(super) fn fit_schema(mut schema: Value, whole: &str) -> Value {
    let room = 600;
    if size(&schema) <= RESULT_CAP {
        return schema;
    }
    let text = schema["schema"].as_str().unwrap_or_default().to_string();
    let others = size(&schema).saturating_sub(size(&Value::String(text.clone())));
    let start = text_start(&text, RESULT_CAP.saturating_sub(room + others));
    let shown = start.len();
    if let Value::Object(map) = &mut schema {
        map.insert("schema".into(), Value::String(start));
    }
    let references = schema["references"].as_array().map_or(0, Vec::len);
    let kept = match cut_list(&mut schema, "references", room) {
        Some((total, dropped)) => total - dropped.len(),
        None => references,
    };
    if let Value::Object(map) = &mut schema {
        map.insert(
            "cut".into(),
            json!({
                "field": "schema",
                "shown_bytes": shown,
                "of_bytes": text.len(),
                "references_shown": kept,
                "references_of": references,
                "why": format!("A result carries at most about {RESULT_CAP} bytes: `schema` is the start of the text; {whole}."),
            }),
        );
    }
    schema
}

/// A topic's detail cut to the result cap: the configs' documentation goes first, then items
/// from the end of the longer (in bytes) of its partitions and configs (one partition stays),
/// until it fits; `whole` says where the rest is.
pub(super) fn fit_topic(mut detail: Value, whole: &str) -> Value {
    let room = 600;
    if size(&detail) <= RESULT_CAP {
        return detail;
    }
    let mut documentation_left_out = false;
    if let Some(Value::Array(configs)) = detail.get_mut("configs") {
        for config in configs.iter_mut() {
            if let Value::Object(c) = config {
                documentation_left_out |= c.remove("documentation").is_some();
            }
        }
    }
    let count = |v: &Value, field: &str| v[field].as_array().map_or(0, Vec::len);
    let (partitions, configs) = (count(&detail, "partitions"), count(&detail, "configs"));
    let mut total = size(&detail);
    while total + room > RESULT_CAP {
        let bytes = |v: &Value, field: &str| v.get(field).map_or(0, size);
        let field = match (count(&detail, "partitions"), count(&detail, "configs")) {
            (p, c)
                if p > 1
                    && (c == 0 || bytes(&detail, "partitions") >= bytes(&detail, "configs")) =>
            {
                "partitions"
            }
            (_, c) if c > 0 => "configs",
            _ => break,
        };
        if let Some(Value::Array(items)) = detail.get_mut(field) {
            if let Some(item) = items.pop() {
                total = total.saturating_sub(size(&item) + 1);
            }
        }
    }
    let cut = json!({
        "partitions": {"shown": count(&detail, "partitions"), "of": partitions},
        "configs": {"shown": count(&detail, "configs"), "of": configs},
        "documentation_left_out": documentation_left_out,
        "why": format!("A result carries at most about {RESULT_CAP} bytes: lists are cut from the end; {whole}."),
    });
    if let Value::Object(map) = &mut detail {
        map.insert("cut".into(), cut);
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_is_cut_to_the_cap_and_says_so() {
        let topics: Vec<Value> =
            (0..2000).map(|i| json!({"name": format!("topic-{i:05}"), "partitions": 3})).collect();
        let cut = fit(json!({"topics": topics}), "topics", "page on");
        assert!(size(&cut) <= RESULT_CAP, "{}", size(&cut));
        assert_eq!(cut["cut"]["of"], 2000);
        let shown = cut["topics"].as_array().map(Vec::len).unwrap_or(0);
        assert!(shown > 100 && shown < 2000, "{shown}");
        let small = fit(json!({"topics": [1, 2]}), "topics", "page on");
        assert!(small.get("cut").is_none());
    }

    #[test]
    fn a_cut_page_of_records_says_where_to_go_on() {
        let records: Vec<Value> = (0..100)
            .map(|i| json!({"partition": 0, "offset": i, "value": {"encoding": "text", "data": "x".repeat(1000)}}))
            .collect();
        let cut = fit_records(json!({"records": records, "next": "opaque"}), "c");
        assert!(size(&cut) <= RESULT_CAP, "{}", size(&cut));
        let shown = cut["records"].as_array().map(Vec::len).unwrap_or(0);
        assert_eq!(cut["cut"]["continue_from"], json!({"partition": 0, "offset": shown}));
        assert_eq!(cut["next"], Value::Null);
    }
}
